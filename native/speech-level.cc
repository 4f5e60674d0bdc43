#include "speech-level.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace svc {

namespace {

constexpr double kAbsoluteGateDb = -70.0;
constexpr double kRelativeGateDb = -10.0;

double FromDb(double db) {
  return std::pow(10.0, db / 10.0);
}

// Mean of the values in [from, to) at or above `floor` (0 when none is).
double MeanAbove(const std::vector<double>& values, size_t from, size_t to, double floor) {
  double sum = 0;
  size_t count = 0;
  for (size_t i = from; i < to; i++) {
    if (values[i] >= floor) {
      sum += values[i];
      count++;
    }
  }
  return count ? sum / static_cast<double>(count) : 0.0;
}

}  // namespace

std::vector<double> FrameMeanSquares(const float* samples, size_t count, int frameSamples) {
  std::vector<double> meanSquares;
  meanSquares.reserve(count / frameSamples + 1);
  for (size_t start = 0; start < count; start += frameSamples) {
    const size_t end = std::min(count, start + frameSamples);
    double sum = 0;
    for (size_t i = start; i < end; i++) sum += static_cast<double>(samples[i]) * samples[i];
    meanSquares.push_back(sum / frameSamples);
  }
  return meanSquares;
}

double GatedLevelDb(const std::vector<double>& meanSquares, size_t from, size_t to) {
  const double absolute = MeanAbove(meanSquares, from, to, FromDb(kAbsoluteGateDb));
  if (absolute == 0) return -std::numeric_limits<double>::infinity();
  // The relative gate keeps at least the frames at the mean itself, so this mean is never empty.
  return 10.0 * std::log10(MeanAbove(meanSquares, from, to, std::max(absolute * FromDb(kRelativeGateDb), FromDb(kAbsoluteGateDb))));
}

std::vector<float> LevellingGainsDb(const std::vector<double>& meanSquares, size_t windowFrames, double targetDb, double maxGainDb) {
  std::vector<float> gains(meanSquares.size(), 0.0f);
  if (maxGainDb <= 0) return gains;
  const size_t half = windowFrames / 2;
  for (size_t f = 0; f < meanSquares.size(); f++) {
    const double level = GatedLevelDb(meanSquares, f > half ? f - half : 0, std::min(meanSquares.size(), f + half + 1));
    if (std::isfinite(level)) gains[f] = static_cast<float>(std::clamp(targetDb - level, 0.0, maxGainDb));
  }
  return gains;
}

}  // namespace svc
