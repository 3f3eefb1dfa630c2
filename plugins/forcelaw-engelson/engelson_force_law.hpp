// Engelson's (2000) penalty law F = −(1 + k·ẋ)·K·m·x with the damping coefficient k calibrated from
// the required restitution, and his combined distance/penetration quantity with threshold T.
#pragma once

#include <cstdint>

#include <contactlab/force_law.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// How k [s/m] follows from the pair's restitution ε and the impact speed v₀ (Engelson
/// Sec. 4.5–4.7).
enum class EngelsonCalibration : std::int32_t {
  exact,  ///< k = u*(ε)/v₀ with ε(u*) = ε: the law's exact restitution ε(u), inverted
  fraction,  ///< k = (1−ε)/(ε·v₀) from ε(u) ≈ 1/(1+u) (Sec. 4.6; printed 1/(v₀ε) − 1/ε: a typo)
  cubic,  ///< k = e^{s(ε)}/v₀: the paper's log-cubic fit (Sec. 4.7)
  given,  ///< k = damping_s_per_m
};

/// The exact restitution of the dimensionless impact ÿ = −(1 + u·ẏ)·y, y(0) = 0, ẏ(0) = 1 (−ẏ when
/// y returns to 0). Any free impact of the law is this one: with y = √K·x/v₀ and time √K·t,
/// ε(v₀, k) = ε(u) with u = v₀·k, independent of K and m (Engelson's scaling lemma, Sec. 4.5).
///
/// The paper finds ε(u) by simulation only, but it has an implicit closed form (ours; it is the
/// classical Hunt–Crossley phase-plane argument): with v = ẏ as a function of y, v·dv/(1 + u·v) =
/// −y·dy, and y returns to 0, so ∫ from 1 to −ε of v/(1 + u·v) dv = 0, i.e. G(u) = G(−u·ε) with
/// G(w) = w − ln(1 + w), or u·(1 + ε) = ln((1 + u)/(1 − u·ε)). (The same holds for any force
/// k·xⁿ·(1 + d·ẋ): the restitution depends on d·v₀ only.) Solved for ε ∈ (0, min(1, 1/u)) by
/// safeguarded Newton, to rounding. u ≥ 0. Never allocates unless it throws.
double engelson_restitution(double u);

/// The inverse: u ≥ 0 with engelson_restitution(u) = epsilon ∈ (0, 1]; safeguarded Newton in ln u
/// (u ∈ (0, 1/ε)), to rounding. Never allocates unless it throws.
double engelson_u_exact(double epsilon);

/// Engelson's eq. for s(n) of Sec. 4.7, the root of his fitted cubic ε₁(s) = n, ε₁(s) ≈ ε(e^s):
///   s(n) = 0.620898 + (−0.163279 + 0.282808i)/T^{1/3} − (15.6309 + 27.0735i)·T^{1/3},
///   T = −0.000833598 + 0.00193378·n + 0.00193378·√(n − 0.983167)·√(n + 0.121024)
/// with principal complex roots (this T is not the threshold T of Sec. 6.6). The paper says the
/// imaginary part is zero; that holds for n < 0.983167, where the cubic is monotone. Above it the
/// expression is complex and its real part is returned (as the reading notes did).
double engelson_s_cubic(double n);

/// F = −(1 + k·ẋ)·K·m·x in Engelson's signs (F < 0 pushes out; x the penetration, ẋ its rate,
/// v₀ = ẋ at contact start > 0). In ours the normal force is
///
///   f = max(0, (1 + k·ẋ)·K·m*·x),
///
/// m* = effective_mass_kg, ẋ = penetration_rate_m_per_s (> 0 approaching). K [1/s²] is the
/// stiffness per unit mass, so the contact lasts about π/√K whatever the bodies weigh, and the
/// restitution is independent of K and m. (His Sec. 7.1 Modelica code drops m: there `penalty` is
/// a stiffness in N/m.) The clamp never acts in a free 1-DOF impact (ẍ = 0 at ẋ = −1/k, so ẋ never
/// passes it) but keeps the law from pulling when other forces act.
///
/// x, with threshold_m T (Sec. 6.6, "combining penetration depth and distance"): x = 0 when the
/// signed distance d ≥ T, x = T − d when 0 < d < T (bodies apart), x = T + δ when they penetrate:
/// one formula x = max(0, T − d). The contact is born when d drops below T
/// (activation_distance_m() = T) and v₀ is δ̇ there; so the calibration, made for x starting at 0
/// with speed v₀, holds unchanged. T = 0 (default) is the plain penalty law x = δ.
///
/// k is computed once per contact in on_birth() from the pair material's restitution ε and
/// v₀ = impact_velocity_m_per_s, and kept in LawMemory: data[0] = k [s/m], data[1] = the pair's ε,
/// data[2] = v₀ used [m/s], mode = 1. Regularisations: v₀ → max(v₀, min_impact_velocity_m_per_s)
/// (a contact born at rest would give k = ∞), and, for exact and fraction, ε → max(ε,
/// min_restitution) (k ∝ 1/ε as ε → 0). A contact the host evaluates before its birth (mode 0, a
/// provisional contact inside a step) gets k computed on the fly from the same inputs.
class EngelsonForceLaw final : public ForceLaw {
 public:
  explicit EngelsonForceLaw(const ParameterValues& params);
  static ParameterSchema schema();

  ForceLawRequirements requirements() const override;
  void on_birth(const ContactKinematics& contact, LawMemory& memory) const override;
  double normal_force(const ContactKinematics& contact, const ContactState& state) const override;
  /// ½·K·m*·x²: the spring's energy (the damper stores none).
  double potential_energy(const ContactKinematics& contact,
                          const ContactState& state) const override;
  double activation_distance_m() const override { return threshold_m_; }

  /// k [s/m] for a contact with this material and impact speed (what on_birth stores).
  double damping_s_per_m(const ContactKinematics& contact) const;
  /// Engelson's x [m] for this contact: max(0, T − d), or δ when T = 0.
  double compression_m(const ContactKinematics& contact) const;

  static constexpr std::int32_t born_mode = 1;

 private:
  double stiffness_per_mass_per_s2_;
  EngelsonCalibration calibration_;
  double given_damping_s_per_m_;
  double threshold_m_;
  double min_impact_velocity_m_per_s_;
  double min_restitution_;
};

}  // namespace contactlab::plugins
