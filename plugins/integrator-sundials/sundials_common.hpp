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

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nonlinearsolver.h>
#include <contactlab/integrator.hpp>

#include "sundials_settings.hpp"

namespace contactlab::plugins::sundials_detail {

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

  OdeView& ode() { return *ode_; }
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
