// Joint trees through the real host: the scene's `parent:` and `joint_placement:` (topological
// order, located errors, the world `initial:` state turned into relative joint coordinates), the
// simulation's accelerations against the mass-matrix solve of an independently built tree (a
// 20-link chain, also with a driven joint), a double pendulum's energy over 10 s (rk4, cvode),
// and Engelson's (2000) pendulum hitting a wall (impulse and penalty laws) through a tree.
#include <Eigen/Cholesky>
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>
#include <random>

#include "contactlab/core/multibody.hpp"
#include "scene_fixture.hpp"

#include "support/allocation_counter.hpp"
#include "support/skip.hpp"

using namespace contactlab;
using namespace contactlab::testing;
using Catch::Matchers::Contains;

namespace {

constexpr double pi = std::numbers::pi;

std::string vec(const Vec3& v) {
  std::string text("[");
  text += num(v.x()) + ", " + num(v.y()) + ", " + num(v.z()) + "]";
  return text;
}

std::size_t body_index(const core::Scene& scene, const std::string& name) {
  for (std::size_t b = 0; b < scene.bodies.size(); ++b)
    if (scene.bodies[b].name == name) return b;
  FAIL("no body " << name);
  return 0;
}

std::string error_of(const std::string& yaml) {
  try {
    Experiment experiment(yaml);
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("no error for:\n" << yaml);
  return "";
}

/// A planar two-link pendulum about x (revolute joints), listed child first: `lower` hangs from
/// `upper` at 1 m below upper's origin. Links: 1 kg, COM 0.5 m down, I = [0.1, 0.1, 0.01].
std::string two_links(const std::string& upper_initial, const std::string& lower_initial) {
  return R"(
duration_s: 0.01
bodies:
  - name: lower
    parent: upper
    joint: { type: revolute, params: { axis_x: 1, axis_y: 0, axis_z: 0 } }
    joint_placement: { position_m: [0, 0, -1] }
    mass: { mass_kg: 1.0, center_of_mass_m: [0, 0, -0.5], inertia_kg_m2: [0.1, 0.1, 0.01] }
)" + lower_initial +
         R"(
  - name: upper
    joint: { type: revolute, params: { axis_x: 1, axis_y: 0, axis_z: 0 } }
    mass: { mass_kg: 1.0, center_of_mass_m: [0, 0, -0.5], inertia_kg_m2: [0.1, 0.1, 0.01] }
)" + upper_initial +
         R"(
integrator: { type: rk4, params: { step_s: 1.0e-3 } }
)";
}

}  // namespace

// --- scene -------------------------------------------------------------------------------------

TEST_CASE(
    "joint tree scene: bodies listed in any order are sorted parent-first, geometries follow "
    "their bodies, and a world initial state becomes relative joint coordinates within 1e-12") {
  // upper at 30° with ω = 1 rad/s about x; lower at 30° + 45° in the world with ω = 3 rad/s:
  // q_lower = 45°, q̇_lower = 2 rad/s. Lower's origin is the joint, 1 m down upper's axis; its
  // COM velocity is ω_upper × r_joint + ω_lower × r_com (both about x).
  const Mat3 R_upper = Eigen::AngleAxisd(pi / 6, Vec3::UnitX()).toRotationMatrix();
  const Mat3 R_lower = Eigen::AngleAxisd(pi / 6 + pi / 4, Vec3::UnitX()).toRotationMatrix();
  const Vec3 joint_W = R_upper * Vec3(0, 0, -1);
  const Vec3 com_lower_W = joint_W + R_lower * Vec3(0, 0, -0.5);
  const Vec3 v_com_lower =
      Vec3(1, 0, 0).cross(joint_W) + Vec3(3, 0, 0).cross(com_lower_W - joint_W);
  const Vec3 v_com_upper = Vec3(1, 0, 0).cross(R_upper * Vec3(0, 0, -0.5));
  Experiment experiment(
      two_links(
          "    initial: { orientation: { axis: [1, 0, 0], angle_deg: 30 }, velocity_m_per_s: " +
              vec(v_com_upper) + ", angular_velocity_rad_per_s: [1, 0, 0] }",
          "    initial: { position_m: " + vec(joint_W) +
              ", orientation: { axis: [1, 0, 0], angle_deg: 75 }, velocity_m_per_s: " +
              vec(v_com_lower) + ", angular_velocity_rad_per_s: [3, 0, 0] }\n" +
              "    geometry: [{ name: lower_ball, shape: { type: sphere, radius_m: 0.1 }, "
              "material: Steel }]") +
      steel_palette);
  const core::Scene& scene = experiment.scene;
  REQUIRE(scene.bodies.size() == 2);
  CHECK(scene.bodies[0].name == "upper");
  CHECK(scene.bodies[0].parent == -1);
  CHECK(scene.bodies[1].name == "lower");
  CHECK(scene.bodies[1].parent == 0);
  REQUIRE(scene.geometries.size() == 1);
  CHECK(scene.geometries[0].body == 1);
  CHECK((scene.bodies[1].X_PJ.p - Vec3(0, 0, -1)).norm() == 0.0);
  CHECK(scene.bodies[0].q_initial[0] == Approx(pi / 6).margin(1e-12));
  CHECK(scene.bodies[0].v_initial[0] == Approx(1.0).margin(1e-12));
  CHECK(scene.bodies[1].q_initial[0] == Approx(pi / 4).margin(1e-12));
  CHECK(scene.bodies[1].v_initial[0] == Approx(2.0).margin(1e-12));
  // The simulation reproduces the world state it was given.
  core::Simulation simulation(scene, experiment.registry);
  const std::vector<double> y = simulation.initial_state();
  const core::BodyState lower = simulation.body_state(1, y);
  CHECK((lower.p_WCm - com_lower_W).norm() <= 1e-12);
  CHECK((lower.v_WCm - v_com_lower).norm() <= 1e-12);
  CHECK((lower.w_WB - Vec3(3, 0, 0)).norm() <= 1e-12);
}

TEST_CASE(
    "joint tree scene: without `initial` a joint starts at its neutral configuration, at rest "
    "relative to its parent, and a fixed child is welded where joint_placement puts it") {
  const std::string yaml = std::string(steel_palette) + R"(
duration_s: 0.01
bodies:
  - name: tip
    parent: arm
    joint: fixed
    joint_placement: { position_m: [0, 2, 0], orientation: { axis: [0, 0, 1], angle_deg: 90 } }
    geometry: [{ name: tip, shape: { type: sphere, radius_m: 0.1 }, material: Steel }]
  - name: arm
    parent: world
    joint: { type: revolute, params: { axis_x: 0, axis_y: 0, axis_z: 1 } }
    mass: { mass_kg: 2.0, center_of_mass_m: [0, 1, 0], inertia_kg_m2: [0.1, 0.1, 0.1] }
    initial: { orientation: { axis: [0, 0, 1], angle_deg: 90 }, angular_velocity_rad_per_s: [0, 0, 2],
               velocity_m_per_s: [0, -2, 0] }
integrator: { type: rk4, params: { step_s: 1.0e-3 } }
)";
  Experiment experiment(yaml);
  const core::Scene& scene = experiment.scene;
  const std::size_t tip = body_index(scene, "tip");
  REQUIRE(tip == 1);
  CHECK(scene.bodies[tip].mobile);  // welded to a moving parent
  CHECK(scene.bodies[tip].nv == 0);
  // The arm at 90° about z: its +y axis points along −x; the tip 2 m out, turned 180° in all.
  CHECK((scene.bodies[tip].X_WB_initial.p - Vec3(-2, 0, 0)).norm() <= 1e-12);
  CHECK((scene.bodies[tip].X_WB_initial.R - Eigen::AngleAxisd(pi, Vec3::UnitZ()).toRotationMatrix())
            .norm() <= 1e-12);
  // It moves with the arm: ω × r = 2·ẑ × (−2, 0, 0) = (0, −4, 0) at its centre of mass.
  CHECK((scene.bodies[tip].v_WCm_initial - Vec3(0, -4, 0)).norm() <= 1e-12);
  core::Simulation simulation(scene, experiment.registry);
  const std::vector<double> y = simulation.initial_state();
  const core::BodyState s = simulation.body_state(tip, y);
  CHECK((s.p_WCm - Vec3(-2, 0, 0)).norm() <= 1e-12);
  CHECK((s.v_WCm - Vec3(0, -4, 0)).norm() <= 1e-12);
}

TEST_CASE("joint tree scene: an unknown parent is located, with did-you-mean and the bodies") {
  const std::string message = error_of(
      two_links("", "").replace(two_links("", "").find("parent: upper"), 13, "parent: uper"));
  CHECK_THAT(message, Contains("test.yaml:5:"));
  CHECK_THAT(message, Contains("bodies[0].parent"));
  CHECK_THAT(message, Contains("body 'lower' names an unknown parent 'uper'"));
  CHECK_THAT(message, Contains("did you mean 'upper'"));
}

TEST_CASE("joint tree scene: a cycle of parents is located and names the bodies on it") {
  std::string yaml = two_links("", "");
  yaml.replace(yaml.find("  - name: upper\n"), 16, "  - name: upper\n    parent: lower\n");
  const std::string message = error_of(yaml);
  CHECK_THAT(message, Contains("test.yaml:"));
  CHECK_THAT(message, Contains("form a cycle (lower → upper → lower)"));
  const std::string self = error_of(
      two_links("", "").replace(two_links("", "").find("parent: upper"), 13, "parent: lower"));
  CHECK_THAT(self, Contains("bodies[0].parent"));
  CHECK_THAT(self, Contains("body 'lower' is its own ancestor"));
  CHECK_THAT(self, Contains("(lower → lower)"));
}

TEST_CASE(
    "joint tree scene: an initial state the joint cannot realise relative to its parent is "
    "located, and `world` is a reserved body name") {
  // The lower link's origin must be at the joint, 1 m below the upper link's origin.
  const std::string message = error_of(two_links("", "    initial: { position_m: [0, 0, -1.5] }"));
  CHECK_THAT(message, Contains("bodies[0].initial"));
  CHECK_THAT(message, Contains("a revolute joint cannot realise the initial pose and velocity of "
                               "body 'lower' relative to its parent 'upper'"));
  std::string yaml = two_links("", "");
  yaml.replace(yaml.find("name: upper"), 11, "name: world");
  CHECK_THAT(error_of(yaml), Contains("the body name 'world' is reserved"));
}

// --- dynamics ----------------------------------------------------------------------------------

namespace {

struct Link {
  Vec3 axis;
  Pose X_PJ;
  core::MassProperties mass;
};

/// n revolute links in a chain with random axes, placements (offsets up to 0.4 m, any
/// orientation), masses, COMs and inertias; YAML lists them in a shuffled order. Link `driven`
/// (−1: none) is driven by a sine.
std::string random_chain(int n, std::mt19937_64& rng, std::vector<Link>& links, int driven) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0), positive(0.05, 0.1);
  links.clear();
  for (int i = 0; i < n; ++i) {
    Link link;
    link.axis = Vec3(unit(rng), unit(rng), unit(rng)).normalized();
    const Vec3 rotation_axis = Vec3(unit(rng), unit(rng), unit(rng)).normalized();
    const double angle_deg = 180.0 * unit(rng);
    link.X_PJ.p = 0.4 * Vec3(unit(rng), unit(rng), unit(rng));
    link.X_PJ.R = Eigen::AngleAxisd(angle_deg * pi / 180.0, rotation_axis).toRotationMatrix();
    link.mass.mass_kg = 0.5 + 0.5 * (unit(rng) + 1.0);
    link.mass.p_BCm = 0.2 * Vec3(unit(rng), unit(rng), unit(rng));
    link.mass.inertia_Cm_B = Vec3(positive(rng), positive(rng), positive(rng)).asDiagonal();
    links.push_back(link);
  }
  std::vector<int> listed(n);
  for (int i = 0; i < n; ++i) listed[i] = i;
  std::shuffle(listed.begin(), listed.end(), rng);
  std::string yaml = "duration_s: 1.0\ngravity_m_per_s2: [0, 0, -9.81]\nbodies:\n";
  for (const int i : listed) {
    const Link& link = links[static_cast<std::size_t>(i)];
    const Eigen::AngleAxisd placement(link.X_PJ.R);
    yaml += "  - name: link" + std::to_string(i) + "\n";
    if (i > 0) yaml += "    parent: link" + std::to_string(i - 1) + "\n";
    yaml += "    joint: { type: revolute, params: { axis_x: " + num(link.axis.x()) +
            ", axis_y: " + num(link.axis.y()) + ", axis_z: " + num(link.axis.z());
    if (i == driven)
      yaml +=
          ", drive: sine, drive_amplitude_rad: 0.7, drive_frequency_Hz: 0.9, drive_phase_rad: 0.2";
    yaml += " } }\n";
    yaml += "    joint_placement: { position_m: " + vec(link.X_PJ.p) +
            ", orientation: { axis: " + vec(placement.axis()) +
            ", angle_deg: " + num(placement.angle() * 180.0 / pi) + " } }\n";
    const Mat3& I = link.mass.inertia_Cm_B;
    yaml += "    mass: { mass_kg: " + num(link.mass.mass_kg) +
            ", center_of_mass_m: " + vec(link.mass.p_BCm) + ", inertia_kg_m2: [" + num(I(0, 0)) +
            ", " + num(I(1, 1)) + ", " + num(I(2, 2)) + "] }\n";
  }
  yaml += "integrator: { type: rk4, params: { step_s: 1.0e-3 } }\n";
  return yaml;
}

/// Checks one derivative of the simulation of a random chain against the reference tree built
/// from `links` (in chain order): v̇ = M⁻¹·(−c) from the CRBA and the RNEA (free joints), with
/// the driven joint's v̇ prescribed (partitioned solve). Returns the relative error.
double chain_acceleration_error(int n, int driven, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Link> links;
  Experiment experiment(random_chain(n, rng, links, driven));
  const core::Scene& scene = experiment.scene;
  REQUIRE(scene.bodies.size() == static_cast<std::size_t>(n));
  // Scene order is topological; the chain is link0 → link1 → …, so each parent is earlier.
  std::vector<std::size_t> scene_of(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    scene_of[static_cast<std::size_t>(i)] = body_index(scene, "link" + std::to_string(i));
    if (i > 0)
      CHECK(scene.bodies[scene_of[static_cast<std::size_t>(i)]].parent ==
            static_cast<int>(scene_of[static_cast<std::size_t>(i - 1)]));
  }
  // Reference tree in chain order, from the test's own data; the joints are the revolute
  // plugin's, with the same parameters.
  std::vector<core::MultibodyBody> reference_bodies;
  std::vector<std::shared_ptr<Joint>> joints;
  for (int i = 0; i < n; ++i) {
    const core::BodyModel& model = scene.bodies[scene_of[static_cast<std::size_t>(i)]];
    core::MultibodyBody body;
    body.parent = i - 1;
    joints.push_back(experiment.registry.create<Joint>(*model.joint.info, model.joint.params));
    body.joint = joints.back();
    body.X_PJ = links[static_cast<std::size_t>(i)].X_PJ;
    body.mass = links[static_cast<std::size_t>(i)].mass;
    reference_bodies.push_back(body);
  }
  core::MultibodyTree reference(std::move(reference_bodies));

  // A random state (q, v in chain order), the driven joint on its prescribed motion at t.
  const double t = 0.37;
  std::uniform_real_distribution<double> angle(-pi, pi), rate(-2.0, 2.0);
  Eigen::VectorXd q(n), v(n);
  for (int i = 0; i < n; ++i) {
    q[i] = angle(rng);
    v[i] = rate(rng);
  }
  const double w = 2.0 * pi * 0.9;
  double a_driven = 0.0;
  if (driven >= 0) {
    q[driven] = 0.7 * std::sin(w * t + 0.2);
    v[driven] = 0.7 * w * std::cos(w * t + 0.2);
    a_driven = -0.7 * w * w * std::sin(w * t + 0.2);
  }
  core::Simulation simulation(scene, experiment.registry);
  REQUIRE(simulation.state_size() == static_cast<std::size_t>(2 * n));
  std::vector<double> y(2 * static_cast<std::size_t>(n)), y_rate(y.size());
  for (int i = 0; i < n; ++i) {
    y[scene_of[static_cast<std::size_t>(i)]] = q[i];
    y[static_cast<std::size_t>(n) + scene_of[static_cast<std::size_t>(i)]] = v[i];
  }
  simulation.derivative(t, y, y_rate);

  Eigen::MatrixXd M(n, n);
  reference.mass_matrix(std::span<const double>(q.data(), n), M);
  Eigen::VectorXd c(n);
  reference.bias_forces(std::span<const double>(q.data(), n), std::span<const double>(v.data(), n),
                        scene.gravity_W, {}, std::span<double>(c.data(), n));
  Eigen::VectorXd expected(n);
  if (driven < 0) {
    expected = M.llt().solve(-c);
  } else {
    // Rows of the free joints: M_ff·v̇_f = −c_f − M_fd·a_d.
    std::vector<int> free;
    for (int i = 0; i < n; ++i)
      if (i != driven) free.push_back(i);
    Eigen::MatrixXd M_ff(n - 1, n - 1);
    Eigen::VectorXd rhs(n - 1);
    for (int a = 0; a < n - 1; ++a) {
      rhs[a] = -c[free[a]] - M(free[a], driven) * a_driven;
      for (int b = 0; b < n - 1; ++b) M_ff(a, b) = M(free[a], free[b]);
    }
    const Eigen::VectorXd solved = M_ff.llt().solve(rhs);
    for (int a = 0; a < n - 1; ++a) expected[free[a]] = solved[a];
    expected[driven] = a_driven;
  }
  Eigen::VectorXd got(n);
  for (int i = 0; i < n; ++i) {
    got[i] = y_rate[static_cast<std::size_t>(n) + scene_of[static_cast<std::size_t>(i)]];
    CHECK(y_rate[scene_of[static_cast<std::size_t>(i)]] == v[i]);  // q̇ = v for a revolute
  }
  return (got - expected).norm() / expected.norm();
}

/// Energy of the bodies from the simulation's body states, E = Σ ½m·v_c² + ½ωᵀI_Wω − m·g·p_c.
double mechanical_energy(core::Simulation& simulation, std::span<const double> y) {
  const core::Scene& scene = simulation.scene();
  double energy = 0.0;
  for (std::size_t b = 0; b < scene.bodies.size(); ++b) {
    if (!scene.bodies[b].mobile) continue;
    const core::BodyState s = simulation.body_state(b, y);
    const core::MassProperties& mass = scene.bodies[b].mass;
    const Mat3 R = s.q_WB.toRotationMatrix();
    energy += 0.5 * mass.mass_kg * s.v_WCm.squaredNorm() +
              0.5 * s.w_WB.dot(R * mass.inertia_Cm_B * R.transpose() * s.w_WB) -
              mass.mass_kg * scene.gravity_W.dot(s.p_WCm);
  }
  return energy;
}

/// A double pendulum in the y–z plane: two 1 m links about x (each 1 kg, COM at the middle,
/// I = [1/12, 1/12, 1e-3] kg·m² about it: a slender rod), released at rest from 90° and 45°.
std::string double_pendulum(const std::string& integrator) {
  return R"(
duration_s: 10.0
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 0.01 }
bodies:
  - name: upper
    joint: { type: revolute, params: { axis_x: 1, axis_y: 0, axis_z: 0 } }
    mass: { mass_kg: 1.0, center_of_mass_m: [0, 0, -0.5],
            inertia_kg_m2: [0.0833333333333333, 0.0833333333333333, 0.001] }
    initial: { orientation: { axis: [1, 0, 0], angle_deg: 90 } }
  - name: lower
    parent: upper
    joint: { type: revolute, params: { axis_x: 1, axis_y: 0, axis_z: 0 } }
    joint_placement: { position_m: [0, 0, -1] }
    mass: { mass_kg: 1.0, center_of_mass_m: [0, 0, -0.5],
            inertia_kg_m2: [0.0833333333333333, 0.0833333333333333, 0.001] }
    initial: { position_m: [0, 1, 0], orientation: { axis: [1, 0, 0], angle_deg: 135 } }
integrator: )" +
         integrator + "\n";
}

struct EnergyRecord {
  double worst_relative = 0.0;  ///< max |E − E0| / E_scale
  double motion = 0.0;          ///< range of the lower link's angle [rad]: it really moves
  RunRecord run;
};

EnergyRecord double_pendulum_energy(const std::string& integrator) {
  Experiment experiment(double_pendulum(integrator));
  // The scale: the kinetic energy at the lowest configuration, the potential released from the
  // start (COMs at z = 0 and z = 0.5·sin 45°) down to both links hanging (z = −0.5, −1.5).
  const double g = 9.81;
  const double scale = g * ((0.0 + 0.5) + (0.5 * std::sin(pi / 4) + 1.5));
  EnergyRecord record;
  double E0 = 0.0, lowest = 1e300, highest = -1e300;
  bool first = true;
  record.run = run(experiment, [&](core::Simulation& sim, double, std::span<const double> y) {
    const double E = mechanical_energy(sim, y);
    if (first) E0 = E;
    first = false;
    record.worst_relative = std::max(record.worst_relative, std::abs(E - E0) / scale);
    lowest = std::min(lowest, y[1]);
    highest = std::max(highest, y[1]);
  });
  record.motion = highest - lowest;
  return record;
}

}  // namespace

TEST_CASE(
    "joint tree dynamics: a 20-link revolute chain read from YAML (shuffled order, random "
    "placements) accelerates as the independent CRBA solve M^-1(tau - c), within 1e-10 "
    "relative, and with a driven joint mid-chain as the partitioned solve") {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    const double error = chain_acceleration_error(20, -1, seed);
    INFO("seed " << seed);
    CHECK(error <= 1e-10);
  }
  for (const int driven : {0, 7, 19}) {
    const double error = chain_acceleration_error(20, driven, 40 + driven);
    INFO("driven link " << driven);
    CHECK(error <= 1e-10);
  }
}

TEST_CASE(
    "joint tree dynamics: a double pendulum conserves its energy over 10 s within 1e-8 of the "
    "released energy with rk4 at h = 1e-4 s, and within 1e-8 with cvode (adams) at rtol = "
    "1e-10") {
  const EnergyRecord rk4 = double_pendulum_energy("{ type: rk4, params: { step_s: 1.0e-4 } }");
  const EnergyRecord cvode = double_pendulum_energy(
      "{ type: cvode, params: { method: adams, rtol: 1.0e-10, atol: 1.0e-12 } }");
  std::printf(
      "double pendulum over 10 s: energy drift / released energy: rk4 %.2e, cvode %.2e "
      "(%lld steps); the lower joint's angle spans %.2f rad\n",
      rk4.worst_relative, cvode.worst_relative, static_cast<long long>(cvode.run.result.steps),
      rk4.motion);
  CHECK(rk4.motion > 1.0);  // chaotic, large motion
  CHECK(rk4.worst_relative <= 1e-8);
  CHECK(cvode.worst_relative <= 1e-8);
}

namespace {

/// Engelson (2000) §2.5/§7.1–7.2, reading notes §3.2/§3.4/§3.5: a 50 kg point mass 0.5 m along
/// a 1 m bar on a revolute joint about z (gravity −y), released at rest from q = 1 rad (the bar's
/// end at (−sin q, cos q)); the bar's end hits a wall at x = 0.5 m, or a floor at y = −0.4 m.
/// Here the bar's end is a welded child body `tip` (fixed joint at 1 m) carrying a sphere of
/// radius r whose surface touches the obstacle when the end reaches it (the wall is a half-space
/// at x = 0.5 + r with normal −x, the floor one at y = −0.4 − r with normal +y).
constexpr double tip_radius_m = 0.01;
constexpr double tip_mass_kg = 1e-3;
constexpr double floor_y_m = -0.4;

enum class Obstacle { wall, floor };

std::string engelson_pendulum(const std::string& force_law, double restitution, double duration_s,
                              Obstacle obstacle = Obstacle::wall,
                              const std::string& integrator =
                                  "{ type: rk4, params: { step_s: 1.0e-4, event_tolerance_s: "
                                  "1.0e-13 } }") {
  const std::string obstacle_body =
      obstacle == Obstacle::wall
          ? "  - name: wall\n    joint: fixed\n    initial: { position_m: [" +
                num(0.5 + tip_radius_m) +
                ", 0, 0] }\n    geometry: [{ name: wall, shape: { type: half_space, normal: [-1, "
                "0, 0] }, material: Steel }]\n"
          : "  - name: floor\n    joint: fixed\n    initial: { position_m: [0, " +
                num(floor_y_m - tip_radius_m) +
                ", 0] }\n    geometry: [{ name: floor, shape: { type: half_space, normal: [0, 1, "
                "0] }, material: Steel }]\n";
  return R"(
duration_s: )" +
         num(duration_s) +
         R"(
gravity_m_per_s2: [0, -9.81, 0]
output: { interval_s: 1.0e-3 }
materials:
  solids:
    Steel: { density_kg_per_m3: 8000, youngs_modulus_Pa: 2.0e11, poisson_ratio: 0.3 }
  pairs:
    - { materials: [Steel, Steel], restitution: )" +
         num(restitution) + R"( }
bodies:
)" + obstacle_body +
         R"(  - name: tip
    parent: arm
    joint: fixed
    joint_placement: { position_m: [0, 1, 0] }
    mass: { mass_kg: )" +
         num(tip_mass_kg) + R"(, inertia_kg_m2: [1.0e-9, 1.0e-9, 1.0e-9] }
    geometry: [{ name: tip, shape: { type: sphere, radius_m: )" +
         num(tip_radius_m) + R"( }, material: Steel }]
  - name: arm
    joint: { type: revolute, params: { axis_x: 0, axis_y: 0, axis_z: 1 } }
    mass: { mass_kg: 50, center_of_mass_m: [0, 0.5, 0], inertia_kg_m2: [1.0e-6, 1.0e-6, 1.0e-6] }
    initial: { orientation: { axis: [0, 0, 1], angle_deg: )" +
         num(180.0 / pi) + R"( } }
contact: { force_law: )" +
         force_law + R"(, friction: none }
integrator: )" +
         integrator + "\n";
}

struct Rebound {
  double restitution = 0.0;  ///< measured |q̇⁺/q̇⁻| at the wall, from the energies
  double hit_angle = 0.0;    ///< q at the first contact start
  int impacts = 0;
};

/// The pendulum's energy is ½·I_O·q̇² + g·cos q·(50·0.5 + m_tip·1) (COM heights 0.5·cos q and
/// cos q); between impacts it is constant, so the speed at the wall before and after the first
/// impact follows from E before, E after and the potential V(q_hit) at the wall:
/// |q̇⁺/q̇⁻| = √((E₁ − V_hit)/(E₀ − V_hit)).
Rebound measure_rebound(const std::string& force_law, double restitution) {
  const double g = 9.81;
  const double I_O = 50.0 * 0.25 + 1e-6 + tip_mass_kg * 1.0 + 1e-9;
  const double weight_moment = g * (50.0 * 0.5 + tip_mass_kg * 1.0);
  auto energy = [&](double q, double q_dot) {
    return 0.5 * I_O * q_dot * q_dot + weight_moment * std::cos(q);
  };
  // The tip's surface reaches x = 0.5 + r − r: −sin q = 0.5 past the bottom (q = π).
  const double q_hit = pi + std::asin(0.5);
  Experiment experiment(engelson_pendulum(force_law, restitution, 1.5));
  const double E0 = energy(1.0, 0.0);
  Rebound rebound;
  double E1 = 0.0;
  bool after = false;
  const RunRecord record =
      run(experiment, [&](core::Simulation&, double, std::span<const double> y) {
        // Swinging back and clear of the wall (its end at x < 0.49 m): the first impact is over.
        if (!after && y[1] < 0.0 && -std::sin(y[0]) < 0.49) {
          after = true;
          E1 = energy(y[0], y[1]);
        }
      });
  REQUIRE(after);
  rebound.hit_angle = q_hit;
  rebound.impacts = static_cast<int>(record.statistics.impulses);
  const double V_hit = weight_moment * std::cos(q_hit);
  rebound.restitution = std::sqrt((E1 - V_hit) / (E0 - V_hit));
  return rebound;
}

}  // namespace

TEST_CASE(
    "Engelson's pendulum (50 kg, 1 m bar, wall at x = 0.5 m) through a joint tree: the "
    "restitution impulse (through the tree's inverse mass) rebounds with q_dot+ = -e q_dot- "
    "within 1e-6 relative for e = 0.5 (the paper's) and 0.8, the engelson penalty law within "
    "1%") {
  for (const double e : {0.5, 0.8}) {
    const Rebound impulse = measure_rebound(
        "{ type: restitution_impulse, params: { resting_stiffness_N_per_m: 1.0e7 } }", e);
    const Rebound penalty =
        measure_rebound("{ type: engelson, params: { stiffness_per_mass_per_s2: 1.0e6 } }", e);
    std::printf(
        "Engelson pendulum, e = %.1f: impulse law rebound %.9f (%d impulse), engelson penalty "
        "%.6f\n",
        e, impulse.restitution, impulse.impacts, penalty.restitution);
    CHECK(impulse.impacts == 1);
    CHECK(impulse.restitution == Approx(e).epsilon(1e-6));
    CHECK(penalty.restitution == Approx(e).epsilon(0.01));
  }
}

namespace {

struct RestingPendulum {
  double q = 0.0, q_dot = 0.0;      ///< the arm's angle and rate at the end
  double normal_force_N = 0.0;      ///< the floor's push on the tip at the end
  double penetration_m = 0.0;       ///< the tip's depth in the floor at the end
  int contact_phases = 0;           ///< output-time runs with the tip on the floor
  double last_separation_s = -1.0;  ///< last output time with the tip off the floor
};

RestingPendulum rest_on_floor(const std::string& integrator) {
  Experiment experiment(
      engelson_pendulum("{ type: engelson, params: { stiffness_per_mass_per_s2: 1.0e6 } }", 0.5,
                        3.0, Obstacle::floor, integrator));
  RestingPendulum rest;
  bool touching = false;
  run(experiment, [&](core::Simulation& simulation, double t, std::span<const double> y) {
    const auto& contacts = simulation.contacts_at(t, y);
    if (!contacts.empty() && !touching) ++rest.contact_phases;
    touching = !contacts.empty();
    if (!touching) rest.last_separation_s = t;
    rest.q = y[0];
    rest.q_dot = y[1];
    rest.normal_force_N = touching ? contacts.front().normal_force_N : 0.0;
    rest.penetration_m = touching ? -contacts.front().geometry.distance_m : 0.0;
  });
  return rest;
}

}  // namespace

TEST_CASE(
    "Engelson's pendulum resting on a floor at y = -0.4 m (engelson law, e = 0.5, K = 1e6 per "
    "s^2) with rk4 and cvode: it bounces, then rests with the floor's force g(m/2 + m_tip) within "
    "1e-9 relative and the depth F/(K m*), m* = I_O/sin^2 q, within 1e-6 relative") {
  // Static equilibrium about the pivot: the weights' moment g·sin q·(50·0.5 + m_tip·1) equals the
  // floor force's F·sin q (the tip is 1 m out), so F = g·(25 + m_tip) at any resting angle. The
  // contact point moves vertically at −sin q·q̇, so m* = I_O/sin²q; the engelson law at rest is
  // F = K·m*·x, and the tip's depth x sets the angle: cos q = −0.4 − x. Fixed-point solve.
  const double g = 9.81;
  const double I_O = 50.0 * 0.25 + 1e-6 + tip_mass_kg * 1.0 + 1e-9;
  const double force_N = g * (50.0 * 0.5 + tip_mass_kg * 1.0);
  const double K = 1.0e6;
  double depth_m = 0.0;
  for (int iteration = 0; iteration < 50; ++iteration) {
    const double s = std::sin(std::acos(floor_y_m - depth_m));
    depth_m = force_N * s * s / (K * I_O);
  }
  const double q_rest = std::acos(floor_y_m - depth_m);

  const std::pair<const char*, const char*> integrators[] = {
      {"rk4", "{ type: rk4, params: { step_s: 1.0e-4 } }"},
      {"cvode", "{ type: cvode, params: { rtol: 1.0e-8, atol: 1.0e-10 } }"}};
  for (const auto& [name, integrator] : integrators) {
    const RestingPendulum rest = rest_on_floor(integrator);
    std::printf(
        "Engelson's floor pendulum (%s): %d contact phases, last off the floor at %.3f s; at 3 s "
        "q = %.9f (closed form %.9f), q_dot = %.1e, F = %.6f N (closed form %.6f), depth = "
        "%.6e m (closed form %.6e)\n",
        name, rest.contact_phases, rest.last_separation_s, rest.q, q_rest, rest.q_dot,
        rest.normal_force_N, force_N, rest.penetration_m, depth_m);
    INFO(name);
    CHECK(rest.contact_phases >= 2);  // it bounces off the floor before it rests
    CHECK(rest.last_separation_s < 2.0);
    CHECK(std::abs(rest.q_dot) < 1e-8);
    CHECK(rest.normal_force_N == Approx(force_N).epsilon(1e-9));
    CHECK(rest.penetration_m == Approx(depth_m).epsilon(1e-6));
    CHECK(rest.q == Approx(q_rest).epsilon(1e-9));
  }
}

TEST_CASE(
    "joint tree dynamics: no heap allocation per derivative, for a 20-link chain with a driven "
    "joint and for Engelson's pendulum during its contact with the wall (m* through the tree)") {
  if (!allocation_counting_available())
    CONTACTLAB_SKIP("this build cannot count heap allocations (neither glibc nor a sanitizer)");
  // Self-check: the counter sees an allocation when there is one.
  std::vector<double>* probe = nullptr;
  REQUIRE(allocations_during([&] { probe = new std::vector<double>(100); }) >= 1);
  delete probe;

  std::mt19937_64 rng(5);
  std::vector<Link> links;
  Experiment chain(random_chain(20, rng, links, 7));
  core::Simulation simulation(chain.scene, chain.registry);
  std::vector<double> y = simulation.initial_state(), y_rate(y.size());
  for (double& value : y) value += 0.3;
  simulation.derivative(0.1, y, y_rate);  // warm-up
  CHECK(allocations_during([&] {
          for (int repeat = 0; repeat < 3; ++repeat) simulation.derivative(0.1 + repeat, y, y_rate);
        }) == 0);

  // The pendulum presses into the wall: a living contact whose effective mass is the tree's.
  Experiment pendulum(engelson_pendulum(
      "{ type: engelson, params: { stiffness_per_mass_per_s2: 1.0e6 } }", 0.5, 1.5));
  int in_contact = 0;
  long allocations = 0;
  run(pendulum, [&](core::Simulation& sim, double t, std::span<const double> state) {
    if (!(-std::sin(state[0]) > 0.5 + 1e-5)) return;  // the tip penetrates the wall
    ++in_contact;
    std::vector<double> rate(state.size());
    sim.derivative(t, state, rate);  // warm-up at this state
    allocations += allocations_during([&] { sim.derivative(t, state, rate); });
  });
  CHECK(in_contact >= 1);
  CHECK(allocations == 0);
}
