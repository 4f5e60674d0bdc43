#include "vad-model-handle.h"

#include "addon-data.h"

namespace svc {

void VadModelHandle::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "NativeVadModel",
                                    {
                                        InstanceMethod<&VadModelHandle::Release>("release"),
                                        InstanceAccessor<&VadModelHandle::GetReleased>("released"),
                                        InstanceAccessor<&VadModelHandle::GetInfo>("info"),
                                    });
  GetAddonData(env).vadModelHandleConstructor = Napi::Persistent(ctor);
}

Napi::Object VadModelHandle::NewInstance(Napi::Env env, std::shared_ptr<VadModel> model) {
  auto* carrier = new std::shared_ptr<VadModel>(std::move(model));
  auto external = Napi::External<std::shared_ptr<VadModel>>::New(env, carrier);
  Napi::Object handle;
  try {
    handle = GetAddonData(env).vadModelHandleConstructor.New({external});
  } catch (...) {
    delete carrier;
    throw;
  }
  delete carrier;
  return handle;
}

VadModelHandle::VadModelHandle(const Napi::CallbackInfo& info) : Napi::ObjectWrap<VadModelHandle>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(), "NativeVadModel is created by loadVadModel(), not by its constructor");
  }
  model_ = *info[0].As<Napi::External<std::shared_ptr<VadModel>>>().Data();
  VadModelRegistry::References()++;
}

VadModelHandle::~VadModelHandle() { Drop(); }

void VadModelHandle::Drop() {
  if (model_) {
    model_.reset();
    VadModelRegistry::References()--;
  }
}

std::shared_ptr<VadModel> VadModelHandle::ModelFrom(const Napi::Value& value) {
  Napi::Env env = value.Env();
  if (!value.IsObject() || !value.As<Napi::Object>().InstanceOf(GetAddonData(env).vadModelHandleConstructor.Value())) {
    throw Napi::TypeError::New(env, "expected a VAD model returned by loadVadModel()");
  }
  VadModelHandle* handle = Napi::ObjectWrap<VadModelHandle>::Unwrap(value.As<Napi::Object>());
  if (!handle->model_) throw Napi::Error::New(env, "the VAD model handle was released");
  return handle->model_;
}

Napi::Value VadModelHandle::Release(const Napi::CallbackInfo& info) {
  Drop();
  return info.Env().Undefined();
}

Napi::Value VadModelHandle::GetReleased(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), !model_);
}

Napi::Value VadModelHandle::GetInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!model_) throw Napi::Error::New(env, "the VAD model handle was released");
  const VadModelInfo& m = model_->info();
  Napi::Object out = Napi::Object::New(env);
  out.Set("path", model_->path());
  out.Set("type", m.type);
  out.Set("version", m.version);
  out.Set("frameSamples", m.frameSamples);
  out.Set("contextSamples", m.contextSamples);
  return out;
}

}  // namespace svc
