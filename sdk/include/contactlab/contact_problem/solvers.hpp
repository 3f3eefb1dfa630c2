// Solvers of the local frictional contact problem (problem.hpp), chosen by name:
//   nsgs       nonsmooth (projected) Gauss–Seidel over contacts, each contact updated by the rule
//              of pgs_rule.hpp, from a warm start (the method of Bullet, ODE and Siconos' NSGS);
//   newton_ac  semismooth Newton on Alart and Curnier's function (Alart & Curnier 1991): the
//              normal and the friction disk both by projections of r − ρ·u;
//   newton_fb  semismooth Newton with the Fischer–Burmeister function on the normal
//              complementarity (SiLVIA's φ(f, δ)) and Alart–Curnier's projection for friction.
// The Newton solvers factorise a generalised Jacobian with W's block sparsity (Eigen's SparseLU)
// and damp the step by backtracking on ½‖Φ‖² (newton.cpp). Every solver starts from r as given (a
// warm start; zeros for a cold one), stops when the Siconos error (siconos_error) is at most the
// tolerance, and never allocates a dense matrix of the contact count's size.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "contactlab/contact_problem/problem.hpp"

namespace contactlab::contact_problem {

struct SolverOptions {
  double tolerance = 1e-8;    ///< on siconos_error
  int max_iterations = 1000;  ///< sweeps (nsgs) or Newton iterations
  /// Optional: the normal local velocities u_N as a nonlinear function of r (one per contact),
  /// replacing (W·r + q)_N in the residual, for a time-stepping scheme whose normal condition is
  /// on distances re-evaluated at the configuration r leads to (SiLVIA's δ(σ(f))). The Newton
  /// solvers keep W as the generalised Jacobian's normal rows; nsgs ignores it.
  std::function<void(std::span<const double> r, std::span<double> u_normal)> nonlinear_normal;
};

struct SolverReport {
  bool converged = false;
  int iterations = 0;
  double error = 0.0;    ///< siconos_error at return
  double seconds = 0.0;  ///< wall time of the solve
};

/// The solver names solve() accepts, in a fixed order.
std::vector<std::string> solver_names();

/// Solves `problem` with the solver `method` (see the file comment), from r (in: warm start, 3
/// per contact; out: the reactions), writing u = W·r + q. Throws std::invalid_argument for an
/// unknown method, naming the known ones.
SolverReport solve(const FrictionContactProblem& problem, std::string_view method,
                   std::span<double> r, std::span<double> u, const SolverOptions& options = {});

}  // namespace contactlab::contact_problem
