// Unit tests of the basic friction laws (plugins/friction-basic).
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "coulomb_regularized.hpp"
#include "no_friction.hpp"

using contactlab::ContactKinematics;
using contactlab::ContactState;
using contactlab::FrictionResult;
using contactlab::ParameterSchema;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::Vec3;
using contactlab::plugins::CoulombRegularized;
using contactlab::plugins::NoFriction;
using contactlab::plugins::regularize;

namespace {

ContactKinematics sliding(const Vec3& slip_W, double mu_k) {
  ContactKinematics contact;
  contact.normal_W = Vec3::UnitZ();
  contact.slip_velocity_W = slip_W;
  contact.material.friction_kinetic = mu_k;
  contact.effective_radius_m = 0.05;
  return contact;
}

}  // namespace

TEST_CASE("none: zero force and torque whatever the slip, empty schema") {
  CHECK(NoFriction::schema().empty());
  const NoFriction friction(ParameterValues{});
  ContactKinematics contact = sliding(Vec3(3, -1, 0), 0.8);
  contact.relative_angular_velocity_W = Vec3(1, 2, 3);
  const FrictionResult result = friction.compute(contact, 100.0, ContactState{});
  CHECK(result.force_W == Vec3::Zero());
  CHECK(result.torque_W == Vec3::Zero());
}

TEST_CASE(
    "coulomb_regularized: schema v_min_m_per_s = 0.01 (> 0), rolling_resistance = false, "
    "w_min_rad_per_s = 0.01 (> 0), resistance_model = combined, drilling_factor = 1") {
  const ParameterSchema schema = CoulombRegularized::schema();
  REQUIRE(schema.size() == 5);
  std::map<std::string, contactlab::ParameterSpec> by_name;
  for (const auto& spec : schema) by_name[spec.name] = spec;
  CHECK(std::get<double>(by_name.at("v_min_m_per_s").default_value) == 0.01);
  CHECK(by_name.at("v_min_m_per_s").minimum_exclusive);
  CHECK(by_name.at("v_min_m_per_s").unit == "m/s");
  CHECK(std::get<bool>(by_name.at("rolling_resistance").default_value) == false);
  CHECK(std::get<double>(by_name.at("w_min_rad_per_s").default_value) == 0.01);
  CHECK(by_name.at("w_min_rad_per_s").minimum_exclusive);
  CHECK(by_name.at("w_min_rad_per_s").unit == "rad/s");
  // The shared resistance-torque parameters (resistance_torque.hpp): Neumayr's combined torque by
  // default, so the law behaves as before the refactoring.
  CHECK(std::get<std::string>(by_name.at("resistance_model").default_value) == "combined");
  CHECK(by_name.at("resistance_model").choices == std::vector<std::string>{"combined", "separate"});
  CHECK(std::get<double>(by_name.at("drilling_factor").default_value) == 1.0);
}

TEST_CASE(
    "regularize: Neumayr eq. 7.4 values — identity above v_min, v_min/3 at 0, the cubic "
    "in between (within 1e-15)") {
  const double v_min = 0.01;
  CHECK(regularize(0.0, v_min) == Approx(v_min / 3.0).epsilon(1e-15));
  CHECK(regularize(v_min, v_min) == v_min);
  CHECK(regularize(0.5, v_min) == 0.5);
  CHECK(regularize(-0.5, v_min) == 0.5);  // a magnitude: |v|
  // v = v_min/2: (v_min/4)·(1 − 1/6) + v_min/3 = 5·v_min/24 + 8·v_min/24 = 13·v_min/24.
  CHECK(regularize(0.5 * v_min, v_min) == Approx(13.0 * v_min / 24.0).epsilon(1e-15));
}

TEST_CASE(
    "regularize: continuous with slope 1 at v_min (C¹, one-sided differences within 1e-6), "
    "curvature → 0 there (C²), minimum v_min/3 at 0 and increasing") {
  const double v_min = 0.01;
  const double h = 1e-7 * v_min;
  const double left_slope = (regularize(v_min, v_min) - regularize(v_min - h, v_min)) / h;
  const double right_slope = (regularize(v_min + h, v_min) - regularize(v_min, v_min)) / h;
  CHECK(left_slope == Approx(1.0).margin(1e-6));
  CHECK(right_slope == Approx(1.0).margin(1e-6));
  // Curvature from the left: reg is a cubic there, so the second difference over v_min, v_min − d,
  // v_min − 2d equals d²·reg''(v_min − d) = d²·2d/v_min², which vanishes as d → 0: reg'' is
  // continuous (0) at v_min.
  for (double d : {1e-2 * v_min, 1e-3 * v_min}) {
    const double left_curvature = (regularize(v_min, v_min) - 2.0 * regularize(v_min - d, v_min) +
                                   regularize(v_min - 2.0 * d, v_min)) /
                                  (d * d);
    CHECK(left_curvature == Approx(2.0 * d / (v_min * v_min)).epsilon(1e-3));
  }
  // Slope 0 at v = 0 (the minimum) and monotone increasing on [0, 2·v_min].
  CHECK((regularize(h, v_min) - regularize(0.0, v_min)) / h == Approx(0.0).margin(1e-6));
  double previous = regularize(0.0, v_min);
  for (int i = 1; i <= 2000; ++i) {
    const double value = regularize(i * 1e-3 * v_min, v_min);
    REQUIRE(value > previous);
    REQUIRE(value >= v_min / 3.0);
    previous = value;
  }
}

TEST_CASE(
    "coulomb_regularized: above v_min the force is μ_k·f_n (within 1e-12 relative), exactly "
    "opposite to the slip") {
  const CoulombRegularized friction(ParameterValues::defaults(CoulombRegularized::schema()));
  const double mu = 0.4, f_n = 250.0;
  for (const Vec3& slip : {Vec3(0.02, 0, 0), Vec3(-3.0, 4.0, 0), Vec3(1e-2, 1e-2, 0)}) {
    const FrictionResult result = friction.compute(sliding(slip, mu), f_n, ContactState{});
    CHECK(result.force_W.norm() == Approx(mu * f_n).epsilon(1e-12));
    CHECK(result.force_W.dot(slip) < 0.0);
    CHECK(result.force_W.cross(slip).norm() <= 1e-12 * result.force_W.norm() * slip.norm());
    CHECK(result.torque_W == Vec3::Zero());  // rolling resistance off by default
  }
}

TEST_CASE(
    "coulomb_regularized: below v_min the force fades smoothly to 0 at zero slip "
    "(value −μ_k·f_n·v_t/reg(|v_t|) within 1e-12 relative)") {
  const double v_min = 0.05;
  const CoulombRegularized friction(
      ParameterValues::defaults(CoulombRegularized::schema(), {{"v_min_m_per_s", v_min}}));
  const double mu = 0.3, f_n = 10.0;
  CHECK(friction.compute(sliding(Vec3::Zero(), mu), f_n, ContactState{}).force_W == Vec3::Zero());
  const Vec3 slip(0.0, -0.01, 0.0);
  const double reg = (0.01 * 0.01 / v_min) * (1.0 - 0.01 / (3.0 * v_min)) + v_min / 3.0;
  const FrictionResult result = friction.compute(sliding(slip, mu), f_n, ContactState{});
  CHECK(result.force_W.y() == Approx(mu * f_n * 0.01 / reg).epsilon(1e-12));
  CHECK(result.force_W.x() == 0.0);
  CHECK(result.force_W.norm() < mu * f_n);
  // Zero normal force or zero μ: no friction.
  CHECK(friction.compute(sliding(slip, mu), 0.0, ContactState{}).force_W.norm() == 0.0);
  CHECK(friction.compute(sliding(slip, 0.0), f_n, ContactState{}).force_W.norm() == 0.0);
}

TEST_CASE(
    "coulomb_regularized: rolling resistance τ = −μ_r·R*·f_n·ω/reg(|ω|) (Neumayr eq. 7.3d), "
    "within 1e-12 relative") {
  const CoulombRegularized friction(ParameterValues::defaults(
      CoulombRegularized::schema(), {{"rolling_resistance", true}, {"w_min_rad_per_s", 0.1}}));
  ContactKinematics contact = sliding(Vec3(1, 0, 0), 0.5);
  contact.material.rolling_friction = 0.02;
  contact.effective_radius_m = 0.05;
  contact.relative_angular_velocity_W = Vec3(0, 20.0, 0);  // well above w_min
  const double f_n = 40.0;
  FrictionResult result = friction.compute(contact, f_n, ContactState{});
  CHECK(result.torque_W.y() == Approx(-0.02 * 0.05 * 40.0).epsilon(1e-12));
  CHECK(result.torque_W.x() == 0.0);
  CHECK(result.torque_W.z() == 0.0);
  // Below w_min: regularised.
  contact.relative_angular_velocity_W = Vec3(0, 0, 0.05);
  const double reg = (0.05 * 0.05 / 0.1) * (1.0 - 0.05 / 0.3) + 0.1 / 3.0;
  result = friction.compute(contact, f_n, ContactState{});
  CHECK(result.torque_W.z() == Approx(-0.02 * 0.05 * 40.0 * 0.05 / reg).epsilon(1e-12));
}

TEST_CASE(
    "coulomb_regularized: rolling resistance on a flat pair (R* = ∞) throws SimulationError "
    "unless μ_r = 0") {
  const CoulombRegularized friction(
      ParameterValues::defaults(CoulombRegularized::schema(), {{"rolling_resistance", true}}));
  ContactKinematics contact = sliding(Vec3(1, 0, 0), 0.5);
  contact.effective_radius_m = std::numeric_limits<double>::infinity();
  contact.relative_angular_velocity_W = Vec3(0, 1, 0);
  contact.material.rolling_friction = 0.01;
  CHECK_THROWS_AS(friction.compute(contact, 1.0, ContactState{}), contactlab::SimulationError);
  CHECK_THROWS_WITH(
      friction.compute(contact, 1.0, ContactState{}),
      Catch::Contains("finite, positive effective radius") && Catch::Contains("contact_radius_m"));
  contact.material.rolling_friction = 0.0;  // nothing to compute, nothing to complain about
  CHECK(friction.compute(contact, 1.0, ContactState{}).torque_W == Vec3::Zero());
  // Disabled: R* is never looked at.
  const CoulombRegularized sliding_only(ParameterValues::defaults(CoulombRegularized::schema()));
  contact.material.rolling_friction = 0.01;
  CHECK(sliding_only.compute(contact, 1.0, ContactState{}).torque_W == Vec3::Zero());
}
