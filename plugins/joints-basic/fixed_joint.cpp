#include "fixed_joint.hpp"

#include <algorithm>

namespace contactlab::plugins {

namespace {

// Absolute tolerance of from_pose on pose entries [1, m] and velocities [m/s, rad/s]: rounding of
// a pose composed from a few transforms, far below anything physically meaningful.
constexpr double kWeldTolerance = 1e-12;

}  // namespace

FixedJoint::FixedJoint(const ParameterValues& /*params*/) {}

ParameterSchema FixedJoint::schema() {
  return {};
}

void FixedJoint::neutral_configuration(std::span<double> /*q*/) const {}

Pose FixedJoint::transform(std::span<const double> /*q*/) const {
  return Pose::identity();
}

void FixedJoint::motion_subspace(std::span<const double> /*q*/, std::span<double> /*S*/) const {}

void FixedJoint::bias_acceleration(std::span<const double> /*q*/, std::span<const double> /*v*/,
                                   std::span<double> bias) const {
  std::fill(bias.begin(), bias.begin() + 6, 0.0);
}

void FixedJoint::configuration_rate(std::span<const double> /*q*/, std::span<const double> /*v*/,
                                    std::span<double> /*q_rate*/) const {}

void FixedJoint::integrate(std::span<const double> /*q*/, std::span<const double> /*v*/,
                           double /*dt*/, std::span<double> /*q_out*/) const {}

void FixedJoint::normalize(std::span<double> /*q*/) const {}

bool FixedJoint::from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P,
                           std::span<double> /*q*/, std::span<double> /*v*/) const {
  const bool identity_pose = (X_PC.R - Mat3::Identity()).cwiseAbs().maxCoeff() <= kWeldTolerance &&
                             X_PC.p.cwiseAbs().maxCoeff() <= kWeldTolerance;
  const bool at_rest =
      v_P.cwiseAbs().maxCoeff() <= kWeldTolerance && w_P.cwiseAbs().maxCoeff() <= kWeldTolerance;
  return identity_pose && at_rest;
}

}  // namespace contactlab::plugins
