// The code the SUNDIALS integrators (cvode, arkode) share: RAII for SUNDIALS objects, the bridge
// from SUNDIALS' C callbacks to the OdeView, and the time loop (one internal step at a time:
// dense output on the absolute grid, located events, restarts, interrupts, failures).
// Internal to the plugin: this is the only place besides the .cpp files that includes SUNDIALS.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nonlinearsolver.h>
#include <contactlab/integrator.hpp>

#include "jacobian_colouring.hpp"
#include "sundials_settings.hpp"

/// Returns a negative SUNDIALS flag from the enclosing function.
#define CONTACTLAB_SUNDIALS_TRY(call)                      \
  do {                                                     \
    if (const int flag_ = (call); flag_ < 0) return flag_; \
  } while (false)

namespace contactlab::plugins::sundials_detail {

class ColouredJacobian;
class ColouredPreconditioner;

struct VectorDeleter {
  void operator()(N_Vector v) const { N_VDestroy(v); }
};
struct MatrixDeleter {
  void operator()(SUNMatrix m) const { SUNMatDestroy(m); }
};
struct LinearSolverDeleter {
  void operator()(SUNLinearSolver s) const { SUNLinSolFree(s); }
};
struct NonlinearSolverDeleter {
  void operator()(SUNNonlinearSolver s) const { SUNNonlinSolFree(s); }
};
using Vector = std::unique_ptr<std::remove_pointer_t<N_Vector>, VectorDeleter>;
using Matrix = std::unique_ptr<std::remove_pointer_t<SUNMatrix>, MatrixDeleter>;
using LinearSolver = std::unique_ptr<std::remove_pointer_t<SUNLinearSolver>, LinearSolverDeleter>;
using NonlinearSolver =
    std::unique_ptr<std::remove_pointer_t<SUNNonlinearSolver>, NonlinearSolverDeleter>;

/// What SUNDIALS' callbacks reach through their user_data pointer: the OdeView, call counters,
/// and what went wrong. No exception crosses SUNDIALS' C frames: the callbacks catch them.
class OdeBridge {
 public:
  explicit OdeBridge(OdeView& ode) : ode_(&ode) {}

  /// f(t, y) → ẏ through OdeView::derivative. A SimulationError or a non-finite ẏ is a
  /// recoverable failure (returns 1: the solver retries with a smaller step, a trial state may be
  /// out of the model's range); any other exception is fatal (returns −1, kept for rethrow()).
  static int rhs(double t, N_Vector y, N_Vector y_rate, void* self);
  /// g(t, y) through OdeView::event_values; an exception is fatal.
  static int roots(double t, N_Vector y, double* g, void* self);
  /// SUNDIALS' error handler: keeps the last error message instead of printing it.
  static void error_handler(int error_code, const char* module, const char* function, char* message,
                            void* self);

  /// Rethrows a fatal exception caught in a callback (and forgets it).
  void rethrow_fatal();
  /// Keeps the exception being handled for rethrow_fatal() (callbacks return −1 after it).
  void keep_fatal() { fatal_ = std::current_exception(); }

  OdeView& ode() { return *ode_; }
  /// The coloured finite-difference Jacobian of linear_solver: sparse (else null).
  ColouredJacobian* jacobian = nullptr;
  /// The preconditioner of linear_solver: krylov with krylov_preconditioner: coloured (else null).
  ColouredPreconditioner* preconditioner = nullptr;
  std::size_t event_count = 0;  ///< event functions registered with the solver
  std::int64_t rhs_calls = 0;
  std::int64_t event_calls = 0;
  std::string last_rhs_failure;  ///< why the last recoverable derivative failure happened
  std::string last_error;        ///< the last error message SUNDIALS reported
  std::string last_warning;      ///< the last warning SUNDIALS reported

 private:
  OdeView* ode_;
  std::exception_ptr fatal_;
};

/// ∂f/∂y by coloured finite differences into a CSC SUNSparseMatrix (linear_solver: sparse, solved
/// by KLU). Its structure comes from OdeView::state_coupling(), rebuilt — with the colouring, the
/// matrix's capacity and KLU's symbolic factorisation — whenever the OdeView's
/// state_coupling_revision() (or the state size) differs from the one it was built for; between
/// rebuilds an evaluation allocates nothing.
///
/// Per colour, every column j of the colour is perturbed at once by
///   δ_j = max(√u·|y_j|, δ_min / w_j),  δ_min = 1000·|h|·u·n·‖f(t, y)‖_WRMS (1 when f = 0),
/// (u the unit roundoff, w_j the solver's error weight 1/(rtol·|y_j| + atol), h its current step)
/// — the increment of CVODE's and ARKODE's own dense and band difference quotients — and one f
/// evaluation gives J_ij = (f_i(y + δ) − f_i(y))/δ_j for the rows i of each column j of the colour
/// (distinct columns of a colour have no row in common). The cost is one f per colour, independent
/// of n when the coupling is local.
class ColouredJacobian {
 public:
  using WeightsFunction = int (*)(void* solver, N_Vector weights);
  using StepFunction = int (*)(void* solver, double* h);

  /// Binds to a solver (its error weights and current step) and the KLU solver of `matrix`; the
  /// state vector `like` gives the size and context.
  void attach(void* solver, WeightsFunction weights, StepFunction step, SUNLinearSolver klu,
              N_Vector like);
  /// Frees what attach() allocated (before the SUNDIALS context goes away).
  void release();
  /// The CVLsJacFn / ARKLsJacFn callback; user_data is the OdeBridge whose `jacobian` this is.
  /// Returns 1 when an f evaluation fails recoverably, −1 on a fatal error (kept in the bridge).
  static int evaluate(double t, N_Vector y, N_Vector fy, SUNMatrix jacobian, void* user_data,
                      N_Vector tmp1, N_Vector tmp2, N_Vector tmp3);

  /// Counters since the last call (added to SundialsStatistics, then reset). With
  /// `count_evaluations` its evaluations are added to jacobian_evaluations (a preconditioner's
  /// Jacobians, which SUNDIALS does not count).
  void take_statistics(SundialsStatistics& statistics, bool count_evaluations = false);

 private:
  /// Rebuilds the structure when the OdeView's coupling revision or the size changed.
  void refresh(OdeView& ode, SUNMatrix jacobian);

  void* solver_ = nullptr;
  WeightsFunction weights_function_ = nullptr;
  StepFunction step_function_ = nullptr;
  SUNLinearSolver klu_ = nullptr;
  N_Vector weights_ = nullptr;
  bool built_ = false;
  std::uint64_t revision_ = 0;
  StateCoupling coupling_;
  SparsityPattern pattern_;
  std::vector<std::int32_t> colour_;
  std::size_t colours_ = 0;
  std::vector<std::size_t> colour_start_;    ///< colours_ + 1 offsets into colour_columns_
  std::vector<std::size_t> colour_columns_;  ///< the columns of each colour
  std::vector<double> increment_;            ///< δ_j of the current evaluation
  // Counters since take_statistics().
  std::int64_t evaluations_ = 0, rhs_evaluations_ = 0, structure_builds_ = 0;
};

/// Preconditioner of the Krylov solver (linear_solver: krylov, krylov_preconditioner: coloured):
/// P = I − γ·J with J the coloured difference-quotient Jacobian (ColouredJacobian), factorised by
/// KLU; applied on the left. J is recomputed when the solver says it is out of date (jok false),
/// otherwise the saved J is reused with the new γ.
class ColouredPreconditioner {
 public:
  /// Creates the matrices, KLU and work vectors for states like `like`; binds to the solver.
  /// Returns false if SUNDIALS could not allocate them.
  bool attach(void* solver, ColouredJacobian::WeightsFunction weights,
              ColouredJacobian::StepFunction step, N_Vector like, SUNContext context);
  void release();
  /// CVLsPrecSetupFn / ARKLsPrecSetupFn; user_data is the OdeBridge.
  static int setup(double t, N_Vector y, N_Vector fy, int jacobian_ok, int* jacobian_current,
                   double gamma, void* user_data);
  /// CVLsPrecSolveFn / ARKLsPrecSolveFn: z = P⁻¹·r.
  static int solve(double t, N_Vector y, N_Vector fy, N_Vector r, N_Vector z, double gamma,
                   double delta, int side, void* user_data);
  void take_statistics(SundialsStatistics& statistics) {
    jacobian_.take_statistics(statistics, true);
  }
  ColouredJacobian& jacobian() { return jacobian_; }

 private:
  ColouredJacobian jacobian_;
  SUNMatrix saved_ = nullptr;   ///< J
  SUNMatrix system_ = nullptr;  ///< I − γ·J, factorised in place by KLU
  SUNLinearSolver klu_ = nullptr;
  N_Vector work_[2] = {nullptr, nullptr};
};

/// The functions of a package's linear-solver interface (CVODE's CVLs, ARKStep's ARKLs: the same
/// shape), so that one piece of code sets up and counts the Newton iterations' linear solver.
struct LinearSolverInterface {
  using JacobianFunction = int (*)(double t, N_Vector y, N_Vector fy, SUNMatrix jacobian,
                                   void* user_data, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3);
  using PreconditionerSetup = int (*)(double t, N_Vector y, N_Vector fy, int jacobian_ok,
                                      int* jacobian_current, double gamma, void* user_data);
  using PreconditionerSolve = int (*)(double t, N_Vector y, N_Vector fy, N_Vector r, N_Vector z,
                                      double gamma, double delta, int side, void* user_data);
  using Counter = int (*)(void* solver, long int* value);

  int memory_failure;  ///< the package's *_MEM_FAIL flag
  int (*set_linear_solver)(void* solver, SUNLinearSolver linear_solver, SUNMatrix matrix);
  int (*set_jacobian)(void* solver, JacobianFunction jacobian);
  int (*set_preconditioner)(void* solver, PreconditionerSetup setup, PreconditionerSolve solve);
  ColouredJacobian::WeightsFunction error_weights;
  ColouredJacobian::StepFunction current_step;
  Counter linear_rhs_evaluations, jacobian_evaluations, jacobian_vector_products, linear_iterations;
};

/// The linear solver of the Newton iterations and what it owns: dense (SUNDIALS' own
/// difference-quotient Jacobian), sparse (KLU on the coloured Jacobian) or krylov (SPGMR,
/// optionally with the coloured preconditioner), as SundialsSettings::linear_solver says.
class NewtonLinearSolver {
 public:
  /// Creates the solver and attaches it to `solver` through `api`; a SUNDIALS flag (negative:
  /// failure). The bridge learns the coloured Jacobian or preconditioner it calls back into.
  int attach(const LinearSolverInterface& api, void* solver, const SundialsSettings& settings,
             SUNContext context, N_Vector y, OdeBridge& bridge);
  /// Adds its counters since the last (re)initialisation (nothing when not attached).
  void add_statistics(void* solver, SundialsStatistics& statistics) const;
  /// Frees what attach() created (after the solver it was attached to).
  void release();

 private:
  const LinearSolverInterface* api_ = nullptr;
  LinearSolverKind kind_ = LinearSolverKind::dense;
  Matrix matrix_;
  LinearSolver linear_solver_;
  mutable ColouredJacobian jacobian_;
  mutable ColouredPreconditioner preconditioner_;
};

/// One SUNDIALS time integrator (CVODE, ARKODE's ERKStep or ARKStep) in one-step mode. The driver
/// owns the state vector and calls these; all return SUNDIALS flags (negative: failure) whose
/// numeric values CVODE and ARKODE share (0 success, 1 stop time reached, 2 root found, −1 too
/// much work).
class Stepper {
 public:
  virtual ~Stepper() = default;
  virtual const char* name() const = 0;
  /// Creates the solver at (t0, y) with the bridge's callbacks, stop time t_stop and
  /// bridge.event_count event functions (direction −1: only downward crossings).
  virtual int initialize(SUNContext context, OdeBridge& bridge, double t0, N_Vector y,
                         double t_stop) = 0;
  /// The smallest step the solver may take (below it, steps fail with the solver's own flag).
  virtual int set_min_step(double h_min) = 0;
  /// Restarts the method at (t0, y) from order one (the step after a located event starts on the
  /// new side of a discontinuity) with bridge.event_count event functions. Counters restart.
  virtual int reinitialize(double t0, N_Vector y, double t_stop) = 0;
  /// One internal step towards t_stop, or up to the first root inside it; y and t receive the
  /// state and time returned.
  virtual int step(double t_stop, N_Vector y, double& t) = 0;
  /// Dense output of the last step at t.
  virtual int interpolate(double t, N_Vector y) = 0;
  virtual std::string flag_name(int flag) const = 0;
  /// Adds the counters since the last (re)initialisation.
  virtual void add_statistics(SundialsStatistics& statistics) const = 0;
  /// Frees the solver and its linear/nonlinear solvers (before the context goes away).
  virtual void release() = 0;
};

/// The flags shared by CVODE and ARKODE (CV_SUCCESS = ARK_SUCCESS, ...).
inline constexpr int flag_root_return = 2;
inline constexpr int flag_too_much_work = -1;

/// A SUNDIALS *GetReturnFlagName result as a string (it is malloc'ed).
std::string take_flag_name(char* name);

/// Integrates y from t_start to t_end with `stepper` in one-step mode:
///  • validation: y.size() == ode.state_size(), a finite forward span (else failed; an empty span
///    completes at once);
///  • after each internal step (or located event) at t: ode.output() at the grid times
///    k·output_interval_s in (t_previous, t) from the stepper's dense output; then
///    ode.step_completed(t, y) — stop returns interrupted, restart returns restart_requested at t;
///    then ode.output(t, y) if t is a grid time or t_end. Grid times within 1e-9·interval of t_end
///    are reported once, as t_end;
///  • a located event (or a changed event count) re-initialises the stepper at (t, y) with
///    ode.event_count() functions, so that nothing computed past the event with the host's old
///    discrete state survives;
///  • more than max_steps steps without reaching the next output time, a step that does not
///    advance t (the solver only warns "t + h = t"), or a solver failure: failed, with the
///    solver's flag name, its message, the time and the last derivative failure; time_reached_s is
///    the last time the host accepted, y the solver's last state;
///  • a stepper without a stop time may step past t_end: y(t_end) then comes from the step's
///    dense output;
///  • fatal exceptions from the OdeView propagate; y then holds the last state returned;
///  • ode.project() is never called: the methods integrate y in the embedding space (unit
///    quaternions drift within the tolerances, the joints normalise them in the kinematics) —
///    projecting between steps would invalidate the solvers' history, projecting at a located
///    event could move the event function back above zero.
IntegrationResult drive(Stepper& stepper, OdeView& ode, double t_start, double t_end,
                        double output_interval_s, std::span<double> y, std::int64_t max_steps,
                        SundialsStatistics& statistics);

}  // namespace contactlab::plugins::sundials_detail
