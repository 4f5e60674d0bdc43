// What makes a handle on a whisper model (LoadedModel) a NativeModel: its JS name, the loader its errors
// name, its info object and its reference counter. The handle's lifetime rules are model-handle.h's.
#pragma once

#include <atomic>
#include <cstdint>
#include <napi.h>

#include "addon-data.h"
#include "model-handle.h"
#include "model-registry.h"

namespace svc {

template <>
struct ModelKind<LoadedModel> {
  static constexpr const char* kClassName = "NativeModel";
  static constexpr const char* kLoader = "loadModel";
  static constexpr const char* kNoun = "model";

  static Napi::FunctionReference& Constructor(AddonData& data) { return data.modelHandleConstructor; }
  static std::atomic<int64_t>& References() { return ModelRegistry::References(); }

  static Napi::Object Info(Napi::Env env, const LoadedModel& model) {
    whisper_context* ctx = model.context();
    Napi::Object out = Napi::Object::New(env);
    out.Set("path", model.path());
    out.Set("type", whisper_model_type_readable(ctx));
    out.Set("multilingual", whisper_is_multilingual(ctx) != 0);
    out.Set("nVocab", whisper_model_n_vocab(ctx));
    out.Set("nAudioLayer", whisper_model_n_audio_layer(ctx));
    out.Set("nTextLayer", whisper_model_n_text_layer(ctx));
    out.Set("nAudioState", whisper_model_n_audio_state(ctx));
    out.Set("nMels", whisper_model_n_mels(ctx));
    out.Set("dtw", model.options().dtw);
    out.Set("idleStates", static_cast<double>(model.states().Idle()));
    out.Set("stateLimit", static_cast<double>(model.states().Limit()));
    return out;
  }
};

}  // namespace svc
