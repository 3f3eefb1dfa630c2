// The contact pipeline (core): the run's committing detection and probe(), which answers the same
// question at a trial configuration without side effects on the run. Scenes are built from YAML
// and run with the built-in plugins.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "contactlab/core/contact_pipeline.hpp"
#include "scene_fixture.hpp"

using namespace contactlab;
using namespace contactlab::testing;

namespace {

const char* ground_box = R"(
  - name: ground
    joint: fixed
    initial: { position_m: [0, 0, -0.05] }
    geometry: [{ name: ground, shape: { type: box, size_m: [2, 2, 0.1] }, material: Steel }])";

/// A brick resting on a ground box, an ellipsoid dropped onto the brick, a capsule lying on the
/// ground against the brick's side (GJK/EPA, rk4): answers that depend on their warm starts, a
/// body with three contacts (its loads summed in the contact set's order, which an incremental
/// broad phase may change), swept loose boxes, contacts born and dying during the run.
std::string stack_scene(const std::string& broad_phase) {
  return std::string("name: stack\nduration_s: 0.02\ngravity_m_per_s2: [0, 0, -9.81]\n") +
         "output: { interval_s: 2.0e-4 }\n" + steel_palette + "bodies:" + ground_box + R"(
  - name: brick
    initial: { position_m: [0.3, 0, 0.0499], orientation: { axis: [0, 0, 1], angle_deg: 5 } }
    geometry: [{ name: brick, shape: { type: box, size_m: [0.1, 0.1, 0.1] }, material: Steel }]
  - name: egg
    initial: { position_m: [0.31, 0, 0.2003], velocity_m_per_s: [0.2, 0, -0.5], angular_velocity_rad_per_s: [3, 2, 0] }
    geometry: [{ name: egg, shape: { type: ellipsoid, size_m: [0.1, 0.15, 0.2] }, material: Steel }]
  - name: pill
    initial: { position_m: [0.2002, 0, 0.0499], orientation: { axis: [1, 0, 0], angle_deg: 90 } }
    geometry: [{ name: pill, shape: { type: capsule, radius_m: 0.05, length_m: 0.1 }, material: Steel }]
collision: { broad_phase: )" +
         broad_phase + R"(, narrow_phase: [gjk_epa], aabb_margin_m: 0.002, sweep_boxes: true }
contact: { force_law: { type: linear, params: { stiffness_N_per_m: 1.0e6, damping_N_s_per_m: 100 } } }
integrator: { type: rk4, params: { step_s: 2.0e-5 } }
)";
}

/// An ellipsoid and a tilted capsule bouncing on a ground box (MPR, Modia's law, CVODE locating
/// the contact starts and ends): warm-started portals, adaptive steps, swept loose boxes.
std::string bounce_scene() {
  return std::string("name: bounce\nduration_s: 0.02\ngravity_m_per_s2: [0, 0, -9.81]\n") +
         "output: { interval_s: 2.0e-4 }\n" + steel_palette + "bodies:" + ground_box + R"(
  - name: egg
    initial: { position_m: [0, 0, 0.1004], velocity_m_per_s: [0.2, 0, -0.5], angular_velocity_rad_per_s: [3, 2, 0] }
    geometry: [{ name: egg, shape: { type: ellipsoid, size_m: [0.1, 0.15, 0.2] }, material: Steel }]
  - name: pill
    initial: { position_m: [0.2, 0, 0.0676], orientation: { axis: [1, 0, 0], angle_deg: 70 }, velocity_m_per_s: [0, 0, -0.2] }
    geometry: [{ name: pill, shape: { type: capsule, radius_m: 0.05, length_m: 0.1 }, material: Steel }]
collision: { broad_phase: sap, narrow_phase: [mpr], aabb_margin_m: 0.002, sweep_boxes: true }
contact: { force_law: modia }
integrator: { type: cvode, params: { rtol: 1.0e-8, atol: 1.0e-10 } }
)";
}

/// Two spheres over a half-space, answered in closed form (primitive), loose boxes, no sweep.
std::string closed_form_scene() {
  return std::string("name: closed_form\nduration_s: 0.01\ngravity_m_per_s2: [0, 0, -9.81]\n") +
         steel_palette + R"(
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space }, material: Steel }]
  - name: a
    initial: { position_m: [0, 0, 0.0499] }
    geometry: [{ name: a, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
  - name: b
    initial: { position_m: [0.0995, 0, 0.06] }
    geometry: [{ name: b, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
collision: { broad_phase: brute_force, narrow_phase: [primitive], aabb_margin_m: 0.02 }
contact: { force_law: { type: linear, params: { stiffness_N_per_m: 1.0e6 } } }
integrator: { type: rk4, params: { step_s: 1.0e-5 } }
)";
}

/// y with every configuration coordinate moved by up to `amplitude` (a pattern that changes with
/// k), projected back onto the joints' manifold (unit quaternions).
std::vector<double> perturbed(core::Simulation& simulation, std::span<const double> y, int k,
                              double amplitude) {
  std::vector<double> trial(y.begin(), y.end());
  for (std::size_t i = 0; i < simulation.configuration_size(); ++i)
    trial[i] += amplitude * std::sin(1.7 * static_cast<double>(i) + 0.9 * k);
  simulation.project(trial);
  return trial;
}

struct Observed {
  std::vector<Sample> samples;
  core::SimulationStatistics statistics;
  std::vector<NarrowPhaseStatistics> narrow_phase;
  std::int64_t probes = 0, probe_pairs = 0, probe_queries = 0;
};

/// Runs the scene; with `probe`, probes two perturbed configurations at every output time (the
/// integrators report output times between their steps).
Observed run_with_probes(const std::string& yaml, bool probe) {
  Experiment experiment(yaml);
  core::Simulation simulation(experiment.scene, experiment.registry);
  Observed observed;
  core::ContactSet trial_contacts;
  int k = 0;
  core::OutputCallback sampler([&](double t, std::span<const double> y) {
    observed.samples.push_back({t, std::vector<double>(y.begin(), y.end())});
    if (!probe) return;
    for (const double amplitude : {2e-2, 5e-4}) {
      const std::vector<double> trial = perturbed(simulation, y, ++k, amplitude);
      simulation.probe_contacts(
          std::span<const double>(trial).first(simulation.configuration_size()), trial_contacts);
      ++observed.probes;
      observed.probe_pairs += static_cast<std::int64_t>(trial_contacts.pairs.size());
    }
  });
  simulation.add_observer(sampler);
  REQUIRE(simulation.run().status == IntegrationStatus::completed);
  observed.statistics = simulation.statistics();
  observed.narrow_phase = simulation.narrow_phase_statistics();
  observed.probe_queries = simulation.pipeline().statistics().probe_queries;
  return observed;
}

void require_same_run(const Observed& with, const Observed& without) {
  REQUIRE(with.samples.size() == without.samples.size());
  for (std::size_t i = 0; i < with.samples.size(); ++i) {
    INFO("output " << i << " at t = " << with.samples[i].t);
    REQUIRE(with.samples[i].t == without.samples[i].t);
    REQUIRE(with.samples[i].y == without.samples[i].y);  // bit for bit
  }
  const core::SimulationStatistics& a = with.statistics;
  const core::SimulationStatistics& b = without.statistics;
  CHECK(a.steps == b.steps);
  CHECK(a.rhs_evaluations == b.rhs_evaluations);
  CHECK(a.narrow_phase_queries == b.narrow_phase_queries);
  CHECK(a.events == b.events);
  CHECK(a.max_penetration_m == b.max_penetration_m);
  REQUIRE(with.narrow_phase.size() == without.narrow_phase.size());
  for (std::size_t m = 0; m < with.narrow_phase.size(); ++m) {
    CHECK(with.narrow_phase[m].queries == without.narrow_phase[m].queries);
    CHECK(with.narrow_phase[m].total_iterations == without.narrow_phase[m].total_iterations);
    CHECK(with.narrow_phase[m].max_iterations_used == without.narrow_phase[m].max_iterations_used);
    CHECK(with.narrow_phase[m].degenerate_cases == without.narrow_phase[m].degenerate_cases);
  }
}

using PairMap = std::map<core::PairKey, core::ContactPair>;
PairMap by_pair(const core::ContactSet& set) {
  PairMap out;
  for (const core::ContactPair& pair : set.pairs)
    out.emplace(core::pair_key(pair.geometry_a, pair.geometry_b), pair);
  return out;
}

}  // namespace

TEST_CASE(
    "contact pipeline: trial probes between the steps leave the run bit for bit unchanged - "
    "trajectory, counters and the narrow phase's statistics (sap and aabb_tree with rk4, cvode)") {
  const std::string yaml = GENERATE(stack_scene("sap"), stack_scene("aabb_tree"), bounce_scene());
  INFO(yaml);
  const Observed without = run_with_probes(yaml, false);
  const Observed with = run_with_probes(yaml, true);
  // The probes did query (the trial configurations move the bodies by up to 2 cm).
  REQUIRE(with.probes >= 2 * 100);
  REQUIRE(with.probe_pairs > with.probes / 2);
  REQUIRE(with.probe_queries == with.probe_pairs);
  CHECK(without.statistics.events >= 4);  // contacts were born (and watched) and died
  require_same_run(with, without);
}

TEST_CASE(
    "contact pipeline: a probe at the configuration of the last detection gives its answer bit "
    "for bit (closed-form pairs), and the trial configuration moves the answer") {
  Experiment experiment(closed_form_scene());
  core::Simulation simulation(experiment.scene, experiment.registry);
  std::vector<double> y = simulation.initial_state();
  const std::size_t nq = simulation.configuration_size();
  simulation.contacts_at(0.0, y);  // a detection of the run at y
  const PairMap updated = by_pair(simulation.pipeline().contacts());
  REQUIRE(updated.size() == 3);  // a–floor, b–floor, a–b

  core::ContactSet probed;
  simulation.probe_contacts(std::span<const double>(y).first(nq), probed);
  const PairMap at_same = by_pair(probed);
  REQUIRE(at_same.size() == updated.size());
  for (const auto& [key, pair] : updated) {
    const core::ContactPair& other = at_same.at(key);
    CHECK(other.body_a == pair.body_a);
    CHECK(other.body_b == pair.body_b);
    REQUIRE(other.manifold.count == pair.manifold.count);
    for (int i = 0; i < pair.manifold.count; ++i) {
      CHECK(other.manifold.points[i].distance_m == pair.manifold.points[i].distance_m);
      CHECK(other.manifold.points[i].normal_W == pair.manifold.points[i].normal_W);
      CHECK(other.manifold.points[i].point_a_W == pair.manifold.points[i].point_a_W);
      CHECK(other.manifold.points[i].point_b_W == pair.manifold.points[i].point_b_W);
    }
  }

  // Sphere a 3 mm higher: its floor distance grows by 3 mm (within 1e-15 m), b's does not.
  const std::size_t a_z = 2;  // body a's free joint: [p; quaternion], after the fixed floor
  std::vector<double> raised = y;
  raised[a_z] += 3e-3;
  simulation.probe_contacts(std::span<const double>(raised).first(nq), probed);
  const PairMap moved = by_pair(probed);
  const core::PairKey a_floor = core::pair_key(0, 1), b_floor = core::pair_key(0, 2);
  CHECK(std::abs(moved.at(a_floor).deepest().distance_m -
                 (updated.at(a_floor).deepest().distance_m + 3e-3)) < 1e-15);
  CHECK(moved.at(b_floor).deepest().distance_m == updated.at(b_floor).deepest().distance_m);
  // …and the run's own contact set is the one of its detection.
  const PairMap still = by_pair(simulation.pipeline().contacts());
  CHECK(still.at(a_floor).deepest().distance_m == updated.at(a_floor).deepest().distance_m);
}

TEST_CASE(
    "contact pipeline: a probe's answer does not depend on the probes before it - same "
    "configuration, same bits") {
  Experiment experiment(stack_scene("sap"));
  core::Simulation simulation(experiment.scene, experiment.registry);
  const std::vector<double> y = simulation.initial_state();
  const std::size_t nq = simulation.configuration_size();
  simulation.contacts_at(0.0, y);  // the run's caches: warm starts from this detection
  const std::vector<double> q1 = perturbed(simulation, y, 1, 2e-3);
  const std::vector<double> q2 = perturbed(simulation, y, 2, 5e-3);
  core::ContactSet first, between, again;
  simulation.probe_contacts(std::span<const double>(q1).first(nq), first);
  simulation.probe_contacts(std::span<const double>(q2).first(nq), between);
  simulation.probe_contacts(std::span<const double>(q1).first(nq), again);
  REQUIRE(first.pairs.size() >= 3);
  REQUIRE(again.pairs.size() == first.pairs.size());
  for (std::size_t p = 0; p < first.pairs.size(); ++p) {
    CHECK(again.pairs[p].geometry_a == first.pairs[p].geometry_a);
    CHECK(again.pairs[p].geometry_b == first.pairs[p].geometry_b);
    REQUIRE(again.pairs[p].manifold.count == first.pairs[p].manifold.count);
    for (int i = 0; i < first.pairs[p].manifold.count; ++i) {
      CHECK(again.pairs[p].manifold.points[i].distance_m ==
            first.pairs[p].manifold.points[i].distance_m);
      CHECK(again.pairs[p].manifold.points[i].normal_W ==
            first.pairs[p].manifold.points[i].normal_W);
    }
  }
  // Its pairs come in ascending (a, b) order.
  for (std::size_t p = 1; p < first.pairs.size(); ++p)
    CHECK(core::pair_key(first.pairs[p - 1].geometry_a, first.pairs[p - 1].geometry_b) <
          core::pair_key(first.pairs[p].geometry_a, first.pairs[p].geometry_b));
}
