#include "loud-frames.h"

#include <algorithm>

namespace svc::speakers {

std::vector<unsigned char> LoudFrames(const FeatureMatrix& features, const std::vector<FrameSpan>& segments) {
  std::vector<unsigned char> loud(features.frames, 0);
  std::vector<unsigned char> levels;
  for (const FrameSpan& span : segments) {
    const size_t end = std::min(span.end, features.frames);
    levels.clear();
    for (size_t f = span.start; f < end; f++) {
      if (features.audible[f]) levels.push_back(features.audible[f]);
    }
    if (levels.empty()) continue;
    // The 95th percentile rather than the maximum: one click or plosive burst does not set the bar.
    const size_t rank = (levels.size() - 1) * 95 / 100;
    std::nth_element(levels.begin(), levels.begin() + rank, levels.end());
    const int bar = static_cast<int>(levels[rank]) - kLoudRangeDb;
    for (size_t f = span.start; f < end; f++) {
      if (features.audible[f] && features.audible[f] > bar) loud[f] = 1;
    }
  }
  return loud;
}

}  // namespace svc::speakers
