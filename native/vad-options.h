// Maps the JavaScript VAD parameters onto whisper_vad_params. Every field is required: the defaults are
// decided in TypeScript (src/engine/vad-params.ts), never here.
#pragma once

#include <napi.h>

#include "whisper.h"

namespace svc {

struct VadOptions {
  whisper_vad_params params;
  // Levelling of the VAD's input (speech-level.h): the level each stretch is raised towards, by at most
  // how much (0: off), and how long a stretch is measured around each frame.
  double levelTargetDb;
  double maxGainDb;
  int levelWindowMs;

  static VadOptions FromJs(Napi::Env env, const Napi::Value& value);
};

}  // namespace svc
