// Small geometry vocabulary shared by the host and plugins: vectors, rotations and rigid poses.
// Frames are named in variables (p_WB: position of B in world W; R_WB: orientation of B in W;
// X_WB: pose of B in W). All lengths in metres, angles in radians.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cmath>

namespace contactlab {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

/// Rigid transform X_AB: maps coordinates of a point in frame B to frame A, p_A = R_AB·p_B + p_AB.
struct Pose {
  Mat3 R = Mat3::Identity();  ///< orientation of B in A (rotation matrix, orthonormal, det +1)
  Vec3 p = Vec3::Zero();      ///< position of B's origin in A [m]

  static Pose identity() { return {}; }
  /// X_AC = X_AB · X_BC
  Pose operator*(const Pose& X_BC) const { return {R * X_BC.R, R * X_BC.p + p}; }
  /// X_BA from X_AB.
  Pose inverse() const { return {R.transpose(), -(R.transpose() * p)}; }
  /// Point given in B, returned in A.
  Vec3 transform_point(const Vec3& p_B) const { return R * p_B + p; }
  /// Direction given in B, returned in A.
  Vec3 transform_vector(const Vec3& v_B) const { return R * v_B; }
};

/// Unit quaternion stored as plain doubles (w, x, y, z) so that structs crossing the plugin
/// boundary carry no over-aligned members.
struct Quaternion {
  double w = 1.0, x = 0.0, y = 0.0, z = 0.0;
  Eigen::Quaterniond eigen() const { return Eigen::Quaterniond(w, x, y, z); }
  static Quaternion from(const Eigen::Quaterniond& q) { return {q.w(), q.x(), q.y(), q.z()}; }
};

/// Skew-symmetric matrix [v]× such that [v]×·u = v × u.
inline Mat3 skew(const Vec3& v) {
  Mat3 S;
  S << 0.0, -v.z(), v.y(), v.z(), 0.0, -v.x(), -v.y(), v.x(), 0.0;
  return S;
}

/// Two unit vectors completing the unit vector u to a right-handed orthonormal basis (t1, t2, u),
/// without a singular direction (Duff et al. 2017, "Building an orthonormal basis, revisited").
inline void complete_basis(const Vec3& u, Vec3& t1, Vec3& t2) {
  const double sign = std::copysign(1.0, u.z());
  const double a = -1.0 / (sign + u.z());
  const double b = u.x() * u.y() * a;
  t1 = Vec3(1.0 + sign * u.x() * u.x() * a, sign * b, -sign * u.x());
  t2 = Vec3(b, sign + u.y() * u.y() * a, -u.y());
}

}  // namespace contactlab
