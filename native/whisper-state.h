// Owns a whisper_state (the per-call decoding state: mel, KV caches, results) for exactly as long as
// its scope: every return path of a worker frees it, and no path can free it twice.
#pragma once

#include <memory>

#include "whisper.h"

struct WhisperStateDeleter {
  void operator()(whisper_state* state) const noexcept { whisper_free_state(state); }
};

using WhisperState = std::unique_ptr<whisper_state, WhisperStateDeleter>;

/** A fresh state on `ctx`; empty when whisper.cpp could not allocate one. */
inline WhisperState NewWhisperState(whisper_context* ctx) { return WhisperState(whisper_init_state(ctx)); }
