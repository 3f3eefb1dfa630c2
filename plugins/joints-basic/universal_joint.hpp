// Universal (Hooke, Cardan) joint: two rotations about perpendicular axes.
#pragma once

#include <span>

#include <contactlab/parameters.hpp>

#include "joint_elements.hpp"

namespace contactlab::plugins {

/// q = [θ₁, θ₂] (rad), v = [θ̇₁, θ̇₂]. The first unit axis a₁ (axis1_x/_y/_z) is fixed in the
/// parent, the second a₂ (axis2_x/_y/_z, ⊥ a₁ at q = 0) is fixed in the child; both pass
/// through the common origin of P and C:
///   R_PC = Rot(a₁, θ₁)·Rot(a₂, θ₂),  p_PC = 0,
///   ω = a₁·θ̇₁ + Rot(a₁, θ₁)·a₂·θ̇₂  ⇒  S = [[0, 0]; [a₁, R₁a₂]],
///   Ṡv = [0; θ̇₁·θ̇₂·(a₁ × R₁a₂)]  (d/dt R₁a₂ = θ̇₁·a₁ × R₁a₂).
/// Elements and drives per angle: keys prefixed angle1_ and angle2_ (N·m/rad, N·m·s/rad, rad).
class UniversalJoint final : public ScalarCoordinateJoint {
 public:
  explicit UniversalJoint(const ParameterValues& params);
  static ParameterSchema schema();

  const Vec3& first_axis() const { return a1_; }
  const Vec3& second_axis() const { return a2_; }
  Pose transform(std::span<const double> q) const override;
  void motion_subspace(std::span<const double> q, std::span<double> S) const override;
  void bias_acceleration(std::span<const double> q, std::span<const double> v,
                         std::span<double> bias) const override;
  /// With a₃ = a₁ × a₂: R·a₂ = cos θ₁·a₂ + sin θ₁·a₃ gives θ₁, then Rot(a₁, θ₁)ᵀR = Rot(a₂, θ₂)
  /// gives θ₂ (both in (−π, π]); false unless the pose is reproduced (within 1e-9, i.e. R·a₂ ⊥
  /// a₁ and p_PC = 0) and [v_P; w_P] lies in S's span (within 1e-9 relative).
  bool from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P, std::span<double> q,
                 std::span<double> v) const override;

 private:
  Vec3 a1_, a2_;
};

}  // namespace contactlab::plugins
