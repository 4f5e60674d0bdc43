#include "transcribe-options.h"

#include <cmath>

namespace svc {

namespace {

bool Has(const Napi::Object& o, const char* key) {
  return o.Has(key) && !o.Get(key).IsUndefined() && !o.Get(key).IsNull();
}

double Number(Napi::Env env, const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsNumber() || !std::isfinite(v.As<Napi::Number>().DoubleValue())) {
    throw Napi::TypeError::New(env, std::string("option ") + key + " must be a finite number");
  }
  return v.As<Napi::Number>().DoubleValue();
}

int Integer(Napi::Env env, const Napi::Object& o, const char* key, int min, int max) {
  double d = Number(env, o, key);
  if (d != std::floor(d) || d < min || d > max) {
    throw Napi::RangeError::New(env, std::string("option ") + key + " must be an integer in range");
  }
  return static_cast<int>(d);
}

bool Bool(Napi::Env env, const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsBoolean()) throw Napi::TypeError::New(env, std::string("option ") + key + " must be a boolean");
  return v.As<Napi::Boolean>().Value();
}

std::string String(Napi::Env env, const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsString()) throw Napi::TypeError::New(env, std::string("option ") + key + " must be a string");
  return v.As<Napi::String>().Utf8Value();
}

}  // namespace

int ReadThreads(Napi::Env env, const Napi::Object& options) {
  return Has(options, "threads") ? Integer(env, options, "threads", 1, 256) : 1;
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

  if (Has(o, "strategy")) {
    std::string s = String(env, o, "strategy");
    if (s == "greedy") p.strategy = WHISPER_SAMPLING_GREEDY;
    else if (s == "beam") p.strategy = WHISPER_SAMPLING_BEAM_SEARCH;
    else throw Napi::RangeError::New(env, "option strategy must be 'greedy' or 'beam'");
  }
  if (Has(o, "beamSize")) p.beam_search.beam_size = Integer(env, o, "beamSize", 1, 16);
  if (Has(o, "bestOf")) p.greedy.best_of = Integer(env, o, "bestOf", 1, 16);
  if (Has(o, "temperature")) p.temperature = static_cast<float>(Number(env, o, "temperature"));
  if (Has(o, "temperatureInc")) p.temperature_inc = static_cast<float>(Number(env, o, "temperatureInc"));
  if (Has(o, "entropyThold")) p.entropy_thold = static_cast<float>(Number(env, o, "entropyThold"));
  if (Has(o, "logprobThold")) p.logprob_thold = static_cast<float>(Number(env, o, "logprobThold"));
  if (Has(o, "noSpeechThold")) p.no_speech_thold = static_cast<float>(Number(env, o, "noSpeechThold"));
  if (Has(o, "maxTokens")) p.max_tokens = Integer(env, o, "maxTokens", 0, 1 << 20);
  if (Has(o, "maxLen")) p.max_len = Integer(env, o, "maxLen", 0, 1 << 20);
  if (Has(o, "splitOnWord")) p.split_on_word = Bool(env, o, "splitOnWord");
  if (Has(o, "offsetMs")) p.offset_ms = Integer(env, o, "offsetMs", 0, 1 << 30);
  if (Has(o, "durationMs")) p.duration_ms = Integer(env, o, "durationMs", 0, 1 << 30);
  if (Has(o, "tokenTimestamps")) p.token_timestamps = Bool(env, o, "tokenTimestamps");
  if (Has(o, "noContext")) p.no_context = Bool(env, o, "noContext");
  if (Has(o, "noTimestamps")) p.no_timestamps = Bool(env, o, "noTimestamps");
  if (Has(o, "singleSegment")) p.single_segment = Bool(env, o, "singleSegment");
  if (Has(o, "suppressBlank")) p.suppress_blank = Bool(env, o, "suppressBlank");
  if (Has(o, "suppressNst")) p.suppress_nst = Bool(env, o, "suppressNst");
  if (Has(o, "maxInitialTs")) p.max_initial_ts = static_cast<float>(Number(env, o, "maxInitialTs"));
  if (Has(o, "audioCtx")) p.audio_ctx = Integer(env, o, "audioCtx", 0, 1500);
  if (Has(o, "translate")) p.translate = Bool(env, o, "translate");
  if (Has(o, "carryInitialPrompt")) p.carry_initial_prompt = Bool(env, o, "carryInitialPrompt");

  if (Has(o, "language")) out.language = String(env, o, "language");
  if (out.language == "auto") {
    out.detectLanguage = true;
  } else if (whisper_lang_id(out.language.c_str()) < 0) {
    throw Napi::RangeError::New(env, "option language is not a language whisper knows");
  }
  if (Has(o, "initialPrompt")) out.initialPrompt = String(env, o, "initialPrompt");
  p.detect_language = false;
  return out;
}

}  // namespace svc
