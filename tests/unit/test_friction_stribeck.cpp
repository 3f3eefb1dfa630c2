// Unit tests of the stribeck friction law (plugins/friction-basic/stribeck.hpp).
#include <cmath>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "stribeck.hpp"
#include "test_friction_host.hpp"

using contactlab::ContactKinematics;
using contactlab::ContactState;
using contactlab::FrictionResult;
using contactlab::ParameterValues;
using contactlab::Vec3;
using contactlab::plugins::Stribeck;
using friction_test::gravity_m_per_s2;
using friction_test::sliding;

namespace {

// Neumayr (2025) eq. 7.4, written out here independently of the plugin.
double reg(double speed, double v_min) {
  if (speed >= v_min) return speed;
  return speed * speed / v_min * (1.0 - speed / (3.0 * v_min)) + v_min / 3.0;
}

// μ(v) = μ_k + (μ_s − μ_k)·exp(−(v/v_s)^δ).
double mu(double speed, double mu_s, double mu_k, double v_s, double delta) {
  return mu_k + (mu_s - mu_k) * std::exp(-std::pow(speed / v_s, delta));
}

Stribeck make(const std::map<std::string, contactlab::ParameterValue>& overrides) {
  return Stribeck(ParameterValues::defaults(Stribeck::schema(), overrides));
}

}  // namespace

TEST_CASE(
    "stribeck: schema stribeck_velocity_m_per_s = 0.01 (> 0), exponent = 2 (> 0), "
    "viscous_N_s_per_m = 0 (≥ 0), v_min_m_per_s = 1e-3 (> 0), and the resistance-torque keys") {
  const auto by_name = friction_test::schema_by_name(Stribeck::schema());
  REQUIRE(by_name.size() == 8);
  CHECK(std::get<double>(by_name.at("stribeck_velocity_m_per_s").default_value) == 0.01);
  CHECK(by_name.at("stribeck_velocity_m_per_s").minimum_exclusive);
  CHECK(by_name.at("stribeck_velocity_m_per_s").unit == "m/s");
  CHECK(std::get<double>(by_name.at("exponent").default_value) == 2.0);
  CHECK(by_name.at("exponent").minimum_exclusive);
  CHECK(std::get<double>(by_name.at("viscous_N_s_per_m").default_value) == 0.0);
  CHECK_FALSE(by_name.at("viscous_N_s_per_m").minimum_exclusive);
  CHECK(by_name.at("viscous_N_s_per_m").unit == "N·s/m");
  CHECK(std::get<double>(by_name.at("v_min_m_per_s").default_value) == 1e-3);
  CHECK(by_name.at("v_min_m_per_s").minimum_exclusive);
  for (const char* key :
       {"rolling_resistance", "w_min_rad_per_s", "resistance_model", "drilling_factor"})
    CHECK(by_name.count(key) == 1);
}

TEST_CASE(
    "stribeck: above v_min the force is [μ_k + (μ_s − μ_k)·exp(−(|v|/v_s)^δ)]·f_n + σ₂·|v| "
    "against the slip (within 1e-12 relative), for δ = 2 and δ = 1") {
  const double mu_s = 0.7, mu_k = 0.4, v_s = 0.02, f_n = 30.0, sigma2 = 1.5;
  for (double delta : {2.0, 1.0}) {
    const Stribeck law = make({{"stribeck_velocity_m_per_s", v_s},
                               {"exponent", delta},
                               {"viscous_N_s_per_m", sigma2},
                               {"v_min_m_per_s", 1e-4}});
    for (const Vec3& slip :
         {Vec3(1e-3, 0, 0), Vec3(0, -0.02, 0), Vec3(0.03, 0.04, 0), Vec3(-2.0, 1.0, 0)}) {
      const double speed = slip.norm();
      const FrictionResult result = law.compute(sliding(slip, mu_s, mu_k), f_n, ContactState{});
      const double expected = mu(speed, mu_s, mu_k, v_s, delta) * f_n + sigma2 * speed;
      CHECK(result.force_W.norm() == Approx(expected).epsilon(1e-12));
      CHECK(result.force_W.dot(slip) < 0.0);
      CHECK(result.force_W.cross(slip).norm() <= 1e-12 * result.force_W.norm() * speed);
      CHECK(result.torque_W == Vec3::Zero());
    }
  }
  // At |v| = v_s (δ = 2) the coefficient is μ_k + (μ_s − μ_k)/e; far above it, μ_k.
  const Stribeck law = make({{"stribeck_velocity_m_per_s", v_s}});
  CHECK(law.compute(sliding(Vec3(v_s, 0, 0), mu_s, mu_k), f_n, ContactState{}).force_W.x() ==
        Approx(-(mu_k + (mu_s - mu_k) / std::exp(1.0)) * f_n).epsilon(1e-12));
  CHECK(law.compute(sliding(Vec3(20 * v_s, 0, 0), mu_s, mu_k), f_n, ContactState{}).force_W.x() ==
        Approx(-mu_k * f_n).epsilon(1e-12));
}

TEST_CASE(
    "stribeck: below v_min the dry part is regularised, −μ(|v|)·f_n·v/reg(|v|) (Neumayr eq. 7.4, "
    "7.8, within 1e-12 relative), zero at zero slip, μ_s < μ_k throws") {
  const double v_min = 0.01;
  const Stribeck law = make({{"v_min_m_per_s", v_min}, {"stribeck_velocity_m_per_s", 0.05}});
  const double mu_s = 0.5, mu_k = 0.3, f_n = 12.0;
  CHECK(law.compute(sliding(Vec3::Zero(), mu_s, mu_k), f_n, ContactState{}).force_W ==
        Vec3::Zero());
  const double speed = 0.004;
  const FrictionResult result =
      law.compute(sliding(Vec3(0, speed, 0), mu_s, mu_k), f_n, ContactState{});
  CHECK(result.force_W.y() ==
        Approx(-mu(speed, mu_s, mu_k, 0.05, 2.0) * f_n * speed / reg(speed, v_min)).epsilon(1e-12));
  CHECK(result.force_W.y() > -mu_s * f_n);
  CHECK_THROWS_WITH(law.compute(sliding(Vec3(1, 0, 0), 0.2, 0.3), f_n, ContactState{}),
                    Catch::Contains("stribeck") && Catch::Contains("friction_static = 0.2"));
}

TEST_CASE(
    "stribeck: block on an incline below tan θ = μ_s creeps at the speed v_c solving "
    "μ(v)·v/reg(v) = tan θ (within 1e-12 relative), below v_min = 1e-4 m/s, never faster") {
  const double mu_s = 0.6, mu_k = 0.4, v_s = 0.01, v_min = 1e-4, tan_theta = 0.5;
  const Stribeck law = make({{"stribeck_velocity_m_per_s", v_s}, {"v_min_m_per_s", v_min}});
  const double theta = std::atan(tan_theta);
  const friction_test::Block block = friction_test::incline(theta, mu_s, mu_k, 2.0);

  // The creep speed by bisection of the closed form on (0, v_min).
  double lo = 0.0, hi = v_min;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (mu(mid, mu_s, mu_k, v_s, 2.0) * mid / reg(mid, v_min) < tan_theta ? lo : hi) = mid;
  }
  const double v_creep = 0.5 * (lo + hi);
  REQUIRE(v_creep < v_min);

  friction_test::BlockHost host(law, block);
  host.birth(0.0, 0.0, 0.0);
  double v_max = 0.0;
  host.run(2e-3, 1e-6, [&](const friction_test::Sample& s) { v_max = std::max(v_max, s.v); });
  CHECK(host.state()[1] == Approx(v_creep).epsilon(1e-12));
  CHECK(v_max <= v_creep * (1.0 + 1e-12));
}

TEST_CASE(
    "stribeck: block on an incline above tan θ = μ_s slides with acceleration "
    "g·(sin θ − μ_k·cos θ) once |v| > 6·v_s (within 1e-10 relative)") {
  const double mu_s = 0.6, mu_k = 0.4, v_s = 0.01, tan_theta = 0.8;
  const Stribeck law = make({{"stribeck_velocity_m_per_s", v_s}, {"v_min_m_per_s", 1e-4}});
  const double theta = std::atan(tan_theta);
  const friction_test::Block block = friction_test::incline(theta, mu_s, mu_k);
  friction_test::BlockHost host(law, block);
  host.birth(0.0, 0.0, 0.0);
  double t1 = -1.0, v1 = 0.0;
  host.run(0.3, 1e-6, [&](const friction_test::Sample& s) {
    if (t1 < 0.0 && s.v > 6.0 * v_s) {
      t1 = s.t;
      v1 = s.v;
    }
  });
  REQUIRE(t1 > 0.0);
  const double acceleration = (host.state()[1] - v1) / (host.time() - t1);
  CHECK(acceleration ==
        Approx(gravity_m_per_s2 * (std::sin(theta) - mu_k * std::cos(theta))).epsilon(1e-10));
}

TEST_CASE(
    "stribeck: with viscous σ₂ a block on an incline steeper than μ_k reaches the terminal speed "
    "m·g·(sin θ − μ_k·cos θ)/σ₂ (within 1e-10 relative)") {
  const double mu_s = 0.6, mu_k = 0.4, sigma2 = 2.0, tan_theta = 0.8;
  const Stribeck law = make({{"viscous_N_s_per_m", sigma2}, {"v_min_m_per_s", 1e-4}});
  const double theta = std::atan(tan_theta);
  const friction_test::Block block = friction_test::incline(theta, mu_s, mu_k);
  friction_test::BlockHost host(law, block);
  host.birth(0.0, 0.0, 0.0);
  host.run(18.0, 5e-6, nullptr);  // 36 time constants m/σ₂
  CHECK(host.state()[1] == Approx(block.mass_kg * gravity_m_per_s2 *
                                  (std::sin(theta) - mu_k * std::cos(theta)) / sigma2)
                               .epsilon(1e-10));
}
