#include "sundials_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <new>
#include <stdexcept>

#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>
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
        "linear_solver", "dense", {"dense", "krylov", "sparse"},
        "Linear solver of the Newton iterations (cvode with newton, arkode dirk): dense (direct, "
        "difference-quotient Jacobian, n extra f per Jacobian, for small systems), krylov "
        "(matrix-free SPGMR, difference-quotient J*v products, no preconditioner) or sparse "
        "(KLU on a sparse Jacobian by coloured difference quotients over the host's state "
        "coupling: one extra f per colour, a number that does not grow with the number of "
        "bodies when each touches only a few others; for large scenes)."));
    schema.push_back(
        integer_parameter("krylov_dimension", 5, 1, 500,
                          "Maximum Krylov subspace dimension of SPGMR (linear_solver: krylov)."));
    schema.push_back(choice_parameter(
        "krylov_preconditioner", "none", {"none", "coloured"},
        "Preconditioner of SPGMR (linear_solver: krylov): none, or coloured (on the left: KLU of "
        "I - gamma*J with J by coloured difference quotients over the host's state coupling, "
        "as linear_solver: sparse builds it; J refreshed when SUNDIALS asks)."));
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
    const std::string& linear_solver = params.text("linear_solver");
    settings.linear_solver = linear_solver == "krylov"   ? LinearSolverKind::krylov
                             : linear_solver == "sparse" ? LinearSolverKind::sparse
                                                         : LinearSolverKind::dense;
    settings.krylov_dimension = params.integer("krylov_dimension");
    settings.krylov_coloured_preconditioner = params.text("krylov_preconditioner") == "coloured";
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

static_assert(sizeof(sunindextype) == sizeof(std::int64_t),
              "SparsityPattern's indices are copied into SUNDIALS' sunindextype arrays");

void ColouredJacobian::attach(void* solver, WeightsFunction weights, StepFunction step,
                              SUNLinearSolver klu, N_Vector like) {
  release();
  solver_ = solver;
  weights_function_ = weights;
  step_function_ = step;
  klu_ = klu;
  weights_ = N_VClone(like);
  built_ = false;
}

void ColouredJacobian::release() {
  if (weights_) N_VDestroy(weights_);
  weights_ = nullptr;
  klu_ = nullptr;
  solver_ = nullptr;
}

void ColouredJacobian::take_statistics(SundialsStatistics& statistics, bool count_evaluations) {
  if (count_evaluations) statistics.jacobian_evaluations += evaluations_;
  evaluations_ = 0;
  statistics.jacobian_rhs_evaluations += rhs_evaluations_;
  statistics.jacobian_structure_builds += structure_builds_;
  statistics.jacobian_colours =
      std::max(statistics.jacobian_colours, static_cast<std::int64_t>(colours_));
  statistics.jacobian_nonzeros =
      std::max(statistics.jacobian_nonzeros, static_cast<std::int64_t>(pattern_.nonzeros()));
  rhs_evaluations_ = 0;
  structure_builds_ = 0;
}

void ColouredJacobian::refresh(OdeView& ode, SUNMatrix jacobian) {
  const auto n = static_cast<std::size_t>(SUNSparseMatrix_Columns(jacobian));
  const std::uint64_t revision = ode.state_coupling_revision();
  if (built_ && revision == revision_ && pattern_.n == n) return;
  // Allocation is fine here: the structure changes only when contacts are born or die.
  ode.state_coupling(coupling_);
  pattern_ = pattern_from_coupling(coupling_, n);
  colours_ = colour_columns(pattern_, colour_);
  colour_start_.assign(colours_ + 1, 0);
  for (std::int32_t c : colour_) ++colour_start_[static_cast<std::size_t>(c) + 1];
  for (std::size_t c = 0; c < colours_; ++c) colour_start_[c + 1] += colour_start_[c];
  colour_columns_.resize(n);
  std::vector<std::size_t> next(colour_start_.begin(), colour_start_.end() - 1);
  for (std::size_t j = 0; j < n; ++j)
    colour_columns_[next[static_cast<std::size_t>(colour_[j])]++] = j;
  increment_.assign(n, 0.0);
  const auto nonzeros = static_cast<sunindextype>(pattern_.nonzeros());
  if (SUNSparseMatrix_NNZ(jacobian) < nonzeros &&
      SUNSparseMatrix_Reallocate(jacobian, nonzeros) != 0)
    throw std::bad_alloc();
  // A new structure: KLU analyses it afresh at the next setup (the old symbolic factorisation
  // belongs to another pattern).
  if (SUNLinSol_KLUReInit(klu_, jacobian, nonzeros, SUNKLU_REINIT_PARTIAL) != 0)
    throw std::runtime_error("SUNLinSol_KLUReInit failed");
  revision_ = revision;
  built_ = true;
  ++structure_builds_;
}

int ColouredJacobian::evaluate(double t, N_Vector y, N_Vector fy, SUNMatrix jacobian,
                               void* user_data, N_Vector tmp1, N_Vector tmp2, N_Vector /*tmp3*/) {
  OdeBridge& bridge = *static_cast<OdeBridge*>(user_data);
  ColouredJacobian& self =
      bridge.preconditioner ? bridge.preconditioner->jacobian() : *bridge.jacobian;
  try {
    self.refresh(bridge.ode(), jacobian);
  } catch (...) {
    bridge.keep_fatal();
    return -1;
  }
  double h = 0.0;
  if (self.weights_function_(self.solver_, self.weights_) < 0 ||
      self.step_function_(self.solver_, &h) < 0)
    return -1;
  const SparsityPattern& pattern = self.pattern_;
  const std::size_t n = pattern.n;
  sunindextype* column_start = SUNSparseMatrix_IndexPointers(jacobian);
  sunindextype* row_index = SUNSparseMatrix_IndexValues(jacobian);
  double* entries = SUNSparseMatrix_Data(jacobian);
  std::copy(pattern.column_start.begin(), pattern.column_start.end(), column_start);
  std::copy(pattern.row_index.begin(), pattern.row_index.end(), row_index);

  constexpr double roundoff = std::numeric_limits<double>::epsilon();
  const double sqrt_roundoff = std::sqrt(roundoff);
  const double f_norm = N_VWrmsNorm(fy, self.weights_);
  const double min_increment =
      f_norm != 0.0 ? 1000.0 * std::abs(h) * roundoff * static_cast<double>(n) * f_norm : 1.0;
  const double* y_data = N_VGetArrayPointer(y);
  const double* f_data = N_VGetArrayPointer(fy);
  const double* weight = N_VGetArrayPointer(self.weights_);
  N_VScale(1.0, y, tmp1);
  double* y_perturbed = N_VGetArrayPointer(tmp1);
  const double* f_perturbed = N_VGetArrayPointer(tmp2);
  for (std::size_t c = 0; c < self.colours_; ++c) {
    const std::size_t* first = self.colour_columns_.data() + self.colour_start_[c];
    const std::size_t* last = self.colour_columns_.data() + self.colour_start_[c + 1];
    for (const std::size_t* j = first; j != last; ++j) {
      const double y_j = y_data[*j];
      const double increment = std::max(sqrt_roundoff * std::abs(y_j), min_increment / weight[*j]);
      y_perturbed[*j] = y_j + increment;
      self.increment_[*j] = y_perturbed[*j] - y_j;  // the increment actually represented
    }
    ++self.rhs_evaluations_;
    const int flag = OdeBridge::rhs(t, tmp1, tmp2, &bridge);
    if (flag != 0) return flag;
    for (const std::size_t* j = first; j != last; ++j) {
      const double inverse = 1.0 / self.increment_[*j];
      for (auto p = pattern.column_start[*j]; p < pattern.column_start[*j + 1]; ++p) {
        const auto i = static_cast<std::size_t>(pattern.row_index[p]);
        entries[p] = (f_perturbed[i] - f_data[i]) * inverse;
      }
      y_perturbed[*j] = y_data[*j];
    }
  }
  ++self.evaluations_;
  return 0;
}

bool ColouredPreconditioner::attach(void* solver, ColouredJacobian::WeightsFunction weights,
                                    ColouredJacobian::StepFunction step, N_Vector like,
                                    SUNContext context) {
  release();
  const sunindextype n = N_VGetLength(like);
  saved_ = SUNSparseMatrix(n, n, n, CSC_MAT, context);
  system_ = SUNSparseMatrix(n, n, n, CSC_MAT, context);
  if (!saved_ || !system_) return false;
  klu_ = SUNLinSol_KLU(like, system_, context);
  if (!klu_ || SUNLinSolInitialize(klu_) != 0) return false;
  for (N_Vector& v : work_)
    if (!(v = N_VClone(like))) return false;
  jacobian_.attach(solver, weights, step, klu_, like);
  return true;
}

void ColouredPreconditioner::release() {
  jacobian_.release();
  if (klu_) SUNLinSolFree(klu_);
  if (saved_) SUNMatDestroy(saved_);
  if (system_) SUNMatDestroy(system_);
  for (N_Vector& v : work_) {
    if (v) N_VDestroy(v);
    v = nullptr;
  }
  klu_ = nullptr;
  saved_ = system_ = nullptr;
}

int ColouredPreconditioner::setup(double t, N_Vector y, N_Vector fy, int jacobian_ok,
                                  int* jacobian_current, double gamma, void* user_data) {
  OdeBridge& bridge = *static_cast<OdeBridge*>(user_data);
  ColouredPreconditioner& self = *bridge.preconditioner;
  if (jacobian_ok) {
    *jacobian_current = 0;
  } else {
    SUNMatZero(self.saved_);
    const int flag = ColouredJacobian::evaluate(t, y, fy, self.saved_, user_data, self.work_[0],
                                                self.work_[1], nullptr);
    if (flag != 0) return flag;
    *jacobian_current = 1;
  }
  // The copy takes the saved structure (and grows the capacity if it must); the diagonal is in
  // every coupling's structure, so I − γ·J keeps it.
  if (SUNMatCopy(self.saved_, self.system_) != 0 || SUNMatScaleAddI(-gamma, self.system_) != 0)
    return -1;
  // A singular or ill-conditioned P: recoverable (the solver retries with a fresh J or smaller h).
  return SUNLinSolSetup(self.klu_, self.system_) == 0 ? 0 : 1;
}

int ColouredPreconditioner::solve(double /*t*/, N_Vector /*y*/, N_Vector /*fy*/, N_Vector r,
                                  N_Vector z, double /*gamma*/, double /*delta*/, int /*side*/,
                                  void* user_data) {
  ColouredPreconditioner& self = *static_cast<OdeBridge*>(user_data)->preconditioner;
  const int flag = SUNLinSolSolve(self.klu_, self.system_, z, r, 0.0);
  return flag == 0 ? 0 : (flag > 0 ? 1 : -1);
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
    result.jacobian_rhs_evaluations = statistics.jacobian_rhs_evaluations;
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

int NewtonLinearSolver::attach(const LinearSolverInterface& api, void* solver,
                               const SundialsSettings& settings, SUNContext context, N_Vector y,
                               OdeBridge& bridge) {
  api_ = &api;
  kind_ = settings.linear_solver;
  const sunindextype n = N_VGetLength(y);
  if (kind_ == LinearSolverKind::dense) {
    matrix_.reset(SUNDenseMatrix(n, n, context));
    if (!matrix_) return api.memory_failure;
    linear_solver_.reset(SUNLinSol_Dense(y, matrix_.get(), context));
    if (!linear_solver_) return api.memory_failure;
    // No Jacobian function: the package's difference-quotient dense Jacobian.
    return api.set_linear_solver(solver, linear_solver_.get(), matrix_.get());
  }
  if (kind_ == LinearSolverKind::sparse) {
    // KLU on a CSC matrix whose structure (and capacity) the coloured Jacobian sets at its first
    // evaluation and after every change of the OdeView's coupling.
    matrix_.reset(SUNSparseMatrix(n, n, n, CSC_MAT, context));
    if (!matrix_) return api.memory_failure;
    linear_solver_.reset(SUNLinSol_KLU(y, matrix_.get(), context));
    if (!linear_solver_) return api.memory_failure;
    CONTACTLAB_SUNDIALS_TRY(api.set_linear_solver(solver, linear_solver_.get(), matrix_.get()));
    jacobian_.attach(solver, api.error_weights, api.current_step, linear_solver_.get(), y);
    bridge.jacobian = &jacobian_;
    return api.set_jacobian(solver, ColouredJacobian::evaluate);
  }
  const bool preconditioned = settings.krylov_coloured_preconditioner;
  linear_solver_.reset(SUNLinSol_SPGMR(y, preconditioned ? SUN_PREC_LEFT : SUN_PREC_NONE,
                                       static_cast<int>(settings.krylov_dimension), context));
  if (!linear_solver_) return api.memory_failure;
  // Matrix-free: no matrix, the package's difference-quotient J·v.
  CONTACTLAB_SUNDIALS_TRY(api.set_linear_solver(solver, linear_solver_.get(), nullptr));
  if (!preconditioned) return 0;
  if (!preconditioner_.attach(solver, api.error_weights, api.current_step, y, context))
    return api.memory_failure;
  bridge.preconditioner = &preconditioner_;
  return api.set_preconditioner(solver, ColouredPreconditioner::setup,
                                ColouredPreconditioner::solve);
}

void NewtonLinearSolver::add_statistics(void* solver, SundialsStatistics& statistics) const {
  if (!api_ || !linear_solver_) return;
  auto get = [&](LinearSolverInterface::Counter counter) -> std::int64_t {
    long int value = 0;
    return counter(solver, &value) < 0 ? 0 : value;
  };
  const std::int64_t linear_solver_rhs = get(api_->linear_rhs_evaluations);
  statistics.linear_solver_rhs_evaluations += linear_solver_rhs;
  // With a matrix and no Jacobian function, SUNDIALS' f calls are its difference quotients.
  if (kind_ == LinearSolverKind::dense) statistics.jacobian_rhs_evaluations += linear_solver_rhs;
  statistics.jacobian_evaluations += get(api_->jacobian_evaluations);
  statistics.jacobian_vector_products += get(api_->jacobian_vector_products);
  statistics.linear_iterations += get(api_->linear_iterations);
  jacobian_.take_statistics(statistics);
  preconditioner_.take_statistics(statistics);
}

void NewtonLinearSolver::release() {
  jacobian_.release();
  preconditioner_.release();
  linear_solver_.reset();
  matrix_.reset();
  api_ = nullptr;
}

}  // namespace sundials_detail
}  // namespace contactlab::plugins
