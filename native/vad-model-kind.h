// What makes a handle on a Silero VAD model (VadModel) a NativeVadModel: its JS name, the loader its
// errors name, its info object and its reference counter. The handle's lifetime rules are model-handle.h's.
#pragma once

#include <atomic>
#include <cstdint>
#include <napi.h>

#include "addon-data.h"
#include "model-handle.h"
#include "vad-model-registry.h"

namespace svc {

template <>
struct ModelKind<VadModel> {
  static constexpr const char* kClassName = "NativeVadModel";
  static constexpr const char* kLoader = "loadVadModel";
  static constexpr const char* kNoun = "VAD model";

  static Napi::FunctionReference& Constructor(AddonData& data) { return data.vadModelHandleConstructor; }
  static std::atomic<int64_t>& References() { return VadModelRegistry::References(); }

  static Napi::Object Info(Napi::Env env, const VadModel& model) {
    const VadModelInfo& m = model.info();
    Napi::Object out = Napi::Object::New(env);
    out.Set("path", model.path());
    out.Set("type", m.type);
    out.Set("version", m.version);
    out.Set("frameSamples", m.frameSamples);
    out.Set("contextSamples", m.contextSamples);
    return out;
  }
};

}  // namespace svc
