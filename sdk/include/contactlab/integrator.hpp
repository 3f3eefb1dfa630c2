// Integrator: advances a simulation in time through the host's OdeView.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "contactlab/export.hpp"

namespace contactlab {

class MechanicsView;

enum class StepAction : std::int32_t {
  proceed = 0,  ///< keep integrating
  stop = 1,     ///< the host asks the integrator to return (interrupt requested)
  /// The host changed the state at this instant (a velocity jump, contact states appended or
  /// removed): the integrator returns IntegrationStatus::restart_requested at this t, and the host
  /// calls integrate() again from t with the new state. Only sent to integrators whose
  /// capabilities include state_reset.
  restart = 2,
};

/// Which states the rates of which states may depend on: the structure of ∂f/∂y, as blocks.
///
/// Every state index i belongs to block block_of_state[i] (< block_count()). The rates of the
/// states of block b may depend only on the states of b itself and of the blocks listed in
/// dependencies[dependency_offsets[b] .. dependency_offsets[b + 1]) — ∂f_i/∂y_j may be nonzero only
/// when block_of_state[j] is block_of_state[i] or one of its dependencies. A block always depends
/// on itself, listed or not; a dependency listed twice counts once. Inside a block and between
/// coupled blocks the structure is taken as dense. A block may own no state (it then matters to
/// nobody). The contactlab host makes one block per joint tree (its q and v) and one per living
/// contact whose laws have continuous states (its x); a tree depends on the trees it touches
/// through living contacts and on those contacts' x, a contact's x on its two trees.
struct StateCoupling {
  std::vector<std::uint32_t> block_of_state;      ///< state_size() entries
  std::vector<std::uint32_t> dependency_offsets;  ///< block_count() + 1 entries, ascending, from 0
  std::vector<std::uint32_t> dependencies;        ///< blocks, indexed through dependency_offsets

  std::size_t block_count() const {
    return dependency_offsets.empty() ? 0 : dependency_offsets.size() - 1;
  }
  /// One dense block holding all n states: the structure of any ODE.
  void set_dense(std::size_t n) {
    block_of_state.assign(n, 0u);
    dependency_offsets.assign({0u, 0u});
    dependencies.clear();
  }
};

/// The host's view of the simulation as a first-order ODE y' = f(t, y) with y = [q; v; x]: q the
/// configuration coordinates (nq, may include unit quaternions), v the velocities (nv), x the
/// continuous states of the living contacts (nx, may change at events, see StepAction::restart).
///
/// Events: the host keeps event_count() event functions (contact start, contact end, and those of
/// the living contacts' laws). Each is armed while positive and fires when it becomes ≤ 0. An
/// integrator that locates events finds the earliest t at which an armed function becomes ≤ 0
/// within a step, ends the step there (at the first representable state past the crossing, within
/// its event tolerance) and calls step_completed(), where the host handles what fired.
class CONTACTLAB_VISIBLE OdeView {
 public:
  virtual ~OdeView() = default;
  virtual std::size_t configuration_size() const = 0;  ///< nq
  virtual std::size_t velocity_size() const = 0;       ///< nv
  /// nq + nv + nx: the size of y (changes only across a restart).
  virtual std::size_t state_size() const = 0;
  /// Number of event functions (changes only at step_completed()).
  virtual std::size_t event_count() const = 0;
  /// Values of the event functions at (t, y); g has event_count() entries.
  virtual void event_values(double t, std::span<const double> y, std::span<double> g) = 0;
  /// y' = f(t, y): writes [q̇; v̇]. Throws SimulationError on a non-finite result.
  virtual void derivative(double t, std::span<const double> y, std::span<double> y_rate) = 0;
  /// q_out = q ⊕ v·dt on the configuration manifold (for geometric/symplectic schemes).
  virtual void integrate_configuration(std::span<const double> q, std::span<const double> v,
                                       double dt, std::span<double> q_out) = 0;
  /// Projects y onto the manifold (normalises quaternions).
  virtual void project(std::span<double> y) = 0;
  /// Called after every accepted step with the new state: the host updates contact births and
  /// deaths, checks the state, and may ask to stop.
  virtual StepAction step_completed(double t, std::span<const double> y) = 0;
  /// The structure of ∂f/∂y (see StateCoupling) for the current state layout and discrete state:
  /// a superset of the entries that derivative() may make nonzero until state_coupling_revision()
  /// changes. May allocate: integrators call it only when they (re)build a sparse Jacobian's
  /// structure. The default, one dense block, is right for any ODE.
  virtual void state_coupling(StateCoupling& coupling) const { coupling.set_dense(state_size()); }
  /// A number that changes whenever state_coupling() would describe another structure (contacts
  /// born or gone at step_completed(), a restart with another state layout), and only then.
  /// Integrators that keep a sparse Jacobian's structure compare it before each Jacobian
  /// evaluation and rebuild the structure when it differs. The default never changes (its
  /// coupling is dense).
  virtual std::uint64_t state_coupling_revision() const { return 0; }
  /// Called at every output time k·output_interval in (t_start, t_end] (k an integer: the grid is
  /// absolute, so it survives restarts) and at t_end.
  virtual void output(double t, std::span<const double> y) = 0;
  /// The multibody system behind the ODE (mechanics.hpp), for time-stepping integrators (those
  /// whose capabilities include needs_mechanics_view; the host then gives them one). Null when
  /// the host has none.
  virtual MechanicsView* mechanics() { return nullptr; }
};

struct IntegratorCapabilities {
  bool adaptive = false;
  bool implicit = false;
  /// Locates the zero crossings of the OdeView's event functions (root finding or bisection).
  bool root_finding = false;
  /// A time-stepping integrator: it solves rigid contact itself through OdeView::mechanics(), and
  /// the experiment has no penalty force law.
  bool needs_mechanics_view = false;
  /// Returns at StepAction::restart so that the host can change the state (or its size) and
  /// resume: needed by impulsive laws and by laws with continuous per-contact states.
  bool state_reset = false;
};

enum class IntegrationStatus : std::int32_t {
  completed = 0,
  interrupted = 1,
  failed = 2,
  restart_requested = 3,  ///< the host asked for a restart at time_reached_s
};

struct IntegrationResult {
  IntegrationStatus status = IntegrationStatus::completed;
  double time_reached_s = 0.0;
  std::string message;  ///< reason when not completed
  std::int64_t steps = 0;
  std::int64_t rejected_steps = 0;
  std::int64_t rhs_evaluations = 0;       ///< calls of OdeView::derivative
  std::int64_t event_evaluations = 0;     ///< calls of OdeView::event_values
  std::int64_t located_events = 0;        ///< steps ended at a located event
  std::int64_t jacobian_evaluations = 0;  ///< Jacobians formed (implicit methods; else 0)
  /// Of rhs_evaluations, those spent forming Jacobians by difference quotients (n per dense
  /// Jacobian, one per colour of a coloured sparse one; not Krylov J·v products).
  std::int64_t jacobian_rhs_evaluations = 0;
  std::int64_t nonlinear_iterations = 0;  ///< Newton or fixed-point iterations (else 0)
  std::int64_t contact_solves = 0;        ///< contact problems solved (time stepping; else 0)
};

class CONTACTLAB_VISIBLE Integrator {
 public:
  virtual ~Integrator() = default;
  virtual IntegratorCapabilities capabilities() const = 0;
  /// Integrates y (in/out, size ode.state_size()) from t_start to t_end [s], calling ode.output()
  /// at each output time and ode.step_completed() after each step.
  virtual IntegrationResult integrate(OdeView& ode, double t_start, double t_end,
                                      double output_interval_s, std::span<double> y) = 0;
};

}  // namespace contactlab
