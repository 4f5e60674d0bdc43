#include "load-vad-model-worker.h"

#include <stdexcept>

#include "option-readers.h"
#include "vad-model-kind.h"

namespace svc {

namespace {

std::string ReadPath(const Napi::CallbackInfo& info) {
  return ReadString(info.Env(), info[0], "VAD model path");
}

}  // namespace

Napi::Value LoadVadModelWorker::Start(const Napi::CallbackInfo& info) {
  auto* worker = new LoadVadModelWorker(info.Env(), ReadPath(info));
  Napi::Promise promise = worker->deferred_.Promise();
  worker->Queue();
  return promise;
}

// For pool worker threads, as loadModelSync: the main thread has usually loaded the file already, so
// this takes a reference, and nothing is left pending if the thread is terminated early.
Napi::Value LoadVadModelWorker::LoadSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string path = ReadPath(info);
  try {
    return ModelHandle<VadModel>::NewInstance(env, VadModelRegistry::Acquire(path));
  } catch (const Napi::Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, e.what());
  }
}

LoadVadModelWorker::LoadVadModelWorker(Napi::Env env, std::string path)
    : SafeAsyncWorker(env, "svc-stt:load-vad-model"), deferred_(Napi::Promise::Deferred::New(env)), path_(std::move(path)) {}

void LoadVadModelWorker::Execute() {
  try {
    model_ = VadModelRegistry::Acquire(path_);
  } catch (const std::exception& e) {
    SetError(e.what());
  }
}

void LoadVadModelWorker::OnOK() { deferred_.Resolve(ModelHandle<VadModel>::NewInstance(Env(), std::move(model_))); }

void LoadVadModelWorker::OnError(const Napi::Error& error) { deferred_.Reject(error.Value()); }

}  // namespace svc
