#include "prismatic_joint.hpp"

#include <algorithm>

namespace contactlab::plugins {

namespace {

const std::vector<CoordinateNaming>& coordinates() {
  static const std::vector<CoordinateNaming> names{
      {"", CoordinateKind::length, "the translation along the axis"}};
  return names;
}

}  // namespace

PrismaticJoint::PrismaticJoint(const ParameterValues& params)
    : ScalarCoordinateJoint(params, "prismatic", coordinates()),
      axis_(read_axis(params, "prismatic", "axis")) {}

ParameterSchema PrismaticJoint::schema() {
  ParameterSchema schema;
  add_axis_parameters(schema, "axis", Vec3::UnitZ(), "the sliding direction in the joint frame");
  add_element_parameters(schema, coordinates());
  return schema;
}

Pose PrismaticJoint::transform(std::span<const double> q) const {
  return {Mat3::Identity(), q[0] * axis_};
}

void PrismaticJoint::motion_subspace(std::span<const double> /*q*/, std::span<double> S) const {
  S[0] = axis_.x();
  S[1] = axis_.y();
  S[2] = axis_.z();
  S[3] = S[4] = S[5] = 0.0;
}

void PrismaticJoint::bias_acceleration(std::span<const double> /*q*/, std::span<const double> /*v*/,
                                       std::span<double> bias) const {
  std::fill(bias.begin(), bias.begin() + 6, 0.0);
}

bool PrismaticJoint::from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P,
                               std::span<double> q, std::span<double> v) const {
  q[0] = axis_.dot(X_PC.p);
  if (!poses_match(transform(q), X_PC)) return false;
  double S[6];
  motion_subspace(q, S);
  return velocities_from_twist(S, 1, v_P, w_P, v);
}

}  // namespace contactlab::plugins
