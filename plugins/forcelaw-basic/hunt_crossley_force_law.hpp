// Hunt–Crossley dissipative normal force law f = k·δⁿ·(1 + d·δ̇) with five restitution-calibrated
// damping models (Ullrich 1998 §2.4.4; Neumayr 2025 §7.1.4 after Flores et al. 2011).
#pragma once

#include <cstdint>

#include <contactlab/force_law.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// How the hysteresis damping factor d [s/m] follows from the pair's restitution e and the impact
/// speed v (δ̇ at the contact's birth).
enum class HuntCrossleyDamping : std::int32_t {
  hunt_crossley,  ///< d = 3(1−e)/(2v)        (Hunt & Crossley 1975; Ullrich eq. 2.16–2.17)
  lankarani_nikravesh,  ///< d = 3(1−e²)/(4v)       (Lankarani & Nikravesh 1990)
  flores,               ///< d = 8(1−e)/(5·e·v)     (Flores et al. 2011; Neumayr eq. 7.13)
  gonthier,             ///< d = (1−e²)/(e·v)       (Gonthier et al. 2004)
  constant,             ///< d = damping_s_per_m, independent of e and v
};

/// f = k_red·max(0, k·δⁿ·(1 + d·δ̇)), δ the penetration, δ̇ its rate (> 0 approaching). The force
/// starts at zero whatever the impact speed (no jump at contact start) and never pulls.
///
/// Stiffness: k = stiffness_N_per_m_pow_n, or, when that is 0, Hertz' k = (4/3)·E*·√R* from the
/// contact's effective_modulus_Pa and effective_radius_m (Neumayr eq. 7.1), which needs n = 1.5
/// (any other exponent is refused at construction). stiffness_scale k_red multiplies k either way.
///
/// Damping: see HuntCrossleyDamping. Two regularisations keep d finite:
/// - the impact speed is v = max(v⁻, min_impact_velocity_m_per_s), v⁻ = impact_velocity_m_per_s;
///   a contact born at rest (touching at t0, a body settling) gets the damping of an impact at the
///   minimum speed instead of d = ∞;
/// - flores and gonthier, whose d grows like 1/e, use e = max(e_pair, min_restitution).
/// With e = 1 every model gives d = 0 (Hertz or the pure power law).
///
/// Accuracy: in a free 1-DOF impact the restitution ε depends on u = d·v only (not on n, k or m):
/// u·(1 + ε) = ln((1 + u)/(1 − u·ε)) (the phase-plane integral of m·δ̇·dδ̇/(1 + d·δ̇) = −k·δⁿ·dδ
/// over the impact). Each model fixes u(e), so ε(e) is independent of v too. hunt_crossley and
/// lankarani_nikravesh are first-order expansions about e = 1 and overshoot e more and more as e
/// falls; flores and gonthier stay within 0.05 of e for e ∈ [0.1, 0.9] (see
/// tests/unit/test_force_laws_hunt_crossley.cpp for the measured table).
class HuntCrossleyForceLaw final : public ForceLaw {
 public:
  explicit HuntCrossleyForceLaw(const ParameterValues& params);
  static ParameterSchema schema();

  ForceLawRequirements requirements() const override;
  double normal_force(const ContactKinematics& contact, const ContactState& state) const override;
  /// k_red·k·δⁿ⁺¹/(n+1): the integral of the elastic part k_red·k·δⁿ over δ.
  double potential_energy(const ContactKinematics& contact,
                          const ContactState& state) const override;

  /// The damping factor d [s/m] this law uses for `contact` (after both regularisations).
  double damping_s_per_m(const ContactKinematics& contact) const;
  /// The stiffness k_red·k [N/m^n] for `contact` (Hertz' value when no stiffness was given).
  double stiffness(const ContactKinematics& contact) const;

 private:
  double exponent_;
  double stiffness_;  ///< given k [N/m^n]; 0: Hertz
  double stiffness_scale_;
  HuntCrossleyDamping damping_model_;
  double constant_damping_s_per_m_;
  double min_impact_velocity_m_per_s_;
  double min_restitution_;
};

}  // namespace contactlab::plugins
