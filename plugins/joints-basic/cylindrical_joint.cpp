#include "cylindrical_joint.hpp"

#include <algorithm>

namespace contactlab::plugins {

namespace {

const std::vector<CoordinateNaming>& coordinates() {
  static const std::vector<CoordinateNaming> names{
      {"translation_", CoordinateKind::length, "the translation along the axis"},
      {"rotation_", CoordinateKind::angle, "the rotation angle about the axis"}};
  return names;
}

}  // namespace

CylindricalJoint::CylindricalJoint(const ParameterValues& params)
    : ScalarCoordinateJoint(params, "cylindrical", coordinates()),
      axis_(read_axis(params, "cylindrical", "axis")) {}

ParameterSchema CylindricalJoint::schema() {
  ParameterSchema schema;
  add_axis_parameters(schema, "axis", Vec3::UnitZ(),
                      "the common sliding and rotation axis in the joint frame");
  add_element_parameters(schema, coordinates());
  return schema;
}

Pose CylindricalJoint::transform(std::span<const double> q) const {
  return {axis_rotation(axis_, q[1]), q[0] * axis_};
}

void CylindricalJoint::motion_subspace(std::span<const double> /*q*/, std::span<double> S) const {
  std::fill(S.begin(), S.begin() + 12, 0.0);
  for (int i = 0; i < 3; ++i) {
    S[static_cast<std::size_t>(i)] = axis_[i];          // column 0: [a; 0]
    S[static_cast<std::size_t>(6 + 3 + i)] = axis_[i];  // column 1: [0; a]
  }
}

void CylindricalJoint::bias_acceleration(std::span<const double> /*q*/,
                                         std::span<const double> /*v*/,
                                         std::span<double> bias) const {
  std::fill(bias.begin(), bias.begin() + 6, 0.0);
}

bool CylindricalJoint::from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P,
                                 std::span<double> q, std::span<double> v) const {
  q[0] = axis_.dot(X_PC.p);
  q[1] = angle_about(X_PC.R, axis_);
  if (!poses_match(transform(q), X_PC)) return false;
  double S[12];
  motion_subspace(q, S);
  return velocities_from_twist(S, 2, v_P, w_P, v);
}

}  // namespace contactlab::plugins
