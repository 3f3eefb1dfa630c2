// Joint: kinematics of one tree joint between a parent frame P and a child body frame C.
//
// Spatial velocities are 6-vectors [v; ω]: v the velocity of the child frame's origin, ω its
// angular velocity, both relative to P and expressed in P's coordinates (m/s, rad/s).
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
};

}  // namespace contactlab
