// The text format of Siconos Numerics' 3-D frictional contact problems
// (frictionContact_printInFile / frictionContact_newFromFile, Siconos 4.x):
//   d  (the dimension: 3)
//   n  (contacts)
//   W as a NumericsMatrix (NM_write_in_file): its storage type, then size0 and size1, then
//     0 (dense):        "size0 size1", then the size0·size1 values column by column;
//     1 (sparse block): the block count, the block-row and block-column counts, the cumulative
//                       row and column sizes, the row-offset count (rows + 1) and the block count
//                       again, the row offsets, the block columns, then per block its index and
//                       its values column by column;
//   q (3n values), μ (n values).
// Numbers are whitespace-separated; what follows μ (some of Siconos' test files append solver
// options) is ignored. The writer writes the sparse-block form with the values to 17 significant
// digits, so a round trip is exact.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "contactlab/contact_problem/problem.hpp"

namespace contactlab::contact_problem {

/// Reads one problem. Throws std::runtime_error naming `label`, the item being read and what is
/// wrong (a dimension other than 3, a storage type other than 0 or 1, blocks not 3×3, a truncated
/// file, sizes that disagree).
FrictionContactProblem read_siconos(std::istream& in, const std::string& label);
FrictionContactProblem read_siconos_file(const std::string& path);

void write_siconos(const FrictionContactProblem& problem, std::ostream& out);
/// Throws std::runtime_error when the file cannot be written.
void write_siconos_file(const FrictionContactProblem& problem, const std::string& path);

}  // namespace contactlab::contact_problem
