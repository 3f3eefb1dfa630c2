// Shared pieces of the joints with scalar coordinates: axis parameters, rotations about an axis,
// the from_pose helpers, and each coordinate's force elements (spring–damper, limits) and drive
// (prescribed motion), declared once here so that every joint offers the same keys.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <contactlab/joint.hpp>
#include <contactlab/math.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

// --- geometry helpers ---------------------------------------------------------------------------

/// Rotation by `angle_rad` about the unit vector `axis` (right-handed, Rodrigues' formula).
Mat3 axis_rotation(const Vec3& axis, double angle_rad);

/// The angle θ ∈ (−π, π] of R about the unit `axis`, assuming R is such a rotation:
/// atan2(½·axis·vee(R − Rᵀ), (tr R − 1)/2).
double angle_about(const Mat3& R, const Vec3& axis);

/// Declares `<name>_x`, `<name>_y`, `<name>_z` (dimensionless components of a direction in the
/// joint frame; normalised by the joint).
void add_axis_parameters(ParameterSchema& schema, const std::string& name, const Vec3& default_axis,
                         const std::string& doc);

/// The unit direction from `<name>_x/_y/_z`; throws InputError naming the joint and the keys when
/// it has zero length.
Vec3 read_axis(const ParameterValues& params, const std::string& joint, const std::string& name);

/// A unit vector perpendicular to the unit `first`, read from `<name>_x/_y/_z`: accepted when
/// |first·second| ≤ 1e-6 (typed-in decimals), then made exactly perpendicular (Gram–Schmidt).
/// Throws InputError otherwise.
Vec3 read_perpendicular_axis(const ParameterValues& params, const std::string& joint,
                             const std::string& name, const Vec3& first,
                             const std::string& first_name);

/// Absolute tolerance of from_pose on pose entries (rotation entries, dimensionless; positions,
/// m): poses composed from a few transforms and typed-in angles in degrees agree far better.
inline constexpr double pose_tolerance = 1e-9;

/// True when every entry of R and p agrees within pose_tolerance.
bool poses_match(const Pose& a, const Pose& b);

/// Least-squares v from S·v = [v_P; w_P] (S column-major 6 × nv with independent columns);
/// true when the residual is within pose_tolerance·max(1, |[v_P; w_P]|), i.e. the joint can move
/// with that spatial velocity.
bool velocities_from_twist(std::span<const double> S, int nv, const Vec3& v_P, const Vec3& w_P,
                           std::span<double> v);

// --- per-coordinate elements --------------------------------------------------------------------

/// What a scalar coordinate measures: decides the units in its parameter keys.
enum class CoordinateKind {
  angle,   ///< rad; generalized force in N·m
  length,  ///< m; generalized force in N
};

/// How a coordinate's parameters are named: `<prefix>stiffness_N_m_per_rad`, … The prefix is
/// empty for one-coordinate joints and e.g. "rotation_" for multi-coordinate ones.
struct CoordinateNaming {
  std::string prefix;
  CoordinateKind kind = CoordinateKind::angle;
  std::string description;  ///< for docs: "the angle", "the translation along the axis"
};

/// A scalar function of time x(t) with its exact derivatives ẋ, ẍ (one-sided, from the right, at
/// breakpoints):
///   ramp  (Modelica.Blocks.Sources.Ramp): x = offset + height·clamp((t − start)/duration, 0, 1)
///   sine: x = offset + amplitude·sin(2π·f·t + phase)
///   table: x through the points (t_i, x_i), held at the end values outside [t_0, t_n];
///          linear interpolation, or a cubic spline (C²) with zero end slopes, so that holding
///          the end values keeps ẋ continuous.
class DriveProfile {
 public:
  enum class Type { none, ramp, sine, table };

  DriveProfile() = default;
  DriveProfile(const ParameterValues& params, const CoordinateNaming& naming,
               const std::string& joint);
  static void add_parameters(ParameterSchema& schema, const CoordinateNaming& naming);

  Type type() const { return type_; }
  bool active() const { return type_ != Type::none; }
  /// x(t), ẋ(t), ẍ(t) in the coordinate's units. No allocation.
  void evaluate(double t, double& x, double& x_dot, double& x_ddot) const;

 private:
  Type type_ = Type::none;
  double offset_ = 0.0, height_ = 0.0, start_s_ = 0.0, duration_s_ = 1.0;
  double amplitude_ = 0.0, angular_frequency_ = 0.0, phase_rad_ = 0.0;
  bool cubic_ = false;
  std::vector<double> times_, values_, second_derivatives_;
};

/// One scalar coordinate's force elements and drive:
///   spring–damper: τ = −k·(q − q_rest) − c·v,  E = ½·k·(q − q_rest)²
///   limits (when enabled), stiff one-sided spring–dampers acting only while violated:
///     q < lower: τ = max(0, k_l·(lower − q) − c_l·v),  E = ½·k_l·(lower − q)²
///     q > upper: τ = min(0, −k_l·(q − upper) − c_l·v), E = ½·k_l·(q − upper)²
///   (the clamp keeps the damper from pulling the coordinate back across the limit).
class CoordinateElements {
 public:
  CoordinateElements(const ParameterValues& params, const CoordinateNaming& naming,
                     const std::string& joint);
  static void add_parameters(ParameterSchema& schema, const CoordinateNaming& naming);

  double force(double q, double v) const;
  double energy(double q) const;
  const DriveProfile& drive() const { return drive_; }

 private:
  double stiffness_ = 0.0, damping_ = 0.0, rest_ = 0.0;
  bool limits_ = false;
  double lower_ = 0.0, upper_ = 0.0, limit_stiffness_ = 0.0, limit_damping_ = 0.0;
  DriveProfile drive_;
};

/// Base of the joints whose coordinates are nq = nv scalars (angles and lengths) with q̇ = v:
/// the neutral configuration is q = 0, integrate is q + v·dt (exact: the coordinates live in
/// ℝⁿ), and the coordinates' elements and drives come from CoordinateElements. A joint is driven
/// when every coordinate has a drive; a drive on some coordinates only is refused (the Joint
/// interface prescribes all of a joint's coordinates or none).
class ScalarCoordinateJoint : public Joint {
 public:
  int nq() const override { return static_cast<int>(elements_.size()); }
  int nv() const override { return static_cast<int>(elements_.size()); }
  void neutral_configuration(std::span<double> q) const override;
  void configuration_rate(std::span<const double> q, std::span<const double> v,
                          std::span<double> q_rate) const override;
  void integrate(std::span<const double> q, std::span<const double> v, double dt,
                 std::span<double> q_out) const override;
  void normalize(std::span<double> q) const override;
  void joint_force(double t, std::span<const double> q, std::span<const double> v,
                   std::span<double> tau) const override;
  double potential_energy(std::span<const double> q) const override;
  bool driven() const override { return driven_; }
  void prescribed_motion(double t, std::span<double> q, std::span<double> v,
                         std::span<double> v_dot) const override;

 protected:
  ScalarCoordinateJoint(const ParameterValues& params, const std::string& joint,
                        const std::vector<CoordinateNaming>& coordinates);
  static void add_element_parameters(ParameterSchema& schema,
                                     const std::vector<CoordinateNaming>& coordinates);

 private:
  std::vector<CoordinateElements> elements_;
  bool driven_ = false;
};

}  // namespace contactlab::plugins
