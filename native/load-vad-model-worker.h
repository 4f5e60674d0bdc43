// Loads (or finds already resident) a Silero VAD model off the JavaScript thread, like LoadModelWorker
// for whisper models: the file is small, but a load also builds the first context and its buffers.
#pragma once

#include <memory>
#include <string>
#include <napi.h>

#include "safe-async-worker.h"

#include "vad-model-registry.h"

namespace svc {

class LoadVadModelWorker : public SafeAsyncWorker {
 public:
  // loadVadModel(path) -> Promise<NativeVadModel>
  static Napi::Value Start(const Napi::CallbackInfo& info);
  // loadVadModelSync(path) -> NativeVadModel, on the calling thread
  static Napi::Value LoadSync(const Napi::CallbackInfo& info);

  LoadVadModelWorker(Napi::Env env, std::string path);

 protected:
  void Execute() override;
  void OnOK() override;
  void OnError(const Napi::Error& error) override;

 private:
  Napi::Promise::Deferred deferred_;
  std::string path_;
  std::shared_ptr<VadModel> model_;
};

}  // namespace svc
