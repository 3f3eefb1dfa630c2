// Explicit (forward) Euler: first order, the textbook baseline of the fixed-step family.
#pragma once

#include <vector>

#include <contactlab/integrator.hpp>
#include <contactlab/parameters.hpp>

#include "fixed_step_driver.hpp"

namespace contactlab::plugins {

/// y_{n+1} = y_n + h·f(t_n, y_n), with q_{n+1} = q_n ⊕ v_n·h (ode.integrate_configuration, so
/// quaternions stay unit). On an undamped oscillator its energy grows by the factor (1 + ω²h²) per
/// step; it is here as the reference first-order scheme that comparisons measure the others
/// against. Step scheduling, events and outputs: see detail::drive_fixed_step.
class ExplicitEuler final : public Integrator {
 public:
  explicit ExplicitEuler(const ParameterValues& params);
  static ParameterSchema schema();

  IntegratorCapabilities capabilities() const override;
  IntegrationResult integrate(OdeView& ode, double t_start, double t_end, double output_interval_s,
                              std::span<double> y) override;

 private:
  FixedStepSettings settings_;
  detail::FixedStepWorkspace work_;
  // Work buffers, sized once per integrate() call.
  std::vector<double> y_rate_;
  std::vector<double> q_next_;
};

}  // namespace contactlab::plugins
