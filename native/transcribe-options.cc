#include "transcribe-options.h"

#include "option-readers.h"

namespace svc {

int ReadThreads(Napi::Env env, const Napi::Object& options) {
  return HasOption(options, "threads") ? IntegerOption(env, options, "threads", 1, 256) : 1;
}

TranscribeOptions TranscribeOptions::FromJs(Napi::Env env, const Napi::Value& value) {
  if (!value.IsObject()) throw Napi::TypeError::New(env, "options must be an object");
  Napi::Object o = value.As<Napi::Object>();
  TranscribeOptions out;
  // Same starting point as whisper-cli, so equal options mean equal decoding.
  whisper_full_params& p = out.params;
  p = whisper_full_default_params(WHISPER_SAMPLING_GREEDY);
  p.print_realtime = false;
  p.print_progress = false;
  p.print_timestamps = false;
  p.print_special = false;
  p.n_threads = ReadThreads(env, o);

  if (HasOption(o, "strategy")) {
    std::string s = StringOption(env, o, "strategy");
    if (s == "greedy") p.strategy = WHISPER_SAMPLING_GREEDY;
    else if (s == "beam") p.strategy = WHISPER_SAMPLING_BEAM_SEARCH;
    else throw Napi::RangeError::New(env, "option strategy must be 'greedy' or 'beam'");
  }
  if (HasOption(o, "beamSize")) p.beam_search.beam_size = IntegerOption(env, o, "beamSize", 1, 16);
  if (HasOption(o, "bestOf")) p.greedy.best_of = IntegerOption(env, o, "bestOf", 1, 16);
  if (HasOption(o, "temperature")) p.temperature = static_cast<float>(NumberOption(env, o, "temperature"));
  if (HasOption(o, "temperatureInc")) p.temperature_inc = static_cast<float>(NumberOption(env, o, "temperatureInc"));
  if (HasOption(o, "entropyThold")) p.entropy_thold = static_cast<float>(NumberOption(env, o, "entropyThold"));
  if (HasOption(o, "logprobThold")) p.logprob_thold = static_cast<float>(NumberOption(env, o, "logprobThold"));
  if (HasOption(o, "noSpeechThold")) p.no_speech_thold = static_cast<float>(NumberOption(env, o, "noSpeechThold"));
  if (HasOption(o, "maxTokens")) p.max_tokens = IntegerOption(env, o, "maxTokens", 0, 1 << 20);
  if (HasOption(o, "maxLen")) p.max_len = IntegerOption(env, o, "maxLen", 0, 1 << 20);
  if (HasOption(o, "splitOnWord")) p.split_on_word = BoolOption(env, o, "splitOnWord");
  if (HasOption(o, "offsetMs")) p.offset_ms = IntegerOption(env, o, "offsetMs", 0, 1 << 30);
  if (HasOption(o, "durationMs")) p.duration_ms = IntegerOption(env, o, "durationMs", 0, 1 << 30);
  if (HasOption(o, "tokenTimestamps")) p.token_timestamps = BoolOption(env, o, "tokenTimestamps");
  if (HasOption(o, "noContext")) p.no_context = BoolOption(env, o, "noContext");
  if (HasOption(o, "noTimestamps")) p.no_timestamps = BoolOption(env, o, "noTimestamps");
  if (HasOption(o, "singleSegment")) p.single_segment = BoolOption(env, o, "singleSegment");
  if (HasOption(o, "suppressBlank")) p.suppress_blank = BoolOption(env, o, "suppressBlank");
  if (HasOption(o, "suppressNst")) p.suppress_nst = BoolOption(env, o, "suppressNst");
  if (HasOption(o, "maxInitialTs")) p.max_initial_ts = static_cast<float>(NumberOption(env, o, "maxInitialTs"));
  if (HasOption(o, "audioCtx")) p.audio_ctx = IntegerOption(env, o, "audioCtx", 0, 1500);
  if (HasOption(o, "translate")) p.translate = BoolOption(env, o, "translate");
  if (HasOption(o, "carryInitialPrompt")) p.carry_initial_prompt = BoolOption(env, o, "carryInitialPrompt");

  if (HasOption(o, "language")) out.language = StringOption(env, o, "language");
  if (out.language == "auto") {
    out.detectLanguage = true;
  } else if (whisper_lang_id(out.language.c_str()) < 0) {
    throw Napi::RangeError::New(env, "option language is not a language whisper knows");
  }
  if (HasOption(o, "initialPrompt")) out.initialPrompt = StringOption(env, o, "initialPrompt");
  if (HasOption(o, "contextFreeCheck")) out.contextFreeCheck = BoolOption(env, o, "contextFreeCheck");
  if (HasOption(o, "checkLengthBound")) out.checkLengthBound = NumberOption(env, o, "checkLengthBound");
  if (HasOption(o, "background")) out.background = BoolOption(env, o, "background");
  p.detect_language = false;
  return out;
}

}  // namespace svc
