// The contact life cycle (core) driven by hand, without a Simulation or an integrator: the bodies'
// kinematics, the pipeline's detection and the life cycle's step at chosen states, as the
// simulation sequences them. Built-in plugins.
#include <catch2/catch.hpp>

#include "contactlab/core/body_system.hpp"
#include "contactlab/core/contact_forces.hpp"
#include "contactlab/core/contact_lifecycle.hpp"
#include "contactlab/core/contact_pipeline.hpp"
#include "scene_fixture.hpp"

using namespace contactlab;
using namespace contactlab::testing;

namespace {

const std::string ball_over_floor = std::string("name: hand\nduration_s: 1\n") + steel_palette +
                                    R"(
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space }, material: Steel }]
  - name: ball
    initial: { position_m: [0, 0, 1] }
    geometry: [{ name: ball, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
collision: { broad_phase: sap, narrow_phase: [primitive] }
contact: { force_law: { type: linear, params: { stiffness_N_per_m: 1.0e6 } } }
integrator: { type: rk4, params: { step_s: 1.0e-5 } }
)";

struct Events final : core::SimulationObserver {
  std::vector<core::ContactStartEvent> starts;
  std::vector<core::ContactEndEvent> ends;
  void on_contact_start(const core::ContactStartEvent& e) override { starts.push_back(e); }
  void on_contact_end(const core::ContactEndEvent& e) override { ends.push_back(e); }
};

/// The run's pieces, wired as the Simulation wires them.
struct Pieces {
  Experiment experiment{ball_over_floor};
  core::BodySystem bodies{experiment.scene, experiment.registry};
  core::ContactPipeline pipeline{experiment.scene, experiment.registry};
  core::ContactLaws laws{experiment.scene, experiment.registry};
  core::ContactForces forces{experiment.scene, bodies, laws, pipeline.contacts()};
  core::ObserverList observers;
  core::ContactLifecycle lifecycle{laws, bodies, forces, pipeline.contacts(), observers};

  /// An accepted step at (t, y): kinematics, detection, life cycle.
  void step(double t, const std::vector<double>& y) {
    bodies.compute(y);
    pipeline.update(bodies.poses_WB(), lifecycle.watched());
    lifecycle.link();
    forces.new_detection();
    std::vector<double> pending = y;
    lifecycle.step(t, y, pending);
  }
};

/// The ball's state: centre at height z [m], moving along z at vz [m/s].
std::vector<double> ball_at(Pieces& pieces, double z, double vz) {
  std::vector<double> y = pieces.bodies.initial_state();
  y[2] = z;       // free joint q = [p; quaternion]
  y[7 + 2] = vz;  // v = [v_WCm; ω]
  return y;
}

}  // namespace

TEST_CASE(
    "contact life cycle: a pair is born below the activation distance with its approach speed, "
    "stays watched when its boxes part, and dies with its separation speed") {
  Pieces pieces;
  Events events;
  pieces.observers.add(events);

  pieces.step(0.0, ball_at(pieces, 0.06, -1.0));  // 1 cm above: no contact
  CHECK(events.starts.empty());
  CHECK(pieces.lifecycle.living_count() == 0);

  pieces.step(0.01, ball_at(pieces, 0.0499, -1.0));  // 0.1 mm deep: born
  REQUIRE(events.starts.size() == 1);
  CHECK(events.starts[0].time_s == 0.01);
  CHECK(events.starts[0].geometry_a == 0);
  CHECK(events.starts[0].geometry_b == 1);
  CHECK(events.starts[0].impact_velocity_m_per_s == 1.0);
  REQUIRE(pieces.lifecycle.living_count() == 1);

  pieces.step(0.02, ball_at(pieces, 0.0498, 0.0));  // deeper: lives on
  CHECK(events.ends.empty());
  CHECK(pieces.lifecycle.contact(0).max_penetration_m == Approx(2e-4).epsilon(1e-9));

  // 1 m up in one step: the boxes part, but the living pair is still queried, and dies.
  pieces.step(0.03, ball_at(pieces, 1.0, 2.0));
  REQUIRE(pieces.pipeline.contacts().pairs.size() == 1);
  CHECK(pieces.pipeline.contacts().pairs[0].deepest().distance_m == Approx(0.95).epsilon(1e-12));
  REQUIRE(events.ends.size() == 1);
  CHECK(events.ends[0].time_s == 0.03);
  CHECK(events.ends[0].duration_s == Approx(0.02).epsilon(1e-12));
  CHECK(events.ends[0].max_penetration_m == Approx(2e-4).epsilon(1e-9));
  CHECK(events.ends[0].separation_velocity_m_per_s == 2.0);
  CHECK(pieces.lifecycle.living_count() == 0);

  pieces.step(0.04, ball_at(pieces, 1.0, 0.0));  // no longer watched: no pair at all
  CHECK(pieces.pipeline.contacts().pairs.empty());
}
