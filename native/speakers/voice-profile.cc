#include "voice-profile.h"

#include <algorithm>

#include "gaussian-statistics.h"
#include "loud-frames.h"

namespace svc::speakers {

std::vector<VoiceProfile> VoiceProfiles(const FeatureMatrix& features, const CepstralNormalization& normalization,
                                        const std::vector<FrameSpan>& segments, const std::vector<int>& labels, int voices) {
  const std::vector<unsigned char> loud = LoudFrames(features, segments);
  std::vector<GaussianStatistics> stats(voices);
  std::vector<PitchStatistics> pitch(voices);
  const bool pitched = features.logPitch.size() == features.frames;
  for (size_t i = 0; i < segments.size(); i++) {
    if (labels[i] < 0 || labels[i] >= voices) continue;
    for (size_t f = segments[i].start; f < std::min(segments[i].end, features.frames); f++) {
      if (!loud[f]) continue;
      stats[labels[i]].Add(features.Row(f));
      if (pitched && features.logPitch[f] > 0) pitch[labels[i]].Add(features.logPitch[f]);
    }
  }
  std::vector<VoiceProfile> profiles(voices);
  for (int v = 0; v < voices; v++) {
    const GaussianStatistics& s = stats[v];
    VoiceProfile& p = profiles[v];
    p.frames = s.frames;
    const PitchStatistics& q = pitch[v];
    if (q.frames > 0) {
      p.pitchFrames = q.frames;
      p.pitchMean = q.sum / q.frames;
      p.pitchVariance = std::max(q.squares / q.frames - p.pitchMean * p.pitchMean, 0.0);
    }
    p.mean.assign(kCepstra, 0.0);
    p.covariance.assign(kCepstra * kCepstra, 0.0);
    if (s.frames <= 0) continue;
    // raw = normalised / scale + mean: the mean shifts back, the covariance scales by 1 / (scale_a scale_b).
    for (int a = 0; a < kCepstra; a++) p.mean[a] = s.sum[a] / s.frames / normalization.scale[a] + normalization.mean[a];
    for (int a = 0; a < kCepstra; a++) {
      for (int b = 0; b < kCepstra; b++) {
        const double centred = s.outer[a * kCepstra + b] / s.frames - (s.sum[a] / s.frames) * (s.sum[b] / s.frames);
        p.covariance[a * kCepstra + b] = centred / (normalization.scale[a] * normalization.scale[b]);
      }
    }
  }
  return profiles;
}

}  // namespace svc::speakers
