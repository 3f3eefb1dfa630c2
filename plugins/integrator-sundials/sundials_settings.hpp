// Settings and statistics shared by the SUNDIALS integrators (cvode, arkode). This header does not
// include SUNDIALS: the integrator classes and their tests see plain C++ types only.
#pragma once

#include <cstdint>
#include <string>

#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

enum class LinearSolverKind : std::int32_t {
  dense = 0,  ///< dense direct solver, Jacobian by difference quotients (n extra f per Jacobian)
  krylov = 1,  ///< matrix-free Newton–Krylov: SPGMR, J·v by difference quotients, no preconditioner
  /// sparse direct solver (KLU on a CSC matrix), Jacobian by coloured difference quotients over
  /// the OdeView's state coupling (one extra f per colour)
  sparse = 2,
};

/// The parameters every SUNDIALS integrator of this plugin declares.
struct SundialsSettings {
  double rtol = 1e-6;           ///< relative tolerance
  double atol = 1e-8;           ///< absolute tolerance (every component, in its own SI unit)
  double max_step_s = 0.0;      ///< largest step; 0: unlimited
  double initial_step_s = 0.0;  ///< first step; 0: the solver's estimate
  std::int64_t max_steps = 0;   ///< steps allowed between two output times
  LinearSolverKind linear_solver = LinearSolverKind::dense;  ///< for Newton iterations
  std::int64_t krylov_dimension = 5;  ///< SPGMR's maximum Krylov subspace dimension (maxl)
  /// krylov: left preconditioner KLU(I − γ·J), J by coloured difference quotients (else none)
  bool krylov_coloured_preconditioner = false;
};

/// What SUNDIALS counts in one integrate() call, summed over the re-initialisations at events.
/// IntegrationResult carries steps, rejected steps, f and g evaluations; the rest is only here.
struct SundialsStatistics {
  std::int64_t steps = 0;                     ///< accepted internal steps
  std::int64_t error_test_failures = 0;       ///< steps rejected by the local error test
  std::int64_t nonlinear_solve_failures = 0;  ///< steps rejected by the nonlinear solver
  std::int64_t integrator_rhs_evaluations =
      0;  ///< f calls by the method (CVODE nfe, ARKODE nfi/nfe)
  std::int64_t linear_solver_rhs_evaluations = 0;  ///< f calls for difference quotients (nfeLS)
  std::int64_t jacobian_evaluations = 0;           ///< Jacobians formed (nje)
  /// f calls spent forming Jacobians: CVODE's/ARKODE's own difference quotients for dense (n per
  /// Jacobian), one per colour for sparse and the krylov preconditioner (not J·v products)
  std::int64_t jacobian_rhs_evaluations = 0;
  std::int64_t jacobian_colours = 0;   ///< the most colours a sparse Jacobian's structure had
  std::int64_t jacobian_nonzeros = 0;  ///< the most nonzeros a sparse Jacobian's structure had
  std::int64_t jacobian_structure_builds = 0;  ///< structures (colourings) built (sparse)
  std::int64_t jacobian_vector_products = 0;   ///< Krylov J·v products (njtimes)
  std::int64_t nonlinear_iterations = 0;       ///< Newton or fixed-point iterations (nni)
  std::int64_t linear_iterations = 0;          ///< Krylov iterations (nli)
  std::int64_t root_function_evaluations = 0;  ///< g calls (nge)
  std::int64_t reinitializations = 0;          ///< re-initialisations after located events
};

/// `rtol`, `atol`, `max_step_s`, `initial_step_s`, `max_steps` (the parameters of every SUNDIALS
/// integrator here) and, with `implicit_solvers`, `linear_solver` and `krylov_dimension`.
ParameterSchema sundials_common_schema(bool implicit_solvers);
/// Reads the parameters sundials_common_schema() declared.
SundialsSettings sundials_common_settings(const ParameterValues& params, bool implicit_solvers);

}  // namespace contactlab::plugins
