// The time loop shared by the fixed-step integrators: step scheduling, output times, interrupts.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include <contactlab/integrator.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// The `step_s` parameter common to the fixed-step integrators.
ParameterSchema fixed_step_schema();

namespace detail {

inline std::string format_time(double t_s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", t_s);
  return buffer;
}

/// Advances y from t_start to t_end with steps of at most `step_s`, calling `advance(t, h, y)` for
/// one step of the method from t to t + h.
///
/// Targets are every output time t_start + k·output_interval_s (k ≥ 1; computed from k, never
/// accumulated, so the host sees exact values) and t_end; a non-positive or non-finite interval
/// means t_end only. Steps are shortened to land on each target exactly. A step that would stop
/// less than 1e-9·step_s short of a target (or past it, by rounding) is stretched onto it, so
/// rounding never creates a pointlessly tiny step; for the same reason an output time within that
/// tolerance of t_end is reported once, as t_end. Between two targets, t = t_last_target + m·step_s
/// (again not accumulated), so 10⁶ steps do not drift away from the step grid.
///
/// After each step: ode.step_completed(t, y), whose stop request returns `interrupted` at that t;
/// then ode.output(t, y) if t is a target. Exceptions from `ode` and `advance` propagate.
template <class Advance>
IntegrationResult drive_fixed_step(OdeView& ode, double t_start, double t_end,
                                   double output_interval_s, double step_s, std::span<double> y,
                                   Advance&& advance) {
  IntegrationResult result;
  result.time_reached_s = t_start;
  const std::size_t state_size = ode.configuration_size() + ode.velocity_size();
  if (y.size() != state_size) {
    result.status = IntegrationStatus::failed;
    result.message = "fixed-step integrator: the state has " + std::to_string(y.size()) +
                     " values but the ODE has nq + nv = " + std::to_string(state_size);
    return result;
  }
  if (!std::isfinite(t_start) || !std::isfinite(t_end) || t_end < t_start) {
    result.status = IntegrationStatus::failed;
    result.message = "fixed-step integrator: the time span [" + format_time(t_start) + ", " +
                     format_time(t_end) + "] s is not a finite, forward interval";
    return result;
  }

  const double merge_tolerance_s = 1e-9 * step_s;
  const bool periodic_output = std::isfinite(output_interval_s) && output_interval_s > 0.0;
  double t = t_start;
  std::int64_t output_index = 0;
  double t_target = t_start;
  // Moves t_target to the first output time (or t_end) after t. Output times that rounding maps
  // onto or before t (an interval below the resolution of t) are skipped, so the loop advances.
  auto next_target = [&] {
    do {
      ++output_index;
      const double t_output = t_start + static_cast<double>(output_index) * output_interval_s;
      t_target = periodic_output && t_output < t_end - merge_tolerance_s ? t_output : t_end;
    } while (t_target <= t && t_target < t_end);
  };
  next_target();

  double t_anchor = t_start;  // the last target reached (or t_start)
  std::int64_t steps_since_anchor = 0;
  while (t < t_end) {
    double t_next = t_anchor + static_cast<double>(steps_since_anchor + 1) * step_s;
    if (t_target - t_next <= merge_tolerance_s) t_next = t_target;
    const double h = t_next - t;  // the step the time grid actually realises
    if (!(h > 0.0)) {
      result.status = IntegrationStatus::failed;
      result.message = "fixed-step integrator: step_s = " + format_time(step_s) +
                       " s no longer advances t = " + format_time(t) + " s";
      return result;
    }
    advance(t, h, y);
    t = t_next;
    ++steps_since_anchor;
    ++result.steps;
    result.time_reached_s = t;
    if (ode.step_completed(t, y) == StepAction::stop) {
      result.status = IntegrationStatus::interrupted;
      result.message = "interrupted by the host at t = " + format_time(t) + " s";
      return result;
    }
    if (t == t_target) {
      ode.output(t, y);
      t_anchor = t;
      steps_since_anchor = 0;
      next_target();
    }
  }
  result.status = IntegrationStatus::completed;
  return result;
}

}  // namespace detail
}  // namespace contactlab::plugins
