// Determinism: the same binary, the same input and the same machine give the same bits (README,
// "Determinism"). Three shipped scenes, one per family of contact laws — a Hertz penalty law on
// cvode, Engelson's law on rk4, Newton's restitution impulses through a joint tree on rk4 — each
// shortened so that its contacts still happen, run twice in this process and once more in a
// second process (this test program run again, for the hidden test case below); the final
// states' FNV-1a hashes over the bytes of every double must be equal, and so must the states.
#include <catch2/catch.hpp>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "contactlab/core/experiment.hpp"
#include "contactlab/core/scene.hpp"
#include "contactlab/core/simulation.hpp"

using namespace contactlab;

namespace {

/// FNV-1a (64 bits) over the bytes of every double, in order.
std::uint64_t fnv1a(const std::vector<double>& values) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const double value : values) {
    unsigned char bytes[sizeof(double)];
    std::memcpy(bytes, &value, sizeof(double));
    for (const unsigned char byte : bytes) {
      hash ^= byte;
      hash *= 0x100000001b3ULL;
    }
  }
  return hash;
}

struct FinalState {
  std::vector<double> y;  ///< the state at the last output time (bodies' q and v, contacts' x)
  double t = 0.0;
  std::int64_t outputs = 0, steps = 0, events = 0, impulses = 0;
  std::uint64_t hash() const { return fnv1a(y); }
};

/// A shipped scene, the overrides that shorten it, and the events it must still see.
struct ShortScene {
  const char* file;
  std::vector<std::string> overrides;
  std::int64_t min_events = 0;
};

FinalState run_to_end(const ShortScene& scene_file) {
  core::PluginRegistry registry;
  const core::Scene scene =
      core::load_experiment(std::filesystem::path(CONTACTLAB_CONFIGS_DIR) / scene_file.file,
                            scene_file.overrides, registry);
  core::Simulation simulation(scene, registry);
  FinalState final_state;
  /// Keeps the state of the last output time (the initial state counts as the first).
  struct LastOutput final : core::SimulationObserver {
    FinalState* final_state;
    explicit LastOutput(FinalState& state) : final_state(&state) {}
    void keep(const core::RunSample& sample) {
      final_state->t = sample.time_s;
      final_state->y.assign(sample.state.begin(), sample.state.end());
      ++final_state->outputs;
    }
    void on_initial_state(const core::RunSample& sample) override { keep(sample); }
    void on_output(const core::RunSample& sample) override { keep(sample); }
  } last_output(final_state);
  simulation.add_observer(last_output);
  const IntegrationResult result = simulation.run();
  REQUIRE(result.status == IntegrationStatus::completed);
  final_state.steps = simulation.statistics().steps;
  final_state.events = simulation.statistics().events;
  final_state.impulses = simulation.statistics().impulses;
  return final_state;
}

const char* const kChildVariable = "CONTACTLAB_DETERMINISM_SCENE";

/// The scene as one line for the child process: file, then the overrides, separated by '\n'.
std::string encode(const ShortScene& scene) {
  std::string text = scene.file;
  for (const std::string& override_text : scene.overrides) text += "\n" + override_text;
  return text;
}

/// Runs this test program again, for the hidden test case below, and returns the hash it printed.
std::uint64_t hash_in_another_process(const ShortScene& scene) {
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  REQUIRE(::setenv(kChildVariable, encode(scene).c_str(), 1) == 0);
  std::string command = "'";
  command += self.string();
  command += "' '[.determinism_child]' 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof(buffer), pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  ::unsetenv(kChildVariable);
  INFO("the child process said:\n" << output);
  REQUIRE(status == 0);
  const std::string::size_type at = output.find("final state FNV-1a ");
  REQUIRE(at != std::string::npos);
  return std::strtoull(output.c_str() + at + std::strlen("final state FNV-1a "), nullptr, 16);
}

/// The same final bits twice in this process and once in another; contacts happened.
void check_deterministic(const ShortScene& scene) {
  const FinalState first = run_to_end(scene);
  const FinalState second = run_to_end(scene);
  INFO(scene.file << ": t " << first.t << ", " << first.steps << " steps, " << first.events
                  << " events, " << first.impulses << " impulses, " << first.y.size()
                  << " states, hash " << std::hex << first.hash());
  REQUIRE(first.events >= scene.min_events);  // the contacts happen before the end
  REQUIRE(first.y.size() == second.y.size());
  CHECK(first.t == second.t);
  CHECK(first.outputs == second.outputs);
  CHECK(first.steps == second.steps);
  CHECK(first.events == second.events);
  CHECK(first.y == second.y);
  CHECK(first.hash() == second.hash());
  CHECK(hash_in_another_process(scene) == first.hash());
}

}  // namespace

TEST_CASE(
    "determinism: Modia3D's two colliding balls (modia law, Hertz with damping, and regularised "
    "Coulomb friction on cvode bdf, 0.6 s past the hit) end in the same bits twice in one process "
    "and in another") {
  // Both balls born on the cloth, the hit at 0.56 s and its end: 4 events.
  check_deterministic({"modia_two_colliding_balls.yaml", {"duration_s=0.6"}, 4});
}

TEST_CASE(
    "determinism: Engelson's pendulum against the wall (engelson law on rk4, 1 s through the "
    "rebound) ends in the same bits twice in one process and in another") {
  // The hit at 0.56 s and its end.
  check_deterministic({"engelson_pendulum_wall.yaml", {"duration_s=1.0"}, 2});
}

TEST_CASE(
    "determinism: Engelson's double pendulum (restitution impulses through a joint tree on rk4, "
    "1 s of bounces on the floor) ends in the same bits twice in one process and in another") {
  // Bounces from 0.26 s on: each a start, an impulse and an end (over 100 events).
  check_deterministic({"engelson_double_pendulum.yaml", {"duration_s=1.0"}, 30});
}

// The second process of the tests above: runs the scene named by CONTACTLAB_DETERMINISM_SCENE and
// prints its final state's hash. Hidden ([.]): it runs only when asked for by its tag.
TEST_CASE("determinism: the scene in CONTACTLAB_DETERMINISM_SCENE, in a process of its own",
          "[.determinism_child]") {
  const char* text = std::getenv(kChildVariable);
  REQUIRE(text != nullptr);
  std::istringstream lines(text);
  std::string file;
  std::getline(lines, file);
  ShortScene scene{nullptr, {}};
  for (std::string line; std::getline(lines, line);) scene.overrides.push_back(line);
  scene.file = file.c_str();
  const FinalState final_state = run_to_end(scene);
  std::printf("final state FNV-1a %016" PRIx64 "\n", final_state.hash());
}
