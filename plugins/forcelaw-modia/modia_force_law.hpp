// Modia3D's elastic response (Neumayr 2025, §7.1, eq. 7.3a with 7.1, 7.2, 7.4, 7.11–7.13): Hertz
// with Flores-type hysteresis damping from a regularised coefficient of restitution.
#pragma once

#include <contactlab/force_law.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// Neumayr (2025) eq. 7.4: reg(v) = |v| for |v| ≥ v_min, else (v²/v_min)·(1 − |v|/(3·v_min)) +
/// v_min/3; ≥ v_min/3 > 0, C² at |v| = v_min.
double modia_regularize(double v, double v_min);

/// f = k_red·max(0, (4/3)·E*·√R_geo·δ^{3/2}·(1 + d·δ̇))                        (7.3a, 7.1)
///   d = min(d_max, 8·(1 − cor_reg)/(5·cor_reg·reg(δ̇⁻)))                       (7.13, 7.11)
///   cor_reg = max(cor_min, cor + (cor_min − cor)·exp(ln(0.01)·|δ̇⁻|/v_min))     (7.12)
/// δ the penetration, δ̇ its rate (> 0 approaching), δ̇⁻ = impact_velocity_m_per_s (δ̇ at the
/// contact's birth), cor = the pair material's restitution, E* = effective_modulus_Pa (7.2),
/// R_geo = effective_radius_m (the host applies the contact radii r_c and the flat/curved rule of
/// tables 7.1–7.2), k_red = stiffness_scale, v_min = v_min_m_per_s, d_max = d_max_s_per_m.
///
/// Signs: the thesis defines δ̇_p = v_rel·e_n with v_rel = v₂ − v₁ (7.5, 7.6), positive when the
/// bodies separate if e_n points from 1 to 2, yet writes (1 + d·δ̇_p) in (7.3a), which must damp
/// approach. Modia3D's code (responseCalculation) uses (1 − d·v_rel·e_n). Here δ̇ is the approach
/// rate, so (1 + d·δ̇) is the intended law.
///
/// cor_reg is cor for impacts well above v_min (99 % of the way at |δ̇⁻| = v_min) and falls to
/// cor_min for a contact born at rest, so bounces stop and d stays finite. The max with cor_min is
/// ours: the printed (7.12) goes below cor_min when cor < cor_min (cor = 0 gives cor_reg → 0 and
/// d = ∞ before the cap), although the text says cor_reg is restricted to cor_min.
class ModiaForceLaw final : public ForceLaw {
 public:
  explicit ModiaForceLaw(const ParameterValues& params);
  static ParameterSchema schema();

  ForceLawRequirements requirements() const override;
  double normal_force(const ContactKinematics& contact, const ContactState& state) const override;
  /// k_red·(8/15)·E*·√R_geo·δ^{5/2}: the integral of the elastic part over δ.
  double potential_energy(const ContactKinematics& contact,
                          const ContactState& state) const override;

  /// cor_reg of eq. 7.12 (with the floor cor_min) for restitution cor and impact velocity δ̇⁻.
  double regularized_restitution(double restitution, double impact_velocity_m_per_s) const;
  /// d of eq. 7.13 [s/m] for this contact's material and impact velocity.
  double damping_s_per_m(const ContactKinematics& contact) const;
  /// Stores d in memory.data[0] (mode 1): it depends only on the pair's restitution and the impact
  /// velocity, both fixed for the contact's life, so normal_force() need not recompute the exp.
  void on_birth(const ContactKinematics& contact, LawMemory& memory) const override;

 private:
  double stiffness_scale_;
  double cor_min_;
  double v_min_m_per_s_;
  double d_max_s_per_m_;
};

}  // namespace contactlab::plugins
