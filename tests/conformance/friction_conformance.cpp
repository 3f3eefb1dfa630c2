// Friction conformance: every Friction law a plugin library declares, created through the plugin
// registry (dlopen, as users get it), must keep the contract of friction.hpp, contact.hpp
// (FrictionResult) and contact_law.hpp on a grid of contacts (normals in several directions,
// slip speeds 0 to 3 m/s, relative angular velocities 0 to 10 rad/s, normal forces 0 to 1 kN,
// frictionless, Coulomb and static > kinetic materials, with and without rolling friction), each
// with the memory on_birth() gave it when it was born with that slip:
//   - layout(): 0..4 continuous states and 0..4 event functions, constant, each event named;
//     continuous_rate() and event_functions() write exactly the declared values, all finite;
//   - compute() is finite, and its force tangential: |f·n| ≤ 1e-9·|f| + 1e-12 N;
//   - zero at zero normal force: |f|, |τ| ≤ 1e-12 (N, N·m);
//   - at a newly born contact the force opposes the slip (f·v ≤ 0) and the torque the relative
//     rotation (τ·ω ≤ 0): friction dissipates;
//   - a law without continuous states stays within the Coulomb cone at every contact:
//     |f| ≤ max(μ_s, μ_k)·N (1e-9 relative);
//   - steady sliding: at a constant slip velocity (0.001 to 1 m/s) and normal force, the law's
//     states and events driven as the host drives them for 50 ms, the force at the end opposes
//     the slip and lies within the cone, |f| ≤ max(μ_s, μ_k)·N (1e-6 relative), and stays
//     tangential and finite on the way;
//   - no heap allocation in the hot hooks (compute, continuous_rate, event_functions);
//   - deterministic: the same inputs give the same bits twice and on another instance.
// Where the documentation is silent the suite chose: the tolerances; zero friction at zero normal
// force (a viscous term independent of N, such as stribeck's viscous_N_s_per_m > 0, would fail it;
// the suite runs real parameters at their defaults); dissipation at a fresh contact (a law with
// memory may push along the slip later, as a released spring does); the Coulomb bound for
// memoryless laws everywhere and for every law in steady sliding (bristle and spring laws may
// exceed it in transients); determinism; the hot hooks' freedom from allocation.
//
// Usage: contactlab-conformance-friction [options] [LIBRARY.so ...] (see
// conformance_support.hpp); fixtures/mutant_friction_laws.cpp holds the defects it must catch.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "conformance_support.hpp"
#include "contact_law_support.hpp"
#include "contactlab/friction.hpp"

namespace {

using namespace contactlab;
using conformance::describe;
using conformance::fail;
using conformance::number;
using conformance::vector_text;

constexpr double kTangentialTolerance = 1e-9;
constexpr double kZero = 1e-12;
constexpr double kConeTolerance = 1e-9;
constexpr double kSteadyConeTolerance = 1e-6;

struct Sample {
  ContactKinematics contact;
  double normal_force_N = 0.0;
  ContactState state;
};

struct Material {
  double kinetic, static_, rolling;
};

constexpr Material materials[] = {{0.0, 0.0, 0.0}, {0.3, 0.3, 0.0}, {0.3, 0.5, 0.01}};

/// A unit normal and a unit tangent of it, for the grid's normal directions.
void frame(int index, Vec3& n, Vec3& t1, Vec3& t2) {
  const Vec3 normals[] = {Vec3::UnitZ(), Vec3(0.3, -0.5, 0.81).normalized(), -Vec3::UnitX()};
  n = normals[index];
  complete_basis(n, t1, t2);
}

std::vector<Sample> samples(const Friction& law) {
  std::vector<Sample> out;
  for (int direction = 0; direction < 3; ++direction) {
    Vec3 n, t1, t2;
    frame(direction, n, t1, t2);
    for (const Material& m : materials)
      for (const double speed : {0.0, 1e-4, 1e-2, 0.3, 3.0})
        for (const double spin : {0.0, 0.1, 10.0})
          for (const double normal_force : {0.0, 1e-3, 1.0, 1e3}) {
            ContactKinematics k = conformance::steel_contact();
            k.normal_W = n;
            k.distance_m = -1e-5;
            k.penetration_m = 1e-5;
            k.material.friction_kinetic = m.kinetic;
            k.material.friction_static = m.static_;
            k.material.rolling_friction = m.rolling;
            k.slip_velocity_W = speed * (0.6 * t1 + 0.8 * t2);
            k.relative_angular_velocity_W = spin * Vec3(0.2, 0.9, -0.4).normalized();
            ContactState state;
            state.friction = conformance::born(law, k);
            out.push_back({k, normal_force, state});
          }
  }
  return out;
}

FrictionResult friction(const Friction& law, const ContactKinematics& k, double normal_force_N,
                        const ContactState& state) {
  const FrictionResult r = law.compute(k, normal_force_N, state);
  if (!r.force_W.allFinite() || !r.torque_W.allFinite())
    fail("compute() = force " + vector_text(r.force_W) + " N, torque " + vector_text(r.torque_W) +
         " N·m at N = " + number(normal_force_N) + " N, " + describe(k));
  const double normal_part = std::abs(r.force_W.dot(k.normal_W));
  if (normal_part > kTangentialTolerance * r.force_W.norm() + kZero)
    fail("the force " + vector_text(r.force_W) + " N has a normal part " + number(normal_part) +
         " N at N = " + number(normal_force_N) + " N, " + describe(k));
  return r;
}

std::string layout_and_hooks(Friction& law) {
  const ContactLawLayout layout = conformance::checked_layout(law);
  const std::vector<Sample> grid = samples(law);
  for (const Sample& s : grid)
    conformance::check_hook_outputs(
        law, layout, s.contact, s.normal_force_N, s.state.friction,
        "at N = " + number(s.normal_force_N) + " N, " + describe(s.contact));
  return std::to_string(layout.continuous_states) + " states, " +
         std::to_string(layout.event_functions) + " events, " + std::to_string(grid.size()) +
         " contacts";
}

std::string tangential(Friction& law) {
  const std::vector<Sample> grid = samples(law);
  for (const Sample& s : grid) friction(law, s.contact, s.normal_force_N, s.state);
  return std::to_string(grid.size()) + " contacts";
}

std::string zero_without_load(Friction& law) {
  int count = 0;
  for (const Sample& s : samples(law)) {
    if (s.normal_force_N != 0.0) continue;
    const FrictionResult r = friction(law, s.contact, 0.0, s.state);
    if (r.force_W.norm() > kZero || r.torque_W.norm() > kZero)
      fail("force " + vector_text(r.force_W) + " N, torque " + vector_text(r.torque_W) +
           " N·m at zero normal force, " + describe(s.contact));
    ++count;
  }
  return std::to_string(count) + " contacts";
}

std::string dissipative_at_birth(Friction& law) {
  int count = 0;
  for (const Sample& s : samples(law)) {
    const FrictionResult r = friction(law, s.contact, s.normal_force_N, s.state);
    const double power_W = r.force_W.dot(s.contact.slip_velocity_W);
    const double spin_power_W = r.torque_W.dot(s.contact.relative_angular_velocity_W);
    if (power_W > kZero || spin_power_W > kZero)
      fail("force " + vector_text(r.force_W) + " N and torque " + vector_text(r.torque_W) +
           " N·m deliver " + number(power_W) + " W and " + number(spin_power_W) +
           " W (they must oppose slip and rotation) at N = " + number(s.normal_force_N) + " N, " +
           describe(s.contact));
    ++count;
  }
  return std::to_string(count) + " contacts";
}

double cone_N(const ContactKinematics& k, double normal_force_N) {
  return std::max(k.material.friction_static, k.material.friction_kinetic) * normal_force_N;
}

std::string within_cone(Friction& law) {
  if (law.layout().continuous_states > 0) return "has continuous states (see steady sliding)";
  int count = 0;
  for (const Sample& s : samples(law)) {
    const FrictionResult r = friction(law, s.contact, s.normal_force_N, s.state);
    const double cone = cone_N(s.contact, s.normal_force_N);
    if (r.force_W.norm() > cone * (1.0 + kConeTolerance) + kZero)
      fail("|f| = " + number(r.force_W.norm()) + " N exceeds max(μ_s, μ_k)·N = " + number(cone) +
           " N at N = " + number(s.normal_force_N) + " N, " + describe(s.contact));
    ++count;
  }
  return std::to_string(count) + " contacts";
}

std::string steady_sliding(Friction& law) {
  const ContactLawLayout layout = conformance::checked_layout(law);
  int runs = 0;
  for (int direction = 0; direction < 2; ++direction) {
    Vec3 n, t1, t2;
    frame(direction, n, t1, t2);
    for (const Material& m : materials)
      for (const double speed : {1e-3, 0.05, 1.0})
        for (const double normal_force_N : {1.0, 100.0}) {
          ContactKinematics k = conformance::steel_contact();
          k.normal_W = n;
          k.distance_m = -1e-5;
          k.penetration_m = 1e-5;
          k.material.friction_kinetic = m.kinetic;
          k.material.friction_static = m.static_;
          k.material.rolling_friction = m.rolling;
          k.slip_velocity_W = speed * (0.8 * t1 - 0.6 * t2);
          ContactState state;
          state.friction = conformance::born(law, k);
          conformance::DrivenContact contact;
          contact.kinematics = [&](double t) {
            ContactKinematics at = k;
            at.time_s = t;
            return at;
          };
          contact.normal_force = [&](const ContactKinematics&, const LawMemory&) {
            return normal_force_N;
          };
          conformance::drive(law, layout, state.friction, contact, 0.05, 5000,
                             [&](double, const ContactKinematics& at, const LawMemory& memory) {
                               ContactState now = state;
                               now.friction = memory;
                               friction(law, at, normal_force_N, now);
                             });
          const FrictionResult r = friction(law, k, normal_force_N, state);
          const double cone = cone_N(k, normal_force_N);
          if (r.force_W.norm() > cone * (1.0 + kSteadyConeTolerance) + kZero ||
              r.force_W.dot(k.slip_velocity_W) > kZero)
            fail("after 50 ms of steady sliding the force is " + vector_text(r.force_W) +
                 " N (|f| = " + number(r.force_W.norm()) + " N, max(μ_s, μ_k)·N = " + number(cone) +
                 " N; it must oppose the slip within the cone) at N = " + number(normal_force_N) +
                 " N, " + describe(k));
          ++runs;
        }
  }
  return std::to_string(runs) + " slides";
}

std::string no_allocation(Friction& law) {
  if (!conformance::allocations_countable())
    return "skipped: this build cannot count allocations (sanitizer)";
  const ContactLawLayout layout = law.layout();
  const std::vector<Sample> grid = samples(law);
  std::array<double, max_law_event_functions + max_law_continuous_states> out{};
  Vec3 sum = Vec3::Zero();
  auto pass = [&](const Sample& s) {
    sum += law.compute(s.contact, s.normal_force_N, s.state).force_W;
    law.continuous_rate(s.contact, s.normal_force_N, s.state.friction,
                        std::span<double>(out.data(), layout.continuous_states));
    law.event_functions(s.contact, s.normal_force_N, s.state.friction,
                        std::span<double>(out.data(), layout.event_functions));
  };
  for (const Sample& s : grid) {
    pass(s);
    conformance::begin_counting_allocations();
    pass(s);
    const long allocations = conformance::end_counting_allocations();
    if (allocations != 0)
      fail(std::to_string(allocations) + " heap allocations in one call of each hot hook at N = " +
           number(s.normal_force_N) + " N, " + describe(s.contact));
  }
  return std::to_string(grid.size()) + " contacts (checksum " + vector_text(sum) + ")";
}

std::string deterministic(const conformance::Factory<Friction>& make) {
  const std::shared_ptr<Friction> first = make(), second = make();
  const std::vector<Sample> grid = samples(*first);
  for (const Sample& s : grid) {
    const FrictionResult a = first->compute(s.contact, s.normal_force_N, s.state);
    const FrictionResult b = first->compute(s.contact, s.normal_force_N, s.state);
    const FrictionResult c = second->compute(s.contact, s.normal_force_N, s.state);
    auto same = [](const FrictionResult& x, const FrictionResult& y) {
      return std::memcmp(x.force_W.data(), y.force_W.data(), 3 * sizeof(double)) == 0 &&
             std::memcmp(x.torque_W.data(), y.torque_W.data(), 3 * sizeof(double)) == 0;
    };
    if (!same(a, b) || !same(a, c))
      fail("force " + vector_text(a.force_W) + ", " + vector_text(b.force_W) + " (again), " +
           vector_text(c.force_W) + " (another instance) N at N = " + number(s.normal_force_N) +
           " N, " + describe(s.contact));
  }
  return std::to_string(grid.size()) + " contacts";
}

conformance::Check<Friction> on_one(std::string id, std::string name,
                                    std::string (*run)(Friction&)) {
  return {std::move(id), std::move(name),
          [run](const conformance::Factory<Friction>& make) { return run(*make()); }};
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<conformance::Check<Friction>> checks = {
      on_one("layout", "layout within the SDK's limits; hooks write exactly the declared values",
             layout_and_hooks),
      on_one("tangential", "finite, tangential force (1e-9)", tangential),
      on_one("zero-load", "zero force and torque at zero normal force (1e-12)", zero_without_load),
      on_one("dissipative", "at a new contact the force opposes slip, the torque rotation",
             dissipative_at_birth),
      on_one("cone", "without continuous states, within the Coulomb cone max(μ_s, μ_k)·N (1e-9)",
             within_cone),
      on_one("steady-sliding", "steady sliding: opposes the slip within the Coulomb cone (1e-6)",
             steady_sliding),
      on_one("allocation", "no allocation in the hot hooks", no_allocation),
      {"determinism", "deterministic: the same bits twice and on another instance", deterministic},
  };
  return conformance::run_suite(argc, argv, checks);
}
