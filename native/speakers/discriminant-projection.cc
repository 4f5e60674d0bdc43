#include "discriminant-projection.h"

#include <algorithm>
#include <cmath>

#include "symmetric-matrix.h"

namespace svc::speakers {

namespace {

// The ridge that keeps the Cholesky factor of a shrunk scatter well conditioned (relative to its mean diagonal).
constexpr double kRidge = 1e-3;

/**
 * The within-voice scatter from the differences of adjacent segments, shrunk towards a multiple of
 * the identity by the Ledoit-Wolf intensity (Ledoit & Wolf, 2004). A scatter of d = 38 dimensions
 * estimated from a few dozen differences (a conversation of a minute) or a handful (a short exchange)
 * is mostly noise: its smallest eigenvalues are far too small, and whitening by it blows those noise
 * directions up into the "most discriminant" ones. The intensity is computed from the differences
 * themselves (how much the sample scatter varies from one difference to the next, over how far it is
 * from the identity), so the estimate leans on the identity when pairs are few and on the data when
 * they are many: no sample-size threshold, and no switch between two behaviours.
 */
std::vector<double> ShrunkWithinScatter(const std::vector<double>& embeddings, int dims, const std::vector<std::pair<size_t, size_t>>& adjacent) {
  const size_t n = adjacent.size();
  std::vector<double> scatter(dims * dims, 0.0);
  std::vector<double> norms4(n, 0.0);
  std::vector<double> x(dims);
  for (size_t p = 0; p < n; p++) {
    const auto [i, j] = adjacent[p];
    // (e_i - e_j) / sqrt(2) has the within-voice covariance when both segments are one voice.
    double norm2 = 0;
    for (int a = 0; a < dims; a++) {
      x[a] = (embeddings[i * dims + a] - embeddings[j * dims + a]) / std::sqrt(2.0);
      norm2 += x[a] * x[a];
    }
    norms4[p] = norm2 * norm2;
    for (int a = 0; a < dims; a++)
      for (int b = 0; b < dims; b++) scatter[a * dims + b] += x[a] * x[b] / n;
  }
  double mu = 0;
  for (int a = 0; a < dims; a++) mu += scatter[a * dims + a] / dims;
  // delta^2 = |S - mu I|^2 (distance from the target); beta^2 = (1/n^2) sum_p |x_p x_p^T - S|^2, which
  // expands to (sum_p |x_p|^4 - n |S|^2) / n^2 (the variance of the estimate).
  double frobenius2 = 0, delta2 = 0;
  for (int a = 0; a < dims; a++)
    for (int b = 0; b < dims; b++) {
      const double v = scatter[a * dims + b];
      frobenius2 += v * v;
      const double off = v - (a == b ? mu : 0.0);
      delta2 += off * off;
    }
  double sumNorms4 = 0;
  for (double v : norms4) sumNorms4 += v;
  const double beta2 = std::min(delta2, std::max(0.0, (sumNorms4 - n * frobenius2) / (static_cast<double>(n) * n)));
  const double intensity = delta2 > 0 ? beta2 / delta2 : 1.0;
  for (int a = 0; a < dims; a++)
    for (int b = 0; b < dims; b++) scatter[a * dims + b] = (1 - intensity) * scatter[a * dims + b] + (a == b ? intensity * mu : 0.0);
  return scatter;
}

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

  if (adjacent.size() < 2) {
    // No within-voice pairs to learn from (speech in pieces of a second or less): standardise each
    // dimension so that no coefficient dominates the cosine by its scale alone.
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

  std::vector<double> within = ShrunkWithinScatter(embeddings, dims, adjacent);
  std::vector<double> total(dims * dims, 0.0);
  for (size_t i = 0; i < n; i++) {
    const double* x = centered.data() + i * dims;
    for (int a = 0; a < dims; a++)
      for (int b = 0; b < dims; b++) total[a * dims + b] += x[a] * x[b] / n;
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
