// The seam where a speaker model plugs in: anything that turns the frames of a speech segment into a
// fixed-length vector in which one voice's segments lie close together. Today's embedder is
// training-free (cepstral statistics); a neural embedding model (an ECAPA or ResNet exported to ggml)
// would implement the same interface and the clustering after it would not change. Its TypeScript
// counterpart is the engine's `SpeakerDiarizer` (src/engine/speaker-diarizer.ts).
#pragma once

#include <vector>

#include "cepstral-features.h"

namespace svc::speakers {

class SpeakerEmbedder {
 public:
  virtual ~SpeakerEmbedder() = default;
  virtual int Dimensions() const = 0;
  /** One row of Dimensions() values per segment, row-major. */
  virtual std::vector<double> Embed(const FeatureMatrix& features, const std::vector<FrameSpan>& segments) const = 0;
};

/**
 * Mean and standard deviation of each cepstral coefficient over the segment: the long-term spectral
 * envelope (vocal tract length, voice quality) and how much it moves. Phonetic content is averaged
 * out by the segment's length and suppressed further by the discriminant projection that follows.
 */
class CepstralStatisticsEmbedder final : public SpeakerEmbedder {
 public:
  int Dimensions() const override { return 2 * kCepstra; }
  std::vector<double> Embed(const FeatureMatrix& features, const std::vector<FrameSpan>& segments) const override;
};

}  // namespace svc::speakers
