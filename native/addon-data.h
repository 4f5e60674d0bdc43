// Per-environment (main thread or worker thread) data: each Node environment has its own
// JavaScript constructors (one per ModelHandle kind, model-handle.h), while loaded models are shared
// process-wide (model-registry.h).
#pragma once

#include <napi.h>

namespace svc {

struct AddonData {
  Napi::FunctionReference modelHandleConstructor;
  Napi::FunctionReference vadModelHandleConstructor;
};

inline AddonData& GetAddonData(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }

}  // namespace svc
