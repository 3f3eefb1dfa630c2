#include "sundials_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

ParameterSchema sundials_common_schema(bool implicit_solvers) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec rtol =
      real_parameter("rtol", 1e-6, 0.0, 1.0, "",
                     "Relative tolerance of the local error test (the weight of component i is "
                     "1/(rtol*|y_i| + atol)).");
  rtol.minimum_exclusive = true;
  ParameterSpec atol = real_parameter(
      "atol", 1e-9, 0.0, inf, "",
      "Absolute tolerance, the same for every state component in its own SI unit (m, rad, m/s, "
      "rad/s, contact states).");
  atol.minimum_exclusive = true;
  atol.maximum_exclusive = true;
  ParameterSpec max_step = real_parameter("max_step_s", 0.0, 0.0, inf, "s",
                                          "Largest step the solver may take; 0: unlimited.");
  max_step.maximum_exclusive = true;
  ParameterSpec initial_step = real_parameter(
      "initial_step_s", 0.0, 0.0, inf, "s",
      "First step after the start and after each located event; 0: the solver's estimate.");
  initial_step.maximum_exclusive = true;
  ParameterSchema schema = {
      rtol, atol, max_step, initial_step,
      integer_parameter("max_steps", 100000, 1, std::numeric_limits<std::int64_t>::max(),
                        "Internal steps allowed between two output times (and before the first); "
                        "more fail the run with TOO_MUCH_WORK.")};
  if (implicit_solvers) {
    schema.push_back(choice_parameter(
        "linear_solver", "dense", {"dense", "krylov"},
        "Linear solver of the Newton iterations (cvode with newton, arkode dirk): dense (direct, "
        "difference-quotient Jacobian, "
        "for small systems) or krylov (matrix-free SPGMR, difference-quotient J*v products, no "
        "preconditioner, for large systems)."));
    schema.push_back(
        integer_parameter("krylov_dimension", 5, 1, 500,
                          "Maximum Krylov subspace dimension of SPGMR (linear_solver: krylov)."));
  }
  return schema;
}

SundialsSettings sundials_common_settings(const ParameterValues& params, bool implicit_solvers) {
  SundialsSettings settings;
  settings.rtol = params.real("rtol");
  settings.atol = params.real("atol");
  settings.max_step_s = params.real("max_step_s");
  settings.initial_step_s = params.real("initial_step_s");
  settings.max_steps = params.integer("max_steps");
  if (implicit_solvers) {
    settings.linear_solver = params.text("linear_solver") == "krylov" ? LinearSolverKind::krylov
                                                                      : LinearSolverKind::dense;
    settings.krylov_dimension = params.integer("krylov_dimension");
  }
  return settings;
}

namespace sundials_detail {
namespace {

std::string format_time(double t_s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", t_s);
  return buffer;
}

std::span<double> values(N_Vector v) {
  return {N_VGetArrayPointer(v), static_cast<std::size_t>(N_VGetLength(v))};
}

/// The absolute output grid k·interval in (t_start, t_end) followed by t_end.
class OutputGrid {
 public:
  OutputGrid(double t_start, double t_end, double interval)
      : t_end_(t_end),
        interval_(interval),
        periodic_(std::isfinite(interval) && interval > 0.0),
        merge_(periodic_ ? 1e-9 * interval : 0.0) {
    index_ = periodic_ ? static_cast<std::int64_t>(std::floor(t_start / interval)) : 0;
    do advance();
    while (target_ <= t_start && target_ < t_end_);
  }
  double target() const { return target_; }
  void advance() {
    ++index_;
    const double t = static_cast<double>(index_) * interval_;
    target_ = periodic_ && t < t_end_ - merge_ ? t : t_end_;
  }

 private:
  double t_end_, interval_;
  bool periodic_;
  double merge_;
  std::int64_t index_ = 0;
  double target_ = 0.0;
};

}  // namespace

int OdeBridge::rhs(double t, N_Vector y, N_Vector y_rate, void* self) {
  OdeBridge& bridge = *static_cast<OdeBridge*>(self);
  const std::span<double> rate = values(y_rate);
  ++bridge.rhs_calls;
  try {
    bridge.ode_->derivative(t, values(y), rate);
  } catch (const SimulationError& error) {
    bridge.last_rhs_failure = error.what();
    return 1;
  } catch (...) {
    bridge.fatal_ = std::current_exception();
    return -1;
  }
  for (std::size_t i = 0; i < rate.size(); ++i) {
    if (std::isfinite(rate[i])) continue;
    bridge.last_rhs_failure = "the derivative's component " + std::to_string(i) +
                              " is not finite (" + std::to_string(rate[i]) +
                              ") at t = " + format_time(t) + " s";
    return 1;
  }
  return 0;
}

int OdeBridge::roots(double t, N_Vector y, double* g, void* self) {
  OdeBridge& bridge = *static_cast<OdeBridge*>(self);
  ++bridge.event_calls;
  try {
    bridge.ode_->event_values(t, values(y), std::span<double>(g, bridge.event_count));
  } catch (...) {
    bridge.fatal_ = std::current_exception();
    return -1;
  }
  return 0;
}

void OdeBridge::error_handler(int error_code, const char* /*module*/, const char* function,
                              char* message, void* self) {
  OdeBridge& bridge = *static_cast<OdeBridge*>(self);
  std::string text = std::string(function ? function : "") + ": " + (message ? message : "");
  // Warnings (e.g. "t + h = t on the next step") do not stop the solver; the driver reports the
  // last one if the run fails.
  (error_code < 0 ? bridge.last_error : bridge.last_warning) = std::move(text);
}

void OdeBridge::rethrow_fatal() {
  if (!fatal_) return;
  std::exception_ptr fatal = fatal_;
  fatal_ = nullptr;
  std::rethrow_exception(fatal);
}

std::string take_flag_name(char* name) {
  if (!name) return "unknown flag";
  std::string text(name);
  std::free(name);
  return text;
}

IntegrationResult drive(Stepper& stepper, OdeView& ode, double t_start, double t_end,
                        double output_interval_s, std::span<double> y, std::int64_t max_steps,
                        SundialsStatistics& statistics) {
  statistics = {};
  IntegrationResult result;
  result.time_reached_s = t_start;
  const std::string name = stepper.name();
  const std::size_t n = ode.state_size();
  if (y.size() != n || n == 0) {
    result.status = IntegrationStatus::failed;
    result.message = name + ": the state has " + std::to_string(y.size()) +
                     " values but the ODE has " + std::to_string(n) +
                     (n == 0 ? " (SUNDIALS needs at least one state)" : "");
    return result;
  }
  if (!std::isfinite(t_start) || !std::isfinite(t_end) || t_end < t_start) {
    result.status = IntegrationStatus::failed;
    result.message = name + ": the time span [" + format_time(t_start) + ", " + format_time(t_end) +
                     "] s is not a finite, forward interval";
    return result;
  }
  if (t_end == t_start) return result;

  // Everything SUNDIALS lives for this call only (a restart may change the state's size): the
  // context first, then the vectors, then the stepper's solver, freed in the reverse order.
  struct Context {
    SUNContext context = nullptr;
    ~Context() {
      if (context) SUNContext_Free(&context);
    }
  } context;
  if (SUNContext_Create(nullptr, &context.context) != 0) {
    result.status = IntegrationStatus::failed;
    result.message = name + ": SUNContext_Create failed";
    return result;
  }
  OdeBridge bridge(ode);
  const auto length = static_cast<sunindextype>(n);
  // The solver writes each returned state straight into the caller's buffer.
  const Vector y_vector(N_VMake_Serial(length, y.data(), context.context));
  const Vector dense(N_VNew_Serial(length, context.context));
  const std::span<double> y_dense = values(dense.get());

  // Frees the stepper's SUNDIALS objects before the vectors and the context they use.
  struct Release {
    Stepper& stepper;
    ~Release() { stepper.release(); }
  } release{stepper};
  std::int64_t located = 0;
  auto finish = [&](IntegrationStatus status, std::string message) {
    stepper.add_statistics(statistics);
    result.status = status;
    result.message = std::move(message);
    result.steps = statistics.steps;
    result.rejected_steps = statistics.error_test_failures + statistics.nonlinear_solve_failures;
    result.rhs_evaluations = bridge.rhs_calls;
    result.event_evaluations = bridge.event_calls;
    result.located_events = located;
    result.jacobian_evaluations = statistics.jacobian_evaluations;
    result.nonlinear_iterations = statistics.nonlinear_iterations;
    return result;
  };
  // A failure reports the solver's time in the message; time_reached_s stays at the last state
  // the host accepted, which is what y holds (CVODE and ARKODE return y(t_n) on failure).
  auto failure = [&](int flag, double t) {
    std::string message =
        name + ": " + stepper.flag_name(flag) + " at t = " + format_time(t) + " s";
    if (!bridge.last_error.empty()) message += " (" + bridge.last_error + ")";
    if (!bridge.last_rhs_failure.empty())
      message += "; last derivative failure: " + bridge.last_rhs_failure;
    return finish(IntegrationStatus::failed, std::move(message));
  };

  bridge.event_count = ode.event_count();
  int flag = stepper.initialize(context.context, bridge, t_start, y_vector.get(), t_end);
  bridge.rethrow_fatal();
  if (flag >= 0) {
    // Steps below a few ulp of t cannot advance t (CVODE and ARKODE would only warn "t + h = t"
    // and keep stepping on the spot, e.g. when f fails for every t beyond the current one): with
    // this floor the solver fails instead, with its own flag (error test or convergence failures
    // "with |h| = hmin").
    const double t_scale = std::max(std::abs(t_start), std::abs(t_end));
    flag = stepper.set_min_step(8.0 * std::numeric_limits<double>::epsilon() * t_scale);
  }
  if (flag < 0) return failure(flag, t_start);

  OutputGrid grid(t_start, t_end, output_interval_s);
  std::int64_t steps_since_output = 0;
  double t = t_start;
  for (;;) {
    flag = stepper.step(t_end, y_vector.get(), t);
    bridge.rethrow_fatal();
    if (flag < 0) return failure(flag, t);
    if (t > t_end) {
      // A stepper without a stop time stepped past t_end (or found a root there): the run ends
      // at t_end, on the step's dense output.
      const int dky = stepper.interpolate(t_end, y_vector.get());
      if (dky < 0) return failure(dky, t_end);
      t = t_end;
      flag = 0;
    }
    if (!(t > result.time_reached_s)) {
      // The step size fell below the resolution of t (CVODE and ARKODE only warn, "t + h = t",
      // and would go on taking steps that stay at t): typically f fails (is not finite, throws a
      // SimulationError) for every t beyond this one.
      std::string message = name + ": the steps no longer advance t = " + format_time(t) + " s";
      if (!bridge.last_warning.empty()) message += " (" + bridge.last_warning + ")";
      if (!bridge.last_rhs_failure.empty())
        message += "; last derivative failure: " + bridge.last_rhs_failure;
      return finish(IntegrationStatus::failed, std::move(message));
    }
    result.time_reached_s = t;
    // Dense output at the grid times this step passed (before the host sees the step's end).
    while (grid.target() < t) {
      const int dky = stepper.interpolate(grid.target(), dense.get());
      if (dky < 0) return failure(dky, grid.target());
      ode.output(grid.target(), y_dense);
      grid.advance();
      steps_since_output = 0;
    }
    const bool at_event = flag == flag_root_return;
    if (at_event) ++located;
    const StepAction action = ode.step_completed(t, y);
    if (action == StepAction::stop)
      return finish(IntegrationStatus::interrupted,
                    "interrupted by the host at t = " + format_time(t) + " s");
    if (action == StepAction::restart) return finish(IntegrationStatus::restart_requested, "");
    if (t == grid.target()) {
      ode.output(t, y);
      grid.advance();
      steps_since_output = 0;
    }
    if (t >= t_end) return finish(IntegrationStatus::completed, "");
    if (at_event || ode.event_count() != bridge.event_count) {
      // The host handled the event (births, deaths, law modes) and may have changed f and g:
      // restart the method from the event's state, with the host's new event functions.
      stepper.add_statistics(statistics);
      ++statistics.reinitializations;
      bridge.event_count = ode.event_count();
      flag = stepper.reinitialize(t, y_vector.get(), t_end);
      bridge.rethrow_fatal();
      if (flag < 0) return failure(flag, t);
    }
    if (++steps_since_output >= max_steps) {
      // CVODE's and ARKODE's own mxstep counts steps per call, i.e. never fires in one-step mode:
      // the same limit, per output interval, is applied here under the solver's flag name.
      IntegrationResult failed = failure(flag_too_much_work, t);
      failed.message +=
          ": max_steps = " + std::to_string(max_steps) +
          " steps since the last output time without reaching t = " + format_time(grid.target()) +
          " s";
      return failed;
    }
  }
}

}  // namespace sundials_detail
}  // namespace contactlab::plugins
