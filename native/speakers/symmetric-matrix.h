// The small dense linear algebra the speaker stages need, on row-major double matrices of a few dozen
// rows: Cholesky factors (log-determinants and Gaussian likelihoods) and the eigenvectors of a
// symmetric matrix (Jacobi rotations: exact enough and simple at this size).
#pragma once

#include <vector>

namespace svc::speakers {

/**
 * Lower-triangular L with A = L L^T, in place of a copy of A (n x n). A ridge of `ridge` times the
 * mean diagonal is added first, so a covariance of too few frames still factors. Returns false only
 * if A is not positive definite even then.
 */
bool Cholesky(std::vector<double>& a, int n, double ridge);

/** log det(A) from its Cholesky factor. */
double LogDeterminantFromCholesky(const std::vector<double>& l, int n);

/** Solves L y = b in place (forward substitution). */
void ForwardSubstitute(const std::vector<double>& l, int n, double* b);

/**
 * Eigen-decomposition of a symmetric n x n matrix: eigenvalues in descending order and the matching
 * unit eigenvectors as the columns of `vectors` (row-major n x n).
 */
void SymmetricEigen(std::vector<double> a, int n, std::vector<double>& values, std::vector<double>& vectors);

}  // namespace svc::speakers
