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
};

/// The host's view of the simulation as a first-order ODE y' = f(t, y) with y = [q; v]: q the
/// configuration coordinates (nq, may include unit quaternions), v the velocities (nv).
class CONTACTLAB_VISIBLE OdeView {
 public:
  virtual ~OdeView() = default;
  virtual std::size_t configuration_size() const = 0;  ///< nq
  virtual std::size_t velocity_size() const = 0;       ///< nv
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
  /// Called at every output time t_start + k·output_interval (k ≥ 1) and at t_end.
  virtual void output(double t, std::span<const double> y) = 0;
};

struct IntegratorCapabilities {
  bool adaptive = false;
  bool implicit = false;
  bool root_finding = false;
  bool needs_mechanics_view = false;
};

enum class IntegrationStatus : std::int32_t { completed = 0, interrupted = 1, failed = 2 };

struct IntegrationResult {
  IntegrationStatus status = IntegrationStatus::completed;
  double time_reached_s = 0.0;
  std::string message;  ///< reason when not completed
  std::int64_t steps = 0;
  std::int64_t rejected_steps = 0;
};

class CONTACTLAB_VISIBLE Integrator {
 public:
  virtual ~Integrator() = default;
  virtual IntegratorCapabilities capabilities() const = 0;
  /// Integrates y (in/out, size nq + nv) from t_start to t_end [s], calling ode.output() at each
  /// output time and ode.step_completed() after each step.
  virtual IntegrationResult integrate(OdeView& ode, double t_start, double t_end,
                                      double output_interval_s, std::span<double> y) = 0;
};

}  // namespace contactlab
