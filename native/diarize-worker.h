// Speaker diarization of one recording (native/speakers/diarizer.h) off the event loop: PCM and the
// VAD's speech regions in, speaker turns out. Computes on the libuv thread, single-threaded, like the
// VAD (detect-speech-worker.cc explains why whisper's compute threads are left alone). Resolves a Promise.
#pragma once

#include <vector>
#include <napi.h>

#include "abort-control.h"
#include "safe-async-worker.h"
#include "speakers/diarizer.h"

namespace svc {

class DiarizeWorker : public SafeAsyncWorker {
 public:
  // diarize(pcm, regions, {maxVoices}, control?) -> Promise<NativeDiarization>
  static Napi::Value Start(const Napi::CallbackInfo& info);

  DiarizeWorker(Napi::Env env, Napi::Float32Array pcm, std::vector<speakers::SpeechRegion> regions,
                speakers::DiarizationSettings settings, const Napi::Value& control);

 protected:
  void Execute() override;
  void OnOK() override;
  void OnError(const Napi::Error& error) override;

 private:
  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference pcmRef_;
  const float* samples_;
  size_t sampleCount_;
  std::vector<speakers::SpeechRegion> regions_;
  speakers::DiarizationSettings settings_;
  AbortControl abort_;
  bool aborted_ = false;

  speakers::DiarizationResult result_;
  double totalMs_ = 0;
};

}  // namespace svc
