// The bodies of a run: joint tree, state layout, kinematics and the dynamics the contacts need
// (see body_system.hpp).
#include "contactlab/core/body_system.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace contactlab::core {

BodySystem::BodySystem(const Scene& scene, PluginRegistry& registry) : scene_(scene) {
  bodies_.resize(scene.bodies.size());
  X_WB_.resize(scene.bodies.size());
  std::vector<MultibodyBody> tree_bodies(scene.bodies.size());
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const BodyModel& model = scene.bodies[i];
    Runtime& body = bodies_[i];
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
    any_driven_ = any_driven_ || body.driven;
    body.X_PJ = model.X_PJ;
    body.mass_kg = model.mass.mass_kg;
    body.p_BCm = model.mass.p_BCm;
    body.inertia_Cm_B = model.mass.inertia_Cm_B;
    body.q_drive.assign(model.nq, 0.0);
    body.v_drive.assign(model.nv, 0.0);
    body.a_drive.assign(model.nv, 0.0);
    X_WB_[i] = model.X_WB_initial;
    MultibodyBody& node = tree_bodies[i];
    node.parent = model.parent;  // Scene::bodies is in topological order, as the tree needs
    node.joint = body.joint;
    node.X_PJ = model.X_PJ;
    node.mass = model.mass;
    node.prescribed = body.driven;
  }
  tree_ = std::make_unique<MultibodyTree>(std::move(tree_bodies));
  std::vector<bool> has_children(bodies_.size(), false);
  for (const Runtime& body : bodies_)
    if (body.parent >= 0) has_children[static_cast<std::size_t>(body.parent)] = true;
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    Runtime& body = bodies_[i];
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
  impulse_wrenches_.resize(bodies_.size());
  tau_.assign(nv_, 0.0);
  zero_v_.assign(nv_, 0.0);
  impulse_response_.assign(nv_, 0.0);
}

BodySystem::~BodySystem() = default;

std::vector<double> BodySystem::initial_state() const {
  std::vector<double> y(nq_ + nv_, 0.0);
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    const BodyModel& model = scene_.bodies[i];
    const Runtime& body = bodies_[i];
    for (int k = 0; k < body.nq; ++k) y[body.q_offset + k] = model.q_initial[k];
    for (int k = 0; k < body.nv; ++k) y[nq_ + body.v_offset + k] = model.v_initial[k];
  }
  return y;
}

void BodySystem::compute(std::span<const double> y) {
  std::copy_n(y.begin(), nq_, kinematics_q_.begin());
  tree_->forward_kinematics(y.first(nq_), y.subspan(nq_, nv_));
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    Runtime& body = bodies_[i];
    X_WB_[i] = tree_->pose_WB(i);
    body.v_WBo = tree_->velocity_WBo(i);
    body.w_WB = tree_->angular_velocity_W(i);
  }
}

void BodySystem::poses_at(std::span<const double> q, std::vector<Pose>& out) {
  // The tree's own kinematics are scratch (every user evaluates before reading them); the
  // bodies' kinematics of compute() are copies and stay as they were.
  tree_->forward_kinematics(q.first(nq_), zero_v_);
  out.resize(bodies_.size());
  for (std::size_t i = 0; i < bodies_.size(); ++i) out[i] = tree_->pose_WB(i);
}

BodyState BodySystem::body_state(std::size_t index, std::span<const double> y) const {
  const Runtime& body = bodies_[index];
  const Pose& X_WB = X_WB_[index];
  BodyState state;
  const Vec3 c = X_WB.R * body.p_BCm;
  state.p_WCm = X_WB.p + c;
  state.q_WB = Eigen::Quaterniond(X_WB.R);
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

double BodySystem::mechanical_energy(std::span<const double> y) const {
  double energy = 0.0;
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    const Runtime& body = bodies_[i];
    if (!body.mobile) continue;
    const Pose& X_WB = X_WB_[i];
    const Vec3 c = X_WB.R * body.p_BCm;
    const Vec3 v_c = body.v_WBo + body.w_WB.cross(c);
    const Mat3 I_c = X_WB.R * body.inertia_Cm_B * X_WB.R.transpose();
    energy += 0.5 * body.mass_kg * v_c.squaredNorm() + 0.5 * body.w_WB.dot(I_c * body.w_WB);
    energy -= body.mass_kg * scene_.gravity_W.dot(X_WB.p + c);
    energy += body.joint->potential_energy(y.subspan(body.q_offset, body.nq));
  }
  return energy;
}

void BodySystem::gravity_wrenches(std::span<BodyWrench> wrenches) const {
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    const Runtime& body = bodies_[i];
    BodyWrench& wrench = wrenches[i];
    const Vec3 p_WCm = X_WB_[i].R * body.p_BCm;  // COM relative to the body origin
    wrench.force_W = body.mobile ? Vec3(body.mass_kg * scene_.gravity_W) : Vec3::Zero();
    wrench.torque_Bo_W = p_WCm.cross(wrench.force_W);
  }
}

std::span<const double> BodySystem::with_drives(double t, std::span<const double> y) {
  if (!any_driven_) return y;
  drive_y_.assign(y.begin(), y.end());
  for (Runtime& body : bodies_) {
    if (!body.driven) continue;
    body.joint->prescribed_motion(t, body.q_drive, body.v_drive, body.a_drive);
    for (int k = 0; k < body.nq; ++k) drive_y_[body.q_offset + k] = body.q_drive[k];
    for (int k = 0; k < body.nv; ++k) drive_y_[nq_ + body.v_offset + k] = body.v_drive[k];
  }
  return drive_y_;
}

void BodySystem::accelerations(double t, std::span<const double> y,
                               std::span<const BodyWrench> wrenches, std::span<double> y_rate) {
  const auto q_all = y.first(nq_);
  const auto v_all = y.subspan(nq_, nv_);
  const auto v_dot = y_rate.subspan(nq_, nv_);
  for (Runtime& body : bodies_) {
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
  // Gravity is in the wrenches (gravity_wrenches), so the tree's base does not accelerate.
  tree_->forward_dynamics(q_all, v_all, tau_, Vec3::Zero(), wrenches, v_dot);
}

void BodySystem::integrate_configuration(std::span<const double> q, std::span<const double> v,
                                         double dt, std::span<double> q_out) const {
  for (const Runtime& body : bodies_) {
    if (body.nq == 0) continue;
    body.joint->integrate(q.subspan(body.q_offset, body.nq), v.subspan(body.v_offset, body.nv), dt,
                          q_out.subspan(body.q_offset, body.nq));
  }
}

void BodySystem::project(std::span<double> y) const {
  for (const Runtime& body : bodies_)
    if (body.nq) body.joint->normalize(y.subspan(body.q_offset, body.nq));
}

double BodySystem::unit_impulse_response(std::size_t body_a, std::size_t body_b,
                                         const Vec3& point_W, const Vec3& normal_W,
                                         std::span<const double> q) {
  // A unit impulse n at the contact point p on B (−n on A) is the generalized impulse Jᵀ·n and
  // changes the velocities by Δv = M⁻¹·Jᵀ·n: the forward dynamics at zero velocity, without
  // gravity or joint forces, with the impulse as the only load (driven joints keep their
  // prescribed velocity: their Δv is 0). The approach speed then changes by −w per unit
  // impulse, w = n·(Δv_B(p) − Δv_A(p)) = n·J·M⁻¹·Jᵀ·n: the inverse effective mass of the
  // contact through the whole tree.
  for (BodyWrench& wrench : impulse_wrenches_) wrench = BodyWrench{};
  if (body_b != no_body) {
    impulse_wrenches_[body_b].force_W += normal_W;
    impulse_wrenches_[body_b].torque_Bo_W += (point_W - X_WB_[body_b].p).cross(normal_W);
  }
  if (body_a != no_body) {
    impulse_wrenches_[body_a].force_W -= normal_W;
    impulse_wrenches_[body_a].torque_Bo_W -= (point_W - X_WB_[body_a].p).cross(normal_W);
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

double BodySystem::effective_mass(std::size_t body_a, std::size_t body_b, const Vec3& point_W,
                                  const Vec3& normal_W) {
  const Runtime& A = bodies_[body_a];
  const Runtime& B = bodies_[body_b];
  // A free body (six velocities of its own, nothing attached) counts with its mass, a body
  // welded to the world as infinitely heavy: m* = (1/m_A + 1/m_B)⁻¹, as the SDK documents.
  constexpr double infinite = std::numeric_limits<double>::infinity();
  if (!A.articulated && !B.articulated)
    return harmonic_sum(A.mobile ? A.mass_kg : infinite, B.mobile ? B.mass_kg : infinite);
  // A body in a joint tree moves with the rest of it: the inverse effective mass of its side is
  // n·J·M⁻¹·Jᵀ·n at the contact point (rotation and the other bodies included; driven joints
  // rigid).
  double inverse_mass =
      unit_impulse_response(A.articulated ? body_a : no_body, B.articulated ? body_b : no_body,
                            point_W, normal_W, kinematics_q_);
  if (!A.articulated && A.mobile) inverse_mass += 1.0 / A.mass_kg;
  if (!B.articulated && B.mobile) inverse_mass += 1.0 / B.mass_kg;
  return inverse_mass > 0.0 ? 1.0 / inverse_mass : infinite;
}

std::string BodySystem::state_owner(std::size_t i) const {
  std::string where = "a state variable";
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    const Runtime& body = bodies_[b];
    const bool in_q = i >= body.q_offset && i < body.q_offset + body.nq;
    const bool in_v = i >= nq_ + body.v_offset && i < nq_ + body.v_offset + body.nv;
    if (in_q || in_v) where = "the state of body '" + scene_.bodies[b].name + "'";
  }
  if (i >= nq_ + nv_) where = "a contact's continuous state";
  return where;
}

}  // namespace contactlab::core
