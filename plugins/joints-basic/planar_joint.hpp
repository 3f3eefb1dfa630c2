// Planar joint: two translations in a plane and the rotation about its normal.
#pragma once

#include <span>

#include <contactlab/parameters.hpp>

#include "joint_elements.hpp"

namespace contactlab::plugins {

/// q = [x (m), y (m), θ (rad)], v = [ẋ, ẏ, θ̇]. The unit normal n (parameters normal_x/_y/_z)
/// and the first in-plane direction e₁ (in_plane_axis_x/_y/_z, perpendicular to n); e₂ = n × e₁.
/// The translations are along the parent's fixed e₁, e₂ (not the rotated ones):
///   X_PC = (Rot(n, θ), x·e₁ + y·e₂),  S = [[e₁, e₂, 0]; [0, 0, n]],  Ṡv = 0.
/// Elements and drives per coordinate: keys prefixed x_, y_ (N/m, N·s/m, m) and rotation_
/// (N·m/rad, N·m·s/rad, rad).
class PlanarJoint final : public ScalarCoordinateJoint {
 public:
  explicit PlanarJoint(const ParameterValues& params);
  static ParameterSchema schema();

  const Vec3& normal() const { return normal_; }
  const Vec3& first_axis() const { return e1_; }
  const Vec3& second_axis() const { return e2_; }
  Pose transform(std::span<const double> q) const override;
  void motion_subspace(std::span<const double> q, std::span<double> S) const override;
  void bias_acceleration(std::span<const double> q, std::span<const double> v,
                         std::span<double> bias) const override;
  /// x = e₁·p_PC, y = e₂·p_PC, θ ∈ (−π, π] from R_PC; false unless the pose is reproduced
  /// (within 1e-9) and [v_P; w_P] lies in S's span (within 1e-9 relative).
  bool from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P, std::span<double> q,
                 std::span<double> v) const override;

 private:
  Vec3 normal_, e1_, e2_;
};

}  // namespace contactlab::plugins
