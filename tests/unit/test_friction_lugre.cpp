// Unit tests of the LuGre friction law (plugins/friction-basic/lugre.hpp), against closed forms of
// the LuGre equations (Canudas de Wit et al. 1995) in the normalised form the plugin documents:
//   ż = v − σ₀·|v|·z/ĝ(v),  ĝ(v) = μ_k + (μ_s − μ_k)·exp(−(v/v_s)²),
//   F = −f_n·(σ₀·z + σ₁·ż) − σ₂·v.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "lugre.hpp"
#include "stribeck.hpp"
#include "test_friction_host.hpp"

using contactlab::ContactKinematics;
using contactlab::ContactState;
using contactlab::FrictionResult;
using contactlab::LawMemory;
using contactlab::ParameterValues;
using contactlab::Vec3;
using contactlab::plugins::LuGre;
using contactlab::plugins::Stribeck;
using friction_test::friction_state;
using friction_test::gravity_m_per_s2;
using friction_test::rate_of;
using friction_test::sliding;

namespace {

double g_hat(double speed, double mu_s, double mu_k, double v_s) {
  return mu_k + (mu_s - mu_k) * std::exp(-(speed / v_s) * (speed / v_s));
}

LuGre make(const std::map<std::string, contactlab::ParameterValue>& overrides) {
  return LuGre(ParameterValues::defaults(LuGre::schema(), overrides));
}

// Presliding displacement x(z) on a branch along which v keeps its sign, from dz/dx =
// 1 − sgn(v)·σ₀·z/μ_s (v ≪ v_s so that ĝ = μ_s): loading from (0, 0), and unloading from
// (x1, z1).
double x_loading(double z, double mu_s, double sigma0) {
  return -(mu_s / sigma0) * std::log(1.0 - sigma0 * z / mu_s);
}
double x_unloading(double z, double x1, double z1, double mu_s, double sigma0) {
  return x1 + (mu_s / sigma0) * std::log((1.0 + sigma0 * z / mu_s) / (1.0 + sigma0 * z1 / mu_s));
}

}  // namespace

TEST_CASE(
    "lugre: schema bristle_stiffness_per_m = 1e5 (> 0), bristle_damping_s_per_m = 200 (≥ 0), "
    "viscous_N_s_per_m = 0, stribeck_velocity_m_per_s = 0.01 (> 0), exponent = 2, layout {3, 0}, "
    "birth zeroes the bristles") {
  const auto by_name = friction_test::schema_by_name(LuGre::schema());
  REQUIRE(by_name.size() == 9);
  CHECK(std::get<double>(by_name.at("bristle_stiffness_per_m").default_value) == 1e5);
  CHECK(by_name.at("bristle_stiffness_per_m").minimum_exclusive);
  CHECK(by_name.at("bristle_stiffness_per_m").unit == "1/m");
  CHECK(std::get<double>(by_name.at("bristle_damping_s_per_m").default_value) == 200.0);
  CHECK(by_name.at("bristle_damping_s_per_m").unit == "s/m");
  CHECK(std::get<double>(by_name.at("viscous_N_s_per_m").default_value) == 0.0);
  CHECK(std::get<double>(by_name.at("stribeck_velocity_m_per_s").default_value) == 0.01);
  CHECK(std::get<double>(by_name.at("exponent").default_value) == 2.0);
  const LuGre law = make({});
  CHECK(law.layout().continuous_states == 3);
  CHECK(law.layout().event_functions == 0);
  LawMemory memory;
  memory.x = {1, 2, 3, 4};
  law.on_birth(sliding(Vec3(1, 0, 0), 0.5, 0.3), memory);
  CHECK(memory.x[0] == 0.0);
  CHECK(memory.x[1] == 0.0);
  CHECK(memory.x[2] == 0.0);
}

TEST_CASE(
    "lugre: force −f_n·(σ₀·z + σ₁·ż) − σ₂·v and rate ż = v − σ₀|v|z/ĝ(|v|) at given states "
    "(within 1e-12 relative), the normal part of z is ignored by the force and relaxed by the "
    "rate") {
  const double sigma0 = 2e4, sigma1 = 50.0, sigma2 = 0.7, v_s = 0.02, mu_s = 0.6, mu_k = 0.35;
  const LuGre law = make({{"bristle_stiffness_per_m", sigma0},
                          {"bristle_damping_s_per_m", sigma1},
                          {"viscous_N_s_per_m", sigma2},
                          {"stribeck_velocity_m_per_s", v_s}});
  const double f_n = 10.0;
  // A tilted contact plane: n = (0, sin a, cos a); v and z_t in that plane.
  const double a = 0.3;
  const Vec3 n(0.0, std::sin(a), std::cos(a));
  const Vec3 t1 = Vec3::UnitX(), t2 = n.cross(t1);
  ContactKinematics contact = sliding(0.015 * t1 - 0.01 * t2, mu_s, mu_k);
  contact.normal_W = n;
  const Vec3 z_t = 1e-5 * t1 + 2e-5 * t2;
  const Vec3 z = z_t + 3e-5 * n;  // a normal component left by a turning normal
  const ContactState state = friction_state(z);
  const Vec3 v = contact.slip_velocity_W;
  const double relax = sigma0 * v.norm() / g_hat(v.norm(), mu_s, mu_k, v_s);
  const Vec3 z_t_rate = v - relax * z_t;
  const Vec3 expected_force = -f_n * (sigma0 * z_t + sigma1 * z_t_rate) - sigma2 * v;
  const FrictionResult result = law.compute(contact, f_n, state);
  CHECK((result.force_W - expected_force).norm() <= 1e-12 * expected_force.norm());
  const Vec3 rate = rate_of(law, contact, f_n, state);
  CHECK((rate - (v - relax * z)).norm() <= 1e-12 * rate.norm());
  // Its tangential part is the LuGre rate of z_t; its normal part relaxes z·n at the same rate.
  CHECK(rate.dot(n) == Approx(-relax * z.dot(n)).epsilon(1e-12));
  CHECK(result.torque_W == Vec3::Zero());
  // μ_s < μ_k throws; a frictionless pair keeps z = 0 and has only the viscous force.
  CHECK_THROWS_WITH(law.compute(sliding(v, 0.2, 0.3), f_n, state), Catch::Contains("lugre"));
  const ContactKinematics frictionless = sliding(Vec3(0.2, 0, 0), 0.0, 0.0);
  CHECK(law.compute(frictionless, f_n, friction_state(Vec3::Zero())).force_W.x() ==
        Approx(-sigma2 * 0.2).epsilon(1e-15));
  CHECK(rate_of(law, frictionless, f_n, friction_state(Vec3::Zero())) == Vec3::Zero());
}

TEST_CASE(
    "lugre: at constant slip speed z converges to ĝ(v)/σ₀ and the friction to the Stribeck curve "
    "f_n·ĝ(v) + σ₂·v (within 1e-10 relative), which equals the stribeck law's force") {
  const double sigma0 = 1e5, sigma2 = 0.4, v_s = 0.001, mu_s = 0.5, mu_k = 0.3, f_n = 9.81;
  const LuGre law = make({{"bristle_stiffness_per_m", sigma0},
                          {"viscous_N_s_per_m", sigma2},
                          {"stribeck_velocity_m_per_s", v_s}});
  const Stribeck stribeck(
      ParameterValues::defaults(Stribeck::schema(), {{"stribeck_velocity_m_per_s", v_s},
                                                     {"viscous_N_s_per_m", sigma2},
                                                     {"v_min_m_per_s", 1e-6}}));
  for (double speed : {1e-4, 5e-4, 1e-3, 2e-3, 1e-2, 1.0}) {
    const ContactKinematics contact = sliding(Vec3(0, -speed, 0), mu_s, mu_k);
    // RK4 on ż alone (the contact slides at the given speed), 40 relaxation times.
    const double relax_time = g_hat(speed, mu_s, mu_k, v_s) / (sigma0 * speed);
    const int steps = 4000;
    const double h = 40.0 * relax_time / steps;
    ContactState state = friction_state(Vec3::Zero());
    auto f = [&](const Vec3& z) { return rate_of(law, contact, f_n, friction_state(z)); };
    Vec3 z = Vec3::Zero();
    for (int i = 0; i < steps; ++i) {
      const Vec3 k1 = f(z), k2 = f(z + 0.5 * h * k1), k3 = f(z + 0.5 * h * k2), k4 = f(z + h * k3);
      z += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    }
    state = friction_state(z);
    CAPTURE(speed);
    CHECK(z.y() == Approx(-g_hat(speed, mu_s, mu_k, v_s) / sigma0).epsilon(1e-10));
    const double expected = f_n * g_hat(speed, mu_s, mu_k, v_s) + sigma2 * speed;
    const FrictionResult result = law.compute(contact, f_n, state);
    CHECK(result.force_W.y() == Approx(expected).epsilon(1e-10));
    CHECK(result.force_W.y() ==
          Approx(stribeck.compute(contact, f_n, ContactState{}).force_W.y()).epsilon(1e-10));
  }
}

TEST_CASE(
    "lugre: presliding under a slowly ramped force below breakaway — linear spring for small "
    "forces (x = F/(σ₀·f_n) within 1%), x(z) on the loading and unloading branches of "
    "dz/dx = 1 ∓ σ₀z/μ_s (within 1e-6 relative), steady z = F/(σ₀·f_n) after a hold (within "
    "1e-9 relative), and the hysteresis' residual displacement (within 1e-6 relative)") {
  const double mu_s = 0.5, mu_k = 0.3, sigma0 = 1e4;
  const double sigma1 = 2.0 * std::sqrt(sigma0 / gravity_m_per_s2);  // critical, level ground
  const LuGre law =
      make({{"bristle_stiffness_per_m", sigma0}, {"bristle_damping_s_per_m", sigma1}});
  friction_test::Block block;  // 1 kg on level ground: f_n = m·g
  block.material.friction_static = mu_s;
  block.material.friction_kinetic = mu_k;
  const double f_n = block.normal_force_N;
  const double T = 5.0;  // ramp up over T, hold T, ramp down over T, hold T
  for (double load_fraction : {0.01, 0.6}) {
    const double F1 = load_fraction * mu_s * f_n;
    block.applied_force_N = [F1, T](double t, double, double) {
      if (t <= T) return F1 * t / T;
      if (t <= 2 * T) return F1;
      if (t <= 3 * T) return F1 * (3.0 - t / T);
      return 0.0;
    };
    friction_test::BlockHost host(law, block);
    host.birth(0.0, 0.0, 0.0);
    std::vector<friction_test::Sample> samples;
    host.run(4 * T, 1e-4, [&](const friction_test::Sample& s) { samples.push_back(s); });
    // End of the first hold: steady bristles, z = F1/(σ₀·f_n); x on the loading branch.
    const friction_test::Sample* held = nullptr;
    for (const auto& s : samples)
      if (s.t <= 2 * T + 1e-9) held = &s;
    REQUIRE(held != nullptr);
    const double z1 = held->law_x[0], x1 = held->x;
    CAPTURE(load_fraction);
    CHECK(z1 == Approx(F1 / (sigma0 * f_n)).epsilon(1e-9));
    CHECK(std::abs(held->v) < 1e-12);
    if (load_fraction < 0.1) {
      CHECK(x1 == Approx(F1 / (sigma0 * f_n)).epsilon(0.01));  // linear spring σ₀·f_n
      continue;
    }
    // The branches, wherever the velocity has the branch's sign and z is not tiny.
    double worst_loading = 0.0, worst_unloading = 0.0;
    int loading_points = 0, unloading_points = 0;
    for (const auto& s : samples) {
      const double z = s.law_x[0];
      if (s.t < T && s.v > 0.0 && z > 0.05 * z1) {
        worst_loading = std::max(worst_loading, std::abs(s.x / x_loading(z, mu_s, sigma0) - 1.0));
        ++loading_points;
      }
      if (s.t > 2 * T + 0.5 && s.t < 3 * T && s.v < 0.0 && z > 0.05 * z1) {
        const double x_model = x_unloading(z, x1, z1, mu_s, sigma0);
        worst_unloading = std::max(worst_unloading, std::abs(s.x / x_model - 1.0));
        ++unloading_points;
      }
    }
    CHECK(loading_points > 10000);
    CHECK(unloading_points > 10000);
    CHECK(worst_loading < 1e-6);
    CHECK(worst_unloading < 1e-6);
    // Hysteresis: unloaded to F = 0 the block does not return; it keeps
    // x_res = x1 − (μ_s/σ₀)·ln(1 + σ₀·z1/μ_s) > 0.
    const friction_test::Sample& last = samples.back();
    const double x_residual = x1 - (mu_s / sigma0) * std::log(1.0 + sigma0 * z1 / mu_s);
    REQUIRE(x_residual > 0.1 * x1);
    CHECK(std::abs(last.law_x[0]) < 1e-9 * z1);
    CHECK(last.x == Approx(x_residual).epsilon(1e-6));
  }
}

TEST_CASE(
    "lugre: block on an incline at tan θ = 0.7·μ_s comes to rest (|v| < 1e-12 m/s after 0.5 s) "
    "with z = tan θ/σ₀ (within 1e-9 relative), at tan θ = 1.2·μ_s it slides with acceleration "
    "g·(sin θ − μ_k·cos θ) once |v| > 10·v_s (within 1e-9 relative)") {
  const double mu_s = 0.5, mu_k = 0.3, sigma0 = 1e4, v_s = 0.01;
  const LuGre law = make({{"bristle_stiffness_per_m", sigma0},
                          {"bristle_damping_s_per_m", 2.0 * std::sqrt(sigma0 / gravity_m_per_s2)},
                          {"stribeck_velocity_m_per_s", v_s}});
  for (double ratio : {0.7, 1.2}) {
    const double theta = std::atan(ratio * mu_s);
    friction_test::BlockHost host(law, friction_test::incline(theta, mu_s, mu_k));
    host.birth(0.0, 0.0, 0.0);
    double t1 = -1.0, v1 = 0.0, x_max = 0.0;
    host.run(0.5, 2e-5, [&](const friction_test::Sample& s) {
      x_max = std::max(x_max, s.x);
      if (t1 < 0.0 && s.v > 10.0 * v_s) {
        t1 = s.t + 0.05;  // and 50 ms more: z has relaxed to μ_k/σ₀
      }
      if (t1 > 0.0 && v1 == 0.0 && s.t >= t1) {
        t1 = s.t;
        v1 = s.v;
      }
    });
    CAPTURE(ratio);
    if (ratio < 1.0) {
      CHECK(std::abs(host.state()[1]) < 1e-12);
      CHECK(host.state()[2] == Approx(std::tan(theta) / sigma0).epsilon(1e-9));
      // Presliding only: never beyond the bristles' breakaway deflection scale μ_s/σ₀·ln(...).
      CHECK(x_max < x_loading(0.999 * mu_s / sigma0, mu_s, sigma0));
    } else {
      REQUIRE(v1 > 0.0);
      const double acceleration = (host.state()[1] - v1) / (host.time() - t1);
      CHECK(acceleration ==
            Approx(gravity_m_per_s2 * (std::sin(theta) - mu_k * std::cos(theta))).epsilon(1e-9));
    }
  }
}

TEST_CASE(
    "lugre: a block pulled through a spring whose end moves at constant speed sticks and slips, "
    "the spring force peaks at μ_s·f_n (within 3%), falls to about (2μ_k − μ_s)·f_n (within 5%), "
    "and the period matches the Coulomb estimate 2(μ_s − μ_k)f_n/(k·V) + π/ω (within 2%)") {
  const double mu_s = 0.5, mu_k = 0.3, sigma0 = 1e5, v_s = 1e-3;
  const LuGre law = make({{"bristle_stiffness_per_m", sigma0},
                          {"bristle_damping_s_per_m", 2.0 * std::sqrt(sigma0 / gravity_m_per_s2)},
                          {"stribeck_velocity_m_per_s", v_s}});
  const double k = 1000.0, V = 1e-3;
  friction_test::Block block;
  block.material.friction_static = mu_s;
  block.material.friction_kinetic = mu_k;
  const double f_n = block.normal_force_N;
  block.applied_force_N = [k, V](double t, double x, double) { return k * (V * t - x); };
  friction_test::BlockHost host(law, block);
  host.birth(0.0, 0.0, 0.0);
  // Spring-force maxima (breakaway) and minima (end of slip), from the sampled spring force.
  std::vector<double> peak_times, peaks, troughs;
  double previous = 0.0, before_previous = 0.0, t_previous = 0.0;
  int sample_count = 0;
  double stuck_time = 0.0;
  host.run(17.0, 1e-5, [&](const friction_test::Sample& s) {
    const double spring = k * (V * s.t - s.x);
    if (sample_count >= 2) {
      if (previous > before_previous && previous >= spring && previous > 0.2 * f_n) {
        peaks.push_back(previous);
        peak_times.push_back(t_previous);
      }
      if (previous < before_previous && previous <= spring && !peaks.empty())
        troughs.push_back(previous);
    }
    if (std::abs(s.v) < 0.1 * V) stuck_time += 1e-5;
    before_previous = previous;
    previous = spring;
    t_previous = s.t;
    ++sample_count;
  });
  REQUIRE(peaks.size() >= 3);
  REQUIRE(troughs.size() >= 2);
  for (double peak : peaks) CHECK(peak == Approx(mu_s * f_n).epsilon(0.03));
  for (double trough : troughs) CHECK(trough == Approx((2 * mu_k - mu_s) * f_n).epsilon(0.05));
  const double omega = std::sqrt(k / block.mass_kg);
  const double period = 2 * (mu_s - mu_k) * f_n / (k * V) + M_PI / omega;
  for (std::size_t i = 1; i < peak_times.size(); ++i)
    CHECK(peak_times[i] - peak_times[i - 1] == Approx(period).epsilon(0.02));
  CHECK(stuck_time > 0.8 * 17.0);  // mostly stuck: stick–slip, not steady sliding
}
