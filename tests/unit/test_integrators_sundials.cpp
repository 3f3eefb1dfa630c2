// Unit tests of the SUNDIALS integrators (plugins/integrator-sundials): cvode (BDF, Adams) and
// arkode (ERK, DIRK) on toy OdeViews with closed-form solutions — the harmonic oscillator, a stiff
// linear system, the large-amplitude pendulum (period from the complete elliptic integral K,
// computed here with the arithmetic–geometric mean), events, restarts and failures.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <contactlab/errors.hpp>

#include "arkode_integrator.hpp"
#include "cvode_integrator.hpp"
#include "support/work_figures.hpp"

using contactlab::IntegrationResult;
using contactlab::IntegrationStatus;
using contactlab::Integrator;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::StepAction;
using contactlab::plugins::Arkode;
using contactlab::plugins::Cvode;

namespace {

constexpr double pi = std::numbers::pi;
constexpr double inf = std::numeric_limits<double>::infinity();

using Overrides = std::map<std::string, ParameterValue>;

std::unique_ptr<Cvode> make_cvode(const std::string& method, Overrides overrides = {}) {
  overrides["method"] = method;
  return std::make_unique<Cvode>(ParameterValues::defaults(Cvode::schema(), overrides));
}

std::unique_ptr<Arkode> make_arkode(const std::string& method, Overrides overrides = {}) {
  overrides["method"] = method;
  return std::make_unique<Arkode>(ParameterValues::defaults(Arkode::schema(), overrides));
}

/// The four configurations of the brief by name.
std::unique_ptr<Integrator> make_integrator(const std::string& name, Overrides overrides = {}) {
  if (name == "cvode bdf") return make_cvode("bdf", overrides);
  if (name == "cvode adams") return make_cvode("adams", overrides);
  if (name == "arkode erk") return make_arkode("erk", overrides);
  return make_arkode("dirk", overrides);
}

const std::vector<std::string> all_methods = {"cvode bdf", "cvode adams", "arkode erk",
                                              "arkode dirk"};

/// The host's side of every toy: records callbacks, checks that accepted steps come in time
/// order, and fires events as the host does (armed while g > 0, fires at g ≤ 0).
class ToyOde : public contactlab::OdeView {
 public:
  std::size_t configuration_size() const override { return state_size() / 2; }
  std::size_t velocity_size() const override { return state_size() - state_size() / 2; }
  void integrate_configuration(std::span<const double> q, std::span<const double> v, double dt,
                               std::span<double> q_out) override {
    for (std::size_t i = 0; i < q.size(); ++i) q_out[i] = q[i] + v[i] * dt;
  }
  void project(std::span<double> /*y*/) override {}

  StepAction step_completed(double t, std::span<const double> y) override {
    if (!step_times.empty() && !(t > step_times.back())) ++out_of_order_steps;
    step_times.push_back(t);
    last_state.assign(y.begin(), y.end());
    g_now.resize(event_count());
    StepAction action = StepAction::proceed;
    if (!g_now.empty()) {
      event_values(t, y, g_now);
      --event_calls;  // the host's own check, not the integrator's
      for (std::size_t i = 0; i < g_now.size(); ++i) {
        if (i < armed.size() && armed[i] && g_now[i] <= 0.0) {
          event_times.push_back(t);
          event_states.emplace_back(y.begin(), y.end());
          action = on_event(t, y);
        }
      }
      armed.resize(g_now.size());
      for (std::size_t i = 0; i < g_now.size(); ++i) armed[i] = g_now[i] > 0.0;
    }
    if (step_times.size() == stop_after_steps) return StepAction::stop;
    return action;
  }
  void output(double t, std::span<const double> y) override {
    output_times.push_back(t);
    output_states.emplace_back(y.begin(), y.end());
  }

  /// Arms the event functions at the initial state, as the host does before integrating.
  void arm(double t, std::span<const double> y) {
    g_now.resize(event_count());
    if (g_now.empty()) return;
    event_values(t, y, g_now);
    --event_calls;
    armed.resize(g_now.size());
    for (std::size_t i = 0; i < g_now.size(); ++i) armed[i] = g_now[i] > 0.0;
  }

  virtual StepAction on_event(double /*t*/, std::span<const double> /*y*/) {
    return StepAction::proceed;
  }

  std::size_t stop_after_steps = 0;  // 0: never
  std::vector<double> step_times, output_times, event_times;
  std::vector<std::vector<double>> output_states, event_states;
  std::vector<double> last_state;
  int out_of_order_steps = 0;
  std::int64_t derivative_calls = 0, event_calls = 0;

 private:
  std::vector<double> g_now;
  std::vector<bool> armed;
};

/// q̈ = −ω²·q, y = [q; v] (ω = 1: q = cos t, v = −sin t from (1, 0)). With `event_level` set, one
/// event function g = q − level. At an event it can ask for a restart, and grow: it then appends
/// a third state x with ẋ = v, x = 0 at the event (so x = q − q_event afterwards).
class Oscillator final : public ToyOde {
 public:
  explicit Oscillator(double omega = 1.0) : omega_(omega) {}
  std::size_t configuration_size() const override { return 1; }
  std::size_t velocity_size() const override { return 1; }
  std::size_t state_size() const override { return grown ? 3 : 2; }
  std::size_t event_count() const override { return std::isnan(event_level) ? 0 : 1; }
  void event_values(double /*t*/, std::span<const double> y, std::span<double> g) override {
    ++event_calls;
    if (t_throw_in_events < inf) throw std::runtime_error("toy: event_values failed on purpose");
    g[0] = y[0] - event_level;
  }
  void derivative(double t, std::span<const double> y, std::span<double> y_rate) override {
    ++derivative_calls;
    if (t > t_simulation_error) throw contactlab::SimulationError("toy: the state left its range");
    if (t > t_logic_error) throw std::logic_error("toy: a bug in the model");
    y_rate[0] = y[1];
    y_rate[1] = -omega_ * omega_ * y[0];
    if (grown) y_rate[2] = y[1];
    if (t > t_not_finite) y_rate[1] = std::numeric_limits<double>::quiet_NaN();
  }
  StepAction on_event(double /*t*/, std::span<const double> y) override {
    if (grow_at_event && !grown) {
      grown = true;
      pending_state = {y[0], y[1], 0.0};
      return StepAction::restart;
    }
    pending_state.assign(y.begin(), y.end());
    return restart_at_event ? StepAction::restart : StepAction::proceed;
  }

  double event_level = std::numeric_limits<double>::quiet_NaN();
  bool restart_at_event = false, grow_at_event = false, grown = false;
  double t_not_finite = inf, t_simulation_error = inf, t_logic_error = inf;
  double t_throw_in_events = inf;
  std::vector<double> pending_state;

 private:
  double omega_;
};

/// y_i' = −λ_i·(y_i − cos t) − sin t, exact y_i = cos t from y_i(0) = 1: stiff for large λ_i.
class StiffSystem final : public ToyOde {
 public:
  explicit StiffSystem(std::vector<double> lambdas) : lambdas_(std::move(lambdas)) {}
  std::size_t state_size() const override { return lambdas_.size(); }
  std::size_t event_count() const override { return 0; }
  void event_values(double, std::span<const double>, std::span<double>) override {}
  void derivative(double t, std::span<const double> y, std::span<double> y_rate) override {
    ++derivative_calls;
    const double c = std::cos(t), s = std::sin(t);
    for (std::size_t i = 0; i < y.size(); ++i) y_rate[i] = -lambdas_[i] * (y[i] - c) - s;
  }

 private:
  std::vector<double> lambdas_;
};

/// θ̈ = −(g/L)·sin θ, y = [θ; θ̇]; one event function g = θ̇ (fires when θ̇ falls through 0, at
/// each maximum of θ).
class Pendulum final : public ToyOde {
 public:
  explicit Pendulum(double g_over_L) : g_over_L_(g_over_L) {}
  std::size_t configuration_size() const override { return 1; }
  std::size_t velocity_size() const override { return 1; }
  std::size_t state_size() const override { return 2; }
  std::size_t event_count() const override { return 1; }
  void event_values(double, std::span<const double> y, std::span<double> g) override {
    ++event_calls;
    g[0] = y[1];
  }
  void derivative(double, std::span<const double> y, std::span<double> y_rate) override {
    ++derivative_calls;
    y_rate[0] = y[1];
    y_rate[1] = -g_over_L_ * std::sin(y[0]);
  }

 private:
  double g_over_L_;
};

/// y' = 1 until the host switches its mode at the event y = 1 (g0 = 1 − y), then y' = −2 with a
/// second event function g1 = y + 0.5 (the event count grows without a restart): y = t up to
/// t = 1, y = 1 − 2(t − 1) after, the second event at t = 1.75.
class Switching final : public ToyOde {
 public:
  std::size_t state_size() const override { return 1; }
  std::size_t event_count() const override { return mode == 0 ? 1 : 2; }
  void event_values(double, std::span<const double> y, std::span<double> g) override {
    ++event_calls;
    g[0] = 1.0 - y[0];
    if (mode == 1) g[1] = y[0] + 0.5;
  }
  void derivative(double, std::span<const double>, std::span<double> y_rate) override {
    ++derivative_calls;
    y_rate[0] = mode == 0 ? 1.0 : -2.0;
  }
  StepAction on_event(double, std::span<const double>) override {
    mode = 1;
    return StepAction::proceed;
  }
  int mode = 0;
};

/// The output times the integrators promise on [t_start, t_end]: k·interval in (t_start, t_end)
/// (by more than 1e-9·interval before t_end), then t_end — computed as k·interval, not summed.
std::vector<double> expected_outputs(double t_start, double t_end, double interval) {
  std::vector<double> times;
  for (int k = 1;; ++k) {
    const double t = static_cast<double>(k) * interval;
    if (!(t < t_end - 1e-9 * interval)) break;
    if (t > t_start) times.push_back(t);
  }
  times.push_back(t_end);
  return times;
}

/// Complete elliptic integral of the first kind K(k) = π / (2·AGM(1, √(1 − k²))).
double elliptic_k(double k) {
  double a = 1.0, b = std::sqrt(1.0 - k * k);
  for (int i = 0; i < 60 && std::abs(a - b) > 1e-16 * a; ++i) {
    const double mean = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = mean;
  }
  return pi / (2.0 * a);
}

/// Runs `integrator` like the host: integrate(), and on restart_requested take the toy's pending
/// state (it may have grown) and integrate again from the returned time.
IntegrationResult run_with_restarts(Integrator& integrator, Oscillator& ode, double t_end,
                                    double interval, std::vector<double>& y, int* restarts) {
  IntegrationResult result = integrator.integrate(ode, 0.0, t_end, interval, y);
  while (result.status == IntegrationStatus::restart_requested) {
    ++*restarts;
    y = ode.pending_state;
    REQUIRE(y.size() == ode.state_size());
    result = integrator.integrate(ode, result.time_reached_s, t_end, interval, y);
  }
  return result;
}

}  // namespace

TEST_CASE(
    "sundials: cvode and arkode declare their parameters with defaults and ranges, are adaptive, "
    "locate events, restart, bad combinations are refused naming the parameter") {
  const auto cvode_schema = Cvode::schema();
  std::vector<std::string> names;
  for (const auto& spec : cvode_schema) names.push_back(spec.name);
  CHECK(names == std::vector<std::string>{"method", "nonlinear_solver", "max_order", "rtol", "atol",
                                          "max_step_s", "initial_step_s", "max_steps",
                                          "linear_solver", "krylov_dimension",
                                          "krylov_preconditioner"});
  names.clear();
  for (const auto& spec : Arkode::schema()) names.push_back(spec.name);
  CHECK(names == std::vector<std::string>{"method", "table", "interpolant_degree", "rtol", "atol",
                                          "max_step_s", "initial_step_s", "max_steps",
                                          "linear_solver", "krylov_dimension",
                                          "krylov_preconditioner"});
  CHECK(std::get<std::string>(cvode_schema[0].default_value) == "bdf");
  CHECK(cvode_schema[3].minimum_exclusive);  // rtol > 0
  CHECK(cvode_schema[5].unit == "s");

  for (const std::string& name : all_methods) {
    const auto capabilities = make_integrator(name)->capabilities();
    CHECK(capabilities.adaptive);
    CHECK(capabilities.root_finding);
    CHECK(capabilities.state_reset);
    CHECK_FALSE(capabilities.needs_mechanics_view);
    CHECK(capabilities.implicit == (name == "cvode bdf" || name == "arkode dirk"));
  }
  CHECK(
      make_cvode("adams", {{"nonlinear_solver", std::string("newton")}})->capabilities().implicit);
  CHECK(make_cvode("bdf")->settings().fixed_point == false);
  CHECK(make_cvode("adams")->settings().fixed_point == true);
  CHECK(make_arkode("erk")->settings().table == "zonneveld_5_3_4");
  CHECK(make_arkode("dirk")->settings().table == "sdirk_5_3_4");

  CHECK_THROWS_WITH(make_cvode("bdf", {{"max_order", std::int64_t{6}}}),
                    Catch::Contains("max_order = 6"));
  CHECK_NOTHROW(make_cvode("adams", {{"max_order", std::int64_t{12}}}));
  CHECK_THROWS_WITH(make_arkode("erk", {{"table", std::string("sdirk_5_3_4")}}),
                    Catch::Contains("params.table = 'sdirk_5_3_4'"));
  CHECK_THROWS_AS(make_arkode("dirk", {{"table", std::string("dormand_prince_7_4_5")}}),
                  contactlab::InputError);
}

TEST_CASE(
    "sundials: harmonic oscillator at rtol 1e-10 — error at t = 10 s below 1e-8 for cvode "
    "bdf/adams and arkode erk/dirk, dense outputs within 1e-8 of cos t at exactly k*0.7 s and "
    "t_end") {
  for (const std::string& name : all_methods) {
    DYNAMIC_SECTION(name) {
      Oscillator ode;
      std::vector<double> y = {1.0, 0.0};
      const auto integrator = make_integrator(name, {{"rtol", 1e-10}, {"atol", 1e-12}});
      const IntegrationResult result = integrator->integrate(ode, 0.0, 10.0, 0.7, y);
      REQUIRE(result.status == IntegrationStatus::completed);
      CHECK(result.time_reached_s == 10.0);
      const double error =
          std::max(std::abs(y[0] - std::cos(10.0)), std::abs(y[1] + std::sin(10.0)));
      INFO(name << ": error " << error << " in " << result.steps << " steps, "
                << result.rhs_evaluations << " f evaluations");
      CHECK(error < 1e-8);
      CHECK(ode.output_times == expected_outputs(0.0, 10.0, 0.7));
      double output_error = 0.0;
      for (std::size_t i = 0; i < ode.output_times.size(); ++i) {
        const double t = ode.output_times[i];
        output_error = std::max(output_error, std::abs(ode.output_states[i][0] - std::cos(t)));
        output_error = std::max(output_error, std::abs(ode.output_states[i][1] + std::sin(t)));
      }
      INFO("largest output error " << output_error);
      CHECK(output_error < 1e-8);
      CHECK(ode.out_of_order_steps == 0);
      // Every accepted step reaches the host, once.
      CHECK(result.steps == static_cast<std::int64_t>(ode.step_times.size()));
      CHECK(result.rhs_evaluations == ode.derivative_calls);
      CHECK(result.located_events == 0);
    }
  }
}

TEST_CASE(
    "sundials: counters — rhs_evaluations equals the OdeView's derivative calls and SUNDIALS' "
    "nfe + nfeLS, event_evaluations its event_values calls") {
  SECTION("cvode bdf, dense difference-quotient Jacobian") {
    Oscillator ode;
    ode.event_level = 0.5;
    std::vector<double> y = {1.0, 0.0};
    const auto integrator = make_cvode("bdf", {{"rtol", 1e-8}});
    const IntegrationResult result = integrator->integrate(ode, 0.0, 10.0, 1.0, y);
    REQUIRE(result.status == IntegrationStatus::completed);
    const auto& statistics = integrator->statistics();
    CHECK(result.rhs_evaluations == ode.derivative_calls);
    CHECK(result.rhs_evaluations ==
          statistics.integrator_rhs_evaluations + statistics.linear_solver_rhs_evaluations);
    CHECK(statistics.linear_solver_rhs_evaluations == 2 * statistics.jacobian_evaluations);
    CHECK(statistics.jacobian_evaluations > 0);
    CHECK(statistics.nonlinear_iterations >= statistics.steps);
    CHECK(result.event_evaluations == ode.event_calls);
    CHECK(result.event_evaluations == statistics.root_function_evaluations);
    CHECK(result.located_events == 2);
    CHECK(statistics.reinitializations == 2);
    CHECK(result.steps == statistics.steps);
    CHECK(result.rejected_steps ==
          statistics.error_test_failures + statistics.nonlinear_solve_failures);
  }
  SECTION("arkode erk") {
    Oscillator ode;
    std::vector<double> y = {1.0, 0.0};
    const auto integrator = make_arkode("erk");
    const IntegrationResult result = integrator->integrate(ode, 0.0, 10.0, 1.0, y);
    REQUIRE(result.status == IntegrationStatus::completed);
    CHECK(result.rhs_evaluations == ode.derivative_calls);
    CHECK(result.rhs_evaluations == integrator->statistics().integrator_rhs_evaluations);
    CHECK(integrator->statistics().jacobian_evaluations == 0);
  }
}

TEST_CASE(
    "sundials: stiff y' = -1000(y - cos t) - sin t on [0, 10] — cvode bdf and arkode erk within "
    "1e-5 of cos t, erk held by its stability limit to more than 2,000 steps",
    "[budget]") {
  StiffSystem bdf_ode({1000.0}), erk_ode({1000.0});
  std::vector<double> y_bdf = {1.0}, y_erk = {1.0};
  const Overrides tolerances = {{"rtol", 1e-6}, {"atol", 1e-9}};
  const IntegrationResult bdf =
      make_cvode("bdf", tolerances)->integrate(bdf_ode, 0.0, 10.0, 10.0, y_bdf);
  const IntegrationResult erk =
      make_arkode("erk", tolerances)->integrate(erk_ode, 0.0, 10.0, 10.0, y_erk);
  REQUIRE(bdf.status == IntegrationStatus::completed);
  REQUIRE(erk.status == IntegrationStatus::completed);
  INFO("bdf " << bdf.steps << " steps, " << bdf.rhs_evaluations << " f; erk " << erk.steps
              << " steps, " << erk.rhs_evaluations << " f; errors " << y_bdf[0] - std::cos(10.0)
              << ", " << y_erk[0] - std::cos(10.0));
  CHECK(std::abs(y_bdf[0] - std::cos(10.0)) < 1e-5);
  CHECK(std::abs(y_erk[0] - std::cos(10.0)) < 1e-5);
  // The explicit method runs at its stability limit: |h·λ| below ERK's real stability interval.
  CHECK(erk.steps > 10.0 * 1000.0 / 5.0);
  contactlab::testing::report_work_figure(
      "sundials.stiff_scalar.erk_over_bdf_steps", "",
      static_cast<double>(erk.steps) / static_cast<double>(bdf.steps));
}

TEST_CASE(
    "sundials: krylov (matrix-free SPGMR) and dense Newton solvers agree within 1e-6 on a "
    "100-state "
    "decoupled stiff system (lambda 1..1000), both within 1e-6 of cos t (cvode bdf, arkode "
    "dirk)") {
  std::vector<double> lambdas;
  for (int i = 0; i < 100; ++i) lambdas.push_back(std::pow(10.0, 3.0 * i / 99.0));
  for (const char* family : {"cvode bdf", "arkode dirk"}) {
    DYNAMIC_SECTION(family) {
      StiffSystem dense_ode(lambdas), krylov_ode(lambdas);
      std::vector<double> y_dense(100, 1.0), y_krylov(100, 1.0);
      // rtol 1e-7 for cvode (at 1e-6 its Krylov run lands 9e-7 from the dense one), 1e-6 for
      // the many-stage DIRK (whose Krylov run is the slow one).
      const bool cvode = std::string(family) == "cvode bdf";
      const Overrides tolerances = {{"rtol", cvode ? 1e-7 : 1e-6}, {"atol", 1e-10}};
      Overrides krylov_settings = tolerances;
      krylov_settings["linear_solver"] = std::string("krylov");
      const auto dense_integrator = make_integrator(family, tolerances);
      const auto krylov_integrator = make_integrator(family, krylov_settings);
      const IntegrationResult dense =
          dense_integrator->integrate(dense_ode, 0.0, 10.0, 10.0, y_dense);
      const IntegrationResult krylov =
          krylov_integrator->integrate(krylov_ode, 0.0, 10.0, 10.0, y_krylov);
      REQUIRE(dense.status == IntegrationStatus::completed);
      REQUIRE(krylov.status == IntegrationStatus::completed);
      double difference = 0.0, error = 0.0;
      for (std::size_t i = 0; i < 100; ++i) {
        difference = std::max(difference, std::abs(y_dense[i] - y_krylov[i]));
        error = std::max(error, std::abs(y_krylov[i] - std::cos(10.0)));
        error = std::max(error, std::abs(y_dense[i] - std::cos(10.0)));
      }
      const auto statistic = [](const Integrator& integrator) {
        if (auto cvode = dynamic_cast<const Cvode*>(&integrator)) return cvode->statistics();
        return dynamic_cast<const Arkode&>(integrator).statistics();
      };
      const auto dense_statistics = statistic(*dense_integrator);
      const auto krylov_statistics = statistic(*krylov_integrator);
      INFO(family << " dense: " << dense.steps << " steps, " << dense.rhs_evaluations << " f ("
                  << dense_statistics.jacobian_evaluations << " Jacobians, "
                  << dense_statistics.linear_solver_rhs_evaluations
                  << " for them); krylov: " << krylov.steps << " steps, " << krylov.rhs_evaluations
                  << " f (" << krylov_statistics.linear_iterations << " linear iterations, "
                  << krylov_statistics.jacobian_vector_products << " J*v); difference "
                  << difference << ", error " << error);
      CHECK(difference < 1e-6);
      CHECK(error < 1e-6);
      CHECK(krylov_statistics.jacobian_evaluations == 0);
      CHECK(krylov_statistics.linear_iterations > 0);
      CHECK(dense_statistics.jacobian_evaluations > 0);
      // A dense difference-quotient Jacobian costs 100 f evaluations.
      CHECK(dense_statistics.linear_solver_rhs_evaluations ==
            100 * dense_statistics.jacobian_evaluations);
      // Every J*v product is one difference-quotient f evaluation.
      CHECK(krylov_statistics.linear_solver_rhs_evaluations ==
            krylov_statistics.jacobian_vector_products);
    }
  }
}

TEST_CASE(
    "sundials: events — q = cos t falling through 0.5 is located at pi/3 within 1e-9 s and at "
    "7pi/3 within 1e-8 s, the rising crossing at 5pi/3 does not fire, the host sees q <= 0.5") {
  for (const std::string& name : all_methods) {
    DYNAMIC_SECTION(name) {
      Oscillator ode;
      ode.event_level = 0.5;
      std::vector<double> y = {1.0, 0.0};
      ode.arm(0.0, y);
      const auto integrator = make_integrator(name, {{"rtol", 1e-10}, {"atol", 1e-12}});
      const IntegrationResult result = integrator->integrate(ode, 0.0, 10.0, 0.25, y);
      REQUIRE(result.status == IntegrationStatus::completed);
      REQUIRE(ode.event_times.size() == 2);
      CHECK(result.located_events == 2);
      INFO("events at " << ode.event_times[0] - pi / 3.0 << ", " << ode.event_times[1] - 7 * pi / 3
                        << " from pi/3, 7pi/3");
      CHECK(std::abs(ode.event_times[0] - pi / 3.0) < 1e-9);
      // Seven seconds later the solution itself carries the global error of rtol 1e-10.
      CHECK(std::abs(ode.event_times[1] - 7.0 * pi / 3.0) < 1e-8);
      for (const auto& state : ode.event_states) {
        CHECK(state[0] <= 0.5);
        CHECK(state[0] > 0.5 - 1e-9);
      }
      // Every event is a step end, the grid is untouched, the solution goes on accurately.
      CHECK(ode.output_times == expected_outputs(0.0, 10.0, 0.25));
      CHECK(ode.out_of_order_steps == 0);
      CHECK(std::abs(y[0] - std::cos(10.0)) < 1e-8);
    }
  }
}

TEST_CASE(
    "sundials: the host changes f and adds an event function at a located event without a "
    "restart — the solver restarts from the event (events at 1 s and 1.75 s within 1e-12 s, "
    "y(2) = -1 within 1e-10)") {
  for (const std::string& name : all_methods) {
    DYNAMIC_SECTION(name) {
      Switching ode;
      std::vector<double> y = {0.0};
      ode.arm(0.0, y);
      const IntegrationResult result =
          make_integrator(name, {{"rtol", 1e-8}})->integrate(ode, 0.0, 2.0, 0.1, y);
      REQUIRE(result.status == IntegrationStatus::completed);
      REQUIRE(ode.event_times.size() == 2);
      CHECK(std::abs(ode.event_times[0] - 1.0) < 1e-12);
      CHECK(std::abs(ode.event_times[1] - 1.75) < 1e-12);
      CHECK(result.located_events == 2);
      // Had the solver kept the step it took past t = 1 with y' = 1, y would be off by 3·(t_n − 1).
      CHECK(std::abs(y[0] + 1.0) < 1e-10);
      for (std::size_t i = 0; i < ode.output_times.size(); ++i) {
        const double t = ode.output_times[i];
        CHECK(std::abs(ode.output_states[i][0] - (t <= 1.0 ? t : 1.0 - 2.0 * (t - 1.0))) < 1e-10);
      }
    }
  }
}

TEST_CASE(
    "sundials: an event function exactly 0 at the start is not a root, the next downward "
    "crossing (7pi/3 from q(pi/3) = 0.5) is located within 1e-8 s") {
  for (const char* name : {"cvode bdf", "arkode erk"}) {
    DYNAMIC_SECTION(name) {
      Oscillator ode;
      ode.event_level = 0.5;
      const double t0 = pi / 3.0;
      std::vector<double> y = {0.5, -std::sqrt(0.75)};  // (cos t0, −sin t0) with cos t0 = 0.5
      ode.arm(t0, y);
      const auto integrator = make_integrator(name, {{"rtol", 1e-10}, {"atol", 1e-12}});
      const IntegrationResult result = integrator->integrate(ode, t0, 8.0, 1.0, y);
      REQUIRE(result.status == IntegrationStatus::completed);
      REQUIRE(ode.event_times.size() == 1);
      CHECK(std::abs(ode.event_times[0] - 7.0 * pi / 3.0) < 1e-8);
      CHECK(result.located_events == 1);
    }
  }
}

TEST_CASE(
    "sundials: restart at the event returns restart_requested at pi/3 (within 1e-9 s), "
    "integrate() from there, with a third state appended, continues on the absolute output grid "
    "and x = q - q_event within 1e-8") {
  for (const std::string& name : all_methods) {
    DYNAMIC_SECTION(name) {
      Oscillator ode;
      ode.event_level = 0.5;
      ode.grow_at_event = true;
      std::vector<double> y = {1.0, 0.0};
      ode.arm(0.0, y);
      const auto integrator = make_integrator(name, {{"rtol", 1e-10}, {"atol", 1e-12}});
      IntegrationResult result = integrator->integrate(ode, 0.0, 4.0, 0.25, y);
      REQUIRE(result.status == IntegrationStatus::restart_requested);
      REQUIRE(ode.event_times.size() == 1);
      CHECK(result.time_reached_s == ode.event_times[0]);
      CHECK(std::abs(result.time_reached_s - pi / 3.0) < 1e-9);
      CHECK(ode.output_times == std::vector<double>{0.25, 0.5, 0.75, 1.0});
      // The host's side: the state grows to [q; v; x].
      y = ode.pending_state;
      REQUIRE(y.size() == 3);
      const double q_event = y[0];
      result = integrator->integrate(ode, result.time_reached_s, 4.0, 0.25, y);
      REQUIRE(result.status == IntegrationStatus::completed);
      CHECK(ode.output_times == expected_outputs(0.0, 4.0, 0.25));
      CHECK(ode.output_states.back().size() == 3);
      CHECK(ode.output_states.front().size() == 2);
      CHECK(std::abs(y[0] - std::cos(4.0)) < 1e-8);
      CHECK(std::abs(y[2] - (std::cos(4.0) - q_event)) < 1e-8);
      CHECK(ode.out_of_order_steps == 0);
    }
  }
}

TEST_CASE(
    "sundials: restarts at every event (restart, no growth) over [0, 20] — four restarts at "
    "pi/3 + 2 pi k within 3e-8 s, each as close as the solution's own error allows (1e-11 s), "
    "and the output grid intact") {
  for (const char* name : {"cvode bdf", "arkode dirk"}) {
    DYNAMIC_SECTION(name) {
      Oscillator ode;
      ode.event_level = 0.5;
      ode.restart_at_event = true;
      std::vector<double> y = {1.0, 0.0};
      ode.arm(0.0, y);
      const auto integrator = make_integrator(name, {{"rtol", 1e-10}, {"atol", 1e-12}});
      int restarts = 0;
      const IntegrationResult result = run_with_restarts(*integrator, ode, 20.0, 0.5, y, &restarts);
      REQUIRE(result.status == IntegrationStatus::completed);
      CHECK(restarts == 4);  // π/3 + 2πk < 20 for k = 0..3
      REQUIRE(ode.event_times.size() == 4);
      for (int k = 0; k < 4; ++k) {
        const double t_exact = pi / 3.0 + 2.0 * pi * k;
        const double t_event = ode.event_times[k];
        CHECK(std::abs(t_event - t_exact) < 3e-8);
        // The root of the numerical q − 0.5 lies |q − cos t|/|q̇| from the exact one: the locator
        // adds nothing (CVODE's and ARKODE's root tolerance is ~100 ulp of t).
        const double solution_error = ode.event_states[k][0] - std::cos(t_event);
        CHECK(std::abs(t_event - t_exact) <
              1.01 * std::abs(solution_error) / std::sin(t_exact) + 1e-11);
      }
      CHECK(ode.output_times == expected_outputs(0.0, 20.0, 0.5));
      CHECK(std::abs(y[0] - std::cos(20.0)) < 1e-8);
    }
  }
}

TEST_CASE(
    "sundials: large-amplitude pendulum (theta0 = 2.5 rad) — the period between two located "
    "maxima matches 4 sqrt(L/g) K(sin(theta0/2)) within 1e-6 relative (cvode bdf, rtol 1e-10)") {
  const double g_over_L = 9.81 / 1.0;
  const double theta0 = 2.5;
  const double period = 4.0 / std::sqrt(g_over_L) * elliptic_k(std::sin(0.5 * theta0));
  // The small-angle period is 2.006 s; at 2.5 rad the period is much longer.
  REQUIRE(period > 1.5 * 2.0 * pi / std::sqrt(g_over_L));
  const std::vector<std::string> methods = {"cvode bdf", "cvode adams", "arkode erk",
                                            "arkode dirk"};
  for (const std::string& name : methods) {
    DYNAMIC_SECTION(name) {
      Pendulum ode(g_over_L);
      std::vector<double> y = {theta0, 0.0};  // θ̇ = 0: the event function starts at exactly 0
      ode.arm(0.0, y);
      const auto integrator = make_integrator(name, {{"rtol", 1e-10}, {"atol", 1e-12}});
      const IntegrationResult result = integrator->integrate(ode, 0.0, 2.5 * period, 0.01, y);
      REQUIRE(result.status == IntegrationStatus::completed);
      REQUIRE(ode.event_times.size() == 2);  // the maxima at T and 2T (not at t = 0)
      const double measured = ode.event_times[1] - ode.event_times[0];
      INFO(name << ": period " << measured << " vs " << period << ", relative error "
                << (measured - period) / period << "; first maximum at " << ode.event_times[0]
                << ", " << result.steps << " steps");
      CHECK(std::abs(measured - period) < 1e-6 * period);
      CHECK(std::abs(ode.event_times[0] - period) < 1e-6 * period);
      CHECK(std::abs(ode.event_states[1][0] - theta0) < 1e-6);
    }
  }
}

TEST_CASE(
    "sundials: step_completed returning stop ends the run as interrupted at that step with y "
    "holding the state the host saw") {
  for (const std::string& name : all_methods) {
    DYNAMIC_SECTION(name) {
      Oscillator ode;
      ode.stop_after_steps = 7;
      std::vector<double> y = {1.0, 0.0};
      const IntegrationResult result = make_integrator(name)->integrate(ode, 0.0, 10.0, 0.1, y);
      CHECK(result.status == IntegrationStatus::interrupted);
      CHECK(ode.step_times.size() == 7);
      CHECK(result.time_reached_s == ode.step_times.back());
      CHECK(y == ode.last_state);
      CHECK_THAT(result.message, Catch::Contains("interrupted"));
    }
  }
}

TEST_CASE(
    "sundials: failures — a derivative that turns NaN after t = 1 s, or throws SimulationError, "
    "fails with SUNDIALS' flag name and the reason near t = 1 s, max_steps too small fails with "
    "TOO_MUCH_WORK") {
  for (const std::string& name : all_methods) {
    const std::string prefix = name.rfind("cvode", 0) == 0 ? "CV_" : "ARK_";
    DYNAMIC_SECTION(name << ": NaN") {
      Oscillator ode;
      ode.t_not_finite = 1.0;
      std::vector<double> y = {1.0, 0.0};
      const IntegrationResult result = make_integrator(name)->integrate(ode, 0.0, 5.0, 0.1, y);
      INFO(result.message);
      REQUIRE(result.status == IntegrationStatus::failed);
      CHECK_THAT(result.message, Catch::Contains(prefix));
      CHECK_THAT(result.message, Catch::Contains("is not finite"));
      CHECK(result.time_reached_s <= 1.0);
      CHECK(result.time_reached_s > 0.9);
      CHECK(std::isfinite(y[0]));
      CHECK(y[0] == Approx(ode.last_state[0]).margin(1e-12));
      CHECK(y[1] == Approx(ode.last_state[1]).margin(1e-12));
      CHECK(ode.out_of_order_steps == 0);
    }
    DYNAMIC_SECTION(name << ": SimulationError") {
      Oscillator ode;
      ode.t_simulation_error = 1.0;
      std::vector<double> y = {1.0, 0.0};
      const IntegrationResult result = make_integrator(name)->integrate(ode, 0.0, 5.0, 0.1, y);
      INFO(result.message);
      REQUIRE(result.status == IntegrationStatus::failed);
      CHECK_THAT(result.message, Catch::Contains(prefix));
      CHECK_THAT(result.message, Catch::Contains("toy: the state left its range"));
      CHECK(result.time_reached_s <= 1.0);
      CHECK(result.time_reached_s > 0.9);
    }
    DYNAMIC_SECTION(name << ": max_steps") {
      Oscillator ode;
      std::vector<double> y = {1.0, 0.0};
      const IntegrationResult result =
          make_integrator(name, {{"max_steps", std::int64_t{5}}, {"rtol", 1e-10}})
              ->integrate(ode, 0.0, 5.0, 1.0, y);
      INFO(result.message);
      REQUIRE(result.status == IntegrationStatus::failed);
      CHECK_THAT(result.message, Catch::Contains(prefix + "TOO_MUCH_WORK"));
      CHECK(ode.step_times.size() == 5);
      CHECK(ode.output_times.empty());
      CHECK(result.time_reached_s == ode.step_times.back());
    }
  }
}

TEST_CASE(
    "sundials: other exceptions from derivative or event_values propagate, a wrong state size "
    "or a backward span fails with a message, an empty span completes with no step") {
  for (const char* name : {"cvode bdf", "arkode erk"}) {
    DYNAMIC_SECTION(name) {
      {
        Oscillator ode;
        ode.t_logic_error = 0.5;
        std::vector<double> y = {1.0, 0.0};
        CHECK_THROWS_AS(make_integrator(name)->integrate(ode, 0.0, 1.0, 0.1, y), std::logic_error);
      }
      {
        Oscillator ode;
        ode.event_level = 0.5;
        ode.t_throw_in_events = 0.0;
        std::vector<double> y = {1.0, 0.0};
        CHECK_THROWS_AS(make_integrator(name)->integrate(ode, 0.0, 1.0, 0.1, y),
                        std::runtime_error);
      }
      Oscillator ode;
      std::vector<double> y = {1.0, 0.0};
      const auto integrator = make_integrator(name);
      IntegrationResult result = integrator->integrate(ode, 2.0, 2.0, 0.1, y);
      CHECK(result.status == IntegrationStatus::completed);
      CHECK(result.steps == 0);
      CHECK(ode.output_times.empty());
      result = integrator->integrate(ode, 2.0, 1.0, 0.1, y);
      CHECK(result.status == IntegrationStatus::failed);
      CHECK_THAT(result.message, Catch::Contains("forward interval"));
      std::vector<double> wrong = {1.0, 0.0, 0.0};
      result = integrator->integrate(ode, 0.0, 1.0, 0.1, wrong);
      CHECK(result.status == IntegrationStatus::failed);
      CHECK_THAT(result.message, Catch::Contains("the ODE has 2"));
    }
  }
}

TEST_CASE(
    "sundials: arkode dormand_prince_7_4_5 with a cubic Hermite dense output (interpolant_degree "
    "3) spends no f evaluation on 10^4 outputs, also after the re-initialisations at events, "
    "outputs within 1e-6 of cos t at rtol 1e-8") {
  auto run = [](double interval, int degree, std::vector<double>* output_error) {
    Oscillator ode;
    ode.event_level = 0.5;
    std::vector<double> y = {1.0, 0.0};
    ode.arm(0.0, y);
    const auto integrator = make_arkode("erk", {{"table", std::string("dormand_prince_7_4_5")},
                                                {"interpolant_degree", std::int64_t{degree}},
                                                {"rtol", 1e-8},
                                                {"atol", 1e-10}});
    const IntegrationResult result = integrator->integrate(ode, 0.0, 10.0, interval, y);
    REQUIRE(result.status == IntegrationStatus::completed);
    REQUIRE(ode.event_times.size() == 2);
    if (output_error) {
      for (std::size_t i = 0; i < ode.output_times.size(); ++i) {
        output_error->push_back(std::abs(ode.output_states[i][0] - std::cos(ode.output_times[i])));
      }
    }
    return result.rhs_evaluations;
  };
  std::vector<double> errors;
  const std::int64_t sparse = run(10.0, 3, nullptr);
  const std::int64_t dense = run(1e-3, 3, &errors);
  CHECK(dense == sparse);
  REQUIRE(errors.size() == 10000);
  CHECK(*std::max_element(errors.begin(), errors.end()) < 1e-6);
  // ARKODE's own choice for an order-5 table (degree 4) evaluates f once per output.
  CHECK(run(1e-3, 0, nullptr) >= run(10.0, 0, nullptr) + 9999);
}

TEST_CASE(
    "sundials: max_step_s bounds every step (cvode adams, arkode erk), an output interval beyond "
    "t_end gives only t_end") {
  for (const char* name : {"cvode adams", "arkode erk"}) {
    DYNAMIC_SECTION(name) {
      Oscillator ode;
      std::vector<double> y = {1.0, 0.0};
      const IntegrationResult result =
          make_integrator(name, {{"max_step_s", 0.01}})->integrate(ode, 0.0, 1.0, 5.0, y);
      REQUIRE(result.status == IntegrationStatus::completed);
      double previous = 0.0;
      for (double t : ode.step_times) {
        CHECK(t - previous <= 0.01 * (1.0 + 1e-12));
        previous = t;
      }
      CHECK(ode.step_times.size() >= 100);
      CHECK(ode.output_times == std::vector<double>{1.0});
    }
  }
}
