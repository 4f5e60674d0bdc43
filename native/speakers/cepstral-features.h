// Frame features for speaker statistics: mel-frequency cepstral coefficients c1..c19 of 25 ms
// Hamming frames every 10 ms (pre-emphasis 0.97, 512-point FFT, 40 triangular mel filters from 60 to
// 7,600 Hz, log, orthonormal DCT-II). c0 is left out: loudness says how near the microphone a person
// sits, not who they are.
#pragma once

#include <cstddef>
#include <vector>

namespace svc::speakers {

constexpr int kSampleRate = 16000;
constexpr int kFrameHop = 160;      // 10 ms
constexpr int kFrameLength = 400;   // 25 ms
constexpr int kCepstra = 19;        // c1..c19
constexpr double kAudibleFloorDb = -70;  // dBFS: quieter frames are not audible

/** Frames are rows of kCepstra floats; frame t covers samples [t * kFrameHop, t * kFrameHop + kFrameLength). */
struct FeatureMatrix {
  size_t frames = 0;
  std::vector<float> values;
  /**
   * Per frame, 0 when it has no sound in it (mean square below -70 dBFS), else its loudness in whole
   * dB above that floor (1 to 255): nonzero means audible. VAD regions are padded and pauses inside
   * them can be digital silence, whose log spectrum is a constant far from any voice: such frames
   * keep their segment's label but never enter a statistic. The loudness picks the frames the
   * stopping rule compares voices on (loud-frames.h).
   */
  std::vector<unsigned char> audible;
  /**
   * Per frame, the natural log of F0 in Hz where the frame is voiced (pitch-track.h), else 0. Filled
   * by SpeakerFeatures (diarizer.h); left empty, the stopping rule judges on the cepstra alone.
   */
  std::vector<float> logPitch;
  const float* Row(size_t t) const { return values.data() + t * kCepstra; }
  float* Row(size_t t) { return values.data() + t * kCepstra; }
};

/** A half-open range of frames. */
struct FrameSpan {
  size_t start = 0;
  size_t end = 0;
  size_t Length() const { return end - start; }
};

/** Features of every frame inside `spans`; frames outside stay zero (silence is never looked at). */
FeatureMatrix CepstralFeatures(const float* pcm, size_t sampleCount, const std::vector<FrameSpan>& spans);

/** The affine map NormalizeOverSpans applied: normalised = (raw - mean) * scale (the identity when nothing was audible). */
struct CepstralNormalization {
  double mean[kCepstra];
  double scale[kCepstra];
  CepstralNormalization() {
    for (int c = 0; c < kCepstra; c++) mean[c] = 0, scale[c] = 1;
  }
};

/** Scales each coefficient to zero mean and unit variance over the frames of `spans` (one channel, one recording). */
CepstralNormalization NormalizeOverSpans(FeatureMatrix& features, const std::vector<FrameSpan>& spans);

}  // namespace svc::speakers
