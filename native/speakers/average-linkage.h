// Agglomerative clustering with average linkage on cosine distance, by the nearest-neighbour chain
// (O(n^2) time and memory, exact for average linkage), cut where `maxClusters` clusters remain.
// The cut only bounds the count: whether those clusters are really different voices is decided
// afterwards on the acoustics (gaussian-statistics.h).
#pragma once

#include <cstddef>
#include <vector>

namespace svc::speakers {

/** Cluster index (0-based, in order of first member) of each of the n unit vectors of `width` values. */
std::vector<int> AverageLinkageClusters(const std::vector<double>& unitVectors, size_t n, int width, int maxClusters);

}  // namespace svc::speakers
