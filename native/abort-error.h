// The rejection value for a cancelled operation: an Error named AbortError, as fetch() and
// AbortSignal-aware Node APIs produce, so callers can test err.name === 'AbortError'.
#pragma once

#include <napi.h>

namespace svc {

inline constexpr const char* kAbortMessage = "The operation was aborted";

inline Napi::Value MakeAbortError(Napi::Env env) {
  Napi::Error error = Napi::Error::New(env, kAbortMessage);
  error.Set("name", "AbortError");
  error.Set("code", "ABORT_ERR");
  return error.Value();
}

}  // namespace svc
