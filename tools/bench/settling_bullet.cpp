// bench_settling's Bullet run: the same spheres in the same box in Bullet's btDiscreteDynamicsWorld
// with its sequential-impulse solver (btSequentialImpulseConstraintSolver), at Bullet's defaults
// otherwise (10 solver iterations, ERP 0.2, split impulse past its penetration threshold, default
// collision margins and contact breaking threshold unless asked), with its sweep-and-prune broad
// phase (bt32BitAxisSweep3; see below why not its default btDbvtBroadphase). Built twice, against
// Debian's float and double Bullet (libBullet*-float64, BT_USE_DOUBLE_PRECISION), each into its own
// module that bench_settling loads with dlopen: both define the same symbols, so they cannot share
// one executable.
//
// Materials: Bullet combines a pair's friction and restitution as the product of the two bodies'
// coefficients; every body gets √μ and √e so that each pair has the scene's μ and e.
#include <btBulletDynamicsCommon.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "settling_scene.hpp"

using namespace contactlab::bench;

// Bullet's global contact breaking threshold (btPersistentManifold.cpp): the AABB margin of every
// object and the distance at which manifold points are dropped.
extern btScalar gContactBreakingThreshold;

// threshold_m > 0: gContactBreakingThreshold for this run (Bullet's default 0.02 m suits objects
// of 0.1–10 m; the Bullet manual's advice for small ones is to scale it or the world).
extern "C" __attribute__((visibility("default"))) void contactlab_bench_settling_bullet(
    const SceneSpec* spec_in, double step_s, double threshold_m, double budget_s, EngineRun* run) {
  const SceneSpec& spec = *spec_in;
  const btScalar default_threshold = gContactBreakingThreshold;
  if (threshold_m > 0.0) gContactBreakingThreshold = static_cast<btScalar>(threshold_m);
  run->family = "Bullet";
  run->step_s = step_s;
  const int version = btGetVersion();
  run->name =
      "Bullet " + std::to_string(version / 100) + "." + std::to_string(version % 100) +
      (sizeof(btScalar) == 8 ? " double" : " float") +
      (threshold_m > 0.0 ? ", breaking threshold " + std::to_string(threshold_m) + " m" : "");
  run->status = "complete";

  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  // Sweep and prune over the scene's bounds: on this scene Bullet's default btDbvtBroadphase keeps
  // ~255,000 sphere pairs of 1,000 spheres overlapping after the first step (7,560 are within
  // 5 cm) and spends 10× the time (tools/bench/settling.md).
  const btScalar bound =
      static_cast<btScalar>(4.0 * spec.half_width + 2.0 * spec.positions.back()[2]);
  bt32BitAxisSweep3 broad_phase(btVector3(-bound, -bound, -bound), btVector3(bound, bound, bound),
                                static_cast<unsigned>(spec.n + 16));
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world(&dispatcher, &broad_phase, &solver, &configuration);
  world.setGravity(btVector3(0, 0, static_cast<btScalar>(-gravity)));
  const btScalar root_mu = static_cast<btScalar>(std::sqrt(friction));
  const btScalar root_e = static_cast<btScalar>(std::sqrt(restitution));

  // Floor and walls: static planes n·x = c.
  std::vector<std::unique_ptr<btCollisionShape>> shapes;
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  std::vector<std::unique_ptr<btMotionState>> states;
  const double w = spec.half_width;
  const double planes[5][4] = {
      {0, 0, 1, 0}, {-1, 0, 0, -w}, {1, 0, 0, -w}, {0, -1, 0, -w}, {0, 1, 0, -w}};
  for (const auto& p : planes) {
    shapes.push_back(std::make_unique<btStaticPlaneShape>(
        btVector3(static_cast<btScalar>(p[0]), static_cast<btScalar>(p[1]),
                  static_cast<btScalar>(p[2])),
        static_cast<btScalar>(p[3])));
    btRigidBody::btRigidBodyConstructionInfo info(0, nullptr, shapes.back().get());
    info.m_friction = root_mu;
    info.m_restitution = root_e;
    bodies.push_back(std::make_unique<btRigidBody>(info));
    world.addRigidBody(bodies.back().get());
  }
  shapes.push_back(std::make_unique<btSphereShape>(static_cast<btScalar>(spec.radius)));
  btCollisionShape* sphere = shapes.back().get();
  const btScalar mass = static_cast<btScalar>(spec.mass());
  btVector3 inertia(0, 0, 0);
  sphere->calculateLocalInertia(mass, inertia);
  std::vector<btRigidBody*> spheres;
  for (int i = 0; i < spec.n; ++i) {
    const auto& p = spec.positions[i];
    btTransform pose;
    pose.setIdentity();
    pose.setOrigin(btVector3(static_cast<btScalar>(p[0]), static_cast<btScalar>(p[1]),
                             static_cast<btScalar>(p[2])));
    states.push_back(std::make_unique<btDefaultMotionState>(pose));
    btRigidBody::btRigidBodyConstructionInfo info(mass, states.back().get(), sphere, inertia);
    info.m_friction = root_mu;
    info.m_restitution = root_e;
    bodies.push_back(std::make_unique<btRigidBody>(info));
    spheres.push_back(bodies.back().get());
    world.addRigidBody(spheres.back());
  }

  std::vector<std::array<double, 3>> centres(spec.n);
  const double sphere_mass = spec.mass(), sphere_inertia = spec.inertia();
  auto sample = [&](double t) {
    Sample s;
    s.t = t;
    for (int i = 0; i < spec.n; ++i) {
      const btRigidBody* b = spheres[i];
      const btVector3& x = b->getCenterOfMassPosition();
      centres[i] = {double(x.x()), double(x.y()), double(x.z())};
      const btVector3 &v = b->getLinearVelocity(), &o = b->getAngularVelocity();
      s.kinetic +=
          0.5 * sphere_mass * double(v.length2()) + 0.5 * sphere_inertia * double(o.length2());
    }
    measure_centres(spec, centres, s);
    for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
      s.engine_contacts += dispatcher.getManifoldByIndexInternal(m)->getNumContacts();
    run->samples.push_back(s);
  };
  sample(0.0);
  const long steps = std::lround(spec.duration / step_s);
  const long per_output = std::max(1L, std::lround(spec.output / step_s));
  double wall = 0.0;
  long k = 1;
  for (; k <= steps; ++k) {
    const auto start = std::chrono::steady_clock::now();
    // One internal step of exactly step_s (maxSubSteps 1, fixedTimeStep step_s).
    world.stepSimulation(static_cast<btScalar>(step_s), 1, static_cast<btScalar>(step_s));
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool out_of_budget = wall > budget_s;
    if (k % per_output == 0 || k == steps || out_of_budget) sample(k * step_s);
    if (out_of_budget) {
      run->status = "stopped by --budget";
      break;
    }
  }
  run->wall_s = wall;
  run->simulated_s = std::min(k, steps) * step_s;
  run->steps = std::min(k, steps);
  for (btRigidBody* b : spheres) world.removeRigidBody(b);
  for (std::size_t i = 0; i < 5; ++i) world.removeRigidBody(bodies[i].get());
  gContactBreakingThreshold = default_threshold;
}
