// Revolute joint: one rotation about a fixed axis.
#pragma once

#include <span>

#include <contactlab/parameters.hpp>

#include "joint_elements.hpp"

namespace contactlab::plugins {

/// q = [θ] (rad), v = [θ̇] (rad/s). The axis a (unit, parameters axis_x/_y/_z, in the joint
/// frame J = P) passes through the origins of P and C, which coincide:
///   X_PC(θ) = (Rot(a, θ), 0),  S = [0; a],  Ṡv = 0.
/// Optional spring–damper, limits and drive on θ (keys in N·m/rad, N·m·s/rad, rad).
class RevoluteJoint final : public ScalarCoordinateJoint {
 public:
  explicit RevoluteJoint(const ParameterValues& params);
  static ParameterSchema schema();

  const Vec3& axis() const { return axis_; }
  Pose transform(std::span<const double> q) const override;
  void motion_subspace(std::span<const double> q, std::span<double> S) const override;
  void bias_acceleration(std::span<const double> q, std::span<const double> v,
                         std::span<double> bias) const override;
  /// θ ∈ (−π, π] from R_PC; false unless p_PC = 0 and R_PC is a rotation about a (within 1e-9),
  /// and [v_P; w_P] = [0; a·θ̇] (within 1e-9 relative).
  bool from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P, std::span<double> q,
                 std::span<double> v) const override;

 private:
  Vec3 axis_;
};

}  // namespace contactlab::plugins
