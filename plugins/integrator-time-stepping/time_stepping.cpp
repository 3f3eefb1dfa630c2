// The time-stepping integrators' shared parameters and step loop (see time_stepping.hpp).
#include "time_stepping.hpp"

#include <algorithm>
#include <limits>

#include <contactlab/mechanics.hpp>

namespace contactlab::plugins {

ParameterSchema time_stepping_schema(const TimeSteppingSettings& defaults) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec step = real_parameter("step_s", defaults.step_s, 0.0, inf, "s",
                                      "Step size h; shortened to land on output times.");
  step.minimum_exclusive = true;
  step.maximum_exclusive = true;
  ParameterSpec threshold = real_parameter(
      "restitution_threshold_m_per_s", defaults.contact.restitution_threshold_m_per_s, 0.0, inf,
      "m/s",
      "Impacts approaching slower than this do not bounce (e is taken as 0): contacts "
      "come to rest.");
  threshold.maximum_exclusive = true;
  ParameterSpec stick = real_parameter(
      "stick_velocity_m_per_s", defaults.contact.stick_velocity_m_per_s, 0.0, inf, "m/s",
      "A point slipping slower than this at the step's start sticks with the static "
      "coefficient mu_s; faster, it slides with mu_k.");
  stick.maximum_exclusive = true;
  ParameterSpec slop = real_parameter(
      "penetration_slop_m", defaults.contact.penetration_slop_m, 0.0, inf, "m",
      "Penetration left uncorrected at rest (resting contacts keep their whole patch); a step "
      "closes at most half the restitution threshold times the step of it, so that settling "
      "into it is never an impact.");
  slop.maximum_exclusive = true;
  ParameterSpec tolerance = real_parameter("tolerance", defaults.tolerance, 0.0, inf, "1",
                                           "Stop when the solver's error measure is at most this.");
  tolerance.maximum_exclusive = true;
  return {step,
          boolean_parameter("friction", defaults.contact.friction,
                            "Coulomb friction with the pair materials' mu_s and mu_k; false: "
                            "frictionless contact."),
          threshold,
          stick,
          boolean_parameter("warm_start", defaults.warm_start,
                            "Start each step's solve from the impulses the same contact points "
                            "carried in the previous step."),
          slop,
          tolerance,
          integer_parameter("max_iterations", defaults.max_iterations, 1, 1000000,
                            "Iteration limit of one step's solve.")};
}

TimeSteppingSettings time_stepping_settings(const ParameterValues& params) {
  TimeSteppingSettings settings;
  settings.step_s = params.real("step_s");
  // bilateral_newton has no friction parameter (normal impulses only).
  settings.contact.friction = params.contains("friction") && params.boolean("friction");
  settings.contact.restitution_threshold_m_per_s = params.real("restitution_threshold_m_per_s");
  settings.contact.stick_velocity_m_per_s = params.real("stick_velocity_m_per_s");
  settings.contact.penetration_slop_m = params.real("penetration_slop_m");
  settings.warm_start = params.boolean("warm_start");
  settings.tolerance = params.real("tolerance");
  settings.max_iterations = static_cast<int>(params.integer("max_iterations"));
  return settings;
}

IntegratorCapabilities TimeSteppingIntegrator::capabilities() const {
  IntegratorCapabilities capabilities;
  capabilities.needs_mechanics_view = true;
  return capabilities;
}

void TimeSteppingIntegrator::advance(MechanicsView& mechanics, OdeView& ode, double t, double h,
                                     std::span<double> y, IntegrationResult& result) {
  const std::size_t nq = ode.configuration_size(), nv = ode.velocity_size();
  mechanics.prepare_step(t, y, h);
  step_.build(mechanics, h, settings_.contact, previous_approach_, previous_r_);
  const std::size_t n = step_.size();
  const MechanicsContactSet& set = mechanics.contacts();
  // Warm start: the same point's impulses last step.
  r_.assign(3 * n, 0.0);
  for (std::size_t k = 0; k < n; ++k) {
    const std::int32_t previous = set.points[k].previous;
    if (settings_.warm_start && previous >= 0 &&
        3 * static_cast<std::size_t>(previous) + 2 < previous_r_.size())
      std::copy_n(previous_r_.begin() + 3 * previous, 3,
                  r_.begin() + 3 * static_cast<std::ptrdiff_t>(k));
  }
  const std::span<const double> v_free = step_.v_free();
  v_.assign(v_free.begin(), v_free.end());
  problem_assembled_ = false;
  if (mechanics.contact_problem_wanted() && n > 0)
    mechanics.report_contact_problem(local_problem());
  StepSolution solution;
  if (n > 0) {
    solution = solve(ode, mechanics, step_, h, r_, v_);
    ++result.contact_solves;
    result.nonlinear_iterations += solution.report.iterations;
  }
  // Semi-implicit Euler: the configuration moves with the new velocities (and the solver's
  // position correction).
  const std::span<const double> y0 = mechanics.prepared_state();
  v_move_.assign(v_.begin(), v_.end());
  if (!solution.position_velocity.empty())
    for (std::size_t i = 0; i < nv; ++i) v_move_[i] += solution.position_velocity[i];
  q_next_.resize(nq);
  ode.integrate_configuration(y0.first(nq), v_move_, h, q_next_);
  mechanics.report_contact_solution(r_, h, solution.report);
  std::copy(q_next_.begin(), q_next_.end(), y.begin());
  std::copy(v_.begin(), v_.end(), y.begin() + static_cast<std::ptrdiff_t>(nq));
  ode.project(y);
  previous_r_.assign(r_.begin(), r_.end());
  previous_approach_.resize(n);
  for (std::size_t k = 0; k < n; ++k) previous_approach_[k] = step_.contact(k).approach;
}

const contact_problem::FrictionContactProblem& TimeSteppingIntegrator::local_problem() {
  if (!problem_assembled_) {
    step_.assemble(problem_);
    problem_assembled_ = true;
  }
  return problem_;
}

void TimeSteppingIntegrator::distances_after(OdeView& ode, MechanicsView& mechanics,
                                             std::span<const double> v, double h,
                                             std::vector<double>& distances) {
  const std::span<const double> y0 = mechanics.prepared_state();
  const std::size_t nq = y0.size() - v.size();
  q_trial_.resize(nq);
  ode.integrate_configuration(y0.first(nq), v, h, q_trial_);
  distances.resize(step_.size());
  mechanics.distances_at(q_trial_, distances);
}

IntegrationResult TimeSteppingIntegrator::integrate(OdeView& ode, double t_start, double t_end,
                                                    double output_interval_s, std::span<double> y) {
  MechanicsView* mechanics = ode.mechanics();
  if (!mechanics) {
    IntegrationResult failed;
    failed.status = IntegrationStatus::failed;
    failed.time_reached_s = t_start;
    failed.message =
        "a time-stepping integrator needs the host's MechanicsView (OdeView::mechanics() is null)";
    return failed;
  }
  stepping::FixedStepSettings loop;
  loop.step_s = settings_.step_s;
  loop.locate_events = false;
  IntegrationResult counters;
  auto advance_step = [&](double t, double h, std::span<double> state) {
    advance(*mechanics, ode, t, h, state, counters);
  };
  IntegrationResult result = stepping::detail::drive_fixed_step(
      ode, t_start, t_end, output_interval_s, loop, y, work_, advance_step);
  result.contact_solves = counters.contact_solves;
  result.nonlinear_iterations = counters.nonlinear_iterations;
  return result;
}

}  // namespace contactlab::plugins
