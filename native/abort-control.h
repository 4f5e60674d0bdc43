// Cooperative cancellation and holding: JavaScript flips slot 0 of an Int32Array over a
// SharedArrayBuffer (Atomics.store) to abort, and slot 1, where there is one, to hold the call;
// whisper.cpp's abort callbacks read them from the compute thread. A held call sleeps before it
// starts computing, and where whisper asks whether to go on (before and after each encoder run, after
// each decoder step; whisper.cpp does not hand the callback to its scheduled graphs, so not inside one)
// until it is resumed or aborted: the engine's scheduler holds batch work this way while an urgent call
// uses its core (src/engine/work-scheduler.ts). A hold lands within one encoder run, and nothing is
// computed twice.
#pragma once

#include <chrono>
#include <cstdint>
#include <napi.h>
#include <thread>

namespace svc {

class AbortControl {
 public:
  // Accepts undefined/null (never aborts) or an Int32Array; anything else is a TypeError.
  AbortControl(Napi::Env env, const Napi::Value& value) {
    if (value.IsUndefined() || value.IsNull()) return;
    if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
      throw Napi::TypeError::New(env, "control must be an Int32Array over a SharedArrayBuffer");
    }
    Napi::Int32Array array = value.As<Napi::Int32Array>();
    if (array.ElementLength() < 1) throw Napi::TypeError::New(env, "control needs at least one element");
    flag_ = array.Data();
    holdable_ = array.ElementLength() >= 2;
    keepAlive_ = Napi::Persistent(value.As<Napi::Object>());
  }

  bool Aborted() const { return flag_ != nullptr && __atomic_load_n(flag_, __ATOMIC_ACQUIRE) != 0; }

  // Sleeps while the call is held (and not aborted). Only on the compute thread: never from JavaScript.
  void WaitWhileHeld() {
    if (!holdable_ || __atomic_load_n(flag_ + 1, __ATOMIC_ACQUIRE) == 0) return;
    const auto from = std::chrono::steady_clock::now();
    while (__atomic_load_n(flag_ + 1, __ATOMIC_ACQUIRE) != 0 && !Aborted()) std::this_thread::sleep_for(kHeldPoll);
    heldMs_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - from).count();
  }

  // Milliseconds the call spent held, so far (read once the call has finished computing).
  double HeldMs() const { return heldMs_; }

  static bool GgmlAbortCallback(void* self) {
    auto* control = static_cast<AbortControl*>(self);
    control->WaitWhileHeld();
    return control->Aborted();
  }

 private:
  // How often a held call looks whether it may go on: short beside a graph step, long beside a spin.
  static constexpr std::chrono::milliseconds kHeldPoll{2};
  int32_t* flag_ = nullptr;
  bool holdable_ = false;
  double heldMs_ = 0;
  Napi::ObjectReference keepAlive_;
};

}  // namespace svc
