#include "speech-level.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace svc {

namespace {

constexpr double kAbsoluteGateDb = -70.0;
constexpr double kRelativeGateDb = -10.0;

double ToDb(double meanSquare) {
  return 10.0 * std::log10(meanSquare);
}

double FromDb(double db) {
  return std::pow(10.0, db / 10.0);
}

// Mean square of the values at or above `floor`, and how many there were.
std::pair<double, size_t> MeanAbove(const std::vector<double>& meanSquares, double floor) {
  double sum = 0;
  size_t count = 0;
  for (double m : meanSquares) {
    if (m >= floor) {
      sum += m;
      count++;
    }
  }
  return {count ? sum / static_cast<double>(count) : 0.0, count};
}

}  // namespace

double GatedLevelDb(const float* samples, size_t count, int frameSamples) {
  std::vector<double> meanSquares;
  meanSquares.reserve(count / frameSamples + 1);
  for (size_t start = 0; start < count; start += frameSamples) {
    const size_t end = std::min(count, start + frameSamples);
    double sum = 0;
    for (size_t i = start; i < end; i++) sum += static_cast<double>(samples[i]) * samples[i];
    // The last frame is zero-padded by the VAD; so is its mean square here.
    meanSquares.push_back(sum / frameSamples);
  }
  const auto [absolute, aboveAbsolute] = MeanAbove(meanSquares, FromDb(kAbsoluteGateDb));
  if (aboveAbsolute == 0) return -std::numeric_limits<double>::infinity();
  const auto [relative, aboveRelative] = MeanAbove(meanSquares, absolute * FromDb(kRelativeGateDb));
  return ToDb(aboveRelative ? relative : absolute);
}

double LevellingGainDb(double levelDb, double targetDb, double maxGainDb) {
  if (!std::isfinite(levelDb)) return 0.0;
  return std::clamp(targetDb - levelDb, 0.0, maxGainDb);
}

}  // namespace svc
