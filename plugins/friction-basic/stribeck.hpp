// Stribeck friction: a kinetic coefficient that rises to the static one at low slip speed, plus
// optional viscous friction, regularised at zero slip like coulomb_regularized (Neumayr 2025,
// eq. 7.4, 7.8). Memoryless, so a body on a slope below tan θ = μ_s creeps (at a speed below
// v_min) instead of sticking.
#pragma once

#include <contactlab/friction.hpp>
#include <contactlab/parameters.hpp>

#include "friction_coefficients.hpp"
#include "resistance_torque.hpp"

namespace contactlab::plugins {

/// Force on B, v the slip velocity of B relative to A:
///   f_t = −μ(|v|)·f_n·v / reg(|v|, v_min) − σ₂·v,
///   μ(|v|) = μ_k + (μ_s − μ_k)·exp(−(|v|/v_s)^δ)
/// (the Stribeck curve of Canudas de Wit et al. 1995, δ = 2 there;
/// v/reg(|v|) is Neumayr eq. 7.8 with reg from eq. 7.4). μ_s = material.friction_static,
/// μ_k = material.friction_kinetic (μ_s ≥ μ_k, else SimulationError). For |v| ≥ v_min the
/// magnitude is μ(|v|)·f_n + σ₂·|v| exactly; below v_min it fades to 0 at v = 0. Choose
/// v_min ≪ v_s, otherwise the static peak is smoothed away. The viscous term σ₂·v does not scale
/// with f_n (a lubricant film's drag).
/// Torque: ResistanceTorque (rolling_resistance, default off).
class Stribeck final : public Friction {
 public:
  explicit Stribeck(const ParameterValues& params);
  static ParameterSchema schema();

  FrictionResult compute(const ContactKinematics& contact, double normal_force_N,
                         const ContactState& state) const override;

 private:
  StribeckCurve curve_;
  double viscous_N_s_per_m_;
  double v_min_m_per_s_;
  ResistanceTorque resistance_;
};

}  // namespace contactlab::plugins
