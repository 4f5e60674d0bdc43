// A speaker-discriminant projection learned from the recording itself, without labels. Consecutive
// one-second segments of one stretch of speech are almost always the same voice, so the spread of
// their differences estimates how much a voice varies with what is said (within-speaker scatter);
// the spread of all segments is that plus the differences between voices. The directions that
// maximise total over within-speaker scatter (a generalized eigenproblem, as in LDA) keep who is
// speaking and drop what is said. The projected vectors are length-normalised for cosine scoring.
//
// The within-speaker scatter is shrunk towards a multiple of the identity by the Ledoit-Wolf
// intensity, so the projection is learned at every length: a few adjacent pairs (a short exchange)
// give mostly the identity (the projection is then close to the embeddings' principal directions),
// many give mostly the data. Unshrunk, a scatter of 38 dimensions needs far more pairs than a short
// recording has before its small eigenvalues mean anything (the projection used to wait for 76, so
// every recording under about 80 s of speech was clustered unprojected).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace svc::speakers {

/**
 * Projects `embeddings` (n rows of `dims`) onto the `keep` leading discriminant directions, given the
 * index pairs of adjacent segments. With fewer than two pairs the embeddings are only standardised.
 * Returns n rows of unit vectors, and their width.
 */
std::vector<double> DiscriminantProjection(const std::vector<double>& embeddings, size_t n, int dims,
                                           const std::vector<std::pair<size_t, size_t>>& adjacent, int keep, int* width);

}  // namespace svc::speakers
