// Regularised Coulomb sliding friction with optional rolling/drilling resistance
// (Neumayr 2025, eq. 7.3c, 7.3d, 7.4, 7.8, 7.10). There is no stick state: below v_min the force
// fades smoothly to zero, so a body on a slope creeps slowly instead of sticking.
#pragma once

#include <contactlab/friction.hpp>
#include <contactlab/parameters.hpp>

#include "regularization.hpp"
#include "resistance_torque.hpp"

namespace contactlab::plugins {

/// Force on B: f_t = −μ_k·f_n·v_t / reg(|v_t|) (Neumayr eq. 7.3c with eq. 7.8), v_t the slip
/// velocity of B relative to A, μ_k = material.friction_kinetic. Its magnitude is μ_k·f_n once
/// |v_t| ≥ v_min and falls smoothly to 0 at v_t = 0.
///
/// With rolling_resistance, also a torque on B (ResistanceTorque): by default
/// τ = −μ_r·R*·f_n·ω_rel / reg_ω(|ω_rel|) (Neumayr eq. 7.3d with eq. 7.10). A pair with μ_r > 0
/// then needs a finite, positive R*, else SimulationError.
class CoulombRegularized final : public Friction {
 public:
  explicit CoulombRegularized(const ParameterValues& params);
  static ParameterSchema schema();

  FrictionResult compute(const ContactKinematics& contact, double normal_force_N,
                         const ContactState& state) const override;

 private:
  double v_min_m_per_s_;
  ResistanceTorque resistance_;
};

}  // namespace contactlab::plugins
