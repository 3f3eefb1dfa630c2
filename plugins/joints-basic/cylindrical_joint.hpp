// Cylindrical joint: independent translation along and rotation about one axis.
#pragma once

#include <span>

#include <contactlab/parameters.hpp>

#include "joint_elements.hpp"

namespace contactlab::plugins {

/// q = [d (m), θ (rad)], v = [ḋ, θ̇]. The unit axis a (parameters axis_x/_y/_z, joint frame):
///   X_PC(d, θ) = (Rot(a, θ), d·a),  S = [[a, 0]; [0, a]],  Ṡv = 0.
/// Elements and drives per coordinate: keys prefixed translation_ (N/m, N·s/m, m) and
/// rotation_ (N·m/rad, N·m·s/rad, rad).
class CylindricalJoint final : public ScalarCoordinateJoint {
 public:
  explicit CylindricalJoint(const ParameterValues& params);
  static ParameterSchema schema();

  const Vec3& axis() const { return axis_; }
  Pose transform(std::span<const double> q) const override;
  void motion_subspace(std::span<const double> q, std::span<double> S) const override;
  void bias_acceleration(std::span<const double> q, std::span<const double> v,
                         std::span<double> bias) const override;
  /// d = a·p_PC, θ ∈ (−π, π] from R_PC; false unless the pose is reproduced (within 1e-9) and
  /// [v_P; w_P] lies in S's span (within 1e-9 relative).
  bool from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P, std::span<double> q,
                 std::span<double> v) const override;

 private:
  Vec3 axis_;
};

}  // namespace contactlab::plugins
