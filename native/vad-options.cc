#include "vad-options.h"

#include "option-readers.h"

namespace svc {

namespace {

// whisper.cpp turns milliseconds into samples in int arithmetic (16000 * ms); beyond this it overflows.
constexpr int kMaxDurationMs = 100000;

}  // namespace

VadOptions VadOptions::FromJs(Napi::Env env, const Napi::Value& value) {
  if (!value.IsObject()) throw Napi::TypeError::New(env, "VAD parameters must be an object");
  Napi::Object o = value.As<Napi::Object>();
  for (const char* key : {"threshold", "minSpeechDurationMs", "minSilenceDurationMs", "maxSpeechDurationS", "speechPadMs", "levelTargetDb", "maxGainDb",
                          "levelWindowMs"}) {
    if (!HasOption(o, key)) throw Napi::TypeError::New(env, std::string("VAD parameter ") + key + " is required");
  }
  VadOptions out;
  whisper_vad_params& p = out.params;
  // Only as a base for fields this version does not set (samples_overlap: it shapes the audio that
  // whisper_full cuts out of the segments, not the segments themselves).
  p = whisper_vad_default_params();
  p.threshold = static_cast<float>(NumberOptionInRange(env, o, "threshold", 0.0, 1.0));
  p.min_speech_duration_ms = IntegerOption(env, o, "minSpeechDurationMs", 0, kMaxDurationMs);
  p.min_silence_duration_ms = IntegerOption(env, o, "minSilenceDurationMs", 0, kMaxDurationMs);
  p.max_speech_duration_s = static_cast<float>(NumberOptionInRange(env, o, "maxSpeechDurationS", 1.0, 1e9));
  p.speech_pad_ms = IntegerOption(env, o, "speechPadMs", 0, kMaxDurationMs);
  out.levelTargetDb = NumberOptionInRange(env, o, "levelTargetDb", -100.0, 0.0);
  out.maxGainDb = NumberOptionInRange(env, o, "maxGainDb", 0.0, 60.0);
  out.levelWindowMs = IntegerOption(env, o, "levelWindowMs", 1, kMaxDurationMs);
  return out;
}

}  // namespace svc
