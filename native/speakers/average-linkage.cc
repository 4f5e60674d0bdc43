#include "average-linkage.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace svc::speakers {

namespace {

struct Merge {
  float distance;
  size_t a;
  size_t b;
};

size_t Find(std::vector<size_t>& parent, size_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

}  // namespace

std::vector<int> AverageLinkageClusters(const std::vector<double>& unitVectors, size_t n, int width, int maxClusters) {
  std::vector<int> labels(n, 0);
  if (n == 0) return labels;
  std::vector<float> distance(n * n, 0.0f);
  for (size_t i = 0; i < n; i++) {
    for (size_t j = i + 1; j < n; j++) {
      double dot = 0;
      for (int k = 0; k < width; k++) dot += unitVectors[i * width + k] * unitVectors[j * width + k];
      distance[i * n + j] = distance[j * n + i] = static_cast<float>(1 - dot);
    }
  }
  std::vector<char> active(n, 1);
  std::vector<double> size(n, 1);
  std::vector<size_t> chain;
  std::vector<Merge> merges;
  size_t remaining = n;
  while (remaining > 1) {
    if (chain.empty()) chain.push_back(static_cast<size_t>(std::find(active.begin(), active.end(), 1) - active.begin()));
    const size_t a = chain.back();
    const size_t previous = chain.size() >= 2 ? chain[chain.size() - 2] : n;
    // The nearest active cluster; the previous link wins ties so that the chain always ends.
    size_t best = previous;
    float bestDistance = previous < n ? distance[a * n + previous] : std::numeric_limits<float>::infinity();
    for (size_t j = 0; j < n; j++) {
      if (!active[j] || j == a) continue;
      if (distance[a * n + j] < bestDistance) {
        bestDistance = distance[a * n + j];
        best = j;
      }
    }
    if (best != previous) {
      chain.push_back(best);
      continue;
    }
    // a and previous are each other's nearest: merge a into previous (Lance-Williams, average linkage).
    chain.pop_back();
    chain.pop_back();
    merges.push_back({bestDistance, a, previous});
    const double total = size[a] + size[previous];
    for (size_t k = 0; k < n; k++) {
      if (!active[k] || k == a || k == previous) continue;
      const float d = static_cast<float>((size[a] * distance[a * n + k] + size[previous] * distance[previous * n + k]) / total);
      distance[previous * n + k] = distance[k * n + previous] = d;
    }
    size[previous] = total;
    active[a] = 0;
    remaining--;
  }
  // The chain finds the merges out of order; in order of distance they are the dendrogram.
  std::stable_sort(merges.begin(), merges.end(), [](const Merge& x, const Merge& y) { return x.distance < y.distance; });
  std::vector<size_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  const size_t keep = std::min<size_t>(n, std::max(1, maxClusters));
  for (size_t m = 0; m < n - keep; m++) parent[Find(parent, merges[m].a)] = Find(parent, merges[m].b);
  std::vector<int> id(n, -1);
  int next = 0;
  for (size_t i = 0; i < n; i++) {
    const size_t root = Find(parent, i);
    if (id[root] < 0) id[root] = next++;
    labels[i] = id[root];
  }
  return labels;
}

}  // namespace svc::speakers
