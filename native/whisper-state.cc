#include "whisper-state.h"

#include <algorithm>
#include <iterator>

namespace svc {

bool SetAudioContext(whisper_context* ctx, whisper_state* state, int audioCtx, int threads) {
  whisper_full_params params = whisper_full_default_params(WHISPER_SAMPLING_GREEDY);
  params.n_threads = threads;
  params.audio_ctx = audioCtx;
  params.language = "en";
  params.duration_ms = 100;
  params.print_progress = false;
  params.print_realtime = false;
  params.print_timestamps = false;
  params.print_special = false;
  params.no_context = true;
  return whisper_full_with_state(ctx, state, params, nullptr, 0) == 0;
}

WhisperState WhisperStatePool::Take(int positions, int& encoded) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // The most recently kept first: its memory is the likeliest to be in cache.
    for (auto it = idle_.rbegin(); it != idle_.rend(); ++it) {
      if (it->encoded > positions) continue;
      WhisperState state = std::move(it->state);
      encoded = it->encoded;
      idle_.erase(std::next(it).base());
      return state;
    }
  }
  encoded = 0;
  return Fresh();
}

void WhisperStatePool::Give(WhisperState state, int encoded) {
  // The first logits row as a fresh state has it (whisper-state.h).
  std::fill_n(whisper_get_logits_from_state(state.get()), whisper_n_vocab(ctx_), 0.0f);
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back({std::move(state), encoded});
}

void WhisperStatePool::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.clear();
}

size_t WhisperStatePool::Idle() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_.size();
}

}  // namespace svc
