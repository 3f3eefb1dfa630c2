#include "spherical_joint.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <contactlab/errors.hpp>

#include "joint_elements.hpp"

namespace contactlab::plugins {

namespace {

Eigen::Quaterniond quaternion_of(std::span<const double> q) {
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]);  // (w, x, y, z)
}

/// φ = log(R) of the rotation of the (not necessarily unit) quaternion, |φ| ≤ π.
Vec3 rotation_vector(std::span<const double> q) {
  Eigen::Quaterniond quat = quaternion_of(q).normalized();
  if (quat.w() < 0.0) quat.coeffs() = -quat.coeffs();  // the shorter way: angle ≤ π
  const Vec3 imaginary = quat.vec();
  const double s = imaginary.norm();
  if (s < 1e-300) return Vec3::Zero();
  const double angle = 2.0 * std::atan2(s, quat.w());
  return (angle / s) * imaginary;
}

}  // namespace

SphericalJoint::SphericalJoint(const ParameterValues& params)
    : stiffness_(params.real("stiffness_N_m_per_rad")),
      damping_(params.real("damping_N_m_s_per_rad")) {
  if (stiffness_ < 0.0 || damping_ < 0.0)
    throw InputError(
        "spherical joint: params.stiffness_N_m_per_rad and damping_N_m_s_per_rad "
        "must be ≥ 0");
}

ParameterSchema SphericalJoint::schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  return {
      real_parameter("stiffness_N_m_per_rad", 0.0, 0.0, inf, "N·m/rad",
                     "isotropic torsion spring about the neutral orientation: τ = −k·φ (0: none)"),
      real_parameter("damping_N_m_s_per_rad", 0.0, 0.0, inf, "N·m·s/rad",
                     "isotropic rotational damper: τ = −c·ω (0: none)"),
  };
}

void SphericalJoint::neutral_configuration(std::span<double> q) const {
  q[0] = 1.0;
  q[1] = q[2] = q[3] = 0.0;
}

Pose SphericalJoint::transform(std::span<const double> q) const {
  return {quaternion_of(q).normalized().toRotationMatrix(), Vec3::Zero()};
}

void SphericalJoint::motion_subspace(std::span<const double> /*q*/, std::span<double> S) const {
  std::fill(S.begin(), S.begin() + 18, 0.0);
  for (int k = 0; k < 3; ++k) S[static_cast<std::size_t>(6 * k + 3 + k)] = 1.0;
}

void SphericalJoint::bias_acceleration(std::span<const double> /*q*/, std::span<const double> /*v*/,
                                       std::span<double> bias) const {
  std::fill(bias.begin(), bias.begin() + 6, 0.0);
}

void SphericalJoint::configuration_rate(std::span<const double> q, std::span<const double> v,
                                        std::span<double> q_rate) const {
  // Ṙ_PC = [ω]×·R_PC ⇔ q̇ = ½·(0, ω) ⊗ q (left product: ω is in the parent frame).
  const Eigen::Quaterniond product = Eigen::Quaterniond(0.0, v[0], v[1], v[2]) * quaternion_of(q);
  q_rate[0] = 0.5 * product.w();
  q_rate[1] = 0.5 * product.x();
  q_rate[2] = 0.5 * product.y();
  q_rate[3] = 0.5 * product.z();
}

void SphericalJoint::integrate(std::span<const double> q, std::span<const double> v, double dt,
                               std::span<double> q_out) const {
  const Eigen::Quaterniond quat = quaternion_of(q);  // read before writing: q_out may alias q
  const Vec3 phi = Vec3(v[0], v[1], v[2]) * dt;
  const double angle = phi.norm();
  // sin(θ/2)/θ by its Taylor series ½ − θ²/48 + θ⁴/3840 for θ < 1e-4 (next term < 1e-29).
  const double sin_half_over_angle =
      angle < 1e-4 ? 0.5 - angle * angle / 48.0 + angle * angle * angle * angle / 3840.0
                   : std::sin(0.5 * angle) / angle;
  const Vec3 axis_part = sin_half_over_angle * phi;
  const Eigen::Quaterniond increment(std::cos(0.5 * angle), axis_part.x(), axis_part.y(),
                                     axis_part.z());
  const Eigen::Quaterniond next = (increment * quat).normalized();
  q_out[0] = next.w();
  q_out[1] = next.x();
  q_out[2] = next.y();
  q_out[3] = next.z();
}

void SphericalJoint::normalize(std::span<double> q) const {
  const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(std::isfinite(norm) && norm > 0.0))
    throw SimulationError(
        "spherical joint: the orientation quaternion is zero or not finite and cannot be "
        "normalised");
  for (std::size_t i = 0; i < 4; ++i) q[i] /= norm;
}

bool SphericalJoint::from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P,
                               std::span<double> q, std::span<double> v) const {
  Eigen::Quaterniond quat(X_PC.R);
  quat.normalize();
  if (quat.w() < 0.0) quat.coeffs() = -quat.coeffs();
  q[0] = quat.w();
  q[1] = quat.x();
  q[2] = quat.y();
  q[3] = quat.z();
  v[0] = w_P.x();
  v[1] = w_P.y();
  v[2] = w_P.z();
  if (!poses_match(transform(q), X_PC)) return false;
  return v_P.cwiseAbs().maxCoeff() <=
         pose_tolerance * std::max(1.0, std::sqrt(v_P.squaredNorm() + w_P.squaredNorm()));
}

void SphericalJoint::joint_force(double /*t*/, std::span<const double> q, std::span<const double> v,
                                 std::span<double> tau) const {
  const Vec3 phi = stiffness_ > 0.0 ? rotation_vector(q) : Vec3::Zero();
  for (int i = 0; i < 3; ++i)
    tau[static_cast<std::size_t>(i)] =
        -stiffness_ * phi[i] - damping_ * v[static_cast<std::size_t>(i)];
}

double SphericalJoint::potential_energy(std::span<const double> q) const {
  return stiffness_ > 0.0 ? 0.5 * stiffness_ * rotation_vector(q).squaredNorm() : 0.0;
}

}  // namespace contactlab::plugins
