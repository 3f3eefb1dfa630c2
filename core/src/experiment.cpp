// Loading and running experiments (see experiment.hpp).
#include "contactlab/core/experiment.hpp"

#include <ctime>

#include "contactlab/core/metrics.hpp"
#include "contactlab/core/recorder.hpp"

namespace contactlab::core {

namespace fs = std::filesystem;

Scene load_experiment(const fs::path& file, const std::vector<std::string>& overrides,
                      PluginRegistry& registry) {
  ConfigNode config = load_config_file(file);
  for (const std::string& assignment : overrides) apply_override(config, assignment);
  return build_scene(std::move(config), file, registry);
}

fs::path default_run_directory(const std::string& experiment_name) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local);
  const fs::path base = fs::path("runs") / (experiment_name + "-" + stamp);
  fs::path candidate = base;
  for (int i = 2; fs::exists(candidate); ++i) candidate = base.string() + "-" + std::to_string(i);
  return candidate;
}

RunOutcome run_experiment(const Scene& scene, PluginRegistry& registry, const fs::path& directory,
                          const std::atomic<bool>* stop, RunProgress* progress) {
  Simulation simulation(scene, registry);
  simulation.set_progress(progress);
  RunMetrics metrics;
  Recorder recorder(directory, to_yaml(scene.resolved), &metrics);
  // The metrics before the recorder: their values are final when it writes summary.json.
  simulation.add_observer(metrics);
  simulation.add_observer(recorder);
  RunOutcome outcome;
  outcome.directory = directory;
  try {
    outcome.result = simulation.run(stop);
  } catch (const std::exception& e) {
    recorder.fail(e.what());
    throw SimulationError(e.what());
  }
  outcome.statistics = simulation.statistics();
  if (outcome.result.status == IntegrationStatus::failed)
    throw SimulationError("integrator '" + scene.integrator.type +
                          "' failed at t = " + std::to_string(outcome.result.time_reached_s) +
                          " s: " + outcome.result.message);
  return outcome;
}

}  // namespace contactlab::core
