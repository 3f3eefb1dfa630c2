// The narrow-phase chain (core): `narrow_phase: [p1, p2, ...]` gives each shape pair to the first
// plugin that supports it, a single name gives every pair to that plugin. Scenes are built from
// YAML and run with the built-in plugins; the plugins' own query counters say who answered.
#include <catch2/catch.hpp>

#include "scene_fixture.hpp"

using namespace contactlab;
using namespace contactlab::testing;

namespace {

/// Two overlapping spheres (a pair every narrow phase supports) and, 5 m away, an overlapping
/// cylinder and box (a pair `primitive` does not support). No gravity: the pairs stay overlapping
/// for the 2 ms run, and the two groups' bounding boxes never meet.
std::string two_pairs(const std::string& narrow_phase) {
  return std::string("name: chain\nduration_s: 0.002\ngravity_m_per_s2: [0, 0, 0]\n") +
         steel_palette + R"(
bodies:
  - name: s1
    initial: { position_m: [0, 0, 1] }
    geometry: [{ name: s1, shape: { type: sphere, radius_m: 0.1 }, material: Steel }]
  - name: s2
    initial: { position_m: [0.15, 0, 1] }
    geometry: [{ name: s2, shape: { type: sphere, radius_m: 0.1 }, material: Steel }]
  - name: cylinder
    initial: { position_m: [5, 0, 1] }
    geometry: [{ name: cylinder, shape: { type: cylinder, radius_m: 0.1, length_m: 0.2 }, material: Steel }]
  - name: box
    initial: { position_m: [5.15, 0, 1] }
    geometry: [{ name: box, shape: { type: box, size_m: [0.2, 0.2, 0.2] }, material: Steel }]
collision: { broad_phase: brute_force, narrow_phase: )" +
         narrow_phase + R"( }
contact: { force_law: { type: linear, params: { stiffness_N_per_m: 1.0e6 } } }
integrator: { type: rk4, params: { step_s: 1.0e-4 } }
)";
}

/// Each chain member's query count after running the scene.
std::vector<std::int64_t> queries_per_member(const std::string& narrow_phase) {
  Experiment experiment(two_pairs(narrow_phase));
  core::Simulation simulation(experiment.scene, experiment.registry);
  REQUIRE(simulation.run().status == IntegrationStatus::completed);
  std::vector<std::int64_t> out;
  std::int64_t total = 0;
  for (const NarrowPhaseStatistics& s : simulation.narrow_phase_statistics()) {
    out.push_back(s.queries);
    total += s.queries;
  }
  CHECK(total == simulation.statistics().narrow_phase_queries);
  return out;
}

}  // namespace

TEST_CASE(
    "narrow-phase chain: the first plugin supporting a shape pair answers it - primitive takes the "
    "spheres and gjk_epa the cylinder-box pair, query for query") {
  const auto queries = queries_per_member("[primitive, gjk_epa]");
  REQUIRE(queries.size() == 2);
  CHECK(queries[0] > 0);
  // Both pairs are detected at every detection of the run: one query each.
  CHECK(queries[0] == queries[1]);
}

TEST_CASE("narrow-phase chain: a plugin supporting every pair leaves the later ones no query") {
  const auto queries = queries_per_member("[gjk_epa, primitive]");
  REQUIRE(queries.size() == 2);
  CHECK(queries[0] > 0);
  CHECK(queries[1] == 0);
}

TEST_CASE("narrow-phase chain: a single name answers every pair, as a chain of one") {
  const auto single = queries_per_member("mpr");
  const auto chain = queries_per_member("[primitive, mpr]");
  REQUIRE(single.size() == 1);
  REQUIRE(chain.size() == 2);
  // mpr alone answers both pairs, twice the queries of either pair alone.
  CHECK(single[0] == chain[0] + chain[1]);
  CHECK(single[0] == 2 * chain[1]);
}
