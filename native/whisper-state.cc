#include "whisper-state.h"

#include <algorithm>

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
    // The one that encoded the most positions this call may take, the most recently kept among equals:
    // states that encoded little stay for calls of short contexts (realtime partials), which no other can serve.
    auto best = idle_.end();
    for (auto it = idle_.begin(); it != idle_.end(); ++it) {
      if (it->encoded <= positions && (best == idle_.end() || it->encoded >= best->encoded)) best = it;
    }
    if (best != idle_.end()) {
      WhisperState state = std::move(best->state);
      encoded = best->encoded;
      idle_.erase(best);
      return state;
    }
  }
  encoded = 0;
  return Fresh();
}

void WhisperStatePool::Give(WhisperState state, int encoded) {
  // The first logits row as a fresh state has it (whisper-state.h).
  std::fill_n(whisper_get_logits_from_state(state.get()), whisper_n_vocab(ctx_), 0.0f);
  // The states trimmed are freed after the lock is let go (freeing one returns megabytes).
  std::vector<Kept> trimmed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    idle_.push_back({std::move(state), encoded});
    TrimLocked(trimmed);
  }
}

void WhisperStatePool::SetLimit(size_t limit) {
  std::vector<Kept> trimmed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    limit_ = limit;
    TrimLocked(trimmed);
  }
}

void WhisperStatePool::TrimLocked(std::vector<Kept>& freed) {
  while (idle_.size() > limit_) {
    freed.push_back(std::move(idle_.front()));
    idle_.erase(idle_.begin());
  }
}

size_t WhisperStatePool::Limit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return limit_;
}

size_t WhisperStatePool::Release() {
  std::vector<Kept> released;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    released.swap(idle_);
  }
  return released.size();
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
