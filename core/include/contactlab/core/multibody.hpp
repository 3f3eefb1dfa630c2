// Multibody dynamics of a tree of rigid bodies connected by Joint plugins: forward kinematics, the
// joint-space mass matrix (composite-rigid-body algorithm, CRBA), inverse dynamics and bias forces
// (recursive Newton–Euler, RNEA) and forward dynamics (articulated-body algorithm, ABA, O(n)).
// Featherstone, "Rigid Body Dynamics Algorithms" (2008), tables 5.1 (RNEA), 6.2 (CRBA), 7.1 (ABA).
//
// Equations of motion: M(q)·v̇ + c(q, v) = τ, with c = C(q, v)·v + g(q) − Σ Jᵢᵀ·wᵢ (Coriolis and
// centrifugal terms, gravity, external wrenches wᵢ).
//
// Internal convention (the public API never exposes it): Featherstone's spatial vectors in the
// coordinates of each body frame B with B's origin as reference point, angular part first:
//   motion  m = [ω; v]  (ω angular velocity, v velocity of the body-fixed point at B's origin),
//   force   f = [n; f]  (n moment about B's origin, f force).
// The Joint interface gives S and Ṡv as [v; ω] in the joint's parent frame J (v the velocity of
// the child origin); they are converted at the boundary, per evaluation:
//   S_B = [R_JCᵀ·S_ω; R_JCᵀ·S_v],
//   c_J = d/dt(S_B·v) − S_B·v̇ = [R_JCᵀ·b_ω; R_JCᵀ·(b_v − ω_J × v_J)]
// (b = the joint's bias_acceleration, [v_J; ω_J] = S·v in J; the ω_J × v_J term is the rotation of
// the child axes relative to J, e.g. for a free joint whose velocities are parent-aligned).
// The body acceleration then follows a_B = ᴮX_λ·a_λ + S_B·v̇ + c_J + v_B × (S_B·v) (c_J the
// apparent derivative of S_B·v in B). Gravity enters as the fictitious base
// acceleration a_world = [0; −g].
//
// Threading and memory: every workspace is allocated at construction; the evaluation functions
// neither allocate nor are re-entrant on one tree (they share the workspace). Each evaluation
// refreshes the kinematics read by pose_WB(), velocity_WBo() and angular_velocity_W().
#pragma once

#include <memory>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "contactlab/core/shape_library.hpp"
#include "contactlab/joint.hpp"
#include "contactlab/math.hpp"

namespace contactlab::core {

/// One body of a MultibodyTree, given in topological order (parent index < own index).
struct MultibodyBody {
  /// Index of the parent body, −1 for the world.
  int parent = -1;
  /// Joint between the parent and this body; null welds the body to its parent (like a fixed
  /// joint: nq = nv = 0, X_JB = identity).
  std::shared_ptr<const Joint> joint;
  /// X_PJ: pose of the joint's parent frame J in the parent body's frame (in the world frame for
  /// a root body). The body frame B is then X_PB = X_PJ · joint.transform(q).
  Pose X_PJ;
  /// Mass, COM p_BCm in B and inertia about the COM in B's axes. Ignored (may be infinite) for
  /// bodies welded to the world through fixed joints only; finite and mass ≥ 0 otherwise.
  MassProperties mass;
  /// The joint's acceleration is prescribed (a driven joint): forward_dynamics reads it from
  /// v_dot instead of solving for it and ignores its τ (hybrid dynamics, Featherstone 2008
  /// §9.2). Other functions treat the joint as usual.
  bool prescribed = false;
};

/// External wrench on one body: force and torque about the body origin, world axes (what the
/// simulation accumulates from gravity-free loads and contacts: force_W, torque_Bo_W).
struct BodyWrench {
  Vec3 force_W = Vec3::Zero();      ///< [N]
  Vec3 torque_Bo_W = Vec3::Zero();  ///< [N·m], about the body origin
};

class MultibodyTree {
 public:
  /// Validates and sizes everything. Throws InputError for a parent index not smaller than the
  /// body's own (or < −1), a joint with nv outside 0..6 or nq < 0, or non-finite / negative mass
  /// properties of a body that can move.
  explicit MultibodyTree(std::vector<MultibodyBody> bodies);
  ~MultibodyTree();
  MultibodyTree(MultibodyTree&&) noexcept;
  MultibodyTree& operator=(MultibodyTree&&) noexcept;
  MultibodyTree(const MultibodyTree&) = delete;
  MultibodyTree& operator=(const MultibodyTree&) = delete;

  std::size_t body_count() const;
  int nq() const { return nq_; }
  int nv() const { return nv_; }
  const MultibodyBody& body(std::size_t i) const;
  /// Offsets of body i's coordinates in q and v, and their counts.
  int q_offset(std::size_t i) const;
  int v_offset(std::size_t i) const;
  int body_nq(std::size_t i) const;
  int body_nv(std::size_t i) const;

  /// World poses and velocities of every body (read them with the accessors below).
  void forward_kinematics(std::span<const double> q, std::span<const double> v);
  /// X_WB of body i from the last evaluation (any of the functions here).
  const Pose& pose_WB(std::size_t i) const;
  /// Velocity of body i's origin [m/s] and its angular velocity [rad/s], world axes, from the last
  /// evaluation that took v (not mass_matrix).
  Vec3 velocity_WBo(std::size_t i) const;
  Vec3 angular_velocity_W(std::size_t i) const;

  /// Joint-space mass matrix M(q) (CRBA), nv × nv, symmetric positive definite. M must already be
  /// nv × nv (it is not resized).
  void mass_matrix(std::span<const double> q, Eigen::Ref<Eigen::MatrixXd> M);
  /// c = C(q, v)·v + g(q) − Σ Jᵀ·w: the joint forces that give v̇ = 0 (RNEA). `gravity_W` is the
  /// gravitational acceleration [m/s²]; `external` holds one wrench per body, or is empty.
  void bias_forces(std::span<const double> q, std::span<const double> v, const Vec3& gravity_W,
                   std::span<const BodyWrench> external, std::span<double> c);
  /// τ = M·v̇ + c (RNEA).
  void inverse_dynamics(std::span<const double> q, std::span<const double> v,
                        std::span<const double> v_dot, const Vec3& gravity_W,
                        std::span<const BodyWrench> external, std::span<double> tau);
  /// v̇ = M⁻¹·(τ − c) by the articulated-body algorithm, O(n). Throws SimulationError when a
  /// joint's articulated inertia is not positive definite (a subtree without mass or inertia
  /// along the joint's motion). Hybrid dynamics when bodies are `prescribed`: their entries of
  /// v_dot are inputs (kept), the others solve M_ff·v̇_f = τ_f − c_f − M_fp·v̇_p.
  void forward_dynamics(std::span<const double> q, std::span<const double> v,
                        std::span<const double> tau, const Vec3& gravity_W,
                        std::span<const BodyWrench> external, std::span<double> v_dot);

 private:
  struct Node;
  enum class Pass { positions, velocities };
  void kinematics(std::span<const double> q, std::span<const double> v, Pass pass);
  void external_forces(std::span<const BodyWrench> external);
  void check_sizes(std::span<const double> q, std::span<const double> v) const;

  std::vector<MultibodyBody> bodies_;
  std::vector<Node> nodes_;
  int nq_ = 0, nv_ = 0;
  /// The (q, v) of the last velocity pass: forward_dynamics and inverse_dynamics reuse its
  /// kinematics when called at the same values (the host evaluates them first, then the forces,
  /// then the dynamics at the same state).
  std::vector<double> kinematics_q_, kinematics_v_;
  bool kinematics_current_ = false;
  bool kinematics_at(std::span<const double> q, std::span<const double> v) const;
};

}  // namespace contactlab::core
