// Siconos' text format of frictional contact problems (see siconos_io.hpp).
#include "contactlab/contact_problem/siconos_io.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace contactlab::contact_problem {

namespace {

/// Whitespace-separated numbers with the item being read, for messages.
class Tokens {
 public:
  Tokens(std::istream& in, const std::string& label) : in_(in), label_(label) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(label_ + ": " + what);
  }
  double real(const std::string& item) {
    std::string token;
    if (!(in_ >> token)) fail("the file ends before " + item);
    try {
      std::size_t used = 0;
      const double value = std::stod(token, &used);
      if (used != token.size()) throw std::invalid_argument(token);
      return value;
    } catch (const std::exception&) {
      fail(item + " is not a number: '" + token + "'");
    }
  }
  long integer(const std::string& item) {
    const double value = real(item);
    if (value != std::floor(value) || std::abs(value) > 1e12) fail(item + " is not an integer");
    return static_cast<long>(value);
  }

 private:
  std::istream& in_;
  const std::string& label_;
};

}  // namespace

FrictionContactProblem read_siconos(std::istream& in, const std::string& label) {
  Tokens tokens(in, label);
  const long d = tokens.integer("the dimension");
  if (d != 3)
    tokens.fail("the dimension is " + std::to_string(d) +
                "; only 3-D frictional contact problems are read");
  const long n = tokens.integer("the number of contacts");
  if (n < 0) tokens.fail("the number of contacts is negative");
  const long storage = tokens.integer("the matrix storage type");
  const long size0 = tokens.integer("the matrix row count");
  const long size1 = tokens.integer("the matrix column count");
  if (size0 != 3 * n || size1 != 3 * n)
    tokens.fail("W is " + std::to_string(size0) + " x " + std::to_string(size1) + " for " +
                std::to_string(n) + " contacts (expected " + std::to_string(3 * n) + " x " +
                std::to_string(3 * n) + ")");
  FrictionContactProblem problem;
  const auto contacts = static_cast<std::size_t>(n);
  problem.W.reset(contacts);
  if (storage == 0) {
    if (tokens.integer("the dense row count") != size0 ||
        tokens.integer("the dense column count") != size1)
      tokens.fail("the dense matrix repeats other sizes");
    std::vector<double> dense(static_cast<std::size_t>(size0 * size1));
    for (std::size_t i = 0; i < dense.size(); ++i) dense[i] = tokens.real("W's dense values");
    // Column-major; keep the 3×3 blocks that are not all zero.
    const auto rows = static_cast<std::size_t>(size0);
    for (std::size_t bi = 0; bi < contacts; ++bi) {
      for (std::size_t bj = 0; bj < contacts; ++bj) {
        BlockSparseMatrix::Block block{};
        bool nonzero = false;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) {
            const double value = dense[(3 * bj + b) * rows + 3 * bi + a];
            block[3 * a + b] = value;
            nonzero = nonzero || value != 0.0;
          }
        if (nonzero || bi == bj) problem.W.push_block(static_cast<std::uint32_t>(bj), block);
      }
      problem.W.end_row();
    }
  } else if (storage == 1) {
    const long blocks = tokens.integer("the block count");
    const long block_rows = tokens.integer("the block-row count");
    const long block_columns = tokens.integer("the block-column count");
    if (block_rows != n || block_columns != n)
      tokens.fail("W has " + std::to_string(block_rows) + " x " + std::to_string(block_columns) +
                  " blocks for " + std::to_string(n) + " contacts (3 x 3 blocks expected)");
    for (int side = 0; side < 2; ++side)
      for (long i = 0; i < n; ++i)
        if (tokens.integer("the cumulative block sizes") != 3 * (i + 1))
          tokens.fail("W's blocks are not all 3 x 3");
    const long offsets_count = tokens.integer("the row-offset count");
    const long stored = tokens.integer("the stored block count");
    if (offsets_count != n + 1 || stored != blocks)
      tokens.fail("the sparse-block index sizes disagree with the block counts");
    std::vector<long> offsets(static_cast<std::size_t>(n + 1));
    for (long& offset : offsets) offset = tokens.integer("the block-row offsets");
    std::vector<long> columns(static_cast<std::size_t>(blocks));
    for (long& column : columns) column = tokens.integer("the block columns");
    if (offsets.front() != 0 || offsets.back() != blocks)
      tokens.fail("the block-row offsets do not span the stored blocks");
    for (long row = 0; row < n; ++row) {
      const long begin = offsets[static_cast<std::size_t>(row)];
      const long end = offsets[static_cast<std::size_t>(row + 1)];
      if (begin > end) tokens.fail("the block-row offsets decrease");
      for (long k = begin; k < end; ++k) {
        tokens.integer("a block's index");
        BlockSparseMatrix::Block block{};
        for (int b = 0; b < 3; ++b)  // column-major
          for (int a = 0; a < 3; ++a) block[3 * a + b] = tokens.real("a block's values");
        const long column = columns[static_cast<std::size_t>(k)];
        if (column < 0 || column >= n) tokens.fail("a block column lies outside W");
        problem.W.push_block(static_cast<std::uint32_t>(column), block);
      }
      problem.W.end_row();
    }
  } else {
    tokens.fail("W's storage type is " + std::to_string(storage) +
                "; only 0 (dense) and 1 (sparse block) are read");
  }
  problem.q.resize(3 * contacts);
  for (double& value : problem.q) value = tokens.real("q");
  problem.mu.resize(contacts);
  for (double& value : problem.mu) value = tokens.real("mu");
  try {
    problem.check();
  } catch (const std::invalid_argument& error) {
    tokens.fail(error.what());
  }
  return problem;
}

FrictionContactProblem read_siconos_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot be opened");
  return read_siconos(in, path);
}

void write_siconos(const FrictionContactProblem& problem, std::ostream& out) {
  const std::size_t n = problem.contact_count();
  char buffer[64];
  auto number = [&](double value) {
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
    return std::string(buffer);
  };
  out << "3\n" << n << "\n1\n" << 3 * n << "\n" << 3 * n << "\n";
  out << problem.W.stored_blocks() << "\n" << n << "\n" << n << "\n";
  for (int side = 0; side < 2; ++side) {
    for (std::size_t i = 0; i < n; ++i) out << 3 * (i + 1) << "\t";
    out << "\n";
  }
  out << n + 1 << "\n" << problem.W.stored_blocks() << "\n";
  for (std::size_t i = 0; i <= n; ++i) out << problem.W.row_offsets[i] << "\t";
  out << "\n";
  for (const std::uint32_t column : problem.W.columns) out << column << "\t";
  out << "\n";
  for (std::size_t k = 0; k < problem.W.blocks.size(); ++k) {
    out << k << "\n";
    const BlockSparseMatrix::Block& block = problem.W.blocks[k];
    for (int b = 0; b < 3; ++b)
      for (int a = 0; a < 3; ++a) out << number(block[3 * a + b]) << "\n";
  }
  for (const double value : problem.q) out << number(value) << " ";
  out << "\n";
  for (const double value : problem.mu) out << number(value) << " ";
  out << "\n";
}

void write_siconos_file(const FrictionContactProblem& problem, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path + ": cannot be written");
  write_siconos(problem, out);
  if (!out) throw std::runtime_error(path + ": writing failed");
}

}  // namespace contactlab::contact_problem
