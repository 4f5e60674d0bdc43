// Speaker diarization (native/speakers/diarizer.h) off the event loop, in two operations:
// - speakerFeatures(pcm, regions, control?): stage 1 over one window of a recording;
// - diarize(input, regions, {maxVoices, minVoices}, control?): the whole diarization, where `input` is either the
//   PCM of the recording or its features ({frames, values, audible, pitch}, joined from speakerFeatures of
//   its windows), so a recording too long to hold as PCM is still diarized at once.
// Both compute on the libuv thread, single-threaded, like the VAD (detect-speech-worker.cc explains
// why whisper's compute threads are left alone), and resolve a Promise.
#pragma once

#include <vector>
#include <napi.h>

#include "pcm-worker.h"
#include "speakers/cepstral-features.h"
#include "speakers/diarizer.h"

namespace svc {

/** Speaker features already computed, pinned like PCM (the arrays are kept alive while another thread reads them). */
struct PinnedFeatures {
  Napi::ObjectReference valuesRef;
  Napi::ObjectReference audibleRef;
  Napi::ObjectReference pitchRef;
  const float* values = nullptr;
  const uint8_t* audible = nullptr;
  const float* pitch = nullptr;
  size_t frames = 0;
};

/** What diarize reads: PCM, or (pcm empty) features. */
struct DiarizationInput {
  PinnedPcm pcm;
  PinnedFeatures features;

  static DiarizationInput Read(Napi::Env env, const Napi::Value& value);
};

class DiarizeWorker : public PcmWorker {
 public:
  // diarize(pcm | features, regions, {maxVoices, minVoices}, control?) -> Promise<NativeDiarization>
  static Napi::Value Start(const Napi::CallbackInfo& info);

  DiarizeWorker(Napi::Env env, DiarizationInput input, std::vector<speakers::SpeechRegion> regions, speakers::DiarizationSettings settings,
                const Napi::Value& control);

 protected:
  void Execute() override;
  void OnOK() override;

 private:
  // Read when pcm_ is empty.
  const PinnedFeatures features_;
  std::vector<speakers::SpeechRegion> regions_;
  speakers::DiarizationSettings settings_;

  speakers::DiarizationResult result_;
  double totalMs_ = 0;
};

class SpeakerFeaturesWorker : public PcmWorker {
 public:
  // speakerFeatures(pcm, regions, control?) -> Promise<{frames, values: Float32Array, audible: Uint8Array, pitch: Float32Array}>
  static Napi::Value Start(const Napi::CallbackInfo& info);

  SpeakerFeaturesWorker(Napi::Env env, PinnedPcm pcm, std::vector<speakers::SpeechRegion> regions, const Napi::Value& control);

 protected:
  void Execute() override;
  void OnOK() override;

 private:
  std::vector<speakers::SpeechRegion> regions_;

  speakers::FeatureMatrix features_;
};

}  // namespace svc
