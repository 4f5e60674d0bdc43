// The JavaScript object for one counted reference to a LoadedModel. Each worker thread holds its own
// handle; release() (or garbage collection) drops the reference, never the weights of other holders.
#pragma once

#include <memory>
#include <napi.h>

#include "model-registry.h"

namespace svc {

class ModelHandle : public Napi::ObjectWrap<ModelHandle> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  static Napi::Object NewInstance(Napi::Env env, std::shared_ptr<LoadedModel> model);
  // The model behind a JS argument; throws a JS TypeError for anything else or a released handle.
  static std::shared_ptr<LoadedModel> ModelFrom(const Napi::Value& value);

  explicit ModelHandle(const Napi::CallbackInfo& info);
  ~ModelHandle() override;

 private:
  Napi::Value Release(const Napi::CallbackInfo& info);
  Napi::Value GetReleased(const Napi::CallbackInfo& info);
  Napi::Value GetInfo(const Napi::CallbackInfo& info);
  void Drop();

  std::shared_ptr<LoadedModel> model_;
};

}  // namespace svc
