// The rolling/drilling resistance torque (plugins/friction-basic/resistance_torque.hpp, Neumayr
// 2025 eq. 7.3d, 7.4, 7.10) as every friction law of friction-basic applies it.
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "coulomb_regularized.hpp"
#include "lugre.hpp"
#include "stribeck.hpp"
#include "tangential_spring.hpp"

using contactlab::ContactKinematics;
using contactlab::ContactState;
using contactlab::Friction;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::Vec3;
using Overrides = std::map<std::string, ParameterValue>;

namespace {

template <class Law>
std::unique_ptr<Friction> make(const Overrides& overrides) {
  return std::make_unique<Law>(ParameterValues::defaults(Law::schema(), overrides));
}

struct NamedLaw {
  const char* name;
  std::function<std::unique_ptr<Friction>(const Overrides&)> make;
};

const std::vector<NamedLaw>& laws() {
  static const std::vector<NamedLaw> all = {
      {"coulomb_regularized", make<contactlab::plugins::CoulombRegularized>},
      {"stribeck", make<contactlab::plugins::Stribeck>},
      {"lugre", make<contactlab::plugins::LuGre>},
      {"tangential_spring", make<contactlab::plugins::TangentialSpring>},
  };
  return all;
}

// Neumayr (2025) eq. 7.4, written out independently of the plugin.
double reg(double speed, double v_min) {
  if (speed >= v_min) return speed;
  return speed * speed / v_min * (1.0 - speed / (3.0 * v_min)) + v_min / 3.0;
}

constexpr double mu_r = 0.02, radius = 0.05, f_n = 40.0, w_min = 0.1;
const double tilt = 0.3;
const Vec3 n(0.0, std::sin(tilt), std::cos(tilt));  // contact normal
const Vec3 t1 = Vec3::UnitX();                      // in the tangent plane
const Vec3 t2 = n.cross(t1);                        // in the tangent plane

ContactKinematics contact_with(const Vec3& w_rel) {
  ContactKinematics contact;
  contact.normal_W = n;
  contact.slip_velocity_W = 0.3 * t1 - 0.1 * t2;  // sliding too: the torque does not care
  contact.relative_angular_velocity_W = w_rel;
  contact.material.friction_static = 0.5;
  contact.material.friction_kinetic = 0.3;
  contact.material.rolling_friction = mu_r;
  contact.effective_radius_m = radius;
  return contact;
}

bool close(const Vec3& a, const Vec3& b, double relative) {
  return (a - b).norm() <= relative * b.norm();
}

}  // namespace

TEST_CASE(
    "resistance torque, every law: rolling torque opposes the tangent-plane ω and drilling "
    "torque the normal ω, each of magnitude μ_r·R*·f_n above w_min (within 1e-12 relative)") {
  for (const NamedLaw& law : laws()) {
    CAPTURE(law.name);
    const auto friction = law.make({{"rolling_resistance", true}, {"w_min_rad_per_s", w_min}});
    const double full = mu_r * radius * f_n;
    // Rolling: ω in the tangent plane.
    const Vec3 w_roll = 20.0 * t1 - 5.0 * t2;
    Vec3 torque = friction->compute(contact_with(w_roll), f_n, ContactState{}).torque_W;
    CHECK(torque.dot(w_roll) < 0.0);
    CHECK(close(torque, -full * w_roll.normalized(), 1e-12));
    CHECK(std::abs(torque.dot(n)) <= 1e-15 * full);  // no drilling part
    // Drilling: ω along the normal.
    const Vec3 w_drill = -15.0 * n;
    torque = friction->compute(contact_with(w_drill), f_n, ContactState{}).torque_W;
    CHECK(torque.dot(w_drill) < 0.0);
    CHECK(close(torque, full * n, 1e-12));
    // Both (Neumayr's combined torque): −μ_r·R*·f_n·ω/|ω|, each part opposing its ω.
    const Vec3 w_both = 3.0 * t1 + 4.0 * n;  // |ω| = 5
    torque = friction->compute(contact_with(w_both), f_n, ContactState{}).torque_W;
    CHECK(close(torque, -full / 5.0 * w_both, 1e-12));
    CHECK(torque.dot(t1) < 0.0);
    CHECK(torque.dot(n) < 0.0);
  }
}

TEST_CASE(
    "resistance torque, every law: below w_min it is regularised, −μ_r·R*·f_n·ω/reg(|ω|) "
    "(Neumayr eq. 7.4, 7.10, within 1e-12 relative), 0 at ω = 0, off by default") {
  for (const NamedLaw& law : laws()) {
    CAPTURE(law.name);
    const auto friction = law.make({{"rolling_resistance", true}, {"w_min_rad_per_s", w_min}});
    const Vec3 w = 0.04 * t2 + 0.02 * n;
    const Vec3 expected = -mu_r * radius * f_n / reg(w.norm(), w_min) * w;
    CHECK(close(friction->compute(contact_with(w), f_n, ContactState{}).torque_W, expected, 1e-12));
    CHECK(friction->compute(contact_with(Vec3::Zero()), f_n, ContactState{}).torque_W ==
          Vec3::Zero());
    const auto plain = law.make({});
    CHECK(plain->compute(contact_with(Vec3(1, 2, 3)), f_n, ContactState{}).torque_W ==
          Vec3::Zero());
  }
}

TEST_CASE(
    "resistance torque, every law, resistance_model = separate: rolling and drilling parts "
    "regularised on their own, μ_r·R*·f_n and drilling_factor·μ_r·R*·f_n above w_min (within "
    "1e-12 relative)") {
  for (const NamedLaw& law : laws()) {
    CAPTURE(law.name);
    const double d = 0.5;
    const auto friction = law.make({{"rolling_resistance", true},
                                    {"w_min_rad_per_s", w_min},
                                    {"resistance_model", std::string("separate")},
                                    {"drilling_factor", d}});
    const double full = mu_r * radius * f_n;
    // Fast rolling, slow (but above w_min) drilling: each part at its full magnitude.
    const Vec3 w = 30.0 * t1 + 0.2 * n;
    Vec3 torque = friction->compute(contact_with(w), f_n, ContactState{}).torque_W;
    CHECK(close(torque, -full * t1 - d * full * n, 1e-12));
    // Drilling below w_min: regularised on its own speed, whatever the rolling speed.
    const Vec3 w_slow_drill = 30.0 * t1 - 0.05 * n;
    torque = friction->compute(contact_with(w_slow_drill), f_n, ContactState{}).torque_W;
    CHECK(close(torque, -full * t1 + d * full * 0.05 / reg(0.05, w_min) * n, 1e-12));
    // drilling_factor = 0: rolling resistance only.
    const auto rolling_only = law.make({{"rolling_resistance", true},
                                        {"resistance_model", std::string("separate")},
                                        {"drilling_factor", 0.0}});
    torque = rolling_only->compute(contact_with(-7.0 * n), f_n, ContactState{}).torque_W;
    CHECK(torque == Vec3::Zero());
  }
}

TEST_CASE(
    "resistance torque, every law: a flat pair (R* = ∞) with μ_r > 0 throws a SimulationError "
    "naming the law and contact_radius_m, μ_r = 0 needs no radius") {
  for (const NamedLaw& law : laws()) {
    CAPTURE(law.name);
    const auto friction = law.make({{"rolling_resistance", true}});
    ContactKinematics contact = contact_with(Vec3(0, 1, 0));
    contact.effective_radius_m = std::numeric_limits<double>::infinity();
    CHECK_THROWS_AS(friction->compute(contact, f_n, ContactState{}), contactlab::SimulationError);
    CHECK_THROWS_WITH(friction->compute(contact, f_n, ContactState{}),
                      Catch::Contains(law.name) && Catch::Contains("contact_radius_m"));
    contact.material.rolling_friction = 0.0;
    CHECK(friction->compute(contact, f_n, ContactState{}).torque_W == Vec3::Zero());
  }
}
