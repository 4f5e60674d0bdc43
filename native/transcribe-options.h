// Maps the JavaScript options object onto whisper_full_params. Strings are copied here, on the
// JavaScript thread, so the pointers handed to whisper.cpp stay valid on the compute thread.
#pragma once

#include <string>
#include <napi.h>

#include "whisper.h"

namespace svc {

struct TranscribeOptions {
  whisper_full_params params;
  std::string language = "en";
  std::string initialPrompt;
  bool detectLanguage = false;  // language was "auto": detected by us first, so its probability is known
  // Decode the first window again without the prompt (context-free-decoder.h); at most 30 s of audio.
  bool contextFreeCheck = false;
  // When the check runs after a one-window call: stop it past this many times the prompted text's tokens
  // (plus a small allowance); 0 never stops early. The caller's structure rule refuses longer checks anyway.
  double checkLengthBound = 0;
  // Batch work: computed on a background-priority thread (compute-threads.h).
  bool background = false;

  static TranscribeOptions FromJs(Napi::Env env, const Napi::Value& value);
};

int ReadThreads(Napi::Env env, const Napi::Object& options);

}  // namespace svc
