// One step's contact data in the local coordinates of its points, built from the host's
// MechanicsView: what every time-stepping solver of this family starts from.
//
// For point k with the Jacobian rows J_s of its sides s (MechanicsView: u = Σ_s J_s·v_tree(s)),
// B_s = M_s⁻¹·J_sᵀ gives the velocity change of tree(s) per unit local impulse, and the diagonal
// block of the Delassus operator is W_kk = Σ_s J_s·B_s. The free velocity of the step is
// v_free = v + h·a_free; u0 = J·v and u_free = J·v_free are the point's local velocities at the
// step's start and after the free motion.
//
// The velocity-level problem solved per step (Moreau–Jean with Newton restitution, speculative
// contacts and a penetration slop; Anitescu & Potra 1997, Catto 2009): find impulses r with
//   u⁺ = u_free + (W·r)   (the off-diagonal blocks through the shared trees),
//   u⁺_N ≥ b_N ⊥ r_N ≥ 0 and Coulomb's law on the tangential part,
// where the normal bound b_N is
//   b_N = −max(δ + s, 0)/h  (speculative: the gap may close within the step, down to −s, with
//         s = min(slop, ½·v_threshold·h) so that settling into the slop never reads as an impact;
//         without the max when the solver corrects penetration through the velocity),
//   b_N = −e·u_c when the point touches (δ ≤ 0) after an impact approach u_c < −v_threshold: the
//         approach speed of the point when it touched — from the previous step's ballistic
//         estimate u_c² = u0_N² − 2·a_N·δ (a_N the free normal acceleration), or u0_N.
// Points deeper than the slop are pushed out by split impulses (position only, pgs.hpp), so the
// velocity problem adds no energy. The slop keeps resting contacts slightly penetrating, where the
// narrow phases report their whole contact patch (a box's four corners).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include <contactlab/contact_problem/problem.hpp>
#include <contactlab/mechanics.hpp>

namespace contactlab::plugins {

/// The settings of the local problem, shared by the family.
struct ContactStepSettings {
  bool friction = true;
  double restitution_threshold_m_per_s = 0.05;  ///< slower impacts do not bounce
  /// Slip below this at the step's start: μ_s, else μ_k. A point that carried no normal impulse
  /// in the last step (it is closing) also takes μ_s: its slip is the approach's, not a slide's.
  double stick_velocity_m_per_s = 1e-3;
  double penetration_slop_m = 1e-5;  ///< penetration kept at rest (not corrected)
  /// The normal bound corrects penetration through the velocity, b_N = −(δ + slop)/h also for
  /// δ < −slop (SiLVIA's distance condition δ⁺ ≥ 0); false: b_N ≤ 0, penetration is left to the
  /// solver's position correction (pgs's split impulses).
  bool correct_in_velocity = false;
};

/// A side of a point: its tree's velocity coordinates, its rows and B = M⁻¹·Jᵀ.
struct ContactSide {
  const std::uint32_t* velocities = nullptr;  ///< indices into v; null: the side cannot move
  std::uint32_t size = 0;                     ///< n
  const double* J = nullptr;                  ///< 3 × n row-major (N, T1, T2)
  std::uint32_t B = 0;                        ///< offset into ContactStep::B: n × 3 row-major
};

struct LocalContact {
  ContactSide side[2];
  std::array<double, 9> W{};  ///< diagonal block of the Delassus operator, row-major
  double mu = 0.0;            ///< the step's Coulomb coefficient (μ_s or μ_k)
  double distance_m = 0.0;
  double bias_N = 0.0;           ///< b_N: lower bound of u⁺_N
  bool impact = false;           ///< b_N is Newton's restitution bound (not the distance's)
  double approach = 0.0;         ///< u_c estimated for the next step (0: none)
  double u0[3] = {0, 0, 0};      ///< J·v at the step's start
  double u_free[3] = {0, 0, 0};  ///< J·v_free
};

class ContactStep {
 public:
  /// Builds the step's local contacts at the prepared state of `mechanics` (prepare_step done):
  /// v_free, B, W_kk, μ and the normal bounds; `previous_approach` and `previous_r` hold the
  /// previous step's approach estimates and impulses (3 each) by its point index
  /// (MechanicsContactPoint::previous).
  void build(MechanicsView& mechanics, double step_s, const ContactStepSettings& settings,
             std::span<const double> previous_approach, std::span<const double> previous_r);

  std::size_t size() const { return contacts_.size(); }
  LocalContact& contact(std::size_t k) { return contacts_[k]; }
  const LocalContact& contact(std::size_t k) const { return contacts_[k]; }
  std::span<double> v_free() { return v_free_; }

  /// u = J_k·v (3 values) of point k for velocities v (nv).
  void local_velocity(std::size_t k, std::span<const double> v, double* u) const;
  /// v += B_k·dr (dr: 3 values).
  void apply_impulse(std::size_t k, const double* dr, std::span<double> v) const;
  /// The rows and columns of the normal alone and of the tangents alone, for solvers that update
  /// them in separate passes (pgs): u_N = J_N·v; u_T = J_T·v into u[1], u[2]; v += B_N·dr_N;
  /// v += B_T·(dr_T1, dr_T2).
  double normal_velocity(std::size_t k, std::span<const double> v) const;
  void tangential_velocity(std::size_t k, std::span<const double> v, double* u) const;
  void apply_normal(std::size_t k, double dr_N, std::span<double> v) const;
  void apply_tangential(std::size_t k, double dr_T1, double dr_T2, std::span<double> v) const;

  /// The step's local problem (W with every block of contacts sharing a tree, q = u_free − b,
  /// μ): for output.contact_problems and for solvers that take it whole.
  void assemble(contact_problem::FrictionContactProblem& problem) const;

 private:
  std::vector<LocalContact> contacts_;
  std::vector<double> B_;  ///< the sides' B blocks
  std::vector<double> v_free_;
};

}  // namespace contactlab::plugins
