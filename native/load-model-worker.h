// Loads (or finds already resident) a model off the JavaScript thread: reading a 1.5 GB file must not
// stall the event loop.
#pragma once

#include <memory>
#include <string>
#include <napi.h>

#include "safe-async-worker.h"

#include "model-registry.h"

namespace svc {

class LoadModelWorker : public SafeAsyncWorker {
 public:
  // loadModel(path, options?) -> Promise<NativeModel>
  static Napi::Value Start(const Napi::CallbackInfo& info);
  // loadModelSync(path, options?) -> NativeModel, on the calling thread
  static Napi::Value LoadSync(const Napi::CallbackInfo& info);

  LoadModelWorker(Napi::Env env, std::string path, ModelLoadOptions options);

 protected:
  void Execute() override;
  void OnOK() override;
  void OnError(const Napi::Error& error) override;

 private:
  Napi::Promise::Deferred deferred_;
  std::string path_;
  ModelLoadOptions options_;
  std::shared_ptr<LoadedModel> model_;
};

}  // namespace svc
