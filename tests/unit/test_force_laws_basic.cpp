// Unit tests of the basic normal force laws (plugins/forcelaw-basic).
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "hertz_force_law.hpp"
#include "linear_force_law.hpp"

using contactlab::ContactKinematics;
using contactlab::ContactState;
using contactlab::ParameterSchema;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::plugins::HertzForceLaw;
using contactlab::plugins::LinearForceLaw;

namespace {

const contactlab::ParameterSpec& spec_named(const ParameterSchema& schema,
                                            const std::string& name) {
  for (const auto& spec : schema) {
    if (spec.name == name) return spec;
  }
  FAIL("no parameter " << name);
  return schema.front();
}

ContactKinematics contact_with(double penetration_m, double rate_m_per_s) {
  ContactKinematics contact;
  contact.penetration_m = penetration_m;
  contact.penetration_rate_m_per_s = rate_m_per_s;
  return contact;
}

/// Steel on steel: E = 210 GPa, ν = 0.3 on both sides, so E* = E / (2·(1 − ν²)) = 1500/13 GPa
/// (Neumayr eq. 7.2), and a 10 mm sphere radius against a flat: R* = 0.01 m.
ContactKinematics steel_ball_on_steel_plate(double penetration_m) {
  ContactKinematics contact = contact_with(penetration_m, 0.0);
  contact.effective_modulus_Pa = 1.0 / (2.0 * (1.0 - 0.3 * 0.3) / 210e9);
  contact.effective_radius_m = 0.01;
  return contact;
}

}  // namespace

TEST_CASE(
    "linear: schema declares stiffness_N_per_m > 0 (1e6), damping_N_s_per_m ≥ 0 (0) and "
    "clamp_tension (true)") {
  const ParameterSchema schema = LinearForceLaw::schema();
  REQUIRE(schema.size() == 3);
  const auto& k = spec_named(schema, "stiffness_N_per_m");
  CHECK(std::get<double>(k.default_value) == 1e6);
  CHECK(k.minimum == 0.0);
  CHECK(k.minimum_exclusive);
  CHECK(k.unit == "N/m");
  const auto& c = spec_named(schema, "damping_N_s_per_m");
  CHECK(std::get<double>(c.default_value) == 0.0);
  CHECK(c.minimum == 0.0);
  CHECK_FALSE(c.minimum_exclusive);
  const auto& clamp = spec_named(schema, "clamp_tension");
  CHECK(clamp.type == contactlab::ParameterType::boolean);
  CHECK(std::get<bool>(clamp.default_value));
}

TEST_CASE("linear: f = k·δ + c·δ̇ within 1e-12 relative, potential ½kδ², no requirements") {
  const LinearForceLaw law(ParameterValues::defaults(
      LinearForceLaw::schema(), {{"stiffness_N_per_m", 2e5}, {"damping_N_s_per_m", 300.0}}));
  const ContactState state;
  CHECK(law.normal_force(contact_with(1e-3, 0.5), state) == Approx(200.0 + 150.0).epsilon(1e-12));
  CHECK(law.normal_force(contact_with(2e-3, -0.1), state) == Approx(400.0 - 30.0).epsilon(1e-12));
  CHECK(law.potential_energy(contact_with(1e-3, 0.5), ContactState{}) ==
        Approx(0.5 * 2e5 * 1e-6).epsilon(1e-12));
  CHECK_FALSE(law.requirements().effective_radius);
  CHECK_FALSE(law.requirements().effective_modulus);
}

TEST_CASE("linear: clamp_tension (default) never pulls, false keeps the negative linear force") {
  const ContactState state;
  // k·δ = 100 N, c·δ̇ = −1000 N while separating fast.
  const ContactKinematics separating = contact_with(1e-4, -10.0);
  const LinearForceLaw clamped(
      ParameterValues::defaults(LinearForceLaw::schema(), {{"damping_N_s_per_m", 100.0}}));
  CHECK(clamped.normal_force(separating, state) == 0.0);
  const LinearForceLaw pure(ParameterValues::defaults(
      LinearForceLaw::schema(), {{"damping_N_s_per_m", 100.0}, {"clamp_tension", false}}));
  CHECK(pure.normal_force(separating, state) == Approx(-900.0).epsilon(1e-12));
}

TEST_CASE(
    "hertz: schema declares stiffness_scale with 0 < k_red ≤ 1, default 1, requires R* and E* "
    "(both "
    "finite)") {
  const ParameterSchema schema = HertzForceLaw::schema();
  REQUIRE(schema.size() == 1);
  const auto& scale = spec_named(schema, "stiffness_scale");
  CHECK(std::get<double>(scale.default_value) == 1.0);
  CHECK(scale.minimum == 0.0);
  CHECK(scale.minimum_exclusive);
  CHECK(scale.maximum == 1.0);
  CHECK_FALSE(scale.maximum_exclusive);
  const HertzForceLaw law(ParameterValues::defaults(schema));
  CHECK(law.requirements().effective_radius);
  CHECK(law.requirements().effective_modulus);
}

TEST_CASE(
    "hertz: steel ball R = 10 mm on steel at δ = 1 µm gives the hand-computed 200/13 N "
    "within 1e-12 relative (Neumayr eq. 7.1)") {
  // (4/3)·(1500/13·10⁹ Pa)·√(0.01 m)·(10⁻⁶ m)^{3/2} = (4/3)·(150/13) N = 200/13 N ≈ 15.385 N.
  const ContactState state;
  const HertzForceLaw law(ParameterValues::defaults(HertzForceLaw::schema()));
  CHECK(law.normal_force(steel_ball_on_steel_plate(1e-6), state) ==
        Approx(200.0 / 13.0).epsilon(1e-12));
  // Energy (8/15)·E*·√R*·δ^{5/2} = (8/15)·(150/13)·10⁻⁶ J = 80/13 µJ.
  CHECK(law.potential_energy(steel_ball_on_steel_plate(1e-6), ContactState{}) ==
        Approx(80.0 / 13.0 * 1e-6).epsilon(1e-12));
  // Damping is not part of this law: δ̇ changes nothing.
  ContactKinematics moving = steel_ball_on_steel_plate(1e-6);
  moving.penetration_rate_m_per_s = 3.0;
  CHECK(law.normal_force(moving, state) == Approx(200.0 / 13.0).epsilon(1e-12));
  CHECK(law.normal_force(steel_ball_on_steel_plate(0.0), state) == 0.0);
}

TEST_CASE("hertz: stiffness_scale k_red multiplies force and energy (within 1e-12 relative)") {
  const ContactState state;
  const HertzForceLaw law(
      ParameterValues::defaults(HertzForceLaw::schema(), {{"stiffness_scale", 1e-4}}));
  CHECK(law.normal_force(steel_ball_on_steel_plate(1e-6), state) ==
        Approx(1e-4 * 200.0 / 13.0).epsilon(1e-12));
  CHECK(law.potential_energy(steel_ball_on_steel_plate(1e-6), ContactState{}) ==
        Approx(1e-4 * 80.0 / 13.0 * 1e-6).epsilon(1e-12));
}

TEST_CASE("hertz: force is the derivative of the potential (central difference, 1e-8 relative)") {
  const ContactState state;
  const HertzForceLaw law(ParameterValues::defaults(HertzForceLaw::schema()));
  for (double delta : {1e-7, 1e-6, 3e-5, 1e-4}) {
    const double h = 1e-4 * delta;
    const double dU = law.potential_energy(steel_ball_on_steel_plate(delta + h), ContactState{}) -
                      law.potential_energy(steel_ball_on_steel_plate(delta - h), ContactState{});
    CHECK(dU / (2.0 * h) ==
          Approx(law.normal_force(steel_ball_on_steel_plate(delta), state)).epsilon(1e-8));
  }
}

TEST_CASE("hertz: a flat–flat pair (R* = ∞) throws SimulationError saying how to fix it") {
  const ContactState state;
  const HertzForceLaw law(ParameterValues::defaults(HertzForceLaw::schema()));
  ContactKinematics flat = steel_ball_on_steel_plate(1e-6);
  flat.effective_radius_m = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(law.normal_force(flat, state), contactlab::SimulationError);
  CHECK_THROWS_WITH(law.normal_force(flat, state),
                    "hertz needs a finite effective radius: both surfaces are flat; set "
                    "contact_radius_m on one geometry");
  CHECK_THROWS_AS(law.potential_energy(flat, ContactState{}), contactlab::SimulationError);
  flat.effective_radius_m = 0.0;
  CHECK_THROWS_WITH(law.normal_force(flat, state), Catch::Contains("effective radius"));
}

TEST_CASE(
    "hertz: a missing or non-finite effective modulus throws SimulationError naming E* (the "
    "effective modulus)") {
  const ContactState state;
  const HertzForceLaw law(ParameterValues::defaults(HertzForceLaw::schema()));
  for (double modulus : {0.0, -1.0, std::numeric_limits<double>::infinity(),
                         std::numeric_limits<double>::quiet_NaN()}) {
    ContactKinematics contact = steel_ball_on_steel_plate(1e-6);
    contact.effective_modulus_Pa = modulus;
    CHECK_THROWS_WITH(law.normal_force(contact, state), Catch::Contains("effective modulus E*"));
  }
}
