// The JavaScript object for one counted reference to a VadModel, like ModelHandle for whisper models:
// each worker thread holds its own; release() (or garbage collection) drops this reference only.
#pragma once

#include <memory>
#include <napi.h>

#include "vad-model-registry.h"

namespace svc {

class VadModelHandle : public Napi::ObjectWrap<VadModelHandle> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  static Napi::Object NewInstance(Napi::Env env, std::shared_ptr<VadModel> model);
  // The model behind a JS argument; throws a JS TypeError for anything else or a released handle.
  static std::shared_ptr<VadModel> ModelFrom(const Napi::Value& value);

  explicit VadModelHandle(const Napi::CallbackInfo& info);
  ~VadModelHandle() override;

 private:
  Napi::Value Release(const Napi::CallbackInfo& info);
  Napi::Value GetReleased(const Napi::CallbackInfo& info);
  Napi::Value GetInfo(const Napi::CallbackInfo& info);
  void Drop();

  std::shared_ptr<VadModel> model_;
};

}  // namespace svc
