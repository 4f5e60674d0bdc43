// Owns whisper_states (the per-call decoding state: mel, KV caches, compute buffers, results), and
// keeps idle ones for the next call on the same model.
//
// Why keep them: making a state reserves its compute graphs and allocates its buffers, and a call on
// a fresh state also pays for touching that memory the first time: measured on tiny with 2 threads,
// a 20 s call took 550 ms on a kept state against 770-870 ms on a fresh one, a 3 s call 510-540 ms
// against 720-820, and every engine call paid that.
//
// What a kept state must not carry into the next call (docs/DESIGN.md lever 6: a result never depends
// on what ran before it):
// - the first decoder's random generator, seeded when the state is made and drawn from only when
//   sampling (temperature above 0, a temperature fallback, or beam search): a state goes back for reuse
//   only after a call that drew nothing (StateLease::Keep);
// - the text of earlier windows, which a call conditioning on earlier text (no_context false) would
//   read: such a call always gets a fresh state;
// - the first row of the logits. whisper.cpp computes a window's no-speech probability from that row
//   after decoding the prompt, but only the prompt's last row is computed: on a fresh state the row is
//   zeros (the probability comes out 1 / n_vocab), on a used one it holds the last decoding step's.
//   A state given back gets the fresh state's zeros again, so whisper's no-speech figure and the
//   decisions it takes with it are what they are on a fresh state;
// - encoder output beyond a shorter context. A call with a sized context (audio_ctx) attends over its
//   positions padded up to a multiple of 256, and on a fresh state the padding is zeros; a state that
//   encoded more positions holds the earlier encoder output there. So a kept state remembers how many
//   positions it ever encoded and serves only calls of at least that context;
// - the context length itself, which language detection reads before whisper_full sets it: callers
//   that detect on a kept state set it first (SetAudioContext).
// Everything else whisper_full sets again on every call; test/engine/kept-states holds a kept state's
// results, probabilities and times included, to a fresh one's.
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "whisper.h"

struct WhisperStateDeleter {
  void operator()(whisper_state* state) const noexcept { whisper_free_state(state); }
};

using WhisperState = std::unique_ptr<whisper_state, WhisperStateDeleter>;

/** A fresh state on `ctx`; empty when whisper.cpp could not allocate one. */
inline WhisperState NewWhisperState(whisper_context* ctx) { return WhisperState(whisper_init_state(ctx)); }

namespace svc {

/**
 * Sets the encoder context length (positions, 0: the whole window) that language detection on `state`
 * encodes. whisper.cpp keeps it on the state and sets it only from whisper_full's audio_ctx: a
 * whisper_full call given no samples and a 100 ms duration sets it and returns before encoding
 * anything. Public API only.
 */
bool SetAudioContext(whisper_context* ctx, whisper_state* state, int audioCtx, int threads);

/**
 * Idle states of one model, at most `limit` of them. A call takes the best fit or makes a fresh state,
 * and a state serves only contexts at least as long as any it encoded, so calls of ever shorter
 * contexts (language detection over varied short recordings) each made a new state and every one was
 * kept: native memory grew without end. Given back beyond the limit, the least recently kept state is
 * freed. Release frees every idle state (an idle engine gives the memory back). Cleared by the model
 * before it frees its context.
 */
class WhisperStatePool {
 public:
  /** Until the engine says otherwise (SetLimit): whole windows, realtime partials, sized detection, one spare. */
  static constexpr size_t kDefaultLimit = 4;

  explicit WhisperStatePool(whisper_context* ctx) : ctx_(ctx) {}
  WhisperStatePool(const WhisperStatePool&) = delete;
  WhisperStatePool& operator=(const WhisperStatePool&) = delete;

  /**
   * An idle state that never encoded more than `positions` (`encoded`: how many it did), or a fresh one
   * (`encoded` 0); empty when none could be allocated.
   */
  WhisperState Take(int positions, int& encoded);
  WhisperState Fresh() { return NewWhisperState(ctx_); }
  /**
   * Keeps `state`, which encoded at most `encoded` positions, for the next call. Only states that
   * decoded at least once: their logits hold a row.
   */
  void Give(WhisperState state, int encoded);
  void Clear();
  size_t Idle() const;
  /** Keeps at most `limit` idle states from now on; frees the least recently kept beyond it. */
  void SetLimit(size_t limit);
  size_t Limit() const;
  /** Frees every idle state now; how many. States in use are given back (or freed) as their calls end. */
  size_t Release();
  /** The whole window's encoder positions (1500). */
  int WholeContext() const { return whisper_n_audio_ctx(ctx_); }

 private:
  struct Kept {
    WhisperState state;
    int encoded;
  };
  whisper_context* ctx_;
  /** Moves the least recently kept states beyond limit_ into `freed` (idle_ is in the order they were kept). */
  void TrimLocked(std::vector<Kept>& freed);

  mutable std::mutex mutex_;
  std::vector<Kept> idle_;
  size_t limit_ = kDefaultLimit;
};

/** One call's state: freed when the call ends, unless the call says it may serve another (Keep). */
class StateLease {
 public:
  /**
   * `positions`: the encoder context the call encodes (0: the whole window). `fresh`: a state no call
   * used before (for calls that read earlier text).
   */
  StateLease(WhisperStatePool& pool, int positions, bool fresh)
      : pool_(pool), positions_(positions > 0 ? positions : pool.WholeContext()), state_(Lease(pool, fresh)) {}
  ~StateLease() {
    if (keep_ && state_) pool_.Give(std::move(state_), std::max(encoded_, positions_));
  }
  StateLease(const StateLease&) = delete;
  StateLease& operator=(const StateLease&) = delete;

  whisper_state* get() const { return state_.get(); }
  explicit operator bool() const { return static_cast<bool>(state_); }
  /** Whether another call used this state before. */
  bool reused() const { return encoded_ > 0; }
  /**
   * Readies the state for language detection over `audioCtx` positions (0: the whole window), as on a
   * fresh state: a kept one holds its last call's context length (SetAudioContext). False on failure.
   */
  bool ReadyForDetection(whisper_context* ctx, int audioCtx, int threads) const {
    return (audioCtx <= 0 && !reused()) || SetAudioContext(ctx, state_.get(), audioCtx, threads);
  }
  /** The call succeeded, decoded at least once and drew no randomness: its state may serve the next call. */
  void Keep() { keep_ = true; }

 private:
  WhisperState Lease(WhisperStatePool& pool, bool fresh) { return fresh ? pool.Fresh() : pool.Take(positions_, encoded_); }

  WhisperStatePool& pool_;
  int positions_;
  int encoded_ = 0;
  WhisperState state_;
  bool keep_ = false;
};

}  // namespace svc
