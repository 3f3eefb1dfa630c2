// SiLVIA's complementarity on distances with friction (see ncp_newton.hpp).
#include "ncp_newton.hpp"

#include <algorithm>

#include <contactlab/contact_problem/solvers.hpp>

namespace contactlab::plugins {

namespace {

TimeSteppingSettings ncp_defaults() {
  TimeSteppingSettings defaults;
  defaults.tolerance = 1e-8;
  defaults.max_iterations = 50;
  // SiLVIA's condition is δ⁺ ≥ 0: no slop, penetration corrected in the step itself.
  defaults.contact.penetration_slop_m = 0.0;
  return defaults;
}

}  // namespace

NcpNewton::NcpNewton(const ParameterValues& params)
    : TimeSteppingIntegrator(time_stepping_settings(params)),
      solver_(params.text("solver")),
      nonlinear_(params.text("distance") == "nonlinear") {
  settings_.contact.correct_in_velocity = true;
}

ParameterSchema NcpNewton::schema() {
  ParameterSchema schema = time_stepping_schema(ncp_defaults());
  schema.push_back(choice_parameter(
      "solver", "newton_fb", {"newton_fb", "newton_ac"},
      "newton_fb: Fischer-Burmeister on the normal pair (SiLVIA), Alart-Curnier's projection for "
      "friction; newton_ac: Alart-Curnier for both"));
  schema.push_back(choice_parameter(
      "distance", "linearized", {"linearized", "nonlinear"},
      "linearized: delta(q+) = delta + h u_N; nonlinear: delta(q+) from the contact pipeline at "
      "every Newton iterate (SiLVIA's delta(sigma(f)))"));
  return schema;
}

StepSolution NcpNewton::solve(OdeView& ode, MechanicsView& mechanics, ContactStep& step,
                              double step_s, std::span<double> r, std::span<double> v) {
  const std::size_t n = step.size();
  const contact_problem::FrictionContactProblem& problem = local_problem();
  u_.assign(3 * n, 0.0);
  contact_problem::SolverOptions options;
  options.tolerance = settings_.tolerance;
  options.max_iterations = settings_.max_iterations;
  if (nonlinear_) {
    // u_N of the local problem as δ(q⁺(r))/h (+ slop/h), the impact points' velocity bound as is.
    options.nonlinear_normal = [&](std::span<const double> r_in, std::span<double> u_normal) {
      v_trial_.assign(step.v_free().begin(), step.v_free().end());
      for (std::size_t k = 0; k < n; ++k) step.apply_impulse(k, &r_in[3 * k], v_trial_);
      distances_after(ode, mechanics, v_trial_, step_s, distances_);
      const double slop = settings_.contact.penetration_slop_m;
      for (std::size_t k = 0; k < n; ++k) {
        const LocalContact& c = step.contact(k);
        if (c.impact) {
          double u[3];
          step.local_velocity(k, v_trial_, u);
          u_normal[k] = u[0] - c.bias_N;
        } else {
          u_normal[k] = (distances_[k] + slop) / step_s;
        }
      }
    };
  }
  StepSolution solution;
  const contact_problem::SolverReport report =
      contact_problem::solve(problem, solver_, r, u_, options);
  solution.report.iterations = report.iterations;
  solution.report.residual = report.error;
  solution.report.converged = report.converged;
  for (std::size_t k = 0; k < n; ++k) step.apply_impulse(k, &r[3 * k], v);
  return solution;
}

}  // namespace contactlab::plugins
