#include "gaussian-statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "symmetric-matrix.h"

namespace svc::speakers {

namespace {
// Relative ridge on the covariance: features are unit-variance, so about 1e-3 absolute.
constexpr double kCovarianceRidge = 1e-3;
// A cluster's log-F0 needs this many voiced loud frames (a fifth of a second) to be compared.
constexpr double kMinPitchFrames = 20;
// Log-F0 variance floor: (1 %)^2, the resolution of one sample of period at 160 Hz.
constexpr double kPitchVarianceFloor = 1e-4;
}  // namespace

void GaussianStatistics::Add(const float* x) {
  frames += 1;
  for (int a = 0; a < kCepstra; a++) {
    sum[a] += x[a];
    for (int b = 0; b < kCepstra; b++) outer[a * kCepstra + b] += static_cast<double>(x[a]) * x[b];
  }
}

void GaussianStatistics::Add(const GaussianStatistics& other) {
  frames += other.frames;
  for (int a = 0; a < kCepstra; a++) sum[a] += other.sum[a];
  for (int k = 0; k < kCepstra * kCepstra; k++) outer[k] += other.outer[k];
}

bool GaussianStatistics::Model(std::vector<double>& mean, std::vector<double>& l) const {
  if (frames <= 0) return false;
  mean.assign(kCepstra, 0.0);
  for (int a = 0; a < kCepstra; a++) mean[a] = sum[a] / frames;
  l.assign(kCepstra * kCepstra, 0.0);
  for (int a = 0; a < kCepstra; a++)
    for (int b = 0; b < kCepstra; b++) l[a * kCepstra + b] = outer[a * kCepstra + b] / frames - mean[a] * mean[b];
  return Cholesky(l, kCepstra, kCovarianceRidge);
}

double GaussianStatistics::LogDeterminant() const {
  std::vector<double> mean, l;
  if (!Model(mean, l)) return std::numeric_limits<double>::infinity();
  return LogDeterminantFromCholesky(l, kCepstra);
}

namespace {

/** log det of the covariance of a and b's frames about their own cluster's mean (pooled). */
double PooledLogDeterminant(const GaussianStatistics& a, const GaussianStatistics& b) {
  const double n = a.frames + b.frames;
  std::vector<double> w(kCepstra * kCepstra, 0.0);
  for (const GaussianStatistics* s : {&a, &b}) {
    if (s->frames <= 0) continue;
    for (int i = 0; i < kCepstra; i++)
      for (int j = 0; j < kCepstra; j++) w[i * kCepstra + j] += (s->outer[i * kCepstra + j] - s->sum[i] * s->sum[j] / s->frames) / n;
  }
  if (!Cholesky(w, kCepstra, kCovarianceRidge)) return std::numeric_limits<double>::infinity();
  return LogDeterminantFromCholesky(w, kCepstra);
}

}  // namespace

double DeltaBic(const GaussianStatistics& a, const GaussianStatistics& b, double penaltyWeight, double capFrames) {
  GaussianStatistics joint = a;
  joint.Add(b);
  const double n = joint.frames;
  const double scale = std::min(1.0, capFrames / n);
  const double likelihood = 0.5 * scale * n * (joint.LogDeterminant() - PooledLogDeterminant(a, b));
  return likelihood - penaltyWeight * 0.5 * kCepstra * std::log(n * scale);
}

double PitchDeltaBic(const PitchStatistics& a, const PitchStatistics& b, double weight, double penaltyWeight, double capFrames) {
  if (a.frames < kMinPitchFrames || b.frames < kMinPitchFrames) return 0;
  const double n = a.frames + b.frames;
  const double mean = (a.sum + b.sum) / n;
  const double total = std::max((a.squares + b.squares) / n - mean * mean, kPitchVarianceFloor);
  double within = 0;
  for (const PitchStatistics* s : {&a, &b}) within += s->squares - s->sum * s->sum / s->frames;
  within = std::max(within / n, kPitchVarianceFloor);
  const double scale = std::min(1.0, capFrames / n);
  return weight * 0.5 * scale * n * std::log(total / within) - penaltyWeight * 0.5 * std::log(n * scale);
}

double FrameLogLikelihood(const float* x, const std::vector<double>& mean, const std::vector<double>& l, double logDeterminant) {
  double y[kCepstra];
  for (int a = 0; a < kCepstra; a++) y[a] = x[a] - mean[a];
  ForwardSubstitute(l, kCepstra, y);
  double q = 0;
  for (int a = 0; a < kCepstra; a++) q += y[a] * y[a];
  return -0.5 * (q + logDeterminant);
}

}  // namespace svc::speakers
