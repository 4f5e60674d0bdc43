// Maps the JavaScript VAD parameters onto whisper_vad_params. Every field is required: the defaults are
// decided in TypeScript (src/engine/vad-params.ts), never here.
#pragma once

#include <napi.h>

#include "whisper.h"

namespace svc {

struct VadOptions {
  whisper_vad_params params;
  // Levelling of the VAD's input (speech-level.h): the level the audio is raised towards, and by at most
  // how much (0: off).
  double levelTargetDb;
  double maxGainDb;

  static VadOptions FromJs(Napi::Env env, const Napi::Value& value);
};

}  // namespace svc
