// Language identification over one 30 s window: log-mel, one encoder pass, one decoder step,
// probabilities for every language the model knows. Runs on a fresh whisper_state. With audioCtx the
// encoder runs over only that many positions (20 ms each) from the offset, as whisper.cpp's own
// audio_ctx does for transcription: a short utterance is judged at a fraction of a full window's cost.
#pragma once

#include <memory>
#include <vector>
#include <napi.h>

#include "model-registry.h"
#include "pcm-worker.h"

namespace svc {

class DetectLanguageWorker : public ModelPcmWorker<LoadedModel> {
 public:
  // detectLanguage(model, pcm, { offsetMs?, threads?, audioCtx? }, control?) -> Promise<NativeLanguageResult>
  static Napi::Value Start(const Napi::CallbackInfo& info);

  DetectLanguageWorker(Napi::Env env, std::shared_ptr<LoadedModel> model, PinnedPcm pcm, int offsetMs, int threads,
                       int audioCtx, const Napi::Value& control);

 protected:
  void Execute() override;
  void Compute();
  void OnOK() override;

 private:
  int offsetMs_;
  int threads_;
  int audioCtx_;
  int languageId_ = -1;
  std::vector<float> probs_;
  double totalMs_ = 0;
};

}  // namespace svc
