// `contactlab contact-problem solve FILE --method NAME`: one frictional contact problem in Siconos'
// format solved by one of the contact-problem library's solvers.
#pragma once

#include <string>

namespace contactlab::core {

struct ContactProblemSolveOptions {
  std::string file;
  std::string method = "nsgs";
  double tolerance = 1e-8;
  int max_iterations = 1000;
  std::string json;  ///< write the report here too (empty: no file)
};

/// Prints the residual in Siconos' error measure, iterations and time; returns 0 when the solver
/// converged, 1 when it stopped at its iteration limit. Throws std::runtime_error or
/// std::invalid_argument for an unreadable file or an unknown method (naming the known ones).
int solve_contact_problem(const ContactProblemSolveOptions& options);

}  // namespace contactlab::core
