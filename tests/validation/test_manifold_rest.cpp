// Bodies resting on a line or face contact through mpr's general manifold
// (contactlab/geometry/manifold.hpp): a cylinder and a cone lying on their sides on a ground box
// come to rest without rocking, and the forces at the two ends of the contact line balance gravity
// and its moment; a beam lying flat rests on the 4 points of its face with equal forces.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "scene_fixture.hpp"

using namespace contactlab;
using namespace contactlab::testing;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kStiffness_N_per_m = 1.0e7;

/// A steel body (`shape` YAML) at position p with orientation (axis, angle) dropped onto a steel
/// ground box (top at z = 0), linear law k = 1e7 N/m with damping, no friction, mpr with
/// `points` manifold points, rk4.
std::string resting_scene(const std::string& shape, const Vec3& p, const Vec3& axis,
                          double angle_deg, int points, double duration_s) {
  return std::string(steel_palette) + R"(
duration_s: )" +
         num(duration_s) +
         R"(
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 0.01, contacts: false }
bodies:
  - name: ground
    joint: fixed
    initial: { position_m: [0, 0, -0.05] }
    geometry: [{ name: ground, shape: { type: box, size_m: [2, 2, 0.1] }, material: Steel }]
  - name: body
    initial: { position_m: [)" +
         num(p.x()) + ", " + num(p.y()) + ", " + num(p.z()) + R"(], orientation: { axis: [)" +
         num(axis.x()) + ", " + num(axis.y()) + ", " + num(axis.z()) +
         "], angle_deg: " + num(angle_deg) + R"( } }
    geometry: [{ name: body, shape: )" +
         shape + R"(, material: Steel }]
collision: { broad_phase: brute_force, narrow_phase: [{ type: mpr, params: { manifold_points: )" +
         std::to_string(points) + R"( } }] }
contact:
  force_law: { type: linear, params: { stiffness_N_per_m: 1.0e7, damping_N_s_per_m: 1.0e4 } }
  friction: none
integrator: { type: rk4, params: { step_s: 2.0e-5 } }
)";
}

struct Rest {
  double speed_m_per_s = 0.0;        ///< |v| of the centre of mass at the end
  double spin_rad_per_s = 0.0;       ///< |ω| at the end
  double late_spin_rad_per_s = 0.0;  ///< largest |ω| over the last half of the run
  double force_low_N = 0.0;          ///< normal force summed over the points with s < s_split
  double force_high_N = 0.0;         ///< ... with s ≥ s_split
  int points = 0;                    ///< contact points at the end
};

/// Runs the scene; at the end sums the normal forces of the contact points on either side of the
/// plane through `split_W` across `line_W` (s = line·(point − split)).
Rest settle(const std::string& yaml, const Vec3& split_W, const Vec3& line_W) {
  Experiment experiment(yaml);
  Rest rest;
  const double duration = experiment.scene.duration_s;
  const RunRecord record =
      run(experiment, [&](core::Simulation& sim, double t, std::span<const double> y) {
        const core::BodyState state = sim.body_state(1, y);
        if (t >= 0.5 * duration)
          rest.late_spin_rad_per_s = std::max(rest.late_spin_rad_per_s, state.w_WB.norm());
        if (t < duration - 1e-9) return;
        rest.speed_m_per_s = state.v_WCm.norm();
        rest.spin_rad_per_s = state.w_WB.norm();
        for (const core::ContactSample& c : sim.contacts_at(t, y)) {
          ++rest.points;
          (line_W.dot(c.point_W - split_W) < 0.0 ? rest.force_low_N : rest.force_high_N) +=
              c.normal_force_N;
        }
      });
  REQUIRE(record.result.status == IntegrationStatus::completed);
  return rest;
}

}  // namespace

TEST_CASE(
    "manifold rest: a steel cylinder lying on a box (mpr, 4 manifold points) comes to rest without "
    "rocking (|ω| < 1e-6 rad/s over the last 0.15 s) and each end carries m·g/2 within 1e-4 "
    "relative, where mpr's single point leaves it rocking (|ω| > 1e-3 rad/s)",
    "[manifold]") {
  const double radius = 0.05, length = 0.4;
  const double mass = 8000.0 * kPi * radius * radius * length;
  const double g = 9.81;
  // Axis along x, dropped from 1 mm above the ground, its +x end 2 mrad higher.
  const double delta = mass * g / 2.0 / kStiffness_N_per_m;
  const Eigen::Matrix3d R =
      (Eigen::AngleAxisd(-2e-3, Vec3::UnitY()) * Eigen::AngleAxisd(kPi / 2, Vec3::UnitY()))
          .toRotationMatrix();
  const Eigen::AngleAxisd turn(R);
  const std::string yaml = resting_scene(
      "{ type: cylinder, radius_m: " + num(radius) + ", length_m: " + num(length) + " }",
      Vec3(0, 0, radius + 1e-3), turn.axis(), turn.angle() * 180.0 / kPi, 4, 0.3);
  const Rest rest = settle(yaml, Vec3::Zero(), Vec3::UnitX());
  std::printf(
      "cylinder at rest: ends %.4f N and %.4f N (m·g/2 = %.4f N), |v| %.2e m/s, |ω| %.2e rad/s, "
      "late |ω| max %.2e rad/s, %d points, static δ %.3e m\n",
      rest.force_low_N, rest.force_high_N, 0.5 * mass * g, rest.speed_m_per_s, rest.spin_rad_per_s,
      rest.late_spin_rad_per_s, rest.points, delta);
  CHECK(rest.points == 2);
  CHECK(rest.force_low_N == Approx(0.5 * mass * g).epsilon(1e-4));
  CHECK(rest.force_high_N == Approx(0.5 * mass * g).epsilon(1e-4));
  CHECK(rest.late_spin_rad_per_s < 1e-6);
  CHECK(rest.speed_m_per_s < 1e-6);
  // The same drop with mpr's single point.
  const std::string one = resting_scene(
      "{ type: cylinder, radius_m: " + num(radius) + ", length_m: " + num(length) + " }",
      Vec3(0, 0, radius + 1e-3), turn.axis(), turn.angle() * 180.0 / kPi, 1, 0.3);
  const Rest single = settle(one, Vec3::Zero(), Vec3::UnitX());
  std::printf("cylinder on mpr's single point: late |ω| max %.2e rad/s, |v| %.2e m/s\n",
              single.late_spin_rad_per_s, single.speed_m_per_s);
  CHECK(single.late_spin_rad_per_s > 1e-3);
}

TEST_CASE(
    "manifold rest: a steel cone lying on its side on a box (mpr, 4 manifold points) rests with "
    "the forces at apex and base rim balancing m·g and its moment about the centre of mass within "
    "1e-4 relative",
    "[manifold]") {
  const double R = 0.1, h = 0.25, L = 2 * h, l = std::hypot(L, R);
  const double mass = 8000.0 * kPi * R * R * L / 3.0;
  const double g = 9.81;
  // The side line (base rim (R, 0, −h) to apex (0, 0, h) in the cone's frame) laid along world x:
  // the side's outward normal (2h, 0, R)/l turned to −z.
  const Vec3 g_G = Vec3(-R, 0, L) / l, m_G = Vec3(L, 0, R) / l;
  Eigen::Matrix3d B_G, B_W;
  B_G << g_G, m_G, g_G.cross(m_G);
  B_W << Vec3::UnitX(), -Vec3::UnitZ(), Vec3::UnitX().cross(-Vec3::UnitZ());
  const Eigen::Matrix3d R_WG = B_W * B_G.transpose();
  const Vec3 rim_G(R, 0, -h), apex_G(0, 0, h);
  // The body origin is the cone's centre (mid-axis); start with the line 0.5 mm above the ground.
  const Vec3 p = Vec3(0, 0, 5e-4) - R_WG * apex_G;
  const Eigen::AngleAxisd turn(R_WG);
  const std::string yaml =
      resting_scene("{ type: cone, radius_m: " + num(R) + ", length_m: " + num(L) + " }", p,
                    turn.axis(), turn.angle() * 180.0 / kPi, 4, 0.3);
  // Closed form: the centre of mass lies on the axis at h/2 below the centre (a quarter of L
  // from the base); its foot on the contact line is at s = (c − rim)·g from the rim, and the
  // moment balance about it gives F_apex = m·g·s/l, F_rim = m·g·(1 − s/l).
  const Vec3 com_G(0, 0, -h / 2);
  const double s = (com_G - rim_G).dot(g_G);
  const double apex_expected = mass * g * s / l, rim_expected = mass * g * (1 - s / l);
  const Vec3 split_W = p + R_WG * (0.5 * (rim_G + apex_G));  // the middle of the line
  const Rest rest = settle(yaml, split_W, Vec3::UnitX());    // rim at −x, apex at +x
  std::printf(
      "cone at rest: rim %.4f N (closed form %.4f N), apex %.4f N (closed form %.4f N), |v| "
      "%.2e m/s, |ω| %.2e rad/s, late |ω| max %.2e rad/s, %d points\n",
      rest.force_low_N, rim_expected, rest.force_high_N, apex_expected, rest.speed_m_per_s,
      rest.spin_rad_per_s, rest.late_spin_rad_per_s, rest.points);
  CHECK(rest.points == 2);
  CHECK(rest.force_low_N == Approx(rim_expected).epsilon(1e-4));
  CHECK(rest.force_high_N == Approx(apex_expected).epsilon(1e-4));
  CHECK(rest.force_low_N + rest.force_high_N == Approx(mass * g).epsilon(1e-4));
  CHECK(rest.late_spin_rad_per_s < 1e-6);
}

TEST_CASE(
    "manifold rest: a steel beam lying flat on a box (mpr, 4 manifold points) rests on the 4 "
    "points of its face, each carrying m·g/4 within 1e-4 relative, with a moment about its centre "
    "below 1e-9 N·m",
    "[manifold]") {
  // Length 0.4, width 0.1, thickness 0.05: a stadium of straight part 0.3 and end radius 0.05.
  const double L = 0.4, W = 0.1, T = 0.05;
  const double mass = 8000.0 * T * ((L - W) * W + kPi * W * W / 4.0);
  const double g = 9.81;
  // Turned by 0.3 rad about z and tilted by 2 mrad (within the face's fixed rectangle), dropped
  // from 1 mm above the ground.
  const Eigen::Matrix3d R =
      (Eigen::AngleAxisd(2e-3, Vec3(1, 2, 0).normalized()) * Eigen::AngleAxisd(0.3, Vec3::UnitZ()))
          .toRotationMatrix();
  const Eigen::AngleAxisd turn(R);
  const std::string yaml =
      resting_scene("{ type: beam, length_m: " + num(L) + ", width_m: " + num(W) +
                        ", thickness_m: " + num(T) + " }",
                    Vec3(0, 0, T / 2 + 1e-3), turn.axis(), turn.angle() * 180.0 / kPi, 4, 0.3);
  Experiment experiment(yaml);
  const double duration = experiment.scene.duration_s;
  std::vector<double> forces;
  Vec3 moment = Vec3::Zero();
  double late_spin = 0.0;
  const RunRecord record =
      run(experiment, [&](core::Simulation& sim, double t, std::span<const double> y) {
        const core::BodyState state = sim.body_state(1, y);
        if (t >= 0.5 * duration) late_spin = std::max(late_spin, state.w_WB.norm());
        if (t < duration - 1e-9) return;
        for (const core::ContactSample& c : sim.contacts_at(t, y)) {
          forces.push_back(c.normal_force_N);
          const Vec3 F = c.normal_force_N * c.geometry.normal_W + c.tangential_force_W;
          moment += (c.point_W - state.p_WCm).cross(F);
        }
      });
  REQUIRE(record.result.status == IntegrationStatus::completed);
  std::printf("beam at rest: %zu points,", forces.size());
  for (const double f : forces) std::printf(" %.6f N", f);
  std::printf(" (m·g/4 = %.6f N), moment %.2e N·m, late |ω| max %.2e rad/s\n", mass * g / 4.0,
              moment.norm(), late_spin);
  REQUIRE(forces.size() == 4);
  for (const double f : forces) CHECK(f == Approx(mass * g / 4.0).epsilon(1e-4));
  CHECK(moment.norm() < 1e-9);
  CHECK(late_spin < 1e-6);
}
