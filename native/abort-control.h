// Cooperative cancellation: JavaScript flips slot 0 of an Int32Array over a SharedArrayBuffer
// (Atomics.store) and whisper.cpp's abort callbacks read it from the compute thread.
#pragma once

#include <cstdint>
#include <napi.h>

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
    keepAlive_ = Napi::Persistent(value.As<Napi::Object>());
  }

  bool Aborted() const { return flag_ != nullptr && __atomic_load_n(flag_, __ATOMIC_ACQUIRE) != 0; }

  static bool GgmlAbortCallback(void* self) { return static_cast<AbortControl*>(self)->Aborted(); }

 private:
  int32_t* flag_ = nullptr;
  Napi::ObjectReference keepAlive_;
};

}  // namespace svc
