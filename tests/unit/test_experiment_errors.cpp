// Experiment files with mistakes: every error names file:line:col, the dotted path, and for
// misspelt names a "did you mean".
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "contactlab/core/experiment.hpp"

using namespace contactlab;
using namespace contactlab::core;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

const char* valid_experiment = R"(name: drop
duration_s: 0.01
materials:
  solids:
    Steel: { density_kg_per_m3: 8000, youngs_modulus_Pa: 2.0e11, poisson_ratio: 0.3 }
    Wood: { density_kg_per_m3: 700, youngs_modulus_Pa: 1.1e10, poisson_ratio: 0.4 }
  pairs:
    - { materials: [Steel, Steel], restitution: 0.7, friction_kinetic: 0.5 }
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space }, material: Steel }]
  - name: ball
    initial: { position_m: [0, 0, 1] }
    geometry: [{ name: ball, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
contact: { force_law: { type: linear, params: { stiffness_N_per_m: 1.0e6 } } }
)";

/// A folder of this test process's own: ctest runs test cases in parallel processes.
fs::path scratch(const std::string& file_name) {
  const fs::path directory =
      fs::temp_directory_path() / ("contactlab_experiment_tests_" + std::to_string(::getpid()));
  fs::create_directories(directory);
  return directory / file_name;
}

/// Writes `text` to a temporary file and returns the error message of loading it.
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  const fs::path file = scratch("contactlab_error_test.yaml");
  std::ofstream(file) << text;
  PluginRegistry registry;
  try {
    load_experiment(file, overrides, registry);
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("no error for:\n" << text);
  return "";
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("experiment: the valid reference file loads") {
  const fs::path file = scratch("contactlab_valid_test.yaml");
  std::ofstream(file) << valid_experiment;
  PluginRegistry registry;
  const Scene scene = load_experiment(file, {}, registry);
  CHECK(scene.bodies.size() == 2);
  CHECK(scene.force_law.type == "linear");
}

TEST_CASE("experiment error: a missing file is named") {
  PluginRegistry registry;
  CHECK_THROWS_WITH(load_experiment("/nonexistent/experiment.yaml", {}, registry),
                    Contains("/nonexistent/experiment.yaml"));
}

TEST_CASE("experiment error: a YAML syntax error has file:line:col") {
  const std::string message = error_of("name: x\nbodies: [ { name: a\n");
  CHECK_THAT(message, Contains("contactlab_error_test.yaml:3:1"));
  CHECK_THAT(message, Contains("YAML syntax error"));
}

TEST_CASE("experiment error: an unknown key is located and a close one suggested") {
  const std::string message =
      error_of(replace(valid_experiment, "radius_m: 0.05", "raduis_m: 0.05"));
  CHECK_THAT(message, Contains("contactlab_error_test.yaml:15:"));
  CHECK_THAT(message, Contains("bodies[1].geometry[0].shape"));
  CHECK_THAT(message, Contains("did you mean 'radius_m'"));
}

TEST_CASE("experiment error: an unknown plugin name lists the known ones") {
  const std::string message = error_of(replace(valid_experiment, "type: linear", "type: hertzz"));
  CHECK_THAT(message, Contains("contactlab_error_test.yaml:16:"));
  CHECK_THAT(message, Contains("contact.force_law.type"));
  CHECK_THAT(message, Contains("did you mean 'hertz'"));
  CHECK_THAT(message, Contains("hertz, hunt_crossley, linear"));
}

TEST_CASE("experiment error: a parameter of the wrong type is located") {
  const std::string message =
      error_of(replace(valid_experiment, "stiffness_N_per_m: 1.0e6", "stiffness_N_per_m: soft"));
  CHECK_THAT(message, Contains("contactlab_error_test.yaml:16:"));
  CHECK_THAT(message, Contains("contact.force_law.params.stiffness_N_per_m"));
  CHECK_THAT(message, Contains("must be a finite number"));
}

TEST_CASE("experiment error: a parameter out of range names the range and unit") {
  const std::string message =
      error_of(replace(valid_experiment, "stiffness_N_per_m: 1.0e6", "stiffness_N_per_m: -3"));
  CHECK_THAT(message, Contains("contact.force_law.params.stiffness_N_per_m"));
  CHECK_THAT(message, Contains("out of range (0, inf) N/m"));
}

TEST_CASE("experiment error: a missing pair material names the pair") {
  const std::string message = error_of(replace(
      valid_experiment, "radius_m: 0.05 }, material: Steel", "radius_m: 0.05 }, material: Wood"));
  CHECK_THAT(message, Contains("missing pair material (Steel, Wood)"));
  CHECK_THAT(message, Contains("'floor' and 'ball'"));
  CHECK_THAT(message, Contains("bodies[1].geometry[0]"));
}

TEST_CASE(
    "experiment error: a shape pair no narrow phase in the chain supports names the pair, the "
    "chain and the geometries") {
  // primitive has no closed form for an ellipsoid on a half-space.
  const std::string ellipsoid =
      replace(replace(valid_experiment, "shape: { type: sphere, radius_m: 0.05 }",
                      "shape: { type: ellipsoid, size_m: [0.1, 0.1, 0.2] }"),
              "contact: {", "collision: { narrow_phase: [primitive] }\ncontact: {");
  const std::string message = error_of(ellipsoid);
  CHECK_THAT(message, Contains("contactlab_error_test.yaml:16:"));
  CHECK_THAT(message, Contains("collision.narrow_phase"));
  CHECK_THAT(message, Contains("no narrow phase in the chain [primitive] supports the shape pair "
                               "half_space–ellipsoid"));
  CHECK_THAT(message, Contains("'floor' and 'ball'"));
  // With gjk_epa after it the pair has a plugin.
  const fs::path file = scratch("contactlab_chain_test.yaml");
  std::ofstream(file) << replace(ellipsoid, "[primitive]", "[primitive, gjk_epa]");
  PluginRegistry registry;
  CHECK(load_experiment(file, {}, registry).narrow_phase.size() == 2);
}

TEST_CASE("experiment error: zero or negative mass is refused") {
  const std::string with_mass = replace(
      valid_experiment, "initial: { position_m: [0, 0, 1] }",
      "initial: { position_m: [0, 0, 1] }\n    mass: { mass_kg: 0, inertia_kg_m2: [1, 1, 1] }");
  CHECK_THAT(error_of(with_mass), Contains("mass must be > 0 kg") && Contains("bodies[1].mass"));
  CHECK_THAT(error_of(replace(with_mass, "mass_kg: 0", "mass_kg: -2")),
             Contains("mass must be > 0 kg"));
}

TEST_CASE("experiment error: a non-finite initial state is refused") {
  const std::string message =
      error_of(replace(valid_experiment, "position_m: [0, 0, 1]", "position_m: [0, .nan, 1]"));
  CHECK_THAT(message, Contains("contactlab_error_test.yaml:14:"));
  CHECK_THAT(message, Contains("bodies[1].initial.position_m"));
  CHECK_THAT(message, Contains("finite"));
}

TEST_CASE("experiment error: --set with a misspelt body name suggests the right one") {
  const std::string message = error_of(valid_experiment, {"bodies.bal.initial.position_m=[0,0,2]"});
  CHECK_THAT(message, Contains("did you mean 'ball'"));
}

TEST_CASE("experiment: --set overrides a plugin type and parameters") {
  const fs::path file = scratch("contactlab_override_test.yaml");
  std::ofstream(file) << valid_experiment;
  PluginRegistry registry;
  const Scene scene =
      load_experiment(file,
                      {"contact.force_law=hertz", "integrator={type: semi_implicit_euler}",
                       "bodies.ball.initial.position_m=[0, 0, 2]"},
                      registry);
  CHECK(scene.force_law.type == "hertz");
  CHECK(scene.integrator.type == "semi_implicit_euler");
  CHECK(scene.bodies[1].X_WB_initial.p.z() == 2.0);
}

TEST_CASE("experiment: a body's mass and inertia follow from geometry and density") {
  const fs::path file = scratch("contactlab_mass_test.yaml");
  std::ofstream(file) << replace(valid_experiment,
                                 "geometry: [{ name: ball, shape: { type: sphere, radius_m: 0.05 }",
                                 "geometry: [{ name: ball, shape: { type: box, size_m: [0.1, 0.2, "
                                 "0.4] }, pose: { position_m: [1, 0, 0] }, collidable: false");
  PluginRegistry registry;
  const Scene scene = load_experiment(file, {}, registry);
  const MassProperties& mass = scene.bodies[1].mass;
  const double m = 8000.0 * 0.1 * 0.2 * 0.4;
  CHECK(mass.mass_kg == Approx(m).epsilon(1e-14));
  CHECK(mass.p_BCm.x() == Approx(1.0).epsilon(1e-14));
  CHECK(mass.inertia_Cm_B(0, 0) == Approx(m / 12.0 * (0.04 + 0.16)).epsilon(1e-14));
  CHECK(mass.inertia_Cm_B(1, 1) == Approx(m / 12.0 * (0.01 + 0.16)).epsilon(1e-14));
  CHECK(mass.inertia_Cm_B(2, 2) == Approx(m / 12.0 * (0.01 + 0.04)).epsilon(1e-14));
}

TEST_CASE(
    "experiment: convex hulls from inline points and from an OBJ file, non-convex input "
    "reported as hulled") {
  const fs::path mesh = scratch("dented.obj");
  // A unit cube's corners plus one vertex pushed inwards: not convex.
  std::ofstream(mesh) << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0 0 1\nv 1 0 1\nv 0 1 1\nv 1 1 1\n"
                         "v 0.5 0.5 0.9\n";
  std::string text =
      replace(valid_experiment, "geometry: [{ name: ball, shape: { type: sphere, radius_m: 0.05 }",
              "geometry: [{ name: ball, shape: { type: convex_hull, file: "
              "dented.obj, scale: 0.1 }, collidable: false");
  const fs::path file = scratch("contactlab_hull_test.yaml");
  std::ofstream(file) << text;
  PluginRegistry registry;
  const Scene scene = load_experiment(file, {}, registry);
  REQUIRE(scene.warnings.size() == 1);
  CHECK_THAT(scene.warnings[0], Contains("not convex (1 of 9 points lie inside)"));
  CHECK(scene.bodies[1].mass.mass_kg == Approx(8000.0 * 1e-3).epsilon(1e-12));
  CHECK((scene.bodies[1].mass.p_BCm - Vec3(0.05, 0.05, 0.05)).norm() < 1e-12);
}

TEST_CASE("experiment error: a flat point set, a missing mesh and an oversized smoothing radius") {
  CHECK_THAT(
      error_of(replace(valid_experiment, "{ type: sphere, radius_m: 0.05 }",
                       "{ type: convex_hull, points_m: [[0,0,0],[1,0,0],[0,1,0],[1,1,0]] }")),
      Contains("do not span a volume") && Contains("bodies[1].geometry[0].shape"));
  CHECK_THAT(error_of(replace(valid_experiment, "{ type: sphere, radius_m: 0.05 }",
                              "{ type: convex_hull, file: nowhere.stl }")),
             Contains("nowhere.stl") && Contains("no such file"));
  CHECK_THAT(error_of(replace(valid_experiment, "{ type: sphere, radius_m: 0.05 }",
                              "{ type: box, size_m: [0.1, 0.2, 0.3], smoothing_radius_m: 0.02 }")),
             Contains("smoothing_radius_m") && Contains("out of range [0, 0.01"));
  CHECK_THAT(error_of(replace(valid_experiment, "{ type: sphere, radius_m: 0.05 }",
                              "{ type: sphere, radius_m: 0.05, smoothing_radius_m: 0.001 }")),
             Contains("smoothing_radius_m applies to box, cylinder, cone, frustum and beam"));
}
