// Integrators on a contact scene: a steel ball bouncing on a steel plate (Hertz with Flores
// damping, e = 0.8). Every contact start and end is a located event, and the adaptive implicit
// integrator (cvode BDF) agrees with fixed-step rk4 on every bounce time.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "contactlab/core/recorder.hpp"
#include "scene_fixture.hpp"

using namespace contactlab;
using namespace contactlab::testing;

namespace {

std::string bouncing_ball(const std::string& integrator) {
  return R"(
materials:
  solids:
    Steel: { density_kg_per_m3: 8000, youngs_modulus_Pa: 2.0e11, poisson_ratio: 0.3 }
  pairs:
    - { materials: [Steel, Steel], restitution: 0.8 }
duration_s: 1.2
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 0.01, contacts: false }
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space }, material: Steel }]
  - name: ball
    initial: { position_m: [0, 0, 0.25] }
    geometry: [{ name: ball, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
contact: { force_law: { type: hunt_crossley, params: { damping_model: flores } }, friction: none }
integrator: )" +
         integrator + "\n";
}

struct Event {
  double t;
  std::string kind;
};

/// Runs the scene with a recorder into a fresh directory and reads events.csv back.
std::vector<Event> events_of(const std::string& yaml, const std::string& name,
                             core::SimulationStatistics& statistics) {
  Experiment experiment(yaml);
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() /
      ("contactlab_events_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(directory);
  core::Simulation simulation(experiment.scene, experiment.registry);
  {
    core::Recorder recorder(directory, yaml);
    simulation.add_observer(recorder);
    const IntegrationResult result = simulation.run();
    REQUIRE(result.status == IntegrationStatus::completed);
  }
  statistics = simulation.statistics();
  std::vector<Event> events;
  std::ifstream in(directory / "events.csv");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    const auto comma = line.find(',');
    const auto next = line.find(',', comma + 1);
    events.push_back({std::stod(line.substr(0, comma)), line.substr(comma + 1, next - comma - 1)});
  }
  std::filesystem::remove_all(directory);
  return events;
}

}  // namespace

TEST_CASE(
    "bouncing steel ball (hunt_crossley flores, e = 0.8): every contact start and end is a "
    "located event, and cvode (BDF, rtol 1e-8) and rk4 (2 µs) agree on all bounce times to "
    "1e-4 s") {
  core::SimulationStatistics rk4_stats, cvode_stats;
  const auto rk4 =
      events_of(bouncing_ball("{ type: rk4, params: { step_s: 2.0e-6 } }"), "rk4", rk4_stats);
  const auto cvode = events_of(
      bouncing_ball("{ type: cvode, params: { method: bdf, rtol: 1.0e-8, atol: 1.0e-10 } }"),
      "cvode", cvode_stats);
  // Free fall from 0.2 m: first impact at √(2h/g), then flights of 2·e^k·√(2gh)/g (approx.).
  REQUIRE(rk4.size() >= 6);
  REQUIRE(cvode.size() == rk4.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < rk4.size(); ++i) {
    CHECK(cvode[i].kind == rk4[i].kind);
    CHECK((rk4[i].kind == "contact_start" || rk4[i].kind == "contact_end"));
    worst = std::max(worst, std::abs(cvode[i].t - rk4[i].t));
  }
  CHECK(std::abs(rk4[0].t - std::sqrt(2.0 * 0.2 / 9.81)) < 1e-6);
  std::printf(
      "bouncing ball: %zu events, worst |t_cvode − t_rk4| = %.3g s; rk4 %lld steps %lld f, "
      "cvode %lld steps %lld f\n",
      rk4.size(), worst, static_cast<long long>(rk4_stats.steps),
      static_cast<long long>(rk4_stats.rhs_evaluations), static_cast<long long>(cvode_stats.steps),
      static_cast<long long>(cvode_stats.rhs_evaluations));
  CHECK(worst < 1e-4);
  CHECK(cvode_stats.located_events == static_cast<std::int64_t>(cvode.size()));
  CHECK(rk4_stats.located_events == static_cast<std::int64_t>(rk4.size()));
}
