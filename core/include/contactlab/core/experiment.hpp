// Experiments from files: load (with includes and --set overrides), build the scene, run it into
// a run directory. The CLI and the end-to-end tests go through these functions.
#pragma once

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contactlab/core/scene.hpp"
#include "contactlab/core/simulation.hpp"

namespace contactlab::core {

/// Loads FILE, applies the overrides in order, builds and checks the scene.
Scene load_experiment(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                      PluginRegistry& registry);

struct RunOutcome {
  std::filesystem::path directory;
  IntegrationResult result;
  SimulationStatistics statistics;
};

/// `runs/<name>-<YYYYmmdd-HHMMSS>` under the current directory (a suffix keeps it unique).
std::filesystem::path default_run_directory(const std::string& experiment_name);

/// Runs the scene into `directory`. On a SimulationError the run directory is marked failed and
/// the error is rethrown; an interrupt (stop becomes true) returns status interrupted. `progress`
/// (may be null) follows the run's steps (Simulation::set_progress).
RunOutcome run_experiment(const Scene& scene, PluginRegistry& registry,
                          const std::filesystem::path& directory,
                          const std::atomic<bool>* stop = nullptr, RunProgress* progress = nullptr);

}  // namespace contactlab::core
