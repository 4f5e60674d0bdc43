// The JavaScript object for one counted reference to a resident model: NativeModel for a whisper model
// (LoadedModel), NativeVadModel for a Silero VAD model (VadModel). Each worker thread holds its own
// handle; release() (or garbage collection) drops this reference only, never the weights of other
// holders. The lifetime rules are written once, here; what differs between the kinds (the JS class
// name, the loader named in errors, the info object, the reference counter) is ModelKind<Model>,
// specialised in whisper-model-kind.h and vad-model-kind.h.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <napi.h>

#include "addon-data.h"

namespace svc {

/** Specialised once per model type. Declared only: a handle for a type without a kind does not compile. */
template <typename Model>
struct ModelKind;

template <typename Model>
class ModelHandle : public Napi::ObjectWrap<ModelHandle<Model>> {
  using Kind = ModelKind<Model>;
  using Wrap = Napi::ObjectWrap<ModelHandle<Model>>;
  // What carries the model through the JavaScript constructor call, inside a Napi::External (which no
  // JavaScript code can make, so the constructor is the addon's alone).
  using Carrier = std::shared_ptr<Model>;

 public:
  static void Init(Napi::Env env) {
    Napi::Function ctor = Wrap::DefineClass(env, Kind::kClassName,
                                            {
                                                Wrap::template InstanceMethod<&ModelHandle::Release>("release"),
                                                Wrap::template InstanceAccessor<&ModelHandle::GetReleased>("released"),
                                                Wrap::template InstanceAccessor<&ModelHandle::GetInfo>("info"),
                                            });
    Kind::Constructor(GetAddonData(env)) = Napi::Persistent(ctor);
  }

  static Napi::Object NewInstance(Napi::Env env, std::shared_ptr<Model> model) {
    // Owned here until the constructor has moved the model out, and freed on every path: the External
    // has no finalizer, and a constructor that throws (or a failed New) must not leak the carrier.
    auto carrier = std::make_unique<Carrier>(std::move(model));
    Napi::External<Carrier> external = Napi::External<Carrier>::New(env, carrier.get());
    return Kind::Constructor(GetAddonData(env)).New({external});
  }

  // The model behind a JS argument; throws a JS TypeError for anything else, an Error for a released handle.
  static std::shared_ptr<Model> ModelFrom(const Napi::Value& value) {
    Napi::Env env = value.Env();
    if (!value.IsObject() || !value.As<Napi::Object>().InstanceOf(Kind::Constructor(GetAddonData(env)).Value())) {
      throw Napi::TypeError::New(env, std::string("expected a ") + Kind::kNoun + " returned by " + Kind::kLoader + "()");
    }
    ModelHandle* handle = Wrap::Unwrap(value.As<Napi::Object>());
    if (!handle->model_) throw ReleasedError(env);
    return handle->model_;
  }

  explicit ModelHandle(const Napi::CallbackInfo& info) : Wrap(info) {
    if (info.Length() != 1 || !info[0].IsExternal()) {
      throw Napi::TypeError::New(info.Env(), std::string(Kind::kClassName) + " is created by " + Kind::kLoader +
                                                 "(), not by its constructor");
    }
    model_ = std::move(*info[0].As<Napi::External<Carrier>>().Data());
    Kind::References()++;
  }

  ~ModelHandle() override { Drop(); }

 private:
  static Napi::Error ReleasedError(Napi::Env env) {
    return Napi::Error::New(env, std::string("the ") + Kind::kNoun + " handle was released");
  }

  Napi::Value Release(const Napi::CallbackInfo& info) {
    Drop();
    return info.Env().Undefined();
  }

  Napi::Value GetReleased(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), !model_); }

  Napi::Value GetInfo(const Napi::CallbackInfo& info) {
    if (!model_) throw ReleasedError(info.Env());
    return Kind::Info(info.Env(), *model_);
  }

  // Idempotent: release() and then garbage collection drop the one reference once.
  void Drop() {
    if (model_) {
      model_.reset();
      Kind::References()--;
    }
  }

  std::shared_ptr<Model> model_;
};

}  // namespace svc
