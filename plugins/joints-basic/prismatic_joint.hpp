// Prismatic (sliding) joint: one translation along a fixed axis.
#pragma once

#include <span>

#include <contactlab/parameters.hpp>

#include "joint_elements.hpp"

namespace contactlab::plugins {

/// q = [d] (m), v = [ḋ] (m/s). The axis a (unit, parameters axis_x/_y/_z, in the joint frame
/// J = P):
///   X_PC(d) = (1, d·a),  S = [a; 0],  Ṡv = 0.
/// Optional spring–damper, limits and drive on d (keys in N/m, N·s/m, m).
class PrismaticJoint final : public ScalarCoordinateJoint {
 public:
  explicit PrismaticJoint(const ParameterValues& params);
  static ParameterSchema schema();

  const Vec3& axis() const { return axis_; }
  Pose transform(std::span<const double> q) const override;
  void motion_subspace(std::span<const double> q, std::span<double> S) const override;
  void bias_acceleration(std::span<const double> q, std::span<const double> v,
                         std::span<double> bias) const override;
  /// d = a·p_PC; false unless R_PC = 1 and p_PC = d·a (within 1e-9) and [v_P; w_P] = [a·ḋ; 0]
  /// (within 1e-9 relative).
  bool from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P, std::span<double> q,
                 std::span<double> v) const override;

 private:
  Vec3 axis_;
};

}  // namespace contactlab::plugins
