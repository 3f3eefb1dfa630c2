// Projected Gauss–Seidel time stepping (see pgs.hpp).
#include "pgs.hpp"

#include <algorithm>
#include <cmath>

#include <contactlab/contact_problem/pgs_rule.hpp>

namespace contactlab::plugins {

namespace {

TimeSteppingSettings pgs_defaults() {
  TimeSteppingSettings defaults;
  defaults.tolerance = 1e-6;
  defaults.max_iterations = 50;
  return defaults;
}

}  // namespace

Pgs::Pgs(const ParameterValues& params)
    : TimeSteppingIntegrator(time_stepping_settings(params)),
      position_correction_(params.real("position_correction")) {}

ParameterSchema Pgs::schema() {
  ParameterSchema schema = time_stepping_schema(pgs_defaults());
  schema.push_back(real_parameter(
      "position_correction", 0.8, 0.0, 1.0, "1",
      "beta of the split impulses: the share of the penetration beyond the slop removed per "
      "step, by pseudo-velocities that move the configuration only (0: no correction)."));
  return schema;
}

StepSolution Pgs::solve(OdeView& /*ode*/, MechanicsView& /*mechanics*/, ContactStep& step,
                        double step_s, std::span<double> r, std::span<double> v) {
  const std::size_t n = step.size();
  StepSolution solution;
  for (std::size_t k = 0; k < n; ++k)
    if (r[3 * k] != 0.0 || r[3 * k + 1] != 0.0 || r[3 * k + 2] != 0.0)
      step.apply_impulse(k, &r[3 * k], v);
  // ‖q‖ of the local problem (q = u_free − b), the scale of Siconos' error.
  double norm_q = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const LocalContact& c = step.contact(k);
    norm_q += (c.u_free[0] - c.bias_N) * (c.u_free[0] - c.bias_N) + c.u_free[1] * c.u_free[1] +
              c.u_free[2] * c.u_free[2];
  }
  norm_q = std::sqrt(norm_q);
  auto error = [&] {
    double sum = 0.0;
    double u[3];
    for (std::size_t k = 0; k < n; ++k) {
      const LocalContact& c = step.contact(k);
      step.local_velocity(k, v, u);
      u[0] -= c.bias_N;
      sum += contact_problem::contact_residual_squared(c.mu, &r[3 * k], u);
    }
    return norm_q > 1e-14 ? std::sqrt(sum) / norm_q : std::sqrt(sum);
  };
  ContactSolveReport& report = solution.report;
  report.converged = false;
  for (int sweep = 1; sweep <= settings_.max_iterations; ++sweep) {
    // Normals first, then friction with the sweep's normal impulses (Bullet's order): the
    // tangential rows do not fight the normal rows' redistribution of a load within one sweep.
    // Forward and backward sweeps alternate (symmetric Gauss–Seidel), so that a load travels
    // through a chain of contacts (a stack) in both directions at the same rate.
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t k = sweep % 2 ? i : n - 1 - i;
        const LocalContact& c = step.contact(k);
        double u[3], dr[3] = {0.0, 0.0, 0.0};
        double* rk = &r[3 * k];
        if (pass == 0) {
          u[0] = step.normal_velocity(k, v) - c.bias_N;
          contact_problem::pgs_normal_update(c.W, u, rk, dr);
          if (dr[0] != 0.0) step.apply_normal(k, dr[0], v);
        } else {
          // No friction to apply (the cone is a point) and none applied: nothing changes.
          if (rk[1] == 0.0 && rk[2] == 0.0 && !(c.mu * rk[0] > 0.0)) continue;
          step.tangential_velocity(k, v, u);
          contact_problem::pgs_tangential_update(c.W, c.mu, u, rk, dr);
          step.apply_tangential(k, dr[1], dr[2], v);
        }
      }
    report.iterations = sweep;
    if (sweep % 4 == 0 || sweep == settings_.max_iterations) {
      report.residual = error();
      if (report.residual <= settings_.tolerance) {
        report.converged = true;
        break;
      }
    }
  }

  // Split impulses on the points deeper than the slop.
  const double slop = settings_.contact.penetration_slop_m;
  bias_split_.assign(n, 0.0);
  bool deep = false;
  for (std::size_t k = 0; k < n; ++k) {
    const double depth = -step.contact(k).distance_m - slop;
    if (depth > 0.0 && position_correction_ > 0.0) {
      bias_split_[k] = position_correction_ * depth / step_s;
      deep = true;
    }
  }
  if (!deep) return solution;
  const double largest_bias = *std::max_element(bias_split_.begin(), bias_split_.end());
  v_split_.assign(v.size(), 0.0);
  r_split_.assign(n, 0.0);
  for (int sweep = 1; sweep <= settings_.max_iterations; ++sweep) {
    double largest_change = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      const LocalContact& c = step.contact(k);
      if (!(c.W[0] > 0.0)) continue;
      const double u_N = step.normal_velocity(k, v_split_);
      const double rn = std::max(0.0, r_split_[k] - (u_N - bias_split_[k]) / c.W[0]);
      const double dr_N = rn - r_split_[k];
      r_split_[k] = rn;
      if (dr_N != 0.0) step.apply_normal(k, dr_N, v_split_);
      largest_change = std::max(largest_change, std::abs(dr_N) * c.W[0]);
    }
    if (largest_change <= settings_.tolerance * largest_bias) break;
  }
  solution.position_velocity = v_split_;
  return solution;
}

}  // namespace contactlab::plugins
