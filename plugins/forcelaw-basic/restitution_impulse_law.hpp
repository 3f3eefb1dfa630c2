// Rigid impact with Newton's coefficient of restitution (Ullrich 1998, eq. 2.8), and a penalty law
// that holds the contacts too slow to bounce.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <contactlab/force_law.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// An impulsive force law (requirements().impulsive): at a contact's birth, when the approach
/// velocity v = penetration_rate_m_per_s (> 0 approaching) is at least resting_velocity_m_per_s,
/// impact_restitution() returns Newton's e (v⁺ = −e·v⁻, Ullrich eq. 2.8) and the host applies the
/// velocity jump through both bodies' inverse inertia. e is the pair material's restitution unless
/// the `restitution` parameter overrides it. Below the resting velocity it returns no_impulse and
/// the contact is held by a penalty law, `resting_law` (linear, hertz or hunt_crossley: the laws of
/// this folder), whose parameters are forwarded with the prefix `resting_`
/// (resting_stiffness_N_per_m, resting_damping_N_s_per_m, resting_clamp_tension for linear;
/// resting_stiffness_scale for hertz) and keep that law's defaults, ranges and units.
/// normal_force(), potential_energy(), activation_distance_m() and the memory hooks are the resting
/// law's; requirements() are the resting law's plus impulsive.
///
/// After an impulse the bodies separate (δ̇ = −e·v at δ ≈ 0), so the resting law's force is ~0
/// until the contact dies; with e = 0 they stay touching and the resting law holds them.
///
/// Default resting velocity 0.01 m/s: the speed of a free fall from v²/(2g) ≈ 5 µm. Each
/// impulsive bounce multiplies the speed by e, so a dropped body would bounce without end (a Zeno
/// sequence of births); the threshold ends it after ln(v_rest/v₀)/ln(e) bounces (about 9 from
/// 4.4 m/s, a 1 m drop, at e = 0.5). Below it the penalty law takes over at a scale that is
/// invisible in a scene: with its default k = 1e6 N/m a 1 kg body arriving at 0.01 m/s penetrates
/// v·√(m/k) = 10 µm. It also lies above the micro-bounces of a penalty contact that settles
/// (lifts of a few µm re-impact at ≲ 0.01 m/s), which a smaller threshold (e.g. 1e-3 m/s) would
/// turn back into impulses and jitter. Note that linear's default damping is 0 and hertz has none:
/// a contact held by an undamped resting law keeps micro-bouncing below the threshold; give
/// resting_damping_N_s_per_m > 0 (linear) for contacts that must come to rest.
class RestitutionImpulseLaw final : public ForceLaw {
 public:
  explicit RestitutionImpulseLaw(const ParameterValues& params);
  static ParameterSchema schema();

  /// The resting_law choices, in order (the first is the default).
  static std::vector<std::string> resting_law_names();
  /// Resting-law parameter `name` appears in schema() as resting_prefix + name.
  static constexpr const char* resting_prefix = "resting_";

  ForceLawRequirements requirements() const override;
  double normal_force(const ContactKinematics& contact, const ContactState& state) const override;
  double potential_energy(const ContactKinematics& contact,
                          const ContactState& state) const override;
  double activation_distance_m() const override;
  /// e (pair material, or the `restitution` parameter) when penetration_rate_m_per_s ≥ the resting
  /// velocity, else no_impulse. A pair restitution outside [0, 1] throws SimulationError.
  double impact_restitution(const ContactKinematics& contact) const override;

  ContactLawLayout layout() const override;
  void on_birth(const ContactKinematics& contact, LawMemory& memory) const override;
  void continuous_rate(const ContactKinematics& contact, double normal_force_N,
                       const LawMemory& memory, std::span<double> rate) const override;
  void event_functions(const ContactKinematics& contact, double normal_force_N,
                       const LawMemory& memory, std::span<double> g) const override;
  const char* event_name(int index) const override;
  void on_event(int index, const ContactKinematics& contact, double normal_force_N,
                LawMemory& memory) const override;

  const ForceLaw& resting_law() const { return *resting_law_; }
  double resting_velocity_m_per_s() const { return resting_velocity_m_per_s_; }

 private:
  double restitution_override_;  ///< < 0: use the pair material's restitution
  double resting_velocity_m_per_s_;
  std::unique_ptr<ForceLaw> resting_law_;
};

}  // namespace contactlab::plugins
