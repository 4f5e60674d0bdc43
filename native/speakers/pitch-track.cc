#include "pitch-track.h"

#include <algorithm>
#include <cmath>

namespace svc::speakers {

namespace {

constexpr double kLowestHz = 60;
constexpr double kHighestHz = 400;
/** A periodic frame correlates with itself a period later near 1; noise and fricatives well under 0.5. */
constexpr double kVoicedCorrelation = 0.6;
/**
 * A peak at a shorter period within this fraction of the best wins: at two or three periods a
 * voiced frame correlates almost as well as at one, and picking those halves F0 (octave errors).
 */
constexpr double kOctaveTolerance = 0.9;

}  // namespace

std::vector<float> LogPitchTrack(const float* pcm, size_t sampleCount, const FeatureMatrix& features, const std::vector<FrameSpan>& spans) {
  const int shortest = static_cast<int>(std::floor(kSampleRate / kHighestHz));
  const int longest = static_cast<int>(std::ceil(kSampleRate / kLowestHz));
  const int window = kFrameLength;
  std::vector<float> out(features.frames, 0.0f);
  std::vector<double> correlation(longest + 1, 0.0);
  for (const FrameSpan& span : spans) {
    for (size_t f = span.start; f < std::min(span.end, features.frames); f++) {
      if (!features.audible[f]) continue;
      const size_t base = f * kFrameHop;
      if (base + window + longest > sampleCount) continue;
      const float* x = pcm + base;
      double energy0 = 0;
      for (int i = 0; i < window; i++) energy0 += static_cast<double>(x[i]) * x[i];
      if (energy0 <= 0) continue;
      // The energy of the lagged window, slid one sample at a time.
      double energyLag = 0;
      for (int i = 0; i < window; i++) energyLag += static_cast<double>(x[shortest + i]) * x[shortest + i];
      double best = 0;
      for (int lag = shortest; lag <= longest; lag++) {
        if (lag > shortest) {
          energyLag += static_cast<double>(x[lag + window - 1]) * x[lag + window - 1] - static_cast<double>(x[lag - 1]) * x[lag - 1];
        }
        // Eight running sums: independent chains the compiler can pipeline (a single float sum cannot be reordered).
        float partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        const float* y = x + lag;
        for (int i = 0; i + 8 <= window; i += 8)
          for (int k = 0; k < 8; k++) partial[k] += x[i + k] * y[i + k];
        const double dot = (partial[0] + partial[1]) + (partial[2] + partial[3]) + (partial[4] + partial[5]) + (partial[6] + partial[7]);
        correlation[lag] = dot / std::sqrt(energy0 * std::max(energyLag, 1e-20));
        best = std::max(best, correlation[lag]);
      }
      if (best < kVoicedCorrelation) continue;
      // The shortest period at a local peak close enough to the best.
      for (int lag = shortest + 1; lag < longest; lag++) {
        const double c = correlation[lag];
        if (c >= kOctaveTolerance * best && c >= correlation[lag - 1] && c >= correlation[lag + 1]) {
          out[f] = static_cast<float>(std::log(static_cast<double>(kSampleRate) / lag));
          break;
        }
      }
    }
  }
  return out;
}

}  // namespace svc::speakers
