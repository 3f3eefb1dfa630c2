// SiLVIA's bilateral Newton method with contact release (see bilateral_newton.hpp).
#include "bilateral_newton.hpp"

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>

namespace contactlab::plugins {

namespace {

TimeSteppingSettings bilateral_defaults() {
  TimeSteppingSettings defaults;
  defaults.tolerance = 1e-10;  // on the distances' residual |δ(q⁺)|, relative to the step's h·|u|
  defaults.max_iterations = 20;
  defaults.contact.friction = false;
  defaults.contact.penetration_slop_m = 0.0;
  return defaults;
}

}  // namespace

BilateralNewton::BilateralNewton(const ParameterValues& params)
    : TimeSteppingIntegrator(time_stepping_settings(params)),
      nonlinear_(params.text("distance") == "nonlinear") {
  settings_.contact.correct_in_velocity = true;
}

ParameterSchema BilateralNewton::schema() {
  ParameterSchema schema = time_stepping_schema(bilateral_defaults());
  schema.erase(std::remove_if(schema.begin(), schema.end(),
                              [](const ParameterSpec& spec) { return spec.name == "friction"; }),
               schema.end());
  schema.push_back(choice_parameter(
      "distance", "linearized", {"linearized", "nonlinear"},
      "linearized: delta(q+) = delta + h u_N, one linear solve; nonlinear: Newton on delta(q+) = 0 "
      "through the contact pipeline"));
  return schema;
}

StepSolution BilateralNewton::solve(OdeView& ode, MechanicsView& mechanics, ContactStep& step,
                                    double step_s, std::span<double> r, std::span<double> v) {
  const std::size_t n = step.size();
  const MechanicsContactSet& set = mechanics.contacts();
  // The active set: contacts the free motion takes below zero, or active last step with a
  // non-negative impulse (r holds last step's impulses as the warm start); released: negative.
  active_.assign(n, -1);
  members_.clear();
  for (std::size_t k = 0; k < n; ++k) {
    const LocalContact& c = step.contact(k);
    const bool was_active = set.points[k].previous >= 0 && r[3 * k] != 0.0;
    const bool released = was_active && r[3 * k] < 0.0;
    const bool closing = c.distance_m + step_s * c.u_free[0] <= 0.0;
    if (!released && (closing || was_active)) {
      active_[k] = static_cast<int>(members_.size());
      members_.push_back(k);
    }
  }
  std::fill(r.begin(), r.end(), 0.0);
  StepSolution solution;
  solution.report.converged = true;
  const std::size_t m = members_.size();
  if (m == 0) return solution;

  // W_NN on the active set (normal-normal entries of W's blocks), shifted by 1e-12 of its largest
  // diagonal entry.
  const contact_problem::FrictionContactProblem& problem = local_problem();
  std::vector<Eigen::Triplet<double>> triplets;
  double largest = 0.0;
  for (std::size_t a = 0; a < m; ++a) {
    const std::size_t k = members_[a];
    for (std::uint32_t b = problem.W.row_offsets[k]; b < problem.W.row_offsets[k + 1]; ++b) {
      const int column = active_[problem.W.columns[b]];
      if (column < 0) continue;
      const double value = problem.W.blocks[b][0];
      triplets.emplace_back(static_cast<int>(a), column, value);
      if (column == static_cast<int>(a)) largest = std::max(largest, value);
    }
  }
  for (std::size_t a = 0; a < m; ++a)
    triplets.emplace_back(static_cast<int>(a), static_cast<int>(a), 1e-12 * largest);
  Eigen::SparseMatrix<double> A(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(m));
  A.setFromTriplets(triplets.begin(), triplets.end());
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(A);
  if (ldlt.info() != Eigen::Success) {
    solution.report.converged = false;
    return solution;
  }
  // The residual F_a = w_N (the local problem's normal velocity minus its bound, δ⁺/h at the
  // bilateral contacts), linear in r_N or through the pipeline.
  Eigen::VectorXd rn = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(m));
  Eigen::VectorXd F(static_cast<Eigen::Index>(m));
  auto residual = [&] {
    v_trial_.assign(step.v_free().begin(), step.v_free().end());
    for (std::size_t a = 0; a < m; ++a)
      step.apply_normal(members_[a], rn[static_cast<Eigen::Index>(a)], v_trial_);
    if (nonlinear_) distances_after(ode, mechanics, v_trial_, step_s, distances_);
    double norm = 0.0, scale = 0.0;
    for (std::size_t a = 0; a < m; ++a) {
      const std::size_t k = members_[a];
      const LocalContact& c = step.contact(k);
      double u[3];
      step.local_velocity(k, v_trial_, u);
      const double w = nonlinear_ && !c.impact ? distances_[k] / step_s : u[0] - c.bias_N;
      F[static_cast<Eigen::Index>(a)] = w;
      norm = std::max(norm, std::abs(w));
      scale = std::max(scale, std::abs(c.u_free[0] - c.bias_N));
    }
    return scale > 0.0 ? norm / scale : norm;
  };
  double error = residual();
  int iterations = 0;
  while (error > settings_.tolerance && iterations < settings_.max_iterations) {
    rn -= ldlt.solve(F);
    ++iterations;
    error = residual();
  }
  solution.report.iterations = iterations;
  solution.report.residual = error;
  solution.report.converged = error <= settings_.tolerance;
  for (std::size_t a = 0; a < m; ++a) r[3 * members_[a]] = rn[static_cast<Eigen::Index>(a)];
  std::copy(v_trial_.begin(), v_trial_.end(), v.begin());
  return solution;
}

}  // namespace contactlab::plugins
