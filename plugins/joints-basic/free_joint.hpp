// Free joint: six degrees of freedom, orientation as a unit quaternion.
#pragma once

#include <span>

#include <contactlab/joint.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// q = [p_PC (x, y, z) [m]; quaternion of R_PC (w, x, y, z)], nq = 7.
/// v = [velocity of C's origin; ω of C], both relative to P in P's coordinates, nv = 6.
///
/// With v expressed in P, spatial velocity = v (S = I₆) and the bias acceleration is zero.
/// The quaternion is integrated on the manifold, exp(½·ω·dt) ⊗ quat (ω in P multiplies from the
/// left), which is exact for constant ω; its sign is never flipped, so q stays continuous in time.
class FreeJoint final : public Joint {
 public:
  explicit FreeJoint(const ParameterValues& params);
  static ParameterSchema schema();

  int nq() const override { return 7; }
  int nv() const override { return 6; }
  void neutral_configuration(std::span<double> q) const override;
  /// R_PC from the normalised quaternion (q need not be exactly unit), p_PC from q[0..2].
  Pose transform(std::span<const double> q) const override;
  void motion_subspace(std::span<const double> q, std::span<double> S) const override;
  void bias_acceleration(std::span<const double> q, std::span<const double> v,
                         std::span<double> bias) const override;
  /// ṗ = v; q̇uat = ½·(0, ω) ⊗ quat.
  void configuration_rate(std::span<const double> q, std::span<const double> v,
                          std::span<double> q_rate) const override;
  /// p += v·dt; quat ← exp(½·ω·dt) ⊗ quat, normalised. `q_out` may alias `q`.
  void integrate(std::span<const double> q, std::span<const double> v, double dt,
                 std::span<double> q_out) const override;
  /// Scales the quaternion to unit norm (sign kept). Throws SimulationError for a zero or
  /// non-finite quaternion, which no rotation can be recovered from.
  void normalize(std::span<double> q) const override;
  /// Always representable: q from X_PC (quaternion with w ≥ 0), v = [v_P; w_P].
  bool from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P, std::span<double> q,
                 std::span<double> v) const override;
};

}  // namespace contactlab::plugins
