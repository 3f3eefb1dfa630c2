// First-order fixed-step Euler schemes: explicit (forward) and semi-implicit (symplectic).
#pragma once

#include <vector>

#include <contactlab/integrator.hpp>
#include <contactlab/parameters.hpp>

#include "fixed_step.hpp"

namespace contactlab::plugins {

/// v_{n+1} = v_n + h·v̇(t_n, q_n, v_n) and the contacts' states x likewise; the configuration
/// moves on its manifold (ode.integrate_configuration, so quaternions stay unit):
///  - explicit Euler (Symplectic = false): q_{n+1} = q_n ⊕ v_n·h — on an undamped oscillator its
///    energy grows by the factor (1 + ω²h²) per step; the reference first-order scheme;
///  - semi-implicit Euler (Symplectic = true): q_{n+1} = q_n ⊕ v_{n+1}·h — using the new velocity
///    makes it symplectic: the energy error stays bounded (O(h)) instead of growing.
/// Step scheduling, events and outputs: see stepping::detail::drive_fixed_step.
template <bool Symplectic>
class Euler final : public Integrator {
 public:
  explicit Euler(const ParameterValues& params);
  static ParameterSchema schema();

  IntegratorCapabilities capabilities() const override;
  IntegrationResult integrate(OdeView& ode, double t_start, double t_end, double output_interval_s,
                              std::span<double> y) override;

 private:
  FixedStepSettings settings_;
  stepping::detail::FixedStepWorkspace work_;
  // Work buffers, sized once per integrate() call.
  std::vector<double> y_rate_;
  std::vector<double> q_next_;
  std::vector<double> v_next_;
};

using ExplicitEuler = Euler<false>;
using SemiImplicitEuler = Euler<true>;

}  // namespace contactlab::plugins
