// MechanicsView: what a time-stepping integrator sees of the multibody system — the host side of
// rigid contact solved once per step (SiLVIA, Neumayr 2025 §2.5–2.7; Moreau–Jean; the schemes of
// MuJoCo, Bullet and ODE). A time-stepping integrator declares needs_mechanics_view and reaches it
// through OdeView::mechanics(); it owns the step and writes y = [q; v] itself.
//
// One step from (t, y) with step h, as the host prepares it (prepare_step):
//   - the free acceleration a_free = M⁻¹·(τ − c): gravity, gyroscopic and Coriolis terms, joint
//     springs, dampers and limits, prescribed motions (driven joints), no contact;
//   - M⁻¹ per joint tree at q (its velocity coordinates and the dense inverse; a driven
//     coordinate has zero rows and columns: contact cannot move it);
//   - the contact set at q: every point of every admitted geometry pair the broad phase reports
//     over the free motion of the step (boxes at q and at q ⊕ (v + h·a_free)·h), touching or not,
//     with its signed distance, normal, tangents, the pair's friction and restitution, and its
//     Jacobian rows over the velocity coordinates of the two trees.
// The local velocity of a point is u = (u_N, u_T1, u_T2) = Σ_side J_side·v_tree(side), the
// velocity of B's material point relative to A's along (n, t1, t2), n from A to B, so that u_N > 0
// separates and a normal impulse r_N > 0 pushes B away from A.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "contactlab/contact_problem/problem.hpp"
#include "contactlab/export.hpp"
#include "contactlab/math.hpp"

namespace contactlab {

/// One contact point of the prepared step.
struct MechanicsContactPoint {
  static constexpr std::uint32_t no_tree = static_cast<std::uint32_t>(-1);
  std::uint64_t pair = 0;      ///< identity of the geometry pair (a << 32 | b), stable over steps
  std::int32_t previous = -1;  ///< index of the same point in the previous step's set, or −1
  std::uint32_t geometry_a = 0, geometry_b = 0;  ///< indices of the scene's geometries, a < b
  double distance_m = 0.0;                       ///< signed distance at q (< 0: penetration)
  Vec3 point_W = Vec3::Zero();    ///< where the impulse acts: the midpoint of the witness points
  Vec3 normal_W = Vec3::UnitZ();  ///< unit, from A to B
  Vec3 tangent1_W = Vec3::UnitX(), tangent2_W = Vec3::UnitY();  ///< (t1, t2, n) right-handed
  double friction_static = 0.0, friction_kinetic = 0.0;  ///< μ_s ≥ μ_k of the pair material
  double restitution = 0.0;                              ///< Newton's e of the pair material
  /// The joint trees of side A and side B (no_tree: that side cannot move).
  std::uint32_t tree[2] = {no_tree, no_tree};
  /// Offsets into MechanicsContactSet::jacobian of each side's three rows (N, T1, T2), row-major
  /// over that tree's velocity coordinates (MechanicsView::tree_velocities), sign included.
  std::uint32_t jacobian[2] = {0, 0};
};

struct MechanicsContactSet {
  std::vector<MechanicsContactPoint> points;
  std::vector<double> jacobian;  ///< the rows the points index
};

/// How one step's contact problem was solved (summary.json, compare columns).
struct ContactSolveReport {
  std::int32_t iterations = 0;  ///< sweeps or Newton iterations of the step
  double residual = 0.0;        ///< the solver's error measure at return
  bool converged = true;
};

class CONTACTLAB_VISIBLE MechanicsView {
 public:
  virtual ~MechanicsView() = default;

  /// Evaluates everything above at (t, y) for a step of step_s (y = [q; v], driven joints set to
  /// their prescribed motion at t by the host). Every query below reads this step until the next
  /// call. Throws SimulationError when the tree's dynamics fail.
  virtual void prepare_step(double t, std::span<const double> y, double step_s) = 0;
  /// y at the prepared step with the prescribed motions applied (nq + nv).
  virtual std::span<const double> prepared_state() const = 0;
  /// a_free at the prepared step (nv; driven coordinates: their prescribed acceleration).
  virtual std::span<const double> free_acceleration() const = 0;

  /// Joint trees that can move.
  virtual std::size_t tree_count() const = 0;
  /// Velocity coordinates (indices into v) of tree `tree`, ascending.
  virtual std::span<const std::uint32_t> tree_velocities(std::size_t tree) const = 0;
  /// M⁻¹ of tree `tree` at the prepared q, dense, row-major, n × n (n = its velocity count).
  virtual std::span<const double> tree_inverse_mass(std::size_t tree) const = 0;
  /// out = M⁻¹·f at the prepared q (both nv).
  virtual void apply_inverse_mass(std::span<const double> f, std::span<double> out) const = 0;

  /// The contact set of the prepared step.
  virtual const MechanicsContactSet& contacts() const = 0;
  /// The signed distances of the prepared points at configuration q (nq) into `distances` (one
  /// per point): the same pairs queried again (SiLVIA's δ(σ(f)), nonlinear in the forces); a point
  /// is matched to the nearest point of its pair's new manifold. No side effects on the run.
  virtual void distances_at(std::span<const double> q, std::span<double> distances) = 0;

  /// The step's contact impulses (3 per point: N, T1, T2 [N·s] over step_s), for output (forces
  /// r/h), the warm start of the next step's `previous`, and the statistics.
  virtual void report_contact_solution(std::span<const double> impulses, double step_s,
                                       const ContactSolveReport& report) = 0;
  /// Whether the run writes this step's local problem (output.contact_problems): a solver that
  /// does not assemble W anyway assembles it only then and passes it to report_contact_problem.
  virtual bool contact_problem_wanted() const = 0;
  virtual void report_contact_problem(const contact_problem::FrictionContactProblem& problem) = 0;
};

}  // namespace contactlab
