// Speaker diarization (native/speakers/diarizer.h) off the event loop, in two operations:
// - speakerFeatures(pcm, regions, control?): stage 1 over one window of a recording;
// - diarize(input, regions, {maxVoices}, control?): the whole diarization, where `input` is either the
//   PCM of the recording or its features ({frames, values, audible}, joined from speakerFeatures of
//   its windows), so a recording too long to hold as PCM is still diarized at once.
// Both compute on the libuv thread, single-threaded, like the VAD (detect-speech-worker.cc explains
// why whisper's compute threads are left alone), and resolve a Promise.
#pragma once

#include <vector>
#include <napi.h>

#include "abort-control.h"
#include "safe-async-worker.h"
#include "speakers/cepstral-features.h"
#include "speakers/diarizer.h"

namespace svc {

/** What diarize reads, pinned (the JavaScript arrays are kept alive while another thread reads them). */
struct DiarizationInput {
  // PCM ...
  Napi::ObjectReference pcmRef;
  const float* samples = nullptr;
  size_t sampleCount = 0;
  // ... or features already computed (samples == nullptr).
  Napi::ObjectReference valuesRef;
  Napi::ObjectReference audibleRef;
  const float* values = nullptr;
  const uint8_t* audible = nullptr;
  size_t frames = 0;

  static DiarizationInput Read(Napi::Env env, const Napi::Value& value);
};

class DiarizeWorker : public SafeAsyncWorker {
 public:
  // diarize(pcm | features, regions, {maxVoices}, control?) -> Promise<NativeDiarization>
  static Napi::Value Start(const Napi::CallbackInfo& info);

  DiarizeWorker(Napi::Env env, DiarizationInput input, std::vector<speakers::SpeechRegion> regions, speakers::DiarizationSettings settings,
                const Napi::Value& control);

 protected:
  void Execute() override;
  void OnOK() override;
  void OnError(const Napi::Error& error) override;

 private:
  Napi::Promise::Deferred deferred_;
  DiarizationInput input_;
  std::vector<speakers::SpeechRegion> regions_;
  speakers::DiarizationSettings settings_;
  AbortControl abort_;
  bool aborted_ = false;

  speakers::DiarizationResult result_;
  double totalMs_ = 0;
};

class SpeakerFeaturesWorker : public SafeAsyncWorker {
 public:
  // speakerFeatures(pcm, regions, control?) -> Promise<{frames, values: Float32Array, audible: Uint8Array}>
  static Napi::Value Start(const Napi::CallbackInfo& info);

  SpeakerFeaturesWorker(Napi::Env env, Napi::Float32Array pcm, std::vector<speakers::SpeechRegion> regions, const Napi::Value& control);

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
  AbortControl abort_;
  bool aborted_ = false;

  speakers::FeatureMatrix features_;
};

}  // namespace svc
