#include "universal_joint.hpp"

#include <algorithm>
#include <cmath>

namespace contactlab::plugins {

namespace {

const std::vector<CoordinateNaming>& coordinates() {
  static const std::vector<CoordinateNaming> names{
      {"angle1_", CoordinateKind::angle, "the angle about the first axis"},
      {"angle2_", CoordinateKind::angle, "the angle about the second axis"}};
  return names;
}

}  // namespace

UniversalJoint::UniversalJoint(const ParameterValues& params)
    : ScalarCoordinateJoint(params, "universal", coordinates()),
      a1_(read_axis(params, "universal", "axis1")),
      a2_(read_perpendicular_axis(params, "universal", "axis2", a1_, "axis1")) {}

ParameterSchema UniversalJoint::schema() {
  ParameterSchema schema;
  add_axis_parameters(schema, "axis1", Vec3::UnitX(), "the first axis, fixed in the parent");
  add_axis_parameters(schema, "axis2", Vec3::UnitY(),
                      "the second axis, fixed in the child (⊥ axis1 at q = 0)");
  add_element_parameters(schema, coordinates());
  return schema;
}

Pose UniversalJoint::transform(std::span<const double> q) const {
  return {axis_rotation(a1_, q[0]) * axis_rotation(a2_, q[1]), Vec3::Zero()};
}

void UniversalJoint::motion_subspace(std::span<const double> q, std::span<double> S) const {
  const Vec3 second = axis_rotation(a1_, q[0]) * a2_;
  std::fill(S.begin(), S.begin() + 12, 0.0);
  for (int i = 0; i < 3; ++i) {
    S[static_cast<std::size_t>(3 + i)] = a1_[i];         // column 0: [0; a₁]
    S[static_cast<std::size_t>(6 + 3 + i)] = second[i];  // column 1: [0; R₁a₂]
  }
}

void UniversalJoint::bias_acceleration(std::span<const double> q, std::span<const double> v,
                                       std::span<double> bias) const {
  const Vec3 second = axis_rotation(a1_, q[0]) * a2_;
  const Vec3 angular = v[0] * v[1] * a1_.cross(second);
  bias[0] = bias[1] = bias[2] = 0.0;
  bias[3] = angular.x();
  bias[4] = angular.y();
  bias[5] = angular.z();
}

bool UniversalJoint::from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P,
                               std::span<double> q, std::span<double> v) const {
  const Vec3 a3 = a1_.cross(a2_);
  const Vec3 moved_a2 = X_PC.R * a2_;  // = Rot(a₁, θ₁)·a₂
  q[0] = std::atan2(moved_a2.dot(a3), moved_a2.dot(a2_));
  // Rot(a₂, θ₂)·a₃ = cos θ₂·a₃ + sin θ₂·(a₂ × a₃) = cos θ₂·a₃ + sin θ₂·a₁.
  const Vec3 moved_a3 = axis_rotation(a1_, q[0]).transpose() * X_PC.R * a3;
  q[1] = std::atan2(moved_a3.dot(a1_), moved_a3.dot(a3));
  if (!poses_match(transform(q), X_PC)) return false;
  double S[12];
  motion_subspace(q, S);
  return velocities_from_twist(S, 2, v_P, w_P, v);
}

}  // namespace contactlab::plugins
