// The joints' own force elements (spring–dampers, one-sided limits) and drives (ramp, sine,
// table with linear or cubic interpolation), and unit-level dynamics through the Joint
// interface: a spring–mass oscillator on a prismatic joint, a torsion pendulum bouncing between
// limits.
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>

#include <catch2/catch.hpp>

#include "joint_test_support.hpp"

using namespace joint_test;
using namespace contactlab::plugins;
using contactlab::InputError;

namespace {

/// Shortest text that reads back as the same double.
std::string num(double value) {
  char buffer[64];
  const auto end = std::to_chars(buffer, buffer + sizeof(buffer), value).ptr;
  return std::string(buffer, end);
}

/// Every joint with coordinates, with springs on every coordinate, limits on the scalar ones
/// placed so that random configurations violate them, and the axes of moving_joints().
std::vector<NamedJoint> sprung_joints() {
  auto elements = [](Overrides o, const std::string& prefix, bool angle) {
    const std::string stiffness = angle ? "stiffness_N_m_per_rad" : "stiffness_N_per_m";
    const std::string damping = angle ? "damping_N_m_s_per_rad" : "damping_N_s_per_m";
    const std::string limit_stiffness =
        angle ? "limit_stiffness_N_m_per_rad" : "limit_stiffness_N_per_m";
    const std::string limit_damping =
        angle ? "limit_damping_N_m_s_per_rad" : "limit_damping_N_s_per_m";
    const std::string unit = angle ? "_rad" : "_m";
    o[prefix + stiffness] = 3.0;
    o[prefix + damping] = 0.7;
    o[prefix + (angle ? "rest_angle_rad" : "rest_position_m")] = 0.25;
    o[prefix + "limits"] = true;
    o[prefix + "lower_limit" + unit] = -0.5;
    o[prefix + "upper_limit" + unit] = 0.8;
    o[prefix + limit_stiffness] = 400.0;
    o[prefix + limit_damping] = 5.0;
    return o;
  };
  Overrides revolute, prismatic, helical, cylindrical, planar, universal, spherical;
  set_axis(revolute, "axis", Vec3(1, 2, 3));
  set_axis(prismatic, "axis", Vec3(-1, 0.5, 2));
  set_axis(helical, "axis", Vec3(0.3, -1, 0.4));
  helical["pitch_m_per_rad"] = 0.05;
  set_axis(cylindrical, "axis", Vec3(2, 1, -1));
  set_axis(planar, "normal", Vec3(1, 1, 1));
  set_axis(planar, "in_plane_axis", Vec3(1, -1, 0));
  set_axis(universal, "axis1", Vec3(1, 1, 0));
  set_axis(universal, "axis2", Vec3(-1, 1, 2));
  revolute = elements(revolute, "", true);
  prismatic = elements(prismatic, "", false);
  helical = elements(helical, "", true);
  cylindrical = elements(elements(cylindrical, "translation_", false), "rotation_", true);
  planar = elements(elements(elements(planar, "x_", false), "y_", false), "rotation_", true);
  universal = elements(elements(universal, "angle1_", true), "angle2_", true);
  spherical["stiffness_N_m_per_rad"] = 3.0;
  spherical["damping_N_m_s_per_rad"] = 0.7;
  std::vector<NamedJoint> joints;
  joints.push_back({"revolute", make<RevoluteJoint>(revolute)});
  joints.push_back({"prismatic", make<PrismaticJoint>(prismatic)});
  joints.push_back({"helical", make<HelicalJoint>(helical)});
  joints.push_back({"cylindrical", make<CylindricalJoint>(cylindrical)});
  joints.push_back({"planar", make<PlanarJoint>(planar)});
  joints.push_back({"universal", make<UniversalJoint>(universal)});
  joints.push_back({"spherical", make<SphericalJoint>(spherical)});
  return joints;
}

std::vector<double> force(const Joint& joint, const std::vector<double>& q,
                          const std::vector<double>& v) {
  std::vector<double> tau(joint.nv(), 42.0);
  joint.joint_force(0.0, q, v, tau);
  return tau;
}

}  // namespace

TEST_CASE(
    "joint elements: at v = 0 the generalized force is −dE/dq along every velocity coordinate "
    "(central differences of potential_energy on the manifold, step 1e-6), within 1e-7 N or "
    "N·m, springs and violated limits included") {
  std::mt19937_64 rng(21);
  const double h = 1e-6;
  for (const NamedJoint& named : sprung_joints()) {
    INFO(named.name);
    const Joint& joint = *named.joint;
    int violated = 0;
    for (int sample = 0; sample < 40; ++sample) {
      std::vector<double> q = random_configuration(joint, rng);
      // Keep the spherical joint's rotation angle below π, where log(R) is smooth.
      if (named.name == "spherical" && std::abs(q[0]) < 0.2) joint.neutral_configuration(q);
      const std::vector<double> zero(joint.nv(), 0.0);
      const std::vector<double> tau = force(joint, q, zero);
      for (int i = 0; i < joint.nv(); ++i) {
        std::vector<double> e(joint.nv(), 0.0), q_plus(joint.nq()), q_minus(joint.nq());
        e[i] = 1.0;
        joint.integrate(q, e, h, q_plus);
        joint.integrate(q, e, -h, q_minus);
        const double slope =
            (joint.potential_energy(q_plus) - joint.potential_energy(q_minus)) / (2.0 * h);
        CHECK(tau[i] == Approx(-slope).margin(1e-7));
        if (joint.nq() == joint.nv() && (q[i] < -0.5 || q[i] > 0.8)) ++violated;
      }
    }
    if (named.name != "spherical") CHECK(violated > 0);  // the limits were exercised
  }
}

TEST_CASE(
    "joint elements: inside the limits the damping adds −c·v per coordinate and the energy does "
    "not depend on v, within 1e-14") {
  std::mt19937_64 rng(22);
  for (const NamedJoint& named : sprung_joints()) {
    INFO(named.name);
    const Joint& joint = *named.joint;
    std::vector<double> q(joint.nq());
    joint.neutral_configuration(q);
    if (joint.nq() == joint.nv())
      for (double& x : q) x = 0.1;  // inside [−0.5, 0.8]
    const std::vector<double> v = random_velocity(joint, rng);
    const std::vector<double> at_rest = force(joint, q, std::vector<double>(joint.nv(), 0.0));
    const std::vector<double> moving = force(joint, q, v);
    for (int i = 0; i < joint.nv(); ++i)
      CHECK(moving[i] - at_rest[i] == Approx(-0.7 * v[i]).margin(1e-14));
  }
}

TEST_CASE(
    "revolute limits: zero inside, k_l·δ + c_l·|v| while violated and closing, never negative "
    "(pulling back across the limit) when leaving fast, E = ½·k_l·δ² — closed forms within "
    "1e-12") {
  Overrides o;
  o["limits"] = true;
  o["lower_limit_rad"] = -0.5;
  o["upper_limit_rad"] = 0.7;
  o["limit_stiffness_N_m_per_rad"] = 1000.0;
  o["limit_damping_N_m_s_per_rad"] = 10.0;
  const auto joint = make<RevoluteJoint>(o);
  auto tau = [&](double q, double v) {
    std::vector<double> t(1);
    joint->joint_force(0.0, std::vector<double>{q}, std::vector<double>{v}, t);
    return t[0];
  };
  auto energy = [&](double q) { return joint->potential_energy(std::vector<double>{q}); };
  CHECK(tau(0.3, 5.0) == 0.0);
  CHECK(tau(-0.49, -5.0) == 0.0);
  CHECK(energy(0.3) == 0.0);
  // Lower limit violated by 0.1 rad.
  CHECK(tau(-0.6, -2.0) == Approx(1000.0 * 0.1 + 10.0 * 2.0).margin(1e-12));
  CHECK(tau(-0.6, 0.0) == Approx(100.0).margin(1e-12));
  CHECK(tau(-0.6, 5.0) == Approx(100.0 - 50.0).margin(1e-12));
  CHECK(tau(-0.6, 100.0) == 0.0);  // the damper alone would pull towards −∞
  CHECK(energy(-0.6) == Approx(0.5 * 1000.0 * 0.01).margin(1e-12));
  // Upper limit violated by 0.1 rad.
  CHECK(tau(0.8, 2.0) == Approx(-1000.0 * 0.1 - 10.0 * 2.0).margin(1e-12));
  CHECK(tau(0.8, -100.0) == 0.0);
  CHECK(energy(0.8) == Approx(0.5 * 1000.0 * 0.01).margin(1e-12));
}

TEST_CASE(
    "spherical spring: τ = −k·φ about the rotation vector φ = log(R) and E = ½·k·|φ|² for a "
    "rotation of 2 rad about (1, 2, 2)/3, within 1e-14") {
  Overrides o;
  o["stiffness_N_m_per_rad"] = 5.0;
  const auto joint = make<SphericalJoint>(o);
  const Vec3 axis = Vec3(1, 2, 2) / 3.0;
  const Eigen::Quaterniond quat(Eigen::AngleAxisd(2.0, axis));
  const std::vector<double> q{quat.w(), quat.x(), quat.y(), quat.z()};
  const std::vector<double> tau = force(*joint, q, {0, 0, 0});
  for (int i = 0; i < 3; ++i) CHECK(tau[i] == Approx(-5.0 * 2.0 * axis[i]).margin(1e-14));
  CHECK(joint->potential_energy(q) == Approx(0.5 * 5.0 * 4.0).margin(1e-14));
}

TEST_CASE("joint elements: bad limits and bad drives are refused naming the parameter") {
  Overrides no_stiffness;
  no_stiffness["limits"] = true;
  no_stiffness["lower_limit_m"] = -1.0;
  no_stiffness["upper_limit_m"] = 1.0;
  CHECK_THROWS_AS(make<PrismaticJoint>(no_stiffness), InputError);
  CHECK_THROWS_WITH(make<PrismaticJoint>(no_stiffness), Catch::Contains("limit_stiffness_N_per_m"));
  Overrides inverted;
  inverted["limits"] = true;
  inverted["limit_stiffness_N_m_per_rad"] = 10.0;
  inverted["lower_limit_rad"] = 1.0;
  inverted["upper_limit_rad"] = -1.0;
  CHECK_THROWS_WITH(make<RevoluteJoint>(inverted), Catch::Contains("lower_limit_rad"));
  for (const char* table : {"", "0 1", "0 1; 0 2", "0 1; 1 x", "0 1; 1 2 3"}) {
    INFO(table);
    Overrides bad;
    bad["drive"] = std::string("table");
    bad["drive_table"] = std::string(table);
    CHECK_THROWS_WITH(make<RevoluteJoint>(bad), Catch::Contains("drive_table"));
  }
  Overrides partial;
  partial["rotation_drive"] = std::string("sine");
  CHECK_THROWS_WITH(make<CylindricalJoint>(partial), Catch::Contains("translation_drive"));
}

namespace {

struct Motion {
  double q, v, v_dot;
};

Motion prescribed(const Joint& joint, double t, int coordinate = 0) {
  std::vector<double> q(joint.nq()), v(joint.nv()), a(joint.nv());
  joint.prescribed_motion(t, q, v, a);
  return {q[coordinate], v[coordinate], a[coordinate]};
}

/// max over the times of |v − dq/dt| and |v̇ − dv/dt| (central differences, step 1e-6 s),
/// relative to max(1, |v|) and max(1, |v̇|).
double derivative_error(const Joint& joint, const std::vector<double>& times, int coordinate = 0) {
  const double h = 1e-6;
  double worst = 0.0;
  for (double t : times) {
    const Motion at = prescribed(joint, t, coordinate);
    const Motion before = prescribed(joint, t - h, coordinate);
    const Motion after = prescribed(joint, t + h, coordinate);
    worst = std::max(
        worst, std::abs(at.v - (after.q - before.q) / (2 * h)) / std::max(1.0, std::abs(at.v)));
    worst = std::max(worst, std::abs(at.v_dot - (after.v - before.v) / (2 * h)) /
                                std::max(1.0, std::abs(at.v_dot)));
  }
  return worst;
}

}  // namespace

TEST_CASE(
    "drive, sine: q = offset + A·sin(2πf·t + φ) with v, v̇ its closed-form derivatives within "
    "1e-12, and the central differences of q(t) within 1e-8") {
  Overrides o;
  o["drive"] = std::string("sine");
  o["drive_offset_rad"] = 0.2;
  o["drive_amplitude_rad"] = 0.5;
  o["drive_frequency_Hz"] = 1.5;
  o["drive_phase_rad"] = 0.3;
  const auto joint = make<RevoluteJoint>(o);
  REQUIRE(joint->driven());
  const double w = 2 * std::numbers::pi * 1.5;
  for (double t : {0.0, 0.1, 0.37, 1.0, 2.9}) {
    const Motion m = prescribed(*joint, t);
    CHECK(m.q == Approx(0.2 + 0.5 * std::sin(w * t + 0.3)).margin(1e-12));
    CHECK(m.v == Approx(0.5 * w * std::cos(w * t + 0.3)).margin(1e-12));
    CHECK(m.v_dot == Approx(-0.5 * w * w * std::sin(w * t + 0.3)).margin(1e-12));
  }
  CHECK(derivative_error(*joint, {0.0, 0.1, 0.37, 1.0, 2.9}) <= 1e-8);
}

TEST_CASE(
    "drive, ramp (Modelica Ramp): offset before the start, offset + height after start + "
    "duration, slope height/duration between, derivatives within 1e-8 of central differences") {
  Overrides o;
  o["drive"] = std::string("ramp");
  o["drive_offset_m"] = -0.1;
  o["drive_height_m"] = 0.6;
  o["drive_start_s"] = 0.5;
  o["drive_duration_s"] = 2.0;
  const auto joint = make<PrismaticJoint>(o);
  REQUIRE(joint->driven());
  CHECK(prescribed(*joint, 0.2).q == Approx(-0.1).margin(1e-15));
  CHECK(prescribed(*joint, 0.2).v == 0.0);
  CHECK(prescribed(*joint, 1.5).q == Approx(-0.1 + 0.3).margin(1e-15));
  CHECK(prescribed(*joint, 1.5).v == Approx(0.3).margin(1e-15));
  CHECK(prescribed(*joint, 1.5).v_dot == 0.0);
  CHECK(prescribed(*joint, 3.0).q == Approx(0.5).margin(1e-15));
  CHECK(prescribed(*joint, 3.0).v == 0.0);
  CHECK(derivative_error(*joint, {0.2, 0.9, 1.5, 2.4, 3.0}) <= 1e-8);
}

TEST_CASE(
    "drive, linear table: passes through the rows, interpolates linearly (midpoints within "
    "1e-15), holds the end values outside, derivatives within 1e-8 of central differences") {
  Overrides o;
  o["drive"] = std::string("table");
  o["drive_table"] = std::string("0 0; 0.5, 1\n1.5 -1 ;2 0.25");
  const auto joint = make<RevoluteJoint>(o);
  REQUIRE(joint->driven());
  CHECK(prescribed(*joint, 0.25).q == Approx(0.5).margin(1e-15));
  CHECK(prescribed(*joint, 0.25).v == Approx(2.0).margin(1e-15));
  CHECK(prescribed(*joint, 1.0).q == Approx(0.0).margin(1e-15));
  CHECK(prescribed(*joint, 1.0).v == Approx(-2.0).margin(1e-15));
  CHECK(prescribed(*joint, 1.5).q == Approx(-1.0).margin(1e-15));
  CHECK(prescribed(*joint, -1.0).q == 0.0);
  CHECK(prescribed(*joint, 5.0).q == 0.25);
  CHECK(prescribed(*joint, 5.0).v == 0.0);
  CHECK(derivative_error(*joint, {0.1, 0.3, 0.7, 1.2, 1.8, 3.0}) <= 1e-8);
}

TEST_CASE(
    "drive, cubic table: the clamped spline through samples of 3s² − 2s³ (zero end slopes) is "
    "that cubic, with its exact first and second derivatives within 1e-12") {
  // A cubic with zero slopes at both ends satisfies every condition of the clamped spline,
  // which is unique: the spline through its samples must reproduce it exactly.
  Overrides o;
  o["drive"] = std::string("table");
  o["drive_interpolation"] = std::string("cubic");
  const double T = 2.0, H = 0.8;  // x(t) = H·(3s² − 2s³), s = t/T
  std::string table;
  for (double t : {0.0, 0.3, 0.5, 1.1, 1.2, 2.0}) {
    const double s = t / T;
    table += num(t) + " " + num(H * (3 * s * s - 2 * s * s * s)) + ";";
  }
  o["drive_table"] = table;
  const auto joint = make<RevoluteJoint>(o);
  for (double t = 0.0; t <= 2.0; t += 0.05) {
    const double s = t / T;
    const Motion m = prescribed(*joint, t);
    CHECK(m.q == Approx(H * (3 * s * s - 2 * s * s * s)).margin(1e-12));
    CHECK(m.v == Approx(H * (6 * s - 6 * s * s) / T).margin(1e-12));
    if (t > 0.0 && t < 2.0) CHECK(m.v_dot == Approx(H * (6 - 12 * s) / (T * T)).margin(1e-12));
  }
  CHECK(prescribed(*joint, 3.0).q == Approx(H).margin(1e-15));
  CHECK(derivative_error(*joint, {0.1, 0.4, 0.8, 1.15, 1.7}) <= 1e-8);
}

TEST_CASE(
    "drive, cubic table of arbitrary rows: passes through every row, v and v̇ continuous across "
    "the rows (within 1e-6 of their limits from either side) and zero end slopes") {
  Overrides o;
  o["drive"] = std::string("table");
  o["drive_interpolation"] = std::string("cubic");
  o["drive_table"] = std::string("0 0; 0.4 1; 1 -0.5; 1.3 0.2; 2 2");
  const auto joint = make<RevoluteJoint>(o);
  const std::vector<std::pair<double, double>> rows{
      {0, 0}, {0.4, 1}, {1, -0.5}, {1.3, 0.2}, {2, 2}};
  for (const auto& [t, x] : rows) CHECK(prescribed(*joint, t).q == Approx(x).margin(1e-14));
  for (std::size_t i = 1; i + 1 < rows.size(); ++i) {
    const Motion left = prescribed(*joint, rows[i].first - 1e-9);
    const Motion right = prescribed(*joint, rows[i].first + 1e-9);
    CHECK(left.v == Approx(right.v).margin(1e-6));
    CHECK(left.v_dot == Approx(right.v_dot).margin(1e-6));
  }
  CHECK(prescribed(*joint, 1e-12).v == Approx(0.0).margin(1e-9));
  CHECK(prescribed(*joint, 2.0 - 1e-12).v == Approx(0.0).margin(1e-9));
  CHECK(derivative_error(*joint, {0.1, 0.5, 1.1, 1.5, 1.9}) <= 1e-8);
}

TEST_CASE(
    "drive: a multi-coordinate joint is driven when every coordinate has a drive (planar: two "
    "sines and a ramp), each coordinate following its own profile within 1e-15, undriven joints "
    "report driven() false") {
  Overrides o;
  o["x_drive"] = std::string("sine");
  o["x_drive_amplitude_m"] = 0.1;
  o["y_drive"] = std::string("sine");
  o["y_drive_amplitude_m"] = 0.2;
  o["y_drive_phase_rad"] = std::numbers::pi / 2;
  o["rotation_drive"] = std::string("ramp");
  o["rotation_drive_height_rad"] = 1.0;
  const auto joint = make<PlanarJoint>(o);
  REQUIRE(joint->driven());
  const double t = 0.1, w = 2 * std::numbers::pi;
  CHECK(prescribed(*joint, t, 0).q == Approx(0.1 * std::sin(w * t)).margin(1e-15));
  CHECK(prescribed(*joint, t, 1).q == Approx(0.2 * std::cos(w * t)).margin(1e-15));
  CHECK(prescribed(*joint, t, 2).q == Approx(0.1).margin(1e-15));
  CHECK(prescribed(*joint, t, 2).v == Approx(1.0).margin(1e-15));
  for (const NamedJoint& named : moving_joints()) CHECK_FALSE(named.joint->driven());
}

TEST_CASE(
    "prismatic spring–mass(–damper) under gravity (unit level, RK4 through the Joint interface): "
    "undamped x = x_eq + (x0 − x_eq)·cos(√(k/m)·t) (period 2π√(m/k)), damped "
    "x_eq + e^(−γt)(A·cos ω_d t + B·sin ω_d t), ω_d = √(k/m − γ²), γ = c/2m, within 1e-9 m over "
    "5 s") {
  // Body origin at its COM on a vertical prismatic joint (axis z), mass m: the joint-space
  // equation is m·ẍ = Sᵀ·(m·g) + τ(x, ẋ) = −m·g − k·(x − x_rest) − c·ẋ.
  for (const double c : {0.0, 4.0}) {
    const double m = 2.0, k = 800.0, g = 9.81, x_rest = 0.1, x0 = 0.0;
    Overrides o;
    o["stiffness_N_per_m"] = k;
    o["damping_N_s_per_m"] = c;
    o["rest_position_m"] = x_rest;
    const auto joint = make<PrismaticJoint>(o);
    auto acceleration = [&](double x, double v) {
      std::array<double, 1> tau, xs{x}, vs{v};
      std::array<double, 6> S;
      joint->joint_force(0.0, xs, vs, tau);
      joint->motion_subspace(xs, S);
      const double gravity = S[2] * (-m * g);  // Sᵀ·(m·g) with g along −z
      return (gravity + tau[0]) / m;
    };
    const double x_eq = x_rest - m * g / k, gamma = c / (2 * m);
    const double omega_d = std::sqrt(k / m - gamma * gamma);
    const double A = x0 - x_eq, B = gamma * A / omega_d;  // x(0) = x0, ẋ(0) = 0
    double x = x0, v = 0.0, worst = 0.0;
    const double h = 1e-4;
    for (int step = 1; step <= 50000; ++step) {
      const double k1x = v, k1v = acceleration(x, v);
      const double k2x = v + 0.5 * h * k1v,
                   k2v = acceleration(x + 0.5 * h * k1x, v + 0.5 * h * k1v);
      const double k3x = v + 0.5 * h * k2v,
                   k3v = acceleration(x + 0.5 * h * k2x, v + 0.5 * h * k2v);
      const double k4x = v + h * k3v, k4v = acceleration(x + h * k3x, v + h * k3v);
      x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
      v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
      const double t = step * h;
      const double exact =
          x_eq + std::exp(-gamma * t) * (A * std::cos(omega_d * t) + B * std::sin(omega_d * t));
      worst = std::max(worst, std::abs(x - exact));
    }
    std::printf("spring–mass, c = %g N·s/m, RK4 h = 1e-4 s: max |x − closed form| = %.2e m\n", c,
                worst);
    CHECK(worst <= 1e-9);
  }
}

namespace {

/// Largest relative error of kinetic + potential energy of a rotor (inertia 0.05 kg·m²) on a
/// revolute joint with a weak spring and undamped limits at ±0.5 rad, started at 0 with 3 rad/s,
/// integrated by RK4 with step h over 8 s; also counts the bounces.
double rotor_energy_error(double h, int& bounces) {
  const double I = 0.05;
  Overrides o;
  o["stiffness_N_m_per_rad"] = 0.2;
  o["limits"] = true;
  o["lower_limit_rad"] = -0.5;
  o["upper_limit_rad"] = 0.5;
  o["limit_stiffness_N_m_per_rad"] = 1e4;
  const auto joint = make<RevoluteJoint>(o);
  auto acceleration = [&](double q, double v) {
    std::array<double, 1> tau, qs{q}, vs{v};
    joint->joint_force(0.0, qs, vs, tau);
    return tau[0] / I;
  };
  auto energy = [&](double q, double v) {
    const std::array<double, 1> qs{q};
    return 0.5 * I * v * v + joint->potential_energy(qs);
  };
  double q = 0.0, v = 3.0;
  const double E0 = energy(q, v);
  double worst = 0.0;
  bounces = 0;
  bool inside = true;
  const auto steps = static_cast<long>(std::lround(8.0 / h));
  for (long step = 0; step < steps; ++step) {
    const double k1x = v, k1v = acceleration(q, v);
    const double k2x = v + 0.5 * h * k1v, k2v = acceleration(q + 0.5 * h * k1x, v + 0.5 * h * k1v);
    const double k3x = v + 0.5 * h * k2v, k3v = acceleration(q + 0.5 * h * k2x, v + 0.5 * h * k2v);
    const double k4x = v + h * k3v, k4v = acceleration(q + h * k3x, v + h * k3v);
    q += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
    worst = std::max(worst, std::abs(energy(q, v) - E0) / E0);
    const bool now_inside = std::abs(q) <= 0.5;
    if (inside && !now_inside) ++bounces;
    inside = now_inside;
  }
  return worst;
}

}  // namespace

TEST_CASE(
    "revolute rotor bouncing between undamped limits (unit level, RK4): kinetic energy plus "
    "potential_energy is conserved within 1e-5 relative over 20 bounces at h = 1e-5 s, and the "
    "error falls more than 10× at h = 2.5e-6 s") {
  // The limit's stiffness switches on at the limit (a kink in τ(θ)), where RK4 loses order: the
  // error converges like h^2.5 rather than h⁴, but it converges — E and τ are consistent.
  int bounces = 0, fine_bounces = 0;
  const double coarse = rotor_energy_error(1e-5, bounces);
  const double fine = rotor_energy_error(2.5e-6, fine_bounces);
  std::printf(
      "rotor between limits: %d bounces, max relative energy error %.2e (h = 1e-5 s), "
      "%.2e (h = 2.5e-6 s)\n",
      bounces, coarse, fine);
  CHECK(bounces >= 20);
  CHECK(fine_bounces == bounces);
  CHECK(coarse <= 1e-5);
  CHECK(fine <= coarse / 10);
}
