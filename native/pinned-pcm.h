// The samples of a call, read from JavaScript once and pinned: the Float32Array is kept alive (and so
// its memory in place) for as long as the worker that reads it on another thread. Read() is the only
// way to make one, so every operation's PCM passes ReadPcm's checks and fails with the same errors.
#pragma once

#include <cstddef>
#include <napi.h>

#include "option-readers.h"

namespace svc {

class PinnedPcm {
 public:
  /** No samples: diarize given features instead of PCM. */
  PinnedPcm() = default;

  /** The Float32Array `value` (ReadPcm: a TypeError or RangeError for anything else), pinned. */
  static PinnedPcm Read(Napi::Env env, const Napi::Value& value) { return PinnedPcm(ReadPcm(env, value)); }

  const float* samples() const { return samples_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  explicit PinnedPcm(Napi::Float32Array pcm)
      : ref_(Napi::Persistent(pcm.As<Napi::Object>())), samples_(pcm.Data()), size_(pcm.ElementLength()) {}

  Napi::ObjectReference ref_;
  const float* samples_ = nullptr;
  size_t size_ = 0;
};

}  // namespace svc
