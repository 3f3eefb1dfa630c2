// Force-law conformance: every ForceLaw a plugin library declares, created through the plugin
// registry (dlopen, as users get it), must keep the contract of force_law.hpp and
// contact_law.hpp on a grid of contacts (a steel ball on steel at impact speeds 0 to 5 m/s,
// restitutions 0 to 1, penetrations 0 to 1 mm, rates −5 to 5 m/s, two radii, moduli and masses),
// each with the memory on_birth() gave it when it was born at that impact speed:
//   - layout(): 0..4 continuous states and 0..4 event functions, constant, each event named;
//     continuous_rate() and event_functions() write exactly the declared values, all finite;
//   - activation_distance_m() finite and ≥ 0; an impulsive law's impact_restitution() is a
//     finite e ≥ 0 or no_impulse;
//   - normal_force() is finite everywhere, and zero (|f| ≤ 1e-12 N) where the contact is born:
//     at the activation distance, at rest (δ̇ = 0);
//   - it never pulls while the contact is compressed and not separating (δ > 0, δ̇ ≥ 0: f ≥ 0);
//   - potential_energy() is finite, ≥ 0 and 0 where the contact is born, and either 0 everywhere
//     (a law without a potential) or the potential of the force at rest: −dE/d(distance) = f at
//     δ̇ = 0 (central difference, 1e-6 relative);
//   - a requirements() without effective_radius means the law answers a flat pair (R* = +∞);
//   - passive: over a compression cycle δ = δ_max·sin(πt/T) (δ_max = 0.1 mm, T = 1 ms, states
//     and events driven as the host drives them) the work done on the contact ∮f dδ ≥ −1e-6 of
//     f_max·δ_max, and f stays finite and ≥ 0 while compressing;
//   - no heap allocation in the hot hooks (normal_force, potential_energy, continuous_rate,
//     event_functions, activation_distance_m, impact_restitution);
//   - deterministic: the same inputs give the same bits twice and on another instance.
// Where the documentation is silent the suite chose: the tolerances; "never pulls" only where no
// passive law pulls (force_law.hpp lets a law pull, as linear's clamp_tension: false does while
// the contact separates fast); zero force at touching only at rest (a damper's c·δ̇ jumps there);
// E as the potential of the force at rest (what makes the host's energy balance hold); passivity;
// determinism (the README promises same input, same bits); the hot hooks' freedom from allocation
// (DESIGN.md: no allocation in hot calls).
//
// Usage: contactlab-conformance-force-law [options] [LIBRARY.so ...] (see
// conformance_support.hpp); fixtures/mutant_force_laws.cpp holds the defects it must catch.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "conformance_support.hpp"
#include "contact_law_support.hpp"
#include "contactlab/force_law.hpp"

namespace {

using namespace contactlab;
using conformance::describe;
using conformance::fail;
using conformance::number;

constexpr double kZeroForce_N = 1e-12;
constexpr double kEnergyDerivativeTolerance = 1e-6;
constexpr double kPassivityTolerance = 1e-6;

/// A contact of the grid with the memory it was born with.
struct Sample {
  ContactKinematics contact;
  ContactState state;
};

/// The contact at signed distance `distance_m` from the law's activation distance and rate.
ContactKinematics at(ContactKinematics k, double activation_m, double compression_m,
                     double rate_m_per_s) {
  k.distance_m = activation_m - compression_m;
  k.penetration_m = std::max(0.0, -k.distance_m);
  k.penetration_rate_m_per_s = rate_m_per_s;
  return k;
}

std::vector<Sample> samples(const ForceLaw& law) {
  const double activation_m = law.activation_distance_m();
  std::vector<Sample> out;
  for (const double impact : {0.0, 1e-3, 0.1, 1.0, 5.0})
    for (const double restitution : {0.0, 0.3, 0.8, 1.0})
      for (const double radius : {0.01, 0.05})
        for (const double modulus : {2e9, 1.15e11})
          for (const double mass : {0.05, 2.0}) {
            ContactKinematics base = conformance::steel_contact();
            base.impact_velocity_m_per_s = impact;
            base.material.restitution = restitution;
            base.effective_radius_m = radius;
            base.effective_modulus_Pa = modulus;
            base.effective_mass_kg = mass;
            ContactState state;
            state.impact_velocity_m_per_s = impact;
            state.law = conformance::born(law, at(base, activation_m, 0.0, impact));
            for (const double compression : {0.0, 1e-9, 1e-6, 1e-5, 1e-4, 1e-3})
              for (const double rate : {-5.0, -0.5, -1e-3, 0.0, 1e-3, 0.5, 5.0})
                out.push_back({at(base, activation_m, compression, rate), state});
          }
  return out;
}

double force(const ForceLaw& law, const Sample& s) {
  const double f = law.normal_force(s.contact, s.state);
  if (!std::isfinite(f)) fail("normal_force() = " + number(f) + " at " + describe(s.contact));
  return f;
}

std::string layout_and_hooks(ForceLaw& law) {
  const ContactLawLayout layout = conformance::checked_layout(law);
  const double activation_m = law.activation_distance_m();
  if (!(std::isfinite(activation_m) && activation_m >= 0.0))
    fail("activation_distance_m() = " + number(activation_m) + " (must be finite and ≥ 0)");
  const std::vector<Sample> grid = samples(law);
  for (const Sample& s : grid)
    conformance::check_hook_outputs(law, layout, s.contact, force(law, s), s.state.law,
                                    "at " + describe(s.contact));
  return std::to_string(layout.continuous_states) + " states, " +
         std::to_string(layout.event_functions) + " events, " + std::to_string(grid.size()) +
         " contacts";
}

std::string impulses(ForceLaw& law) {
  if (!law.requirements().impulsive) return "not impulsive";
  int applied = 0;
  const std::vector<Sample> grid = samples(law);
  for (const Sample& s : grid) {
    const double e = law.impact_restitution(s.contact);
    if (e == no_impulse) continue;
    if (!(std::isfinite(e) && e >= 0.0))
      fail("impact_restitution() = " + number(e) + " at " + describe(s.contact) +
           " (must be e ≥ 0 or no_impulse)");
    ++applied;
  }
  return std::to_string(applied) + " of " + std::to_string(grid.size()) +
         " contacts get an impulse";
}

std::string zero_at_birth(ForceLaw& law) {
  const std::vector<Sample> grid = samples(law);
  int count = 0;
  for (const Sample& s : grid) {
    if (s.contact.distance_m != law.activation_distance_m() ||
        s.contact.penetration_rate_m_per_s != 0.0)
      continue;
    const double f = force(law, s);
    const double energy = law.potential_energy(s.contact, s.state);
    if (std::abs(f) > kZeroForce_N || energy != 0.0)
      fail("f = " + number(f) + " N, E = " + number(energy) +
           " J where the contact is born, at rest: " + describe(s.contact));
    ++count;
  }
  return std::to_string(count) + " contacts at the activation distance";
}

std::string never_pulls_compressing(ForceLaw& law) {
  int count = 0;
  for (const Sample& s : samples(law)) {
    const double f = force(law, s);
    if (s.contact.penetration_m > 0.0 && s.contact.penetration_rate_m_per_s >= 0.0) {
      if (f < 0.0) fail("f = " + number(f) + " N pulls at " + describe(s.contact));
      ++count;
    }
  }
  return std::to_string(count) + " compressed, non-separating contacts";
}

std::string requirements_kept(ForceLaw& law) {
  if (law.requirements().effective_radius) return "needs R* (not asked with R* = ∞)";
  int count = 0;
  for (Sample s : samples(law)) {
    s.contact.effective_radius_m = std::numeric_limits<double>::infinity();
    try {
      force(law, s);
      law.potential_energy(s.contact, s.state);
    } catch (const conformance::Failure&) {
      throw;
    } catch (const std::exception& e) {
      fail(std::string("requirements().effective_radius is false, but a flat pair (R* = ∞) "
                       "threw: ") +
           e.what());
    }
    ++count;
  }
  return std::to_string(count) + " flat contacts";
}

std::string energy_is_potential(ForceLaw& law) {
  const std::vector<Sample> grid = samples(law);
  bool any = false;
  for (const Sample& s : grid) {
    const double energy = law.potential_energy(s.contact, s.state);
    if (!(std::isfinite(energy) && energy >= 0.0))
      fail("potential_energy() = " + number(energy) + " J at " + describe(s.contact));
    any = any || energy != 0.0;
  }
  if (!any) return "no potential (E = 0 everywhere)";
  int count = 0;
  const double activation_m = law.activation_distance_m();
  for (const Sample& s : grid) {
    const double compression = activation_m - s.contact.distance_m;
    if (s.contact.penetration_rate_m_per_s != 0.0 || compression < 1e-6) continue;
    // Central difference in the signed distance (δ = −distance): −dE/d(distance) = f(δ̇ = 0).
    const double h = 1e-4 * compression;
    Sample plus = s, minus = s;
    plus.contact = at(s.contact, activation_m, compression + h, 0.0);
    minus.contact = at(s.contact, activation_m, compression - h, 0.0);
    const double slope = (law.potential_energy(plus.contact, plus.state) -
                          law.potential_energy(minus.contact, minus.state)) /
                         (2.0 * h);
    const double f = force(law, s);
    if (std::abs(slope - f) > kEnergyDerivativeTolerance * std::max(std::abs(f), 1e-9))
      fail("−dE/d(distance) = " + number(slope) + " N but f = " + number(f) +
           " N at rest: potential_energy() is not the potential of normal_force(), at " +
           describe(s.contact));
    ++count;
  }
  return std::to_string(count) + " contacts at rest";
}

std::string passive_cycle(ForceLaw& law) {
  const ContactLawLayout layout = conformance::checked_layout(law);
  const double activation_m = law.activation_distance_m();
  constexpr double depth_m = 1e-4, period_s = 1e-3;
  constexpr int steps = 20000;
  int cycles = 0;
  for (const double restitution : {0.0, 0.5, 0.9, 1.0}) {
    for (const double radius : {0.01, 0.05}) {
      ContactKinematics base = conformance::steel_contact();
      base.material.restitution = restitution;
      base.effective_radius_m = radius;
      const double w = std::numbers::pi / period_s;
      base.impact_velocity_m_per_s = depth_m * w;
      ContactState state;
      state.impact_velocity_m_per_s = base.impact_velocity_m_per_s;
      state.law = conformance::born(law, at(base, activation_m, 0.0, depth_m * w));
      conformance::DrivenContact contact;
      contact.kinematics = [&](double t) {
        ContactKinematics k =
            at(base, activation_m, depth_m * std::sin(w * t), depth_m * w * std::cos(w * t));
        k.time_s = t;
        return k;
      };
      contact.normal_force = [&](const ContactKinematics& k, const LawMemory& memory) {
        ContactState s = state;
        s.law = memory;
        return law.normal_force(k, s);
      };
      double work_J = 0.0, last_f = 0.0, last_x = 0.0, peak_N = 0.0;
      conformance::drive(
          law, layout, state.law, contact, period_s, steps,
          [&](double, const ContactKinematics& k, const LawMemory& memory) {
            const double f = contact.normal_force(k, memory);
            const double x = activation_m - k.distance_m;
            if (!std::isfinite(f) || (f < 0.0 && k.penetration_rate_m_per_s >= 0.0 && x > 0.0))
              fail("over a compression cycle f = " + number(f) + " N at " + describe(k));
            work_J += 0.5 * (f + last_f) * (x - last_x);  // trapezoid in δ
            last_f = f;
            last_x = x;
            peak_N = std::max(peak_N, std::abs(f));
          });
      if (work_J < -kPassivityTolerance * peak_N * depth_m)
        fail("a compression cycle (δ_max = 0.1 mm, 1 ms, e = " + number(restitution) +
             ", R* = " + number(radius) + " m) returns " + number(-work_J) +
             " J more than it took: the law creates energy");
      ++cycles;
    }
  }
  return std::to_string(cycles) + " cycles";
}

std::string no_allocation(ForceLaw& law) {
  if (!conformance::allocations_countable())
    return "skipped: this build cannot count allocations (sanitizer)";
  const ContactLawLayout layout = law.layout();
  const std::vector<Sample> grid = samples(law);
  std::array<double, max_law_event_functions + max_law_continuous_states> out{};
  double sum = 0.0;
  auto pass = [&](const Sample& s) {
    const double f = law.normal_force(s.contact, s.state);
    sum += f + law.potential_energy(s.contact, s.state) + law.activation_distance_m();
    law.continuous_rate(s.contact, f, s.state.law,
                        std::span<double>(out.data(), layout.continuous_states));
    law.event_functions(s.contact, f, s.state.law,
                        std::span<double>(out.data(), layout.event_functions));
    if (law.requirements().impulsive) sum += law.impact_restitution(s.contact);
  };
  for (const Sample& s : grid) {
    pass(s);  // a first call may set up what the law keeps
    conformance::begin_counting_allocations();
    pass(s);
    const long allocations = conformance::end_counting_allocations();
    if (allocations != 0)
      fail(std::to_string(allocations) + " heap allocations in one call of each hot hook at " +
           describe(s.contact));
  }
  return std::to_string(grid.size()) + " contacts (checksum " + number(sum) + ")";
}

std::string deterministic(const conformance::Factory<ForceLaw>& make) {
  const std::shared_ptr<ForceLaw> first = make(), second = make();
  const std::vector<Sample> grid = samples(*first);
  for (const Sample& s : grid) {
    const double values[] = {
        first->normal_force(s.contact, s.state), first->normal_force(s.contact, s.state),
        second->normal_force(s.contact, s.state), first->potential_energy(s.contact, s.state),
        second->potential_energy(s.contact, s.state)};
    if (std::memcmp(&values[0], &values[1], sizeof(double)) != 0 ||
        std::memcmp(&values[0], &values[2], sizeof(double)) != 0 ||
        std::memcmp(&values[3], &values[4], sizeof(double)) != 0)
      fail("f = " + number(values[0]) + ", " + number(values[1]) + " (again), " +
           number(values[2]) + " (another instance) N; E = " + number(values[3]) + ", " +
           number(values[4]) + " J at " + describe(s.contact));
  }
  return std::to_string(grid.size()) + " contacts";
}

conformance::Check<ForceLaw> on_one(std::string id, std::string name,
                                    std::string (*run)(ForceLaw&)) {
  return {std::move(id), std::move(name),
          [run](const conformance::Factory<ForceLaw>& make) { return run(*make()); }};
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<conformance::Check<ForceLaw>> checks = {
      on_one("layout", "layout within the SDK's limits; hooks write exactly the declared values",
             layout_and_hooks),
      on_one("impulse", "impact_restitution() is e ≥ 0 or no_impulse", impulses),
      on_one("zero-at-birth", "zero force and energy where the contact is born, at rest (1e-12 N)",
             zero_at_birth),
      on_one("no-pull", "finite force, never pulling while compressed and not separating",
             never_pulls_compressing),
      on_one("requirements",
             "without requirements().effective_radius a flat pair (R* = ∞) is answered",
             requirements_kept),
      on_one("potential", "potential_energy() is the potential of the force at rest (1e-6)",
             energy_is_potential),
      on_one("passive", "passive over compression cycles (1e-6 of f_max·δ_max)", passive_cycle),
      on_one("allocation", "no allocation in the hot hooks", no_allocation),
      {"determinism", "deterministic: the same bits twice and on another instance", deterministic},
  };
  return conformance::run_suite(argc, argv, checks);
}
