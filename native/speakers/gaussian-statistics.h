// Sufficient statistics of a full-covariance Gaussian over cepstral frames, and the Bayesian
// information criterion that decides whether two clusters are one voice (Chen & Gopalakrishnan,
// 1998): ΔBIC = N/2 log|Σ| - N1/2 log|Σ1| - N2/2 log|Σ2| - λ P/2 log N, P = d + d(d+1)/2; positive
// means two models explain the frames better than one by more than the extra parameters cost.
//
// One change to the textbook rule: the likelihood term is computed as if both clusters together held
// at most `capFrames` frames (scaled in proportion). A Gaussian fits real speech only roughly, so with
// the raw counts the term grows with the recording and ten minutes of one voice would be "proven" to
// be two; capped, the test asks the same question of a long recording as of a short one.
#pragma once

#include <vector>

#include "cepstral-features.h"

namespace svc::speakers {

struct GaussianStatistics {
  double frames = 0;
  std::vector<double> sum = std::vector<double>(kCepstra, 0.0);
  std::vector<double> outer = std::vector<double>(kCepstra * kCepstra, 0.0);

  void Add(const float* x);
  void Add(const GaussianStatistics& other);
  /** Mean and the Cholesky factor of the (ridged) covariance; false when there are no frames. */
  bool Model(std::vector<double>& mean, std::vector<double>& choleskyFactor) const;
  double LogDeterminant() const;
};

double DeltaBic(const GaussianStatistics& a, const GaussianStatistics& b, double penaltyWeight, double capFrames);

/** Log-likelihood of one frame (up to a constant) under a Gaussian given by mean and Cholesky factor. */
double FrameLogLikelihood(const float* x, const std::vector<double>& mean, const std::vector<double>& choleskyFactor, double logDeterminant);

}  // namespace svc::speakers
