// The time loop of fixed-step integrators: step scheduling, output times, event location by
// bisection, restarts, interrupts. Header-only, for the fixed-step family (euler, rk4) and the
// time-stepping contact integrators (pgs, ncp_newton, bilateral_newton), and for a plugin's own
// fixed-step scheme.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "contactlab/integrator.hpp"

namespace contactlab::stepping {

/// The parameters common to the fixed-step integrators.
struct FixedStepSettings {
  double step_s = 1e-4;              ///< h
  bool locate_events = true;         ///< bisect the step at a zero crossing of an event function
  double event_tolerance_s = 1e-12;  ///< width of the final bisection bracket
};

namespace detail {

inline std::string format_time(double t_s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", t_s);
  return buffer;
}

/// Buffers of the driver, kept by the integrator so that steps do not allocate.
struct FixedStepWorkspace {
  std::vector<double> y_start, y_try, y_hit;
  std::vector<double> g_start, g_end, g_try;
};

/// Whether an armed event function (> 0 at the step's start) is ≤ 0 now.
inline bool event_fired(std::span<const double> g_start, std::span<const double> g_now) {
  for (std::size_t i = 0; i < g_start.size(); ++i)
    if (g_start[i] > 0.0 && g_now[i] <= 0.0) return true;
  return false;
}

/// Advances y from t_start to t_end with steps of at most `settings.step_s`, calling
/// `advance(t, h, y)` for one step of the method from t to t + h.
///
/// Targets are the output times k·output_interval_s in (t_start, t_end] (k an integer, computed
/// from k and never accumulated, so the host sees exact values and the grid survives restarts)
/// and t_end; a non-positive or non-finite interval means t_end only. Steps are shortened to land
/// on each target exactly. A step that would stop less than 1e-9·step_s short of a target (or past
/// it, by rounding) is stretched onto it; for the same reason an output time within that tolerance
/// of t_end is reported once, as t_end. Between two targets, t = t_last_target + m·step_s (again
/// not accumulated), so 10⁶ steps do not drift away from the step grid.
///
/// Events (when settings.locate_events and the ODE has event functions): after each step the event
/// functions are evaluated; if one that was > 0 at the step's start is ≤ 0, the step is bisected —
/// re-taken from its start with shorter sizes — until the first crossing is bracketed within
/// event_tolerance_s, and the step ends at the bracket's right end (past the crossing). The grid is
/// kept: the next step ends where the interrupted one would have.
///
/// After each step: ode.step_completed(t, y): `stop` returns `interrupted` at t, `restart` returns
/// `restart_requested` at t (before any output at t; the host resumes from there); then
/// ode.output(t, y) if t is a target. Exceptions from `ode` and `advance` propagate.
template <class Advance>
IntegrationResult drive_fixed_step(OdeView& ode, double t_start, double t_end,
                                   double output_interval_s, const FixedStepSettings& settings,
                                   std::span<double> y, FixedStepWorkspace& work,
                                   Advance&& advance) {
  IntegrationResult result;
  result.time_reached_s = t_start;
  const double step_s = settings.step_s;
  const std::size_t state_size = ode.state_size();
  if (y.size() != state_size) {
    result.status = IntegrationStatus::failed;
    result.message = "fixed-step integrator: the state has " + std::to_string(y.size()) +
                     " values but the ODE has " + std::to_string(state_size);
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
  // The output grid is absolute: start counting from the multiple at or before t_start.
  std::int64_t output_index =
      periodic_output ? static_cast<std::int64_t>(std::floor(t_start / output_interval_s)) : 0;
  double t_target = t_start;
  // Moves t_target to the first output time (or t_end) after t. Output times that rounding maps
  // onto or before t (an interval below the resolution of t) are skipped, so the loop advances.
  auto next_target = [&] {
    do {
      ++output_index;
      const double t_output = static_cast<double>(output_index) * output_interval_s;
      t_target = periodic_output && t_output < t_end - merge_tolerance_s ? t_output : t_end;
    } while (t_target <= t + merge_tolerance_s && t_target < t_end);
  };
  next_target();

  const bool locate = settings.locate_events;
  auto refresh_events = [&] {
    work.g_start.resize(ode.event_count());
    if (work.g_start.empty()) return;
    ode.event_values(t, y, work.g_start);
    ++result.event_evaluations;
  };
  if (locate) refresh_events();

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
    const bool watch = locate && !work.g_start.empty();
    if (watch) work.y_start.assign(y.begin(), y.end());
    advance(t, h, y);
    bool located = false;
    if (watch) {
      work.g_end.resize(work.g_start.size());
      ode.event_values(t_next, y, work.g_end);
      ++result.event_evaluations;
      if (event_fired(work.g_start, work.g_end)) {
        // Bisection on the step size: [lo, hi] brackets the first crossing; y_hit is the state
        // at t + hi.
        double lo = 0.0, hi = h;
        work.y_hit.assign(y.begin(), y.end());
        work.g_try.resize(work.g_start.size());
        while (hi - lo > settings.event_tolerance_s) {
          const double mid = lo + 0.5 * (hi - lo);
          if (!(mid > lo && mid < hi)) break;  // the bracket is at the resolution of doubles
          work.y_try.assign(work.y_start.begin(), work.y_start.end());
          advance(t, mid, std::span<double>(work.y_try));
          ode.event_values(t + mid, work.y_try, work.g_try);
          ++result.event_evaluations;
          if (event_fired(work.g_start, work.g_try)) {
            hi = mid;
            work.y_hit.swap(work.y_try);
          } else {
            lo = mid;
          }
        }
        if (hi < h) {
          std::copy(work.y_hit.begin(), work.y_hit.end(), y.begin());
          t_next = t + hi;
          located = true;
        }
        ++result.located_events;
      }
    }
    t = t_next;
    if (!located) ++steps_since_anchor;  // a located event keeps the grid: resume towards it
    ++result.steps;
    result.time_reached_s = t;
    const StepAction action = ode.step_completed(t, y);
    if (action == StepAction::stop) {
      result.status = IntegrationStatus::interrupted;
      result.message = "interrupted by the host at t = " + format_time(t) + " s";
      return result;
    }
    if (action == StepAction::restart) {
      result.status = IntegrationStatus::restart_requested;
      return result;
    }
    if (locate) {
      // After an event the host's event functions changed (contacts born, modes switched).
      if (work.g_end.size() == ode.event_count() && !event_fired(work.g_start, work.g_end) && watch)
        work.g_start.swap(work.g_end);
      else
        refresh_events();
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
}  // namespace contactlab::stepping
