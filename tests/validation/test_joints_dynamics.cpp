// Single joints through the real host (each body hangs from the world by one joint, joint frame
// = world frame) against closed forms: a revolute pendulum's period, a screw (helical) joint's
// coupled fall, a spherical pendulum's conserved axial angular momentum, a cylindrical joint's
// decoupled slide and spin, a planar body's parabola, a universal joint's two periods; and the
// joints' own elements (joint_force: a spring–mass) and drives (prescribed_motion) in the host.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "scene_fixture.hpp"

using namespace contactlab;
using namespace contactlab::testing;

namespace {

constexpr double pi = std::numbers::pi;

/// Times at which θ(t) crosses zero downwards, located by cubic Hermite interpolation between
/// samples from θ and θ̇ (error O(h⁴) in the output interval h).
std::vector<double> downward_zero_crossings(const std::vector<Sample>& samples, int q_index,
                                            int v_index) {
  std::vector<double> crossings;
  for (std::size_t i = 1; i < samples.size(); ++i) {
    const double t0 = samples[i - 1].t, t1 = samples[i].t, h = t1 - t0;
    const double x0 = samples[i - 1].y[q_index], x1 = samples[i].y[q_index];
    if (!(x0 > 0.0 && x1 <= 0.0)) continue;
    const double m0 = samples[i - 1].y[v_index] * h, m1 = samples[i].y[v_index] * h;
    auto hermite = [&](double s) {
      const double s2 = s * s, s3 = s2 * s;
      return (2 * s3 - 3 * s2 + 1) * x0 + (s3 - 2 * s2 + s) * m0 + (-2 * s3 + 3 * s2) * x1 +
             (s3 - s2) * m1;
    };
    double lo = 0.0, hi = 1.0;  // bisection: hermite(lo) > 0 ≥ hermite(hi)
    for (int k = 0; k < 60; ++k) {
      const double mid = 0.5 * (lo + hi);
      (hermite(mid) > 0.0 ? lo : hi) = mid;
    }
    crossings.push_back(t0 + 0.5 * (lo + hi) * h);
  }
  return crossings;
}

/// A compound pendulum on a revolute joint about x through the world origin: mass m with its
/// centre of mass at distance d below the pivot, released from rest at θ0.
std::string pendulum(double theta0_rad, double duration_s) {
  return R"(
duration_s: )" +
         num(duration_s) +
         R"(
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 1.0e-3 }
bodies:
  - name: pendulum
    joint: { type: revolute, params: { axis_x: 1, axis_y: 0, axis_z: 0 } }
    mass: { mass_kg: 2.0, center_of_mass_m: [0, 0, -0.5], inertia_kg_m2: [0.01, 0.02, 0.025] }
    initial: { orientation: { axis: [1, 0, 0], angle_deg: )" +
         num(theta0_rad * 180.0 / pi) + R"( } }
integrator: { type: rk4, params: { step_s: 1.0e-3 } }
)";
}

/// Arithmetic–geometric mean, for the exact period of the pendulum at finite amplitude.
double agm(double a, double b) {
  for (int k = 0; k < 40; ++k) {
    const double next_a = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = next_a;
  }
  return a;
}

/// Mean period of y[q_index] (its rate y[v_index]) over the run; y = [θ, θ̇] by default.
double measured_period(const std::string& yaml, int q_index = 0, int v_index = 1) {
  Experiment experiment(yaml);
  const RunRecord record = run(experiment);
  const std::vector<double> crossings = downward_zero_crossings(record.samples, q_index, v_index);
  REQUIRE(crossings.size() >= 5);
  return (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
}

}  // namespace

TEST_CASE(
    "revolute pendulum, rk4 h = 1e-3 s: small-oscillation period 2π√(I_O/(m·g·d)) within 1e-6 "
    "relative (θ0 = 1e-3 rad), at θ0 = 1 rad the exact period 2π√(I_O/(m·g·d))/AGM(1, cos(θ0/2)) "
    "within 1e-6 relative") {
  // I_O = I_xx + m·d² about the pivot (parallel axes), d = 0.5 m, m = 2 kg.
  const double m = 2.0, d = 0.5, g = 9.81, I_O = 0.01 + m * d * d;
  const double T0 = 2.0 * pi * std::sqrt(I_O / (m * g * d));
  // Amplitude 1e-3 rad: the finite-amplitude correction θ0²/16 = 6e-8 is below the tolerance.
  const double small = measured_period(pendulum(1e-3, 12.0));
  const double theta0 = 1.0;
  const double T_exact = T0 / agm(1.0, std::cos(theta0 / 2.0));
  const double large = measured_period(pendulum(theta0, 12.0));
  std::printf(
      "pendulum: T0 = %.10f s, small-amplitude error %.2e; θ0 = 1 rad: T = %.10f s, "
      "error %.2e\n",
      T0, std::abs(small - T0) / T0, T_exact, std::abs(large - T_exact) / T_exact);
  CHECK(small == Approx(T0).epsilon(1e-6));
  CHECK(large == Approx(T_exact).epsilon(1e-6));
}

TEST_CASE(
    "helical (screw) joint with a vertical axis under gravity, rk4: translation = pitch·angle "
    "within 1e-12 m and the axial acceleration m·g·p²/(m·p² + I_axis) (from rest: z = −a·t²/2) "
    "within 1e-9 relative") {
  // Lagrange with θ the angle, z = p·θ: T = ½·(m·p² + I_axis)·θ̇², V = m·g·p·θ, so
  //   (m·p² + I_axis)·θ̈ = −m·g·p  and  z̈ = p·θ̈ = −m·g·p²/(m·p² + I_axis).
  // The centre of mass is on the axis, so nothing else moves.
  const double m = 3.0, p = 0.01, I_axis = 0.004, g = 9.81;
  const std::string yaml = R"(
duration_s: 2.0
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 0.1 }
bodies:
  - name: nut
    joint: { type: helical, params: { axis_x: 0, axis_y: 0, axis_z: 1, pitch_m_per_rad: 0.01 } }
    mass: { mass_kg: 3.0, inertia_kg_m2: [0.02, 0.02, 0.004] }
integrator: { type: rk4, params: { step_s: 1.0e-3 } }
)";
  const double a = m * g * p * p / (m * p * p + I_axis);
  Experiment experiment(yaml);
  int checked = 0;
  run(experiment, [&](core::Simulation& sim, double t, std::span<const double> y) {
    const core::BodyState s = sim.body_state(0, y);
    const double angle = y[0];
    const double expected_z = -0.5 * a * t * t;
    CHECK(s.p_WCm.z() == Approx(p * angle).margin(1e-12));
    CHECK(s.p_WCm.z() == Approx(expected_z).epsilon(1e-9).margin(1e-15));
    CHECK(s.v_WCm.z() == Approx(-a * t).epsilon(1e-9).margin(1e-15));
    CHECK(s.p_WCm.head<2>().norm() <= 1e-15);
    // The body turns by the same angle about z.
    const Eigen::AngleAxisd turned(s.q_WB);
    CHECK(std::abs(std::remainder(turned.angle() * turned.axis().z() - angle, 2 * pi)) <= 1e-9);
    ++checked;
  });
  CHECK(checked == 21);
}

TEST_CASE(
    "spherical pendulum, rk4 h = 1e-3 s over 10 s: the angular momentum about the vertical "
    "through the pivot is conserved within 1e-8 relative, the energy within 1e-8 relative") {
  // Gravity's torque about the pivot, c × m·g, is horizontal: L_z about the pivot is a first
  // integral whatever the body's inertia.
  const double m = 1.5;
  const Vec3 p_BCm(0.0, 0.05, -0.8);
  const Mat3 R0 =
      Eigen::AngleAxisd(40.0 * pi / 180.0, Vec3(1, 0.3, 0).normalized()).toRotationMatrix();
  const Vec3 w0(0.5, -0.3, 2.0);
  const Vec3 v_Cm0 = w0.cross(R0 * p_BCm);  // the pivot (body origin) is at rest
  const std::string yaml = R"(
duration_s: 10.0
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 0.01 }
bodies:
  - name: bob
    joint: spherical
    mass: { mass_kg: 1.5, center_of_mass_m: [0, 0.05, -0.8], inertia_kg_m2: [0.02, 0.03, 0.012] }
    initial:
      orientation: { axis: [1, 0.3, 0], angle_deg: 40 }
      velocity_m_per_s: [)" +
                           num(v_Cm0.x()) + ", " + num(v_Cm0.y()) + ", " + num(v_Cm0.z()) + R"(]
      angular_velocity_rad_per_s: [0.5, -0.3, 2.0]
integrator: { type: rk4, params: { step_s: 1.0e-3 } }
)";
  Experiment experiment(yaml);
  const Mat3 I_Cm = experiment.scene.bodies[0].mass.inertia_Cm_B;
  double Lz0 = 0.0, E0 = 0.0, worst_L = 0.0, worst_E = 0.0, tilt_range = 0.0;
  bool first = true;
  run(experiment, [&](core::Simulation& sim, double, std::span<const double> y) {
    const core::BodyState s = sim.body_state(0, y);
    const Mat3 R = s.q_WB.toRotationMatrix();
    // L about the pivot O (world origin): R·I_c·Rᵀ·ω + m·c × v_c.
    const Vec3 L = R * I_Cm * R.transpose() * s.w_WB + m * s.p_WCm.cross(s.v_WCm);
    const double E = sim.total_energy(y);
    if (first) {
      Lz0 = L.z();
      E0 = E;
      first = false;
    }
    worst_L = std::max(worst_L, std::abs(L.z() - Lz0) / std::abs(Lz0));
    worst_E = std::max(worst_E, std::abs(E - E0) / std::abs(E0));
    tilt_range = std::max(tilt_range, std::abs(s.p_WCm.z() - (R0 * p_BCm).z()));
    CHECK(std::abs((s.p_WCm).norm() - p_BCm.norm()) <= 1e-12);  // the pivot holds
  });
  std::printf(
      "spherical pendulum: L_z0 = %.6f, max relative drift of L_z %.2e, of E %.2e; the "
      "bob's height varied by %.3f m\n",
      Lz0, worst_L, worst_E, tilt_range);
  CHECK(tilt_range > 0.05);  // it really swings
  CHECK(worst_L <= 1e-8);
  CHECK(worst_E <= 1e-8);
}

TEST_CASE(
    "cylindrical joint with a vertical axis and its centre of mass 0.2 m off the axis, rk4 over "
    "1 s: the slide falls freely (d = -g t^2/2) and the spin stays constant (theta = w0 t), "
    "within 1e-9") {
  // The initial velocity is the centre of mass's, ω × c = (0, 0.6, 0). Gravity acts along the
  // axis, so it has no moment about it; the centripetal force of the off-axis centre of mass is
  // taken by the joint. Both coordinates are then decoupled.
  const double g = 9.81, w0 = 3.0;
  const std::string yaml = R"(
duration_s: 1.0
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 0.01 }
bodies:
  - name: slider
    joint: { type: cylindrical, params: { axis_x: 0, axis_y: 0, axis_z: 1 } }
    mass: { mass_kg: 1.5, center_of_mass_m: [0.2, 0, 0], inertia_kg_m2: [0.01, 0.02, 0.03] }
    initial: { velocity_m_per_s: [0, 0.6, 0], angular_velocity_rad_per_s: [0, 0, 3] }
integrator: { type: rk4, params: { step_s: 1.0e-3 } }
)";
  Experiment experiment(yaml);
  const RunRecord record = run(experiment);
  double worst = 0.0;
  for (const Sample& s : record.samples) {  // y = [d, θ, ḋ, θ̇]
    worst = std::max({worst, std::abs(s.y[0] + 0.5 * g * s.t * s.t), std::abs(s.y[1] - w0 * s.t),
                      std::abs(s.y[2] + g * s.t), std::abs(s.y[3] - w0)});
  }
  std::printf("cylindrical: worst deviation from the closed form %.2e\n", worst);
  CHECK(record.samples.size() == 101);
  CHECK(worst <= 1e-9);
}

TEST_CASE(
    "planar joint (plane xy) with gravity in the plane and the centre of mass 0.3 m off the "
    "joint origin, rk4 over 2 s: the centre of mass flies a parabola and the spin stays "
    "constant, within 1e-9") {
  // A body free in a plane: its centre of mass accelerates with g whatever it spins, and no
  // force has a moment about it. The joint's coordinates are the body origin's, 0.3 m away from
  // the centre of mass, so the check reads the centre of mass from the host.
  const Vec3 p0(0.3, 0.0, 0.0), v0(1.0, 2.0, 0.0), g(0.0, -9.81, 0.0);
  const double w0 = 4.0;
  const std::string yaml = R"(
duration_s: 2.0
gravity_m_per_s2: [0, -9.81, 0]
output: { interval_s: 0.01 }
bodies:
  - name: puck
    joint: { type: planar, params: { normal_x: 0, normal_y: 0, normal_z: 1 } }
    mass: { mass_kg: 0.7, center_of_mass_m: [0.3, 0, 0], inertia_kg_m2: [0.01, 0.02, 0.03] }
    initial: { velocity_m_per_s: [1, 2, 0],
               angular_velocity_rad_per_s: [0, 0, 4] }
integrator: { type: rk4, params: { step_s: 1.0e-3 } }
)";
  Experiment experiment(yaml);
  double worst = 0.0;
  const RunRecord record =
      run(experiment, [&](core::Simulation& simulation, double t, std::span<const double> y) {
        const core::BodyState body = simulation.body_state(0, y);
        const Vec3 p = p0 + v0 * t + 0.5 * g * t * t;
        worst = std::max({worst, (body.p_WCm - p).norm(), (body.v_WCm - (v0 + g * t)).norm(),
                          (body.w_WB - Vec3(0, 0, w0)).norm(), std::abs(y[2] - w0 * t)});
      });
  std::printf("planar: worst deviation from the closed form %.2e\n", worst);
  CHECK(record.samples.size() == 201);
  CHECK(worst <= 1e-9);
}

TEST_CASE(
    "universal joint (axis1 x, axis2 y) hanging under gravity, rk4: small oscillations about "
    "each axis have the periods 2pi sqrt((I_axis + m d^2)/(m g d)) within 1e-6 relative") {
  // Linearised about the hanging state the two angles decouple; each is a compound pendulum
  // about its own axis through the cross (parallel-axis moments I_xx + m·d², I_yy + m·d²).
  const double m = 2.0, d = 0.5, g = 9.81;
  const double Ixx = 0.01, Iyy = 0.02;
  auto yaml = [](const char* axis) {
    return std::string(R"(
duration_s: 12.0
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 1.0e-3 }
bodies:
  - name: cross
    joint: { type: universal, params: { axis1_x: 1, axis1_y: 0, axis1_z: 0,
                                        axis2_x: 0, axis2_y: 1, axis2_z: 0 } }
    mass: { mass_kg: 2.0, center_of_mass_m: [0, 0, -0.5], inertia_kg_m2: [0.01, 0.02, 0.025] }
    initial: { orientation: { axis: )") +
           axis + R"(, angle_deg: 0.0572957795 } }
integrator: { type: rk4, params: { step_s: 1.0e-3 } }
)";
  };
  // y = [θ1, θ2, θ̇1, θ̇2]; each start tilts about one axis only (1e-3 rad).
  const double T1 = measured_period(yaml("[1, 0, 0]"), 0, 2);
  const double T2 = measured_period(yaml("[0, 1, 0]"), 1, 3);
  const double T1_exact = 2.0 * pi * std::sqrt((Ixx + m * d * d) / (m * g * d));
  const double T2_exact = 2.0 * pi * std::sqrt((Iyy + m * d * d) / (m * g * d));
  std::printf("universal: periods %.10f s, %.10f s; errors %.2e, %.2e\n", T1, T2,
              std::abs(T1 - T1_exact) / T1_exact, std::abs(T2 - T2_exact) / T2_exact);
  CHECK(T1 == Approx(T1_exact).epsilon(1e-6));
  CHECK(T2 == Approx(T2_exact).epsilon(1e-6));
}

// --- the joints' own elements and drives through the host -------------------------------------

TEST_CASE(
    "prismatic spring–mass oscillator through the host (joint_force): period 2π√(m/k) within "
    "1e-6 relative") {
  const double m = 2.0, k = 800.0;
  const std::string yaml = R"(
duration_s: 3.0
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 1.0e-3 }
bodies:
  - name: mass
    joint: { type: prismatic, params: { axis_z: 1, stiffness_N_per_m: 800,
                                        rest_position_m: 0.0245250 } }
    mass: { mass_kg: 2.0, inertia_kg_m2: [0.01, 0.01, 0.01] }
    initial: { position_m: [0, 0, 0.01] }
integrator: { type: rk4, params: { step_s: 1.0e-4 } }
)";
  // Equilibrium at rest − m·g/k = 0.024525 − 0.024525 = 0: the body oscillates about z = 0.
  Experiment experiment(yaml);
  const RunRecord record = run(experiment);
  const std::vector<double> crossings = downward_zero_crossings(record.samples, 0, 1);
  REQUIRE(crossings.size() >= 5);
  const double period =
      (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
  CHECK(period == Approx(2.0 * pi * std::sqrt(m / k)).epsilon(1e-6));
}

TEST_CASE(
    "driven revolute joint follows its prescribed sine exactly (1e-12 rad) whatever gravity "
    "does") {
  // The host overwrites a driven joint's q, v with prescribed_motion(t) and uses its v̇.
  const std::string yaml = R"(
duration_s: 2.0
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 0.01 }
bodies:
  - name: crank
    joint: { type: revolute, params: { axis_x: 1, axis_y: 0, axis_z: 0, drive: sine,
                                       drive_amplitude_rad: 0.4, drive_frequency_Hz: 0.75,
                                       drive_phase_rad: 0.0 } }
    mass: { mass_kg: 2.0, center_of_mass_m: [0, 0, -0.5], inertia_kg_m2: [0.01, 0.02, 0.025] }
integrator: { type: rk4, params: { step_s: 1.0e-3 } }
)";
  Experiment experiment(yaml);
  const RunRecord record = run(experiment);
  const double w = 2.0 * pi * 0.75;
  for (const Sample& s : record.samples) {
    CHECK(s.y[0] == Approx(0.4 * std::sin(w * s.t)).margin(1e-12));
    CHECK(s.y[1] == Approx(0.4 * w * std::cos(w * s.t)).margin(1e-12));
  }
}
