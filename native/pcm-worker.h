// The one shape of an operation over a recording's PCM (transcribe, detectLanguage, detectSpeech,
// diarize, speakerFeatures): an AsyncWorker that resolves a Promise, reads the samples pinned on the
// JavaScript thread (pinned-pcm.h), can be cancelled through a control array (abort-control.h), and
// rejects with an AbortError when it was. ModelPcmWorker adds the model the operation runs on.
// Subclasses keep only what is their own: options, results, and how they compute.
#pragma once

#include <memory>
#include <utility>
#include <napi.h>

#include "abort-control.h"
#include "pinned-pcm.h"
#include "safe-async-worker.h"

namespace svc {

class PcmWorker : public SafeAsyncWorker {
 public:
  /** Queues the worker and returns its promise: the last step of a Start, after every argument is read. */
  Napi::Promise Enqueue();

 protected:
  // `control` is read here, after the subclass has read its other arguments, as it always was.
  PcmWorker(Napi::Env env, const char* resourceName, PinnedPcm pcm, const Napi::Value& control);

  /** Fails the call as cancelled: it rejects with an AbortError, not the error message. */
  void SetAborted();
  void OnError(const Napi::Error& error) override;

  Napi::Promise::Deferred deferred_;
  const PinnedPcm pcm_;
  AbortControl abort_;
  // Set on the compute thread before SetError; read by OnError on the JavaScript thread after it.
  bool aborted_ = false;
};

template <typename Model>
class ModelPcmWorker : public PcmWorker {
 protected:
  ModelPcmWorker(Napi::Env env, const char* resourceName, std::shared_ptr<Model> model, PinnedPcm pcm,
                 const Napi::Value& control)
      : PcmWorker(env, resourceName, std::move(pcm), control), model_(std::move(model)) {}

  // A reference of the call's own: a handle released while the call runs cannot free the model under it.
  const std::shared_ptr<Model> model_;
};

}  // namespace svc
