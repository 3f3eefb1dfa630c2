// Solvers of the local frictional contact problem by name (solvers.hpp).
#include "contactlab/contact_problem/solvers.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "contactlab/contact_problem/pgs_rule.hpp"

namespace contactlab::contact_problem {

/// newton.cpp: newton_ac (fischer = false) and newton_fb.
SolverReport solve_newton(const FrictionContactProblem& problem, bool fischer, std::span<double> r,
                          std::span<double> u, const SolverOptions& options);

namespace {

using Clock = std::chrono::steady_clock;

/// Nonsmooth Gauss–Seidel: sweeps over the contacts in order, each updated by pgs_rule.hpp with
/// its block row's current local velocity (Jean & Moreau 1992; Siconos' NSGS with a projection
/// local solver). The error is Siconos' (siconos_error), checked after every sweep.
SolverReport solve_nsgs(const FrictionContactProblem& problem, std::span<double> r,
                        std::span<double> u, const SolverOptions& options) {
  SolverReport report;
  const BlockSparseMatrix& W = problem.W;
  const std::size_t n = problem.contact_count();
  std::vector<const BlockSparseMatrix::Block*> diagonal(n);
  for (std::size_t k = 0; k < n; ++k) diagonal[k] = W.diagonal(k);
  for (int sweep = 0; sweep < options.max_iterations; ++sweep) {
    for (std::size_t k = 0; k < n; ++k) {
      double uk[3] = {problem.q[3 * k], problem.q[3 * k + 1], problem.q[3 * k + 2]};
      for (std::uint32_t b = W.row_offsets[k]; b < W.row_offsets[k + 1]; ++b) {
        const BlockSparseMatrix::Block& block = W.blocks[b];
        const double* rj = r.data() + 3 * std::size_t{W.columns[b]};
        uk[0] += block[0] * rj[0] + block[1] * rj[1] + block[2] * rj[2];
        uk[1] += block[3] * rj[0] + block[4] * rj[1] + block[5] * rj[2];
        uk[2] += block[6] * rj[0] + block[7] * rj[1] + block[8] * rj[2];
      }
      if (!diagonal[k]) continue;  // a contact nothing can move: its r stays
      double dr[3];
      pgs_contact_update(*diagonal[k], problem.mu[k], uk, r.data() + 3 * k, dr);
    }
    report.iterations = sweep + 1;
    local_velocities(problem, r, u);
    report.error = siconos_error(problem, r, u);
    if (report.error <= options.tolerance) {
      report.converged = true;
      break;
    }
  }
  if (options.max_iterations <= 0) {
    local_velocities(problem, r, u);
    report.error = siconos_error(problem, r, u);
    report.converged = report.error <= options.tolerance;
  }
  return report;
}

}  // namespace

std::vector<std::string> solver_names() {
  return {"nsgs", "newton_ac", "newton_fb"};
}

SolverReport solve(const FrictionContactProblem& problem, std::string_view method,
                   std::span<double> r, std::span<double> u, const SolverOptions& options) {
  const std::size_t size = 3 * problem.contact_count();
  if (r.size() != size || u.size() != size)
    throw std::invalid_argument("contact problem solve: r and u need " + std::to_string(size) +
                                " entries (3 per contact)");
  const auto start = Clock::now();
  SolverReport report;
  if (method == "nsgs") {
    report = solve_nsgs(problem, r, u, options);
  } else if (method == "newton_ac" || method == "newton_fb") {
    report = solve_newton(problem, method == "newton_fb", r, u, options);
  } else {
    std::string known;
    for (const std::string& name : solver_names()) known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("unknown contact problem solver '" + std::string(method) +
                                "' (known: " + known + ")");
  }
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

}  // namespace contactlab::contact_problem
