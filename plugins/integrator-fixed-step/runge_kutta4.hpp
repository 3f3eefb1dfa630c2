// Classic fourth-order Runge–Kutta with a fixed step.
#pragma once

#include <vector>

#include <contactlab/integrator.hpp>
#include <contactlab/parameters.hpp>

#include "fixed_step.hpp"

namespace contactlab::plugins {

/// The classic four-stage RK4 on the whole state y = [q; v] in the embedding space, followed by
/// ode.project(y) to put quaternions back on the unit sphere. Global error O(h⁴).
/// Step scheduling and outputs: see stepping::detail::drive_fixed_step.
class RungeKutta4 final : public Integrator {
 public:
  explicit RungeKutta4(const ParameterValues& params);
  static ParameterSchema schema();

  IntegratorCapabilities capabilities() const override;
  IntegrationResult integrate(OdeView& ode, double t_start, double t_end, double output_interval_s,
                              std::span<double> y) override;

 private:
  FixedStepSettings settings_;
  stepping::detail::FixedStepWorkspace work_;
  // Work buffers (stage slopes and the stage state), sized once per integrate() call.
  std::vector<double> k1_, k2_, k3_, k4_, y_stage_;
};

}  // namespace contactlab::plugins
