// linear_solver: sparse on contact scenes: towers of two steel spheres on a steel half-space. The
// host's state coupling makes each tower one 26-column group of the coloured Jacobian (its two
// spheres share the rows of the sphere–sphere contact; towers do not touch), so the f evaluations
// per Jacobian do not grow with the number of towers; and cvode BDF with the sparse solver follows
// cvode BDF with the dense one through impacts, bounces, births and deaths of contacts.
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "cvode_integrator.hpp"
#include "scene_fixture.hpp"
#include "support/work_figures.hpp"

using namespace contactlab;
using namespace contactlab::testing;

namespace {

constexpr double radius_m = 0.05;
constexpr double g_m_per_s2 = 9.81;

/// Static Hertz penetration under the load F with effective radius R: F = (4/3)·E*·√R·δ^(3/2).
double hertz_penetration(double force_N, double radius) {
  return std::pow(force_N / (4.0 / 3.0 * steel_effective_modulus() * std::sqrt(radius)), 2.0 / 3.0);
}

/// `towers` towers 0.2 m apart: the bottom sphere resting on the floor (static Hertz penetration
/// under both spheres' weight), the top one resting on it (gap 0) or dropped from `drop_gap_m`·k
/// above it (k = 1, 2, … for tower k − 1).
std::string towers_scene(int towers, const std::string& force_law, const std::string& integrator,
                         double drop_gap_m, double duration_s,
                         const std::string& friction = "none") {
  const double m = steel_sphere_mass(radius_m);
  const double bottom_depth = hertz_penetration(2.0 * m * g_m_per_s2, radius_m);
  const double top_depth = hertz_penetration(m * g_m_per_s2, 0.5 * radius_m);
  const double z_bottom = radius_m - bottom_depth;
  std::string yaml = std::string(R"(
materials:
  solids:
    Steel: { density_kg_per_m3: 8000, youngs_modulus_Pa: 2.0e11, poisson_ratio: 0.3 }
  pairs:
    - { materials: [Steel, Steel], restitution: 0.7, friction_static: 0.6, friction_kinetic: 0.5 }
)") +
                     "duration_s: " + num(duration_s) +
                     R"(
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 0.01, contacts: false }
contact: { force_law: )" +
                     force_law + ", friction: " + friction + R"( }
integrator: )" + integrator +
                     R"(
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space }, material: Steel }]
)";
  for (int k = 0; k < towers; ++k) {
    const double x = 0.2 * k;
    const double z_top = drop_gap_m > 0.0 ? z_bottom + 2.0 * radius_m + drop_gap_m * (k + 1)
                                          : z_bottom + 2.0 * radius_m - top_depth;
    for (const auto& [name, z] : {std::pair{"bottom", z_bottom}, std::pair{"top", z_top}}) {
      const std::string id = std::string(name) + std::to_string(k);
      yaml += "  - name: " + id + "\n    initial: { position_m: [" + num(x) + ", 0, " + num(z) +
              "] }\n    geometry: [{ name: " + id +
              ", shape: { type: sphere, radius_m: " + num(radius_m) + " }, material: Steel }]\n";
    }
  }
  return yaml;
}

/// Integrates the scene's Simulation (the host's OdeView) with an in-process cvode (so that its
/// SUNDIALS statistics can be read) from the contacts born at t = 0 to the scene's end. Resting
/// towers have no births or deaths after t = 0, so the host asks for no restart after it; the
/// contacts born at t = 0 get lugre's undeflected bristles, x = 0, appended to y.
plugins::SundialsStatistics cvode_statistics(const std::string& yaml, const std::string& solver) {
  Experiment experiment(yaml);
  core::Simulation simulation(experiment.scene, experiment.registry);
  std::vector<double> y = simulation.initial_state();
  simulation.project(y);
  const StepAction action = simulation.step_completed(0.0, y);
  CHECK(action == (simulation.state_size() > y.size() ? StepAction::restart : StepAction::proceed));
  y.resize(simulation.state_size(), 0.0);
  plugins::Cvode cvode(
      ParameterValues::defaults(plugins::Cvode::schema(), {{"method", std::string("bdf")},
                                                           {"linear_solver", solver},
                                                           {"rtol", 1e-8},
                                                           {"atol", 1e-10}}));
  const IntegrationResult result =
      cvode.integrate(simulation, 0.0, experiment.scene.duration_s, 0.01, y);
  REQUIRE(result.status == IntegrationStatus::completed);
  return cvode.statistics();
}

}  // namespace

TEST_CASE(
    "sparse jacobian: towers of two resting steel spheres (hertz) cost the same f per Jacobian "
    "for 5 towers and for 50: 26 (2 spheres × 13 states) without friction, 32 with lugre (its "
    "3 bristle states per contact, 2 contacts per tower)") {
  struct Case {
    const char* friction;
    std::int64_t colours, nonzeros_per_tower;
  };
  // Columns of a sphere have the rows of its tower's states that depend on it. Without friction:
  // both spheres' 26 rows for each of the 26 columns. With lugre the floor contact's x (3) depends
  // on the bottom sphere, the sphere–sphere contact's x (3) on both: bottom columns 13 × (26 + 6),
  // top columns 13 × (26 + 3), floor-contact columns 3 × (3 + 13), sphere-contact columns
  // 3 × (3 + 26). Every two columns of a tower share the bottom sphere's rows: one colour each.
  for (const Case& c :
       {Case{"none", 26, 26 * 26}, Case{"lugre", 32, 13 * 32 + 13 * 29 + 3 * 16 + 3 * 29}}) {
    for (int towers : {5, 50}) {
      const plugins::SundialsStatistics statistics =
          cvode_statistics(towers_scene(towers, "hertz", "cvode", 0.0, 0.02, c.friction), "sparse");
      INFO(c.friction << ", " << towers << " towers: " << statistics.jacobian_evaluations
                      << " Jacobians, " << statistics.jacobian_rhs_evaluations << " f for them, "
                      << statistics.jacobian_colours << " colours");
      REQUIRE(statistics.jacobian_evaluations > 0);
      CHECK(statistics.jacobian_structure_builds == 1);  // the contacts live throughout
      CHECK(statistics.jacobian_colours == c.colours);
      CHECK(statistics.jacobian_rhs_evaluations == c.colours * statistics.jacobian_evaluations);
      CHECK(statistics.jacobian_nonzeros == towers * c.nonzeros_per_tower);
    }
  }
}

TEST_CASE(
    "sparse jacobian: on three towers whose top spheres drop 1, 2, 3 mm (hunt_crossley, e = 0.7, "
    "lugre: bounces, contact births and deaths, restarts with bristle states) cvode bdf rtol "
    "1e-8 with linear_solver sparse is as close to an rtol 1e-10 reference as linear_solver "
    "dense is (within twice its error plus 1e-9 m, 1e-6 m/s) at every output time, the "
    "positions within 1e-6 m",
    "[budget]") {
  auto scene = [](const std::string& solver, double rtol) {
    return towers_scene(3, "{ type: hunt_crossley, params: { damping_model: flores } }",
                        "{ type: cvode, params: { method: bdf, rtol: " + num(rtol) +
                            ", atol: " + num(rtol * 1e-2) + ", linear_solver: " + solver + " } }",
                        1e-3, 0.1, "lugre");
  };
  Experiment reference_experiment(scene("dense", 1e-10));
  Experiment dense_experiment(scene("dense", 1e-8)), sparse_experiment(scene("sparse", 1e-8));
  const RunRecord reference = run(reference_experiment);
  const RunRecord dense = run(dense_experiment);
  const RunRecord sparse = run(sparse_experiment);
  REQUIRE(reference.result.status == IntegrationStatus::completed);
  REQUIRE(dense.result.status == IntegrationStatus::completed);
  REQUIRE(sparse.result.status == IntegrationStatus::completed);
  REQUIRE(dense.samples.size() == reference.samples.size());
  REQUIRE(sparse.samples.size() == reference.samples.size());
  CHECK(sparse.statistics.events == dense.statistics.events);
  CHECK(sparse.statistics.events >= 6);  // three impacts and their ends at least
  core::Simulation shape(dense_experiment.scene, dense_experiment.registry);
  const std::size_t nq = shape.configuration_size();
  // Largest |Δq| and |Δv| against the reference over all output times.
  auto errors = [&](const RunRecord& record) {
    std::array<double, 2> worst = {0.0, 0.0};
    for (std::size_t s = 0; s < reference.samples.size(); ++s) {
      CHECK(record.samples[s].t == reference.samples[s].t);
      const auto& a = record.samples[s].y;
      const auto& b = reference.samples[s].y;
      REQUIRE(a.size() == b.size());
      for (std::size_t i = 0; i < a.size(); ++i)
        worst[i < nq ? 0 : 1] = std::max(worst[i < nq ? 0 : 1], std::abs(a[i] - b[i]));
    }
    return worst;
  };
  const std::array<double, 2> dense_error = errors(dense), sparse_error = errors(sparse);
  std::printf(
      "towers dropped (rtol 1e-8): dense %lld steps %lld f %lld Jacobians, error |q| %.3g |v| "
      "%.3g; sparse %lld steps %lld f %lld Jacobians, error |q| %.3g |v| %.3g\n",
      static_cast<long long>(dense.result.steps),
      static_cast<long long>(dense.result.rhs_evaluations),
      static_cast<long long>(dense.result.jacobian_evaluations), dense_error[0], dense_error[1],
      static_cast<long long>(sparse.result.steps),
      static_cast<long long>(sparse.result.rhs_evaluations),
      static_cast<long long>(sparse.result.jacobian_evaluations), sparse_error[0], sparse_error[1]);
  CHECK(sparse_error[0] <= 2.0 * dense_error[0] + 1e-9);
  CHECK(sparse_error[1] <= 2.0 * dense_error[1] + 1e-6);
  CHECK(sparse_error[0] < 1e-6);
  // 78 states and up to 18 bristle states: a dense Jacobian costs n f, a coloured one at most
  // 32 (three independent towers).
  report_work_figure("sundials.sparse_towers.rhs_evaluations_over_dense", "3 towers",
                     static_cast<double>(sparse.result.rhs_evaluations) /
                         static_cast<double>(dense.result.rhs_evaluations));
}
