// A voice's profile: the mean and covariance of its loud frames' cepstra (loud-frames.h), in the
// recording's own units, before the per-recording normalisation the clustering works in. That
// normalisation and the discriminant projection are learned from each recording, so a voice's
// position in them means nothing in another one; raw cepstra do. A reference clip of one person and a
// voice diarized in a consultation can then be compared (the comparison and its threshold are
// decided in TypeScript: src/pipeline/voice-matching.ts).
//
// The channel stays in: a microphone or a room multiplies the spectrum, which adds a constant to
// every frame's cepstra, so it moves the mean and leaves the covariance alone. Removing it per
// recording (cepstral mean subtraction) would remove the speaker too from a clip of one voice. A
// profile is therefore honest only against audio from a similar channel, and a different one moves
// voices apart (a missed name), never together.
#pragma once

#include <vector>

#include "cepstral-features.h"

namespace svc::speakers {

struct VoiceProfile {
  /** Loud frames the statistics were taken over (10 ms each). */
  double frames = 0;
  /** kCepstra values. */
  std::vector<double> mean;
  /** kCepstra x kCepstra, row-major. */
  std::vector<double> covariance;
  /**
   * The same loud frames' log-F0 where voiced (pitch-track.h): count, mean and variance. The cepstra
   * smooth the harmonics away, so two voices with alike tracts and different pitch share a cepstral
   * profile; F0 is the source, and a microphone does not move it.
   */
  double pitchFrames = 0, pitchMean = 0, pitchVariance = 0;
};

/**
 * One profile per voice 0..voices-1 from the loud frames of its segments (`labels[i]` is the voice of
 * `segments[i]`; negative: none), in raw units: `features` are normalised by `normalization`.
 */
std::vector<VoiceProfile> VoiceProfiles(const FeatureMatrix& features, const CepstralNormalization& normalization,
                                        const std::vector<FrameSpan>& segments, const std::vector<int>& labels, int voices);

}  // namespace svc::speakers
