// Goyal's penalty-plus-Coulomb friction (Goyal, Pinson, Sinden 1994, as presented in Ullrich
// 1998, §5.7, eq. 5.19-5.26): a tangential spring–damper anchored at the stick point, capped by
// the Coulomb cone, in rate form for an ODE integrator.
#pragma once

#include <contactlab/friction.hpp>
#include <contactlab/parameters.hpp>

#include "resistance_torque.hpp"

namespace contactlab::plugins {

/// A spring (k = stiffness_N_per_m) and a damper (c = damping_N_s_per_m) in the tangent plane
/// join B's contact point to an anchor on A. Their elongation ξ (a world-frame 3-vector in
/// ContactState::friction.x[0..2], zero at birth; only its tangent-plane part ξ_t = ξ − (ξ·n)n is
/// used) is a continuous state. The force on B is f = −(k·ξ + c·ξ̇) (Ullrich eq. 5.19 with
/// isotropic tangential K = k·I, C = c·I). B's slip v_t = ξ̇ + s, s the anchor's sliding speed.
///
/// Stick (s = 0): ξ̇ = v_t, and f is the trial force f* = −a, a = k·ξ_t + c·v_t (eq. 5.24).
/// Slip (f* outside the cone |f| ≤ μ·f_n, eq. 5.20): |f| = μ·f_n and the anchor slides along
/// −f (eq. 5.21: s = λ·e, λ ≥ 0, e = −f/|f|). Substituting ξ̇ = v_t − λ·e into
/// k·ξ + c·ξ̇ = μ·f_n·e gives a = (μ·f_n + c·λ)·e, so e = a/|a| and Goyal's scalar equation for λ
/// (eq. 5.25) has the closed-form positive root
///   λ* = (|a| − μ·f_n)/c > 0,  f = −μ·f_n·a/|a|,  ξ̇ = v_t − λ*·a/|a|      (eq. 5.26).
/// Both cases in one formula: f = −min(|a|, μ·f_n)·a/|a|, ξ̇ = v_t − max(0, |a| − μ·f_n)/c·a/|a|,
/// continuous in the state. Steady sliding gives ξ̇ = 0, k·|ξ| = μ·f_n. The normal part of ξ
/// (left when the normal turns) relaxes at the rate k/c. Goyal requires C positive definite, so
/// c > 0: with c = 0 the slip rate would not follow from the forces.
///
/// Static and kinetic friction: LawMemory::mode is 0 = stick (cone radius μ_s·f_n) or
/// 1 = slip (cone radius μ_k·f_n). Event 0 "stick_to_slip" (armed in stick): g = μ_s·f_n − |a|;
/// event 1 "slip_to_stick" (armed in slip): g = |a| − μ_k·f_n = c·λ*, i.e. the anchor stops;
/// a disarmed event function reads +1. The handlers only flip the mode (no jump of ξ: at
/// stick→slip the force drops from μ_s·f_n to μ_k·f_n along the same direction, the
/// static-to-kinetic drop; at slip→stick it is continuous). Why this formulation: the law is a
/// valid Coulomb law in either mode for every state, so a host that misses or cannot locate an
/// event still gets a bounded, continuous force (an elastic–plastic law with the mode's cone); with
/// μ_s = μ_k the mode changes nothing and the law needs no events at all. A contact born sliding
/// (v_t ≠ 0, where f_n = 0 makes every trial force leave the cone) starts in slip, one born at
/// rest in stick.
/// Torque: ResistanceTorque (rolling_resistance, default off).
class TangentialSpring final : public Friction {
 public:
  static constexpr int stick = 0;
  static constexpr int slip = 1;
  static constexpr int stick_to_slip_event = 0;
  static constexpr int slip_to_stick_event = 1;

  explicit TangentialSpring(const ParameterValues& params);
  static ParameterSchema schema();

  ContactLawLayout layout() const override { return {3, 2}; }
  void on_birth(const ContactKinematics& contact, LawMemory& memory) const override;
  void continuous_rate(const ContactKinematics& contact, double normal_force_N,
                       const LawMemory& memory, std::span<double> rate) const override;
  void event_functions(const ContactKinematics& contact, double normal_force_N,
                       const LawMemory& memory, std::span<double> g) const override;
  const char* event_name(int index) const override;
  void on_event(int index, const ContactKinematics& contact, double normal_force_N,
                LawMemory& memory) const override;
  FrictionResult compute(const ContactKinematics& contact, double normal_force_N,
                         const ContactState& state) const override;

 private:
  struct Trial {
    Vec3 xi_W;      ///< stored elongation ξ
    Vec3 a_W;       ///< a = k·ξ_t + c·v_t = −(trial stick force)
    double a_norm;  ///< |a|
    double cone_N;  ///< μ·f_n of the current mode
  };
  Trial trial(const ContactKinematics& contact, double normal_force_N,
              const LawMemory& memory) const;

  double stiffness_N_per_m_;
  double damping_N_s_per_m_;
  ResistanceTorque resistance_;
};

}  // namespace contactlab::plugins
