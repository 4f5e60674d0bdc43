// Maps the JavaScript VAD parameters onto whisper_vad_params. Every field is required: the defaults are
// decided in TypeScript (src/engine/vad-params.ts), never here.
#pragma once

#include <napi.h>

#include "whisper.h"

namespace svc {

struct VadOptions {
  whisper_vad_params params;

  static VadOptions FromJs(Napi::Env env, const Napi::Value& value);
};

}  // namespace svc
