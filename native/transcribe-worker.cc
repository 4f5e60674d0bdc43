#include "transcribe-worker.h"
#include "whisper-state.h"

#include "compute-threads.h"

#include <vector>

#include "abort-error.h"
#include "no-speech.h"
#include "whisper-model-kind.h"

namespace svc {

Napi::Value TranscribeWorker::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<LoadedModel> model = ModelHandle<LoadedModel>::ModelFrom(info[0]);
  PinnedPcm pcm = PinnedPcm::Read(env, info[1]);
  TranscribeOptions options = TranscribeOptions::FromJs(env, info[2]);
  // The check decodes the first window only, so the whole input must fit in it.
  if (options.contextFreeCheck && pcm.size() > static_cast<size_t>(WHISPER_SAMPLE_RATE) * WHISPER_CHUNK_SIZE) {
    throw Napi::RangeError::New(env, "contextFreeCheck needs at most 30 s of audio");
  }
  auto* worker = new TranscribeWorker(env, std::move(model), std::move(pcm), std::move(options), info[3], info[4], info[5]);
  return worker->Enqueue();
}

TranscribeWorker::TranscribeWorker(Napi::Env env, std::shared_ptr<LoadedModel> model, PinnedPcm pcm,
                                   TranscribeOptions options, const Napi::Value& control,
                                   const Napi::Value& onProgress, const Napi::Value& onSegments)
    : ModelPcmWorker(env, "svc-stt:transcribe", std::move(model), std::move(pcm), control), options_(std::move(options)) {
  if (!onProgress.IsUndefined() && !onProgress.IsNull()) {
    if (!onProgress.IsFunction()) throw Napi::TypeError::New(env, "onProgress must be a function");
    progress_ = Napi::ThreadSafeFunction::New(env, onProgress.As<Napi::Function>(), "svc-stt:progress", 0, 1);
    hasProgress_ = true;
  }
  if (!onSegments.IsUndefined() && !onSegments.IsNull()) {
    if (!onSegments.IsFunction()) throw Napi::TypeError::New(env, "onSegments must be a function");
    segmentsFn_ = Napi::ThreadSafeFunction::New(env, onSegments.As<Napi::Function>(), "svc-stt:segments", 0, 1);
    hasSegments_ = true;
  }
}

TranscribeWorker::~TranscribeWorker() {
  if (hasProgress_) progress_.Release();
  if (hasSegments_) segmentsFn_.Release();
}

void TranscribeWorker::OnNewSegment(whisper_context* ctx, whisper_state* state, int, void* self) {
  auto* worker = static_cast<TranscribeWorker*>(self);
  const int total = whisper_full_n_segments_from_state(state);
  if (total <= worker->reportedSegments_ || !worker->AttributeNoSpeech(ctx, state)) return;
  auto fresh = std::make_shared<std::vector<SegmentResult>>();
  for (int i = worker->reportedSegments_; i < total; i++) fresh->push_back(ReadSegment(ctx, state, i, worker->segmentNoSpeech_[i]));
  worker->reportedSegments_ = total;
  worker->segmentsFn_.NonBlockingCall([fresh](Napi::Env env, Napi::Function callback) {
    // Advisory like progress: the final result carries every segment whatever happens here.
    try {
      callback.Call({SegmentsToJs(env, *fresh)});
    } catch (const Napi::Error&) {
    }
  });
}

void TranscribeWorker::ReportProgress(int percent) {
  if (!hasProgress_) return;
  progress_.NonBlockingCall([percent](Napi::Env env, Napi::Function callback) {
    // Progress is advisory: if the callback throws, or the environment is shutting down and cannot run
    // JavaScript, the report is dropped. Letting the error escape would make node-addon-api rethrow it
    // into a dying environment, which aborts the process.
    try {
      callback.Call({Napi::Number::New(env, percent)});
    } catch (const Napi::Error&) {
    }
  });
}

void TranscribeWorker::OnWhisperProgress(whisper_context*, whisper_state*, int progress, void* self) {
  static_cast<TranscribeWorker*>(self)->ReportProgress(progress);
}

bool TranscribeWorker::OnEncoderBegin(whisper_context* ctx, whisper_state* state, void* self) {
  auto* worker = static_cast<TranscribeWorker*>(self);
  // Before the next encode the state still holds the last window's encoder output: its segments get
  // their no-speech figure now, and the first window is checked now.
  if (worker->timer_.encoderRuns >= 1 && !worker->AttributeNoSpeech(ctx, state)) return false;
  if (worker->options_.contextFreeCheck && worker->timer_.encoderRuns == 1 && !worker->RunCheck(ctx, state, 0)) return false;
  // A held call waits before its encoder runs, not in the middle of it (see abort-control.h).
  worker->abort_.WaitWhileHeld();
  worker->timer_.Switch(PhaseTimer::Phase::Encode);
  worker->timer_.encoderRuns++;
  return !worker->abort_.Aborted();
}

// The whole prompted transcript is known once whisper_full returns: a check longer than the bound the
// caller gave is refused by its structure rule whatever it says, so decoding further is wasted.
int TranscribeWorker::CheckStepBound(whisper_context* ctx, whisper_state* state) const {
  if (options_.checkLengthBound <= 0) return 0;
  const whisper_token eot = whisper_token_eot(ctx);
  int textTokens = 0;
  const int nSegments = whisper_full_n_segments_from_state(state);
  for (int i = 0; i < nSegments; i++) {
    const int nTokens = whisper_full_n_tokens_from_state(state, i);
    for (int j = 0; j < nTokens; j++) textTokens += whisper_full_get_token_id_from_state(state, i, j) < eot ? 1 : 0;
  }
  // The allowance keeps short transcripts (a word or two) from being cut by the ratio alone; the check
  // also samples timestamp tokens, about one pair per segment.
  constexpr int kAllowance = 16;
  return static_cast<int>(options_.checkLengthBound * textTokens) + 2 * nSegments + kAllowance;
}

bool TranscribeWorker::RunCheck(whisper_context* ctx, whisper_state* state, int stepBound) {
  timer_.Switch(PhaseTimer::Phase::Check);
  const int64_t windowCentis = static_cast<int64_t>(pcm_.size()) * 100 / WHISPER_SAMPLE_RATE;
  // whisper_full decides on its own no-speech figure, whatever the check decodes (no-speech.h).
  FirstLogitsRowKept kept(ctx, state);
  bool ok = DecodeContextFree(ctx, state, options_.language, windowCentis, stepBound, options_.params.n_threads, abort_, check_);
  // The same window's figure as the transcript's: context-free, like the check.
  ok = ok && PassNoSpeech(ctx, state, check_.noSpeechProb);
  checkFailed_ = !ok;
  return ok;
}

bool TranscribeWorker::PassNoSpeech(whisper_context* ctx, whisper_state* state, float& out) {
  if (noSpeechRun_ != timer_.encoderRuns) {
    if (!NoSpeechProbability(ctx, state, options_.params.n_threads, noSpeech_)) return false;
    noSpeechRun_ = timer_.encoderRuns;
  }
  out = noSpeech_;
  return true;
}

bool TranscribeWorker::AttributeNoSpeech(whisper_context* ctx, whisper_state* state) {
  const size_t total = static_cast<size_t>(whisper_full_n_segments_from_state(state));
  if (segmentNoSpeech_.size() >= total) return true;
  float p = 0;
  if (!PassNoSpeech(ctx, state, p)) {
    noSpeechFailed_ = true;
    return false;
  }
  segmentNoSpeech_.resize(total, p);
  return true;
}

void TranscribeWorker::OnLogits(whisper_context*, whisper_state*, const whisper_token_data*, int nTokens, float*, void* self) {
  auto* worker = static_cast<TranscribeWorker*>(self);
  if (worker->timer_.phase != PhaseTimer::Phase::Decode) worker->timer_.Switch(PhaseTimer::Phase::Decode);
  worker->timer_.decoderSteps++;
  // Only the first decoder's first step of an attempt has no tokens yet.
  if (nTokens == 0) {
    if (worker->firstStepRun_ == worker->timer_.encoderRuns) worker->decodedAgain_ = true;
    worker->firstStepRun_ = worker->timer_.encoderRuns;
  }
}

// Whether the call drew from the state's random generator (whisper-state.h): sampling above temperature
// 0, beam search, or a window decoded again at a higher temperature.
bool TranscribeWorker::DrewRandomness() const {
  const whisper_full_params& p = options_.params;
  return p.strategy != WHISPER_SAMPLING_GREEDY || p.temperature > 0.0f || decodedAgain_;
}

// The libuv thread only waits: the compute runs on a persistent compute thread (compute-threads.h).
void TranscribeWorker::Execute() {
  RunOnComputeThread([this] { Compute(); }, options_.background ? ComputePriority::Background : ComputePriority::Foreground);
}

void TranscribeWorker::Compute() {
  timer_.Begin();
  // A call held before it starts waits before it takes a state or computes its mel, work that would
  // take the core from the urgent call it makes way for.
  abort_.WaitWhileHeld();
  if (abort_.Aborted()) {
    timer_.End();
    SetAborted();
    return;
  }
  whisper_context* ctx = model_->context();
  // A call that conditions on earlier text would read the last user's text from a kept state.
  // Language detection encodes the whole window, whatever the call's own context.
  StateLease lease(model_->states(), options_.detectLanguage ? 0 : options_.params.audio_ctx, !options_.params.no_context);
  if (!lease) {
    SetError("whisper.cpp could not allocate a decoding state (out of memory?)");
    return;
  }
  whisper_state* state = lease.get();
  const int n = static_cast<int>(pcm_.size());
  whisper_full_params params = options_.params;

  if (options_.detectLanguage) {
    timer_.Switch(PhaseTimer::Phase::Detect);
    std::vector<float> probs(whisper_lang_max_id() + 1, 0.0f);
    int id = -1;
    // The whole window, whatever the call's own context (whisper_full sets that later).
    if (lease.ReadyForDetection(ctx, 0, params.n_threads) && whisper_pcm_to_mel_with_state(ctx, state, pcm_.samples(), n, params.n_threads) == 0) {
      id = whisper_lang_auto_detect_with_state(ctx, state, params.offset_ms, params.n_threads, probs.data());
    }
    if (id < 0) {
      SetError(abort_.Aborted() ? kAbortMessage : "language detection failed");
      aborted_ = abort_.Aborted();
      return;
    }
    options_.language = whisper_lang_str(id);
    languageProbability_ = probs[id];
  }
  timer_.Switch(PhaseTimer::Phase::Mel);

  params.language = options_.language.c_str();
  params.initial_prompt = options_.initialPrompt.empty() ? nullptr : options_.initialPrompt.c_str();
  params.progress_callback = &TranscribeWorker::OnWhisperProgress;
  params.progress_callback_user_data = this;
  params.encoder_begin_callback = &TranscribeWorker::OnEncoderBegin;
  params.encoder_begin_callback_user_data = this;
  if (hasSegments_) {
    params.new_segment_callback = &TranscribeWorker::OnNewSegment;
    params.new_segment_callback_user_data = this;
  }
  params.logits_filter_callback = &TranscribeWorker::OnLogits;
  params.logits_filter_callback_user_data = this;
  params.abort_callback = &AbortControl::GgmlAbortCallback;
  params.abort_callback_user_data = &abort_;

  int rc = whisper_full_with_state(ctx, state, params, pcm_.samples(), n);
  if (rc == 0 && options_.contextFreeCheck && !check_.ran && timer_.encoderRuns == 1 &&
      !RunCheck(ctx, state, CheckStepBound(ctx, state))) {
    rc = -100;
  }
  if (rc == 0 && !AttributeNoSpeech(ctx, state)) rc = -101;
  timer_.End();
  if (abort_.Aborted()) {
    SetAborted();
    return;
  }
  if (checkFailed_) {
    SetError("whisper.cpp failed to decode the context-free check");
    return;
  }
  if (noSpeechFailed_) {
    SetError("whisper.cpp failed to decode a window's no-speech probability");
    return;
  }
  if (rc != 0) {
    SetError("whisper.cpp failed to transcribe (code " + std::to_string(rc) + ")");
    return;
  }
  Collect(state);
  if (timer_.decoderSteps > 0 && !DrewRandomness()) lease.Keep();
}

void TranscribeWorker::Collect(whisper_state* state) {
  whisper_context* ctx = model_->context();
  language_ = whisper_lang_str(whisper_full_lang_id_from_state(state));
  const int nSegments = whisper_full_n_segments_from_state(state);
  segments_.reserve(nSegments);
  for (int i = 0; i < nSegments; i++) segments_.push_back(ReadSegment(ctx, state, i, segmentNoSpeech_[i]));
}

namespace {

Napi::Object CheckResult(Napi::Env env, const CheckPass& check) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("noSpeechProb", check.noSpeechProb);
  out.Set("steps", check.steps);
  out.Set("capped", check.capped);
  Napi::Array segments = Napi::Array::New(env, check.segments.size());
  for (size_t i = 0; i < check.segments.size(); i++) {
    const CheckSegment& s = check.segments[i];
    Napi::Object seg = Napi::Object::New(env);
    seg.Set("t0", Seconds(s.t0));
    seg.Set("t1", Seconds(s.t1));
    seg.Set("bytes", Bytes(env, s.bytes));
    Napi::Array tokens = Napi::Array::New(env, s.tokens.size());
    for (size_t j = 0; j < s.tokens.size(); j++) {
      Napi::Object tok = Napi::Object::New(env);
      tok.Set("id", s.tokens[j].id);
      tok.Set("bytes", Bytes(env, s.tokens[j].bytes));
      tok.Set("p", s.tokens[j].p);
      tok.Set("special", s.tokens[j].special);
      tokens.Set(static_cast<uint32_t>(j), tok);
    }
    seg.Set("tokens", tokens);
    segments.Set(static_cast<uint32_t>(i), seg);
  }
  out.Set("segments", segments);
  return out;
}

}  // namespace

void TranscribeWorker::OnOK() {
  Napi::Env env = Env();
  Napi::HandleScope scope(env);
  Napi::Object result = Napi::Object::New(env);
  result.Set("language", language_);
  result.Set("languageProbability",
             languageProbability_ < 0 ? env.Null() : Napi::Number::New(env, languageProbability_));
  result.Set("segments", SegmentsToJs(env, segments_));
  Napi::Object timings = Napi::Object::New(env);
  timings.Set("totalMs", timer_.totalMs);
  timings.Set("setupMs", timer_.setupMs);
  timings.Set("detectMs", timer_.detectMs);
  timings.Set("melMs", timer_.melMs);
  timings.Set("encodeMs", timer_.encodeMs);
  timings.Set("decodeMs", timer_.decodeMs);
  timings.Set("encoderRuns", timer_.encoderRuns);
  timings.Set("decoderSteps", timer_.decoderSteps);
  timings.Set("checkMs", timer_.checkMs);
  timings.Set("heldMs", abort_.HeldMs());
  result.Set("timings", timings);
  if (check_.ran) result.Set("check", CheckResult(env, check_));
  deferred_.Resolve(result);
}

}  // namespace svc
