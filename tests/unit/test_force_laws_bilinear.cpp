// Unit tests of the bilinear normal force law (plugins/forcelaw-bilinear): Stronge's law and
// Chatterjee's variant (Ullrich 1998, §2.4.2). The 1-DOF impacts are integrated here, by a
// fixed-step RK4 (impact_1dof.hpp) under a host emulation written in this file (evaluate the event
// functions after each step, bisect the step to the first sign change, call on_event, continue);
// expected values come from closed forms of the piecewise-linear oscillator.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "bilinear_force_law.hpp"
#include "impact_1dof.hpp"

using contactlab::ContactKinematics;
using contactlab::ContactLawLayout;
using contactlab::ContactState;
using contactlab::LawMemory;
using contactlab::ParameterSchema;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::plugins::BilinearForceLaw;
using contactlab::testing::spec_named;

namespace {

BilinearForceLaw make_law(const std::string& variant, double stiffness_N_per_m,
                          double restitution = -1.0) {
  return BilinearForceLaw(ParameterValues::defaults(BilinearForceLaw::schema(),
                                                    {{"variant", std::string(variant)},
                                                     {"stiffness_N_per_m", stiffness_N_per_m},
                                                     {"restitution", restitution}}));
}

/// The contact of a mass m at penetration δ with rate δ̇ against a fixed body of pair
/// restitution e (the law reads e from the pair unless its parameter overrides it).
ContactKinematics contact_at(double delta_m, double rate_m_per_s, double pair_restitution = 0.5,
                             double mass_kg = 1.0) {
  ContactKinematics contact;
  contact.distance_m = -delta_m;
  contact.penetration_m = std::max(0.0, delta_m);
  contact.penetration_rate_m_per_s = rate_m_per_s;
  contact.effective_mass_kg = mass_kg;
  contact.material.restitution = pair_restitution;
  return contact;
}

// ---- 1-DOF impact with an emulated host ---------------------------------------------------------

struct ImpactSetup {
  double mass_kg = 1.0;
  double approach_velocity_m_per_s = 1.0;
  double pair_restitution = 0.5;
  double step_s = 1e-6;
  double max_time_s = 1.0;
  /// A constant push F [N] along +δ (into the contact), switched on when event `push_after_event`
  /// first fires (−1: never), so that the contact re-compresses.
  int push_after_event = -1;
  double push_N = 0.0;
  /// Stop `extra_time_s` after the n-th event (−1: run until the contact dies or max_time_s).
  int stop_after_events = -1;
  double extra_time_s = 0.0;
};

struct EventRecord {
  int index = -1;
  std::string name;
  double time_s = 0.0;
  double delta_m = 0.0;
  double rate_m_per_s = 0.0;
  double force_before_N = 0.0;
  double force_after_N = 0.0;
  double stored_before_J = 0.0;
  double stored_after_J = 0.0;
  LawMemory memory_after;
};

struct ImpactRun {
  std::vector<EventRecord> events;
  bool died = false;
  double exit_rate_m_per_s = 0.0;  ///< δ̇ when δ returned to 0 (negative: separating)
  double initial_energy_J = 0.0;
  /// Largest increase over one step (or one event) of ½mv² + stored_energy − W_push [J].
  double max_energy_rise_J = 0.0;
  /// The same with the loading line's ½k₁δ² (potential_energy with a zeroed memory).
  double max_memoryless_energy_rise_J = 0.0;
  /// Smallest work absorbed by the contact so far, ∫ f·δ̇ dt [J] (passivity: never < 0).
  double min_absorbed_work_J = 0.0;
  /// Largest decrease of the dissipated energy ∫ f·δ̇ dt − stored_energy [J] (never > 0).
  double max_dissipation_drop_J = 0.0;
  double absorbed_work_J = 0.0;    ///< ∫ f·δ̇ dt at the end
  double max_delta_m = 0.0;        ///< over the whole run
  double max_delta_after_m = 0.0;  ///< since the last event
  double final_delta_m = 0.0;
};

/// y = (δ, δ̇, ∫ f·δ̇ dt); m·δ̈ = F_push − f(δ, δ̇, memory).
using State = std::array<double, 3>;

class ImpactSimulator {
 public:
  ImpactSimulator(const BilinearForceLaw& law, const ImpactSetup& setup)
      : law_(law), setup_(setup), events_(law.layout().event_functions) {}

  ImpactRun run() {
    ImpactRun result;
    State y{0.0, setup_.approach_velocity_m_per_s, 0.0};
    double t = 0.0;
    law_.on_birth(kinematics(y), state_.law);
    std::vector<double> g(static_cast<std::size_t>(events_));
    std::vector<bool> armed(g.size());
    evaluate_events(y, g);
    for (std::size_t i = 0; i < g.size(); ++i) armed[i] = g[i] > 0.0;
    result.initial_energy_J = 0.5 * setup_.mass_kg * y[1] * y[1];
    double energy = energy_of(y);
    double memoryless_energy = memoryless_energy_of(y);
    double dissipated = y[2] - law_.stored_energy(kinematics(y), state_.law);
    double stop_time_s = setup_.max_time_s;
    while (t < stop_time_s) {
      const double h = std::min(setup_.step_s, stop_time_s - t);
      State next = rk4(y, h);
      if (fires(next, armed, g)) {
        // Bisect the step to the first time some armed function is ≤ 0 or δ < 0.
        const double hi = contactlab::testing::first_firing_step(
            [&](double step) { return fires(rk4(y, step), armed, g); }, h, 1e-15);
        next = rk4(y, hi);
        t += hi;
        y = next;
        track(result, y, energy, memoryless_energy, dissipated);
        if (y[0] < 0.0) {
          result.died = true;
          result.exit_rate_m_per_s = y[1];
          break;
        }
        fires(y, armed, g);  // g at the located point
        const std::vector<double> g_fired = g;
        for (int i = 0; i < events_; ++i) {
          if (!(armed[static_cast<std::size_t>(i)] && g_fired[static_cast<std::size_t>(i)] <= 0.0))
            continue;
          EventRecord record;
          record.index = i;
          record.name = law_.event_name(i);
          record.time_s = t;
          record.delta_m = y[0];
          record.rate_m_per_s = y[1];
          const ContactKinematics contact = kinematics(y);
          record.force_before_N = law_.normal_force(contact, state_);
          record.stored_before_J = law_.stored_energy(contact, state_.law);
          law_.on_event(i, contact, record.force_before_N, state_.law);
          record.force_after_N = law_.normal_force(contact, state_);
          record.stored_after_J = law_.stored_energy(contact, state_.law);
          record.memory_after = state_.law;
          result.events.push_back(record);
          result.max_delta_after_m = y[0];
          if (i == setup_.push_after_event && push_N_ == 0.0) {
            push_N_ = setup_.push_N;
            push_origin_m_ = y[0];
          }
          if (static_cast<int>(result.events.size()) == setup_.stop_after_events) {
            stop_time_s = t + setup_.extra_time_s;
          }
        }
        // After the handlers: a function is armed only while it is positive.
        evaluate_events(y, g);
        for (std::size_t i = 0; i < g.size(); ++i) armed[i] = g[i] > 0.0;
        track(result, y, energy, memoryless_energy, dissipated);
      } else {
        y = next;
        t += h;
        for (std::size_t i = 0; i < g.size(); ++i) armed[i] = g[i] > 0.0;
        track(result, y, energy, memoryless_energy, dissipated);
      }
    }
    result.absorbed_work_J = y[2];
    result.final_delta_m = y[0];
    return result;
  }

 private:
  ContactKinematics kinematics(const State& y) const {
    ContactKinematics contact = contact_at(y[0], y[1], setup_.pair_restitution, setup_.mass_kg);
    contact.impact_velocity_m_per_s = setup_.approach_velocity_m_per_s;
    return contact;
  }

  State rate(const State& y) const {
    const double force_N = law_.normal_force(kinematics(y), state_);
    return {y[1], (push_N_ - force_N) / setup_.mass_kg, force_N * y[1]};
  }

  State rk4(const State& y, double h) const {
    return contactlab::testing::rk4_step([this](const State& s) { return rate(s); }, y, h);
  }

  void evaluate_events(const State& y, std::vector<double>& g) const {
    if (g.empty()) return;
    const ContactKinematics contact = kinematics(y);
    law_.event_functions(contact, law_.normal_force(contact, state_), state_.law, g);
  }

  /// True when δ < 0 (the contact dies) or an armed event function is ≤ 0 at y; leaves g at y.
  bool fires(const State& y, const std::vector<bool>& armed, std::vector<double>& g) const {
    evaluate_events(y, g);
    bool any = y[0] < 0.0;
    for (std::size_t i = 0; i < g.size(); ++i) any = any || (armed[i] && g[i] <= 0.0);
    return any;
  }

  double push_work(const State& y) const { return push_N_ * (y[0] - push_origin_m_); }

  double energy_of(const State& y) const {
    return 0.5 * setup_.mass_kg * y[1] * y[1] + law_.stored_energy(kinematics(y), state_.law) -
           push_work(y);
  }

  double memoryless_energy_of(const State& y) const {
    return 0.5 * setup_.mass_kg * y[1] * y[1] +
           law_.potential_energy(kinematics(y), contactlab::ContactState{}) - push_work(y);
  }

  void track(ImpactRun& result, const State& y, double& energy, double& memoryless_energy,
             double& dissipated) const {
    const double e = energy_of(y);
    result.max_energy_rise_J = std::max(result.max_energy_rise_J, e - energy);
    energy = e;
    const double m = memoryless_energy_of(y);
    result.max_memoryless_energy_rise_J =
        std::max(result.max_memoryless_energy_rise_J, m - memoryless_energy);
    memoryless_energy = m;
    result.min_absorbed_work_J = std::min(result.min_absorbed_work_J, y[2]);
    const double d = y[2] - law_.stored_energy(kinematics(y), state_.law);
    result.max_dissipation_drop_J = std::max(result.max_dissipation_drop_J, dissipated - d);
    dissipated = d;
    result.max_delta_m = std::max(result.max_delta_m, y[0]);
    result.max_delta_after_m = std::max(result.max_delta_after_m, y[0]);
  }

  const BilinearForceLaw& law_;
  ImpactSetup setup_;
  int events_;
  ContactState state_;
  double push_N_ = 0.0;
  double push_origin_m_ = 0.0;
};

/// Names of the events a run recorded, in order.
std::vector<std::string> event_names(const ImpactRun& run) {
  std::vector<std::string> names;
  for (const EventRecord& record : run.events) names.push_back(record.name);
  return names;
}

/// A free impact of m = 2 kg on k₁ = 1e5 N/m at v₀, steps small against the shorter of the
/// loading and unloading half-periods.
ImpactRun free_impact(const BilinearForceLaw& law, double e, double v0) {
  ImpactSetup setup;
  setup.mass_kg = 2.0;
  setup.approach_velocity_m_per_s = v0;
  setup.pair_restitution = e;
  const double time_scale_s = std::sqrt(setup.mass_kg / law.loading_stiffness_N_per_m());
  // stronge unloads with ω₂ = ω₁/e; chatterjee with ω₂ = e·ω₁.
  setup.step_s = time_scale_s * std::min(1.0, e) / 4000.0;
  // The free flight from δ_r back to δ = 0 (stronge) lasts (1 − e²)/e time scales.
  setup.max_time_s = time_scale_s * (10.0 + 2.0 / e);
  return ImpactSimulator(law, setup).run();
}

}  // namespace

// ---- schema and parameters ----------------------------------------------------------------------

TEST_CASE(
    "bilinear: schema declares stiffness_N_per_m > 0 (1e6 N/m), restitution in [-1, 1] (-1: the "
    "pair's) and variant stronge|chatterjee (stronge)") {
  const ParameterSchema schema = BilinearForceLaw::schema();
  REQUIRE(schema.size() == 3);
  const auto& k = spec_named(schema, "stiffness_N_per_m");
  CHECK(std::get<double>(k.default_value) == 1e6);
  CHECK(k.minimum == 0.0);
  CHECK(k.minimum_exclusive);
  CHECK(k.unit == "N/m");
  const auto& e = spec_named(schema, "restitution");
  CHECK(std::get<double>(e.default_value) == -1.0);
  CHECK(e.minimum == -1.0);
  CHECK(e.maximum == 1.0);
  CHECK(e.unit.empty());
  const auto& variant = spec_named(schema, "variant");
  CHECK(variant.type == contactlab::ParameterType::choice);
  CHECK(std::get<std::string>(variant.default_value) == "stronge");
  CHECK(variant.choices == std::vector<std::string>{"stronge", "chatterjee"});
  const BilinearForceLaw law(ParameterValues::defaults(schema));
  CHECK(law.variant() == BilinearForceLaw::Variant::stronge);
  CHECK_FALSE(law.requirements().effective_radius);
  CHECK_FALSE(law.requirements().effective_modulus);
  CHECK_FALSE(law.requirements().impulsive);
}

TEST_CASE("bilinear: parameter errors name the parameter and its value") {
  const ParameterSchema schema = BilinearForceLaw::schema();
  try {
    BilinearForceLaw law(ParameterValues::defaults(schema, {{"restitution", -0.5}}));
    FAIL("restitution -0.5 was accepted");
  } catch (const contactlab::InputError& error) {
    CHECK_THAT(error.what(), Catch::Contains("params.restitution is -0.5"));
  }
  try {
    BilinearForceLaw law(ParameterValues::defaults(schema, {{"variant", std::string("newton")}}));
    FAIL("variant newton was accepted");
  } catch (const contactlab::InputError& error) {
    CHECK_THAT(error.what(), Catch::Contains("params.variant is 'newton'"));
  }
  try {
    BilinearForceLaw law(ParameterValues::defaults(schema, {{"stiffness_N_per_m", 0.0}}));
    FAIL("stiffness 0 was accepted");
  } catch (const contactlab::InputError& error) {
    CHECK_THAT(error.what(), Catch::Contains("params.stiffness_N_per_m is 0"));
  }
  // A pair restitution outside [0, 1] is refused when the law needs it (at maximum compression).
  const BilinearForceLaw law(ParameterValues::defaults(schema));
  LawMemory memory;
  law.on_birth(contact_at(0.0, 1.0, 1.5), memory);
  try {
    law.on_event(BilinearForceLaw::max_compression_event, contact_at(1e-3, 0.0, 1.5), 1e3, memory);
    FAIL("pair restitution 1.5 was accepted");
  } catch (const contactlab::SimulationError& error) {
    CHECK_THAT(error.what(), Catch::Contains("restitution is 1.5"));
  }
  // The parameter overrides the pair's.
  CHECK(make_law("stronge", 1e6, 0.3).restitution(contact_at(0.0, 0.0, 0.8)) == 0.3);
  CHECK(make_law("stronge", 1e6).restitution(contact_at(0.0, 0.0, 0.8)) == 0.8);
}

TEST_CASE("bilinear: layout, event names, and a zeroed memory is the loading line k₁·δ (exact)") {
  const BilinearForceLaw stronge = make_law("stronge", 2e5);
  const BilinearForceLaw chatterjee = make_law("chatterjee", 2e5);
  CHECK(stronge.layout().event_functions == 3);
  CHECK(stronge.layout().continuous_states == 0);
  CHECK(chatterjee.layout().event_functions == 1);
  CHECK(std::string(stronge.event_name(0)) == "max_compression");
  CHECK(std::string(stronge.event_name(1)) == "force_zero");
  CHECK(std::string(stronge.event_name(2)) == "reloading");
  CHECK(std::string(chatterjee.event_name(0)) == "max_compression");
  const ContactState provisional;  // a contact the host has not given birth to yet
  for (const BilinearForceLaw* law : {&stronge, &chatterjee}) {
    CHECK(law->normal_force(contact_at(1e-3, 0.7), provisional) == 200.0);
    CHECK(law->normal_force(contact_at(1e-3, -0.7), provisional) == 200.0);
    CHECK(law->normal_force(contact_at(0.0, 0.7), provisional) == 0.0);
    CHECK(law->potential_energy(contact_at(1e-3, 0.7), contactlab::ContactState{}) ==
          Approx(0.1).epsilon(1e-15));
    CHECK(law->stored_energy(contact_at(1e-3, 0.7), provisional.law) == Approx(0.1).epsilon(1e-15));
    LawMemory memory;
    memory.mode = 7;
    memory.data.fill(3.0);
    law->on_birth(contact_at(0.0, 1.0), memory);
    CHECK(memory.mode == BilinearForceLaw::loading);
    CHECK(memory.data == std::array<double, 8>{});
  }
}

TEST_CASE(
    "bilinear stronge: after a switch at δ_max the force is 0 / k₂(δ − δ_r) / k₁δ below δ_r, "
    "between, above δ_max (k₂ = k₁/e², 1e-12 relative), events and modes follow") {
  const double k1 = 2e5;
  const double e = 0.6;
  const double k2 = k1 / (e * e);
  const double delta_max = 2e-3;
  const double delta_r = delta_max - k1 * delta_max / k2;  // where k₂(δ − δ_r) = 0 on that line
  const BilinearForceLaw law = make_law("stronge", k1);
  ContactState state;
  law.on_birth(contact_at(0.0, 1.0, e), state.law);
  std::array<double, 3> g{};
  law.event_functions(contact_at(1e-3, 0.4, e), 200.0, state.law, g);
  CHECK(g[0] == 0.4);  // δ̇ on the loading line
  CHECK(g[1] < 0.0);   // no unloading line yet: never armed
  CHECK(g[2] < 0.0);
  law.on_event(BilinearForceLaw::max_compression_event, contact_at(delta_max, 0.0, e),
               k1 * delta_max, state.law);
  CHECK(state.law.mode == BilinearForceLaw::unloading);
  CHECK(state.law.data[BilinearForceLaw::max_compression_slot] == delta_max);
  CHECK(state.law.data[BilinearForceLaw::residual_indentation_slot] ==
        Approx(delta_r).epsilon(1e-12));
  CHECK(state.law.data[BilinearForceLaw::unloading_stiffness_slot] == Approx(k2).epsilon(1e-12));
  for (const double delta : {0.0, 0.5 * delta_r, delta_r, 0.5 * (delta_r + delta_max),
                             0.999 * delta_max, delta_max, 1.5 * delta_max}) {
    CAPTURE(delta);
    const double expected = delta <= delta_r    ? 0.0
                            : delta < delta_max ? k2 * (delta - delta_r)
                                                : k1 * delta;
    const double expected_energy =
        delta <= delta_r ? 0.0
        : delta < delta_max
            ? 0.5 * k2 * (delta - delta_r) * (delta - delta_r)
            : 0.5 * k1 * delta * delta - 0.5 * (1.0 - e * e) * k1 * delta_max * delta_max;
    for (const double rate : {-0.3, 0.3}) {
      CHECK(law.normal_force(contact_at(delta, rate, e), state) ==
            Approx(expected).epsilon(1e-12).margin(1e-9));
    }
    CHECK(law.stored_energy(contact_at(delta, 0.0, e), state.law) ==
          Approx(expected_energy).epsilon(1e-12).margin(1e-15));
  }
  // Unloading: max_compression disarmed (δ < δ_max), force_zero = the line's force, reloading
  // armed.
  const double delta = 0.5 * (delta_r + delta_max);
  law.event_functions(contact_at(delta, -0.2, e), 0.0, state.law, g);
  CHECK(g[0] < 0.0);
  CHECK(g[1] == Approx(k2 * (delta - delta_r)).epsilon(1e-12));
  CHECK(g[2] == Approx(delta_max - delta).epsilon(1e-12));
  law.event_functions(contact_at(0.5 * delta_r, -0.2, e), 0.0, state.law, g);
  CHECK(g[1] == Approx(k2 * (0.5 * delta_r - delta_r)).epsilon(1e-12));  // negative: fired
  law.on_event(BilinearForceLaw::force_zero_event, contact_at(delta_r, -0.2, e), 0.0, state.law);
  CHECK(state.law.mode == BilinearForceLaw::released);
  // Re-compression before the contact dies: the force resumes along the unloading line.
  CHECK(law.normal_force(contact_at(delta, 0.2, e), state) ==
        Approx(k2 * (delta - delta_r)).epsilon(1e-12));
  law.on_event(BilinearForceLaw::reloading_event, contact_at(delta_max, 0.2, e), k1 * delta_max,
               state.law);
  CHECK(state.law.mode == BilinearForceLaw::loading);
  law.event_functions(contact_at(1.2 * delta_max, 0.2, e), 0.0, state.law, g);
  CHECK(g[0] == 0.2);  // the next maximum compression is armed again
}

TEST_CASE(
    "bilinear stronge: e = 0 drops the force to zero at maximum compression (released at once, "
    "no force_zero)") {
  const double k1 = 1e5;
  const BilinearForceLaw law = make_law("stronge", k1, 0.0);
  ContactState state;
  law.on_birth(contact_at(0.0, 1.0), state.law);
  law.on_event(BilinearForceLaw::max_compression_event, contact_at(1e-3, 0.0), 100.0, state.law);
  CHECK(state.law.mode == BilinearForceLaw::released);
  CHECK(state.law.data[BilinearForceLaw::residual_indentation_slot] == 1e-3);
  CHECK(std::isinf(state.law.data[BilinearForceLaw::unloading_stiffness_slot]));
  CHECK(law.normal_force(contact_at(0.999e-3, -0.1), state) == 0.0);
  CHECK(law.stored_energy(contact_at(0.999e-3, -0.1), state.law) == 0.0);
  CHECK(law.normal_force(contact_at(1.001e-3, 0.1), state) == Approx(k1 * 1.001e-3));
  std::array<double, 3> g{};
  law.event_functions(contact_at(0.999e-3, -0.1), 0.0, state.law, g);
  CHECK(g[1] < 0.0);
  for (const double value : g) CHECK(std::isfinite(value));
}

TEST_CASE(
    "bilinear chatterjee: the force jumps from k₁δ_max to e²k₁δ_max at the switch and stays on "
    "k₂δ (k₂ = e²k₁, 1e-12 relative)") {
  const double k1 = 3e5;
  const double e = 0.4;
  const double k2 = e * e * k1;
  const BilinearForceLaw law = make_law("chatterjee", k1);
  ContactState state;
  law.on_birth(contact_at(0.0, 1.0, e), state.law);
  law.on_event(BilinearForceLaw::max_compression_event, contact_at(1e-3, 0.0, e), k1 * 1e-3,
               state.law);
  CHECK(state.law.mode == BilinearForceLaw::unloading);
  for (const double delta : {0.0, 2e-4, 1e-3, 3e-3}) {
    CAPTURE(delta);
    CHECK(law.normal_force(contact_at(delta, -0.3, e), state) == Approx(k2 * delta).epsilon(1e-12));
    CHECK(law.stored_energy(contact_at(delta, -0.3, e), state.law) ==
          Approx(0.5 * k2 * delta * delta).epsilon(1e-12));
    // The memoryless potential stays on the loading line.
    CHECK(law.potential_energy(contact_at(delta, -0.3, e), contactlab::ContactState{}) ==
          Approx(0.5 * k1 * delta * delta).epsilon(1e-12));
  }
  std::array<double, 1> g{};
  law.event_functions(contact_at(3e-3, 0.3, e), 0.0, state.law, g);
  CHECK(g[0] < 0.0);  // no second switch
}

// ---- 1-DOF impacts ------------------------------------------------------------------------------

TEST_CASE(
    "bilinear 1-DOF impact, both variants, e in {0.1, 0.3, 0.5, 0.7, 0.9}, v0 in {0.1, 1, 10} "
    "m/s: exit speed e·v0 and δ_max = v0·√(m/k₁) within 1e-9 relative (brief: 0.5 %), switch at "
    "|δ̇| < 1e-9·v0, energy never created") {
  const double k1 = 1e5;
  const double mass = 2.0;
  for (const std::string variant : {"stronge", "chatterjee"}) {
    const BilinearForceLaw law = make_law(variant, k1);
    for (const double e : {0.1, 0.3, 0.5, 0.7, 0.9}) {
      for (const double v0 : {0.1, 1.0, 10.0}) {
        CAPTURE(variant, e, v0);
        const ImpactRun run = free_impact(law, e, v0);
        REQUIRE(run.died);
        const double measured_e = -run.exit_rate_m_per_s / v0;
        CHECK(measured_e == Approx(e).epsilon(1e-9));
        // Events: the switch, then (stronge) the force returning to zero; nothing else.
        const std::vector<std::string> expected =
            variant == "stronge" ? std::vector<std::string>{"max_compression", "force_zero"}
                                 : std::vector<std::string>{"max_compression"};
        REQUIRE(event_names(run) == expected);
        const EventRecord& turn = run.events[0];
        const double delta_max = v0 * std::sqrt(mass / k1);  // ½mv0² = ½k₁δ_max²
        CHECK(turn.memory_after.data[BilinearForceLaw::max_compression_slot] ==
              Approx(delta_max).epsilon(1e-9));
        CHECK(std::abs(turn.rate_m_per_s) < 1e-9 * v0);
        CHECK(turn.force_before_N == Approx(k1 * delta_max).epsilon(1e-9));
        if (variant == "stronge") {
          // Continuous at the switch; the force returns to zero at δ_r = δ_max(1 − e²).
          CHECK(turn.force_after_N == Approx(turn.force_before_N).epsilon(1e-12));
          CHECK(run.events[1].delta_m == Approx(delta_max * (1 - e * e)).epsilon(1e-9));
          CHECK(std::abs(run.events[1].rate_m_per_s) == Approx(e * v0).epsilon(1e-9));
        } else {
          // Chatterjee's jump: down by the factor e².
          CHECK(turn.force_after_N == Approx(e * e * turn.force_before_N).epsilon(1e-12));
        }
        // The switch books the loss (1 − e²)·½k₁δ_max² and nothing else ever adds energy.
        CHECK(turn.stored_before_J - turn.stored_after_J ==
              Approx((1 - e * e) * 0.5 * k1 * delta_max * delta_max).epsilon(1e-9));
        const double tolerance_J = 1e-12 * run.initial_energy_J;
        CHECK(run.max_energy_rise_J <= tolerance_J);
        CHECK(run.max_memoryless_energy_rise_J <= tolerance_J);
        CHECK(run.min_absorbed_work_J >= -tolerance_J);
        CHECK(run.max_dissipation_drop_J <= tolerance_J);
        // All the energy the contact absorbed is the Stronge loss (1 − e²)·½mv0² (eq. 2.10).
        CHECK(run.absorbed_work_J == Approx((1 - e * e) * run.initial_energy_J).epsilon(1e-9));
      }
    }
  }
}

TEST_CASE(
    "bilinear stronge: pushed back in after force_zero, the contact reloads along the unloading "
    "line, returns to k₁δ at δ_max (continuous), and its second maximum matches the energy "
    "balance within 1e-6 relative, energy never created") {
  const double k1 = 1e5;
  const double mass = 2.0;
  const double e = 0.5;
  const double v0 = 1.0;
  const double delta_max = v0 * std::sqrt(mass / k1);
  const double delta_r = delta_max * (1 - e * e);
  const double push = 4.0 * k1 * delta_max;
  const BilinearForceLaw law = make_law("stronge", k1);
  ImpactSetup setup;
  setup.mass_kg = mass;
  setup.approach_velocity_m_per_s = v0;
  setup.pair_restitution = e;
  setup.step_s = std::sqrt(mass / k1) * e / 4000.0;
  setup.max_time_s = 1.0;
  setup.push_after_event = BilinearForceLaw::force_zero_event;
  setup.push_N = push;
  setup.stop_after_events = 4;
  // Stop half an unloading period after the second maximum (the lowest point of the oscillation
  // on the new unloading line, which stays above its δ_r because the push holds it in).
  setup.extra_time_s = 0.5 * std::numbers::pi * e * std::sqrt(mass / k1);
  const ImpactRun run = ImpactSimulator(law, setup).run();
  REQUIRE_FALSE(run.died);
  REQUIRE(event_names(run) == std::vector<std::string>{"max_compression", "force_zero", "reloading",
                                                       "max_compression"});
  // The outward excursion under the push, m(e·v0)²/(2F), stays inside δ_r: no death.
  CHECK(mass * e * v0 * e * v0 / (2 * push) < delta_r);
  const EventRecord& reload = run.events[2];
  CHECK(reload.delta_m == Approx(delta_max).epsilon(1e-9));
  CHECK(reload.force_after_N == Approx(reload.force_before_N).epsilon(1e-12));
  CHECK(reload.memory_after.mode == BilinearForceLaw::loading);
  // Energy from the force_zero point (kinetic ½m(e·v0)², stored 0) to the second maximum (at rest):
  // ½k₁(x² − δ_r·δ_max) − F·(x − δ_r) = ½m e²v0²  ⇒  ½k₁x² − F·x + c = 0.
  const double c = push * delta_r - 0.5 * k1 * delta_r * delta_max - 0.5 * mass * e * e * v0 * v0;
  const double second_max = (push + std::sqrt(push * push - 2 * k1 * c)) / k1;
  const EventRecord& turn = run.events[3];
  CHECK(turn.memory_after.data[BilinearForceLaw::max_compression_slot] ==
        Approx(second_max).epsilon(1e-6));
  CHECK(turn.memory_after.data[BilinearForceLaw::residual_indentation_slot] ==
        Approx(second_max * (1 - e * e)).epsilon(1e-6));
  CHECK(turn.force_after_N == Approx(turn.force_before_N).epsilon(1e-12));
  CHECK(run.max_delta_m == Approx(second_max).epsilon(1e-6));
  const double tolerance_J = 1e-12 * run.initial_energy_J;
  CHECK(run.max_energy_rise_J <= tolerance_J);
  CHECK(run.min_absorbed_work_J >= -tolerance_J);
  CHECK(run.max_dissipation_drop_J <= tolerance_J);
}

TEST_CASE(
    "bilinear chatterjee: pushed back in after the switch, the contact stays on k₂δ (no second "
    "switch) and swings to 2F/k₂ − δ_max within 1e-6 relative, energy never created") {
  const double k1 = 1e5;
  const double mass = 2.0;
  const double e = 0.5;
  const double v0 = 1.0;
  const double k2 = e * e * k1;
  const double delta_max = v0 * std::sqrt(mass / k1);
  const double push = 0.5 * k1 * delta_max;  // more than k₂δ_max: it turns inward at once
  const BilinearForceLaw law = make_law("chatterjee", k1);
  ImpactSetup setup;
  setup.mass_kg = mass;
  setup.approach_velocity_m_per_s = v0;
  setup.pair_restitution = e;
  setup.step_s = std::sqrt(mass / k1) * e / 4000.0;
  setup.push_after_event = BilinearForceLaw::max_compression_event;
  setup.push_N = push;
  // Three unloading periods 2π/ω₂ = 2π·√(m/k₂).
  setup.max_time_s = 3 * 2 * std::numbers::pi * std::sqrt(mass / k2);
  const ImpactRun run = ImpactSimulator(law, setup).run();
  REQUIRE_FALSE(run.died);
  REQUIRE(event_names(run) == std::vector<std::string>{"max_compression"});
  // Starting at rest at δ_max on the line k₂δ under the push F: oscillation about F/k₂.
  CHECK(run.max_delta_after_m == Approx(2 * push / k2 - delta_max).epsilon(1e-6));
  const double tolerance_J = 1e-12 * run.initial_energy_J;
  CHECK(run.max_energy_rise_J <= tolerance_J);
  CHECK(run.min_absorbed_work_J >= -tolerance_J);
  CHECK(run.max_dissipation_drop_J <= tolerance_J);
}
