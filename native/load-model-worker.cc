#include "load-model-worker.h"

#include <stdexcept>

#include "option-readers.h"
#include "whisper-model-kind.h"

namespace svc {

namespace {

ModelLoadOptions ParseLoadOptions(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ReadString(env, info[0], "model path");
  const Napi::Object o = ReadOptions(env, info[1], "load options");
  ModelLoadOptions options;
  if (HasOption(o, "useGpu")) options.useGpu = BoolOption(env, o, "useGpu");
  if (HasOption(o, "flashAttn")) options.flashAttn = BoolOption(env, o, "flashAttn");
  if (HasOption(o, "dtw")) options.dtw = StringOption(env, o, "dtw");
  if (HasOption(o, "dtwTopN")) options.dtwTopN = IntegerOption(env, o, "dtwTopN", -1, 1024);
  return options;
}

}  // namespace

Napi::Value LoadModelWorker::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ModelLoadOptions options = ParseLoadOptions(info);
  auto* worker = new LoadModelWorker(env, ReadString(env, info[0], "model path"), std::move(options));
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
    return ModelHandle<LoadedModel>::NewInstance(env, ModelRegistry::Acquire(ReadString(env, info[0], "model path"), options));
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

void LoadModelWorker::OnOK() { deferred_.Resolve(ModelHandle<LoadedModel>::NewInstance(Env(), std::move(model_))); }

void LoadModelWorker::OnError(const Napi::Error& error) { deferred_.Reject(error.Value()); }

}  // namespace svc
