#include "pcm-worker.h"

#include "abort-error.h"

namespace svc {

PcmWorker::PcmWorker(Napi::Env env, const char* resourceName, PinnedPcm pcm, const Napi::Value& control)
    : SafeAsyncWorker(env, resourceName),
      deferred_(Napi::Promise::Deferred::New(env)),
      pcm_(std::move(pcm)),
      abort_(env, control) {}

Napi::Promise PcmWorker::Enqueue() {
  Napi::Promise promise = deferred_.Promise();
  Queue();
  return promise;
}

void PcmWorker::SetAborted() {
  aborted_ = true;
  SetError(kAbortMessage);
}

void PcmWorker::OnError(const Napi::Error& error) {
  deferred_.Reject(aborted_ ? MakeAbortError(Env()) : error.Value());
}

}  // namespace svc
