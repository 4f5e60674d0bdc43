#include "cepstral-features.h"

#include <algorithm>
#include <cmath>
#include <complex>

namespace svc::speakers {

namespace {

constexpr int kFftSize = 512;
constexpr int kBins = kFftSize / 2 + 1;
constexpr int kMelFilters = 40;
constexpr double kLowHz = 60;
constexpr double kHighHz = 7600;
constexpr double kPreEmphasis = 0.97;
constexpr double kPi = 3.14159265358979323846;

double HzToMel(double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); }
double MelToHz(double mel) { return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0); }

// The constant tables, built once per process.
struct Tables {
  std::vector<float> window;                 // Hamming, kFrameLength
  std::vector<std::complex<double>> twiddle; // kFftSize / 2
  std::vector<int> bitReverse;               // kFftSize
  std::vector<float> filters;                // kMelFilters x kBins
  std::vector<float> dct;                    // kCepstra x kMelFilters (rows c1..c19)

  Tables() : window(kFrameLength), twiddle(kFftSize / 2), bitReverse(kFftSize), filters(kMelFilters * kBins, 0.0f), dct(kCepstra * kMelFilters) {
    for (int i = 0; i < kFrameLength; i++) window[i] = static_cast<float>(0.54 - 0.46 * std::cos(2 * kPi * i / (kFrameLength - 1)));
    for (int k = 0; k < kFftSize / 2; k++) twiddle[k] = std::polar(1.0, -2 * kPi * k / kFftSize);
    int bits = 0;
    while ((1 << bits) < kFftSize) bits++;
    for (int i = 0; i < kFftSize; i++) {
      int r = 0;
      for (int b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      bitReverse[i] = r;
    }
    std::vector<int> edges(kMelFilters + 2);
    const double lo = HzToMel(kLowHz), hi = HzToMel(kHighHz);
    for (int i = 0; i < kMelFilters + 2; i++) {
      edges[i] = static_cast<int>(std::floor((kFftSize + 1) * MelToHz(lo + (hi - lo) * i / (kMelFilters + 1)) / kSampleRate));
    }
    for (int m = 0; m < kMelFilters; m++) {
      const int a = edges[m], b = edges[m + 1], c = edges[m + 2];
      for (int k = a; k < b; k++) filters[m * kBins + k] = static_cast<float>(k - a) / std::max(1, b - a);
      for (int k = b; k < c; k++) filters[m * kBins + k] = static_cast<float>(c - k) / std::max(1, c - b);
    }
    for (int c = 0; c < kCepstra; c++) {
      for (int m = 0; m < kMelFilters; m++) {
        dct[c * kMelFilters + m] = static_cast<float>(std::sqrt(2.0 / kMelFilters) * std::cos(kPi * (c + 1) * (m + 0.5) / kMelFilters));
      }
    }
  }
};

const Tables& SharedTables() {
  static const Tables tables;
  return tables;
}

void Fft(std::vector<std::complex<double>>& x, const Tables& t) {
  for (int i = 0; i < kFftSize; i++) {
    if (i < t.bitReverse[i]) std::swap(x[i], x[t.bitReverse[i]]);
  }
  for (int size = 2; size <= kFftSize; size <<= 1) {
    const int half = size / 2, step = kFftSize / size;
    for (int start = 0; start < kFftSize; start += size) {
      for (int k = 0; k < half; k++) {
        const std::complex<double> odd = t.twiddle[k * step] * x[start + k + half];
        x[start + k + half] = x[start + k] - odd;
        x[start + k] += odd;
      }
    }
  }
}

}  // namespace

FeatureMatrix CepstralFeatures(const float* pcm, size_t sampleCount, const std::vector<FrameSpan>& spans) {
  const Tables& t = SharedTables();
  FeatureMatrix out;
  out.frames = sampleCount < kFrameLength ? 0 : 1 + (sampleCount - kFrameLength) / kFrameHop;
  out.values.assign(out.frames * kCepstra, 0.0f);
  out.audible.assign(out.frames, 0);
  std::vector<std::complex<double>> buffer(kFftSize);
  std::vector<double> power(kBins), logMel(kMelFilters);
  for (const FrameSpan& span : spans) {
    for (size_t f = span.start; f < std::min(span.end, out.frames); f++) {
      const size_t base = f * kFrameHop;
      double energy = 0;
      for (int i = 0; i < kFrameLength; i++) energy += static_cast<double>(pcm[base + i]) * pcm[base + i];
      const double decibels = 10 * std::log10(std::max(energy / kFrameLength, 1e-30)) - kAudibleFloorDb;
      if (decibels < 0) continue;
      out.audible[f] = static_cast<unsigned char>(std::clamp(std::lround(decibels), 1L, 255L));
      for (int i = 0; i < kFftSize; i++) {
        double v = 0;
        if (i < kFrameLength) {
          const double previous = base + i == 0 ? pcm[0] : pcm[base + i - 1];
          v = (pcm[base + i] - kPreEmphasis * previous) * t.window[i];
        }
        buffer[i] = {v, 0.0};
      }
      Fft(buffer, t);
      for (int k = 0; k < kBins; k++) power[k] = std::norm(buffer[k]);
      for (int m = 0; m < kMelFilters; m++) {
        double e = 0;
        const float* w = t.filters.data() + m * kBins;
        for (int k = 0; k < kBins; k++) e += w[k] * power[k];
        logMel[m] = std::log(e + 1e-10);
      }
      float* row = out.Row(f);
      for (int c = 0; c < kCepstra; c++) {
        double v = 0;
        const float* d = t.dct.data() + c * kMelFilters;
        for (int m = 0; m < kMelFilters; m++) v += d[m] * logMel[m];
        row[c] = static_cast<float>(v);
      }
    }
  }
  return out;
}

CepstralNormalization NormalizeOverSpans(FeatureMatrix& features, const std::vector<FrameSpan>& spans) {
  CepstralNormalization applied;
  double sum[kCepstra] = {0}, sumSquares[kCepstra] = {0};
  size_t n = 0;
  for (const FrameSpan& span : spans) {
    for (size_t f = span.start; f < std::min(span.end, features.frames); f++) {
      if (!features.audible[f]) continue;
      n++;
      const float* row = features.Row(f);
      for (int c = 0; c < kCepstra; c++) {
        sum[c] += row[c];
        sumSquares[c] += static_cast<double>(row[c]) * row[c];
      }
    }
  }
  if (n == 0) return applied;
  float mean[kCepstra], scale[kCepstra];
  for (int c = 0; c < kCepstra; c++) {
    const double m = sum[c] / n;
    const double variance = std::max(sumSquares[c] / n - m * m, 1e-8);
    mean[c] = static_cast<float>(m);
    scale[c] = static_cast<float>(1.0 / std::sqrt(variance));
    applied.mean[c] = mean[c];
    applied.scale[c] = scale[c];
  }
  for (const FrameSpan& span : spans) {
    for (size_t f = span.start; f < std::min(span.end, features.frames); f++) {
      if (!features.audible[f]) continue;
      float* row = features.Row(f);
      for (int c = 0; c < kCepstra; c++) row[c] = (row[c] - mean[c]) * scale[c];
    }
  }
  return applied;
}

}  // namespace svc::speakers
