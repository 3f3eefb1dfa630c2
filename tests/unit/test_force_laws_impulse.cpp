// Unit tests of the restitution_impulse force law (plugins/forcelaw-basic): Newton's e at contact
// birth above the resting velocity, and the forwarded penalty law (of the same folder) below.
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "hertz_force_law.hpp"
#include "hunt_crossley_force_law.hpp"
#include "impact_1dof.hpp"
#include "linear_force_law.hpp"
#include "restitution_impulse_law.hpp"

using contactlab::ContactKinematics;
using contactlab::ContactState;
using contactlab::ParameterSchema;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::plugins::HertzForceLaw;
using contactlab::plugins::HuntCrossleyForceLaw;
using contactlab::plugins::LinearForceLaw;
using contactlab::plugins::RestitutionImpulseLaw;

namespace {

const contactlab::ParameterSpec* find_spec(const ParameterSchema& schema, const std::string& name) {
  for (const auto& spec : schema) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

RestitutionImpulseLaw make_law(const std::map<std::string, ParameterValue>& overrides = {}) {
  return RestitutionImpulseLaw(
      ParameterValues::defaults(RestitutionImpulseLaw::schema(), overrides));
}

ContactKinematics approaching(double rate_m_per_s, double pair_restitution = 0.6) {
  ContactKinematics contact;
  contact.penetration_rate_m_per_s = rate_m_per_s;
  contact.impact_velocity_m_per_s = rate_m_per_s;
  contact.material.restitution = pair_restitution;
  return contact;
}

/// Steel ball R* = 10 mm on a steel plate (E* = 210 GPa / (2·(1 − 0.3²))).
ContactKinematics steel_contact(double penetration_m, double rate_m_per_s) {
  ContactKinematics contact;
  contact.penetration_m = penetration_m;
  contact.distance_m = -penetration_m;
  contact.penetration_rate_m_per_s = rate_m_per_s;
  contact.effective_modulus_Pa = 1.0 / (2.0 * (1.0 - 0.3 * 0.3) / 210e9);
  contact.effective_radius_m = 0.01;
  contact.effective_mass_kg = 0.04;
  contact.material.restitution = 0.7;
  return contact;
}

}  // namespace

TEST_CASE(
    "restitution_impulse: schema has restitution (-1: the pair's), resting_velocity_m_per_s "
    "(0.01 m/s), resting_law linear|hertz|hunt_crossley, and every resting law's parameter as "
    "resting_<name> "
    "with that law's default, range and unit") {
  const ParameterSchema schema = RestitutionImpulseLaw::schema();
  const auto* e = find_spec(schema, "restitution");
  REQUIRE(e != nullptr);
  CHECK(std::get<double>(e->default_value) == -1.0);
  CHECK(e->minimum == -1.0);
  CHECK(e->maximum == 1.0);
  const auto* v = find_spec(schema, "resting_velocity_m_per_s");
  REQUIRE(v != nullptr);
  CHECK(std::get<double>(v->default_value) == 0.01);
  CHECK(v->minimum == 0.0);
  CHECK(v->unit == "m/s");
  const auto* law = find_spec(schema, "resting_law");
  REQUIRE(law != nullptr);
  CHECK(law->type == contactlab::ParameterType::choice);
  CHECK(std::get<std::string>(law->default_value) == "linear");
  CHECK(law->choices == std::vector<std::string>{"linear", "hertz", "hunt_crossley"});
  CHECK(RestitutionImpulseLaw::resting_law_names() == law->choices);
  // 3 own + every resting law's parameters, each forwarded unchanged but for its name and doc; a
  // name two laws share (stiffness_scale of hertz and hunt_crossley) appears once, with the
  // first law's doc.
  std::set<std::string> forwarded_names;
  for (const ParameterSchema& inner :
       {LinearForceLaw::schema(), HertzForceLaw::schema(), HuntCrossleyForceLaw::schema()}) {
    for (const auto& spec : inner) {
      CAPTURE(spec.name);
      const bool first = forwarded_names.insert("resting_" + spec.name).second;
      const auto* forwarded = find_spec(schema, "resting_" + spec.name);
      REQUIRE(forwarded != nullptr);
      CHECK(forwarded->type == spec.type);
      CHECK(forwarded->default_value == spec.default_value);
      CHECK(forwarded->minimum == spec.minimum);
      CHECK(forwarded->maximum == spec.maximum);
      CHECK(forwarded->minimum_exclusive == spec.minimum_exclusive);
      CHECK(forwarded->maximum_exclusive == spec.maximum_exclusive);
      CHECK(forwarded->unit == spec.unit);
      if (first) CHECK_THAT(forwarded->doc, Catch::Contains(spec.doc));
    }
  }
  CHECK(schema.size() == 3 + forwarded_names.size());
  CHECK(find_spec(schema, "resting_stiffness_N_per_m")->unit == "N/m");
  CHECK(find_spec(schema, "resting_damping_N_s_per_m")->unit == "N·s/m");
  CHECK_THAT(find_spec(schema, "resting_stiffness_scale")->doc,
             Catch::StartsWith("[resting_law hertz, hunt_crossley]"));
}

TEST_CASE(
    "restitution_impulse: impact_restitution is the pair's e at and above the resting velocity, "
    "no_impulse below it (exact)") {
  const RestitutionImpulseLaw law = make_law();
  CHECK(law.resting_velocity_m_per_s() == 0.01);
  CHECK(law.impact_restitution(approaching(3.0, 0.6)) == 0.6);
  CHECK(law.impact_restitution(approaching(0.01, 0.25)) == 0.25);  // "at least"
  CHECK(law.impact_restitution(approaching(0.0099, 0.6)) == contactlab::no_impulse);
  CHECK(law.impact_restitution(approaching(0.0, 0.6)) == contactlab::no_impulse);
  CHECK(law.impact_restitution(approaching(-1.0, 0.6)) == contactlab::no_impulse);
  CHECK(law.impact_restitution(approaching(std::nan(""), 0.6)) == contactlab::no_impulse);
  CHECK(law.impact_restitution(approaching(5.0, 0.0)) == 0.0);  // perfectly plastic
  CHECK(law.impact_restitution(approaching(5.0, 1.0)) == 1.0);
  // The parameters override the pair's e and move the threshold.
  const RestitutionImpulseLaw custom =
      make_law({{"restitution", 0.35}, {"resting_velocity_m_per_s", 0.5}});
  CHECK(custom.impact_restitution(approaching(0.5, 0.9)) == 0.35);
  CHECK(custom.impact_restitution(approaching(0.49, 0.9)) == contactlab::no_impulse);
  // With threshold 0 every approach is an impact.
  const RestitutionImpulseLaw always = make_law({{"resting_velocity_m_per_s", 0.0}});
  CHECK(always.impact_restitution(approaching(1e-12, 0.8)) == 0.8);
}

TEST_CASE(
    "restitution_impulse: below the resting velocity the force and energy are exactly those of "
    "linear built from the resting_* parameters") {
  const RestitutionImpulseLaw law = make_law({{"resting_law", std::string("linear")},
                                              {"resting_stiffness_N_per_m", 3e5},
                                              {"resting_damping_N_s_per_m", 250.0},
                                              {"resting_clamp_tension", false}});
  const LinearForceLaw reference(ParameterValues::defaults(
      LinearForceLaw::schema(),
      {{"stiffness_N_per_m", 3e5}, {"damping_N_s_per_m", 250.0}, {"clamp_tension", false}}));
  const ContactState state;
  for (const double delta : {0.0, 1e-6, 2e-4, 3e-3}) {
    for (const double rate : {-2.0, -1e-3, 0.0, 5e-3, 0.7}) {
      CAPTURE(delta, rate);
      ContactKinematics contact = approaching(rate);
      contact.penetration_m = delta;
      contact.distance_m = -delta;
      CHECK(law.normal_force(contact, state) == reference.normal_force(contact, state));
      CHECK(law.potential_energy(contact, contactlab::ContactState{}) ==
            reference.potential_energy(contact, contactlab::ContactState{}));
      // And against the closed form f = k·δ + c·δ̇ (clamp off), ½kδ².
      CHECK(law.normal_force(contact, state) ==
            Approx(3e5 * delta + 250.0 * rate).epsilon(1e-12).margin(1e-12));
      CHECK(law.potential_energy(contact, contactlab::ContactState{}) ==
            Approx(0.5 * 3e5 * delta * delta).epsilon(1e-12));
    }
  }
  CHECK(law.activation_distance_m() == reference.activation_distance_m());
  CHECK(law.layout().event_functions == 0);
  CHECK(law.layout().continuous_states == 0);
}

TEST_CASE(
    "restitution_impulse: resting_law hertz forwards resting_stiffness_scale, force and energy "
    "equal hertz's exactly") {
  const RestitutionImpulseLaw law =
      make_law({{"resting_law", std::string("hertz")}, {"resting_stiffness_scale", 0.25}});
  const HertzForceLaw reference(
      ParameterValues::defaults(HertzForceLaw::schema(), {{"stiffness_scale", 0.25}}));
  const ContactState state;
  for (const double delta : {1e-7, 1e-6, 5e-6}) {
    CAPTURE(delta);
    const ContactKinematics contact = steel_contact(delta, 0.003);
    CHECK(law.normal_force(contact, state) == reference.normal_force(contact, state));
    CHECK(law.potential_energy(contact, contactlab::ContactState{}) ==
          reference.potential_energy(contact, contactlab::ContactState{}));
  }
  // At δ = 1 µm: 0.25·(4/3)·(1500/13 GPa)·√(0.01 m)·(1 µm)^{3/2} = 0.25·200/13 N.
  CHECK(law.normal_force(steel_contact(1e-6, 0.0), state) ==
        Approx(0.25 * 200.0 / 13.0).epsilon(1e-12));
}

TEST_CASE(
    "restitution_impulse: requirements are the resting law's plus impulsive (linear: none, "
    "hertz: R* and E*)") {
  const auto linear = make_law().requirements();
  CHECK(linear.impulsive);
  CHECK_FALSE(linear.effective_radius);
  CHECK_FALSE(linear.effective_modulus);
  const auto hertz = make_law({{"resting_law", std::string("hertz")}}).requirements();
  CHECK(hertz.impulsive);
  CHECK(hertz.effective_radius);
  CHECK(hertz.effective_modulus);
}

TEST_CASE("restitution_impulse: parameter errors name the parameter and its value") {
  try {
    make_law({{"restitution", -0.2}});
    FAIL("restitution -0.2 was accepted");
  } catch (const contactlab::InputError& error) {
    CHECK_THAT(error.what(), Catch::Contains("params.restitution is -0.2"));
  }
  try {
    make_law({{"resting_law", std::string("bilinear")}});
    FAIL("resting_law bilinear was accepted");
  } catch (const contactlab::InputError& error) {
    CHECK_THAT(error.what(), Catch::Contains("params.resting_law is 'bilinear'"));
    CHECK_THAT(error.what(), Catch::Contains("linear, hertz"));
  }
  try {
    make_law({{"resting_velocity_m_per_s", -1.0}});
    FAIL("resting velocity -1 was accepted");
  } catch (const contactlab::InputError& error) {
    CHECK_THAT(error.what(), Catch::Contains("params.resting_velocity_m_per_s is -1"));
  }
  // A parameter of another resting law would be silently ignored: refused.
  try {
    make_law({{"resting_law", std::string("linear")}, {"resting_stiffness_scale", 0.5}});
    FAIL("resting_stiffness_scale with resting_law linear was accepted");
  } catch (const contactlab::InputError& error) {
    CHECK_THAT(error.what(), Catch::Contains("params.resting_stiffness_scale is set"));
    CHECK_THAT(error.what(), Catch::Contains("resting_law hertz"));
  }
  try {
    make_law({{"resting_law", std::string("hertz")}, {"resting_damping_N_s_per_m", 10.0}});
    FAIL("resting_damping_N_s_per_m with resting_law hertz was accepted");
  } catch (const contactlab::InputError& error) {
    CHECK_THAT(error.what(), Catch::Contains("params.resting_damping_N_s_per_m is set"));
  }
  // A pair restitution outside [0, 1] is refused when an impulse needs it.
  const RestitutionImpulseLaw law = make_law();
  try {
    law.impact_restitution(approaching(2.0, 1.3));
    FAIL("pair restitution 1.3 was accepted");
  } catch (const contactlab::SimulationError& error) {
    CHECK_THAT(error.what(), Catch::Contains("restitution is 1.3"));
  }
  CHECK(law.impact_restitution(approaching(0.001, 1.3)) == contactlab::no_impulse);
}

TEST_CASE(
    "restitution_impulse: a 1-DOF drop emulating the host leaves at e·v0 above the resting "
    "velocity (exact) and, below it, bounces like the damped resting law (within 1e-6)") {
  // Above: the host applies v⁺ = −e·v⁻ at birth; the clamped linear resting law then pulls
  // nothing at δ = 0 while separating, so the exit speed is e·v0.
  const RestitutionImpulseLaw law = make_law({{"resting_damping_N_s_per_m", 40.0}});
  const ContactState state;
  const double v0 = 2.0;
  const double e = law.impact_restitution(approaching(v0, 0.55));
  REQUIRE(e == 0.55);
  ContactKinematics after = approaching(-e * v0, 0.55);
  CHECK(law.normal_force(after, state) == 0.0);
  // Below: m = 1 kg at 5 mm/s on k = 1e6 N/m, c = 40 N·s/m (β = c/(2√(km)) = 0.02): no impulse,
  // and the unclamped-equivalent exit speed of the resting law. With clamp_tension the force stops
  // where k·δ + c·δ̇ = 0; integrate with RK4 to δ = 0 and compare with the closed form of the
  // damped oscillator at that force-zero instant.
  const double slow = 0.005;
  REQUIRE(law.impact_restitution(approaching(slow, 0.55)) == contactlab::no_impulse);
  const double k = 1e6;
  const double c = 40.0;
  const double m = 1.0;
  const double omega = std::sqrt(k / m);
  const double beta = c / (2.0 * std::sqrt(k * m));
  const double omega_d = omega * std::sqrt(1.0 - beta * beta);
  // δ = (v0/ω_d)·e^{−βωt}·sin(ω_d t); k·δ + c·δ̇ = 0 at θ = ω_d t with
  // cot θ = (2β² − 1)/(2β√(1 − β²)).
  const double theta = std::atan2(2.0 * beta * std::sqrt(1.0 - beta * beta), 2.0 * beta * beta - 1);
  const double t_zero = theta / omega_d;
  const double exit_rate = slow * std::exp(-beta * omega * t_zero) *
                           (-beta * omega / omega_d * std::sin(theta) + std::cos(theta));
  const double h = 1e-4 / omega;
  auto force = [&](double d, double r) {
    ContactKinematics contact = approaching(r, 0.55);
    contact.penetration_m = std::max(0.0, d);
    contact.distance_m = -d;
    return law.normal_force(contact, state);
  };
  const contactlab::testing::ImpactResult impact = contactlab::testing::integrate_impact(
      force, m, slow, h, 10'000'000, contactlab::testing::Separation::bisect_step);
  REQUIRE(impact.separated);
  const double rate = impact.exit_velocity_m_per_s;
  CHECK(rate == Approx(exit_rate).epsilon(1e-6));
}
