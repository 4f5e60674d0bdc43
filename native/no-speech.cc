#include "no-speech.h"

#include <cmath>
#include <limits>

namespace svc {

bool NoSpeechProbability(whisper_context* ctx, whisper_state* state, int nThreads, float& out) {
  FirstLogitsRowKept kept(ctx, state);
  const whisper_token sot = whisper_token_sot(ctx);
  if (whisper_decode_with_state(ctx, state, &sot, 1, 0, nThreads) != 0) return false;
  const float* logits = whisper_get_logits_from_state(state);
  const int n = whisper_n_vocab(ctx);
  float max = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < n; i++) max = std::max(max, logits[i]);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += std::exp(static_cast<double>(logits[i] - max));
  out = static_cast<float>(std::exp(static_cast<double>(logits[whisper_token_nosp(ctx)] - max)) / sum);
  return std::isfinite(out);
}

}  // namespace svc
