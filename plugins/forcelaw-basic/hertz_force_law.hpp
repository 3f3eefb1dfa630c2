// Hertz normal force law for non-conforming elastic contact (Neumayr 2025, eq. 7.1 and 7.2).
#pragma once

#include <contactlab/force_law.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// f = k_red·(4/3)·E*·√R*·δ^{3/2} (Neumayr (2025) eq. 7.1, scaled by the elastic contact
/// reduction factor k_red ∈ (0, 1] of his eq. 7.3a). Purely elastic: no damping. E* comes from
/// ContactKinematics::effective_modulus_Pa (eq. 7.2), R* from effective_radius_m. Both must be
/// finite and positive: otherwise normal_force() and potential_energy() throw SimulationError
/// saying which one and why.
class HertzForceLaw final : public ForceLaw {
 public:
  explicit HertzForceLaw(const ParameterValues& params);
  static ParameterSchema schema();

  ForceLawRequirements requirements() const override;
  double normal_force(const ContactKinematics& contact, const ContactState& state) const override;
  /// k_red·(8/15)·E*·√R*·δ^{5/2}: the integral of the force over δ.
  double potential_energy(const ContactKinematics& contact,
                          const ContactState& state) const override;

 private:
  double stiffness_scale_;
};

}  // namespace contactlab::plugins
