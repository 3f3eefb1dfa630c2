// Helical (screw) joint: rotation about an axis coupled to translation along it.
#pragma once

#include <span>

#include <contactlab/parameters.hpp>

#include "joint_elements.hpp"

namespace contactlab::plugins {

/// q = [θ] (rad), v = [θ̇] (rad/s); the translation along the unit axis a is h·θ with the pitch
/// h = pitch_m_per_rad (h > 0: right-handed screw, advancing along +a when turning positively;
/// h = 0 degenerates to a revolute joint):
///   X_PC(θ) = (Rot(a, θ), h·θ·a),  S = [h·a; a],  Ṡv = 0.
/// The generalized force conjugate to θ̇ is the torque about a plus h times the force along a.
/// Optional spring–damper, limits and drive on θ (keys in N·m/rad, N·m·s/rad, rad).
class HelicalJoint final : public ScalarCoordinateJoint {
 public:
  explicit HelicalJoint(const ParameterValues& params);
  static ParameterSchema schema();

  const Vec3& axis() const { return axis_; }
  double pitch_m_per_rad() const { return pitch_; }
  Pose transform(std::span<const double> q) const override;
  void motion_subspace(std::span<const double> q, std::span<double> S) const override;
  void bias_acceleration(std::span<const double> q, std::span<const double> v,
                         std::span<double> bias) const override;
  /// θ: the angle of R_PC about a, plus the whole turns that best match a·p_PC = h·θ (h ≠ 0;
  /// for h = 0 the angle in (−π, π]); false
  /// unless X_PC(θ) reproduces the pose (within 1e-9) and [v_P; w_P] = [h·a; a]·θ̇ (within 1e-9
  /// relative).
  bool from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P, std::span<double> q,
                 std::span<double> v) const override;

 private:
  Vec3 axis_;
  double pitch_ = 0.0;
};

}  // namespace contactlab::plugins
