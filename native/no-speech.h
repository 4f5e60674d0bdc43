// The probability that a window holds no speech, as Whisper defines it: the no-speech token's
// probability at the start-of-transcript position, given the window's encoder output.
//
// Why not whisper.cpp's own figure: whisper_full reads it from the first row of the logits after
// decoding the prompt, but only the prompt's last row is computed. On a fresh state the row is zeros
// (every first window reports 1 / n_vocab, about 1.9e-5, real weights or not); later windows of a call
// report the previous window's last decoding step (ggml-org/whisper.cpp #3945 and #4068, open). Each
// of our windows is its own call, so verbose_json's no_speech_prob was a constant and the
// hallucination guard (src/pipeline/recognise-stage.ts), which drops text whisper calls silence
// where the VAD heard none, never fired.
//
// Ours decodes the start-of-transcript token alone, at position 0, on the encoder output the state
// holds: one decoder position per window. Without the prompt, deliberately: the figure answers
// whether the audio holds speech, and a vocabulary prompt (the clinical terms a window is primed
// with) must not sway it; so a window's figure is the same whatever prompted it.
//
// whisper.cpp still takes its own decisions (its silence skip and its fallback condition) on its own
// figure: every decode here gives the first logits row back as it found it, so whisper_full decides
// what it decides without us, and whisper-cli and the addon still decode the same tokens.
#pragma once

#include <algorithm>
#include <vector>

#include "whisper.h"

namespace svc {

/** The no-speech probability of the window whose encoder output `state` holds; false when whisper.cpp fails. */
bool NoSpeechProbability(whisper_context* ctx, whisper_state* state, int nThreads, float& out);

/** Restores the first logits row whisper_full reads its no-speech figure from, whatever is decoded meanwhile. */
class FirstLogitsRowKept {
 public:
  FirstLogitsRowKept(whisper_context* ctx, whisper_state* state)
      : state_(state), row_(whisper_get_logits_from_state(state), whisper_get_logits_from_state(state) + whisper_n_vocab(ctx)) {}
  ~FirstLogitsRowKept() { std::copy(row_.begin(), row_.end(), whisper_get_logits_from_state(state_)); }
  FirstLogitsRowKept(const FirstLogitsRowKept&) = delete;
  FirstLogitsRowKept& operator=(const FirstLogitsRowKept&) = delete;

 private:
  whisper_state* state_;
  std::vector<float> row_;
};

}  // namespace svc
