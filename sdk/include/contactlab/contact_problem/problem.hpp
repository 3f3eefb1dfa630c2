// The frictional contact problem of one time step in its local form (Acary & Brogliato 2008,
// §13; Siconos Numerics' FrictionContactProblem, dimension 3): for n contacts, find reactions r and
// local velocities u with
//     u = W·r + q,
//     and at each contact k Coulomb's law with the De Saxcé complementarity
//     K_k ∋ r_k ⊥ (u_k + μ_k·‖u_k,T‖·e_N) ∈ K_k*,   K_k = { r : ‖r_T‖ ≤ μ_k·r_N },
// where the three components of a contact are (N, T1, T2): the normal first, then two tangents.
// W is the Delassus operator J·M⁻¹·Jᵀ (symmetric positive semidefinite, 3×3 blocks, sparse for
// piles: block (k, l) is nonzero only when contacts k and l share a moving body), q the local free
// velocity (plus the gap terms a time-stepping scheme adds). It is a value: solvers take it without
// a scene, and it is read and written in Siconos' text format (siconos_io.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace contactlab::contact_problem {

/// A square matrix of 3×3 blocks in block-CSR form: block row i holds the blocks
/// blocks[row_offsets[i] .. row_offsets[i+1]), at block columns columns[...] (ascending within a
/// row, no duplicates). Both triangles of a symmetric matrix are stored (a Gauss–Seidel sweep reads
/// whole block rows). Each block is row-major.
struct BlockSparseMatrix {
  using Block = std::array<double, 9>;
  std::size_t block_rows = 0;
  std::vector<std::uint32_t> row_offsets{0};  ///< block_rows + 1 entries
  std::vector<std::uint32_t> columns;         ///< one per stored block
  std::vector<Block> blocks;                  ///< one per stored block

  std::size_t size() const { return 3 * block_rows; }  ///< scalar rows (= columns)
  std::size_t stored_blocks() const { return blocks.size(); }
  /// y = A·x (both of size()).
  void multiply(std::span<const double> x, std::span<double> y) const;
  /// The block at (row, column), or null when it is not stored (zero).
  const Block* find(std::size_t row, std::size_t column) const;
  /// The diagonal block of row `row` (null when not stored).
  const Block* diagonal(std::size_t row) const { return find(row, row); }
  /// Empties the matrix and sizes it for `rows` block rows (append with push_block/end_row).
  void reset(std::size_t rows);
  /// Appends a block to the row being built (block rows are built in order, columns ascending).
  void push_block(std::uint32_t column, const Block& block);
  /// Ends the row being built.
  void end_row();
};

/// The local problem of one step (see the file comment). q has 3 entries per contact, μ one.
struct FrictionContactProblem {
  BlockSparseMatrix W;
  std::vector<double> q;
  std::vector<double> mu;
  std::size_t contact_count() const { return mu.size(); }
  /// Throws std::invalid_argument when the sizes disagree (W 3n × 3n, q 3n) or a μ is negative or
  /// not finite, naming what is wrong.
  void check() const;
};

/// ‖r − P_K(r − ũ)‖² of one contact (ũ = u + μ‖u_T‖e_N, K the cone ‖r_T‖ ≤ μ r_N): the square
/// of its part of siconos_error's numerator; zero exactly when r and u satisfy Coulomb's law.
double contact_residual_squared(double mu, const double* r, const double* u);

/// u = W·r + q.
void local_velocities(const FrictionContactProblem& problem, std::span<const double> r,
                      std::span<double> u);

/// Siconos' error measure of a solution (fc3d_compute_error): the norm over contacts of the
/// natural-map residual r_k − P_K(r_k − (u_k + μ_k‖u_k,T‖e_N)), divided by ‖q‖ when ‖q‖ is not
/// negligible. Zero exactly at a solution; comparable with what Siconos' solvers report.
double siconos_error(const FrictionContactProblem& problem, std::span<const double> r,
                     std::span<const double> u);

}  // namespace contactlab::contact_problem
