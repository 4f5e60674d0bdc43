// An AsyncWorker whose completion cannot terminate the process. When a worker thread's environment is
// being torn down (Piscina closing a pool, a Worker terminated) while an operation is in flight, the
// completion runs where no JavaScript can: node-addon-api then throws Napi::Error from places with no
// handler (opening the HandleScope), and an uncaught C++ exception would abort the whole process.
// Nobody is left to receive the result, so it is dropped.
#pragma once

#include <napi.h>

namespace svc {

class SafeAsyncWorker : public Napi::AsyncWorker {
 public:
  using Napi::AsyncWorker::AsyncWorker;

 protected:
  void OnWorkComplete(Napi::Env env, napi_status status) override {
    try {
      Napi::AsyncWorker::OnWorkComplete(env, status);
    } catch (const Napi::Error&) {
      // The environment is going away; see above.
    }
  }
};

}  // namespace svc
