// Sufficient statistics of a full-covariance Gaussian over cepstral frames, and the Bayesian
// information criterion that decides whether two clusters are one voice.
//
// The test (DeltaBic) asks whether the two clusters' frames sit in different places, with one spread
// shared by both: one Gaussian for all the frames against two Gaussians with their own means and a
// common, pooled within-cluster covariance (the likelihood-ratio test of Hotelling's two-sample
// problem). ΔBIC = N/2 log|Σ| - N/2 log|W| - λ d/2 log N, where Σ is the covariance of all N frames,
// W the pooled covariance of the frames about their own cluster's mean, and d the extra parameters
// (the second mean); positive means two voices. Why not the textbook test with a full covariance per
// cluster (Chen & Gopalakrishnan, 1998; P = d + d(d+1)/2 = 209 parameters for 19 cepstra):
//   - with one to five seconds per voice (a short exchange: 100 to 500 frames per cluster) a
//     covariance per cluster is fitted from about as many frames as it has parameters, so its penalty
//     (λ/2 · 209 · log N) swamps the evidence and two clearly different voices come back as one;
//   - a covariance is what the words change most: a cluster holding a few phrases (the ends of one
//     voice's turns, a sentence said twice) has a narrow spread and a full-covariance test calls it
//     another voice, while the place of the spectrum (vocal tract length, voice quality) is what
//     differs between people whatever they say.
// The pooled covariance is estimated from both clusters' frames at once, so the test stays well
// posed for a cluster of a second or two.
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

/** ΔBIC of two clusters with separate means and a pooled covariance against one Gaussian (see above). */
double DeltaBic(const GaussianStatistics& a, const GaussianStatistics& b, double penaltyWeight, double capFrames);

/** Count, sum and sum of squares of one scalar per frame (log-F0 of the voiced loud frames). */
struct PitchStatistics {
  double frames = 0, sum = 0, squares = 0;
  void Add(double x) { frames += 1, sum += x, squares += x * x; }
  void Add(const PitchStatistics& o) { frames += o.frames, sum += o.sum, squares += o.squares; }
};

/**
 * The same test on log-F0 alone: one Gaussian against two means and a pooled variance (one extra
 * parameter), the likelihood term capped like DeltaBic's and scaled by `weight`. 0 (no evidence either
 * way) when either cluster has under a fifth of a second of voiced loud frames.
 */
double PitchDeltaBic(const PitchStatistics& a, const PitchStatistics& b, double weight, double penaltyWeight, double capFrames);

/** Log-likelihood of one frame (up to a constant) under a Gaussian given by mean and Cholesky factor. */
double FrameLogLikelihood(const float* x, const std::vector<double>& mean, const std::vector<double>& choleskyFactor, double logDeterminant);

}  // namespace svc::speakers
