// What a run tells those who watch it: typed events (a contact's start and end, an impulse, a
// law's own event), samples of the state at the output times, and the run's counters, delivered
// to SimulationObserver implementations (the recorder, the metrics, a test's sampler). Observers
// see the run through RunView and the samples: they cannot change it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <vector>

#include "contactlab/contact.hpp"
#include "contactlab/contact_problem/problem.hpp"
#include "contactlab/integrator.hpp"
#include "contactlab/narrow_phase.hpp"

namespace contactlab::core {

struct Scene;

/// World-frame state of one body, as written to trajectory.csv.
struct BodyState {
  Vec3 p_WCm = Vec3::Zero();  ///< centre of mass [m]
  Eigen::Quaterniond q_WB = Eigen::Quaterniond::Identity();
  Vec3 v_WCm = Vec3::Zero();  ///< velocity of the centre of mass [m/s]
  Vec3 w_WB = Vec3::Zero();   ///< angular velocity [rad/s]
};

/// One point of a living contact as evaluated at one instant (for contacts.csv and tests).
struct ContactSample {
  std::size_t geometry_a = 0, geometry_b = 0;  ///< indices into Scene::geometries, a < b
  ContactGeometry geometry;
  Vec3 point_W = Vec3::Zero();
  double normal_force_N = 0.0;
  Vec3 tangential_force_W = Vec3::Zero();  ///< on B [N]
};

// --- events (geometry indices into Scene::geometries, a < b; times in s) ---

/// A pair came closer than the force law's activation distance: its contact is born.
struct ContactStartEvent {
  double time_s = 0.0;
  std::size_t geometry_a = 0, geometry_b = 0;
  double impact_velocity_m_per_s = 0.0;  ///< δ̇ at birth (> 0 approaching)
};

/// A living contact's pair is no longer closer than the activation distance: it dies.
struct ContactEndEvent {
  double time_s = 0.0;
  std::size_t geometry_a = 0, geometry_b = 0;
  double duration_s = 0.0;                   ///< since its birth
  double max_penetration_m = 0.0;            ///< deepest over the accepted steps of its life
  double separation_velocity_m_per_s = 0.0;  ///< −δ̇ at its deepest point (> 0 separating)
};

/// An impulsive law's velocity jump at a contact's birth.
struct ImpulseEvent {
  double time_s = 0.0;
  std::size_t geometry_a = 0, geometry_b = 0;
  double impulse_N_s = 0.0;
  double restitution = 0.0;  ///< the e the law asked for
};

/// One of a law's own event functions fired (e.g. bilinear's max_compression).
struct LawEvent {
  enum class Source { force_law, friction };
  double time_s = 0.0;
  std::size_t geometry_a = 0, geometry_b = 0;
  const char* name = "";  ///< the law's event_name(); valid while the delivery lasts
  Source source = Source::force_law;
  std::int32_t mode = 0;       ///< the law's discrete state after the event
  double penetration_m = 0.0;  ///< δ at the event
};

// --- samples ---

/// What observers ask the simulation to evaluate at every output time (SimulationObserver::needs;
/// the simulation evaluates the union once per output time, for all of them).
struct SampleNeeds {
  bool bodies = false;    ///< every body's BodyState
  bool contacts = false;  ///< the living contacts' points with their forces
  bool energy = false;    ///< the total energy
};

/// The state at one instant with what the observers asked for. At the start and the end of a run
/// only the energy is evaluated (when asked for).
struct RunSample {
  double time_s = 0.0;
  std::span<const double> state;            ///< y = [q; v; x]
  std::span<const BodyState> bodies;        ///< Scene::bodies order; empty when not asked for
  std::span<const ContactSample> contacts;  ///< empty when not asked for (or none)
  double energy_J = std::numeric_limits<double>::quiet_NaN();  ///< NaN when not asked for
};

/// The host's work on behalf of the observers (taken out of the phases in summary.json).
struct RecordingShare {
  double wall_s = 0.0;  ///< evaluating samples and delivering samples and events [s]
  double broad_phase_s = 0.0, narrow_phase_s = 0.0, response_s = 0.0, dynamics_s = 0.0;
  std::int64_t narrow_phase_queries = 0;
};

/// What the contact solves of a time-stepping run add up to (summary.json's `contact_solver`).
struct ContactSolveStatistics {
  std::int64_t solves = 0;            ///< steps with at least one contact point
  std::int64_t iterations = 0;        ///< summed over the solves
  std::int32_t max_iterations = 0;    ///< of one solve
  std::int64_t unconverged = 0;       ///< solves that stopped at their iteration limit
  double max_residual = 0.0;          ///< of one solve, the solver's own error measure
  std::int64_t points = 0;            ///< contact points, summed over the solves
  std::int64_t max_points = 0;        ///< of one step
  double max_penetration_m = 0.0;     ///< deepest point at the start of any step
  std::int64_t problems_written = 0;  ///< local problems delivered (output.contact_problems)
};

struct SimulationStatistics {
  std::int64_t steps = 0;
  std::int64_t rejected_steps = 0;
  std::int64_t rhs_evaluations = 0;
  std::int64_t narrow_phase_queries = 0;
  std::int64_t events = 0;
  std::int64_t impulses = 0;        ///< velocity jumps applied by impulsive laws
  std::int64_t restarts = 0;        ///< integrator restarts after the host changed the state
  std::int64_t located_events = 0;  ///< steps the integrator ended at a located event
  double max_penetration_m = 0.0;
  double broad_phase_s = 0.0, narrow_phase_s = 0.0, response_s = 0.0, dynamics_s = 0.0;
  RecordingShare recording;    ///< of the above, what the observers' samples cost
  bool time_stepping = false;  ///< the integrator solved rigid contact (contact_solver below)
  ContactSolveStatistics contact_solver;
};

/// The run as its observers see it (read only).
class RunView {
 public:
  virtual const Scene& scene() const = 0;
  virtual SimulationStatistics statistics() const = 0;
  /// The counters of each narrow phase of the run's chain, in chain order.
  virtual std::vector<NarrowPhaseStatistics> narrow_phase_statistics() const = 0;

 protected:
  ~RunView() = default;
};

/// A time-stepping integrator's local contact problem of one step (output.contact_problems), as it
/// was passed to the solver; valid during the call only.
struct ContactProblemEvent {
  double time_s = 0.0;    ///< the step's start
  std::int64_t step = 0;  ///< the step's index in the run (0 = the first)
  const contact_problem::FrictionContactProblem* problem = nullptr;
};

/// Called by the simulation, in the order the observers were added. The defaults do nothing.
class SimulationObserver {
 public:
  virtual ~SimulationObserver() = default;
  virtual SampleNeeds needs() const { return {}; }
  /// Before anything happens at t = 0 (the contacts already touching are born next); `run` stays
  /// valid until on_run_end() returns.
  virtual void on_run_start(const RunView& /*run*/) {}
  /// The state the run starts from, after the births at t = 0 (before the output at t = 0).
  virtual void on_initial_state(const RunSample& /*sample*/) {}
  /// Every output time k·interval, and the end of the run.
  virtual void on_output(const RunSample& /*sample*/) {}
  virtual void on_contact_start(const ContactStartEvent& /*event*/) {}
  virtual void on_contact_end(const ContactEndEvent& /*event*/) {}
  virtual void on_impulse(const ImpulseEvent& /*event*/) {}
  virtual void on_law_event(const LawEvent& /*event*/) {}
  virtual void on_contact_problem(const ContactProblemEvent& /*event*/) {}
  /// The final state, after the integrator returned (also when it was interrupted or failed).
  virtual void on_run_end(const RunSample& /*sample*/, const IntegrationResult& /*result*/) {}
};

/// The observers of one run, called in the order they were added; it keeps the time their
/// callbacks take (part of the run's recording time).
class ObserverList {
 public:
  void add(SimulationObserver& observer) { observers_.push_back(&observer); }
  bool empty() const { return observers_.empty(); }
  /// The union of the observers' needs.
  SampleNeeds needs() const {
    SampleNeeds all;
    for (const SimulationObserver* observer : observers_) {
      const SampleNeeds one = observer->needs();
      all.bodies = all.bodies || one.bodies;
      all.contacts = all.contacts || one.contacts;
      all.energy = all.energy || one.energy;
    }
    return all;
  }
  /// Calls `call(observer)` for each observer, adding the time it takes to callback_s().
  template <class Call>
  void each(Call&& call) {
    if (observers_.empty()) return;
    const auto start = std::chrono::steady_clock::now();
    for (SimulationObserver* observer : observers_) call(*observer);
    callback_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  void deliver(const ContactStartEvent& e) {
    each([&](SimulationObserver& o) { o.on_contact_start(e); });
  }
  void deliver(const ContactEndEvent& e) {
    each([&](SimulationObserver& o) { o.on_contact_end(e); });
  }
  void deliver(const ImpulseEvent& e) {
    each([&](SimulationObserver& o) { o.on_impulse(e); });
  }
  void deliver(const LawEvent& e) {
    each([&](SimulationObserver& o) { o.on_law_event(e); });
  }
  void deliver(const ContactProblemEvent& e) {
    each([&](SimulationObserver& o) { o.on_contact_problem(e); });
  }
  double callback_s() const { return callback_s_; }

 private:
  std::vector<SimulationObserver*> observers_;
  double callback_s_ = 0.0;
};

/// An observer that calls a function at every output time (tests, benchmarks).
class OutputCallback final : public SimulationObserver {
 public:
  using Function = std::function<void(double t, std::span<const double> y)>;
  explicit OutputCallback(Function function) : function_(std::move(function)) {}
  void on_output(const RunSample& sample) override { function_(sample.time_s, sample.state); }

 private:
  Function function_;
};

}  // namespace contactlab::core
