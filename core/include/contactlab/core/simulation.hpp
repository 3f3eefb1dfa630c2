// The simulation: the orchestrator behind the OdeView the integrators drive. It owns the run's
// pieces — the bodies (BodySystem), the contact pipeline (q → contact set), the contact laws and
// their force assembly (ContactForces), the contacts' life cycle (ContactLifecycle) — and the
// state y = [q; v; x] between them, and delivers typed events and output samples to its
// observers (SimulationObserver; the recorder and the metrics are two).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "contactlab/core/body_system.hpp"
#include "contactlab/core/contact_forces.hpp"
#include "contactlab/core/contact_lifecycle.hpp"
#include "contactlab/core/contact_pipeline.hpp"
#include "contactlab/core/mechanics_host.hpp"
#include "contactlab/core/observers.hpp"
#include "contactlab/core/scene.hpp"

namespace contactlab::core {

/// How far a run has come, readable from another thread while Simulation::run() works (a
/// progress display): the end time of the last completed step and the steps so far.
struct RunProgress {
  std::atomic<double> time_s{0.0};
  std::atomic<std::int64_t> steps{0};
};

class Simulation final : public OdeView, public RunView {
 public:
  Simulation(const Scene& scene, PluginRegistry& registry);
  ~Simulation() override;

  const Scene& scene() const override { return scene_; }
  std::vector<double> initial_state() const { return bodies_.initial_state(); }

  // --- OdeView ---
  std::size_t configuration_size() const override { return bodies_.configuration_size(); }
  std::size_t velocity_size() const override { return bodies_.velocity_size(); }
  std::size_t state_size() const override {
    return bodies_.configuration_size() + bodies_.velocity_size() +
           lifecycle_.continuous_state_count();
  }
  std::size_t event_count() const override { return mechanics_ ? 0 : lifecycle_.event_count(); }
  void event_values(double t, std::span<const double> y, std::span<double> g) override;
  void derivative(double t, std::span<const double> y, std::span<double> y_rate) override;
  void integrate_configuration(std::span<const double> q, std::span<const double> v, double dt,
                               std::span<double> q_out) override {
    bodies_.integrate_configuration(q, v, dt, q_out);
  }
  void project(std::span<double> y) override { bodies_.project(y); }
  StepAction step_completed(double t, std::span<const double> y) override;
  void output(double t, std::span<const double> y) override;
  /// One block per joint tree with states (its q and v), then one per living contact in state
  /// order when the laws have continuous states (its x). A tree depends on the trees it touches
  /// through living contacts and on their x; a contact's x on its two trees. Exact between
  /// births and deaths: only living contacts act in derivative(), and they change only in
  /// step_completed(), which then bumps state_coupling_revision().
  void state_coupling(StateCoupling& coupling) const override;
  std::uint64_t state_coupling_revision() const override { return coupling_revision_; }
  /// The time-stepping host (scene.time_stepping), else null.
  MechanicsView* mechanics() override { return mechanics_.get(); }

  // --- queries (also used by tests); each evaluates at y, as the run's own evaluations do ---
  BodyState body_state(std::size_t body, std::span<const double> y);
  /// Kinetic + gravitational potential + elastic joint and contact energy [J].
  double total_energy(std::span<const double> y);
  /// The living contacts' points with their forces at state y.
  const std::vector<ContactSample>& contacts_at(double t, std::span<const double> y);
  /// The contact set at configuration q (nq entries), without side effects on the run (see
  /// ContactPipeline::probe): for solvers that try configurations between steps. The living
  /// contacts' pairs are always in it.
  void probe_contacts(std::span<const double> q, ContactSet& out);

  SimulationStatistics statistics() const override;
  std::vector<NarrowPhaseStatistics> narrow_phase_statistics() const override {
    return pipeline_.narrow_phase_statistics();
  }
  const ContactPipeline& pipeline() const { return pipeline_; }
  Integrator& integrator() { return *integrator_; }

  /// Where step_completed() writes how far the run has come (null: nowhere); must outlive the run.
  void set_progress(RunProgress* progress) { progress_ = progress; }

  /// Observers are called in the order added; each must outlive the run.
  void add_observer(SimulationObserver& observer) { observers_.add(observer); }

  /// Runs from 0 to scene.duration_s; `stop` (may be null) requests a clean stop. Throws
  /// SimulationError on failure.
  IntegrationResult run(const std::atomic<bool>* stop = nullptr);

 private:
  /// Detection at the kinematics of the last bodies_.compute(): the pipeline's update, then the
  /// life cycle's and the force assembly's view of the new contact set.
  void detect();
  /// Loads at (t, y) into wrenches_ (gravity, the living contacts); when y_rate is not empty
  /// also the rates of the living contacts' continuous states; with `record` the samples_.
  void compute_forces(double t, std::span<const double> y, std::span<double> y_rate, bool record);
  /// Evaluates what `needs` asks at (t, y) into a sample (charged to the recording share).
  RunSample evaluate_sample(double t, std::span<const double> y, SampleNeeds needs);
  /// Time-grid helper for run(): whether t is an output time k·interval.
  bool on_output_grid(double t) const;

  const Scene& scene_;
  ContactPipeline pipeline_;
  ContactLaws laws_;
  std::shared_ptr<Integrator> integrator_;
  BodySystem bodies_;
  ContactForces forces_;
  ObserverList observers_;
  ContactLifecycle lifecycle_;
  /// Under a time-stepping integrator: the view it solves contact through. The laws, forces and
  /// life cycle are then idle (no penalty law, no events, no contact states).
  std::unique_ptr<MechanicsHost> mechanics_;

  // Workspace (sized once; no allocation per evaluation after warm-up).
  std::vector<BodyWrench> wrenches_;  ///< per body: gravity and contact loads
  std::vector<ContactSample> samples_;
  std::vector<BodyState> body_states_;
  std::vector<Pose> probe_poses_;
  // The state of the last event_values() call, whose detection step_completed() may reuse.
  double event_time_s_ = 0.0;
  std::vector<double> event_state_;
  std::int64_t event_detection_ = -1;
  std::uint64_t coupling_revision_ = 0;  ///< bumped at every birth or death of contacts
  std::vector<double> pending_y_;        ///< the state after a restart-requesting step_completed()
  SampleNeeds needs_;                    ///< the observers' needs, taken at the run's start
  const std::atomic<bool>* stop_ = nullptr;
  RunProgress* progress_ = nullptr;

  // Counters (the pieces keep theirs; statistics() gathers them).
  std::int64_t steps_ = 0, rhs_evaluations_ = 0, restarts_ = 0, located_events_ = 0;
  double response_s_ = 0.0, dynamics_s_ = 0.0;
  RecordingShare recording_;  ///< wall_s: the samples' evaluation (callbacks: observers_)
};

}  // namespace contactlab::core
