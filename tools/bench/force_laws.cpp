// Cost per contact-law evaluation: ns per ForceLaw::normal_force() call of every normal force law,
// and per Friction::compute() call of every friction law (Google Benchmark).
//
// Each law is an object of its algorithm class (linked statically from the *_algorithms
// libraries, built from ParameterValues::defaults(schema, overrides) like a plugin factory does)
// and is called through a `const ForceLaw*` / `const Friction*` the compiler cannot see through
// (benchmark::DoNotOptimize on the pointer), so every call is a virtual call, as in the host.
//
// Input: a stream of 1024 contact kinematics cycled by the timed loop, never a constant the
// compiler could fold. The stream is 8 impacts of a steel sphere (R* = 0.05 m, E* = 1.1e11 Pa,
// m* = 4.19 kg, pair e = 0.7, μ_k = 0.5, μ_s = 0.6) at impact speeds log-spaced from 0.05 to 3 m/s,
// 128 samples each along the Hertz half-sine δ = δ_max·sin(θ), δ̇ = v₀·cos(θ) (loading, then
// unloading), with a random tangential slip velocity (0.1 mm/s to 0.5 m/s, log-uniform, random
// direction) and a random relative angular velocity. The per-contact memory (ContactState) of each
// sample is what a host would hold at that instant: a small replay calls on_birth at each impact's
// first sample, integrates the continuous states (explicit Euler, 16 substeps per sample) and fires
// the event functions' ≤ 0 crossings through on_event — so bilinear is on its unloading branch
// after maximum compression, tangential_spring switches stick/slip, Engelson's k is the one
// on_birth stored. Friction laws get the Hertz normal force of the sample.
//
// Rows:
//   normal_force/<law>         one normal_force() call
//   normal_force+hooks/<law>   laws with continuous states or event functions: normal_force()
//                              plus event_functions() and continuous_rate() for the same sample
//                              (what the host adds per right-hand side / per step for such laws)
//   compute/<friction>         one compute() call (+hooks rows likewise)
//   normal_force/null          a law that returns δ: the loop and virtual-call overhead
//   normal_force/engelson:<calibration>_unborn  Engelson with a zeroed memory (a provisional
//                              contact evaluated inside the step that creates it): k is computed
//                              on the fly from the restitution, as on_birth() does once per contact
//
// Usage: build/bin/bench_force_laws [Google Benchmark flags], e.g.
//   build/bin/bench_force_laws --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// The reported time per iteration is ns per call.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "bilinear_force_law.hpp"
#include "coulomb_regularized.hpp"
#include "engelson_force_law.hpp"
#include "hertz_force_law.hpp"
#include "hunt_crossley_force_law.hpp"
#include "linear_force_law.hpp"
#include "lugre.hpp"
#include "modia_force_law.hpp"
#include "no_friction.hpp"
#include "restitution_impulse_law.hpp"
#include "stribeck.hpp"
#include "tangential_spring.hpp"

namespace {

using namespace contactlab;
using namespace contactlab::plugins;

using Overrides = std::map<std::string, ParameterValue>;

constexpr std::size_t kImpacts = 8;
constexpr std::size_t kPerImpact = 128;
constexpr std::size_t kSamples = kImpacts * kPerImpact;  // a power of two: index & (kSamples − 1)
constexpr int kSubsteps = 16;

// The drop of configs/force_law_impact.yaml: a steel sphere on a steel half-space.
constexpr double kRadius_m = 0.05;
constexpr double kModulus_Pa = 2.0e11 / (2.0 * (1.0 - 0.3 * 0.3));  // E* of steel on steel
constexpr double kMass_kg =
    8000.0 * 4.0 / 3.0 * std::numbers::pi * kRadius_m * kRadius_m * kRadius_m;
// The linear-spring laws get the stiffness of configs/force_law_impact.yaml: K = 1e8 1/s² per
// unit mass (Engelson), k = K·m = 4.19e8 N/m (linear, bilinear), and linear's damping for e = 0.7.
constexpr double kStiffnessPerMass_per_s2 = 1.0e8;
constexpr double kLinearStiffness_N_per_m = kStiffnessPerMass_per_s2 * kMass_kg;
constexpr double kLinearDamping_N_s_per_m = 9450.6;

PairMaterial steel_pair() {
  PairMaterial material;
  material.restitution = 0.7;
  material.friction_kinetic = 0.5;
  material.friction_static = 0.6;
  material.rolling_friction = 0.001;
  return material;
}

double hertz_force(double penetration_m) {
  return 4.0 / 3.0 * kModulus_Pa * std::sqrt(kRadius_m) * std::pow(penetration_m, 1.5);
}

struct Stream {
  std::vector<ContactKinematics> kinematics;
  std::vector<double> normal_force_N;  ///< Hertz force of each sample (input of friction laws)
  std::vector<double> time_step_s;     ///< sample spacing of each sample's impact
};

// The kinematics only; memory is replayed per law (replay()).
Stream make_stream() {
  std::mt19937_64 rng(20240601);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal;
  Stream stream;
  stream.kinematics.reserve(kSamples);
  for (std::size_t impact = 0; impact < kImpacts; ++impact) {
    // Impact speeds 0.05 … 3 m/s, log-spaced, visited in a scrambled order.
    constexpr std::array<std::size_t, kImpacts> order{3, 6, 0, 5, 2, 7, 1, 4};
    const double v0 = 0.05 * std::pow(60.0, static_cast<double>(order[impact]) / (kImpacts - 1));
    // Hertz impact: maximum penetration and duration (Johnson, Contact Mechanics §11.4).
    const double delta_max =
        std::pow(15.0 * kMass_kg * v0 * v0 / (16.0 * kModulus_Pa * std::sqrt(kRadius_m)), 0.4);
    const double duration_s = 2.94 * delta_max / v0;
    const double dt = duration_s / kPerImpact;
    for (std::size_t i = 0; i < kPerImpact; ++i) {
      const double theta = std::numbers::pi * (static_cast<double>(i) + 0.5) / kPerImpact;
      ContactKinematics k;
      k.time_s = static_cast<double>(impact) * 1e-3 + static_cast<double>(i) * dt;
      k.penetration_m = delta_max * std::sin(theta);
      k.distance_m = -k.penetration_m;
      k.penetration_rate_m_per_s = v0 * std::cos(theta);
      k.impact_velocity_m_per_s = v0;
      k.effective_radius_m = kRadius_m;
      k.effective_modulus_Pa = kModulus_Pa;
      k.effective_mass_kg = kMass_kg;
      k.normal_W = Vec3::UnitZ();
      k.point_W = Vec3(0.0, 0.0, -0.5 * k.penetration_m);
      const double slip = 1e-4 * std::pow(5000.0, unit(rng));
      const double angle = 2.0 * std::numbers::pi * unit(rng);
      k.slip_velocity_W = Vec3(slip * std::cos(angle), slip * std::sin(angle), 0.0);
      k.relative_angular_velocity_W = Vec3(normal(rng), normal(rng), 0.2 * normal(rng));
      k.material = steel_pair();
      stream.kinematics.push_back(k);
      stream.normal_force_N.push_back(hertz_force(k.penetration_m));
      stream.time_step_s.push_back(dt);
    }
  }
  return stream;
}

const Stream& stream() {
  static const Stream s = make_stream();
  return s;
}

// The memory a host would hold at each sample for `law` (a ForceLaw's state.law or a Friction's
// state.friction), with `force(i, memory)` the normal force the host would pass to the hooks.
template <class Force>
std::vector<ContactState> replay(const ContactLaw& law, bool friction, Force force) {
  const Stream& s = stream();
  const ContactLawLayout layout = law.layout();
  std::vector<ContactState> states(kSamples);
  ContactState state;
  std::array<double, max_law_event_functions> g_before{}, g_now{};
  std::array<double, max_law_continuous_states> rate{};
  for (std::size_t i = 0; i < kSamples; ++i) {
    const ContactKinematics& k = s.kinematics[i];
    LawMemory& memory = friction ? state.friction : state.law;
    if (i % kPerImpact == 0) {
      state = ContactState{};
      state.birth_time_s = k.time_s;
      state.impact_velocity_m_per_s = k.impact_velocity_m_per_s;
      law.on_birth(k, memory);
      law.event_functions(k, force(i, state), memory,
                          std::span<double>(g_before.data(), layout.event_functions));
    }
    // Events between the previous sample and this one, fired at this sample.
    law.event_functions(k, force(i, state), memory,
                        std::span<double>(g_now.data(), layout.event_functions));
    for (int e = 0; e < layout.event_functions; ++e) {
      if (g_before[e] > 0.0 && g_now[e] <= 0.0) {
        law.on_event(e, k, force(i, state), memory);
        law.event_functions(k, force(i, state), memory,
                            std::span<double>(g_now.data(), layout.event_functions));
      }
    }
    g_before = g_now;
    states[i] = state;
    // Continuous states to the next sample, the kinematics held.
    const double h = s.time_step_s[i] / kSubsteps;
    for (int step = 0; step < kSubsteps && layout.continuous_states > 0; ++step) {
      law.continuous_rate(k, force(i, state), memory,
                          std::span<double>(rate.data(), layout.continuous_states));
      for (int x = 0; x < layout.continuous_states; ++x) memory.x[x] += h * rate[x];
    }
  }
  return states;
}

std::vector<ContactState> replay_force_law(const ForceLaw& law) {
  const Stream& s = stream();
  return replay(law, false, [&](std::size_t i, const ContactState& state) {
    return law.normal_force(s.kinematics[i], state);
  });
}

std::vector<ContactState> replay_friction(const Friction& friction) {
  const Stream& s = stream();
  return replay(friction, true,
                [&](std::size_t i, const ContactState&) { return s.normal_force_N[i]; });
}

// A law that returns δ: the cost of the loop, the stream and the virtual call.
class NullForceLaw final : public ForceLaw {
 public:
  ForceLawRequirements requirements() const override { return {}; }
  double normal_force(const ContactKinematics& contact, const ContactState&) const override {
    return contact.penetration_m;
  }
  double potential_energy(const ContactKinematics&, const ContactState&) const override {
    return 0.0;
  }
};

void bench_normal_force(benchmark::State& bench, std::shared_ptr<const ForceLaw> owned, bool unborn,
                        bool hooks) {
  const Stream& s = stream();
  std::vector<ContactState> states =
      unborn ? std::vector<ContactState>(kSamples) : replay_force_law(*owned);
  const ForceLaw* law = owned.get();
  benchmark::DoNotOptimize(law);  // the dynamic type is unknown to the compiler: virtual calls
  const ContactLawLayout layout = law->layout();
  std::array<double, max_law_event_functions> g{};
  std::array<double, max_law_continuous_states> rate{};
  std::size_t i = 0;
  for (auto _ : bench) {
    const double f = law->normal_force(s.kinematics[i], states[i]);
    benchmark::DoNotOptimize(f);
    if (hooks) {
      law->event_functions(s.kinematics[i], f, states[i].law,
                           std::span<double>(g.data(), layout.event_functions));
      law->continuous_rate(s.kinematics[i], f, states[i].law,
                           std::span<double>(rate.data(), layout.continuous_states));
      benchmark::DoNotOptimize(g);
      benchmark::DoNotOptimize(rate);
    }
    i = (i + 1) & (kSamples - 1);
  }
  bench.SetItemsProcessed(bench.iterations());
}

void bench_friction(benchmark::State& bench, std::shared_ptr<const Friction> owned, bool hooks) {
  const Stream& s = stream();
  std::vector<ContactState> states = replay_friction(*owned);
  const Friction* friction = owned.get();
  benchmark::DoNotOptimize(friction);
  const ContactLawLayout layout = friction->layout();
  std::array<double, max_law_event_functions> g{};
  std::array<double, max_law_continuous_states> rate{};
  std::size_t i = 0;
  for (auto _ : bench) {
    const FrictionResult r = friction->compute(s.kinematics[i], s.normal_force_N[i], states[i]);
    benchmark::DoNotOptimize(r);
    if (hooks) {
      friction->event_functions(s.kinematics[i], s.normal_force_N[i], states[i].friction,
                                std::span<double>(g.data(), layout.event_functions));
      friction->continuous_rate(s.kinematics[i], s.normal_force_N[i], states[i].friction,
                                std::span<double>(rate.data(), layout.continuous_states));
      benchmark::DoNotOptimize(g);
      benchmark::DoNotOptimize(rate);
    }
    i = (i + 1) & (kSamples - 1);
  }
  bench.SetItemsProcessed(bench.iterations());
}

template <class Law>
std::shared_ptr<const Law> make(const Overrides& overrides = {}) {
  return std::make_shared<const Law>(ParameterValues::defaults(Law::schema(), overrides));
}

bool has_hooks(const ContactLaw& law) {
  const ContactLawLayout layout = law.layout();
  return layout.continuous_states > 0 || layout.event_functions > 0;
}

void add_force_law(const std::string& name, std::shared_ptr<const ForceLaw> law,
                   bool unborn = false) {
  benchmark::RegisterBenchmark(("normal_force/" + name).c_str(), bench_normal_force, law, unborn,
                               false);
  if (has_hooks(*law) && !unborn)
    benchmark::RegisterBenchmark(("normal_force+hooks/" + name).c_str(), bench_normal_force, law,
                                 false, true);
}

void add_friction(const std::string& name, std::shared_ptr<const Friction> friction) {
  benchmark::RegisterBenchmark(("compute/" + name).c_str(), bench_friction, friction, false);
  if (has_hooks(*friction))
    benchmark::RegisterBenchmark(("compute+hooks/" + name).c_str(), bench_friction, friction, true);
}

void register_all() {
  using S = std::string;
  add_force_law("null", std::make_shared<const NullForceLaw>());
  add_force_law("hertz", make<HertzForceLaw>());
  add_force_law("linear", make<LinearForceLaw>({{"stiffness_N_per_m", kLinearStiffness_N_per_m},
                                                {"damping_N_s_per_m", kLinearDamping_N_s_per_m}}));
  for (const char* model : {"hunt_crossley", "lankarani_nikravesh", "flores", "gonthier"})
    add_force_law(S("hunt_crossley:") + model,
                  make<HuntCrossleyForceLaw>({{"damping_model", S(model)}}));
  for (const char* calibration : {"exact", "fraction", "cubic"}) {
    const auto law =
        make<EngelsonForceLaw>({{"k_from_restitution", S(calibration)},
                                {"stiffness_per_mass_per_s2", kStiffnessPerMass_per_s2}});
    add_force_law(S("engelson:") + calibration, law);
    add_force_law(S("engelson:") + calibration + "_unborn", law, true);
  }
  add_force_law("modia", make<ModiaForceLaw>());
  for (const char* variant : {"stronge", "chatterjee"})
    add_force_law(S("bilinear:") + variant,
                  make<BilinearForceLaw>(
                      {{"variant", S(variant)}, {"stiffness_N_per_m", kLinearStiffness_N_per_m}}));
  add_force_law("restitution_impulse", make<RestitutionImpulseLaw>());

  add_friction("none", make<NoFriction>());
  add_friction("coulomb_regularized", make<CoulombRegularized>());
  add_friction("coulomb_regularized:rolling",
               make<CoulombRegularized>({{"rolling_resistance", true}}));
  add_friction("stribeck", make<Stribeck>());
  add_friction("lugre", make<LuGre>());
  add_friction("tangential_spring", make<TangentialSpring>());
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
