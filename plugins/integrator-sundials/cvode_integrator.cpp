#include "cvode_integrator.hpp"

#include <vector>

#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>
#include <contactlab/errors.hpp>

#include "sundials_common.hpp"

namespace contactlab::plugins {
namespace {

using sundials_detail::OdeBridge;

const sundials_detail::LinearSolverInterface cvode_linear_solver{
    .memory_failure = CV_MEM_FAIL,
    .set_linear_solver = CVodeSetLinearSolver,
    .set_jacobian = CVodeSetJacFn,
    .set_preconditioner = CVodeSetPreconditioner,
    .error_weights = CVodeGetErrWeights,
    .current_step = CVodeGetCurrentStep,
    .linear_rhs_evaluations = CVodeGetNumLinRhsEvals,
    .jacobian_evaluations = CVodeGetNumJacEvals,
    .jacobian_vector_products = CVodeGetNumJtimesEvals,
    .linear_iterations = CVodeGetNumLinIters};

class CvodeStepper final : public sundials_detail::Stepper {
 public:
  explicit CvodeStepper(const CvodeSettings& settings) : settings_(settings) {}
  ~CvodeStepper() override { release(); }

  const char* name() const override { return "cvode"; }

  int initialize(SUNContext context, OdeBridge& bridge, double t0, N_Vector y,
                 double t_stop) override {
    bridge_ = &bridge;
    memory_ = CVodeCreate(settings_.bdf ? CV_BDF : CV_ADAMS, context);
    if (!memory_) return CV_MEM_FAIL;
    CONTACTLAB_SUNDIALS_TRY(CVodeSetErrHandlerFn(memory_, OdeBridge::error_handler, &bridge));
    CONTACTLAB_SUNDIALS_TRY(CVodeInit(memory_, OdeBridge::rhs, t0, y));
    CONTACTLAB_SUNDIALS_TRY(CVodeSetUserData(memory_, &bridge));
    const SundialsSettings& common = settings_.common;
    CONTACTLAB_SUNDIALS_TRY(CVodeSStolerances(memory_, common.rtol, common.atol));
    if (settings_.max_order > 0)
      CONTACTLAB_SUNDIALS_TRY(CVodeSetMaxOrd(memory_, settings_.max_order));
    if (common.max_step_s > 0.0)
      CONTACTLAB_SUNDIALS_TRY(CVodeSetMaxStep(memory_, common.max_step_s));
    if (common.initial_step_s > 0.0)
      CONTACTLAB_SUNDIALS_TRY(CVodeSetInitStep(memory_, common.initial_step_s));
    if (settings_.fixed_point) {
      // Functional iteration without Anderson acceleration (m = 0).
      nonlinear_solver_.reset(SUNNonlinSol_FixedPoint(y, 0, context));
      if (!nonlinear_solver_) return CV_MEM_FAIL;
      CONTACTLAB_SUNDIALS_TRY(CVodeSetNonlinearSolver(memory_, nonlinear_solver_.get()));
    } else {
      CONTACTLAB_SUNDIALS_TRY(
          linear_solver_.attach(cvode_linear_solver, memory_, common, context, y, bridge));
    }
    return configure(t_stop);
  }

  int set_min_step(double h_min) override { return CVodeSetMinStep(memory_, h_min); }

  int reinitialize(double t0, N_Vector y, double t_stop) override {
    CONTACTLAB_SUNDIALS_TRY(CVodeReInit(memory_, t0, y));
    return configure(t_stop);
  }

  int step(double t_stop, N_Vector y, double& t) override {
    return CVode(memory_, t_stop, y, &t, CV_ONE_STEP);
  }

  int interpolate(double t, N_Vector y) override { return CVodeGetDky(memory_, t, 0, y); }

  std::string flag_name(int flag) const override {
    return sundials_detail::take_flag_name(CVodeGetReturnFlagName(flag));
  }

  void add_statistics(SundialsStatistics& statistics) const override {
    if (!memory_) return;
    auto get = [&](int (*counter)(void*, long int*)) -> std::int64_t {
      long int value = 0;
      return counter(memory_, &value) < 0 ? 0 : value;
    };
    statistics.steps += get(CVodeGetNumSteps);
    statistics.error_test_failures += get(CVodeGetNumErrTestFails);
    statistics.nonlinear_solve_failures += get(CVodeGetNumStepSolveFails);
    statistics.integrator_rhs_evaluations += get(CVodeGetNumRhsEvals);
    statistics.nonlinear_iterations += get(CVodeGetNumNonlinSolvIters);
    statistics.root_function_evaluations += get(CVodeGetNumGEvals);
    linear_solver_.add_statistics(memory_, statistics);
  }

  void release() override {
    if (memory_) CVodeFree(&memory_);
    memory_ = nullptr;
    linear_solver_.release();
    nonlinear_solver_.reset();
  }

 private:
  int configure(double t_stop) {
    CONTACTLAB_SUNDIALS_TRY(CVodeSetStopTime(memory_, t_stop));
    const int count = static_cast<int>(bridge_->event_count);
    CONTACTLAB_SUNDIALS_TRY(CVodeRootInit(memory_, count, count > 0 ? OdeBridge::roots : nullptr));
    if (count > 0) {
      directions_.assign(static_cast<std::size_t>(count), -1);
      CONTACTLAB_SUNDIALS_TRY(CVodeSetRootDirection(memory_, directions_.data()));
      CONTACTLAB_SUNDIALS_TRY(CVodeSetNoInactiveRootWarn(memory_));
    }
    return CV_SUCCESS;
  }

  const CvodeSettings& settings_;
  OdeBridge* bridge_ = nullptr;
  void* memory_ = nullptr;
  sundials_detail::NewtonLinearSolver linear_solver_;  ///< Newton iterations (not fixed_point)
  sundials_detail::NonlinearSolver nonlinear_solver_;
  std::vector<int> directions_;
};

}  // namespace

Cvode::Cvode(const ParameterValues& params) {
  settings_.bdf = params.text("method") == "bdf";
  const std::string& nonlinear = params.text("nonlinear_solver");
  settings_.fixed_point = nonlinear == "fixed_point" || (nonlinear == "auto" && !settings_.bdf);
  settings_.max_order = static_cast<int>(params.integer("max_order"));
  const int method_maximum = settings_.bdf ? 5 : 12;
  if (settings_.max_order > method_maximum) {
    throw InputError("cvode: params.max_order = " + std::to_string(settings_.max_order) +
                     " exceeds the maximum order " + std::to_string(method_maximum) +
                     " of method " + params.text("method"));
  }
  settings_.common = sundials_common_settings(params, true);
}

ParameterSchema Cvode::schema() {
  ParameterSchema schema = {
      choice_parameter("method", "bdf", {"bdf", "adams"},
                       "Linear multistep family: bdf (backward differentiation, orders 1-5, for "
                       "stiff problems) or adams (Adams-Moulton, orders 1-12, nonstiff)."),
      choice_parameter("nonlinear_solver", "auto", {"auto", "newton", "fixed_point"},
                       "Iteration for the implicit formula: newton (with linear_solver) or "
                       "fixed_point (functional iteration, no Jacobian, nonstiff only); auto: "
                       "newton for bdf, fixed_point for adams."),
      integer_parameter("max_order", 0, 0, 12,
                        "Highest order CVODE may use; 0: the method's maximum (bdf 5, adams 12)."),
  };
  for (ParameterSpec& spec : sundials_common_schema(true)) schema.push_back(std::move(spec));
  return schema;
}

IntegratorCapabilities Cvode::capabilities() const {
  IntegratorCapabilities capabilities;
  capabilities.adaptive = true;
  // Both families are implicit formulas; they are solved as stiff ones only with Newton.
  capabilities.implicit = !settings_.fixed_point;
  capabilities.root_finding = true;
  capabilities.state_reset = true;
  return capabilities;
}

IntegrationResult Cvode::integrate(OdeView& ode, double t_start, double t_end,
                                   double output_interval_s, std::span<double> y) {
  CvodeStepper stepper(settings_);
  return sundials_detail::drive(stepper, ode, t_start, t_end, output_interval_s, y,
                                settings_.common.max_steps, statistics_);
}

}  // namespace contactlab::plugins
