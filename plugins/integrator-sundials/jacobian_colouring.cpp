#include "jacobian_colouring.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace contactlab::plugins {

SparsityPattern pattern_from_coupling(const StateCoupling& coupling, std::size_t n) {
  if (coupling.block_of_state.size() != n)
    throw std::invalid_argument("state coupling: block_of_state has " +
                                std::to_string(coupling.block_of_state.size()) + " entries for " +
                                std::to_string(n) + " states");
  const std::size_t blocks = coupling.block_count();
  const auto& offsets = coupling.dependency_offsets;
  if (blocks == 0 && n > 0)
    throw std::invalid_argument("state coupling: no blocks (dependency_offsets is empty)");
  if (!offsets.empty() && (offsets.front() != 0 || offsets.back() != coupling.dependencies.size() ||
                           !std::is_sorted(offsets.begin(), offsets.end())))
    throw std::invalid_argument(
        "state coupling: dependency_offsets must ascend from 0 to the number of dependencies");
  for (std::size_t i = 0; i < n; ++i)
    if (coupling.block_of_state[i] >= blocks)
      throw std::invalid_argument("state coupling: state " + std::to_string(i) + " is in block " +
                                  std::to_string(coupling.block_of_state[i]) + " of " +
                                  std::to_string(blocks));
  for (std::uint32_t d : coupling.dependencies)
    if (d >= blocks)
      throw std::invalid_argument("state coupling: dependency on block " + std::to_string(d) +
                                  " of " + std::to_string(blocks));

  // The states of each block, ascending (counting sort).
  std::vector<std::size_t> block_start(blocks + 1, 0), block_states(n);
  for (std::uint32_t b : coupling.block_of_state) ++block_start[b + 1];
  for (std::size_t b = 0; b < blocks; ++b) block_start[b + 1] += block_start[b];
  {
    std::vector<std::size_t> next(block_start.begin(), block_start.end() - 1);
    for (std::size_t i = 0; i < n; ++i) block_states[next[coupling.block_of_state[i]]++] = i;
  }
  // Column j (block B) has the rows of every block R that depends on B (R = B included): the
  // transpose of the dependency relation, without duplicates.
  std::vector<std::vector<std::uint32_t>> dependents(blocks);
  for (std::size_t r = 0; r < blocks; ++r) {
    dependents[r].push_back(static_cast<std::uint32_t>(r));
    for (std::uint32_t k = offsets[r]; k < offsets[r + 1]; ++k)
      dependents[coupling.dependencies[k]].push_back(static_cast<std::uint32_t>(r));
  }
  std::vector<std::vector<std::int64_t>> block_rows(blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    std::sort(dependents[b].begin(), dependents[b].end());
    dependents[b].erase(std::unique(dependents[b].begin(), dependents[b].end()),
                        dependents[b].end());
    for (std::uint32_t r : dependents[b])
      for (std::size_t k = block_start[r]; k < block_start[r + 1]; ++k)
        block_rows[b].push_back(static_cast<std::int64_t>(block_states[k]));
    std::sort(block_rows[b].begin(), block_rows[b].end());
  }
  SparsityPattern pattern;
  pattern.n = n;
  pattern.column_start.assign(n + 1, 0);
  std::size_t total = 0;
  for (std::size_t j = 0; j < n; ++j) total += block_rows[coupling.block_of_state[j]].size();
  pattern.row_index.reserve(total);
  for (std::size_t j = 0; j < n; ++j) {
    const auto& rows = block_rows[coupling.block_of_state[j]];
    pattern.row_index.insert(pattern.row_index.end(), rows.begin(), rows.end());
    pattern.column_start[j + 1] = static_cast<std::int64_t>(pattern.row_index.size());
  }
  return pattern;
}

std::size_t colour_columns(const SparsityPattern& pattern, std::vector<std::int32_t>& colour) {
  const std::size_t n = pattern.n;
  colour.assign(n, -1);
  // The row-wise view (the columns of each row), to find the columns that share a row.
  std::vector<std::size_t> row_start(n + 1, 0), row_columns(pattern.nonzeros());
  for (std::int64_t i : pattern.row_index) ++row_start[static_cast<std::size_t>(i) + 1];
  for (std::size_t i = 0; i < n; ++i) row_start[i + 1] += row_start[i];
  {
    std::vector<std::size_t> next(row_start.begin(), row_start.end() - 1);
    for (std::size_t j = 0; j < n; ++j)
      for (auto p = pattern.column_start[j]; p < pattern.column_start[j + 1]; ++p)
        row_columns[next[static_cast<std::size_t>(pattern.row_index[p])]++] = j;
  }
  // forbidden[c] == j: colour c is taken by a column that shares a row with column j.
  std::vector<std::size_t> forbidden;
  std::size_t colours = 0;
  for (std::size_t j = 0; j < n; ++j) {
    for (auto p = pattern.column_start[j]; p < pattern.column_start[j + 1]; ++p) {
      const auto i = static_cast<std::size_t>(pattern.row_index[p]);
      for (std::size_t k = row_start[i]; k < row_start[i + 1]; ++k)
        if (colour[row_columns[k]] >= 0)
          forbidden[static_cast<std::size_t>(colour[row_columns[k]])] = j;
    }
    std::size_t c = 0;
    while (c < colours && forbidden[c] == j) ++c;
    if (c == colours) {
      ++colours;
      forbidden.push_back(n);  // n: no column
    }
    colour[j] = static_cast<std::int32_t>(c);
  }
  return colours;
}

}  // namespace contactlab::plugins
