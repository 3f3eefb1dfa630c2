#include "planar_joint.hpp"

#include <algorithm>

namespace contactlab::plugins {

namespace {

const std::vector<CoordinateNaming>& coordinates() {
  static const std::vector<CoordinateNaming> names{
      {"x_", CoordinateKind::length, "the translation along the first in-plane axis"},
      {"y_", CoordinateKind::length, "the translation along the second in-plane axis"},
      {"rotation_", CoordinateKind::angle, "the rotation angle about the normal"}};
  return names;
}

}  // namespace

PlanarJoint::PlanarJoint(const ParameterValues& params)
    : ScalarCoordinateJoint(params, "planar", coordinates()),
      normal_(read_axis(params, "planar", "normal")),
      e1_(read_perpendicular_axis(params, "planar", "in_plane_axis", normal_, "normal")),
      e2_(normal_.cross(e1_)) {}

ParameterSchema PlanarJoint::schema() {
  ParameterSchema schema;
  add_axis_parameters(schema, "normal", Vec3::UnitZ(),
                      "the plane's normal (the rotation axis) in the joint frame");
  add_axis_parameters(schema, "in_plane_axis", Vec3::UnitX(),
                      "the first translation direction e₁ (⊥ normal; e₂ = normal × e₁)");
  add_element_parameters(schema, coordinates());
  return schema;
}

Pose PlanarJoint::transform(std::span<const double> q) const {
  return {axis_rotation(normal_, q[2]), q[0] * e1_ + q[1] * e2_};
}

void PlanarJoint::motion_subspace(std::span<const double> /*q*/, std::span<double> S) const {
  std::fill(S.begin(), S.begin() + 18, 0.0);
  for (int i = 0; i < 3; ++i) {
    S[static_cast<std::size_t>(i)] = e1_[i];               // column 0: [e₁; 0]
    S[static_cast<std::size_t>(6 + i)] = e2_[i];           // column 1: [e₂; 0]
    S[static_cast<std::size_t>(12 + 3 + i)] = normal_[i];  // column 2: [0; n]
  }
}

void PlanarJoint::bias_acceleration(std::span<const double> /*q*/, std::span<const double> /*v*/,
                                    std::span<double> bias) const {
  std::fill(bias.begin(), bias.begin() + 6, 0.0);
}

bool PlanarJoint::from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P, std::span<double> q,
                            std::span<double> v) const {
  q[0] = e1_.dot(X_PC.p);
  q[1] = e2_.dot(X_PC.p);
  q[2] = angle_about(X_PC.R, normal_);
  if (!poses_match(transform(q), X_PC)) return false;
  double S[18];
  motion_subspace(q, S);
  return velocities_from_twist(S, 3, v_P, w_P, v);
}

}  // namespace contactlab::plugins
