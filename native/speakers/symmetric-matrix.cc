#include "symmetric-matrix.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace svc::speakers {

bool Cholesky(std::vector<double>& a, int n, double ridge) {
  double trace = 0;
  for (int i = 0; i < n; i++) trace += a[i * n + i];
  const double add = ridge * std::max(trace / n, 1e-12);
  for (int i = 0; i < n; i++) a[i * n + i] += add;
  for (int j = 0; j < n; j++) {
    double d = a[j * n + j];
    for (int k = 0; k < j; k++) d -= a[j * n + k] * a[j * n + k];
    if (d <= 0) return false;
    const double root = std::sqrt(d);
    a[j * n + j] = root;
    for (int i = j + 1; i < n; i++) {
      double s = a[i * n + j];
      for (int k = 0; k < j; k++) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / root;
    }
    for (int k = j + 1; k < n; k++) a[j * n + k] = 0;
  }
  return true;
}

double LogDeterminantFromCholesky(const std::vector<double>& l, int n) {
  double sum = 0;
  for (int i = 0; i < n; i++) sum += std::log(l[i * n + i]);
  return 2 * sum;
}

void ForwardSubstitute(const std::vector<double>& l, int n, double* b) {
  for (int i = 0; i < n; i++) {
    double s = b[i];
    for (int k = 0; k < i; k++) s -= l[i * n + k] * b[k];
    b[i] = s / l[i * n + i];
  }
}

void SymmetricEigen(std::vector<double> a, int n, std::vector<double>& values, std::vector<double>& vectors) {
  std::vector<double> v(n * n, 0.0);
  for (int i = 0; i < n; i++) v[i * n + i] = 1;
  for (int sweep = 0; sweep < 100; sweep++) {
    double off = 0;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) off += a[p * n + q] * a[p * n + q];
    if (off < 1e-22) break;
    for (int p = 0; p < n; p++) {
      for (int q = p + 1; q < n; q++) {
        const double apq = a[p * n + q];
        if (std::fabs(apq) < 1e-300) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; k++) {
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; k++) {
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < n; k++) {
          const double vkp = v[k * n + p], vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int x, int y) { return a[x * n + x] > a[y * n + y] || (a[x * n + x] == a[y * n + y] && x < y); });
  values.resize(n);
  vectors.assign(n * n, 0.0);
  for (int j = 0; j < n; j++) {
    values[j] = a[order[j] * n + order[j]];
    for (int k = 0; k < n; k++) vectors[k * n + j] = v[k * n + order[j]];
  }
}

}  // namespace svc::speakers
