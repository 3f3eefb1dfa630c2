// Over 800 lines until issue 29 part 4 lands: the contact life cycle, force assembly and bodies
// are being split out of Simulation (branch wt-pipeline), which leaves it the orchestrator.
// Rigid multibody dynamics with contact: forward kinematics of the joint tree → broad phase →
// narrow phase → force law and friction → body wrenches → articulated-body algorithm (hybrid for
// driven joints); the contacts' life cycle (births, deaths, law events, impulses through the
// tree's inverse mass, continuous contact states).
#include "contactlab/core/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "contactlab/core/recorder.hpp"

namespace contactlab::core {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double harmonic_sum(double a, double b) {
  // (1/a + 1/b)⁻¹ with ∞ treated as "no contribution".
  if (std::isinf(a)) return b;
  if (std::isinf(b)) return a;
  return a * b / (a + b);
}

/// R_geo of Neumayr (2025) table 7.2: the curved shape's contact radius when the other is flat,
/// otherwise r_A·r_B/(r_A + r_B) (for two flat shapes an artificial but workable value).
double effective_radius(const Shape& a, const Shape& b) {
  if (a.flat && !b.flat) return b.contact_radius_m;
  if (b.flat && !a.flat) return a.contact_radius_m;
  return harmonic_sum(a.contact_radius_m, b.contact_radius_m);
}

}  // namespace

struct Simulation::BodyRuntime {
  std::shared_ptr<Joint> joint;
  std::size_t q_offset = 0, v_offset = 0;
  int nq = 0, nv = 0;
  int parent = -1;
  bool mobile = false;  ///< its joint or an ancestor's has velocities
  bool driven = false;  ///< its joint's motion is prescribed
  /// Mobile and part of an articulated tree (it has a parent body, children, or fewer than six
  /// velocities): its contacts' effective mass comes from the tree, not from its own mass.
  bool articulated = false;
  Pose X_PJ;
  double mass_kg = 0.0;
  Vec3 p_BCm = Vec3::Zero();
  Mat3 inertia_Cm_B = Mat3::Zero();
  // Per evaluation (from the tree's forward kinematics):
  Pose X_WB;
  Vec3 v_WBo = Vec3::Zero();  ///< velocity of the body origin
  Vec3 w_WB = Vec3::Zero();
  std::vector<double> q_drive, v_drive, a_drive;
};

Simulation::Simulation(const Scene& scene, PluginRegistry& registry)
    : scene_(scene), pipeline_(scene, registry) {
  force_law_ = registry.create<ForceLaw>(*scene.force_law.info, scene.force_law.params);
  friction_ = registry.create<Friction>(*scene.friction.info, scene.friction.params);
  integrator_ = registry.create<Integrator>(*scene.integrator.info, scene.integrator.params);

  // The contacts' memory: what the laws keep per contact, and what that asks of the integrator.
  law_layout_ = force_law_->layout();
  friction_layout_ = friction_->layout();
  auto check_layout = [](const ContactLawLayout& layout, const PluginChoice& choice) {
    if (layout.continuous_states < 0 || layout.continuous_states > max_law_continuous_states ||
        layout.event_functions < 0 || layout.event_functions > max_law_event_functions)
      throw PluginError("plugin '" + choice.type + "' (" + choice.config_path + ") declares " +
                        std::to_string(layout.continuous_states) + " continuous states and " +
                        std::to_string(layout.event_functions) +
                        " event functions per contact; the SDK allows 0.." +
                        std::to_string(max_law_continuous_states) + " and 0.." +
                        std::to_string(max_law_event_functions));
  };
  check_layout(law_layout_, scene.force_law);
  check_layout(friction_layout_, scene.friction);
  states_per_contact_ = law_layout_.continuous_states + friction_layout_.continuous_states;
  events_per_contact_ = law_layout_.event_functions + friction_layout_.event_functions;
  activation_distance_m_ = force_law_->activation_distance_m();
  if (!std::isfinite(activation_distance_m_) || activation_distance_m_ < 0.0)
    throw PluginError("force law '" + scene.force_law.type +
                      "' reports an activation distance of " +
                      std::to_string(activation_distance_m_) + " m; it must be finite and ≥ 0");
  impulsive_ = force_law_->requirements().impulsive;
  const IntegratorCapabilities capabilities = integrator_->capabilities();
  if (!capabilities.state_reset) {
    auto refuse = [&](const PluginChoice& law, const std::string& why) {
      throw InputError(scene.integrator.config_path + ": integrator '" + scene.integrator.type +
                       "' cannot restart from a state the host changes at an event, which " +
                       law.config_path + " '" + law.type + "' needs (" + why +
                       "); choose an integrator that can (e.g. rk4)");
    };
    if (impulsive_) refuse(scene.force_law, "it applies velocity jumps at impacts");
    if (law_layout_.continuous_states > 0)
      refuse(scene.force_law, "it adds continuous states per contact");
    if (friction_layout_.continuous_states > 0)
      refuse(scene.friction, "it adds continuous states per contact");
  }

  bodies_.resize(scene.bodies.size());
  std::vector<MultibodyBody> tree_bodies(scene.bodies.size());
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const BodyModel& model = scene.bodies[i];
    BodyRuntime& body = bodies_[i];
    body.joint = registry.create<Joint>(*model.joint.info, model.joint.params);
    body.nq = model.nq;
    body.nv = model.nv;
    body.q_offset = nq_;
    body.v_offset = nv_;
    nq_ += model.nq;
    nv_ += model.nv;
    body.parent = model.parent;
    body.mobile = model.mobile;
    body.driven = model.nv > 0 && body.joint->driven();
    body.X_PJ = model.X_PJ;
    body.mass_kg = model.mass.mass_kg;
    body.p_BCm = model.mass.p_BCm;
    body.inertia_Cm_B = model.mass.inertia_Cm_B;
    body.q_drive.assign(model.nq, 0.0);
    body.v_drive.assign(model.nv, 0.0);
    body.a_drive.assign(model.nv, 0.0);
    body.X_WB = model.X_WB_initial;
    MultibodyBody& node = tree_bodies[i];
    node.parent = model.parent;  // Scene::bodies is in topological order, as the tree needs
    node.joint = body.joint;
    node.X_PJ = model.X_PJ;
    node.mass = model.mass;
    node.prescribed = body.driven;
  }
  tree_ = std::make_unique<MultibodyTree>(std::move(tree_bodies));
  std::vector<bool> has_children(bodies_.size(), false);
  for (const BodyRuntime& body : bodies_)
    if (body.parent >= 0) has_children[static_cast<std::size_t>(body.parent)] = true;
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    BodyRuntime& body = bodies_[i];
    body.articulated = body.mobile && (body.parent >= 0 || has_children[i] || body.nv < 6);
  }
  // The coupling blocks of the joint trees (Scene::bodies is parent-first: a root comes before
  // its descendants); a tree without states (welded to the world) gets none.
  {
    std::vector<std::size_t> root(bodies_.size());
    std::vector<std::size_t> tree_states(bodies_.size(), 0);
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
      const int parent = bodies_[i].parent;
      root[i] = parent < 0 ? i : root[static_cast<std::size_t>(parent)];
      tree_states[root[i]] += static_cast<std::size_t>(bodies_[i].nq + bodies_[i].nv);
    }
    std::vector<std::uint32_t> root_block(bodies_.size(), no_block);
    for (std::size_t i = 0; i < bodies_.size(); ++i)
      if (root[i] == i && tree_states[i] > 0) root_block[i] = tree_blocks_++;
    tree_block_.resize(bodies_.size());
    for (std::size_t i = 0; i < bodies_.size(); ++i) tree_block_[i] = root_block[root[i]];
  }
  kinematics_q_.assign(nq_, 0.0);
  wrenches_.resize(bodies_.size());
  impulse_wrenches_.resize(bodies_.size());
  tau_.assign(nv_, 0.0);
  zero_v_.assign(nv_, 0.0);
  impulse_response_.assign(nv_, 0.0);

  X_WB_.resize(bodies_.size());
  samples_.reserve(4 * scene.geometries.size() + 16);
}

Simulation::~Simulation() = default;

std::vector<double> Simulation::initial_state() const {
  std::vector<double> y(nq_ + nv_, 0.0);
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    const BodyModel& model = scene_.bodies[i];
    const BodyRuntime& body = bodies_[i];
    for (int k = 0; k < body.nq; ++k) y[body.q_offset + k] = model.q_initial[k];
    for (int k = 0; k < body.nv; ++k) y[nq_ + body.v_offset + k] = model.v_initial[k];
  }
  return y;
}

void Simulation::compute_kinematics(std::span<const double> y) {
  std::copy_n(y.begin(), nq_, kinematics_q_.begin());
  tree_->forward_kinematics(y.first(nq_), y.subspan(nq_, nv_));
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    BodyRuntime& body = bodies_[i];
    body.X_WB = tree_->pose_WB(i);
    body.v_WBo = tree_->velocity_WBo(i);
    body.w_WB = tree_->angular_velocity_W(i);
    X_WB_[i] = body.X_WB;
  }
}

void Simulation::detect_contacts() {
  const ContactSet& contacts = pipeline_.update(X_WB_, living_order_);
  // The pipeline queried every living contact's pair (it watches them): link each to its pair.
  living_of_pair_.assign(contacts.pairs.size(), nullptr);
  for (std::size_t i = 0; i < living_order_.size(); ++i) {
    LivingContact& contact = living_.at(living_order_[i]);
    contact.pair = contacts.watched[i];
    living_of_pair_[contact.pair] = &contact;
  }
  effective_mass_kg_.assign(contacts.pairs.size(), std::array<double, max_manifold_points>{});
}

ContactKinematics Simulation::contact_kinematics(double t, std::size_t index, int point) const {
  const ContactPair& pair = pipeline_.contacts().pairs[index];
  const ContactGeometry& geometry = pair.manifold.points[point];
  const GeometryModel& ga = scene_.geometries[pair.geometry_a];
  const GeometryModel& gb = scene_.geometries[pair.geometry_b];
  const BodyRuntime& A = bodies_[ga.body];
  const BodyRuntime& B = bodies_[gb.body];
  ContactKinematics k;
  k.time_s = t;
  k.distance_m = geometry.distance_m;
  k.penetration_m = std::max(0.0, -geometry.distance_m);
  k.normal_W = geometry.normal_W;
  k.point_W = 0.5 * (geometry.point_a_W + geometry.point_b_W);
  const Vec3 v_A = A.v_WBo + A.w_WB.cross(k.point_W - A.X_WB.p);
  const Vec3 v_B = B.v_WBo + B.w_WB.cross(k.point_W - B.X_WB.p);
  const Vec3 relative = v_B - v_A;
  const double normal_speed = relative.dot(k.normal_W);
  k.penetration_rate_m_per_s = -normal_speed;
  k.slip_velocity_W = relative - normal_speed * k.normal_W;
  k.relative_angular_velocity_W = B.w_WB - A.w_WB;
  k.effective_radius_m = effective_radius(ga.shape, gb.shape);
  const SolidMaterial& ma = scene_.materials.solids.at(ga.material);
  const SolidMaterial& mb = scene_.materials.solids.at(gb.material);
  // Neumayr (2025) eq. 7.2.
  k.effective_modulus_Pa =
      1.0 / ((1.0 - ma.poisson_ratio * ma.poisson_ratio) / ma.youngs_modulus_Pa +
             (1.0 - mb.poisson_ratio * mb.poisson_ratio) / mb.youngs_modulus_Pa);
  k.effective_mass_kg = effective_mass(index, point, k.point_W, k.normal_W);
  k.material = *scene_.materials.find_pair(ga.material, gb.material);
  const LivingContact* living = living_of_pair_[index];
  k.impact_velocity_m_per_s =
      living ? living->state.impact_velocity_m_per_s : k.penetration_rate_m_per_s;
  return k;
}

double Simulation::effective_mass(std::size_t index, int point, const Vec3& point_W,
                                  const Vec3& normal_W) const {
  const ContactPair& pair = pipeline_.contacts().pairs[index];
  const std::size_t body_a = pair.body_a;
  const std::size_t body_b = pair.body_b;
  const BodyRuntime& A = bodies_[body_a];
  const BodyRuntime& B = bodies_[body_b];
  // A free body (six velocities of its own, nothing attached) counts with its mass, a body
  // welded to the world as infinitely heavy: m* = (1/m_A + 1/m_B)⁻¹, as the SDK documents.
  constexpr double infinite = std::numeric_limits<double>::infinity();
  if (!A.articulated && !B.articulated)
    return harmonic_sum(A.mobile ? A.mass_kg : infinite, B.mobile ? B.mass_kg : infinite);
  // A body in a joint tree moves with the rest of it: the inverse effective mass of its side is
  // n·J·M⁻¹·Jᵀ·n at the contact point (rotation and the other bodies included; driven joints
  // rigid). Computed once per manifold point and detection (it depends on q only).
  double& cached = effective_mass_kg_[index][static_cast<std::size_t>(point)];
  if (cached > 0.0) return cached;
  double inverse_mass =
      unit_impulse_response(A.articulated ? body_a : no_body, B.articulated ? body_b : no_body,
                            point_W, normal_W, kinematics_q_);
  if (!A.articulated && A.mobile) inverse_mass += 1.0 / A.mass_kg;
  if (!B.articulated && B.mobile) inverse_mass += 1.0 / B.mass_kg;
  cached = inverse_mass > 0.0 ? 1.0 / inverse_mass : infinite;
  return cached;
}

double Simulation::unit_impulse_response(std::size_t body_a, std::size_t body_b,
                                         const Vec3& point_W, const Vec3& normal_W,
                                         std::span<const double> q) const {
  // A unit impulse n at the contact point p on B (−n on A) is the generalized impulse Jᵀ·n and
  // changes the velocities by Δv = M⁻¹·Jᵀ·n: the forward dynamics at zero velocity, without
  // gravity or joint forces, with the impulse as the only load (driven joints keep their
  // prescribed velocity: their Δv is 0). The approach speed then changes by −w per unit
  // impulse, w = n·(Δv_B(p) − Δv_A(p)) = n·J·M⁻¹·Jᵀ·n: the inverse effective mass of the
  // contact through the whole tree.
  for (BodyWrench& wrench : impulse_wrenches_) wrench = BodyWrench{};
  if (body_b != no_body) {
    impulse_wrenches_[body_b].force_W += normal_W;
    impulse_wrenches_[body_b].torque_Bo_W += (point_W - bodies_[body_b].X_WB.p).cross(normal_W);
  }
  if (body_a != no_body) {
    impulse_wrenches_[body_a].force_W -= normal_W;
    impulse_wrenches_[body_a].torque_Bo_W -= (point_W - bodies_[body_a].X_WB.p).cross(normal_W);
  }
  std::fill(impulse_response_.begin(), impulse_response_.end(), 0.0);
  tree_->forward_dynamics(q, zero_v_, zero_v_, Vec3::Zero(), impulse_wrenches_, impulse_response_);
  tree_->forward_kinematics(q, impulse_response_);
  auto point_velocity = [&](std::size_t body) {
    if (body == no_body) return Vec3(Vec3::Zero());
    return Vec3(tree_->velocity_WBo(body) +
                tree_->angular_velocity_W(body).cross(point_W - tree_->pose_WB(body).p));
  };
  return normal_W.dot(point_velocity(body_b) - point_velocity(body_a));
}

ContactState Simulation::working_state(const LivingContact& contact,
                                       std::span<const double> y) const {
  ContactState state = contact.state;
  if (states_per_contact_ == 0) return state;
  const double* x = y.data() + nq_ + nv_ + contact.x_offset;
  for (int i = 0; i < law_layout_.continuous_states; ++i) state.law.x[i] = x[i];
  x += law_layout_.continuous_states;
  for (int i = 0; i < friction_layout_.continuous_states; ++i) state.friction.x[i] = x[i];
  return state;
}

void Simulation::contact_event_values(double t, std::size_t c, const ContactState& state,
                                      std::span<double> g) const {
  const ContactKinematics k = contact_kinematics(t, c);
  const double normal_force =
      k.distance_m < activation_distance_m_ ? force_law_->normal_force(k, state) : 0.0;
  force_law_->event_functions(k, normal_force, state.law,
                              g.first(static_cast<std::size_t>(law_layout_.event_functions)));
  friction_->event_functions(k, normal_force, state.friction,
                             g.subspan(static_cast<std::size_t>(law_layout_.event_functions),
                                       static_cast<std::size_t>(friction_layout_.event_functions)));
}

void Simulation::compute_forces(double t, std::span<const double> y, std::span<double> y_rate,
                                bool record) {
  const auto start = Clock::now();
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    const BodyRuntime& body = bodies_[i];
    BodyWrench& wrench = wrenches_[i];
    const Vec3 p_WCm = body.X_WB.R * body.p_BCm;  // COM relative to the body origin
    wrench.force_W = body.mobile ? Vec3(body.mass_kg * scene_.gravity_W) : Vec3::Zero();
    wrench.torque_Bo_W = p_WCm.cross(wrench.force_W);
  }
  if (record) samples_.clear();
  const bool rates = !y_rate.empty() && nx_ > 0;
  if (rates) std::fill(y_rate.begin() + static_cast<std::ptrdiff_t>(nq_ + nv_), y_rate.end(), 0.0);
  const ContactSet& contacts = pipeline_.contacts();
  for (std::size_t c = 0; c < contacts.pairs.size(); ++c) {
    const ContactPair& candidate = contacts.pairs[c];
    // Only living contacts act: a pair that penetrates inside a step is born at the step's end
    // (at its located event when the integrator locates events), as in a hybrid system whose
    // discrete state changes only at events. Laws that jump at touching (a damper's c·δ̇, an
    // impulse law's resting law) would otherwise act on the stages before the located contact
    // start.
    const LivingContact* living = living_of_pair_[c];
    if (!living) continue;
    const ContactState state = working_state(*living, y);
    const std::size_t body_a = candidate.body_a;
    const std::size_t body_b = candidate.body_b;
    const BodyRuntime& A = bodies_[body_a];
    const BodyRuntime& B = bodies_[body_b];
    BodyWrench& on_A = wrenches_[body_a];
    BodyWrench& on_B = wrenches_[body_b];
    double deepest_normal_force = 0.0;
    // Every active point of the manifold carries its own force; they share the pair's state.
    for (int point = 0; point < candidate.manifold.count; ++point) {
      if (!(candidate.manifold.points[point].distance_m < activation_distance_m_)) continue;
      const ContactKinematics k = contact_kinematics(t, c, point);
      const double normal_force = force_law_->normal_force(k, state);
      if (point == 0) deepest_normal_force = normal_force;
      const FrictionResult friction = friction_->compute(k, normal_force, state);
      const Vec3 force_on_B = normal_force * k.normal_W + friction.force_W;
      on_B.force_W += force_on_B;
      on_B.torque_Bo_W += (k.point_W - B.X_WB.p).cross(force_on_B) + friction.torque_W;
      on_A.force_W -= force_on_B;
      on_A.torque_Bo_W -= (k.point_W - A.X_WB.p).cross(force_on_B) + friction.torque_W;
      if (record) {
        ContactSample sample;
        sample.geometry_a = candidate.geometry_a;
        sample.geometry_b = candidate.geometry_b;
        sample.geometry = candidate.manifold.points[point];
        sample.point_W = k.point_W;
        sample.normal_force_N = normal_force;
        sample.tangential_force_W = friction.force_W;
        samples_.push_back(sample);
      }
    }
    if (rates) {
      // The continuous states follow the deepest point (one state per pair).
      const ContactKinematics k = contact_kinematics(t, c);
      const std::span<double> x_rate = y_rate.subspan(
          nq_ + nv_ + living->x_offset, static_cast<std::size_t>(states_per_contact_));
      const auto law_states = static_cast<std::size_t>(law_layout_.continuous_states);
      force_law_->continuous_rate(k, deepest_normal_force, state.law, x_rate.first(law_states));
      friction_->continuous_rate(k, deepest_normal_force, state.friction,
                                 x_rate.subspan(law_states));
    }
  }
  stats_.response_s += seconds_since(start);
}

std::span<const double> Simulation::with_drives(double t, std::span<const double> y) {
  bool any = false;
  for (const BodyRuntime& body : bodies_) any = any || body.driven;
  if (!any) return y;
  drive_y_.assign(y.begin(), y.end());
  for (BodyRuntime& body : bodies_) {
    if (!body.driven) continue;
    body.joint->prescribed_motion(t, body.q_drive, body.v_drive, body.a_drive);
    for (int k = 0; k < body.nq; ++k) drive_y_[body.q_offset + k] = body.q_drive[k];
    for (int k = 0; k < body.nv; ++k) drive_y_[nq_ + body.v_offset + k] = body.v_drive[k];
  }
  return drive_y_;
}

void Simulation::compute_accelerations(double t, std::span<const double> y,
                                       std::span<double> y_rate) {
  const auto start = Clock::now();
  const auto q_all = y.first(nq_);
  const auto v_all = y.subspan(nq_, nv_);
  const auto v_dot = y_rate.subspan(nq_, nv_);
  for (BodyRuntime& body : bodies_) {
    if (body.nv == 0 && body.nq == 0) continue;
    const auto q = q_all.subspan(body.q_offset, body.nq);
    const auto v = v_all.subspan(body.v_offset, body.nv);
    body.joint->configuration_rate(q, v, y_rate.subspan(body.q_offset, body.nq));
    if (body.nv == 0) continue;
    const auto tau = std::span<double>(tau_).subspan(body.v_offset, body.nv);
    if (body.driven) {
      // The prescribed v̇ is an input of the hybrid dynamics; the joint's own force is ignored.
      body.joint->prescribed_motion(t, body.q_drive, body.v_drive, body.a_drive);
      for (int k = 0; k < body.nv; ++k) {
        v_dot[body.v_offset + k] = body.a_drive[k];
        tau[k] = 0.0;
      }
      continue;
    }
    body.joint->joint_force(t, q, v, tau);
  }
  // Gravity is in the wrenches (compute_forces), so the tree's base does not accelerate.
  tree_->forward_dynamics(q_all, v_all, tau_, Vec3::Zero(), wrenches_, v_dot);
  stats_.dynamics_s += seconds_since(start);
}

void Simulation::derivative(double t, std::span<const double> y_in, std::span<double> y_rate) {
  ++stats_.rhs_evaluations;
  const std::span<const double> y = with_drives(t, y_in);
  compute_kinematics(y);
  detect_contacts();
  pipeline_.keep_boxes();
  compute_forces(t, y, y_rate, false);
  compute_accelerations(t, y, y_rate);
  for (std::size_t i = 0; i < y_rate.size(); ++i)
    if (!std::isfinite(y_rate[i]))
      throw SimulationError("the state derivative became non-finite at t = " + std::to_string(t) +
                            " s (a contact force diverged?)");
}

void Simulation::integrate_configuration(std::span<const double> q, std::span<const double> v,
                                         double dt, std::span<double> q_out) {
  for (const BodyRuntime& body : bodies_) {
    if (body.nq == 0) continue;
    body.joint->integrate(q.subspan(body.q_offset, body.nq), v.subspan(body.v_offset, body.nv), dt,
                          q_out.subspan(body.q_offset, body.nq));
  }
}

void Simulation::project(std::span<double> y) {
  for (const BodyRuntime& body : bodies_)
    if (body.nq) body.joint->normalize(y.subspan(body.q_offset, body.nq));
}

void Simulation::event_values(double t, std::span<const double> y_in, std::span<double> g) {
  const std::span<const double> y = with_drives(t, y_in);
  compute_kinematics(y);
  detect_contacts();
  // step_completed() at this same state (the usual next call) reuses this detection.
  event_time_s_ = t;
  event_state_.assign(y.begin(), y.end());
  event_detection_ = pipeline_.detections();
  // Aggregate functions (Modia3D's pair): contact start = the smallest gap of the pairs not in
  // contact, contact end = the smallest penetration of the pairs in contact. Each is armed while
  // positive; "nothing to watch" is a large positive value. Hysteresis: a start fires at a depth
  // of contact_start_hysteresis_m, not at zero, so that a pair exactly touching (balls placed in
  // a row, or a pair just separated at a located contact end) is armed; a function exactly zero
  // at a restart would never fire, and the pair would be born only at the end of a step, deep.
  constexpr double far = std::numeric_limits<double>::max();
  constexpr double contact_start_hysteresis_m = 1e-9;
  double start_gap = far, end_depth = far;
  const ContactSet& contacts = pipeline_.contacts();
  for (std::size_t c = 0; c < contacts.pairs.size(); ++c) {
    const double gap = contacts.pairs[c].deepest().distance_m - activation_distance_m_;
    if (living_of_pair_[c])
      end_depth = std::min(end_depth, -gap);
    else
      start_gap = std::min(start_gap, gap + contact_start_hysteresis_m);
  }
  g[0] = start_gap;
  g[1] = end_depth;
  const auto per_contact = static_cast<std::size_t>(events_per_contact_);
  for (std::size_t i = 0; i < living_order_.size() && per_contact > 0; ++i) {
    const LivingContact& contact = living_.at(living_order_[i]);
    const std::span<double> gi = g.subspan(2 + i * per_contact, per_contact);
    // The pipeline watched it: it is a pair of this detection.
    contact_event_values(t, contact.pair, working_state(contact, y), gi);
  }
}

double Simulation::apply_impulse(double t, std::size_t c, double restitution, std::span<double> y) {
  const ContactPair& candidate = pipeline_.contacts().pairs[c];
  const ContactKinematics k = contact_kinematics(t, c);
  const double approach_m_per_s = k.penetration_rate_m_per_s;
  if (!(approach_m_per_s > 0.0)) return 0.0;
  // Newton's law δ̇⁺ = −e·δ̇⁻ needs the impulse P = (1 + e)·δ̇⁻/w, w the contact's inverse
  // effective mass through the tree; the velocities change by P·M⁻¹·Jᵀ·n.
  const double inverse_mass =
      unit_impulse_response(candidate.body_a, candidate.body_b, k.point_W, k.normal_W,
                            std::span<const double>(y).first(nq_));
  if (!(inverse_mass > 0.0)) return 0.0;
  const double impulse = (1.0 + restitution) * approach_m_per_s / inverse_mass;
  for (std::size_t i = 0; i < nv_; ++i) y[nq_ + i] += impulse * impulse_response_[i];
  return impulse;
}

void Simulation::relayout_living(std::span<const double> y,
                                 const std::vector<std::uint64_t>& born) {
  std::vector<std::uint64_t> order;
  order.reserve(living_.size());
  for (std::uint64_t key : living_order_)
    if (living_.count(key)) order.push_back(key);
  order.insert(order.end(), born.begin(), born.end());
  const auto per_contact = static_cast<std::size_t>(states_per_contact_);
  if (per_contact > 0) {
    std::vector<double> next(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(nq_ + nv_));
    next.reserve(nq_ + nv_ + order.size() * per_contact);
    for (std::uint64_t key : order) {
      LivingContact& contact = living_.at(key);
      const bool newborn = std::find(born.begin(), born.end(), key) != born.end();
      const ContactState state = newborn ? contact.state : working_state(contact, y);
      for (int i = 0; i < law_layout_.continuous_states; ++i) next.push_back(state.law.x[i]);
      for (int i = 0; i < friction_layout_.continuous_states; ++i)
        next.push_back(state.friction.x[i]);
    }
    for (std::size_t i = 0; i < order.size(); ++i) living_.at(order[i]).x_offset = i * per_contact;
    nx_ = order.size() * per_contact;
    pending_y_ = std::move(next);
  }
  living_order_ = std::move(order);
}

StepAction Simulation::step_completed(double t, std::span<const double> y_in) {
  ++stats_.steps;
  // Driven joints follow their prescribed motion; a restart also writes it into the state.
  const std::span<const double> y = with_drives(t, y_in);
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (std::isfinite(y[i])) continue;
    std::string where = "a state variable";
    for (std::size_t b = 0; b < bodies_.size(); ++b) {
      const auto& body = bodies_[b];
      const bool in_q = i >= body.q_offset && i < body.q_offset + body.nq;
      const bool in_v = i >= nq_ + body.v_offset && i < nq_ + body.v_offset + body.nv;
      if (in_q || in_v) where = "the state of body '" + scene_.bodies[b].name + "'";
    }
    if (i >= nq_ + nv_) where = "a contact's continuous state";
    throw SimulationError(where + " became non-finite at t = " + std::to_string(t) + " s");
  }
  // The detection of event_values() at this same state is reused; the body kinematics are not,
  // as output() or derivative() may have moved them to another state since (e.g. an output
  // time just before a located contact start), and births read the velocities.
  const bool detected = event_detection_ == pipeline_.detections() && event_time_s_ == t &&
                        std::equal(y.begin(), y.end(), event_state_.begin(), event_state_.end());
  compute_kinematics(y);
  if (!detected) detect_contacts();
  pending_y_.assign(y.begin(), y.end());
  bool restart = false;
  auto name_of = [&](std::size_t geometry) -> const std::string& {
    return scene_.geometries[geometry].name;
  };

  // 1. The law event functions of the contacts that were already living: the host fires those
  //    that went from > 0 to ≤ 0 since the last accepted step.
  const auto per_contact = static_cast<std::size_t>(events_per_contact_);
  if (per_contact > 0) {
    std::array<double, 2 * max_law_event_functions> g{};
    for (std::uint64_t key : living_order_) {
      LivingContact& contact = living_.at(key);
      const std::size_t c = contact.pair;
      ContactState state = working_state(contact, y);
      const std::span<double> g_now(g.data(), per_contact);
      contact_event_values(t, c, state, g_now);
      bool fired = false;
      for (std::size_t i = 0; i < per_contact; ++i) {
        if (!(contact.event_g[i] > 0.0 && g_now[i] <= 0.0)) continue;
        const ContactKinematics k = contact_kinematics(t, c);
        const double normal_force =
            k.distance_m < activation_distance_m_ ? force_law_->normal_force(k, state) : 0.0;
        const int law_events = law_layout_.event_functions;
        const bool law_event = static_cast<int>(i) < law_events;
        ContactLaw& law = law_event ? static_cast<ContactLaw&>(*force_law_) : *friction_;
        const int index = law_event ? static_cast<int>(i) : static_cast<int>(i) - law_events;
        LawMemory& memory = law_event ? state.law : state.friction;
        const std::array<double, max_law_continuous_states> x_before = memory.x;
        law.on_event(index, k, normal_force, memory);
        if (memory.x != x_before) restart = true;
        fired = true;
        ++stats_.events;
        if (recorder_)
          recorder_->event(t, law.event_name(index),
                           name_of(pipeline_.contacts().pairs[c].geometry_a),
                           name_of(pipeline_.contacts().pairs[c].geometry_b),
                           std::string(law_event ? "law_mode=" : "friction_mode=") +
                               std::to_string(memory.mode) +
                               ";penetration_m=" + Recorder::number(k.penetration_m));
      }
      if (fired) {
        contact.state = state;  // the new discrete memory (x is written below if it changed)
        if (restart) {
          double* x = pending_y_.data() + nq_ + nv_ + contact.x_offset;
          for (int i = 0; i < law_layout_.continuous_states; ++i) x[i] = state.law.x[i];
          x += law_layout_.continuous_states;
          for (int i = 0; i < friction_layout_.continuous_states; ++i) x[i] = state.friction.x[i];
        }
        contact_event_values(t, c, working_state(contact, pending_y_), g_now);
      }
      std::copy_n(g_now.begin(), per_contact, contact.event_g.begin());
    }
  }

  // 2. Births: pairs closer than the activation distance without a living contact.
  std::vector<std::uint64_t>& born = born_;
  born.clear();
  const ContactSet& contacts = pipeline_.contacts();
  for (std::size_t c = 0; c < contacts.pairs.size(); ++c) {
    const ContactPair& candidate = contacts.pairs[c];
    const double distance = candidate.deepest().distance_m;
    stats_.max_penetration_m = std::max(stats_.max_penetration_m, -distance);
    if (LivingContact* living = living_of_pair_[c]) {
      if (distance < activation_distance_m_)
        living->max_penetration_m = std::max(living->max_penetration_m, -distance);
      continue;
    }
    if (!(distance < activation_distance_m_)) continue;
    const std::uint64_t key = pair_key(candidate.geometry_a, candidate.geometry_b);
    const ContactKinematics k = contact_kinematics(t, c);
    LivingContact contact;
    contact.state.birth_time_s = t;
    contact.state.impact_velocity_m_per_s = k.penetration_rate_m_per_s;
    force_law_->on_birth(k, contact.state.law);
    friction_->on_birth(k, contact.state.friction);
    contact.max_penetration_m = std::max(0.0, -distance);
    contact.pair = c;
    LivingContact& living = living_.emplace(key, contact).first->second;
    living_of_pair_[c] = &living;
    born.push_back(key);
    ++stats_.events;
    if (recorder_)
      recorder_->event(
          t, "contact_start", name_of(candidate.geometry_a), name_of(candidate.geometry_b),
          "impact_velocity_m_per_s=" + Recorder::number(contact.state.impact_velocity_m_per_s));
    if (impulsive_) {
      const double restitution = force_law_->impact_restitution(k);
      if (restitution >= 0.0) {
        if (restart) compute_kinematics(pending_y_);  // velocities of earlier impulses
        const double impulse = apply_impulse(t, c, restitution, pending_y_);
        compute_kinematics(pending_y_);
        if (impulse > 0.0) {
          restart = true;
          ++stats_.impulses;
          ++stats_.events;
          if (recorder_)
            recorder_->event(t, "impulse", name_of(candidate.geometry_a),
                             name_of(candidate.geometry_b),
                             "impulse_N_s=" + Recorder::number(impulse) +
                                 ";restitution=" + Recorder::number(restitution));
        }
      }
    }
    if (per_contact > 0)
      contact_event_values(t, c, living.state,
                           std::span<double>(living.event_g.data(), per_contact));
  }

  // 3. Deaths: living contacts no longer closer than the activation distance (the pipeline
  //    watches them: each is a pair of this detection).
  bool died = false;
  for (auto it = living_.begin(); it != living_.end();) {
    LivingContact& contact = it->second;
    if (contacts.pairs[contact.pair].deepest().distance_m < activation_distance_m_) {
      ++it;
      continue;
    }
    living_of_pair_[contact.pair] = nullptr;
    ++stats_.events;
    if (recorder_) {
      const std::size_t a = it->first >> 32, b = it->first & 0xffffffffu;
      // The normal speed at which the pair separates (−δ̇ at its deepest point; for a
      // measured restitution).
      const double separation = -contact_kinematics(t, contact.pair).penetration_rate_m_per_s;
      recorder_->event(t, "contact_end", name_of(a), name_of(b),
                       "duration_s=" + Recorder::number(t - contact.state.birth_time_s) +
                           ";max_penetration_m=" + Recorder::number(contact.max_penetration_m) +
                           ";separation_velocity_m_per_s=" + Recorder::number(separation));
    }
    it = living_.erase(it);
    died = true;
  }
  if (died || !born.empty()) {
    ++coupling_revision_;
    relayout_living(pending_y_, born);
    if (states_per_contact_ > 0) restart = true;
  }
  if (stop_ && stop_->load()) return StepAction::stop;
  return restart ? StepAction::restart : StepAction::proceed;
}

void Simulation::state_coupling(StateCoupling& coupling) const {
  const std::size_t n = state_size();
  const auto per_contact = static_cast<std::size_t>(states_per_contact_);
  const std::size_t contact_blocks = per_contact > 0 ? living_order_.size() : 0;
  const std::size_t blocks = tree_blocks_ + contact_blocks;
  coupling.block_of_state.assign(n, 0u);
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    const BodyRuntime& body = bodies_[i];
    for (int k = 0; k < body.nq; ++k) coupling.block_of_state[body.q_offset + k] = tree_block_[i];
    for (int k = 0; k < body.nv; ++k)
      coupling.block_of_state[nq_ + body.v_offset + k] = tree_block_[i];
  }
  std::vector<std::vector<std::uint32_t>> depends(blocks);
  for (std::size_t c = 0; c < living_order_.size(); ++c) {
    const std::uint64_t key = living_order_[c];
    const std::uint32_t a = tree_block_[scene_.geometries[key >> 32].body];
    const std::uint32_t b = tree_block_[scene_.geometries[key & 0xffffffffu].body];
    if (a != no_block && b != no_block && a != b) {
      depends[a].push_back(b);
      depends[b].push_back(a);
    }
    if (per_contact == 0) continue;
    const auto block = static_cast<std::uint32_t>(tree_blocks_ + c);
    const std::size_t x_offset = nq_ + nv_ + living_.at(key).x_offset;
    for (std::size_t k = 0; k < per_contact && x_offset + k < n; ++k)
      coupling.block_of_state[x_offset + k] = block;
    for (const std::uint32_t tree : {a, b}) {
      if (tree == no_block) continue;
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

void Simulation::output(double t, std::span<const double> y_in) {
  const std::span<const double> y = with_drives(t, y_in);
  if (recorder_) recorder_->output(t, y);
  if (observer_) observer_(t, y);
}

BodyState Simulation::body_state(std::size_t index, std::span<const double> y) {
  compute_kinematics(y);
  const BodyRuntime& body = bodies_[index];
  BodyState state;
  const Vec3 c = body.X_WB.R * body.p_BCm;
  state.p_WCm = body.X_WB.p + c;
  state.q_WB = Eigen::Quaterniond(body.X_WB.R);
  if (body.nq == 7 && body.parent < 0) {
    // Report the quaternion the joint integrates when it has one (keeps sign continuity); a
    // root's joint frame is fixed in the world.
    const auto q = y.subspan(body.q_offset, body.nq);
    const Eigen::Quaterniond q_JB(q[3], q[4], q[5], q[6]);
    state.q_WB = body.X_PJ.R.isIdentity(0.0) ? q_JB : Eigen::Quaterniond(body.X_PJ.R) * q_JB;
  }
  state.v_WCm = body.v_WBo + body.w_WB.cross(c);
  state.w_WB = body.w_WB;
  return state;
}

double Simulation::total_energy(std::span<const double> y) {
  compute_kinematics(y);
  double energy = 0.0;
  for (const BodyRuntime& body : bodies_) {
    if (!body.mobile) continue;
    const Vec3 c = body.X_WB.R * body.p_BCm;
    const Vec3 v_c = body.v_WBo + body.w_WB.cross(c);
    const Mat3 I_c = body.X_WB.R * body.inertia_Cm_B * body.X_WB.R.transpose();
    energy += 0.5 * body.mass_kg * v_c.squaredNorm() + 0.5 * body.w_WB.dot(I_c * body.w_WB);
    energy -= body.mass_kg * scene_.gravity_W.dot(body.X_WB.p + c);
    energy += body.joint->potential_energy(y.subspan(body.q_offset, body.nq));
  }
  detect_contacts();
  const ContactSet& contacts = pipeline_.contacts();
  for (std::size_t c = 0; c < contacts.pairs.size(); ++c) {
    const ContactManifold& manifold = contacts.pairs[c].manifold;
    const ContactState state =
        living_of_pair_[c] ? working_state(*living_of_pair_[c], y) : ContactState{};
    for (int point = 0; point < manifold.count; ++point)
      if (manifold.points[point].distance_m < activation_distance_m_)
        energy += force_law_->potential_energy(contact_kinematics(0.0, c, point), state);
  }
  return energy;
}

SimulationStatistics Simulation::statistics() const {
  SimulationStatistics s = stats_;
  const ContactPipelineStatistics pipeline = pipeline_.statistics();
  s.narrow_phase_queries = pipeline.narrow_phase_queries;
  s.broad_phase_s = pipeline.broad_phase_s;
  s.narrow_phase_s = pipeline.narrow_phase_s;
  return s;
}

void Simulation::probe_contacts(std::span<const double> q, ContactSet& out) {
  // The tree's kinematics are scratch (every user evaluates before reading them); the bodies'
  // kinematics of compute_kinematics() are copies and stay as they were.
  tree_->forward_kinematics(q.first(nq_), zero_v_);
  probe_poses_.resize(bodies_.size());
  for (std::size_t i = 0; i < bodies_.size(); ++i) probe_poses_[i] = tree_->pose_WB(i);
  pipeline_.probe(probe_poses_, living_order_, out);
}

const std::vector<ContactSample>& Simulation::contacts_at(double t, std::span<const double> y) {
  compute_kinematics(y);
  detect_contacts();
  compute_forces(t, y, {}, true);
  return samples_;
}

bool Simulation::on_output_grid(double t) const {
  const double interval = scene_.output_interval_s;
  if (t == scene_.duration_s) return true;
  if (!(std::isfinite(interval) && interval > 0.0)) return false;
  return std::round(t / interval) * interval == t;
}

IntegrationResult Simulation::run(Recorder* recorder, const std::atomic<bool>* stop) {
  recorder_ = recorder;
  stop_ = stop;
  std::vector<double> y = initial_state();
  project(y);
  // Contacts already closer than the activation distance at t = 0 are born at t = 0 (their events
  // reach the recorder's metrics, so it is attached first).
  if (recorder_) recorder_->attach(*this);
  if (step_completed(0.0, y) == StepAction::restart) y = pending_y_;
  --stats_.steps;
  if (recorder_) recorder_->begin(*this, y);
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
    total.status = result.status;
    total.time_reached_s = result.time_reached_s;
    total.message = std::move(result.message);
    if (total.status != IntegrationStatus::restart_requested) break;
    // The host changed the state at t (an impulse, contact states born or gone): resume from it.
    ++stats_.restarts;
    t = total.time_reached_s;
    y = pending_y_;
    if (on_output_grid(t)) output(t, y);  // the integrator returned before reporting it
    if (t >= scene_.duration_s) {
      total.status = IntegrationStatus::completed;
      break;
    }
  }
  stats_.located_events = total.located_events;
  if (recorder_) recorder_->end(*this, y, total);
  recorder_ = nullptr;
  stop_ = nullptr;
  return total;
}

}  // namespace contactlab::core
