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

  static TranscribeOptions FromJs(Napi::Env env, const Napi::Value& value);
};

int ReadThreads(Napi::Env env, const Napi::Object& options);

}  // namespace svc
