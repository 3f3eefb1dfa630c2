// The collision filter (core): same body, immovable pairs, bodies joined by a joint (unless it
// says can_collide), collision groups; loose and swept boxes. Scenes are built from YAML and run
// with the built-in plugins.
#include <catch2/catch.hpp>
#include <set>

#include "scene_fixture.hpp"

using namespace contactlab;
using namespace contactlab::testing;
using Catch::Matchers::Contains;

namespace {

const char* palette = R"(
materials:
  solids:
    Steel: { density_kg_per_m3: 8000, youngs_modulus_Pa: 2.0e11, poisson_ratio: 0.3 }
    Wood: { density_kg_per_m3: 700, youngs_modulus_Pa: 1.1e10, poisson_ratio: 0.4 }
  pairs:
    - { materials: [Steel, Steel], restitution: 0.7, friction_kinetic: 0.5 }
    - { materials: [Wood, Wood], restitution: 0.5, friction_kinetic: 0.5 }
)";

/// floor (fixed, default group), wall (fixed), plain (two spheres, default group), ghost (only
/// touches ghosts), both (in ghost and default, collides only with ghosts). The wood spheres need
/// no Steel–Wood pair material because the filter never lets them meet steel.
std::string grouped_scene(const std::string& ghost_collides_with = "[ghost]") {
  return std::string("name: groups\nduration_s: 0.01\n") + palette + R"(
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space }, material: Steel }]
  - name: wall
    joint: fixed
    geometry: [{ name: wall, shape: { type: sphere, radius_m: 1 }, material: Steel }]
  - name: plain
    initial: { position_m: [0, 0, 1] }
    geometry:
      - { name: plain_a, shape: { type: sphere, radius_m: 0.05 }, material: Steel }
      - { name: plain_b, shape: { type: sphere, radius_m: 0.05 }, material: Steel }
  - name: ghost
    initial: { position_m: [1, 0, 1] }
    geometry:
      - name: ghost
        shape: { type: sphere, radius_m: 0.05 }
        material: Wood
        groups: [ghost]
        collides_with: )" +
         ghost_collides_with + R"(
  - name: both
    initial: { position_m: [2, 0, 1] }
    geometry:
      - { name: both, shape: { type: sphere, radius_m: 0.05 }, material: Wood, groups: [ghost, default], collides_with: [ghost] }
collision: { broad_phase: brute_force, narrow_phase: [primitive] }
contact: { force_law: { type: linear, params: { stiffness_N_per_m: 1.0e6 } } }
integrator: { type: rk4, params: { step_s: 1.0e-3 } }
)";
}

std::size_t geometry(const core::Scene& scene, const std::string& name) {
  for (std::size_t g = 0; g < scene.geometries.size(); ++g)
    if (scene.geometries[g].name == name) return g;
  FAIL("no geometry " << name);
  return 0;
}

}  // namespace

TEST_CASE("collision filter: same body, two fixed bodies and group masks decide admission") {
  Experiment experiment(grouped_scene());
  const core::Scene& scene = experiment.scene;
  auto admitted = [&](const char* a, const char* b) {
    const bool ab = core::collision_admitted(scene, geometry(scene, a), geometry(scene, b));
    const bool ba = core::collision_admitted(scene, geometry(scene, b), geometry(scene, a));
    REQUIRE(ab == ba);  // symmetric
    return ab;
  };
  CHECK_FALSE(admitted("plain_a", "plain_b"));  // one body
  CHECK_FALSE(admitted("floor", "wall"));       // neither can move
  CHECK(admitted("floor", "plain_a"));          // default group meets default group
  CHECK_FALSE(admitted("floor", "ghost"));      // ghost collides only with ghosts
  CHECK_FALSE(admitted("plain_a", "ghost"));
  CHECK(admitted("ghost", "both"));
  // `both` is in the default group, but admission needs each side in a group the other collides
  // with: the floor collides with `both`'s default membership, `both` does not collide with it.
  CHECK_FALSE(admitted("plain_a", "both"));
  CHECK_FALSE(admitted("floor", "both"));
  REQUIRE(scene.collision_groups == std::vector<std::string>{"default", "ghost"});
}

TEST_CASE("collision filter: a ghost falls through the floor exactly as in free fall, 1e-9 m") {
  Experiment experiment(grouped_scene());
  experiment.scene.duration_s = 0.6;  // the plain ball lands at 0.43 s, the ghost does not
  const RunRecord record = run(experiment);
  const std::size_t ghost_body = 3;
  REQUIRE(experiment.scene.bodies[ghost_body].name == "ghost");
  // Free joint coordinates: position first; the ghost's z is its body's third coordinate.
  int q_offset = 0;
  for (std::size_t b = 0; b < ghost_body; ++b) q_offset += experiment.scene.bodies[b].nq;
  const Sample& last = record.samples.back();
  const double t = last.t;
  CHECK(std::abs(last.y[q_offset + 2] - (1.0 - 0.5 * 9.81 * t * t)) < 1e-9);
  CHECK(last.y[q_offset + 2] < -0.7);  // well below the floor
}

TEST_CASE("collision filter: an unknown group in collides_with is located, with did-you-mean") {
  try {
    Experiment experiment(grouped_scene("[ghots]"));
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string message = e.what();
    CHECK_THAT(message, Contains("test.yaml:"));
    CHECK_THAT(message, Contains("bodies[3].geometry[0].collides_with"));
    CHECK_THAT(message, Contains("unknown collision group 'ghots'"));
    CHECK_THAT(message, Contains("did you mean 'ghost'"));
  }
}

TEST_CASE("collision filter: a pair the groups admit still needs its pair material") {
  // The ghost now collides with the default group too: Steel–Wood is missing.
  try {
    Experiment experiment(grouped_scene("[ghost, default]"));
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Contains("missing pair material (Steel, Wood)"));
  }
}

namespace {

std::string falling_ball(const std::string& collision_extra) {
  return std::string("name: loose\nduration_s: 0.2\n") + steel_palette + R"(
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space }, material: Steel }]
  - name: ball
    initial: { position_m: [0, 0, 0.5], velocity_m_per_s: [0, 0, -1] }
    geometry: [{ name: ball, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
collision: { broad_phase: brute_force, narrow_phase: [primitive])" +
         collision_extra + R"( }
contact: { force_law: { type: linear, params: { stiffness_N_per_m: 1.0e6 } } }
integrator: { type: rk4, params: { step_s: 1.0e-3 } }
)";
}

}  // namespace

TEST_CASE("loose and swept boxes: more narrow-phase queries, the same trajectory to 1e-15 m") {
  // The ball stays above the floor for 0.2 s (z ≥ 0.5 − 0.2 − g·0.02 ≈ 0.10 > 0.05): tight boxes
  // never overlap, a 0.5 m margin always does; sweeping only adds queries near the floor.
  Experiment tight(falling_ball(""));
  Experiment loose(falling_ball(", aabb_margin_m: 0.5"));
  Experiment swept(falling_ball(", sweep_boxes: true"));
  const RunRecord r_tight = run(tight), r_loose = run(loose), r_swept = run(swept);
  CHECK(r_tight.statistics.narrow_phase_queries == 0);
  // One query per derivative, per event-function evaluation (step_completed() reuses the one
  // at its state), and at the initial contact detection.
  CHECK(r_loose.statistics.narrow_phase_queries ==
        r_loose.statistics.rhs_evaluations + r_loose.result.event_evaluations + 1);
  CHECK(r_swept.statistics.narrow_phase_queries == 0);
  const auto& a = r_tight.samples.back().y;
  const auto& b = r_loose.samples.back().y;
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(std::abs(a[i] - b[i]) < 1e-15);
}

TEST_CASE("loose boxes: a negative margin is an input error with the range and unit") {
  try {
    Experiment experiment(falling_ball(", aabb_margin_m: -0.1"));
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Contains("collision.aabb_margin_m"));
    CHECK_THAT(std::string(e.what()), Contains("m"));
  }
}

namespace {

/// A chain upper → lower → third of revolute links (about x), each with a sphere of radius
/// 0.45 m at its origin, the joints 0.4 m apart: every two spheres overlap (upper–third are
/// 0.8 m apart). `lower_joint_extra` goes into lower's joint choice (e.g. can_collide: true).
std::string jointed_chain(const std::string& broad_phase, const std::string& lower_joint_extra) {
  return std::string("name: chain\nduration_s: 0.002\ngravity_m_per_s2: [0, 0, 0]\n") +
         steel_palette + R"(
bodies:
  - name: third
    parent: lower
    joint: { type: revolute, params: { axis_x: 1, axis_y: 0, axis_z: 0 } }
    joint_placement: { position_m: [0, 0, -0.4] }
    geometry: [{ name: third, shape: { type: sphere, radius_m: 0.45 }, material: Steel }]
  - name: upper
    joint: { type: revolute, params: { axis_x: 1, axis_y: 0, axis_z: 0 } }
    geometry: [{ name: upper, shape: { type: sphere, radius_m: 0.45 }, material: Steel }]
  - name: lower
    parent: upper
    joint: { type: revolute, params: { axis_x: 1, axis_y: 0, axis_z: 0 })" +
         lower_joint_extra + R"( }
    joint_placement: { position_m: [0, 0, -0.4] }
    geometry: [{ name: lower, shape: { type: sphere, radius_m: 0.45 }, material: Steel }]
collision: { broad_phase: )" +
         broad_phase + R"(, narrow_phase: [primitive] }
contact: { force_law: { type: linear, params: { stiffness_N_per_m: 1.0e6 } } }
integrator: { type: rk4, params: { step_s: 1.0e-3 } }
)";
}

/// The geometry pairs in contact at t = 0 (living contacts, as the run sees them).
std::set<std::string> touching_pairs(Experiment& experiment) {
  std::set<std::string> pairs;
  bool first = true;
  run(experiment, [&](core::Simulation& sim, double t, std::span<const double> y) {
    if (!first) return;
    first = false;
    for (const core::ContactSample& sample : sim.contacts_at(t, y)) {
      std::string a = experiment.scene.geometries[sample.geometry_a].name;
      std::string b = experiment.scene.geometries[sample.geometry_b].name;
      if (b < a) std::swap(a, b);
      pairs.insert(a + "–" + b);
    }
  });
  return pairs;
}

const std::vector<std::string> broad_phases = {"brute_force", "sap", "aabb_tree", "hash_grid",
                                               "sort_sweep"};

}  // namespace

TEST_CASE(
    "collision filter: bodies joined by a joint never touch unless the joint says can_collide: "
    "true, a grandparent does, the same for every broad phase") {
  for (const std::string& broad_phase : broad_phases) {
    INFO("broad phase " << broad_phase);
    Experiment plain(jointed_chain(broad_phase, ""));
    const core::Scene& scene = plain.scene;
    auto admitted = [&](const core::Scene& s, const char* a, const char* b) {
      const bool ab = core::collision_admitted(s, geometry(s, a), geometry(s, b));
      REQUIRE(ab == core::collision_admitted(s, geometry(s, b), geometry(s, a)));
      return ab;
    };
    CHECK_FALSE(admitted(scene, "upper", "lower"));  // parent–child
    CHECK_FALSE(admitted(scene, "lower", "third"));  // parent–child
    CHECK(admitted(scene, "upper", "third"));        // not joined directly
    CHECK(touching_pairs(plain) == std::set<std::string>{"third–upper"});

    Experiment allowed(jointed_chain(broad_phase, ", can_collide: true"));
    CHECK(admitted(allowed.scene, "upper", "lower"));
    CHECK_FALSE(admitted(allowed.scene, "lower", "third"));  // third's joint does not allow it
    CHECK(touching_pairs(allowed) == std::set<std::string>{"lower–upper", "third–upper"});
  }
}

TEST_CASE("collision filter: can_collide belongs to the joint choice, not to the joint's params") {
  // Inside params it is an unknown parameter of the revolute plugin.
  std::string yaml = jointed_chain("brute_force", "");
  const auto at = yaml.find("axis_z: 0 }", yaml.find("  - name: lower"));
  yaml.replace(at, 11, "axis_z: 0, can_collide: true }");
  try {
    Experiment experiment(yaml);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Contains("bodies[2].joint.params"));
    CHECK_THAT(std::string(e.what()), Contains("can_collide"));
  }
  // Beside type and params it is the host's, and must be a boolean.
  try {
    Experiment experiment(jointed_chain("brute_force", ", can_collide: sometimes"));
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Contains("bodies[2].joint.can_collide"));
  }
}
