#include "detect-language-worker.h"
#include "whisper-state.h"

#include "compute-threads.h"

#include "abort-error.h"
#include "option-readers.h"
#include "stopwatch.h"
#include "transcribe-options.h"
#include "whisper-model-kind.h"

namespace svc {


Napi::Value DetectLanguageWorker::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<LoadedModel> model = ModelHandle<LoadedModel>::ModelFrom(info[0]);
  PinnedPcm pcm = PinnedPcm::Read(env, info[1]);
  const Napi::Object o = ReadOptions(env, info[2], "language detection options");
  const int threads = ReadThreads(env, o);
  const int audioCtx = HasOption(o, "audioCtx") ? IntegerOption(env, o, "audioCtx", 0, whisper_n_audio_ctx(model->context())) : 0;
  const int offsetMs = HasOption(o, "offsetMs") ? IntegerOption(env, o, "offsetMs", 0, 1 << 30) : 0;
  auto* worker = new DetectLanguageWorker(env, std::move(model), std::move(pcm), offsetMs, threads, audioCtx, info[3]);
  return worker->Enqueue();
}

DetectLanguageWorker::DetectLanguageWorker(Napi::Env env, std::shared_ptr<LoadedModel> model, PinnedPcm pcm,
                                           int offsetMs, int threads, int audioCtx, const Napi::Value& control)
    : ModelPcmWorker(env, "svc-stt:detect-language", std::move(model), std::move(pcm), control),
      offsetMs_(offsetMs),
      threads_(threads),
      audioCtx_(audioCtx) {}

// The libuv thread only waits: the compute runs on a persistent compute thread (compute-threads.h).
void DetectLanguageWorker::Execute() {
  RunOnComputeThread([this] { Compute(); });
}

void DetectLanguageWorker::Compute() {
  const double start = NowMs();
  whisper_context* ctx = model_->context();
  if (!whisper_is_multilingual(ctx)) {
    SetError("this model is English-only and cannot identify languages");
    return;
  }
  if (static_cast<int64_t>(offsetMs_) * 16 >= static_cast<int64_t>(pcm_.size())) {
    SetError("offsetMs is beyond the end of the audio");
    return;
  }
  // Detection draws no randomness and reads no earlier text: a kept state serves, and is kept again.
  StateLease lease(model_->states(), audioCtx_, false);
  if (!lease) {
    SetError("whisper.cpp could not allocate a decoding state (out of memory?)");
    return;
  }
  whisper_state* state = lease.get();
  probs_.assign(whisper_lang_max_id() + 1, 0.0f);
  if (!lease.ReadyForDetection(ctx, audioCtx_, threads_)) {
    SetError("could not set the audio context");
    return;
  }
  if (abort_.Aborted() || whisper_pcm_to_mel_with_state(ctx, state, pcm_.samples(), static_cast<int>(pcm_.size()), threads_) != 0) {
    aborted_ = abort_.Aborted();
    SetError(aborted_ ? kAbortMessage : "could not compute the log-mel spectrogram");
    return;
  }
  languageId_ = whisper_lang_auto_detect_with_state(ctx, state, offsetMs_, threads_, probs_.data());
  totalMs_ = NowMs() - start;
  if (abort_.Aborted()) {
    SetAborted();
  } else if (languageId_ < 0) {
    SetError("language detection failed");
  } else {
    lease.Keep();
  }
}

void DetectLanguageWorker::OnOK() {
  Napi::Env env = Env();
  Napi::Object result = Napi::Object::New(env);
  result.Set("language", whisper_lang_str(languageId_));
  Napi::Object probabilities = Napi::Object::New(env);
  for (int i = 0; i <= whisper_lang_max_id(); i++) probabilities.Set(whisper_lang_str(i), probs_[i]);
  result.Set("probabilities", probabilities);
  Napi::Object timings = Napi::Object::New(env);
  timings.Set("totalMs", totalMs_);
  result.Set("timings", timings);
  deferred_.Resolve(result);
}

}  // namespace svc
