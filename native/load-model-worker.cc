#include "load-model-worker.h"

#include <stdexcept>

#include "model-handle.h"

namespace svc {

namespace {

ModelLoadOptions ParseLoadOptions(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throw Napi::TypeError::New(env, "model path must be a string");
  ModelLoadOptions options;
  if (info.Length() > 1 && info[1].IsObject()) {
    Napi::Object o = info[1].As<Napi::Object>();
    if (o.Has("useGpu") && o.Get("useGpu").IsBoolean()) options.useGpu = o.Get("useGpu").As<Napi::Boolean>();
    if (o.Has("flashAttn") && o.Get("flashAttn").IsBoolean()) options.flashAttn = o.Get("flashAttn").As<Napi::Boolean>();
    if (o.Has("dtw") && o.Get("dtw").IsString()) options.dtw = o.Get("dtw").As<Napi::String>().Utf8Value();
    if (o.Has("dtwTopN") && o.Get("dtwTopN").IsNumber()) options.dtwTopN = o.Get("dtwTopN").As<Napi::Number>().Int32Value();
  } else if (info.Length() > 1 && !info[1].IsUndefined()) {
    throw Napi::TypeError::New(env, "load options must be an object");
  }
  return options;
}

}  // namespace

Napi::Value LoadModelWorker::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ModelLoadOptions options = ParseLoadOptions(info);
  auto* worker = new LoadModelWorker(env, info[0].As<Napi::String>().Utf8Value(), std::move(options));
  Napi::Promise promise = worker->deferred_.Promise();
  worker->Queue();
  return promise;
}

// Pool worker threads have nothing else to do while the model loads, and a synchronous load leaves no
// completion pending if the thread is terminated early. Usually the main thread has already loaded
// the file and this only takes a reference.
Napi::Value LoadModelWorker::LoadSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ModelLoadOptions options = ParseLoadOptions(info);
  try {
    return ModelHandle::NewInstance(env, ModelRegistry::Acquire(info[0].As<Napi::String>().Utf8Value(), options));
  } catch (const Napi::Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, e.what());
  }
}

LoadModelWorker::LoadModelWorker(Napi::Env env, std::string path, ModelLoadOptions options)
    : SafeAsyncWorker(env, "svc-stt:load-model"),
      deferred_(Napi::Promise::Deferred::New(env)),
      path_(std::move(path)),
      options_(std::move(options)) {}

void LoadModelWorker::Execute() {
  try {
    model_ = ModelRegistry::Acquire(path_, options_);
  } catch (const std::exception& e) {
    SetError(e.what());
  }
}

void LoadModelWorker::OnOK() { deferred_.Resolve(ModelHandle::NewInstance(Env(), std::move(model_))); }

void LoadModelWorker::OnError(const Napi::Error& error) { deferred_.Reject(error.Value()); }

}  // namespace svc
