// Spherical (ball) joint: free rotation about a fixed point, orientation as a unit quaternion.
#pragma once

#include <span>

#include <contactlab/joint.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// q = quaternion of R_PC (w, x, y, z), nq = 4; v = ω, the child's angular velocity relative to
/// P in P's coordinates (rad/s), nv = 3. The origins of P and C coincide (the ball's centre):
///   X_PC = (R(q), 0),  S = [0; 1₃],  Ṡv = 0,  q̇ = ½·(0, ω) ⊗ q,
/// integrated on the manifold as q ← exp(½·ω·dt) ⊗ q (exact for constant ω), never sign-flipped.
///
/// Optional isotropic torsion spring–damper about the neutral orientation, with φ = log(R_PC) the
/// rotation vector (|φ| ≤ π):
///   τ = −k·φ − c·ω,  E = ½·k·|φ|²
/// (exact: dE/dt = k·φ·ω because the rotation axis φ/|φ| is an eigenvector of the Jacobian that
/// maps ω to φ̇). No limits and no drive: an orientation-valued profile does not fit the
/// per-coordinate drive, and cone limits are not offered.
class SphericalJoint final : public Joint {
 public:
  explicit SphericalJoint(const ParameterValues& params);
  static ParameterSchema schema();

  int nq() const override { return 4; }
  int nv() const override { return 3; }
  void neutral_configuration(std::span<double> q) const override;
  /// R_PC from the normalised quaternion.
  Pose transform(std::span<const double> q) const override;
  void motion_subspace(std::span<const double> q, std::span<double> S) const override;
  void bias_acceleration(std::span<const double> q, std::span<const double> v,
                         std::span<double> bias) const override;
  void configuration_rate(std::span<const double> q, std::span<const double> v,
                          std::span<double> q_rate) const override;
  /// `q_out` may alias `q`.
  void integrate(std::span<const double> q, std::span<const double> v, double dt,
                 std::span<double> q_out) const override;
  /// Scales the quaternion to unit norm (sign kept); throws SimulationError when zero or not
  /// finite.
  void normalize(std::span<double> q) const override;
  /// Quaternion of R_PC (w ≥ 0); false unless p_PC = 0 (within 1e-9 m) and v_P = 0 (within 1e-9
  /// relative to |[v_P; w_P]|); v = w_P.
  bool from_pose(const Pose& X_PC, const Vec3& v_P, const Vec3& w_P, std::span<double> q,
                 std::span<double> v) const override;
  void joint_force(double t, std::span<const double> q, std::span<const double> v,
                   std::span<double> tau) const override;
  double potential_energy(std::span<const double> q) const override;

 private:
  double stiffness_ = 0.0, damping_ = 0.0;
};

}  // namespace contactlab::plugins
