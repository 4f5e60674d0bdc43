#include "no-speech.h"

#include <cmath>

#include "logits-math.h"

namespace svc {

bool NoSpeechProbability(whisper_context* ctx, whisper_state* state, int nThreads, float& out) {
  FirstLogitsRowKept kept(ctx, state);
  const whisper_token sot = whisper_token_sot(ctx);
  if (whisper_decode_with_state(ctx, state, &sot, 1, 0, nThreads) != 0) return false;
  out = SoftmaxAt(whisper_get_logits_from_state(state), whisper_n_vocab(ctx), whisper_token_nosp(ctx));
  return std::isfinite(out);
}

}  // namespace svc
