#include "free_joint.hpp"

#include <algorithm>
#include <cmath>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

namespace {

Eigen::Quaterniond quaternion_of(std::span<const double> q) {
  return Eigen::Quaterniond(q[3], q[4], q[5], q[6]);  // (w, x, y, z)
}

void store_quaternion(const Eigen::Quaterniond& quat, std::span<double> q) {
  q[3] = quat.w();
  q[4] = quat.x();
  q[5] = quat.y();
  q[6] = quat.z();
}

}  // namespace

FreeJoint::FreeJoint(const ParameterValues& /*params*/) {}

ParameterSchema FreeJoint::schema() {
  return {};
}

void FreeJoint::neutral_configuration(std::span<double> q) const {
  std::fill(q.begin(), q.begin() + 7, 0.0);
  q[3] = 1.0;  // identity rotation
}

Pose FreeJoint::transform(std::span<const double> q) const {
  Pose X_PC;
  X_PC.R = quaternion_of(q).normalized().toRotationMatrix();
  X_PC.p = Vec3(q[0], q[1], q[2]);
  return X_PC;
}

void FreeJoint::motion_subspace(std::span<const double> /*q*/, std::span<double> S) const {
  // S = I₆, column-major: element (row, col) at S[row + 6·col].
  std::fill(S.begin(), S.begin() + 36, 0.0);
  for (int i = 0; i < 6; ++i) S[static_cast<std::size_t>(i * 7)] = 1.0;
}

void FreeJoint::bias_acceleration(std::span<const double> /*q*/, std::span<const double> /*v*/,
                                  std::span<double> bias) const {
  // S is constant and v is already the time derivative of p_PC and the angular velocity in P.
  std::fill(bias.begin(), bias.begin() + 6, 0.0);
}

void FreeJoint::configuration_rate(std::span<const double> q, std::span<const double> v,
                                   std::span<double> q_rate) const {
  q_rate[0] = v[0];
  q_rate[1] = v[1];
  q_rate[2] = v[2];
  // Ṙ_PC = [ω_P]×·R_PC  ⇔  q̇uat = ½·(0, ω_P) ⊗ quat (left product: ω is in the parent frame).
  const Eigen::Quaterniond omega(0.0, v[3], v[4], v[5]);
  const Eigen::Quaterniond product = omega * quaternion_of(q);
  q_rate[3] = 0.5 * product.w();
  q_rate[4] = 0.5 * product.x();
  q_rate[5] = 0.5 * product.y();
  q_rate[6] = 0.5 * product.z();
}

void FreeJoint::integrate(std::span<const double> q, std::span<const double> v, double dt,
                          std::span<double> q_out) const {
  // Read everything before writing: q_out may alias q.
  const Vec3 p_PC(q[0], q[1], q[2]);
  const Eigen::Quaterniond quat = quaternion_of(q);
  const Vec3 rotation_vector_P = Vec3(v[3], v[4], v[5]) * dt;  // φ = ω·dt
  const double angle_rad = rotation_vector_P.norm();
  // exp(½·φ) = (cos(θ/2), sin(θ/2)/θ · φ). sin(θ/2)/θ → ½ as θ → 0: use its Taylor series
  // ½ − θ²/48 + θ⁴/3840 (next term θ⁶/645120 < 1e-29 for θ < 1e-4) to avoid 0/0.
  const double sin_half_over_angle =
      angle_rad < 1e-4 ? 0.5 - angle_rad * angle_rad / 48.0 +
                             angle_rad * angle_rad * angle_rad * angle_rad / 3840.0
                       : std::sin(0.5 * angle_rad) / angle_rad;
  const Vec3 axis_part = sin_half_over_angle * rotation_vector_P;
  const Eigen::Quaterniond increment(std::cos(0.5 * angle_rad), axis_part.x(), axis_part.y(),
                                     axis_part.z());
  // Left multiplication: the rotation increment is expressed in P.
  const Eigen::Quaterniond quat_next = (increment * quat).normalized();

  q_out[0] = p_PC.x() + v[0] * dt;
  q_out[1] = p_PC.y() + v[1] * dt;
  q_out[2] = p_PC.z() + v[2] * dt;
  store_quaternion(quat_next, q_out);
}

void FreeJoint::normalize(std::span<double> q) const {
  const double norm = std::sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]);
  if (!(std::isfinite(norm) && norm > 0.0)) {
    throw SimulationError(
        "free joint: the orientation quaternion is zero or not finite and cannot be normalised");
  }
  // No sign flip to w ≥ 0: q and −q are the same rotation, and flipping would make q jump in time.
  for (std::size_t i = 3; i < 7; ++i) q[i] /= norm;
}

bool FreeJoint::from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P, std::span<double> q,
                          std::span<double> v) const {
  Eigen::Quaterniond quat(X_PC.R);
  quat.normalize();
  // A fresh configuration has no history to stay continuous with: pick the canonical w ≥ 0.
  if (quat.w() < 0.0) quat.coeffs() = -quat.coeffs();
  q[0] = X_PC.p.x();
  q[1] = X_PC.p.y();
  q[2] = X_PC.p.z();
  store_quaternion(quat, q);
  for (int i = 0; i < 3; ++i) {
    v[static_cast<std::size_t>(i)] = v_P[i];
    v[static_cast<std::size_t>(i + 3)] = w_P[i];
  }
  return true;
}

}  // namespace contactlab::plugins
