// Voice activity detection over one recording: Silero VAD's speech probability for every frame (of the
// audio levelled, stretch by stretch, towards the level Silero hears best: speech-level.h), then the
// speech segments those probabilities give under the caller's parameters. Runs on a context checked out
// of the VAD model's free-list (vad-model-registry.h), single-threaded, on a persistent compute thread.
// Resolves a Promise.
#pragma once

#include <memory>
#include <vector>
#include <napi.h>

#include "pcm-worker.h"
#include "speech-segments.h"
#include "vad-model-registry.h"
#include "vad-options.h"

namespace svc {

class DetectSpeechWorker : public ModelPcmWorker<VadModel> {
 public:
  // detectSpeech(vadModel, pcm, params, control?) -> Promise<NativeSpeechDetection>
  static Napi::Value Start(const Napi::CallbackInfo& info);

  DetectSpeechWorker(Napi::Env env, std::shared_ptr<VadModel> model, PinnedPcm pcm, VadOptions options,
                     const Napi::Value& control);

 protected:
  void Execute() override;
  void Compute();
  void OnOK() override;

 private:
  VadOptions options_;

  std::vector<float> probs_;
  std::vector<SpeechSegment> segments_;
  double totalMs_ = 0;
  double detectMs_ = 0;
  // The input's gated level, and the most any frame was raised for the VAD (speech-level.h).
  double levelDb_ = 0;
  double gainDb_ = 0;
};

}  // namespace svc
