// The contact-response library through the whole pipeline (scene → narrow phase → law → located
// events → integrator restarts): a steel sphere dropped on a steel half-space for every
// dissipative law over restitution × impact speed, Hertz theory for elastic impacts, Engelson's
// published rebound, friction on an incline and the sliding-to-rolling transition for every
// friction law. Expected values are closed forms or the sources' figures.
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>

#include "scene_fixture.hpp"

using namespace contactlab;
using namespace contactlab::testing;

namespace {

constexpr double ball_radius_m = 0.05;

/// Steel–steel with the given pair properties.
std::string palette(double restitution, double mu_kinetic = 0.0, double mu_static = -1.0) {
  if (mu_static < 0.0) mu_static = mu_kinetic;
  return R"(
materials:
  solids:
    Steel: { density_kg_per_m3: 8000, youngs_modulus_Pa: 2.0e11, poisson_ratio: 0.3 }
  pairs:
    - { materials: [Steel, Steel], restitution: )" +
         num(restitution) + ", friction_kinetic: " + num(mu_kinetic) +
         ", friction_static: " + num(mu_static) + R"( }
)";
}

/// Hertz theory of a steel ball (r = 0.05 m) on a steel plate hit at `speed`.
struct HertzImpact {
  double delta_max_m, force_max_N, duration_s;
  explicit HertzImpact(double speed) {
    const double m = steel_sphere_mass(ball_radius_m);
    const double E = steel_effective_modulus();
    const double k = 4.0 / 3.0 * E * std::sqrt(ball_radius_m);
    // Energy balance ½mv² = (2/5)·k·δ_max^{5/2}; duration 2·(2/5)·√π·Γ(2/5)/Γ(9/10)·δ_max/v.
    delta_max_m = std::pow(15.0 * m * speed * speed / (16.0 * E * std::sqrt(ball_radius_m)), 0.4);
    force_max_N = k * std::pow(delta_max_m, 1.5);
    duration_s = 2.0 * 0.4 * std::sqrt(std::numbers::pi) * std::tgamma(0.4) / std::tgamma(0.9) *
                 delta_max_m / speed;
  }
};

/// The sphere starts `lead_s` before touching, moving down at `speed`, no gravity; the run lasts
/// until well after the contact ends. Outputs at every step (the steps end at the events).
std::string drop(const std::string& force_law, double restitution, double speed, double step_s,
                 double contact_s) {
  const double lead_s = 20.0 * step_s;
  return palette(restitution) + R"(
duration_s: )" +
         num(lead_s + 2.0 * contact_s) +
         R"(
gravity_m_per_s2: [0, 0, 0]
output: { interval_s: )" +
         num(step_s) + R"(, contacts: false }
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space, normal: [0, 0, 1] }, material: Steel }]
  - name: ball
    initial: { position_m: [0, 0, )" +
         num(ball_radius_m + speed * lead_s) + R"(], velocity_m_per_s: [0, 0, -)" + num(speed) +
         R"(] }
    geometry: [{ name: ball, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
contact: { force_law: )" +
         force_law + R"(, friction: none }
integrator: { type: rk4, params: { step_s: )" +
         num(step_s) + R"( } }
)";
}

struct Impact {
  double restitution = 0.0;
  double start_s = -1.0, end_s = -1.0;  ///< first and last output with the ball penetrating
  double max_penetration_m = 0.0;
  double peak_force_N = 0.0;
  std::int64_t events = 0;
};

Impact measure(Experiment& experiment, double speed, bool with_force = false) {
  Impact impact;
  const RunRecord record =
      run(experiment, [&](core::Simulation& sim, double t, std::span<const double> y) {
        const double penetration = ball_radius_m - y[2];
        if (penetration > 0.0) {
          if (impact.start_s < 0.0) impact.start_s = t;
          impact.end_s = t;
          impact.max_penetration_m = std::max(impact.max_penetration_m, penetration);
        }
        if (with_force)
          for (const core::ContactSample& c : sim.contacts_at(t, y))
            impact.peak_force_N = std::max(impact.peak_force_N, c.normal_force_N);
      });
  REQUIRE(record.result.status == IntegrationStatus::completed);
  impact.restitution = record.samples.back().y[7 + 2] / speed;
  impact.events = record.statistics.events;
  return impact;
}

/// Step and contact time for a law: Hertz-type laws last about the Hertz duration; the linear
/// ones (k = 1e7 N/m) about π/2·√(m/k)·(1 + 1/e) at most.
struct Timing {
  double step_s, contact_s;
};
Timing hertz_timing(double speed) {
  const double duration = HertzImpact(speed).duration_s;
  return {duration / 4000.0, 1.6 * duration};
}
Timing linear_timing(double restitution) {
  const double quarter =
      0.5 * std::numbers::pi * std::sqrt(steel_sphere_mass(ball_radius_m) / 1.0e7);
  return {quarter / 2000.0, quarter * (1.0 + 1.0 / std::max(restitution, 0.1)) + quarter};
}

using Bound = std::function<void(double target, double measured)>;

/// The drop over e ∈ {0.1, 0.3, 0.5, 0.7, 0.9} × v ∈ {0.1, 1, 10} m/s; prints the measured table.
void sweep(const std::string& name, const std::string& law, bool hertz_type, const Bound& check) {
  std::printf("%-34s", name.c_str());
  for (double speed : {0.1, 1.0, 10.0}) {
    for (double e : {0.1, 0.3, 0.5, 0.7, 0.9}) {
      const Timing timing = hertz_type ? hertz_timing(speed) : linear_timing(e);
      Experiment experiment(drop(law, e, speed, timing.step_s, timing.contact_s));
      const Impact impact = measure(experiment, speed);
      std::printf(" %.4f", impact.restitution);
      INFO(name << ": e = " << e << ", v = " << speed << " m/s, measured " << impact.restitution);
      // No law creates energy, and every contact ended.
      CHECK(impact.restitution > 0.0);
      CHECK(impact.restitution <= 1.0 + 1e-9);
      check(e, impact.restitution);
    }
    std::printf(" |");
  }
  std::printf("\n");
}

}  // namespace

TEST_CASE(
    "drop sweep: engelson (k exact), bilinear (stronge and chatterjee) and restitution_impulse "
    "reach the target restitution within 0.5% for e in {0.1..0.9} and v in {0.1, 1, 10} m/s") {
  const Bound within_half_percent = [](double target, double measured) {
    CHECK(measured == Approx(target).epsilon(0.005));
  };
  sweep("engelson exact", "{ type: engelson, params: { stiffness_per_mass_per_s2: 2.4e6 } }", false,
        within_half_percent);
  sweep("bilinear stronge", "{ type: bilinear, params: { stiffness_N_per_m: 1.0e7 } }", false,
        within_half_percent);
  sweep("bilinear chatterjee",
        "{ type: bilinear, params: { stiffness_N_per_m: 1.0e7, variant: chatterjee } }", false,
        within_half_percent);
  sweep("restitution_impulse",
        "{ type: restitution_impulse, params: { resting_stiffness_N_per_m: 1.0e7 } }", false,
        within_half_percent);
}

TEST_CASE(
    "drop sweep: hunt_crossley's damping models and modia stay within their authors' accuracy "
    "(flores and modia: undershoot ≤ 0.05, ≤ 0.02 for e ≥ 0.7, gonthier ±0.035, hunt_crossley "
    "and lankarani_nikravesh: within 0.01/0.015 at e = 0.9, overshoot ≤ (1−e)²/1.5(1−e)²)") {
  sweep("hunt_crossley flores", "{ type: hunt_crossley, params: { damping_model: flores } }", true,
        [](double e, double measured) {
          CHECK(measured <= e + 1e-3);
          CHECK(measured >= e - (e >= 0.7 ? 0.02 : 0.05));
        });
  sweep("modia", "modia", true, [](double e, double measured) {
    CHECK(measured <= e + 1e-3);
    CHECK(measured >= e - (e >= 0.7 ? 0.02 : 0.05));
  });
  sweep("hunt_crossley gonthier", "{ type: hunt_crossley, params: { damping_model: gonthier } }",
        true, [](double e, double measured) { CHECK(std::abs(measured - e) <= 0.035); });
  sweep("hunt_crossley hunt_crossley", "hunt_crossley", true, [](double e, double measured) {
    CHECK(measured >= e - 1e-3);
    CHECK(measured <= e + (1.0 - e) * (1.0 - e) + 1e-3);
    if (e == 0.9) CHECK(std::abs(measured - e) <= 0.01);
  });
  sweep("hunt_crossley lankarani_nikravesh",
        "{ type: hunt_crossley, params: { damping_model: lankarani_nikravesh } }", true,
        [](double e, double measured) {
          CHECK(measured >= e - 1e-3);
          CHECK(measured <= e + 1.5 * (1.0 - e) * (1.0 - e) + 1e-3);
          if (e == 0.9) CHECK(std::abs(measured - e) <= 0.015);
        });
}

TEST_CASE(
    "elastic impact (hertz, and hunt_crossley with e = 1): contact duration, peak force and "
    "maximum penetration within 1% of Hertz theory, rebound |e − 1| < 1e-6, at 0.1, 1 and 10 m/s") {
  for (const char* law : {"hertz", "hunt_crossley"}) {
    for (double speed : {0.1, 1.0, 10.0}) {
      const HertzImpact theory(speed);
      const Timing timing = hertz_timing(speed);
      Experiment experiment(drop(law, 1.0, speed, timing.step_s, timing.contact_s));
      const Impact impact = measure(experiment, speed, true);
      // Steps end at the located contact start and end, so the first and last penetrating
      // outputs bracket the contact to within one step.
      const double duration = impact.end_s - impact.start_s;
      std::printf(
          "%s at %g m/s: t_c %.6e s (theory %.6e), F_max %.6e N (%.6e), δ_max %.6e m (%.6e), e "
          "%.9f\n",
          law, speed, duration, theory.duration_s, impact.peak_force_N, theory.force_max_N,
          impact.max_penetration_m, theory.delta_max_m, impact.restitution);
      INFO(law << " at " << speed << " m/s");
      CHECK(duration == Approx(theory.duration_s).epsilon(0.01));
      CHECK(impact.peak_force_N == Approx(theory.force_max_N).epsilon(0.01));
      CHECK(impact.max_penetration_m == Approx(theory.delta_max_m).epsilon(0.01));
      CHECK(std::abs(impact.restitution - 1.0) < 1e-6);
      CHECK(impact.events == 2);  // contact_start, contact_end
    }
  }
}

TEST_CASE(
    "engelson: v0 = 1 m/s with k = 1 s/m rebounds at 0.593628 (Engelson 2000) within 1e-5, "
    "whatever K") {
  for (double K : {1.0e5, 1.0e7}) {
    const double period = 2.0 * std::numbers::pi / std::sqrt(K);
    Experiment experiment(
        drop("{ type: engelson, params: { k_from_restitution: given, "
             "damping_s_per_m: 1.0, stiffness_per_mass_per_s2: " +
                 num(K) + " } }",
             0.5, 1.0, period / 4000.0, period));
    const Impact impact = measure(experiment, 1.0);
    INFO("K = " << K << ": measured " << impact.restitution);
    CHECK(std::abs(impact.restitution - 0.593628) < 1e-5);
  }
}

namespace {

/// A steel box (0.1 m, 8 kg) resting on a half-space under gravity tilted by θ (the incline),
/// held by a damped linear law with a 4-point manifold.
std::string incline(const std::string& friction, double tan_theta, double mu_s, double mu_k,
                    double duration_s, double step_s) {
  const double g = 9.81;
  const double cos_theta = 1.0 / std::sqrt(1.0 + tan_theta * tan_theta);
  const double sin_theta = tan_theta * cos_theta;
  // Each corner carries m·g·cosθ/4 on k = 1e7 N/m: start at that penetration.
  const double delta = 8.0 * g * cos_theta / 4.0 / 1.0e7;
  return palette(0.5, mu_k, mu_s) + R"(
duration_s: )" +
         num(duration_s) +
         R"(
gravity_m_per_s2: [)" +
         num(g * sin_theta) + ", 0, " + num(-g * cos_theta) + R"(]
output: { interval_s: 0.01, contacts: false }
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space }, material: Steel }]
  - name: block
    initial: { position_m: [0, 0, )" +
         num(0.05 - delta) + R"(] }
    geometry: [{ name: block, shape: { type: box, size_m: [0.1, 0.1, 0.1] }, material: Steel }]
collision: { narrow_phase: [{ type: primitive, params: { manifold_points: 4 } }] }
contact:
  force_law: { type: linear, params: { stiffness_N_per_m: 1.0e7, damping_N_s_per_m: 1.0e4 } }
  friction: )" +
         friction + R"(
integrator: { type: rk4, params: { step_s: )" +
         num(step_s) + R"( } }
)";
}

}  // namespace

TEST_CASE(
    "incline: a block sticks at tan θ = 0.75·μ_k (moves < 1 mm in 0.5 s) and above μ_s slides with "
    "a = g(sin θ − μ_k cos θ) within 1%, for stribeck, lugre and tangential_spring") {
  const double mu_s = 0.5, mu_k = 0.4, g = 9.81;
  // LuGre's bristle equation is stiff while sliding (σ₀|v|/g(v) = 1.4e5 /s at 0.6 m/s): RK4
  // needs h·σ₀|v|/g < 2.8, hence its shorter step.
  const std::map<std::string, std::pair<std::string, double>> laws = {
      {"stribeck", {"{ type: stribeck, params: { v_min_m_per_s: 1.0e-5 } }", 2e-5}},
      {"lugre", {"lugre", 5e-6}},
      {"tangential_spring", {"tangential_spring", 2e-5}},
  };
  for (const auto& [name, law] : laws) {
    const auto& [friction, step] = law;
    {
      // Below μ_k too: released from rest the tangential spring overshoots the static load (its
      // default damping ratio is ≈ 0.1 here), and a block that slips on a slope steeper than
      // μ_k keeps sliding.
      Experiment experiment(incline(friction, 0.75 * mu_k, mu_s, mu_k, 0.5, step));
      const RunRecord record = run(experiment);
      REQUIRE(record.result.status == IntegrationStatus::completed);
      const double moved = std::abs(record.samples.back().y[0]);
      INFO(name << " below μ_s: moved " << moved << " m");
      CHECK(moved < 1e-3);
    }
    {
      const double tan_theta = 1.2 * mu_s;
      const double cos_theta = 1.0 / std::sqrt(1.0 + tan_theta * tan_theta);
      const double expected = g * (tan_theta * cos_theta - mu_k * cos_theta);
      Experiment experiment(incline(friction, tan_theta, mu_s, mu_k, 0.6, step));
      const RunRecord record = run(experiment);
      REQUIRE(record.result.status == IntegrationStatus::completed);
      // Acceleration from the velocity between 0.3 s and 0.6 s (sliding established).
      const auto& samples = record.samples;
      const Sample& a = samples[samples.size() * 1 / 2];
      const Sample& b = samples.back();
      const double acceleration = (b.y[7] - a.y[7]) / (b.t - a.t);
      std::printf("incline %s: a = %.6f m/s² (theory %.6f)\n", name.c_str(), acceleration,
                  expected);
      INFO(name << " above μ_s: a = " << acceleration);
      CHECK(acceleration == Approx(expected).epsilon(0.01));
    }
  }
}

TEST_CASE(
    "sliding to rolling: a sphere launched at 1 m/s without spin ends rolling at 5/7 of it "
    "within 0.5% for stribeck, lugre and tangential_spring") {
  const double r = ball_radius_m, g = 9.81;
  const double m = steel_sphere_mass(r);
  const double delta =
      std::pow(m * g / (4.0 / 3.0 * steel_effective_modulus() * std::sqrt(r)), 2.0 / 3.0);
  for (const char* friction :
       {"{ type: stribeck, params: { v_min_m_per_s: 1.0e-4 } }", "lugre", "tangential_spring"}) {
    const std::string yaml = palette(0.7, 0.5, 0.6) + R"(
duration_s: 0.15
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 1.0e-3, contacts: false }
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space }, material: Steel }]
  - name: ball
    initial: { position_m: [0, 0, )" +
                             num(r - delta) +
                             R"(], velocity_m_per_s: [1, 0, 0] }
    geometry: [{ name: ball, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
contact: { force_law: hertz, friction: )" +
                             std::string(friction) + R"( }
integrator: { type: rk4, params: { step_s: 1.0e-5 } }
)";
    Experiment experiment(yaml);
    const RunRecord record = run(experiment);
    REQUIRE(record.result.status == IntegrationStatus::completed);
    const double final_speed = record.samples.back().y[7];
    std::printf("rolling %s: final speed %.6f (theory %.6f)\n", friction, final_speed, 5.0 / 7.0);
    INFO(friction << ": final speed " << final_speed);
    CHECK(final_speed == Approx(5.0 / 7.0).epsilon(0.005));
  }
}

TEST_CASE(
    "restitution_impulse under gravity: a ball dropped from 0.1 m with e = 0.5 rebounds to e²·h "
    "within 1e-6 relative, takes exactly the 8 impulses above the 0.01 m/s resting velocity, "
    "then rests on the damped resting law at z = r − m·g/k within 1e-9 m") {
  const double r = ball_radius_m, g = 9.81, k = 1.0e7, h = 0.1;
  const double m = steel_sphere_mass(r);
  const double c = 2.0 * 0.7 * std::sqrt(k * m);
  const std::string yaml = palette(0.5) + R"(
duration_s: 1.0
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 1.0e-4, contacts: false }
bodies:
  - name: floor
    joint: fixed
    geometry: [{ name: floor, shape: { type: half_space }, material: Steel }]
  - name: ball
    initial: { position_m: [0, 0, )" +
                           num(r + h) +
                           R"(] }
    geometry: [{ name: ball, shape: { type: sphere, radius_m: 0.05 }, material: Steel }]
contact:
  force_law: { type: restitution_impulse, params: { resting_stiffness_N_per_m: )" +
                           num(k) + ", resting_damping_N_s_per_m: " + num(c) + R"( } }
  friction: none
integrator: { type: rk4, params: { step_s: 1.0e-5 } }
)";
  Experiment experiment(yaml);
  // Apex between the first and the second impact: the first impact is at t = √(2h/g).
  const double first_impact_s = std::sqrt(2.0 * h / g);
  const double second_impact_s = first_impact_s + 2.0 * 0.5 * std::sqrt(2.0 * g * h) / g;
  double apex = 0.0;
  const RunRecord record =
      run(experiment, [&](core::Simulation&, double t, std::span<const double> y) {
        if (t > first_impact_s && t < second_impact_s) apex = std::max(apex, y[2] - r);
      });
  REQUIRE(record.result.status == IntegrationStatus::completed);
  // Impact speeds √(2gh)·eⁿ ≥ 0.01 m/s for n = 0..7.
  int expected_impulses = 0;
  for (double v = std::sqrt(2.0 * g * h); v >= 0.01; v *= 0.5) ++expected_impulses;
  std::printf("impulse: apex %.9f m (theory %.9f), %lld impulses (%d), rest at z = %.12f\n", apex,
              0.25 * h, static_cast<long long>(record.statistics.impulses), expected_impulses,
              record.samples.back().y[2]);
  CHECK(apex == Approx(0.25 * h).epsilon(1e-6));
  CHECK(record.statistics.impulses == expected_impulses);
  CHECK(std::abs(record.samples.back().y[2] - (r - m * g / k)) < 1e-9);
  CHECK(std::abs(record.samples.back().y[9]) < 1e-6);
}
