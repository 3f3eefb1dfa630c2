#include "joint_elements.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numbers>
#include <sstream>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

std::string number(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

/// Key suffixes and units of one coordinate kind.
struct KindUnits {
  const char* value_suffix;     ///< "_rad" / "_m"
  const char* value_unit;       ///< "rad" / "m"
  const char* rest_key;         ///< "rest_angle_rad" / "rest_position_m"
  const char* stiffness_key;    ///< "stiffness_N_m_per_rad" / "stiffness_N_per_m"
  const char* stiffness_unit;   ///< "N·m/rad" / "N/m"
  const char* damping_key;      ///< "damping_N_m_s_per_rad" / "damping_N_s_per_m"
  const char* damping_unit;     ///< "N·m·s/rad" / "N·s/m"
  const char* limit_stiffness;  ///< "limit_stiffness_N_m_per_rad" / …
  const char* limit_damping;    ///< "limit_damping_N_m_s_per_rad" / …
};

const KindUnits& units_of(CoordinateKind kind) {
  static const KindUnits angle{"_rad",
                               "rad",
                               "rest_angle_rad",
                               "stiffness_N_m_per_rad",
                               "N·m/rad",
                               "damping_N_m_s_per_rad",
                               "N·m·s/rad",
                               "limit_stiffness_N_m_per_rad",
                               "limit_damping_N_m_s_per_rad"};
  static const KindUnits length{"_m",
                                "m",
                                "rest_position_m",
                                "stiffness_N_per_m",
                                "N/m",
                                "damping_N_s_per_m",
                                "N·s/m",
                                "limit_stiffness_N_per_m",
                                "limit_damping_N_s_per_m"};
  return kind == CoordinateKind::angle ? angle : length;
}

ParameterSpec text_parameter(std::string name, std::string default_value, std::string doc) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.type = ParameterType::text;
  spec.default_value = std::move(default_value);
  spec.doc = std::move(doc);
  return spec;
}

/// Parses "t0 x0; t1 x1; …" (rows separated by ';' or newlines, the two numbers by spaces or a
/// comma) into strictly increasing times and their values.
void parse_table(const std::string& text, const std::string& key, const std::string& joint,
                 std::vector<double>& times, std::vector<double>& values) {
  auto fail = [&](const std::string& why) {
    throw InputError(joint + " joint: params." + key + " = \"" + text + "\": " + why +
                     " (expected rows \"t_s value\" separated by ';', e.g. \"0 0; 1 0.5\")");
  };
  std::string normalized = text;
  for (char& c : normalized) {
    if (c == ';' || c == '\n' || c == '\r') c = '\n';
    if (c == ',' || c == '\t') c = ' ';
  }
  std::istringstream rows(normalized);
  std::string row;
  while (std::getline(rows, row)) {
    if (row.find_first_not_of(' ') == std::string::npos) continue;
    const char* cursor = row.c_str();
    double pair[2];
    for (double& entry : pair) {
      char* end = nullptr;
      entry = std::strtod(cursor, &end);
      if (end == cursor || !std::isfinite(entry)) fail("row \"" + row + "\" is not two numbers");
      cursor = end;
    }
    while (*cursor == ' ') ++cursor;
    if (*cursor != '\0') fail("row \"" + row + "\" has more than two numbers");
    if (!times.empty() && !(pair[0] > times.back()))
      fail("the times must increase strictly (" + number(pair[0]) + " s after " +
           number(times.back()) + " s)");
    times.push_back(pair[0]);
    values.push_back(pair[1]);
  }
  if (times.size() < 2) fail("a table needs at least two rows");
}

/// Second derivatives M_i of the cubic spline through (t_i, x_i) with end slopes 0 (clamped):
/// the tridiagonal system of the spline's C² conditions, solved by the Thomas algorithm.
std::vector<double> clamped_spline(const std::vector<double>& t, const std::vector<double>& x) {
  const std::size_t n = t.size();
  std::vector<double> lower(n, 0.0), diagonal(n, 0.0), upper(n, 0.0), rhs(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) {
      const double h = t[i] - t[i - 1];
      lower[i] = h;
      diagonal[i] += 2.0 * h;
      rhs[i] -= 6.0 * (x[i] - x[i - 1]) / h;  // − 6·slope of the left interval (0 − … at i = n−1)
    }
    if (i + 1 < n) {
      const double h = t[i + 1] - t[i];
      upper[i] = h;
      diagonal[i] += 2.0 * h;
      rhs[i] += 6.0 * (x[i + 1] - x[i]) / h;
    }
  }
  // Interior rows: h_{i−1}M_{i−1} + 2(h_{i−1} + h_i)M_i + h_i·M_{i+1} = 6(s_i − s_{i−1});
  // end rows with zero end slopes: 2h₀M₀ + h₀M₁ = 6s₀, h·M_{n−2} + 2h·M_{n−1} = −6s_{n−2}.
  for (std::size_t i = 1; i < n; ++i) {
    const double factor = lower[i] / diagonal[i - 1];
    diagonal[i] -= factor * upper[i - 1];
    rhs[i] -= factor * rhs[i - 1];
  }
  std::vector<double> M(n, 0.0);
  M[n - 1] = rhs[n - 1] / diagonal[n - 1];
  for (std::size_t i = n - 1; i-- > 0;) M[i] = (rhs[i] - upper[i] * M[i + 1]) / diagonal[i];
  return M;
}

}  // namespace

// --- geometry helpers ---------------------------------------------------------------------------

Mat3 axis_rotation(const Vec3& axis, double angle_rad) {
  const Mat3 K = skew(axis);
  return Mat3::Identity() + std::sin(angle_rad) * K + (1.0 - std::cos(angle_rad)) * K * K;
}

double angle_about(const Mat3& R, const Vec3& axis) {
  const Vec3 vee(R(2, 1) - R(1, 2), R(0, 2) - R(2, 0), R(1, 0) - R(0, 1));
  return std::atan2(0.5 * axis.dot(vee), 0.5 * (R.trace() - 1.0));
}

void add_axis_parameters(ParameterSchema& schema, const std::string& name, const Vec3& default_axis,
                         const std::string& doc) {
  const char* components[3] = {"_x", "_y", "_z"};
  for (int i = 0; i < 3; ++i)
    schema.push_back(real_parameter(name + components[i], default_axis[i], -infinity, infinity, "",
                                    std::string(components[i] + 1) + " component of " + doc));
}

Vec3 read_axis(const ParameterValues& params, const std::string& joint, const std::string& name) {
  const Vec3 axis(params.real(name + "_x"), params.real(name + "_y"), params.real(name + "_z"));
  const double length = axis.norm();
  if (!(length > 1e-12) || !std::isfinite(length))
    throw InputError(joint + " joint: params." + name + "_x/_y/_z = (" + number(axis.x()) + ", " +
                     number(axis.y()) + ", " + number(axis.z()) +
                     ") is not a direction (zero length)");
  return axis / length;
}

Vec3 read_perpendicular_axis(const ParameterValues& params, const std::string& joint,
                             const std::string& name, const Vec3& first,
                             const std::string& first_name) {
  const Vec3 second = read_axis(params, joint, name);
  const double cosine = first.dot(second);
  if (std::abs(cosine) > 1e-6)
    throw InputError(joint + " joint: params." + name + "_x/_y/_z must be perpendicular to " +
                     first_name + " (the cosine between them is " + number(cosine) + ")");
  return (second - cosine * first).normalized();
}

bool poses_match(const Pose& a, const Pose& b) {
  return (a.R - b.R).cwiseAbs().maxCoeff() <= pose_tolerance &&
         (a.p - b.p).cwiseAbs().maxCoeff() <= pose_tolerance;
}

bool velocities_from_twist(std::span<const double> S, int nv, const Vec3& v_P, const Vec3& w_P,
                           std::span<double> v) {
  using Matrix = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;
  using Vector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;
  Eigen::Matrix<double, 6, 1> twist;
  twist << v_P, w_P;
  const Matrix S_matrix =
      Eigen::Map<const Eigen::Matrix<double, 6, Eigen::Dynamic>>(S.data(), 6, nv);
  const Vector solution = S_matrix.colPivHouseholderQr().solve(twist);
  for (int i = 0; i < nv; ++i) v[static_cast<std::size_t>(i)] = solution[i];
  const double residual = (S_matrix * solution - twist).cwiseAbs().maxCoeff();
  return residual <= pose_tolerance * std::max(1.0, twist.norm());
}

// --- DriveProfile -------------------------------------------------------------------------------

void DriveProfile::add_parameters(ParameterSchema& schema, const CoordinateNaming& naming) {
  const std::string& p = naming.prefix;
  const KindUnits& u = units_of(naming.kind);
  const std::string what = naming.description;
  schema.push_back(
      choice_parameter(p + "drive", "none", {"none", "ramp", "sine", "table"},
                       "prescribes " + what + " as a function of time (the joint is then driven)"));
  schema.push_back(real_parameter(p + "drive_offset" + u.value_suffix, 0.0, -infinity, infinity,
                                  u.value_unit, "ramp and sine: the constant part of " + what));
  schema.push_back(real_parameter(p + "drive_height" + u.value_suffix, 0.0, -infinity, infinity,
                                  u.value_unit, "ramp: the change of " + what + " over the ramp"));
  schema.push_back(real_parameter(p + "drive_start_s", 0.0, -infinity, infinity, "s",
                                  "ramp: the time the ramp starts"));
  schema.push_back(real_parameter(p + "drive_duration_s", 1.0, 0.0, infinity, "s",
                                  "ramp: how long the ramp lasts (> 0)"));
  schema.back().minimum_exclusive = true;
  schema.push_back(real_parameter(p + "drive_amplitude" + u.value_suffix, 0.0, -infinity, infinity,
                                  u.value_unit, "sine: the amplitude of " + what));
  schema.push_back(
      real_parameter(p + "drive_frequency_Hz", 1.0, 0.0, infinity, "Hz",
                     "sine: the frequency f of offset + amplitude·sin(2π·f·t + phase)"));
  schema.push_back(real_parameter(p + "drive_phase_rad", 0.0, -infinity, infinity, "rad",
                                  "sine: the phase at t = 0"));
  schema.push_back(text_parameter(
      p + "drive_table", "",
      std::string("table: rows \"t_s value_") + u.value_unit +
          "\" separated by ';' (times strictly increasing, at least two rows); held at the end "
          "values outside the table"));
  schema.push_back(choice_parameter(p + "drive_interpolation", "linear", {"linear", "cubic"},
                                    "table: linear, or a C² cubic spline with zero end slopes"));
}

DriveProfile::DriveProfile(const ParameterValues& params, const CoordinateNaming& naming,
                           const std::string& joint) {
  const std::string& p = naming.prefix;
  const KindUnits& u = units_of(naming.kind);
  const std::string& type = params.text(p + "drive");
  if (type == "none") return;
  if (type == "ramp") {
    type_ = Type::ramp;
    offset_ = params.real(p + "drive_offset" + u.value_suffix);
    height_ = params.real(p + "drive_height" + u.value_suffix);
    start_s_ = params.real(p + "drive_start_s");
    duration_s_ = params.real(p + "drive_duration_s");
    if (!(duration_s_ > 0.0))
      throw InputError(joint + " joint: params." + p + "drive_duration_s = " + number(duration_s_) +
                       " s; a ramp needs a duration > 0");
  } else if (type == "sine") {
    type_ = Type::sine;
    offset_ = params.real(p + "drive_offset" + u.value_suffix);
    amplitude_ = params.real(p + "drive_amplitude" + u.value_suffix);
    angular_frequency_ = 2.0 * std::numbers::pi * params.real(p + "drive_frequency_Hz");
    phase_rad_ = params.real(p + "drive_phase_rad");
  } else if (type == "table") {
    type_ = Type::table;
    parse_table(params.text(p + "drive_table"), p + "drive_table", joint, times_, values_);
    cubic_ = params.text(p + "drive_interpolation") == "cubic";
    if (cubic_) second_derivatives_ = clamped_spline(times_, values_);
  } else {
    throw InputError(joint + " joint: params." + p + "drive = '" + type +
                     "' is not one of none, ramp, sine, table");
  }
}

void DriveProfile::evaluate(double t, double& x, double& x_dot, double& x_ddot) const {
  switch (type_) {
    case Type::none:
      x = x_dot = x_ddot = 0.0;
      return;
    case Type::ramp: {
      x_ddot = 0.0;
      if (t < start_s_) {
        x = offset_;
        x_dot = 0.0;
      } else if (t < start_s_ + duration_s_) {
        x_dot = height_ / duration_s_;
        x = offset_ + x_dot * (t - start_s_);
      } else {
        x = offset_ + height_;
        x_dot = 0.0;
      }
      return;
    }
    case Type::sine: {
      const double phase = angular_frequency_ * t + phase_rad_;
      const double s = std::sin(phase), c = std::cos(phase);
      x = offset_ + amplitude_ * s;
      x_dot = amplitude_ * angular_frequency_ * c;
      x_ddot = -amplitude_ * angular_frequency_ * angular_frequency_ * s;
      return;
    }
    case Type::table: {
      if (t <= times_.front() || t >= times_.back()) {
        x = t <= times_.front() ? values_.front() : values_.back();
        x_dot = x_ddot = 0.0;
        return;
      }
      // Interval i with t_i ≤ t < t_{i+1}.
      const auto it = std::upper_bound(times_.begin(), times_.end(), t);
      const std::size_t i = static_cast<std::size_t>(it - times_.begin()) - 1;
      const double h = times_[i + 1] - times_[i];
      const double slope = (values_[i + 1] - values_[i]) / h;
      if (!cubic_) {
        x = values_[i] + slope * (t - times_[i]);
        x_dot = slope;
        x_ddot = 0.0;
        return;
      }
      // x = A·x_i + B·x_{i+1} + ((A³ − A)·M_i + (B³ − B)·M_{i+1})·h²/6, A = 1 − B.
      const double B = (t - times_[i]) / h, A = 1.0 - B;
      const double Mi = second_derivatives_[i], Mj = second_derivatives_[i + 1];
      x = A * values_[i] + B * values_[i + 1] +
          ((A * A * A - A) * Mi + (B * B * B - B) * Mj) * h * h / 6.0;
      x_dot = slope - (3.0 * A * A - 1.0) / 6.0 * h * Mi + (3.0 * B * B - 1.0) / 6.0 * h * Mj;
      x_ddot = A * Mi + B * Mj;
      return;
    }
  }
}

// --- CoordinateElements -------------------------------------------------------------------------

void CoordinateElements::add_parameters(ParameterSchema& schema, const CoordinateNaming& naming) {
  const std::string& p = naming.prefix;
  const KindUnits& u = units_of(naming.kind);
  const std::string& what = naming.description;
  schema.push_back(real_parameter(p + u.stiffness_key, 0.0, 0.0, infinity, u.stiffness_unit,
                                  "stiffness k of the spring on " + what + " (0: none)"));
  schema.push_back(real_parameter(p + u.damping_key, 0.0, 0.0, infinity, u.damping_unit,
                                  "damping c of the damper on " + what + " (0: none)"));
  schema.push_back(real_parameter(p + u.rest_key, 0.0, -infinity, infinity, u.value_unit,
                                  "value of " + what + " at which the spring is relaxed"));
  schema.push_back(
      boolean_parameter(p + "limits", false,
                        "true: " + what + " has position limits (stiff one-sided spring–dampers)"));
  schema.push_back(real_parameter(p + "lower_limit" + u.value_suffix, 0.0, -infinity, infinity,
                                  u.value_unit, "lower limit of " + what));
  schema.push_back(real_parameter(p + "upper_limit" + u.value_suffix, 0.0, -infinity, infinity,
                                  u.value_unit, "upper limit of " + what + " (> lower limit)"));
  schema.push_back(real_parameter(p + u.limit_stiffness, 0.0, 0.0, infinity, u.stiffness_unit,
                                  "stiffness of the limits (> 0 when limits is true)"));
  schema.push_back(real_parameter(p + u.limit_damping, 0.0, 0.0, infinity, u.damping_unit,
                                  "damping of the limits while violated"));
  DriveProfile::add_parameters(schema, naming);
}

CoordinateElements::CoordinateElements(const ParameterValues& params,
                                       const CoordinateNaming& naming, const std::string& joint)
    : drive_(params, naming, joint) {
  const std::string& p = naming.prefix;
  const KindUnits& u = units_of(naming.kind);
  stiffness_ = params.real(p + u.stiffness_key);
  damping_ = params.real(p + u.damping_key);
  rest_ = params.real(p + u.rest_key);
  limits_ = params.boolean(p + "limits");
  lower_ = params.real(p + "lower_limit" + u.value_suffix);
  upper_ = params.real(p + "upper_limit" + u.value_suffix);
  limit_stiffness_ = params.real(p + u.limit_stiffness);
  limit_damping_ = params.real(p + u.limit_damping);
  if (stiffness_ < 0.0 || damping_ < 0.0 || limit_stiffness_ < 0.0 || limit_damping_ < 0.0)
    throw InputError(joint + " joint: params." + p + "stiffness/damping must be ≥ 0");
  if (limits_) {
    if (!(lower_ < upper_))
      throw InputError(joint + " joint: params." + p + "limits is true but " + p + "lower_limit" +
                       u.value_suffix + " = " + number(lower_) + " is not below " + p +
                       "upper_limit" + u.value_suffix + " = " + number(upper_));
    if (!(limit_stiffness_ > 0.0))
      throw InputError(joint + " joint: params." + p + "limits is true but " + p +
                       u.limit_stiffness + " = " + number(limit_stiffness_) +
                       "; a limit needs a stiffness > 0");
  }
}

double CoordinateElements::force(double q, double v) const {
  double tau = -stiffness_ * (q - rest_) - damping_ * v;
  if (limits_) {
    if (q < lower_)
      tau += std::max(0.0, limit_stiffness_ * (lower_ - q) - limit_damping_ * v);
    else if (q > upper_)
      tau += std::min(0.0, -limit_stiffness_ * (q - upper_) - limit_damping_ * v);
  }
  return tau;
}

double CoordinateElements::energy(double q) const {
  double energy = 0.5 * stiffness_ * (q - rest_) * (q - rest_);
  if (limits_) {
    if (q < lower_) energy += 0.5 * limit_stiffness_ * (lower_ - q) * (lower_ - q);
    if (q > upper_) energy += 0.5 * limit_stiffness_ * (q - upper_) * (q - upper_);
  }
  return energy;
}

// --- ScalarCoordinateJoint ----------------------------------------------------------------------

ScalarCoordinateJoint::ScalarCoordinateJoint(const ParameterValues& params,
                                             const std::string& joint,
                                             const std::vector<CoordinateNaming>& coordinates) {
  std::size_t drives = 0;
  for (const CoordinateNaming& naming : coordinates) {
    elements_.emplace_back(params, naming, joint);
    if (elements_.back().drive().active()) ++drives;
  }
  if (drives != 0 && drives != elements_.size()) {
    std::string keys;
    for (std::size_t i = 0; i < coordinates.size(); ++i)
      if (!elements_[i].drive().active())
        keys += (keys.empty() ? "" : ", ") + coordinates[i].prefix + "drive";
    throw InputError(joint + " joint: some coordinates are driven and " + keys +
                     " is none; a joint prescribes all of its coordinates or none (hold one "
                     "with a ramp of height 0)");
  }
  driven_ = drives != 0;
}

void ScalarCoordinateJoint::add_element_parameters(
    ParameterSchema& schema, const std::vector<CoordinateNaming>& coordinates) {
  for (const CoordinateNaming& naming : coordinates)
    CoordinateElements::add_parameters(schema, naming);
}

void ScalarCoordinateJoint::neutral_configuration(std::span<double> q) const {
  std::fill(q.begin(), q.begin() + nq(), 0.0);
}

void ScalarCoordinateJoint::configuration_rate(std::span<const double> /*q*/,
                                               std::span<const double> v,
                                               std::span<double> q_rate) const {
  std::copy(v.begin(), v.begin() + nv(), q_rate.begin());
}

void ScalarCoordinateJoint::integrate(std::span<const double> q, std::span<const double> v,
                                      double dt, std::span<double> q_out) const {
  for (std::size_t i = 0; i < elements_.size(); ++i) q_out[i] = q[i] + v[i] * dt;
}

void ScalarCoordinateJoint::normalize(std::span<double> /*q*/) const {}

void ScalarCoordinateJoint::joint_force(double /*t*/, std::span<const double> q,
                                        std::span<const double> v, std::span<double> tau) const {
  for (std::size_t i = 0; i < elements_.size(); ++i) tau[i] = elements_[i].force(q[i], v[i]);
}

double ScalarCoordinateJoint::potential_energy(std::span<const double> q) const {
  double energy = 0.0;
  for (std::size_t i = 0; i < elements_.size(); ++i) energy += elements_[i].energy(q[i]);
  return energy;
}

void ScalarCoordinateJoint::prescribed_motion(double t, std::span<double> q, std::span<double> v,
                                              std::span<double> v_dot) const {
  if (!driven_) return;
  for (std::size_t i = 0; i < elements_.size(); ++i)
    elements_[i].drive().evaluate(t, q[i], v[i], v_dot[i]);
}

}  // namespace contactlab::plugins
