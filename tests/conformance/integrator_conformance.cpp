// Integrator conformance: every Integrator a plugin library declares, created through the plugin
// registry (dlopen, as users get it), must keep the contract of integrator.hpp on small ODEs
// whose solutions are known, driven through an OdeView as the host drives it (y = [q; v],
// q̇ = v). The OdeView also offers a MechanicsView (mechanics.hpp, mechanics_fixture.hpp: the
// host's side of a time step for these problems — the free acceleration, M⁻¹ = I, no contact), so
// that the time-stepping integrators (needs_mechanics_view) are driven through the same checks:
//   - it reaches t_end: status completed, time_reached_s = t_end, the last step_completed() and
//     the last output() at t_end;
//   - outputs at every k·Δ in (t_start, t_end] and at t_end, in increasing order, none twice
//     (times within 1e-12 s), and steps in increasing order within (t_start, t_end];
//   - exact on uniform motion (v̇ = 0), which every consistent method solves exactly: every
//     output and every step's state within 1e-9 of the solution;
//   - a harmonic oscillator (q̈ = −q, one period of 2π s) within 1e-3 at every output with the
//     plugin's default accuracy: the method integrates the ODE it is given;
//   - with root_finding: each event located, the first step_completed() at or past an event
//     function's crossing ends within 1e-6 s after it with the function ≤ 0 (past the crossing)
//     and none ends beyond it before; after the first event the host adds a second event
//     function, which must be located as well;
//   - honours a stop request: status interrupted at the requested step's time, no step or
//     output after it, y the state at that time;
//   - with state_reset: a restart request returns restart_requested at that step's time with y
//     its state; integrating again from there with a velocity the host reversed ends at the
//     piecewise solution (1e-9), with the output grid kept (k·Δ, absolute);
//   - deterministic: the same run twice, and on another instance, gives the same bits (with
//     needs_mechanics_view, the contact run below too, impulses included);
//   - with needs_mechanics_view, rigid contact: a point of 2 kg thrown at a plane (z = 0, e = 0,
//     μ_s = 0.5, μ_k = 0.4) under gravity, the contact set one point with distance q_z
//     (mechanics_fixture.hpp). Every step is prepared (prepare_step) and every prepared step
//     with a point reports its impulses (report_contact_solution, with the prepared step_s, 3
//     per point); r_N ≥ 0 (1e-12 N·s) and |r_T| ≤ μ_s·r_N; the distance never below −1e-4 m;
//     the slide never faster than in the step before (1e-9 m/s: friction only slows); from
//     0.25 s (the impact is at 0.063 s) at rest on the plane: |q_z| ≤ 1e-4 m, |v_z| ≤ 1e-6 m/s,
//     q_z still within 1e-7 m of its value at 0.25 s, and each step's Σr_N = m·g·h within 1e-4
//     (the plane carries the weight);
//   - with needs_mechanics_view, the step's local problem when the host wants it
//     (contact_problem_wanted): one report_contact_problem() per prepared step with a point, of
//     that one point, with W = J·M⁻¹·Jᵀ = I/m (1e-12), μ one of 0, μ_s, μ_k and q_T the free
//     tangential velocity J_T·(v + h·a_free) (1e-12); and asking for it leaves the run's bits
//     unchanged (it is output, no side effect).
// Where the documentation is silent the suite chose: the tolerances; uniform motion as the
// problem solved exactly; the harmonic oscillator's accuracy at default parameters, the same for
// every integrator (a first-order time stepper passes at its default step: semi-implicit Euler's
// error over the period is about h/2, 5e-4 at pgs's, ncp_newton's and bilateral_newton's
// h = 1e-3 s, so the suite runs them as they are configured, without a smaller step); determinism
// (the README promises same input, same bits); for contact, the penetration allowed (1e-4 m, ten
// times pgs's default penetration slop), the settling time, the rest tolerances, that the
// free velocity of the local problem is v + h·a_free (semi-implicit Euler's, the tangential part
// only, where no scheme's gap terms enter), and that one step reports one solution (the host
// counts a solve per report). Integrators without needs_mechanics_view skip the contact checks
// (their contact is a force law's, not theirs); the time-stepping integrators declare neither
// root_finding nor state_reset and skip the events and restart checks as any other would.
//
// Usage: contactlab-conformance-integrator [options] [LIBRARY.so ...] (see
// conformance_support.hpp); fixtures/mutant_integrators.cpp holds the defects it must catch.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "conformance_support.hpp"
#include "contactlab/integrator.hpp"
#include "contactlab/mechanics.hpp"
#include "mechanics_fixture.hpp"

namespace {

using namespace contactlab;
using conformance::fail;
using conformance::number;

constexpr double kTimeTolerance_s = 1e-12;
constexpr double kExactTolerance = 1e-9;
constexpr double kOscillatorTolerance = 1e-3;
constexpr double kEventTolerance_s = 1e-6;

enum class Problem { uniform, oscillator };

constexpr double kSecondOffset = 0.37;  // the second event function is q₁ + 0.37

/// The test ODE: two coordinates, q̇ = v; uniform motion (v̇ = 0) from q = (0, 1.1), v = (1, −2)
/// at t = 0, or the oscillator q̈ = −q from q = (1, 0), v = (0, 1). Events (armed while > 0): q₁
/// (crosses at t = 0.55 in uniform motion), then, once that has fired, also q₁ + 0.37 (t =
/// 0.735); neither crossing is an output time, where a fixed step would land on it by chance.
/// Its MechanicsView has the same free acceleration, M = I and no contact.
class TestOde final : public OdeView {
 public:
  explicit TestOde(Problem problem)
      : problem_(problem),
        mechanics_(
            2, 1.0,
            [problem](double, std::span<const double> q, std::span<const double>,
                      std::span<double> a) {
              for (int i = 0; i < 2; ++i) a[i] = problem == Problem::uniform ? 0.0 : -q[i];
            },
            false) {}

  /// The solution at t; `reversed_at` ≥ 0: v₁ reversed at that time (uniform motion only).
  std::array<double, 4> exact(double t) const {
    if (problem_ == Problem::oscillator)
      return {std::cos(t), std::sin(t), -std::sin(t), std::cos(t)};
    if (reversed_at_ < 0.0 || t <= reversed_at_) return {t, 1.1 - 2.0 * t, 1.0, -2.0};
    const double q1 = 1.1 - 2.0 * reversed_at_;
    return {t, q1 + 2.0 * (t - reversed_at_), 1.0, 2.0};
  }

  bool events_on = false;
  double stop_at_s = -1.0;  ///< step_completed returns stop at the first step at or after it
  bool restart_at_event = false;

  struct Record {
    double t;
    std::array<double, 4> y;
  };
  std::vector<Record> steps, outputs;
  int events_fired = 0;
  double first_event_s = -1.0, second_event_s = -1.0;
  bool called_after_stop = false;

  /// The host's side of a restart: v₁ reversed at t (the suite then integrates again).
  void reverse(double t, std::span<double> y) {
    y[3] = -y[3];
    reversed_at_ = t;
  }

  std::size_t configuration_size() const override { return 2; }
  std::size_t velocity_size() const override { return 2; }
  std::size_t state_size() const override { return 4; }
  std::size_t event_count() const override { return events_on ? (events_fired > 0 ? 2 : 1) : 0; }
  void event_values(double, std::span<const double> y, std::span<double> g) override {
    if (g.size() != event_count())
      fail("event_values() got " + std::to_string(g.size()) + " values for " +
           std::to_string(event_count()) + " event functions");
    if (!g.empty()) g[0] = y[1];
    if (g.size() > 1) g[1] = y[1] + kSecondOffset;
  }
  void derivative(double, std::span<const double> y, std::span<double> rate) override {
    rate[0] = y[2];
    rate[1] = y[3];
    rate[2] = problem_ == Problem::uniform ? 0.0 : -y[0];
    rate[3] = problem_ == Problem::uniform ? 0.0 : -y[1];
  }
  void integrate_configuration(std::span<const double> q, std::span<const double> v, double dt,
                               std::span<double> q_out) override {
    for (int i = 0; i < 2; ++i) q_out[i] = q[i] + v[i] * dt;
  }
  void project(std::span<double>) override {}
  StepAction step_completed(double t, std::span<const double> y) override {
    if (stopped_) called_after_stop = true;
    steps.push_back({t, {y[0], y[1], y[2], y[3]}});
    if (events_on) {
      // The host's bookkeeping: a function fires when it has become ≤ 0.
      if (events_fired == 0 && y[1] <= 0.0) {
        events_fired = 1;
        first_event_s = t;
        if (restart_at_event) return StepAction::restart;
      } else if (events_fired == 1 && y[1] + kSecondOffset <= 0.0 && reversed_at_ < 0.0) {
        events_fired = 2;
        second_event_s = t;
      }
    }
    if (stop_at_s >= 0.0 && t >= stop_at_s) {
      stopped_ = true;
      return StepAction::stop;
    }
    return StepAction::proceed;
  }
  void output(double t, std::span<const double> y) override {
    if (stopped_) called_after_stop = true;
    outputs.push_back({t, {y[0], y[1], y[2], y[3]}});
  }
  MechanicsView* mechanics() override { return &mechanics_; }

 private:
  Problem problem_;
  conformance::TestMechanics mechanics_;
  double reversed_at_ = -1.0;
  bool stopped_ = false;
};

constexpr double kStart_s = 0.25, kEnd_s = 1.0, kInterval_s = 0.1;

IntegrationResult run(Integrator& integrator, TestOde& ode, std::vector<double>& y, double t0,
                      double t1) {
  return integrator.integrate(ode, t0, t1, kInterval_s, y);
}

/// y(t0) of the problem (the initial values are those at t = 0; the solution is shifted).
std::vector<double> start_state(const TestOde& ode, double t0) {
  const auto y = ode.exact(t0);
  return {y[0], y[1], y[2], y[3]};
}

std::string state_text(const std::array<double, 4>& y) {
  char text[128];
  std::snprintf(text, sizeof text, "(%.17g, %.17g, %.17g, %.17g)", y[0], y[1], y[2], y[3]);
  return text;
}

void expect_state(const TestOde& ode, double t, const std::array<double, 4>& y, double tolerance,
                  const std::string& what) {
  const auto expected = ode.exact(t);
  for (int i = 0; i < 4; ++i)
    if (!(std::abs(y[i] - expected[i]) <= tolerance))
      fail(what + " at t = " + number(t) + " s: y = " + state_text(y) + ", exact " +
           state_text(expected) + " (tolerance " + number(tolerance) + ")");
}

/// The output times the contract asks for: k·Δ in (t0, t1], and t1.
std::vector<double> grid(double t0, double t1) {
  std::vector<double> times;
  for (long k = static_cast<long>(std::floor(t0 / kInterval_s)) + 1;
       k * kInterval_s < t1 - kTimeTolerance_s; ++k)
    if (k * kInterval_s > t0 + kTimeTolerance_s) times.push_back(k * kInterval_s);
  times.push_back(t1);
  return times;
}

void expect_outputs(const TestOde& ode, const std::vector<double>& expected, std::size_t from) {
  std::string got;
  for (std::size_t i = from; i < ode.outputs.size(); ++i)
    got.append(" ").append(number(ode.outputs[i].t));
  const std::size_t count = ode.outputs.size() - from;
  bool ok = count == expected.size();
  for (std::size_t i = 0; ok && i < count; ++i)
    ok = std::abs(ode.outputs[from + i].t - expected[i]) <= kTimeTolerance_s;
  if (!ok) {
    std::string want;
    for (double t : expected) want.append(" ").append(number(t));
    fail("output() times" + got + "; expected" + want);
  }
}

void expect_steps_in(const TestOde& ode, double t0, double t1) {
  double last = t0;
  for (const auto& step : ode.steps) {
    if (!(step.t > last) || step.t > t1)
      fail("step_completed() at t = " + number(step.t) + " s after t = " + number(last) +
           " s (steps must advance within (" + number(t0) + ", " + number(t1) + "])");
    last = step.t;
  }
}

std::string reaches_end(Integrator& integrator) {
  TestOde ode(Problem::uniform);
  std::vector<double> y = start_state(ode, kStart_s);
  const IntegrationResult result = run(integrator, ode, y, kStart_s, kEnd_s);
  if (result.status != IntegrationStatus::completed || result.time_reached_s != kEnd_s)
    fail("status " + std::to_string(static_cast<int>(result.status)) +
         " at t = " + number(result.time_reached_s) + " s (" + result.message +
         "); expected completed at " + number(kEnd_s) + " s");
  if (ode.steps.empty() || ode.steps.back().t != kEnd_s)
    fail("the last step_completed() is not at t_end");
  expect_steps_in(ode, kStart_s, kEnd_s);
  expect_outputs(ode, grid(kStart_s, kEnd_s), 0);
  return std::to_string(ode.steps.size()) + " steps, " + std::to_string(ode.outputs.size()) +
         " outputs";
}

std::string exact_uniform_motion(Integrator& integrator) {
  TestOde ode(Problem::uniform);
  std::vector<double> y = start_state(ode, kStart_s);
  run(integrator, ode, y, kStart_s, kEnd_s);
  for (const auto& s : ode.steps) expect_state(ode, s.t, s.y, kExactTolerance, "step_completed()");
  for (const auto& o : ode.outputs) expect_state(ode, o.t, o.y, kExactTolerance, "output()");
  expect_state(ode, kEnd_s, {y[0], y[1], y[2], y[3]}, kExactTolerance, "y at the end");
  return std::to_string(ode.steps.size() + ode.outputs.size()) + " states";
}

std::string oscillator(Integrator& integrator) {
  TestOde ode(Problem::oscillator);
  const double period = 2.0 * std::numbers::pi;
  std::vector<double> y = start_state(ode, 0.0);
  const IntegrationResult result = integrator.integrate(ode, 0.0, period, kInterval_s, y);
  if (result.status != IntegrationStatus::completed) fail("did not complete: " + result.message);
  double largest = 0.0;
  for (const auto& o : ode.outputs) {
    expect_state(ode, o.t, o.y, kOscillatorTolerance, "output()");
    const auto exact = ode.exact(o.t);
    for (int i = 0; i < 4; ++i) largest = std::max(largest, std::abs(o.y[i] - exact[i]));
  }
  char text[96];
  std::snprintf(text, sizeof text, "%zu outputs over one period, error at most %.2g",
                ode.outputs.size(), largest);
  return text;
}

std::string events_located(Integrator& integrator) {
  if (!integrator.capabilities().root_finding) return "no root finding declared";
  TestOde ode(Problem::uniform);
  ode.events_on = true;
  std::vector<double> y = start_state(ode, kStart_s);
  run(integrator, ode, y, kStart_s, kEnd_s);
  auto expect_located = [&](double fired_s, double crossing_s, const char* which) {
    if (fired_s < 0.0)
      fail(std::string("the ") + which + " event (at t = " + number(crossing_s) +
           " s) was never reached");
    if (fired_s < crossing_s - kTimeTolerance_s || fired_s > crossing_s + kEventTolerance_s)
      fail(std::string("the ") + which + " event function crosses zero at t = " +
           number(crossing_s) + " s; the first step past it ends at t = " + number(fired_s) +
           " s (it must end within 1e-6 s after the crossing)");
  };
  expect_located(ode.first_event_s, 0.55, "first");
  expect_located(ode.second_event_s, 0.735, "second (added by the host after the first)");
  expect_outputs(ode, grid(kStart_s, kEnd_s), 0);
  return "2 events, located at " + number(ode.first_event_s) + " and " +
         number(ode.second_event_s) + " s";
}

std::string stop_honoured(Integrator& integrator) {
  TestOde ode(Problem::uniform);
  ode.stop_at_s = 0.4;
  std::vector<double> y = start_state(ode, kStart_s);
  const IntegrationResult result = run(integrator, ode, y, kStart_s, kEnd_s);
  const double stopped_s = ode.steps.empty() ? -1.0 : ode.steps.back().t;
  if (result.status != IntegrationStatus::interrupted || ode.called_after_stop ||
      result.time_reached_s != stopped_s)
    fail("a stop request at the step ending t = " + number(stopped_s) + " s: status " +
         std::to_string(static_cast<int>(result.status)) +
         " at t = " + number(result.time_reached_s) + " s" +
         (ode.called_after_stop ? ", with steps or outputs after it" : "") +
         " (expected interrupted at that step)");
  expect_state(ode, stopped_s, {y[0], y[1], y[2], y[3]}, kExactTolerance, "y when interrupted");
  return "interrupted at t = " + number(stopped_s) + " s";
}

std::string restart_honoured(Integrator& integrator) {
  const IntegratorCapabilities capabilities = integrator.capabilities();
  if (!capabilities.state_reset) return "no state_reset declared";
  TestOde ode(Problem::uniform);
  ode.events_on = true;
  ode.restart_at_event = true;
  std::vector<double> y = start_state(ode, kStart_s);
  IntegrationResult result = run(integrator, ode, y, kStart_s, kEnd_s);
  if (result.status != IntegrationStatus::restart_requested ||
      result.time_reached_s != ode.first_event_s)
    fail("a restart request at t = " + number(ode.first_event_s) + " s: status " +
         std::to_string(static_cast<int>(result.status)) + " at t = " +
         number(result.time_reached_s) + " s (expected restart_requested at that step)");
  const double t = result.time_reached_s;
  expect_state(ode, t, {y[0], y[1], y[2], y[3]}, kExactTolerance, "y at the restart");
  const std::size_t outputs_before = ode.outputs.size();
  ode.reverse(t, y);
  ode.steps.clear();
  result = run(integrator, ode, y, t, kEnd_s);
  if (result.status != IntegrationStatus::completed || result.time_reached_s != kEnd_s)
    fail("after the restart: status " + std::to_string(static_cast<int>(result.status)) +
         " at t = " + number(result.time_reached_s) + " s (" + result.message + ")");
  expect_steps_in(ode, t, kEnd_s);
  expect_outputs(ode, grid(t, kEnd_s), outputs_before);
  for (std::size_t i = outputs_before; i < ode.outputs.size(); ++i)
    expect_state(ode, ode.outputs[i].t, ode.outputs[i].y, kExactTolerance,
                 "output() after the restart");
  expect_state(ode, kEnd_s, {y[0], y[1], y[2], y[3]}, kExactTolerance, "y at the end");
  return "restarted at t = " + number(t) + " s";
}

// Rigid contact (needs_mechanics_view): a point thrown at the plane z = 0.

constexpr double kGravity_m_per_s2 = 9.81, kMass_kg = 2.0;
constexpr double kFallEnd_s = 0.5, kSettled_s = 0.25;
constexpr std::array<double, 6> kFallStart = {0.0, 0.0, 0.05, 0.3, -0.2, -0.5};  // q, v at t = 0
constexpr double kPenetration_m = 1e-4;
constexpr double kImpulseTolerance_N_s = 1e-12;
constexpr double kSpeedTolerance_m_per_s = 1e-9;
constexpr double kRestVelocity_m_per_s = 1e-6, kRestDrift_m = 1e-7;
constexpr double kWeightTolerance = 1e-4;  // relative, on Σr_N = m·g·h at rest
constexpr double kProblemTolerance = 1e-12;

/// The point (q = (x, y, z), v) under gravity above the plane: q̇ = v, v̇ = (0, 0, −g) — the free
/// motion; contact is the integrator's, through the MechanicsView's one contact point.
class FallingOde final : public OdeView {
 public:
  FallingOde()
      : view(
            3, kMass_kg,
            [](double, std::span<const double>, std::span<const double>, std::span<double> a) {
              a[0] = a[1] = 0.0;
              a[2] = -kGravity_m_per_s2;
            },
            true) {}

  conformance::TestMechanics view;
  struct Step {
    double t;
    std::array<double, 6> y;
    std::size_t prepared;  ///< view.prepared.size() when the step was completed
  };
  std::vector<Step> steps;
  std::vector<double> output_times;

  std::size_t configuration_size() const override { return 3; }
  std::size_t velocity_size() const override { return 3; }
  std::size_t state_size() const override { return 6; }
  std::size_t event_count() const override { return 0; }
  void event_values(double, std::span<const double>, std::span<double> g) override {
    if (!g.empty()) fail("event_values() got " + std::to_string(g.size()) + " values for none");
  }
  void derivative(double, std::span<const double> y, std::span<double> rate) override {
    for (int i = 0; i < 3; ++i) rate[i] = y[3 + i];
    rate[3] = rate[4] = 0.0;
    rate[5] = -kGravity_m_per_s2;
  }
  void integrate_configuration(std::span<const double> q, std::span<const double> v, double dt,
                               std::span<double> q_out) override {
    for (int i = 0; i < 3; ++i) q_out[i] = q[i] + v[i] * dt;
  }
  void project(std::span<double>) override {}
  StepAction step_completed(double t, std::span<const double> y) override {
    steps.push_back({t, {y[0], y[1], y[2], y[3], y[4], y[5]}, view.prepared.size()});
    return StepAction::proceed;
  }
  void output(double t, std::span<const double>) override { output_times.push_back(t); }
  MechanicsView* mechanics() override { return &view; }
};

void fall(Integrator& integrator, FallingOde& ode) {
  std::vector<double> y(kFallStart.begin(), kFallStart.end());
  const IntegrationResult result = integrator.integrate(ode, 0.0, kFallEnd_s, kInterval_s, y);
  if (result.status != IntegrationStatus::completed || result.time_reached_s != kFallEnd_s)
    fail("the contact run: status " + std::to_string(static_cast<int>(result.status)) +
         " at t = " + number(result.time_reached_s) + " s (" + result.message +
         "); expected completed at " + number(kFallEnd_s) + " s");
}

std::string contact_rest(Integrator& integrator) {
  if (!integrator.capabilities().needs_mechanics_view)
    return "no needs_mechanics_view declared (its contact is a force law's)";
  FallingOde ode;
  fall(integrator, ode);
  const conformance::TestMechanics& mechanics = ode.view;
  const double mu_s = mechanics.plane().friction_static;
  double t_last = 0.0, speed_last = std::hypot(kFallStart[3], kFallStart[4]);
  double settled_z = std::nan(""), deepest = 0.0, worst_weight = 0.0;
  std::size_t from = 0, touching = 0;
  for (const FallingOde::Step& step : ode.steps) {
    const std::string at = " at the step ending t = " + number(step.t) + " s";
    if (step.prepared == from)
      fail("no prepare_step()" + at + " (each step starts from its prepared state)");
    double normal_sum = 0.0;
    for (std::size_t i = from; i < step.prepared; ++i) {
      const conformance::TestMechanics::Prepared& p = mechanics.prepared[i];
      if (p.points == 0) continue;
      const std::string prepared = " for the step prepared at t = " + number(p.t) + " s";
      if (!p.solution_reported)
        fail("no report_contact_solution()" + prepared + ", which has a contact point");
      if (p.reported_step_s != p.step_s)
        fail("report_contact_solution() with step_s = " + number(p.reported_step_s) + " s" +
             prepared + " with step_s = " + number(p.step_s) + " s");
      const double r_N = p.impulses[0], r_T = std::hypot(p.impulses[1], p.impulses[2]);
      if (!(r_N >= -kImpulseTolerance_N_s))
        fail("normal impulse r_N = " + number(r_N) + " N·s" + prepared +
             " (a contact only pushes: r_N >= 0)");
      if (!(r_T <= mu_s * std::max(r_N, 0.0) + kImpulseTolerance_N_s))
        fail("tangential impulse |r_T| = " + number(r_T) + " N·s" + prepared +
             ", outside Coulomb's cone mu_s·r_N = " + number(mu_s * r_N) + " N·s");
      normal_sum += r_N;
      if (r_N > 0.0) ++touching;
    }
    const double z = step.y[2], v_z = step.y[5], speed = std::hypot(step.y[3], step.y[4]);
    deepest = std::min(deepest, z);
    if (!(z >= -kPenetration_m))
      fail("the point is at distance " + number(z) + " m" + at +
           " (it must not sink below the plane by more than 1e-4 m)");
    if (!(speed <= speed_last + kSpeedTolerance_m_per_s))
      fail("the slide sped up from " + number(speed_last) + " to " + number(speed) + " m/s" + at +
           " (friction only slows it)");
    if (step.t >= kSettled_s) {
      if (std::isnan(settled_z)) settled_z = z;
      if (!(std::abs(z) <= kPenetration_m) || !(std::abs(v_z) <= kRestVelocity_m_per_s))
        fail("not at rest on the plane" + at + ": distance " + number(z) + " m, v_z = " +
             number(v_z) + " m/s (expected within 1e-4 m of it, |v_z| <= 1e-6 m/s, from t = " +
             number(kSettled_s) + " s)");
      if (!(std::abs(z - settled_z) <= kRestDrift_m))
        fail("at rest the distance drifted from " + number(settled_z) +
             " m at t = " + number(kSettled_s) + " s to " + number(z) + " m" + at);
      const double weight = kMass_kg * kGravity_m_per_s2 * (step.t - t_last);
      const double error = std::abs(normal_sum - weight) / weight;
      worst_weight = std::max(worst_weight, error);
      if (!(error <= kWeightTolerance))
        fail("at rest the normal impulses of the step sum to " + number(normal_sum) +
             " N·s; the weight's m·g·h = " + number(weight) + " N·s" + at +
             " (relative tolerance 1e-4)");
    }
    from = step.prepared;
    t_last = step.t;
    speed_last = speed;
  }
  if (std::isnan(settled_z)) fail("no step ended at or after t = " + number(kSettled_s) + " s");
  char text[160];
  std::snprintf(text, sizeof text,
                "%zu steps pushing; deepest %.3g m, rests at %.3g m, weight within %.2g; %lld "
                "distance queries",
                touching, deepest, settled_z, worst_weight,
                static_cast<long long>(mechanics.distance_queries));
  return text;
}

std::string contact_problem_reported(const conformance::Factory<Integrator>& make) {
  const std::shared_ptr<Integrator> plain_integrator = make(), wanting_integrator = make();
  if (!plain_integrator->capabilities().needs_mechanics_view)
    return "no needs_mechanics_view declared (its contact is a force law's)";
  FallingOde plain, wanting;
  wanting.view.problem_wanted = true;
  fall(*plain_integrator, plain);
  fall(*wanting_integrator, wanting);
  const conformance::TestMechanics& mechanics = wanting.view;
  const conformance::PlaneContact& plane = mechanics.plane();
  std::size_t problems = 0;
  for (const conformance::TestMechanics::Prepared& p : mechanics.prepared) {
    if (p.points == 0) continue;
    const std::string prepared = " for the step prepared at t = " + number(p.t) + " s";
    if (!p.problem_reported)
      fail("no report_contact_problem()" + prepared + " (the host wants the local problem)");
    ++problems;
    const contact_problem::FrictionContactProblem& problem = p.problem;
    const auto& W = problem.W;
    if (problem.mu.size() != 1 || problem.q.size() != 3 || W.block_rows != 1 ||
        W.row_offsets.size() != 2 || W.row_offsets[1] != 1 || W.columns.size() != 1 ||
        W.columns[0] != 0 || W.blocks.size() != 1)
      fail("the local problem" + prepared + " has " + std::to_string(problem.mu.size()) +
           " contacts, " + std::to_string(problem.q.size()) + " q and " +
           std::to_string(W.block_rows) + " block rows of " + std::to_string(W.blocks.size()) +
           " blocks; expected the step's one point, W one 3×3 block");
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        const double expected = a == b ? 1.0 / kMass_kg : 0.0;
        if (!(std::abs(W.blocks[0][3 * a + b] - expected) <= kProblemTolerance))
          fail("W(" + std::to_string(a) + ", " + std::to_string(b) + ") = " +
               number(W.blocks[0][3 * a + b]) + prepared + "; J·M⁻¹·Jᵀ = " + number(expected));
      }
    const double mu = problem.mu[0];
    if (mu != 0.0 && mu != plane.friction_static && mu != plane.friction_kinetic)
      fail("mu = " + number(mu) + prepared + "; the pair's mu_s is " +
           number(plane.friction_static) + ", mu_k " + number(plane.friction_kinetic) +
           " (or 0 without friction)");
    for (int d = 0; d < 2; ++d)
      if (!(std::abs(problem.q[1 + d] - p.v_free[d]) <= kProblemTolerance))
        fail("q_T" + std::to_string(d + 1) + " = " + number(problem.q[1 + d]) + prepared +
             "; the free tangential velocity is " + number(p.v_free[d]) + " m/s");
  }
  if (problems == 0) fail("the point never came into the contact set");
  bool same = plain.steps.size() == wanting.steps.size();
  for (std::size_t i = 0; same && i < plain.steps.size(); ++i)
    same = plain.steps[i].t == wanting.steps[i].t &&
           std::memcmp(plain.steps[i].y.data(), wanting.steps[i].y.data(),
                       sizeof plain.steps[i].y) == 0;
  if (!same) fail("asking for the local problem (contact_problem_wanted) changed the run's steps");
  return std::to_string(problems) + " problems";
}

std::string deterministic(const conformance::Factory<Integrator>& make) {
  const std::shared_ptr<Integrator> first = make(), second = make();
  auto outputs = [](Integrator& integrator) {
    TestOde ode(Problem::oscillator);
    ode.events_on = true;
    std::vector<double> y = start_state(ode, 0.0);
    integrator.integrate(ode, 0.0, 2.0, kInterval_s, y);
    std::vector<double> flat;
    for (const auto& o : ode.outputs) {
      flat.push_back(o.t);
      flat.insert(flat.end(), o.y.begin(), o.y.end());
    }
    return flat;
  };
  const std::vector<double> a = outputs(*first), b = outputs(*first), c = outputs(*second);
  auto same = [](const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
  };
  if (!same(a, b)) fail("the same run twice gave different outputs");
  if (!same(a, c)) fail("the same run on another instance gave different outputs");
  std::string summary = std::to_string(a.size() / 5) + " outputs";
  if (!first->capabilities().needs_mechanics_view) return summary;
  // The contact run: every step's state and every reported impulse.
  auto contact_run = [](Integrator& integrator) {
    FallingOde ode;
    fall(integrator, ode);
    std::vector<double> flat;
    for (const auto& step : ode.steps) {
      flat.push_back(step.t);
      flat.insert(flat.end(), step.y.begin(), step.y.end());
    }
    for (const auto& prepared : ode.view.prepared)
      flat.insert(flat.end(), prepared.impulses.begin(), prepared.impulses.end());
    return flat;
  };
  const std::vector<double> d = contact_run(*first), e = contact_run(*first),
                            f = contact_run(*second);
  if (!same(d, e)) fail("the same contact run twice gave different steps or impulses");
  if (!same(d, f))
    fail("the same contact run on another instance gave different steps or impulses");
  return summary + " and a contact run of " + std::to_string(d.size()) + " values";
}

conformance::Check<Integrator> on_one(std::string id, std::string name,
                                      std::string (*check)(Integrator&)) {
  return {std::move(id), std::move(name),
          [check](const conformance::Factory<Integrator>& make) { return check(*make()); }};
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<conformance::Check<Integrator>> checks = {
      on_one("reaches-end",
             "reaches t_end; outputs at k·Δ and t_end in order, steps in order (1e-12 s)",
             reaches_end),
      on_one("exact", "exact on uniform motion (1e-9)", exact_uniform_motion),
      on_one("oscillator", "harmonic oscillator within 1e-3 over a period", oscillator),
      on_one("events", "events located within 1e-6 s past the crossing", events_located),
      on_one("stop", "honours a stop request", stop_honoured),
      on_one("restart", "honours a restart request and resumes (1e-9)", restart_honoured),
      on_one("contact",
             "rigid contact: a point thrown at a plane comes to rest on it, r_N >= 0 in the cone, "
             "weight carried",
             contact_rest),
      {"contact-problem",
       "the step's local problem when wanted (W = I/m, mu, q_T), without side effects",
       contact_problem_reported},
      {"determinism", "deterministic: the same bits twice and on another instance", deterministic},
  };
  return conformance::run_suite(argc, argv, checks);
}
