// LuGre dynamic friction (Canudas de Wit, Olsson, Åström, Lischinsky 1995, "A new model for
// control of systems with friction", IEEE TAC 40(3)) in a normal-force-normalised, isotropic
// vector form: the bristle deflection z is a continuous per-contact state.
#pragma once

#include <contactlab/friction.hpp>
#include <contactlab/parameters.hpp>

#include "friction_coefficients.hpp"
#include "resistance_torque.hpp"

namespace contactlab::plugins {

/// Canudas de Wit et al. (1995):
///   dz/dt = v − |v|·z/g(v),  σ₀·g(v) = F_c + (F_s − F_c)·exp(−(v/v_s)²),
///   F = σ₀·z + σ₁·dz/dt + σ₂·v,
/// σ₀ [N/m], σ₁ [N·s/m], σ₂ [N·s/m]; i.e. dz/dt = v − σ₀·|v|·z/F_ss(v) with the steady-state
/// friction F_ss(v) = σ₀·g(v) [N].
///
/// Normalised form used here: every dry-friction force scales with the normal force f_n, i.e.
/// F_c = μ_k·f_n, F_s = μ_s·f_n, and the bristle stiffness and damping are σ₀ = σ̂₀·f_n,
/// σ₁ = σ̂₁·f_n. Then σ₀/F_ss = σ̂₀/ĝ, so with
///   ĝ(v) = μ_k + (μ_s − μ_k)·exp(−(|v|/v_s)^δ)                              (δ = 2: the paper)
/// the law on body B, v = slip velocity of B relative to A (tangential), reads
///   ż = v − σ̂₀·|v|·z / ĝ(|v|)
///   f_t = −f_n·(σ̂₀·z + σ̂₁·ż) − σ₂·v
/// with σ̂₀ = bristle_stiffness_per_m [1/m], σ̂₁ = bristle_damping_s_per_m [s/m] and the viscous
/// σ₂ = viscous_N_s_per_m [N·s/m] (not scaled by f_n, as in the paper). z [m] is the bristle
/// deflection; a presliding force F moves z by F/(σ̂₀·f_n), and steady sliding at speed |v| gives
/// z = ĝ(|v|)·v/(σ̂₀·|v|), hence the friction f_n·ĝ(|v|) + σ₂·|v|: exactly the stribeck law's
/// force for |v| ≥ its v_min. No regularisation is needed (ż = v at v = 0).
///
/// Vector form: z is a world-frame 3-vector (ContactState::friction.x[0..2], zero at birth). Only
/// its part z_t = z − (z·n)·n in the current tangent plane enters the force; the rate is
/// ż = v − σ̂₀·|v|·z/ĝ, whose tangent-plane part is the law above applied to z_t and whose normal
/// part relaxes the component that a turning normal leaves out of the plane. With this rate
/// d|z|²/dt = 2·z·v − 2σ̂₀|v||z|²/ĝ, so |z| ≤ μ_s/σ̂₀ is invariant (the paper's bound on z).
/// If μ_s = μ_k = 0 the bristles carry no force and z stays 0. μ_s ≥ μ_k ≥ 0 is required.
/// Torque: ResistanceTorque (rolling_resistance, default off).
class LuGre final : public Friction {
 public:
  explicit LuGre(const ParameterValues& params);
  static ParameterSchema schema();

  ContactLawLayout layout() const override { return {3, 0}; }
  void on_birth(const ContactKinematics& contact, LawMemory& memory) const override;
  void continuous_rate(const ContactKinematics& contact, double normal_force_N,
                       const LawMemory& memory, std::span<double> rate) const override;
  FrictionResult compute(const ContactKinematics& contact, double normal_force_N,
                         const ContactState& state) const override;

 private:
  /// σ̂₀·|v|/ĝ(|v|) [1/s], or 0 for a frictionless pair.
  double relaxation_rate(const ContactKinematics& contact) const;

  double sigma0_per_m_;
  double sigma1_s_per_m_;
  double sigma2_N_s_per_m_;
  StribeckCurve curve_;
  ResistanceTorque resistance_;
};

}  // namespace contactlab::plugins
