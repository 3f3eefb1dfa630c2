// Impacts against closed forms: the linear spring–damper's restitution, Hertz's elastic impact,
// Newton's cradle, and the sliding-to-rolling transition under regularised Coulomb friction.
#include <catch2/catch.hpp>
#include <cstdio>

#include "scene_fixture.hpp"

using namespace contactlab;
using namespace contactlab::testing;

namespace {

/// A steel sphere (r = 0.05 m) at 1 mm above a half-space, moving down at `speed`, no gravity.
std::string drop(const std::string& force_law, double speed, double step_s, double duration_s) {
  return std::string(steel_palette) + R"(
duration_s: )" +
         num(duration_s) + R"(
gravity_m_per_s2: [0, 0, 0]
output: { interval_s: )" +
         num(step_s) + R"( }
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space, normal: [0, 0, 1] }, material: Steel }]
  - name: ball
    initial: { position_m: [0, 0, 0.051], velocity_m_per_s: [0, 0, -)" +
         num(speed) + R"(] }
    geometry: [{ name: ball, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
contact: { force_law: )" +
         force_law + R"(, friction: none }
integrator: { type: rk4, params: { step_s: )" +
         num(step_s) + R"( } }
)";
}

struct ImpactMeasure {
  double restitution = 0.0;
  double contact_start_s = -1.0, contact_end_s = -1.0;
  double max_penetration_m = 0.0;
};

/// Restitution from the velocities before and after; contact times from the penetration sign.
ImpactMeasure measure(Experiment& experiment, double speed) {
  ImpactMeasure m;
  const RunRecord record = run(experiment);
  double previous_t = 0.0;
  bool previous_in_contact = false;
  for (const Sample& s : record.samples) {
    const double gap = s.y[2] - 0.05;
    const bool in_contact = gap < 0.0;
    m.max_penetration_m = std::max(m.max_penetration_m, -gap);
    // Linear interpolation of the crossing between samples.
    if (in_contact && !previous_in_contact && m.contact_start_s < 0.0) m.contact_start_s = s.t;
    if (!in_contact && previous_in_contact && m.contact_end_s < 0.0) m.contact_end_s = previous_t;
    previous_in_contact = in_contact;
    previous_t = s.t;
  }
  m.restitution = record.samples.back().y[7 + 2] / speed;
  return m;
}

}  // namespace

TEST_CASE("linear law without tension clamp: restitution equals exp(−πβ/√(1−β²)) within 2e-4") {
  const double m = steel_sphere_mass(0.05);
  const double k = 1.0e6;
  for (double beta : {0.05, 0.2, 0.5}) {
    const double c = 2.0 * beta * std::sqrt(k * m);
    const double period = 2.0 * std::numbers::pi * std::sqrt(m / k);
    const std::string law =
        "{ type: linear, params: { stiffness_N_per_m: 1.0e6, "
        "damping_N_s_per_m: " +
        num(c) + ", clamp_tension: false } }";
    // The contact start and end are located events; the fine step keeps the RK4 error small.
    Experiment experiment(drop(law, 1.0, period / 20000.0, 0.001 + 1.2 * period));
    const ImpactMeasure result = measure(experiment, 1.0);
    const double expected = std::exp(-std::numbers::pi * beta / std::sqrt(1.0 - beta * beta));
    INFO("beta = " << beta << ", measured e = " << result.restitution << ", expected " << expected);
    CHECK(result.restitution == Approx(expected).epsilon(2e-4));
  }
}

TEST_CASE(
    "linear law with tension clamp: restitution within 6% of Chatterjee's "
    "1/(1 + 2.5β + 4β²) and never below the unclamped value") {
  const double m = steel_sphere_mass(0.05);
  const double k = 1.0e6;
  for (double beta : {0.05, 0.1, 0.2}) {
    const double c = 2.0 * beta * std::sqrt(k * m);
    const double period = 2.0 * std::numbers::pi * std::sqrt(m / k);
    const std::string law =
        "{ type: linear, params: { stiffness_N_per_m: 1.0e6, "
        "damping_N_s_per_m: " +
        num(c) + " } }";
    Experiment experiment(drop(law, 1.0, period / 4000.0, 0.001 + 1.2 * period));
    const ImpactMeasure result = measure(experiment, 1.0);
    const double chatterjee = 1.0 / (1.0 + 2.5 * beta + 4.0 * beta * beta);
    const double unclamped = std::exp(-std::numbers::pi * beta / std::sqrt(1.0 - beta * beta));
    INFO("beta = " << beta << ", measured e = " << result.restitution);
    CHECK(result.restitution == Approx(chatterjee).epsilon(0.06));
    CHECK(result.restitution >= unclamped);
  }
}

TEST_CASE(
    "hertz elastic impact: |e − 1| < 1e-6, contact duration within 2% and peak "
    "penetration within 0.5% of Hertz theory") {
  const double speed = 1.0;
  const double m = steel_sphere_mass(0.05);
  const double E = steel_effective_modulus();
  const double R = 0.05;
  // Hertz: δ_max = (15 m v² / (16 E* √R))^(2/5); t_c = 2.9432·δ_max / v.
  const double delta_max = std::pow(15.0 * m * speed * speed / (16.0 * E * std::sqrt(R)), 0.4);
  const double duration = 2.9432 * delta_max / speed;
  Experiment experiment(drop("hertz", speed, duration / 2000.0, 0.001 / speed + 1.5 * duration));
  const ImpactMeasure result = measure(experiment, speed);
  std::printf("hertz: e = %.9f, t_c = %.6e s (theory %.6e), delta_max = %.6e m (theory %.6e)\n",
              result.restitution, result.contact_end_s - result.contact_start_s, duration,
              result.max_penetration_m, delta_max);
  CHECK(std::abs(result.restitution - 1.0) < 1e-6);
  CHECK(result.contact_end_s - result.contact_start_s == Approx(duration).epsilon(0.02));
  CHECK(result.max_penetration_m == Approx(delta_max).epsilon(0.005));
}

TEST_CASE("newton's cradle: momentum conserved within 1e-9 and passed to the far ball (> 90%)") {
  core::PluginRegistry registry;
  const std::filesystem::path file =
      std::filesystem::path(CONTACTLAB_CONFIGS_DIR) / "newtons_cradle.yaml";
  core::Scene scene = core::build_scene(core::load_config_file(file), file, registry);
  core::Simulation simulation(scene, registry);
  std::vector<double> last;
  double p0 = -1.0, worst = 0.0, energy0 = 0.0, energy_drift = 0.0;
  core::OutputCallback sampler([&](double, std::span<const double> y) {
    double momentum = 0.0;
    for (std::size_t b = 0; b < 5; ++b) momentum += simulation.body_state(b, y).v_WCm.x();
    const double energy = simulation.total_energy(y);
    if (p0 < 0.0) {
      p0 = momentum;
      energy0 = energy;
    }
    worst = std::max(worst, std::abs(momentum - p0) / p0);
    energy_drift = std::max(energy_drift, std::abs(energy - energy0) / energy0);
    last.assign(y.begin(), y.end());
  });
  simulation.add_observer(sampler);
  simulation.run();
  std::vector<double> velocity(5);
  for (std::size_t b = 0; b < 5; ++b) velocity[b] = simulation.body_state(b, last).v_WCm.x();
  std::printf(
      "cradle: final velocities %.4f %.4f %.4f %.4f %.4f m/s; momentum drift %.2g, "
      "energy drift %.2g\n",
      velocity[0], velocity[1], velocity[2], velocity[3], velocity[4], worst, energy_drift);
  CHECK(worst < 1e-9);
  CHECK(velocity[4] / 0.990454 > 0.9);
  CHECK(energy_drift < 1e-4);
}

TEST_CASE(
    "coulomb_regularized: a sliding sphere ends rolling at 5/7 of its speed within 0.5%, "
    "from t = 2v0/(7μg) within 3%") {
  const double r = 0.05, mu = 0.5, g = 9.81, v0 = 1.0;
  const double m = steel_sphere_mass(r);
  // Start at the static Hertz penetration so that the ball does not bounce.
  const double delta =
      std::pow(m * g / (4.0 / 3.0 * steel_effective_modulus() * std::sqrt(r)), 2.0 / 3.0);
  const std::string yaml = std::string(steel_palette) + R"(
duration_s: 0.12
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 1.0e-3 }
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space }, material: Steel }]
  - name: ball
    initial: { position_m: [0, 0, )" +
                           num(r - delta) + R"(], velocity_m_per_s: [1, 0, 0] }
    geometry: [{ name: ball, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
contact:
  force_law: hertz
  friction: { type: coulomb_regularized, params: { v_min_m_per_s: 1.0e-4 } }
integrator: { type: rk4, params: { step_s: 1.0e-5 } }
)";
  Experiment experiment(yaml);
  double rolling_from = -1.0;
  const RunRecord record =
      run(experiment, [&](core::Simulation& sim, double t, std::span<const double> y) {
        const core::BodyState s = sim.body_state(1, y);
        const double slip = s.v_WCm.x() - s.w_WB.y() * r;  // contact-point speed ≈ v − ω·r
        if (rolling_from < 0.0 && std::abs(slip) < 1e-3) rolling_from = t;
      });
  const double expected_time = 2.0 * v0 / (7.0 * mu * g);
  const double final_speed = record.samples.back().y[7];
  std::printf("rolling from t = %.4f s (theory %.4f), final speed %.6f (theory %.6f)\n",
              rolling_from, expected_time, final_speed, 5.0 / 7.0 * v0);
  CHECK(final_speed == Approx(5.0 / 7.0 * v0).epsilon(0.005));
  CHECK(rolling_from == Approx(expected_time).epsilon(0.03));
}
