// The simulation: owns the plugin instances, the state y = [q; v; x] (x: the continuous states of
// the living contacts), the living contacts and the workspace; implements the OdeView the
// integrators drive.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "contactlab/core/contact_pipeline.hpp"
#include "contactlab/core/multibody.hpp"
#include "contactlab/core/scene.hpp"

namespace contactlab::core {

class Recorder;

/// World-frame state of one body, as written to trajectory.csv.
struct BodyState {
  Vec3 p_WCm = Vec3::Zero();  ///< centre of mass [m]
  Eigen::Quaterniond q_WB = Eigen::Quaterniond::Identity();
  Vec3 v_WCm = Vec3::Zero();  ///< velocity of the centre of mass [m/s]
  Vec3 w_WB = Vec3::Zero();   ///< angular velocity [rad/s]
};

/// One contact as evaluated at one instant (for contacts.csv and tests).
struct ContactSample {
  std::size_t geometry_a = 0, geometry_b = 0;
  ContactGeometry geometry;
  Vec3 point_W = Vec3::Zero();
  double normal_force_N = 0.0;
  Vec3 tangential_force_W = Vec3::Zero();
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
};

class Simulation final : public OdeView {
 public:
  Simulation(const Scene& scene, PluginRegistry& registry);
  ~Simulation() override;

  const Scene& scene() const { return scene_; }
  std::vector<double> initial_state() const;

  // --- OdeView ---
  std::size_t configuration_size() const override { return nq_; }
  std::size_t velocity_size() const override { return nv_; }
  std::size_t state_size() const override { return nq_ + nv_ + nx_; }
  std::size_t event_count() const override {
    return 2 + living_order_.size() * static_cast<std::size_t>(events_per_contact_);
  }
  void event_values(double t, std::span<const double> y, std::span<double> g) override;
  void derivative(double t, std::span<const double> y, std::span<double> y_rate) override;
  void integrate_configuration(std::span<const double> q, std::span<const double> v, double dt,
                               std::span<double> q_out) override;
  void project(std::span<double> y) override;
  StepAction step_completed(double t, std::span<const double> y) override;
  void output(double t, std::span<const double> y) override;
  /// One block per joint tree with states (its q and v), then one per living contact in state
  /// order when the laws have continuous states (its x). A tree depends on the trees it touches
  /// through living contacts and on their x; a contact's x on its two trees. Exact between
  /// births and deaths: only living contacts act in derivative(), and they change only in
  /// step_completed(), which then bumps state_coupling_revision().
  void state_coupling(StateCoupling& coupling) const override;
  std::uint64_t state_coupling_revision() const override { return coupling_revision_; }

  // --- queries (also used by tests) ---
  BodyState body_state(std::size_t body, std::span<const double> y);
  /// Kinetic + gravitational potential + elastic contact energy [J].
  double total_energy(std::span<const double> y);
  /// Contacts (penetrating pairs) with their forces at state y.
  const std::vector<ContactSample>& contacts_at(double t, std::span<const double> y);
  SimulationStatistics statistics() const;
  /// The counters of each narrow phase in the chain, in chain order.
  std::vector<NarrowPhaseStatistics> narrow_phase_statistics() const {
    return pipeline_.narrow_phase_statistics();
  }
  /// The contact set at configuration q (nq entries), without side effects on the run (see
  /// ContactPipeline::probe): for solvers that try configurations between steps. The living
  /// contacts' pairs are always in it.
  void probe_contacts(std::span<const double> q, ContactSet& out);
  const ContactPipeline& pipeline() const { return pipeline_; }
  Integrator& integrator() { return *integrator_; }

  /// Called at every output time (after the recorder), e.g. by tests that sample trajectories.
  using Observer = std::function<void(double t, std::span<const double> y)>;
  void set_observer(Observer observer) { observer_ = std::move(observer); }

  /// Runs from 0 to scene.duration_s, writing through `recorder` (may be null); `stop` (may be
  /// null) requests a clean stop. Throws SimulationError on failure.
  IntegrationResult run(Recorder* recorder, const std::atomic<bool>* stop);

 private:
  struct BodyRuntime;
  struct LivingContact {
    ContactState state;
    double max_penetration_m = 0.0;
    std::size_t x_offset = 0;  ///< its continuous states: y[nq + nv + x_offset …]
    std::size_t pair = 0;      ///< its index in the contact set of the last detection
    /// Its law event functions at the last accepted step ([law…; friction…]).
    std::array<double, 2 * max_law_event_functions> event_g{};
  };

  void compute_kinematics(std::span<const double> y);
  /// The pipeline's detection at the kinematics of compute_kinematics(), then each living
  /// contact linked to its pair of the new contact set.
  void detect_contacts();
  /// Forces of the candidates at (t, y); when y_rate is not empty also the rates of the living
  /// contacts' continuous states.
  void compute_forces(double t, std::span<const double> y, std::span<double> y_rate, bool record);
  /// The contact's state with its continuous states copied from y.
  ContactState working_state(const LivingContact& contact, std::span<const double> y) const;
  /// Law event functions of a living contact (pair c) into g ([law…; friction…]).
  void contact_event_values(double t, std::size_t c, const ContactState& state,
                            std::span<double> g) const;
  /// Applies a Newton impulse with restitution e at pair c's deepest point to the
  /// velocities in y (the kinematics must be those of y). Returns the impulse [N·s].
  double apply_impulse(double t, std::size_t c, double restitution, std::span<double> y);
  /// After births and deaths: living_order_, the continuous-state offsets, nx_, and (when the
  /// contacts have continuous states) pending_y_ rebuilt as [q; v; x] from `y`'s old layout.
  void relayout_living(std::span<const double> y, const std::vector<std::uint64_t>& born);
  /// Time-grid helper for run(): whether t is an output time k·interval.
  bool on_output_grid(double t) const;
  void compute_accelerations(double t, std::span<const double> y, std::span<double> y_rate);
  /// y with every driven joint's q and v replaced by its prescribed motion at t (drive_y_).
  std::span<const double> with_drives(double t, std::span<const double> y);
  std::vector<double> drive_y_;
  /// Kinematics of point `point` of pair `pair`'s manifold.
  ContactKinematics contact_kinematics(double t, std::size_t pair, int point = 0) const;
  /// m* of a manifold point: (1/m_A + 1/m_B)⁻¹ for free bodies; through the tree (1/(n·J·M⁻¹·
  /// Jᵀ·n)) when a body is articulated.
  double effective_mass(std::size_t pair, int point, const Vec3& point_W,
                        const Vec3& normal_W) const;
  static constexpr std::size_t no_body = static_cast<std::size_t>(-1);
  /// n·(Δv_B(p) − Δv_A(p)) for a unit impulse n at p on body_b and −n on body_a (either may be
  /// no_body) at configuration q; leaves Δv = M⁻¹·Jᵀ·n in impulse_response_.
  double unit_impulse_response(std::size_t body_a, std::size_t body_b, const Vec3& point_W,
                               const Vec3& normal_W, std::span<const double> q) const;

  const Scene& scene_;
  ContactPipeline pipeline_;
  std::shared_ptr<ForceLaw> force_law_;
  std::shared_ptr<Friction> friction_;
  std::shared_ptr<Integrator> integrator_;
  std::vector<BodyRuntime> bodies_;
  std::unique_ptr<MultibodyTree> tree_;  ///< the joint tree (Scene::bodies order)
  std::size_t nq_ = 0, nv_ = 0;
  std::size_t nx_ = 0;  ///< continuous states of the living contacts
  ContactLawLayout law_layout_, friction_layout_;
  int states_per_contact_ = 0, events_per_contact_ = 0;
  double activation_distance_m_ = 0.0;
  bool impulsive_ = false;

  // Workspace (sized once; no allocation per evaluation after warm-up).
  std::vector<BodyWrench> wrenches_;                  ///< per body: gravity and contact loads
  mutable std::vector<BodyWrench> impulse_wrenches_;  ///< per body: a unit contact impulse
  std::vector<double> tau_;                           ///< joint forces (nv)
  std::vector<double> zero_v_;                        ///< nv zeros
  mutable std::vector<double> impulse_response_;      ///< M⁻¹·Jᵀ·n (nv)
  std::vector<double> kinematics_q_;                  ///< q of the last compute_kinematics()
  std::vector<Pose> X_WB_;                            ///< per body, at compute_kinematics()
  std::vector<Pose> probe_poses_;                     ///< per body, at probe_contacts()' q
  /// Per pair of the contact set: its living contact, if any (valid until the next death).
  std::vector<LivingContact*> living_of_pair_;
  /// Per pair of the contact set: m* of each point when a body is articulated (0: not yet).
  mutable std::vector<std::array<double, max_manifold_points>> effective_mass_kg_;
  std::vector<ContactSample> samples_;
  std::unordered_map<std::uint64_t, LivingContact> living_;
  std::vector<std::uint64_t> living_order_;  ///< living contacts in state/event order
  // The state of the last event_values() call, whose detection step_completed() may reuse.
  double event_time_s_ = 0.0;
  std::vector<double> event_state_;
  std::int64_t event_detection_ = -1;
  /// Per body: the coupling block of its joint tree, or no_block when the tree has no state.
  std::vector<std::uint32_t> tree_block_;
  std::uint32_t tree_blocks_ = 0;  ///< joint trees with states
  static constexpr std::uint32_t no_block = static_cast<std::uint32_t>(-1);
  std::uint64_t coupling_revision_ = 0;  ///< bumped at every birth or death of contacts
  std::vector<double> pending_y_;        ///< the state after a restart-requesting step_completed()
  std::vector<std::uint64_t> born_;      ///< step_completed()'s newborn contacts (reused)

  Recorder* recorder_ = nullptr;
  Observer observer_;
  const std::atomic<bool>* stop_ = nullptr;
  SimulationStatistics stats_;
};

}  // namespace contactlab::core
