// The observers of a run, fed typed events directly (no simulation): the recorder's events.csv
// text and the metrics' first impact and contact probes.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "contactlab/core/metrics.hpp"
#include "contactlab/core/recorder.hpp"
#include "contactlab/core/scene.hpp"

using namespace contactlab;
using namespace contactlab::core;
namespace fs = std::filesystem;

namespace {

/// A scene with geometries named `ball` (0), `floor` (1) and `wall` (2), seen as a run.
class FakeRun final : public RunView {
 public:
  FakeRun() {
    for (const char* name : {"ball", "floor", "wall"}) {
      GeometryModel geometry;
      geometry.name = name;
      geometry.body = scene_.geometries.size();
      scene_.geometries.push_back(geometry);
    }
  }
  Scene& scene_model() { return scene_; }
  const Scene& scene() const override { return scene_; }
  SimulationStatistics statistics() const override { return {}; }
  std::vector<NarrowPhaseStatistics> narrow_phase_statistics() const override { return {}; }

 private:
  Scene scene_;
};

std::string read_file(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE(
    "recorder: typed events become events.csv rows - kind, geometry names, key=value details in "
    "shortest round-trip numbers") {
  const fs::path directory =
      fs::temp_directory_path() / ("contactlab_observer_tests_" + std::to_string(::getpid()));
  fs::remove_all(directory);
  FakeRun run;
  {
    Recorder recorder(directory, "name: fake\n");
    recorder.on_run_start(run);
    recorder.on_contact_start(ContactStartEvent{0.001, 0, 1, 1.25});
    recorder.on_impulse(ImpulseEvent{0.001, 0, 1, 0.1 + 0.2, 0.7});
    recorder.on_law_event(
        LawEvent{0.0015, 0, 2, "max_compression", LawEvent::Source::force_law, 1, 3e-06});
    recorder.on_law_event(
        LawEvent{0.002, 0, 2, "stick_to_slip", LawEvent::Source::friction, 2, 1.0 / 3.0});
    recorder.on_contact_end(ContactEndEvent{0.0025, 0, 1, 0.0015, 2.5e-05, -0.875});
  }
  CHECK(read_file(directory / "events.csv") ==
        "time_s,kind,geometry_a,geometry_b,details\n"
        "0.001,contact_start,ball,floor,impact_velocity_m_per_s=1.25\n"
        "0.001,impulse,ball,floor,impulse_N_s=0.30000000000000004;restitution=0.7\n"
        "0.0015,max_compression,ball,wall,law_mode=1;penetration_m=3e-06\n"
        "0.002,stick_to_slip,ball,wall,friction_mode=2;penetration_m=0.3333333333333333\n"
        "0.0025,contact_end,ball,floor,duration_s=0.0015;max_penetration_m=2.5e-05;"
        "separation_velocity_m_per_s=-0.875\n");
  fs::remove_all(directory);
}

TEST_CASE(
    "metrics: the first impact of the restitution pair is measured from its start and end events, "
    "other pairs and later impacts ignored") {
  FakeRun run;
  PairSelector pair;
  pair.first = {"ball", {0}};
  pair.second = {"floor", {1}};
  run.scene_model().metrics.restitution_pair = pair;
  RunMetrics metrics;
  metrics.on_run_start(run);
  metrics.on_contact_start(ContactStartEvent{0.001, 0, 2, 3.0});  // ball–wall: not the pair
  metrics.on_contact_start(ContactStartEvent{0.002, 0, 1, 2.0});
  metrics.on_contact_end(ContactEndEvent{0.003, 0, 2, 0.002, 1e-5, 9.0});
  metrics.on_contact_end(ContactEndEvent{0.004, 0, 1, 0.002, 2e-5, 1.5});
  metrics.on_contact_start(ContactStartEvent{0.005, 0, 1, 7.0});  // a later impact
  metrics.on_contact_end(ContactEndEvent{0.006, 0, 1, 0.001, 2e-5, 7.0});
  const RunMetrics::FirstImpact& impact = metrics.first_impact();
  REQUIRE(impact.started);
  REQUIRE(impact.ended);
  CHECK(impact.geometry_a == 0);
  CHECK(impact.geometry_b == 1);
  CHECK(impact.start_s == 0.002);
  CHECK(impact.end_s == 0.004);
  CHECK(impact.impact_velocity_m_per_s == 2.0);
  CHECK(impact.separation_velocity_m_per_s == 1.5);
  CHECK(impact.has_separation);
}

TEST_CASE(
    "metrics: a contact probe counts the pair's births and keeps its deepest penetration from "
    "contact_end events and the output samples") {
  FakeRun run;
  ProbeModel probe;
  probe.name = "ball_floor_depth";
  probe.kind = ProbeModel::Kind::contact_extreme;
  probe.quantity = ProbeModel::Quantity::max_penetration;
  probe.pair.first = {"ball", {0}};
  probe.pair.second = {"floor", {1}};
  run.scene_model().probes.push_back(probe);
  RunMetrics metrics;
  metrics.on_run_start(run);
  CHECK(metrics.needs().contacts);
  CHECK_FALSE(metrics.needs().bodies);
  metrics.on_contact_start(ContactStartEvent{0.001, 0, 1, 1.0});
  metrics.on_contact_start(ContactStartEvent{0.001, 0, 2, 1.0});  // another pair
  ContactSample sample;
  sample.geometry_a = 0;
  sample.geometry_b = 1;
  sample.geometry.distance_m = -1e-5;
  const std::vector<ContactSample> contacts{sample};
  RunSample output;
  output.time_s = 0.002;
  output.contacts = contacts;
  output.energy_J = 0.0;
  metrics.on_output(output);
  REQUIRE(metrics.probes().size() == 1);
  CHECK(metrics.probes()[0].value == 1e-5);
  CHECK(metrics.probes()[0].time_s == 0.002);
  metrics.on_contact_end(ContactEndEvent{0.003, 0, 1, 0.002, 4e-5, 0.5});  // deeper between outputs
  const RunMetrics::ProbeResult& result = metrics.probes()[0];
  CHECK(result.value == 4e-5);
  CHECK(std::isnan(result.time_s));
  CHECK(result.contacts == 1);
  CHECK(result.samples == 1);
}
