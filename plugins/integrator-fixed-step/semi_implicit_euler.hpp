// Semi-implicit (symplectic) Euler: first-order, explicit, but energy-bounded on oscillators.
#pragma once

#include <vector>

#include <contactlab/integrator.hpp>
#include <contactlab/parameters.hpp>

#include "fixed_step_driver.hpp"

namespace contactlab::plugins {

/// v_{n+1} = v_n + h·v̇(t_n, q_n, v_n); q_{n+1} = q_n ⊕ v_{n+1}·h (ode.integrate_configuration,
/// so quaternions stay unit). Using the new velocity for the position update makes the scheme
/// symplectic: on an undamped oscillator the energy error stays bounded (O(h)) instead of growing.
/// Step scheduling and outputs: see detail::drive_fixed_step.
class SemiImplicitEuler final : public Integrator {
 public:
  explicit SemiImplicitEuler(const ParameterValues& params);
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
  std::vector<double> v_next_;
};

}  // namespace contactlab::plugins
