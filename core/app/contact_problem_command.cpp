// `contactlab contact-problem solve` (see contact_problem_command.hpp).
#include "contactlab/core/contact_problem_command.hpp"

#include <fstream>
#include <iostream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "contactlab/contact_problem/siconos_io.hpp"
#include "contactlab/contact_problem/solvers.hpp"

namespace contactlab::core {

int solve_contact_problem(const ContactProblemSolveOptions& options) {
  using namespace contactlab::contact_problem;
  const FrictionContactProblem problem = read_siconos_file(options.file);
  const std::size_t size = 3 * problem.contact_count();
  std::vector<double> r(size, 0.0), u(size, 0.0);
  SolverOptions solver;
  solver.tolerance = options.tolerance;
  solver.max_iterations = options.max_iterations;
  const SolverReport report = solve(problem, options.method, r, u, solver);
  std::cout << options.file << ": " << problem.contact_count() << " contacts, "
            << problem.W.stored_blocks() << " blocks; " << options.method << " "
            << (report.converged ? "converged" : "stopped at its iteration limit") << " after "
            << report.iterations << " iterations in " << report.seconds << " s, Siconos error "
            << report.error << " (tolerance " << options.tolerance << ")\n";
  if (!options.json.empty()) {
    const nlohmann::json out = {{"file", options.file},
                                {"contacts", problem.contact_count()},
                                {"blocks", problem.W.stored_blocks()},
                                {"method", options.method},
                                {"tolerance", options.tolerance},
                                {"max_iterations", options.max_iterations},
                                {"converged", report.converged},
                                {"iterations", report.iterations},
                                {"error", report.error},
                                {"seconds", report.seconds}};
    std::ofstream file(options.json);
    if (!file) throw std::runtime_error(options.json + ": cannot be written");
    file << out.dump(2) << '\n';
  }
  return report.converged ? 0 : 1;
}

}  // namespace contactlab::core
