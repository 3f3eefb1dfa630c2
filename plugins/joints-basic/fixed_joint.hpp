// Fixed joint: no degrees of freedom; the child is welded to the parent.
#pragma once

#include <span>

#include <contactlab/joint.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// nq = nv = 0 and X_PC = identity: the host places a fixed body with the joint placement, not
/// with q, so this joint itself contributes nothing.
class FixedJoint final : public Joint {
 public:
  explicit FixedJoint(const ParameterValues& params);
  static ParameterSchema schema();

  int nq() const override { return 0; }
  int nv() const override { return 0; }
  void neutral_configuration(std::span<double> q) const override;
  Pose transform(std::span<const double> q) const override;
  void motion_subspace(std::span<const double> q, std::span<double> S) const override;
  /// Six zeros.
  void bias_acceleration(std::span<const double> q, std::span<const double> v,
                         std::span<double> bias) const override;
  void configuration_rate(std::span<const double> q, std::span<const double> v,
                          std::span<double> q_rate) const override;
  void integrate(std::span<const double> q, std::span<const double> v, double dt,
                 std::span<double> q_out) const override;
  void normalize(std::span<double> q) const override;
  /// True only for X_PC = identity (every entry within 1e-12) and v_P, w_P zero (within 1e-12
  /// m/s and rad/s): anything else the weld cannot represent.
  bool from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P, std::span<double> q,
                 std::span<double> v) const override;
};

}  // namespace contactlab::plugins
