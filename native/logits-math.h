// Probabilities from one position's logits, as whisper computes them (a log-sum-exp over a range of
// the vocabulary). Shared by the vocabulary check's decoder and the no-speech figure.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace svc {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/** log(sum(exp(v[from..to)))), or -inf when every logit there is -inf. */
inline float LogSumExp(const float* v, int from, int to) {
  float max = kNegInf;
  for (int i = from; i < to; i++) max = std::max(max, v[i]);
  if (max == kNegInf) return kNegInf;
  double sum = 0;
  for (int i = from; i < to; i++) sum += std::exp(v[i] - max);
  return max + static_cast<float>(std::log(sum));
}

/** The softmax of `n` logits at `at` (0 when every logit is -inf). */
inline float SoftmaxAt(const float* logits, int n, int at) {
  const float norm = LogSumExp(logits, 0, n);
  return norm == kNegInf ? 0.0f : std::exp(logits[at] - norm);
}

}  // namespace svc
