#include "helical_joint.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace contactlab::plugins {

namespace {

const std::vector<CoordinateNaming>& coordinates() {
  static const std::vector<CoordinateNaming> names{
      {"", CoordinateKind::angle, "the rotation angle"}};
  return names;
}

}  // namespace

HelicalJoint::HelicalJoint(const ParameterValues& params)
    : ScalarCoordinateJoint(params, "helical", coordinates()),
      axis_(read_axis(params, "helical", "axis")),
      pitch_(params.real("pitch_m_per_rad")) {}

ParameterSchema HelicalJoint::schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSchema schema;
  add_axis_parameters(schema, "axis", Vec3::UnitZ(), "the screw axis in the joint frame");
  schema.push_back(real_parameter("pitch_m_per_rad", 0.001, -inf, inf, "m/rad",
                                  "translation along the axis per radian of rotation (the lead "
                                  "per turn divided by 2π; negative: left-handed)"));
  add_element_parameters(schema, coordinates());
  return schema;
}

Pose HelicalJoint::transform(std::span<const double> q) const {
  return {axis_rotation(axis_, q[0]), pitch_ * q[0] * axis_};
}

void HelicalJoint::motion_subspace(std::span<const double> /*q*/, std::span<double> S) const {
  for (int i = 0; i < 3; ++i) {
    S[static_cast<std::size_t>(i)] = pitch_ * axis_[i];
    S[static_cast<std::size_t>(i + 3)] = axis_[i];
  }
}

void HelicalJoint::bias_acceleration(std::span<const double> /*q*/, std::span<const double> /*v*/,
                                     std::span<double> bias) const {
  std::fill(bias.begin(), bias.begin() + 6, 0.0);
}

bool HelicalJoint::from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P,
                             std::span<double> q, std::span<double> v) const {
  // The angle modulo 2π from the rotation (well conditioned whatever the pitch), the number of
  // turns from the translation.
  const double principal = angle_about(X_PC.R, axis_);
  q[0] = principal;
  if (pitch_ != 0.0) {
    const double turns =
        std::round((axis_.dot(X_PC.p) / pitch_ - principal) / (2.0 * std::numbers::pi));
    q[0] = principal + 2.0 * std::numbers::pi * turns;
  }
  if (!poses_match(transform(q), X_PC)) return false;
  double S[6];
  motion_subspace(q, S);
  return velocities_from_twist(S, 1, v_P, w_P, v);
}

}  // namespace contactlab::plugins
