// Run metrics in summary.json: the measured restitution of a named pair's first impact, probes of a
// body's state at an output time and of a contact's extremes, the energy's deviation, the phase
// split of the wall time; and the located errors of bad `metrics:` and `probes:` sections.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>

#include "contactlab/core/experiment.hpp"

using namespace contactlab;
using namespace contactlab::core;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

fs::path scratch() {
  const fs::path directory =
      fs::temp_directory_path() / ("contactlab_metrics_tests_" + std::to_string(::getpid()));
  fs::create_directories(directory);
  return directory;
}

// A steel ball (r = 5 cm) 1 mm above a steel floor, moving down at 1 m/s, no gravity: a single
// impact at t = 1 ms. The ball is body `ball` with geometry `ball_shape`.
constexpr double radius_m = 0.05;
constexpr double density_kg_per_m3 = 8000.0;
constexpr double speed_m_per_s = 1.0;
constexpr double stiffness_N_per_m = 1.0e6;

std::string impact_scene(const std::string& force_law, const std::string& extra) {
  return R"(name: impact
duration_s: 0.01
gravity_m_per_s2: [0, 0, 0]
output: { interval_s: 1.0e-5 }
materials:
  solids:
    Steel: { density_kg_per_m3: 8000, youngs_modulus_Pa: 2.0e11, poisson_ratio: 0.3 }
  pairs:
    - { materials: [Steel, Steel], restitution: 0.5, friction_kinetic: 0.0 }
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space }, material: Steel }]
  - name: ball
    initial: { position_m: [0, 0, 0.051], velocity_m_per_s: [0, 0, -1.0] }
    geometry: [{ name: ball_shape, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
contact: { force_law: )" +
         force_law + R"( }
integrator: { type: rk4, params: { step_s: 1.0e-6 } }
)" + extra;
}

json run_and_read_summary(const std::string& text, const std::string& name) {
  const fs::path directory = scratch() / name;
  fs::remove_all(directory);
  const fs::path file = scratch() / (name + ".yaml");
  std::ofstream(file) << text;
  PluginRegistry registry;
  const Scene scene = load_experiment(file, {}, registry);
  run_experiment(scene, registry, directory);
  std::ifstream in(directory / "summary.json");
  return json::parse(in);
}

std::string error_of(const std::string& text) {
  const fs::path file = scratch() / "bad_metrics.yaml";
  std::ofstream(file) << text;
  PluginRegistry registry;
  try {
    load_experiment(file, {}, registry);
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("no error for:\n" << text);
  return "";
}

double ball_mass_kg() {
  return density_kg_per_m3 * 4.0 / 3.0 * std::numbers::pi * radius_m * radius_m * radius_m;
}

}  // namespace

TEST_CASE(
    "metrics: the restitution of an elastic linear-spring impact is 1 within 1e-6, its contact "
    "extremes v·sqrt(m·k) and v·sqrt(m/k) within 1e-4 relative") {
  const json summary = run_and_read_summary(
      impact_scene("{ type: linear, params: { stiffness_N_per_m: 1.0e6 } }",
                   "metrics: { restitution_pair: [ball, floor] }\n"
                   "probes:\n"
                   "  - { name: peak_force, contact: [floor, ball_shape], quantity: "
                   "max_normal_force }\n"
                   "  - { name: peak_depth, contact: [ball, floor], quantity: max_penetration }\n"),
      "elastic");
  REQUIRE(summary["status"] == "complete");
  INFO(summary.dump(2));
  REQUIRE(summary["restitution"].is_number());
  CHECK(summary["restitution"].get<double>() == Approx(1.0).margin(1e-6));
  CHECK(summary["first_impact"]["impact_velocity_m_per_s"].get<double>() ==
        Approx(speed_m_per_s).epsilon(1e-6));
  CHECK(summary["first_impact"]["status"] == "measured");
  // Undamped spring without gravity: δ_max = v·sqrt(m/k), F_max = k·δ_max (sampled every 10 µs
  // of a 6.4 ms half period: the sampled peak is within 1e-5 of the true one).
  const double m = ball_mass_kg();
  const double depth = speed_m_per_s * std::sqrt(m / stiffness_N_per_m);
  CHECK(summary["probes"]["peak_depth"].get<double>() == Approx(depth).epsilon(1e-4));
  CHECK(summary["probes"]["peak_force"].get<double>() ==
        Approx(stiffness_N_per_m * depth).epsilon(1e-4));
  // The peak is at the middle of the contact: 1 ms + (π/2)·sqrt(m/k), within one output interval.
  const double peak_time = 1e-3 + std::numbers::pi / 2.0 * std::sqrt(m / stiffness_N_per_m);
  CHECK(summary["probe_details"]["peak_force"]["time_s"].get<double>() ==
        Approx(peak_time).margin(1e-5));
  CHECK(summary["probe_details"]["peak_force"]["unit"] == "N");
}

TEST_CASE(
    "metrics: the restitution of a Newton impulse with e = 0.8 (no gravity) is 0.8 within "
    "1e-9") {
  const json summary = run_and_read_summary(
      impact_scene("{ type: restitution_impulse, params: { restitution: 0.8 } }",
                   "metrics: { restitution_pair: [floor, ball_shape] }\n"),
      "impulse");
  REQUIRE(summary["status"] == "complete");
  INFO(summary.dump(2));
  REQUIRE(summary["restitution"].is_number());
  CHECK(summary["restitution"].get<double>() == Approx(0.8).margin(1e-9));
  CHECK(summary["first_impact"]["separation_velocity_m_per_s"].get<double>() ==
        Approx(0.8 * speed_m_per_s).margin(1e-9));
}

TEST_CASE(
    "metrics: a contact born at t = 0 (the ball starts 0.5 mm deep at 1 m/s) is the first impact, "
    "and its restitution is sqrt(1 + k*d0^2/(m*v0^2)) within 1e-6 (elastic linear spring)") {
  std::string text = impact_scene("{ type: linear, params: { stiffness_N_per_m: 1.0e6 } }",
                                  "metrics: { restitution_pair: [ball, floor] }\n");
  const std::string start = "position_m: [0, 0, 0.051]";
  text.replace(text.find(start), start.size(), "position_m: [0, 0, 0.0495]");
  const json summary = run_and_read_summary(text, "born_at_zero");
  REQUIRE(summary["status"] == "complete");
  INFO(summary.dump(2));
  CHECK(summary["first_impact"]["start_s"].get<double>() == 0.0);
  CHECK(summary["first_impact"]["impact_velocity_m_per_s"].get<double>() ==
        Approx(speed_m_per_s).epsilon(1e-9));
  REQUIRE(summary["first_impact"]["status"] == "measured");
  // Energy: the spring holds k·d0²/2 at t = 0 and nothing when the ball leaves.
  const double d0 = 0.0005;
  const double expected = std::sqrt(1.0 + stiffness_N_per_m * d0 * d0 /
                                              (ball_mass_kg() * speed_m_per_s * speed_m_per_s));
  CHECK(summary["restitution"].get<double>() == Approx(expected).margin(1e-6));
}

TEST_CASE(
    "metrics: without the pair ever touching, restitution is null and the contact probes are 0") {
  std::string text =
      impact_scene("{ type: linear }",
                   "metrics: { restitution_pair: [ball, floor] }\n"
                   "probes: [{ name: f, contact: [ball, floor], quantity: max_normal_force }]\n");
  text.replace(text.find("velocity_m_per_s: [0, 0, -1.0]"), 30, "velocity_m_per_s: [0, 0, 1.0]");
  const json summary = run_and_read_summary(text, "apart");
  CHECK(summary["restitution"].is_null());
  CHECK(summary["first_impact"]["status"] == "no contact");
  CHECK(summary["probes"]["f"].get<double>() == 0.0);
}

TEST_CASE(
    "probes: a free-falling body's position and velocity at output times are z0 − g·t²/2 and "
    "−g·t within 1e-11, RK4 being exact on quadratics") {
  const std::string text = R"(name: fall
duration_s: 0.3
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 1.0e-3 }
materials:
  solids:
    Steel: { density_kg_per_m3: 8000, youngs_modulus_Pa: 2.0e11, poisson_ratio: 0.3 }
  pairs:
    - { materials: [Steel, Steel], restitution: 0.5, friction_kinetic: 0.0 }
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space }, material: Steel }]
  - name: ball
    initial: { position_m: [0.5, 0, 1.0] }
    geometry: [{ name: ball, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
integrator: { type: rk4, params: { step_s: 1.0e-4 } }
probes:
  - { name: z_at_025, body: ball, quantity: position, component: z, at_s: 0.25 }
  - { name: vz_at_025, body: ball, quantity: velocity, component: z, at_s: 0.25 }
  - { name: speed_at_end, body: ball, quantity: velocity, component: norm, at_s: 0.3 }
  - { name: x_at_0, body: ball, quantity: position, component: x, at_s: 0 }
  - { name: qw_at_end, body: ball, quantity: orientation, component: w, at_s: 0.3 }
)";
  const json summary = run_and_read_summary(text, "fall");
  REQUIRE(summary["status"] == "complete");
  INFO(summary.dump(2));
  const double g = 9.81;
  const json& probes = summary["probes"];
  CHECK(probes["z_at_025"].get<double>() == Approx(1.0 - 0.5 * g * 0.25 * 0.25).margin(1e-11));
  CHECK(probes["vz_at_025"].get<double>() == Approx(-g * 0.25).margin(1e-11));
  CHECK(probes["speed_at_end"].get<double>() == Approx(g * 0.3).margin(1e-11));
  CHECK(probes["x_at_0"].get<double>() == 0.5);
  CHECK(probes["qw_at_end"].get<double>() == Approx(1.0).margin(1e-15));
  CHECK(summary["probe_details"]["z_at_025"]["time_s"].get<double>() == Approx(0.25).margin(1e-15));
  CHECK(summary["probe_details"]["z_at_025"]["unit"] == "m");
  // Free fall conserves energy: the largest deviation over the output times is round-off.
  CHECK(summary["energy_max_deviation_J"].get<double>() <
        1e-9 * std::abs(summary["energy_initial_J"].get<double>()));
  // The wall time's phases, the recorder's own time and the integrator's rest add up to it.
  const json& phases = summary["phase_time_s"];
  double sum = 0.0;
  for (const char* phase :
       {"broad_phase", "narrow_phase", "response", "dynamics", "recording", "integrator"}) {
    REQUIRE(phases.contains(phase));
    CHECK(phases[phase].get<double>() >= 0.0);
    sum += phases[phase].get<double>();
  }
  CHECK(sum <= summary["wall_time_s"].get<double>() * (1.0 + 1e-9));
}

TEST_CASE("probes and metrics: bad specifications are located errors") {
  const std::string base = impact_scene("{ type: linear }", "");
  auto with = [&](const std::string& extra) { return error_of(base + extra); };

  std::string e = with(
      "probes:\n  - { name: z, body: bal, quantity: position, component: z, "
      "at_s: 0.001 }\n");
  CHECK_THAT(e, Contains("bad_metrics.yaml:") && Contains("unknown body 'bal'") &&
                    Contains("did you mean 'ball'") && Contains("probes[0].body"));

  e = with(
      "probes:\n  - { name: z, body: ball, quantity: position, component: z, "
      "at_s: 0.0012345 }\n");
  CHECK_THAT(e, Contains("is not an output time") && Contains("probes[0].at_s") &&
                    Contains("0.00123") && Contains("0.00124"));

  e = with("probes:\n  - { name: z, body: ball, quantity: position, component: z, at_s: 1 }\n");
  CHECK_THAT(e, Contains("out of range") && Contains("probes[0].at_s"));

  e = with("probes:\n  - { name: z, body: ball, quantity: positon, component: z, at_s: 0 }\n");
  CHECK_THAT(e, Contains("did you mean 'position'") && Contains("probes[0].quantity"));

  e = with("probes:\n  - { name: z, body: ball, quantity: max_normal_force, at_s: 0 }\n");
  CHECK_THAT(e, Contains("is for 'contact: [a, b]' probes"));

  e = with(
      "probes:\n  - { name: z, body: ball, quantity: orientation, component: norm, "
      "at_s: 0 }\n");
  CHECK_THAT(e, Contains("must be one of w, x, y, z") && Contains("probes[0].component"));

  e = with(
      "probes:\n  - { name: f, contact: [ball, floor], quantity: max_normal_force, "
      "component: x }\n");
  CHECK_THAT(e, Contains("unknown key 'component'") && Contains("probes[0].component"));

  e = with("probes:\n  - { name: f, contact: [ball, flor], quantity: max_penetration }\n");
  CHECK_THAT(e, Contains("unknown geometry or body 'flor'") && Contains("did you mean 'floor'") &&
                    Contains("probes[0].contact[1]"));

  e = with(
      "probes:\n  - { name: f, body: ball, contact: [ball, floor], quantity: "
      "max_penetration }\n");
  CHECK_THAT(e, Contains("exactly one of 'body'") && Contains("probes[0]"));

  e = with("probes:\n  - { name: a.b, contact: [ball, floor], quantity: max_penetration }\n");
  CHECK_THAT(e, Contains("letters, digits") && Contains("probes[0].name"));

  e = with(
      "probes:\n  - { name: f, contact: [ball, floor], quantity: max_penetration }\n"
      "  - { name: f, contact: [ball, floor], quantity: max_normal_force }\n");
  CHECK_THAT(e, Contains("a second probe named 'f'") && Contains("probes[1].name"));

  e = with("metrics: { restitution_pair: [ball] }\n");
  CHECK_THAT(e, Contains("must be a pair [a, b]") && Contains("metrics.restitution_pair"));

  e = with("metrics: { restitution_pair: [ball, ball_shape] }\n");
  CHECK_THAT(e, Contains("can never touch") && Contains("metrics.restitution_pair"));

  e = with("metrics: { restitution: [ball, floor] }\n");
  CHECK_THAT(e, Contains("unknown key 'restitution'") && Contains("restitution_pair"));
}
