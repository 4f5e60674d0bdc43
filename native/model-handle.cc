#include "model-handle.h"

#include "addon-data.h"

namespace svc {

void ModelHandle::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "NativeModel",
                                    {
                                        InstanceMethod<&ModelHandle::Release>("release"),
                                        InstanceAccessor<&ModelHandle::GetReleased>("released"),
                                        InstanceAccessor<&ModelHandle::GetInfo>("info"),
                                    });
  GetAddonData(env).modelHandleConstructor = Napi::Persistent(ctor);
}

Napi::Object ModelHandle::NewInstance(Napi::Env env, std::shared_ptr<LoadedModel> model) {
  auto* carrier = new std::shared_ptr<LoadedModel>(std::move(model));
  Napi::External<std::shared_ptr<LoadedModel>> external = Napi::External<std::shared_ptr<LoadedModel>>::New(env, carrier);
  Napi::Object handle = GetAddonData(env).modelHandleConstructor.New({external});
  delete carrier;
  return handle;
}

ModelHandle::ModelHandle(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ModelHandle>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(), "NativeModel is created by loadModel(), not by its constructor");
  }
  model_ = *info[0].As<Napi::External<std::shared_ptr<LoadedModel>>>().Data();
  ModelRegistry::References()++;
}

ModelHandle::~ModelHandle() { Drop(); }

void ModelHandle::Drop() {
  if (model_) {
    model_.reset();
    ModelRegistry::References()--;
  }
}

std::shared_ptr<LoadedModel> ModelHandle::ModelFrom(const Napi::Value& value) {
  Napi::Env env = value.Env();
  if (!value.IsObject() || !value.As<Napi::Object>().InstanceOf(GetAddonData(env).modelHandleConstructor.Value())) {
    throw Napi::TypeError::New(env, "expected a model returned by loadModel()");
  }
  ModelHandle* handle = Napi::ObjectWrap<ModelHandle>::Unwrap(value.As<Napi::Object>());
  if (!handle->model_) throw Napi::Error::New(env, "the model handle was released");
  return handle->model_;
}

Napi::Value ModelHandle::Release(const Napi::CallbackInfo& info) {
  Drop();
  return info.Env().Undefined();
}

Napi::Value ModelHandle::GetReleased(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), !model_);
}

Napi::Value ModelHandle::GetInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!model_) throw Napi::Error::New(env, "the model handle was released");
  whisper_context* ctx = model_->context();
  Napi::Object out = Napi::Object::New(env);
  out.Set("path", model_->path());
  out.Set("type", whisper_model_type_readable(ctx));
  out.Set("multilingual", whisper_is_multilingual(ctx) != 0);
  out.Set("nVocab", whisper_model_n_vocab(ctx));
  out.Set("nAudioLayer", whisper_model_n_audio_layer(ctx));
  out.Set("nTextLayer", whisper_model_n_text_layer(ctx));
  out.Set("nAudioState", whisper_model_n_audio_state(ctx));
  out.Set("nMels", whisper_model_n_mels(ctx));
  out.Set("dtw", model_->options().dtw);
  return out;
}

}  // namespace svc
