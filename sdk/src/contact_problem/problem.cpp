// The local frictional contact problem as a value (problem.hpp): block-sparse storage, checks,
// u = W·r + q and Siconos' error measure.
#include "contactlab/contact_problem/problem.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace contactlab::contact_problem {

void BlockSparseMatrix::multiply(std::span<const double> x, std::span<double> y) const {
  for (std::size_t i = 0; i < block_rows; ++i) {
    double y0 = 0.0, y1 = 0.0, y2 = 0.0;
    for (std::uint32_t k = row_offsets[i]; k < row_offsets[i + 1]; ++k) {
      const Block& b = blocks[k];
      const double* xj = x.data() + 3 * std::size_t{columns[k]};
      y0 += b[0] * xj[0] + b[1] * xj[1] + b[2] * xj[2];
      y1 += b[3] * xj[0] + b[4] * xj[1] + b[5] * xj[2];
      y2 += b[6] * xj[0] + b[7] * xj[1] + b[8] * xj[2];
    }
    y[3 * i] = y0;
    y[3 * i + 1] = y1;
    y[3 * i + 2] = y2;
  }
}

const BlockSparseMatrix::Block* BlockSparseMatrix::find(std::size_t row, std::size_t column) const {
  if (row >= block_rows) return nullptr;
  for (std::uint32_t k = row_offsets[row]; k < row_offsets[row + 1]; ++k)
    if (columns[k] == column) return &blocks[k];
  return nullptr;
}

void BlockSparseMatrix::reset(std::size_t rows) {
  block_rows = rows;
  row_offsets.assign(1, 0u);
  row_offsets.reserve(rows + 1);
  columns.clear();
  blocks.clear();
}

void BlockSparseMatrix::push_block(std::uint32_t column, const Block& block) {
  columns.push_back(column);
  blocks.push_back(block);
}

void BlockSparseMatrix::end_row() {
  row_offsets.push_back(static_cast<std::uint32_t>(columns.size()));
}

void FrictionContactProblem::check() const {
  const std::size_t n = mu.size();
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("frictional contact problem: " + what);
  };
  if (W.block_rows != n)
    fail("W has " + std::to_string(W.block_rows) + " block rows for " + std::to_string(n) +
         " contacts");
  if (W.row_offsets.size() != n + 1 || W.row_offsets.back() != W.columns.size() ||
      W.columns.size() != W.blocks.size())
    fail("W's block-CSR arrays disagree in size");
  for (std::size_t i = 0; i < n; ++i)
    for (std::uint32_t k = W.row_offsets[i]; k < W.row_offsets[i + 1]; ++k) {
      if (W.columns[k] >= n)
        fail("W block (" + std::to_string(i) + ", " + std::to_string(W.columns[k]) +
             ") lies outside " + std::to_string(n) + " block columns");
      if (k > W.row_offsets[i] && W.columns[k] <= W.columns[k - 1])
        fail("W's block row " + std::to_string(i) + " is not in ascending column order");
      for (double value : W.blocks[k])
        if (!std::isfinite(value)) fail("W block row " + std::to_string(i) + " is not finite");
    }
  if (q.size() != 3 * n)
    fail("q has " + std::to_string(q.size()) + " entries for " + std::to_string(n) +
         " contacts (3 each)");
  for (double value : q)
    if (!std::isfinite(value)) fail("q is not finite");
  for (std::size_t i = 0; i < n; ++i)
    if (!(std::isfinite(mu[i]) && mu[i] >= 0.0))
      fail("mu of contact " + std::to_string(i) + " is " + std::to_string(mu[i]) +
           " (must be finite and >= 0)");
}

void local_velocities(const FrictionContactProblem& problem, std::span<const double> r,
                      std::span<double> u) {
  problem.W.multiply(r, u);
  for (std::size_t i = 0; i < problem.q.size(); ++i) u[i] += problem.q[i];
}

double contact_residual_squared(double mu, const double* r, const double* u) {
  // fc3d_compute_error (Siconos Numerics): with the De Saxcé-modified velocity
  // ũ = u + μ‖u_T‖e_N, the natural-map residual r − P_K(r − ũ).
  const double un = u[0] + mu * std::sqrt(u[1] * u[1] + u[2] * u[2]);
  double x[3] = {r[0] - un, r[1] - u[1], r[2] - u[2]};
  const double xt = std::sqrt(x[1] * x[1] + x[2] * x[2]);
  if (mu * xt <= -x[0]) {  // in the polar cone: projects onto the apex
    x[0] = x[1] = x[2] = 0.0;
  } else if (xt > mu * x[0]) {  // outside K: onto its boundary
    const double n = (x[0] + mu * xt) / (1.0 + mu * mu);
    const double scale = xt > 0.0 ? mu * n / xt : 0.0;
    x[0] = n;
    x[1] *= scale;
    x[2] *= scale;
  }
  double sum = 0.0;
  for (int i = 0; i < 3; ++i) sum += (r[i] - x[i]) * (r[i] - x[i]);
  return sum;
}

double siconos_error(const FrictionContactProblem& problem, std::span<const double> r,
                     std::span<const double> u) {
  double sum = 0.0;
  for (std::size_t k = 0; k < problem.contact_count(); ++k)
    sum += contact_residual_squared(problem.mu[k], r.data() + 3 * k, u.data() + 3 * k);
  double norm_q = 0.0;
  for (double value : problem.q) norm_q += value * value;
  norm_q = std::sqrt(norm_q);
  const double error = std::sqrt(sum);
  return norm_q > 1e-14 ? error / norm_q : error;
}

}  // namespace contactlab::contact_problem
