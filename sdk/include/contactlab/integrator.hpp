// Integrator: advances a simulation in time through the host's OdeView.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "contactlab/export.hpp"

namespace contactlab {

enum class StepAction : std::int32_t {
  proceed = 0,  ///< keep integrating
  stop = 1,     ///< the host asks the integrator to return (interrupt requested)
  /// The host changed the state at this instant (a velocity jump, contact states appended or
  /// removed): the integrator returns IntegrationStatus::restart_requested at this t, and the host
  /// calls integrate() again from t with the new state. Only sent to integrators whose
  /// capabilities include state_reset.
  restart = 2,
};

/// The host's view of the simulation as a first-order ODE y' = f(t, y) with y = [q; v; x]: q the
/// configuration coordinates (nq, may include unit quaternions), v the velocities (nv), x the
/// continuous states of the living contacts (nx, may change at events, see StepAction::restart).
///
/// Events: the host keeps event_count() event functions (contact start, contact end, and those of
/// the living contacts' laws). Each is armed while positive and fires when it becomes ≤ 0. An
/// integrator that locates events finds the earliest t at which an armed function becomes ≤ 0
/// within a step, ends the step there (at the first representable state past the crossing, within
/// its event tolerance) and calls step_completed(), where the host handles what fired.
class CONTACTLAB_VISIBLE OdeView {
 public:
  virtual ~OdeView() = default;
  virtual std::size_t configuration_size() const = 0;  ///< nq
  virtual std::size_t velocity_size() const = 0;       ///< nv
  /// nq + nv + nx: the size of y (changes only across a restart).
  virtual std::size_t state_size() const = 0;
  /// Number of event functions (changes only at step_completed()).
  virtual std::size_t event_count() const = 0;
  /// Values of the event functions at (t, y); g has event_count() entries.
  virtual void event_values(double t, std::span<const double> y, std::span<double> g) = 0;
  /// y' = f(t, y): writes [q̇; v̇]. Throws SimulationError on a non-finite result.
  virtual void derivative(double t, std::span<const double> y, std::span<double> y_rate) = 0;
  /// q_out = q ⊕ v·dt on the configuration manifold (for geometric/symplectic schemes).
  virtual void integrate_configuration(std::span<const double> q, std::span<const double> v,
                                       double dt, std::span<double> q_out) = 0;
  /// Projects y onto the manifold (normalises quaternions).
  virtual void project(std::span<double> y) = 0;
  /// Called after every accepted step with the new state: the host updates contact births and
  /// deaths, checks the state, and may ask to stop.
  virtual StepAction step_completed(double t, std::span<const double> y) = 0;
  /// Called at every output time k·output_interval in (t_start, t_end] (k an integer: the grid is
  /// absolute, so it survives restarts) and at t_end.
  virtual void output(double t, std::span<const double> y) = 0;
};

struct IntegratorCapabilities {
  bool adaptive = false;
  bool implicit = false;
  /// Locates the zero crossings of the OdeView's event functions (root finding or bisection).
  bool root_finding = false;
  bool needs_mechanics_view = false;
  /// Returns at StepAction::restart so that the host can change the state (or its size) and
  /// resume: needed by impulsive laws and by laws with continuous per-contact states.
  bool state_reset = false;
};

enum class IntegrationStatus : std::int32_t {
  completed = 0,
  interrupted = 1,
  failed = 2,
  restart_requested = 3,  ///< the host asked for a restart at time_reached_s
};

struct IntegrationResult {
  IntegrationStatus status = IntegrationStatus::completed;
  double time_reached_s = 0.0;
  std::string message;  ///< reason when not completed
  std::int64_t steps = 0;
  std::int64_t rejected_steps = 0;
  std::int64_t rhs_evaluations = 0;       ///< calls of OdeView::derivative
  std::int64_t event_evaluations = 0;     ///< calls of OdeView::event_values
  std::int64_t located_events = 0;        ///< steps ended at a located event
  std::int64_t jacobian_evaluations = 0;  ///< Jacobians formed (implicit methods; else 0)
  std::int64_t nonlinear_iterations = 0;  ///< Newton or fixed-point iterations (else 0)
};

class CONTACTLAB_VISIBLE Integrator {
 public:
  virtual ~Integrator() = default;
  virtual IntegratorCapabilities capabilities() const = 0;
  /// Integrates y (in/out, size ode.state_size()) from t_start to t_end [s], calling ode.output()
  /// at each output time and ode.step_completed() after each step.
  virtual IntegrationResult integrate(OdeView& ode, double t_start, double t_end,
                                      double output_interval_s, std::span<double> y) = 0;
};

}  // namespace contactlab
