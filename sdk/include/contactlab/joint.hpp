// Joint: kinematics of one tree joint between a parent frame P and a child body frame C.
//
// Spatial velocities are 6-vectors [v; ω]: v the velocity of the child frame's origin, ω its
// angular velocity, both relative to P and expressed in P's coordinates (m/s, rad/s). Spatial
// accelerations are their time derivatives [a; ω̇] (m/s², rad/s²): S·v̇ + Ṡv.
//
// Besides its kinematics a joint may carry force elements of its own (joint_force,
// potential_energy) and may be driven (its motion prescribed in time: driven,
// prescribed_motion); both have defaults, so a purely kinematic joint implements neither.
#pragma once

#include <span>

#include "contactlab/export.hpp"
#include "contactlab/math.hpp"

namespace contactlab {

class CONTACTLAB_VISIBLE Joint {
 public:
  virtual ~Joint() = default;
  /// Number of configuration coordinates q (e.g. 7 for free: position + unit quaternion).
  virtual int nq() const = 0;
  /// Number of velocity coordinates v (e.g. 6 for free).
  virtual int nv() const = 0;
  /// The configuration at which transform() is the identity.
  virtual void neutral_configuration(std::span<double> q) const = 0;
  /// X_PC: pose of the child frame in the parent frame at configuration q.
  virtual Pose transform(std::span<const double> q) const = 0;
  /// Motion subspace S(q), 6 × nv, column-major into `S` (size 6·nv): spatial velocity = S·v.
  virtual void motion_subspace(std::span<const double> q, std::span<double> S) const = 0;
  /// Bias acceleration Ṡ(q, v)·v (6 values), the part of the spatial acceleration not due to v̇.
  virtual void bias_acceleration(std::span<const double> q, std::span<const double> v,
                                 std::span<double> bias) const = 0;
  /// q̇ for velocity v (size nq): what an ODE integrator integrates.
  virtual void configuration_rate(std::span<const double> q, std::span<const double> v,
                                  std::span<double> q_rate) const = 0;
  /// q_out = q ⊕ v·dt on the configuration manifold (unit quaternions stay unit).
  virtual void integrate(std::span<const double> q, std::span<const double> v, double dt,
                         std::span<double> q_out) const = 0;
  /// Projects q back onto the manifold after an integrator step in the embedding space.
  virtual void normalize(std::span<double> q) const = 0;
  /// Finds q and v realising the child pose X_PC with spatial velocity [v; ω] (in P). Returns
  /// false when the joint cannot represent them.
  virtual bool from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P, std::span<double> q,
                         std::span<double> v) const = 0;

  // --- Force elements of the joint itself (springs, dampers, limits) ---------------------------
  //
  // The generalized force τ is conjugate to v: the power it delivers to the child is τ·v [W].
  // Its components are in the units of the matching velocity coordinate's dual: N for a
  // translational coordinate (v in m/s), N·m for a rotational one (v in rad/s). Positive τ_i
  // accelerates v_i positively. The host adds τ to the joint-space right-hand side of the
  // equations of motion (SᵀMS·v̇ = Sᵀ·(applied wrench − velocity and bias terms) + τ); τ acts
  // between parent and child (equal and opposite on the parent).

  /// Generalized force of the joint's own elements at time t [s], configuration q and velocity
  /// v, written into `tau` (nv values). Typical elements: a linear spring–damper about a rest
  /// position, τ = −k·(q − q_rest) − c·v, and position limits acting as stiff one-sided
  /// spring–dampers that act only while a limit is violated and never pull the coordinate back
  /// across the limit (the force at the lower limit is ≥ 0, at the upper limit ≤ 0). Called in
  /// every right-hand-side evaluation: no heap allocation. Default: zeros (no elements).
  virtual void joint_force(double /*t*/, std::span<const double> /*q*/,
                           std::span<const double> /*v*/, std::span<double> tau) const {
    for (int i = 0; i < nv(); ++i) tau[static_cast<std::size_t>(i)] = 0.0;
  }

  /// Energy [J] stored in the conservative part of joint_force() at q (springs and violated
  /// limits): its conservative part is −∂E/∂q along each velocity coordinate (the dampers are
  /// dissipative and store nothing). For the energy balance the host reports. Default: 0.
  virtual double potential_energy(std::span<const double> /*q*/) const { return 0.0; }

  // --- Driven (rheonomic) mode -------------------------------------------------------------------
  //
  // A driven joint's coordinates are a prescribed function of time, not degrees of freedom.
  // The host must (1) not integrate them: at every evaluation at time t it overwrites the joint's
  // q and v in the state with prescribed_motion(t) (and the same after every step and at output
  // times, so that what is recorded is the prescribed motion); (2) use the returned v̇ as the
  // joint's acceleration instead of solving for it (the reaction force that enforces the motion
  // follows from the equations of motion; for a body hanging from the world it is not needed);
  // (3) ignore joint_force() for these coordinates (the motion is imposed whatever the forces).

  /// True when the joint's motion is prescribed (see prescribed_motion). Default: false.
  virtual bool driven() const { return false; }

  /// The prescribed motion at time t [s]: q (nq values), v (nv values) and v̇ (nv values), in
  /// the joint's own coordinate units (m, rad; m/s, rad/s; m/s², rad/s²). v and v̇ are the exact
  /// time derivatives of the prescribed q(t) (one-sided at the breakpoints of piecewise
  /// profiles). Called only when driven() is true; no heap allocation. Default: does nothing.
  virtual void prescribed_motion(double /*t*/, std::span<double> /*q*/, std::span<double> /*v*/,
                                 std::span<double> /*v_dot*/) const {}
};

}  // namespace contactlab
