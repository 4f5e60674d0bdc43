#include "speaker-embedder.h"

#include <algorithm>
#include <cmath>

namespace svc::speakers {

std::vector<double> CepstralStatisticsEmbedder::Embed(const FeatureMatrix& features, const std::vector<FrameSpan>& segments) const {
  const int d = Dimensions();
  std::vector<double> out(segments.size() * d, 0.0);
  for (size_t s = 0; s < segments.size(); s++) {
    double* row = out.data() + s * d;
    size_t n = 0;
    for (size_t f = segments[s].start; f < segments[s].end; f++) {
      if (!features.audible[f]) continue;
      n++;
      const float* x = features.Row(f);
      for (int c = 0; c < kCepstra; c++) {
        row[c] += x[c];
        row[kCepstra + c] += static_cast<double>(x[c]) * x[c];
      }
    }
    if (n == 0) continue;
    for (int c = 0; c < kCepstra; c++) {
      const double mean = row[c] / n;
      row[c] = mean;
      row[kCepstra + c] = std::sqrt(std::max(row[kCepstra + c] / n - mean * mean, 0.0));
    }
  }
  return out;
}

}  // namespace svc::speakers
