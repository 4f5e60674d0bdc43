#include "context-free-decoder.h"

#include <algorithm>

#include "logits-math.h"

namespace svc {

namespace {

// whisper's max_initial_ts default: the first timestamp is at most 1 s into the window (0.02 s steps).
constexpr int kMaxInitialTimestampSteps = 50;

struct Vocabulary {
  whisper_token eot, beg, space;
  int n;
};

// whisper's sampling rules at temperature 0 over one position's logits; `tokens` is the sequence so far.
void FilterLogits(std::vector<float>& logits, const std::vector<whisper_token>& tokens, const Vocabulary& v,
                  int maxTimestampStep) {
  // Special tokens other than end-of-text and the timestamps (sot, languages, tasks, no-timestamps, ...).
  for (int id = v.eot + 1; id < v.beg; id++) logits[id] = kNegInf;
  for (int id = v.beg + maxTimestampStep + 1; id < v.n; id++) logits[id] = kNegInf;

  const bool initial = tokens.empty();
  if (initial) {
    logits[v.eot] = kNegInf;
    if (v.space >= 0) logits[v.space] = kNegInf;
    for (int id = 0; id < v.beg; id++) logits[id] = kNegInf;
    for (int id = v.beg + kMaxInitialTimestampSteps + 1; id < v.n; id++) logits[id] = kNegInf;
  } else {
    const bool lastWasTimestamp = tokens.back() >= v.beg;
    const bool penultimateWasTimestamp = tokens.size() < 2 || tokens[tokens.size() - 2] >= v.beg;
    if (lastWasTimestamp) {
      if (penultimateWasTimestamp) {
        for (int id = v.beg; id < v.n; id++) logits[id] = kNegInf;
      } else {
        for (int id = 0; id < v.eot; id++) logits[id] = kNegInf;
      }
    }
    int lastTimestamp = -1;
    for (whisper_token t : tokens) {
      if (t >= v.beg) lastTimestamp = std::max(lastTimestamp, t - v.beg);
    }
    if (lastTimestamp >= 0) {
      // A closing timestamp may repeat the opening one; anything later must move forward.
      const int bound = (lastWasTimestamp && !penultimateWasTimestamp) ? lastTimestamp : lastTimestamp + 1;
      for (int id = v.beg; id < std::min(v.n, v.beg + bound); id++) logits[id] = kNegInf;
    }
  }

  // When the timestamps together are likelier than any single text token, a timestamp it is.
  std::vector<float> logprobs(logits);
  const float norm = LogSumExp(logprobs.data(), 0, v.n);
  for (float& x : logprobs) x -= norm;
  const float timestampMass = LogSumExp(logprobs.data(), v.beg, v.n);
  float bestText = kNegInf;
  for (int id = 0; id < v.beg; id++) bestText = std::max(bestText, logprobs[id]);
  if (timestampMass > bestText) {
    for (int id = 0; id < v.beg; id++) logits[id] = kNegInf;
  }
}

void Segment(whisper_context* ctx, const std::vector<whisper_token>& tokens, const std::vector<float>& probs,
             const Vocabulary& v, int64_t windowCentis, std::vector<CheckSegment>& out) {
  CheckSegment current{0, 0, "", {}};
  bool hasText = false;
  for (size_t i = 0; i < tokens.size(); i++) {
    const whisper_token id = tokens[i];
    const bool timestamp = id >= v.beg;
    current.tokens.push_back({id, whisper_token_to_str(ctx, id), probs[i], id >= v.eot});
    if (timestamp) {
      const int64_t at = 2 * static_cast<int64_t>(id - v.beg);
      if (hasText) {
        current.t1 = at;
        out.push_back(std::move(current));
        current = CheckSegment{at, at, "", {}};
        hasText = false;
      } else {
        current.t0 = at;
      }
      continue;
    }
    current.bytes += current.tokens.back().bytes;
    hasText = true;
  }
  if (hasText) {
    current.t1 = windowCentis;
    out.push_back(std::move(current));
  }
}

}  // namespace

bool DecodeContextFree(whisper_context* ctx, whisper_state* state, const std::string& language, int64_t windowCentis,
                       int stepBound, int nThreads, const AbortControl& abort, CheckPass& out) {
  Vocabulary v{whisper_token_eot(ctx), whisper_token_beg(ctx), -1, whisper_n_vocab(ctx)};
  whisper_token space[4];
  if (whisper_tokenize(ctx, " ", space, 4) == 1) v.space = space[0];
  const int maxTimestampStep = static_cast<int>(std::max<int64_t>(0, windowCentis / 2));

  std::vector<whisper_token> prompt{whisper_token_sot(ctx)};
  if (whisper_is_multilingual(ctx)) {
    prompt.push_back(whisper_token_lang(ctx, whisper_lang_id(language.c_str())));
    prompt.push_back(whisper_token_transcribe(ctx));
  }
  // whisper_full's own per-window bound on sampled tokens.
  const int windowSteps = whisper_n_text_ctx(ctx) / 2 - 4;
  const int maxSteps = stepBound > 0 ? std::min(stepBound, windowSteps) : windowSteps;

  if (whisper_decode_with_state(ctx, state, prompt.data(), static_cast<int>(prompt.size()), 0, nThreads) != 0) return false;
  int nPast = static_cast<int>(prompt.size());
  std::vector<whisper_token> tokens;
  std::vector<float> probs;
  std::vector<float> logits(v.n);
  for (int step = 0; step < maxSteps; step++) {
    if (abort.Aborted()) return false;
    // whisper keeps a row per position of the last batch; only the last row is computed.
    const int rows = step == 0 ? static_cast<int>(prompt.size()) : 1;
    const float* last = whisper_get_logits_from_state(state) + static_cast<size_t>(rows - 1) * v.n;
    std::copy(last, last + v.n, logits.begin());
    FilterLogits(logits, tokens, v, maxTimestampStep);
    const int best = static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    if (logits[best] == kNegInf || best == v.eot) break;
    tokens.push_back(best);
    probs.push_back(SoftmaxAt(logits.data(), v.n, best));
    if (whisper_decode_with_state(ctx, state, &tokens.back(), 1, nPast, nThreads) != 0) return false;
    nPast++;
  }
  out.steps = static_cast<int>(tokens.size());
  out.capped = stepBound > 0 && out.steps >= stepBound;
  Segment(ctx, tokens, probs, v, windowCentis, out.segments);
  out.ran = true;
  return true;
}

}  // namespace svc
