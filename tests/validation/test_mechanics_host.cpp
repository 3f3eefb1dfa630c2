// The host's MechanicsView against the tree's own algorithms: the Jacobian rows give the points'
// relative velocities of the forward kinematics, the trees' inverse mass gives the velocity
// response the articulated-body algorithm gives to a unit contact impulse, and the free
// acceleration is the ODE's right-hand side without contact.
#include <catch2/catch.hpp>

#include <random>

#include "contactlab/core/mechanics_host.hpp"
#include "scene_fixture.hpp"

using namespace contactlab;
using namespace contactlab::testing;

namespace {

/// A double pendulum whose end touches a floor, a free box resting on the floor, and a free
/// sphere on the box: articulated, free and free–free contacts in one scene.
std::string scene_text() {
  return std::string(steel_palette) + R"(
duration_s: 0.01
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space, normal: [0, 0, 1] }, material: Steel }]
  - name: upper
    joint: { type: revolute, params: { axis_x: 0, axis_y: 1, axis_z: 0 } }
    joint_placement: { position_m: [0, 0, 0.0499] }
    mass: { mass_kg: 2, center_of_mass_m: [0.25, 0, 0], inertia_kg_m2: [0.01, 0.05, 0.05] }
  - name: lower
    parent: upper
    joint: { type: revolute, params: { axis_x: 0, axis_y: 1, axis_z: 0 } }
    joint_placement: { position_m: [0.5, 0, 0] }
    mass: { mass_kg: 1, center_of_mass_m: [0.25, 0, 0], inertia_kg_m2: [0.005, 0.02, 0.02] }
    geometry:
      - { name: end, shape: { type: sphere, radius_m: 0.05 }, pose: { position_m: [0.5, 0, 0] },
          material: Steel }
  - name: box
    initial: { position_m: [2, 0, 0.0999], orientation: { axis: [1, 0, 0], angle_deg: 3 } }
    geometry: [{ name: box, shape: { type: box, size_m: [0.4, 0.3, 0.2] }, material: Steel }]
  - name: ball
    initial: { position_m: [2.05, 0.02, 0.2495] }
    geometry: [{ name: ball, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
collision: { broad_phase: brute_force, narrow_phase: primitive, aabb_margin_m: 0.1 }
integrator: { type: pgs, params: { step_s: 1.0e-3 } }
)";
}

}  // namespace

TEST_CASE(
    "mechanics host: Jacobian rows, inverse mass and free acceleration agree with the tree's "
    "kinematics, ABA and the ODE right-hand side within 1e-10",
    "[mechanics][time_stepping]") {
  Experiment experiment(scene_text());
  const core::Scene& scene = experiment.scene;
  REQUIRE(scene.time_stepping);
  core::BodySystem bodies(scene, experiment.registry);
  core::ContactPipeline pipeline(scene, experiment.registry);
  core::MechanicsHost host(scene, bodies, pipeline);
  const std::size_t nq = bodies.configuration_size(), nv = bodies.velocity_size();
  std::vector<double> y = bodies.initial_state();
  // Random velocities: the rows must map any v, not only rest.
  std::mt19937 random(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (std::size_t i = 0; i < nv; ++i) y[nq + i] = uniform(random);
  host.prepare_step(0.0, y, 1e-3);
  const MechanicsContactSet& set = host.contacts();
  // end–floor, box–floor (its corners), ball–box.
  REQUIRE(set.points.size() >= 3);
  REQUIRE(host.tree_count() == 3);

  bodies.compute(y);
  for (const MechanicsContactPoint& point : set.points) {
    const std::size_t body_a = scene.geometries[point.geometry_a].body;
    const std::size_t body_b = scene.geometries[point.geometry_b].body;
    // u = Σ_s J_s·v against the relative velocity of the body-fixed points.
    const Vec3 relative = bodies.point_velocity_W(body_b, point.point_W) -
                          bodies.point_velocity_W(body_a, point.point_W);
    const Vec3 directions[3] = {point.normal_W, point.tangent1_W, point.tangent2_W};
    std::vector<double> response(nv, 0.0), force(nv, 0.0);
    for (int d = 0; d < 3; ++d) {
      double u = 0.0;
      for (int s = 0; s < 2; ++s) {
        if (point.tree[s] == MechanicsContactPoint::no_tree) continue;
        const auto velocities = host.tree_velocities(point.tree[s]);
        const double* J = set.jacobian.data() + point.jacobian[s];
        for (std::size_t i = 0; i < velocities.size(); ++i) {
          u += J[d * velocities.size() + i] * y[nq + velocities[i]];
          if (d == 0) force[velocities[i]] += J[i];  // Jᵀ·n
        }
      }
      CHECK(u == Approx(directions[d].dot(relative)).margin(1e-10));
    }
    // M⁻¹·Jᵀ·n against ABA's response to a unit impulse n at the point.
    host.apply_inverse_mass(force, response);
    const auto moving = [&](std::size_t body) {
      return bodies.mobile(body) ? body : core::BodySystem::no_body;
    };
    const double w = bodies.unit_impulse_response(moving(body_a), moving(body_b), point.point_W,
                                                  point.normal_W, std::span(y).first(nq));
    const std::span<const double> aba = bodies.impulse_response();
    double w_host = 0.0;
    for (std::size_t i = 0; i < nv; ++i) {
      CHECK(response[i] == Approx(aba[i]).margin(1e-10));
      w_host += force[i] * response[i];
    }
    CHECK(w_host == Approx(w).epsilon(1e-10));
  }

  // a_free against the right-hand side without contact (no contact lives in the penalty path's
  // sense: the laws are absent).
  core::Simulation simulation(scene, experiment.registry);
  std::vector<double> rate(nq + nv, 0.0);
  simulation.derivative(0.0, y, rate);
  const std::span<const double> a_free = host.free_acceleration();
  for (std::size_t i = 0; i < nv; ++i) CHECK(a_free[i] == Approx(rate[nq + i]).margin(1e-10));

  // distances_at at the prepared q gives the prepared distances.
  std::vector<double> distances(set.points.size(), 0.0);
  host.distances_at(std::span(y).first(nq), distances);
  for (std::size_t k = 0; k < set.points.size(); ++k)
    CHECK(distances[k] == Approx(set.points[k].distance_m).margin(1e-12));
}
