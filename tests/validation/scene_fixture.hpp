// Helpers for validation tests: build a scene from YAML text with the built-in plugins and run it
// while sampling the state at every output time.
#pragma once

#include <charconv>
#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

#include "contactlab/core/config.hpp"
#include "contactlab/core/scene.hpp"
#include "contactlab/core/simulation.hpp"

namespace contactlab::testing {

/// Steel and a frictionless pair, as in configs/materials.yaml (Modia3D values).
inline const char* steel_palette = R"(
materials:
  solids:
    Steel: { density_kg_per_m3: 8000, youngs_modulus_Pa: 2.0e11, poisson_ratio: 0.3 }
  pairs:
    - { materials: [Steel, Steel], restitution: 0.7, friction_kinetic: 0.5 }
)";

/// Shortest text that reads back as the same double (std::to_string would round 3e-6 to 0.000003).
inline std::string num(double value) {
  char buffer[64];
  const auto end = std::to_chars(buffer, buffer + sizeof(buffer), value).ptr;
  return std::string(buffer, end);
}

struct Sample {
  double t;
  std::vector<double> y;
};

struct RunRecord {
  std::vector<Sample> samples;
  core::SimulationStatistics statistics;
  IntegrationResult result;
};

/// A scene plus its registry and simulation, kept together (the scene must outlive both users).
struct Experiment {
  core::PluginRegistry registry;
  core::Scene scene;
  explicit Experiment(const std::string& yaml)
      : scene(core::build_scene(core::parse_yaml(yaml, "test.yaml"), "test.yaml", registry)) {}
};

/// Runs the experiment, calling `observe(simulation, t, y)` at every output time.
inline RunRecord run(
    Experiment& experiment,
    const std::function<void(core::Simulation&, double, std::span<const double>)>& observe = {}) {
  core::Simulation simulation(experiment.scene, experiment.registry);
  RunRecord record;
  core::OutputCallback sampler([&](double t, std::span<const double> y) {
    record.samples.push_back({t, std::vector<double>(y.begin(), y.end())});
    if (observe) observe(simulation, t, y);
  });
  simulation.add_observer(sampler);
  record.result = simulation.run();
  record.statistics = simulation.statistics();
  return record;
}

/// Mass of a steel sphere of radius r.
inline double steel_sphere_mass(double radius_m) {
  return 8000.0 * 4.0 / 3.0 * std::numbers::pi * radius_m * radius_m * radius_m;
}

/// E* of steel on steel (Neumayr eq. 7.2).
inline double steel_effective_modulus() {
  return 1.0 / (2.0 * (1.0 - 0.09) / 2.0e11);
}

}  // namespace contactlab::testing
