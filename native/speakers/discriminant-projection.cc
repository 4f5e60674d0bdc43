#include "discriminant-projection.h"

#include <cmath>

#include "symmetric-matrix.h"

namespace svc::speakers {

namespace {

// Below this many segments (or adjacent pairs) per dimension the scatter estimates are noise.
constexpr double kSamplesPerDimension = 2.0;
constexpr double kRidge = 1e-3;

void NormalizeRows(std::vector<double>& rows, size_t n, int width) {
  for (size_t i = 0; i < n; i++) {
    double norm = 0;
    for (int k = 0; k < width; k++) norm += rows[i * width + k] * rows[i * width + k];
    norm = std::sqrt(norm);
    if (norm > 0) for (int k = 0; k < width; k++) rows[i * width + k] /= norm;
  }
}

}  // namespace

std::vector<double> DiscriminantProjection(const std::vector<double>& embeddings, size_t n, int dims,
                                           const std::vector<std::pair<size_t, size_t>>& adjacent, int keep, int* width) {
  std::vector<double> centered(embeddings);
  std::vector<double> mean(dims, 0.0);
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < dims; k++) mean[k] += embeddings[i * dims + k] / n;
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < dims; k++) centered[i * dims + k] -= mean[k];

  const bool enough = n >= kSamplesPerDimension * dims && adjacent.size() >= kSamplesPerDimension * dims;
  if (!enough) {
    // Standardise each dimension so that no coefficient dominates the cosine by its scale alone.
    for (int k = 0; k < dims; k++) {
      double variance = 0;
      for (size_t i = 0; i < n; i++) variance += centered[i * dims + k] * centered[i * dims + k];
      const double scale = variance > 0 ? 1 / std::sqrt(variance / n) : 0;
      for (size_t i = 0; i < n; i++) centered[i * dims + k] *= scale;
    }
    NormalizeRows(centered, n, dims);
    *width = dims;
    return centered;
  }

  std::vector<double> total(dims * dims, 0.0), within(dims * dims, 0.0);
  for (size_t i = 0; i < n; i++) {
    const double* x = centered.data() + i * dims;
    for (int a = 0; a < dims; a++)
      for (int b = 0; b < dims; b++) total[a * dims + b] += x[a] * x[b] / n;
  }
  for (const auto& [i, j] : adjacent) {
    for (int a = 0; a < dims; a++) {
      const double da = embeddings[i * dims + a] - embeddings[j * dims + a];
      for (int b = 0; b < dims; b++) {
        const double db = embeddings[i * dims + b] - embeddings[j * dims + b];
        within[a * dims + b] += da * db / (2.0 * adjacent.size());
      }
    }
  }
  // Whiten by the within-speaker scatter (W = L L^T), then the eigenvectors of L^-1 T L^-T are the
  // discriminant directions in the whitened space.
  if (!Cholesky(within, dims, kRidge)) {
    *width = 0;
    return DiscriminantProjection(embeddings, n, dims, {}, keep, width);
  }
  std::vector<double> whitened(n * dims);
  for (size_t i = 0; i < n; i++) {
    double* y = whitened.data() + i * dims;
    for (int k = 0; k < dims; k++) y[k] = centered[i * dims + k];
    ForwardSubstitute(within, dims, y);
  }
  std::vector<double> scatter(dims * dims, 0.0);
  for (size_t i = 0; i < n; i++) {
    const double* y = whitened.data() + i * dims;
    for (int a = 0; a < dims; a++)
      for (int b = 0; b < dims; b++) scatter[a * dims + b] += y[a] * y[b] / n;
  }
  std::vector<double> values, vectors;
  SymmetricEigen(scatter, dims, values, vectors);
  const int w = std::min(keep, dims);
  std::vector<double> projected(n * w, 0.0);
  for (size_t i = 0; i < n; i++)
    for (int j = 0; j < w; j++) {
      double s = 0;
      for (int k = 0; k < dims; k++) s += whitened[i * dims + k] * vectors[k * dims + j];
      projected[i * w + j] = s;
    }
  NormalizeRows(projected, n, w);
  *width = w;
  return projected;
}

}  // namespace svc::speakers
