// Linear spring-damper normal force law: f = k·δ + c·δ̇ (Kelvin–Voigt).
#pragma once

#include <contactlab/force_law.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// f = k·δ + c·δ̇ with δ the penetration and δ̇ its rate (> 0 approaching). With clamp_tension
/// (default) f = max(0, f): the damper may not pull the bodies together while they separate.
/// Without it the law is the pure linear oscillator whose coefficient of restitution is
/// exp(−πβ/√(1−β²)), β = c / (2√(k·m*)), which the validation suite checks.
class LinearForceLaw final : public ForceLaw {
 public:
  explicit LinearForceLaw(const ParameterValues& params);
  static ParameterSchema schema();

  ForceLawRequirements requirements() const override;
  double normal_force(const ContactKinematics& contact, const ContactState& state) const override;
  /// ½·k·δ²: the spring's energy (the damper stores none).
  double potential_energy(const ContactKinematics& contact,
                          const ContactState& state) const override;

 private:
  double stiffness_N_per_m_;
  double damping_N_s_per_m_;
  bool clamp_tension_;
};

}  // namespace contactlab::plugins
