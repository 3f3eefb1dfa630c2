// The orchestrator (see simulation.hpp). Each evaluation of f(t, y): the bodies' kinematics →
// the contact pipeline's detection → the life cycle links its contacts → contact force assembly →
// the tree's forward dynamics. Accepted steps go to the life cycle (law events, births with their
// impulses, deaths); output times to the observers.
#include "contactlab/core/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

namespace contactlab::core {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The integrator, refused when it cannot restart from a state the host changes at an event
/// and the laws need that.
std::shared_ptr<Integrator> create_integrator(const Scene& scene, PluginRegistry& registry,
                                              const ContactLaws& laws) {
  auto integrator = registry.create<Integrator>(*scene.integrator.info, scene.integrator.params);
  if (!integrator->capabilities().state_reset) {
    auto refuse = [&](const PluginChoice& law, const std::string& why) {
      throw InputError(scene.integrator.config_path + ": integrator '" + scene.integrator.type +
                       "' cannot restart from a state the host changes at an event, which " +
                       law.config_path + " '" + law.type + "' needs (" + why +
                       "); choose an integrator that can (e.g. rk4)");
    };
    if (laws.impulsive) refuse(scene.force_law, "it applies velocity jumps at impacts");
    if (laws.law_layout.continuous_states > 0)
      refuse(scene.force_law, "it adds continuous states per contact");
    if (laws.friction_layout.continuous_states > 0)
      refuse(scene.friction, "it adds continuous states per contact");
  }
  return integrator;
}

}  // namespace

Simulation::Simulation(const Scene& scene, PluginRegistry& registry)
    : scene_(scene),
      pipeline_(scene, registry),
      laws_(scene, registry),
      integrator_(create_integrator(scene, registry, laws_)),
      bodies_(scene, registry),
      forces_(scene, bodies_, laws_, pipeline_.contacts()),
      lifecycle_(laws_, bodies_, forces_, pipeline_.contacts(), observers_) {
  if (scene.time_stepping) {
    mechanics_ = std::make_unique<MechanicsHost>(scene, bodies_, pipeline_);
    mechanics_->set_observers(&observers_);
  }
  wrenches_.resize(bodies_.body_count());
  body_states_.resize(bodies_.body_count());
  samples_.reserve(4 * scene.geometries.size() + 16);
}

Simulation::~Simulation() = default;

void Simulation::detect() {
  pipeline_.update(bodies_.poses_WB(), lifecycle_.watched());
  lifecycle_.link();
  forces_.new_detection();
}

void Simulation::compute_forces(double t, std::span<const double> y, std::span<double> y_rate,
                                bool record) {
  const auto start = Clock::now();
  bodies_.gravity_wrenches(wrenches_);
  if (record) samples_.clear();
  const std::size_t nq_nv = bodies_.configuration_size() + bodies_.velocity_size();
  const bool rates = !y_rate.empty() && lifecycle_.continuous_state_count() > 0;
  if (rates) std::fill(y_rate.begin() + static_cast<std::ptrdiff_t>(nq_nv), y_rate.end(), 0.0);
  const std::size_t pairs = pipeline_.contacts().pairs.size();
  for (std::size_t c = 0; c < pairs; ++c) {
    // Only living contacts act: a pair that penetrates inside a step is born at the step's end
    // (at its located event when the integrator locates events), as in a hybrid system whose
    // discrete state changes only at events. Laws that jump at touching (a damper's c·δ̇, an
    // impulse law's resting law) would otherwise act on the stages before the located contact
    // start.
    const LivingContact* living = lifecycle_.living(c);
    if (!living) continue;
    forces_.add_pair(t, c, lifecycle_.working_state(*living, y), wrenches_,
                     record ? &samples_ : nullptr,
                     rates ? lifecycle_.x_rate(*living, y_rate) : std::span<double>());
  }
  response_s_ += seconds_since(start);
}

void Simulation::derivative(double t, std::span<const double> y_in, std::span<double> y_rate) {
  ++rhs_evaluations_;
  const std::span<const double> y = bodies_.with_drives(t, y_in);
  bodies_.compute(y);
  detect();
  pipeline_.keep_boxes();
  compute_forces(t, y, y_rate, false);
  const auto start = Clock::now();
  bodies_.accelerations(t, y, wrenches_, y_rate);
  dynamics_s_ += seconds_since(start);
  for (std::size_t i = 0; i < y_rate.size(); ++i)
    if (!std::isfinite(y_rate[i]))
      throw SimulationError("the state derivative became non-finite at t = " + std::to_string(t) +
                            " s (a contact force diverged?)");
}

void Simulation::event_values(double t, std::span<const double> y_in, std::span<double> g) {
  if (mechanics_) return;  // time stepping: no event functions
  const std::span<const double> y = bodies_.with_drives(t, y_in);
  bodies_.compute(y);
  detect();
  // step_completed() at this same state (the usual next call) reuses this detection.
  event_time_s_ = t;
  event_state_.assign(y.begin(), y.end());
  event_detection_ = pipeline_.detections();
  lifecycle_.event_values(t, y, g);
}

StepAction Simulation::step_completed(double t, std::span<const double> y_in) {
  ++steps_;
  if (progress_) {
    progress_->time_s.store(t, std::memory_order_relaxed);
    progress_->steps.store(steps_, std::memory_order_relaxed);
  }
  // Driven joints follow their prescribed motion; a restart also writes it into the state.
  const std::span<const double> y = bodies_.with_drives(t, y_in);
  for (std::size_t i = 0; i < y.size(); ++i)
    if (!std::isfinite(y[i]))
      throw SimulationError(bodies_.state_owner(i) +
                            " became non-finite at t = " + std::to_string(t) + " s");
  // The detection of event_values() at this same state is reused; the body kinematics are not,
  // as output() or derivative() may have moved them to another state since (e.g. an output
  // time just before a located contact start), and births read the velocities.
  if (mechanics_) {  // time stepping: contact was solved inside the step; no life cycle
    if (stop_ && stop_->load()) return StepAction::stop;
    return StepAction::proceed;
  }
  const bool detected = event_detection_ == pipeline_.detections() && event_time_s_ == t &&
                        std::equal(y.begin(), y.end(), event_state_.begin(), event_state_.end());
  bodies_.compute(y);
  if (!detected) detect();
  pending_y_.assign(y.begin(), y.end());
  const ContactLifecycle::StepOutcome outcome = lifecycle_.step(t, y, pending_y_);
  if (outcome.births_or_deaths) ++coupling_revision_;
  if (stop_ && stop_->load()) return StepAction::stop;
  return outcome.restart ? StepAction::restart : StepAction::proceed;
}

void Simulation::state_coupling(StateCoupling& coupling) const {
  const std::size_t n = state_size();
  const std::size_t nq_nv = bodies_.configuration_size() + bodies_.velocity_size();
  const auto per_contact = static_cast<std::size_t>(lifecycle_.states_per_contact());
  const std::size_t contact_blocks = per_contact > 0 ? lifecycle_.living_count() : 0;
  const std::uint32_t tree_blocks = bodies_.tree_blocks();
  const std::size_t blocks = tree_blocks + contact_blocks;
  coupling.block_of_state.assign(n, 0u);
  for (std::size_t i = 0; i < bodies_.body_count(); ++i) {
    for (int k = 0; k < bodies_.nq(i); ++k)
      coupling.block_of_state[bodies_.q_offset(i) + k] = bodies_.tree_block(i);
    for (int k = 0; k < bodies_.nv(i); ++k)
      coupling.block_of_state[bodies_.configuration_size() + bodies_.v_offset(i) + k] =
          bodies_.tree_block(i);
  }
  std::vector<std::vector<std::uint32_t>> depends(blocks);
  const std::span<const PairKey> living = lifecycle_.watched();
  for (std::size_t c = 0; c < living.size(); ++c) {
    const std::uint32_t a = bodies_.tree_block(scene_.geometries[first_geometry(living[c])].body);
    const std::uint32_t b = bodies_.tree_block(scene_.geometries[second_geometry(living[c])].body);
    if (a != BodySystem::no_block && b != BodySystem::no_block && a != b) {
      depends[a].push_back(b);
      depends[b].push_back(a);
    }
    if (per_contact == 0) continue;
    const auto block = static_cast<std::uint32_t>(tree_blocks + c);
    const std::size_t x_offset = nq_nv + lifecycle_.contact(c).x_offset;
    for (std::size_t k = 0; k < per_contact && x_offset + k < n; ++k)
      coupling.block_of_state[x_offset + k] = block;
    for (const std::uint32_t tree : {a, b}) {
      if (tree == BodySystem::no_block) continue;
      depends[block].push_back(tree);
      depends[tree].push_back(block);
    }
  }
  coupling.dependency_offsets.assign(1, 0u);
  coupling.dependencies.clear();
  for (std::vector<std::uint32_t>& list : depends) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    coupling.dependencies.insert(coupling.dependencies.end(), list.begin(), list.end());
    coupling.dependency_offsets.push_back(static_cast<std::uint32_t>(coupling.dependencies.size()));
  }
  if (blocks == 0) coupling.set_dense(n);  // nothing moves: one (empty) block
}

RunSample Simulation::evaluate_sample(double t, std::span<const double> y, SampleNeeds needs) {
  RunSample sample;
  sample.time_s = t;
  sample.state = y;
  if (!needs.bodies && !needs.contacts && !needs.energy) return sample;
  const Clock::time_point start = Clock::now();
  const SimulationStatistics before = statistics();
  if (needs.bodies) {
    bodies_.compute(y);
    for (std::size_t b = 0; b < bodies_.body_count(); ++b)
      body_states_[b] = bodies_.body_state(b, y);
    sample.bodies = body_states_;
  }
  // Contacts before energy: each is a detection of the run (its warm starts), in this order.
  if (needs.contacts) sample.contacts = contacts_at(t, y);
  if (needs.energy) sample.energy_J = total_energy(y);
  const SimulationStatistics after = statistics();
  recording_.broad_phase_s += after.broad_phase_s - before.broad_phase_s;
  recording_.narrow_phase_s += after.narrow_phase_s - before.narrow_phase_s;
  recording_.response_s += after.response_s - before.response_s;
  recording_.dynamics_s += after.dynamics_s - before.dynamics_s;
  recording_.narrow_phase_queries += after.narrow_phase_queries - before.narrow_phase_queries;
  recording_.wall_s += seconds_since(start);
  return sample;
}

void Simulation::output(double t, std::span<const double> y_in) {
  if (observers_.empty()) return;
  const std::span<const double> y = bodies_.with_drives(t, y_in);
  const RunSample sample = evaluate_sample(t, y, needs_);
  observers_.each([&](SimulationObserver& observer) { observer.on_output(sample); });
}

BodyState Simulation::body_state(std::size_t index, std::span<const double> y) {
  bodies_.compute(y);
  return bodies_.body_state(index, y);
}

double Simulation::total_energy(std::span<const double> y) {
  bodies_.compute(y);
  double energy = bodies_.mechanical_energy(y);
  if (mechanics_) return energy;  // rigid contact stores no energy
  detect();
  const ContactSet& contacts = pipeline_.contacts();
  for (std::size_t c = 0; c < contacts.pairs.size(); ++c) {
    const LivingContact* living = lifecycle_.living(c);
    const ContactState state = living ? lifecycle_.working_state(*living, y) : ContactState{};
    const ContactManifold& manifold = contacts.pairs[c].manifold;
    for (int point = 0; point < manifold.count; ++point)
      if (manifold.points[point].distance_m < laws_.activation_distance_m)
        energy += forces_.potential_energy(c, point, state, living ? &living->state : nullptr);
  }
  return energy;
}

const std::vector<ContactSample>& Simulation::contacts_at(double t, std::span<const double> y) {
  // Time stepping: the forces of the step that ended at y (impulse / step), as the integrator
  // reported them.
  if (mechanics_) return mechanics_->samples();
  bodies_.compute(y);
  detect();
  compute_forces(t, y, {}, true);
  return samples_;
}

void Simulation::probe_contacts(std::span<const double> q, ContactSet& out) {
  bodies_.poses_at(q, probe_poses_);
  pipeline_.probe(probe_poses_, lifecycle_.watched(), out);
}

SimulationStatistics Simulation::statistics() const {
  SimulationStatistics s;
  const ContactPipelineStatistics pipeline = pipeline_.statistics();
  const ContactLifecycleStatistics& lifecycle = lifecycle_.statistics();
  s.steps = steps_;
  s.rhs_evaluations = rhs_evaluations_;
  s.narrow_phase_queries = pipeline.narrow_phase_queries;
  s.events = lifecycle.events;
  s.impulses = lifecycle.impulses;
  s.restarts = restarts_;
  s.located_events = located_events_;
  s.max_penetration_m = lifecycle.max_penetration_m;
  s.broad_phase_s = pipeline.broad_phase_s;
  s.narrow_phase_s = pipeline.narrow_phase_s;
  s.response_s = response_s_;
  s.dynamics_s = dynamics_s_;
  s.recording = recording_;
  s.recording.wall_s += observers_.callback_s();
  if (mechanics_) {
    s.time_stepping = true;
    s.contact_solver = mechanics_->statistics();
    s.max_penetration_m = s.contact_solver.max_penetration_m;
  }
  return s;
}

bool Simulation::on_output_grid(double t) const {
  const double interval = scene_.output_interval_s;
  if (t == scene_.duration_s) return true;
  if (!(std::isfinite(interval) && interval > 0.0)) return false;
  return std::round(t / interval) * interval == t;
}

IntegrationResult Simulation::run(const std::atomic<bool>* stop) {
  stop_ = stop;
  std::vector<double> y = initial_state();
  project(y);
  // Contacts already closer than the activation distance at t = 0 are born at t = 0 (their events
  // reach the observers, so they are told of the run first).
  observers_.each([&](SimulationObserver& observer) { observer.on_run_start(*this); });
  needs_ = observers_.needs();
  const SampleNeeds energy_only{false, false, needs_.energy};
  if (step_completed(0.0, y) == StepAction::restart) y = pending_y_;
  --steps_;
  {
    const RunSample initial = evaluate_sample(0.0, y, energy_only);
    observers_.each([&](SimulationObserver& observer) { observer.on_initial_state(initial); });
  }
  output(0.0, y);
  IntegrationResult total;
  double t = 0.0;
  for (;;) {
    IntegrationResult result =
        integrator_->integrate(*this, t, scene_.duration_s, scene_.output_interval_s, y);
    total.steps += result.steps;
    total.rejected_steps += result.rejected_steps;
    total.rhs_evaluations += result.rhs_evaluations;
    total.event_evaluations += result.event_evaluations;
    total.located_events += result.located_events;
    total.jacobian_evaluations += result.jacobian_evaluations;
    total.jacobian_rhs_evaluations += result.jacobian_rhs_evaluations;
    total.nonlinear_iterations += result.nonlinear_iterations;
    total.contact_solves += result.contact_solves;
    total.status = result.status;
    total.time_reached_s = result.time_reached_s;
    total.message = std::move(result.message);
    if (total.status != IntegrationStatus::restart_requested) break;
    // The host changed the state at t (an impulse, contact states born or gone): resume from it.
    ++restarts_;
    t = total.time_reached_s;
    y = pending_y_;
    if (on_output_grid(t)) output(t, y);  // the integrator returned before reporting it
    if (t >= scene_.duration_s) {
      total.status = IntegrationStatus::completed;
      break;
    }
  }
  located_events_ = total.located_events;
  {
    const RunSample final_state = evaluate_sample(total.time_reached_s, y, energy_only);
    observers_.each([&](SimulationObserver& observer) { observer.on_run_end(final_state, total); });
  }
  stop_ = nullptr;
  return total;
}

}  // namespace contactlab::core
