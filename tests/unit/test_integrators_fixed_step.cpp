// Unit tests of the fixed-step integrators (plugins/integrator-fixed-step) on a toy OdeView: the
// 1-D harmonic oscillator q̈ = −ω²·q with nq = nv = 1.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "euler.hpp"
#include "runge_kutta4.hpp"

using contactlab::IntegrationResult;
using contactlab::IntegrationStatus;
using contactlab::Integrator;
using contactlab::ParameterSchema;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::StepAction;
using contactlab::plugins::ExplicitEuler;
using contactlab::plugins::RungeKutta4;
using contactlab::plugins::SemiImplicitEuler;

namespace {

std::unique_ptr<Integrator> make_integrator(const std::string& name, double step_s) {
  if (name == "explicit_euler") {
    return std::make_unique<ExplicitEuler>(
        ParameterValues::defaults(ExplicitEuler::schema(), {{"step_s", step_s}}));
  }
  if (name == "semi_implicit_euler") {
    return std::make_unique<SemiImplicitEuler>(
        ParameterValues::defaults(SemiImplicitEuler::schema(), {{"step_s", step_s}}));
  }
  return std::make_unique<RungeKutta4>(
      ParameterValues::defaults(RungeKutta4::schema(), {{"step_s", step_s}}));
}

/// q̈ = −ω²·q, y = [q; v]. Records every callback. With `event_level` set it has one event
/// function g = q − level (armed while q > level), and can ask for a restart when it fires.
class Oscillator final : public contactlab::OdeView {
 public:
  explicit Oscillator(double omega_rad_per_s) : omega_(omega_rad_per_s) {}

  std::size_t configuration_size() const override { return 1; }
  std::size_t velocity_size() const override { return 1; }
  std::size_t state_size() const override { return 2; }
  std::size_t event_count() const override { return std::isnan(event_level) ? 0 : 1; }
  void event_values(double /*t*/, std::span<const double> y, std::span<double> g) override {
    ++event_calls;
    g[0] = y[0] - event_level;
  }
  void derivative(double t, std::span<const double> y, std::span<double> y_rate) override {
    ++derivative_calls;
    if (t >= throw_at_time_s)
      throw contactlab::SimulationError("toy: derivative failed on purpose");
    y_rate[0] = y[1];
    y_rate[1] = -omega_ * omega_ * y[0];
  }
  void integrate_configuration(std::span<const double> q, std::span<const double> v, double dt,
                               std::span<double> q_out) override {
    q_out[0] = q[0] + v[0] * dt;
  }
  void project(std::span<double> /*y*/) override { ++project_calls; }
  StepAction step_completed(double t, std::span<const double> y) override {
    step_times.push_back(t);
    last_state = {y[0], y[1]};
    const bool fired = !std::isnan(event_level) && armed && y[0] - event_level <= 0.0;
    if (!std::isnan(event_level)) armed = y[0] - event_level > 0.0;
    if (fired) {
      event_times.push_back(t);
      event_states.push_back({y[0], y[1]});
      if (restart_at_event) return StepAction::restart;
    }
    const double energy = 0.5 * (y[1] * y[1] + omega_ * omega_ * y[0] * y[0]);
    min_energy = std::min(min_energy, energy);
    max_energy = std::max(max_energy, energy);
    return step_times.size() == stop_after_steps ? StepAction::stop : StepAction::proceed;
  }
  void output(double t, std::span<const double> y) override {
    output_times.push_back(t);
    output_states.push_back({y[0], y[1]});
  }

  double omega_;
  double throw_at_time_s = std::numeric_limits<double>::infinity();
  std::size_t stop_after_steps = 0;  // 0: never
  std::vector<double> step_times, output_times;
  std::vector<std::array<double, 2>> output_states;
  std::array<double, 2> last_state{};
  double min_energy = std::numeric_limits<double>::infinity();
  double max_energy = 0.0;
  int derivative_calls = 0;
  int project_calls = 0;
  double event_level = std::numeric_limits<double>::quiet_NaN();
  bool armed = true;
  bool restart_at_event = false;
  int event_calls = 0;
  std::vector<double> event_times;
  std::vector<std::array<double, 2>> event_states;
};

/// max(|q − cos t|, |v + sin t|) at t_end for ω = 1, q(0) = 1, v(0) = 0.
double global_error(const std::string& name, double step_s, double t_end) {
  Oscillator ode(1.0);
  std::vector<double> y = {1.0, 0.0};
  const auto integrator = make_integrator(name, step_s);
  const IntegrationResult result = integrator->integrate(ode, 0.0, t_end, t_end, y);
  REQUIRE(result.status == IntegrationStatus::completed);
  return std::max(std::abs(y[0] - std::cos(t_end)), std::abs(y[1] + std::sin(t_end)));
}

/// The output times the driver promises: the absolute grid k·interval in (t_start, t_end) (by
/// more than the merge tolerance 1e-9·step from either end), then t_end.
std::vector<double> expected_outputs(double t_start, double t_end, double interval, double step) {
  std::vector<double> times;
  for (int k = 1;; ++k) {
    const double t = static_cast<double>(k) * interval;
    if (!(t < t_end - 1e-9 * step)) break;
    if (t > t_start + 1e-9 * step) times.push_back(t);
  }
  times.push_back(t_end);
  return times;
}

}  // namespace

TEST_CASE(
    "fixed-step: all three declare step_s (default 1e-4 s, > 0), locate_events (true) and "
    "event_tolerance_s (1e-12 s), explicit, non-adaptive, restartable, locating events") {
  for (const ParameterSchema& schema :
       {ExplicitEuler::schema(), SemiImplicitEuler::schema(), RungeKutta4::schema()}) {
    REQUIRE(schema.size() == 3);
    CHECK(schema[0].name == "step_s");
    CHECK(std::get<double>(schema[0].default_value) == 1e-4);
    CHECK(schema[0].minimum == 0.0);
    CHECK(schema[0].minimum_exclusive);
    CHECK(schema[0].unit == "s");
    CHECK(schema[1].name == "locate_events");
    CHECK(std::get<bool>(schema[1].default_value));
    CHECK(schema[2].name == "event_tolerance_s");
    CHECK(std::get<double>(schema[2].default_value) == 1e-12);
  }
  for (const char* name : {"explicit_euler", "semi_implicit_euler", "rk4"}) {
    const auto capabilities = make_integrator(name, 1e-3)->capabilities();
    CHECK_FALSE(capabilities.adaptive);
    CHECK_FALSE(capabilities.implicit);
    CHECK(capabilities.root_finding);
    CHECK(capabilities.state_reset);
  }
  const auto blind = std::make_unique<RungeKutta4>(ParameterValues::defaults(
      RungeKutta4::schema(), {{"step_s", 1e-3}, {"locate_events", false}}));
  CHECK_FALSE(blind->capabilities().root_finding);
}

TEST_CASE(
    "fixed-step: an event (q falls to 0.5 on q = cos t) is located by bisection at π/3 within "
    "1e-9 s (rk4, h = 0.01), the step grid resumes, outputs stay on the grid") {
  Oscillator ode(1.0);
  ode.event_level = 0.5;
  std::vector<double> y = {1.0, 0.0};
  const IntegrationResult result = make_integrator("rk4", 0.01)->integrate(ode, 0.0, 2.0, 0.1, y);
  REQUIRE(result.status == IntegrationStatus::completed);
  REQUIRE(ode.event_times.size() == 1);
  CHECK(result.located_events == 1);
  const double t_event = ode.event_times[0];
  CHECK(std::abs(t_event - std::numbers::pi / 3.0) < 1e-9);
  // The step ends past the crossing, by at most the bracket (|q̇| ≤ 1 here).
  CHECK(ode.event_states[0][0] <= 0.5);
  CHECK(ode.event_states[0][0] > 0.5 - 1e-11);
  // The step after the event ends on the grid point the interrupted step was heading for.
  const auto after = std::find(ode.step_times.begin(), ode.step_times.end(), t_event) + 1;
  REQUIRE(after != ode.step_times.end());
  CHECK(*after == Approx(1.05).margin(1e-12));
  CHECK(ode.output_times == expected_outputs(0.0, 2.0, 0.1, 0.01));
  CHECK(result.steps == 201);
}

TEST_CASE(
    "fixed-step: step_completed returning restart ends integrate() as restart_requested at the "
    "event, integrate() again from there continues on the absolute output grid") {
  for (const char* name : {"explicit_euler", "semi_implicit_euler", "rk4"}) {
    DYNAMIC_SECTION(name) {
      Oscillator ode(1.0);
      ode.event_level = 0.5;
      ode.restart_at_event = true;
      std::vector<double> y = {1.0, 0.0};
      const auto integrator = make_integrator(name, 0.01);
      IntegrationResult result = integrator->integrate(ode, 0.0, 2.0, 0.25, y);
      REQUIRE(result.status == IntegrationStatus::restart_requested);
      CHECK(result.time_reached_s == ode.event_times.at(0));
      // Located on the method's own solution: rk4's is close to π/3, Euler's within O(h).
      CHECK(std::abs(result.time_reached_s - std::numbers::pi / 3.0) < 0.01);
      CHECK(ode.output_times == std::vector<double>{0.25, 0.5, 0.75, 1.0});
      ode.restart_at_event = false;
      result = integrator->integrate(ode, result.time_reached_s, 2.0, 0.25, y);
      CHECK(result.status == IntegrationStatus::completed);
      CHECK(ode.output_times == std::vector<double>{0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0});
    }
  }
}

TEST_CASE(
    "rk4: global error shrinks 16× per halved step — observed order 4 within ±0.1 on the "
    "harmonic oscillator over 10 s") {
  const double e1 = global_error("rk4", 0.2, 10.0);
  const double e2 = global_error("rk4", 0.1, 10.0);
  const double e3 = global_error("rk4", 0.05, 10.0);
  INFO("errors " << e1 << " " << e2 << " " << e3);
  CHECK(std::log2(e1 / e2) == Approx(4.0).margin(0.1));
  CHECK(std::log2(e2 / e3) == Approx(4.0).margin(0.1));
  CHECK(e3 < 1e-6);
}

TEST_CASE("semi_implicit_euler: one step from (q, v) = (1, 0) gives v = −h, q = 1 − h² exactly") {
  Oscillator ode(1.0);
  std::vector<double> y = {1.0, 0.0};
  const double h = 0.125;  // exact in binary
  make_integrator("semi_implicit_euler", h)->integrate(ode, 0.0, h, h, y);
  CHECK(y[1] == -h);
  CHECK(y[0] == 1.0 - h * h);
  CHECK(ode.derivative_calls == 1);
}

TEST_CASE(
    "semi_implicit_euler: energy stays within 0.51·ω·h of its initial value over 10⁵ steps "
    "and the modified energy is conserved to 1e-12 relative (no drift)") {
  const double omega = 1.0, h = 0.01;
  Oscillator ode(omega);
  std::vector<double> y = {1.0, 0.0};
  const double energy_0 = 0.5;
  const double modified_0 =
      y[1] * y[1] + omega * omega * y[0] * y[0] - h * omega * omega * y[0] * y[1];
  const IntegrationResult result =
      make_integrator("semi_implicit_euler", h)->integrate(ode, 0.0, 1000.0, 1000.0, y);
  REQUIRE(result.status == IntegrationStatus::completed);
  CHECK(result.steps == 100000);
  CHECK(result.time_reached_s == 1000.0);
  // Symplectic Euler conserves v² + ω²q² − h·ω²·q·v exactly (up to rounding), so the true energy
  // only oscillates, by at most ≈ ω·h/2 relative.
  CHECK(ode.max_energy <= energy_0 * (1.0 + 0.51 * omega * h));
  CHECK(ode.min_energy >= energy_0 * (1.0 - 0.51 * omega * h));
  const double modified =
      y[1] * y[1] + omega * omega * y[0] * y[0] - h * omega * omega * y[0] * y[1];
  CHECK(modified == Approx(modified_0).epsilon(1e-12));
}

TEST_CASE(
    "fixed-step: output times k·interval after t_start and t_end are hit exactly (==), steps "
    "never exceed step_s, and y at each output matches the exact solution") {
  for (const char* name : {"explicit_euler", "semi_implicit_euler", "rk4"}) {
    DYNAMIC_SECTION(name) {
      const double t_start = 0.3, t_end = 1.0, interval = 0.1, step = 0.03;
      Oscillator ode(2.0);
      std::vector<double> y = {1.0, 0.0};
      const IntegrationResult result =
          make_integrator(name, step)->integrate(ode, t_start, t_end, interval, y);
      REQUIRE(result.status == IntegrationStatus::completed);
      CHECK(result.time_reached_s == t_end);
      CHECK(ode.output_times == expected_outputs(t_start, t_end, interval, step));
      CHECK(ode.output_times.size() == 7);
      double previous = t_start;
      for (double t : ode.step_times) {
        CHECK(t - previous > 0.0);
        CHECK(t - previous <= step * (1.0 + 1e-9));
        previous = t;
      }
      CHECK(result.steps == static_cast<std::int64_t>(ode.step_times.size()));
      // Every output time is also a step time: the step landed on it.
      for (double t : ode.output_times) {
        CHECK(std::find(ode.step_times.begin(), ode.step_times.end(), t) != ode.step_times.end());
      }
      for (std::size_t i = 0; i < ode.output_times.size(); ++i) {
        const double tau = ode.output_times[i] - t_start;  // the run starts at q = 1, v = 0
        CHECK(ode.output_states[i][0] == Approx(std::cos(2.0 * tau)).margin(0.05));
      }
    }
  }
}

TEST_CASE(
    "fixed-step: output at multiples of the step is not preceded by a tiny step, an interval "
    "beyond t_end gives only t_end") {
  SECTION("interval 0.25 s, step 0.1 s on [0, 1]: 12 steps, outputs 0.25, 0.5, 0.75, 1") {
    Oscillator ode(1.0);
    std::vector<double> y = {1.0, 0.0};
    const IntegrationResult result = make_integrator("rk4", 0.1)->integrate(ode, 0.0, 1.0, 0.25, y);
    CHECK(result.steps == 12);
    CHECK(ode.output_times == std::vector<double>{0.25, 0.5, 0.75, 1.0});
  }
  SECTION("accumulated rounding (t = 0.1·k) does not add a step before t_end: 10 steps") {
    Oscillator ode(1.0);
    std::vector<double> y = {1.0, 0.0};
    const IntegrationResult result = make_integrator("rk4", 0.1)->integrate(ode, 0.0, 1.0, 0.0, y);
    CHECK(result.steps == 10);
    CHECK(ode.output_times == std::vector<double>{1.0});
  }
  SECTION("interval 5 s on [0, 1]") {
    Oscillator ode(1.0);
    std::vector<double> y = {1.0, 0.0};
    make_integrator("semi_implicit_euler", 0.1)->integrate(ode, 0.0, 1.0, 5.0, y);
    CHECK(ode.output_times == std::vector<double>{1.0});
  }
}

TEST_CASE("fixed-step: step_completed returning stop ends the run as interrupted at that step") {
  for (const char* name : {"explicit_euler", "semi_implicit_euler", "rk4"}) {
    DYNAMIC_SECTION(name) {
      Oscillator ode(1.0);
      ode.stop_after_steps = 7;
      std::vector<double> y = {1.0, 0.0};
      const IntegrationResult result =
          make_integrator(name, 0.01)->integrate(ode, 0.0, 1.0, 0.02, y);
      CHECK(result.status == IntegrationStatus::interrupted);
      CHECK(result.steps == 7);
      CHECK(result.time_reached_s == ode.step_times.back());
      CHECK(result.time_reached_s == Approx(0.07).margin(1e-15));
      CHECK(y[0] == ode.last_state[0]);
      CHECK(y[1] == ode.last_state[1]);
      CHECK(ode.output_times.size() == 3);  // 0.02, 0.04, 0.06
    }
  }
}

TEST_CASE("fixed-step: exceptions from the OdeView propagate, y keeps the last completed step") {
  for (const char* name : {"explicit_euler", "semi_implicit_euler", "rk4"}) {
    DYNAMIC_SECTION(name) {
      Oscillator ode(1.0);
      ode.throw_at_time_s = 0.0501;
      std::vector<double> y = {1.0, 0.0};
      CHECK_THROWS_AS(make_integrator(name, 0.01)->integrate(ode, 0.0, 1.0, 1.0, y),
                      contactlab::SimulationError);
      REQUIRE_FALSE(ode.step_times.empty());
      CHECK(y[0] == ode.last_state[0]);
      CHECK(y[1] == ode.last_state[1]);
    }
  }
}

TEST_CASE("fixed-step: rk4 calls derivative 4× and project once per step, Euler derivative once") {
  Oscillator rk4_ode(1.0), euler_ode(1.0);
  std::vector<double> y = {1.0, 0.0};
  const auto rk4 = make_integrator("rk4", 0.1)->integrate(rk4_ode, 0.0, 1.0, 1.0, y);
  CHECK(rk4_ode.derivative_calls == 4 * rk4.steps);
  CHECK(rk4_ode.project_calls == rk4.steps);
  y = {1.0, 0.0};
  const auto euler =
      make_integrator("semi_implicit_euler", 0.1)->integrate(euler_ode, 0.0, 1.0, 1.0, y);
  CHECK(euler_ode.derivative_calls == euler.steps);
}

TEST_CASE(
    "fixed-step: an empty span completes with no step, a backward span or a wrong state size "
    "fails with a message") {
  Oscillator ode(1.0);
  std::vector<double> y = {1.0, 0.0};
  const auto integrator = make_integrator("rk4", 0.1);
  IntegrationResult result = integrator->integrate(ode, 2.0, 2.0, 0.1, y);
  CHECK(result.status == IntegrationStatus::completed);
  CHECK(result.steps == 0);
  CHECK(ode.output_times.empty());
  result = integrator->integrate(ode, 2.0, 1.0, 0.1, y);
  CHECK(result.status == IntegrationStatus::failed);
  CHECK_FALSE(result.message.empty());
  std::vector<double> wrong = {1.0, 0.0, 0.0};
  result = integrator->integrate(ode, 0.0, 1.0, 0.1, wrong);
  CHECK(result.status == IntegrationStatus::failed);
  CHECK_THAT(result.message, Catch::Contains("the ODE has 2"));
}

TEST_CASE("explicit_euler: one step from (q, v) = (1, 0) gives q = 1, v = −h exactly") {
  Oscillator ode(1.0);
  std::vector<double> y = {1.0, 0.0};
  const double h = 0.125;  // exact in binary
  make_integrator("explicit_euler", h)->integrate(ode, 0.0, h, h, y);
  CHECK(y[0] == 1.0);
  CHECK(y[1] == -h);
}

TEST_CASE(
    "explicit_euler: on the oscillator q^2 + v^2 grows by exactly (1 + h^2) per step (within "
    "1e-12 relative after 1000 steps), and the global error halves with the step (observed "
    "order 1 within 0.05)") {
  // (q + h·v)² + (v − h·q)² = (1 + h²)·(q² + v²) for ω = 1.
  Oscillator ode(1.0);
  std::vector<double> y = {1.0, 0.0};
  const double h = 0.01;
  make_integrator("explicit_euler", h)->integrate(ode, 0.0, 1000 * h, 1000 * h, y);
  CHECK(y[0] * y[0] + y[1] * y[1] == Approx(std::pow(1.0 + h * h, 1000)).epsilon(1e-12));
  const double e1 = global_error("explicit_euler", 1e-3, 1.0);
  const double e2 = global_error("explicit_euler", 5e-4, 1.0);
  CHECK(std::log2(e1 / e2) == Approx(1.0).margin(0.05));
}
