// The structure of a sparse Jacobian and its column colouring, for Jacobians by coloured finite
// differences (Curtis–Powell–Reid): columns that share no row can be perturbed together, so one
// f evaluation per colour gives the whole Jacobian. Plain C++ (no SUNDIALS): testable alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <contactlab/integrator.hpp>

namespace contactlab::plugins {

/// The structurally nonzero entries of an n×n matrix in compressed sparse column form: the rows of
/// column j are row_index[column_start[j] .. column_start[j + 1]), ascending.
struct SparsityPattern {
  std::size_t n = 0;
  std::vector<std::int64_t> column_start;  ///< n + 1 entries
  std::vector<std::int64_t> row_index;     ///< column_start[n] entries

  std::size_t nonzeros() const { return row_index.size(); }
};

/// The pattern of ∂f/∂y that `coupling` allows for n states: entry (i, j) when the block of state j
/// is the block of state i or one of its dependencies. The diagonal is always included. Throws
/// std::invalid_argument naming what is wrong when the coupling does not describe n states
/// (block_of_state of another size, a block or a dependency out of range, offsets not ascending).
SparsityPattern pattern_from_coupling(const StateCoupling& coupling, std::size_t n);

/// Greedy distance-2 colouring of the columns of `pattern` in column order: colour[j] is the
/// smallest colour not taken by an earlier column that shares a row with column j, so columns of
/// one colour have no row in common. Returns the number of colours (0 for n = 0).
std::size_t colour_columns(const SparsityPattern& pattern, std::vector<std::int32_t>& colour);

}  // namespace contactlab::plugins
