#include "revolute_joint.hpp"

#include <algorithm>

namespace contactlab::plugins {

namespace {

const std::vector<CoordinateNaming>& coordinates() {
  static const std::vector<CoordinateNaming> names{{"", CoordinateKind::angle, "the angle"}};
  return names;
}

}  // namespace

RevoluteJoint::RevoluteJoint(const ParameterValues& params)
    : ScalarCoordinateJoint(params, "revolute", coordinates()),
      axis_(read_axis(params, "revolute", "axis")) {}

ParameterSchema RevoluteJoint::schema() {
  ParameterSchema schema;
  add_axis_parameters(schema, "axis", Vec3::UnitZ(),
                      "the rotation axis in the joint frame (through its origin)");
  add_element_parameters(schema, coordinates());
  return schema;
}

Pose RevoluteJoint::transform(std::span<const double> q) const {
  return {axis_rotation(axis_, q[0]), Vec3::Zero()};
}

void RevoluteJoint::motion_subspace(std::span<const double> /*q*/, std::span<double> S) const {
  S[0] = S[1] = S[2] = 0.0;
  S[3] = axis_.x();
  S[4] = axis_.y();
  S[5] = axis_.z();
}

void RevoluteJoint::bias_acceleration(std::span<const double> /*q*/, std::span<const double> /*v*/,
                                      std::span<double> bias) const {
  std::fill(bias.begin(), bias.begin() + 6, 0.0);
}

bool RevoluteJoint::from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P,
                              std::span<double> q, std::span<double> v) const {
  q[0] = angle_about(X_PC.R, axis_);
  if (!poses_match(transform(q), X_PC)) return false;
  double S[6];
  motion_subspace(q, S);
  return velocities_from_twist(S, 1, v_P, w_P, v);
}

}  // namespace contactlab::plugins
