// The bodies of a scene as a run moves them: the joint tree with its Joint plugins, the layout of
// their coordinates in the state y = [q; v; x], the kinematics at the last compute(), and what the
// contact code asks of the tree's dynamics: forward dynamics with joint forces and prescribed
// motions, the velocity response to a unit contact impulse, a contact's effective mass.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "contactlab/core/multibody.hpp"
#include "contactlab/core/observers.hpp"
#include "contactlab/core/scene.hpp"

namespace contactlab::core {

/// (1/a + 1/b)⁻¹ with ∞ treated as "no contribution" (masses, radii in series).
inline double harmonic_sum(double a, double b) {
  if (std::isinf(a)) return b;
  if (std::isinf(b)) return a;
  return a * b / (a + b);
}

class BodySystem {
 public:
  static constexpr std::size_t no_body = static_cast<std::size_t>(-1);
  static constexpr std::uint32_t no_block = static_cast<std::uint32_t>(-1);

  /// Creates the joints (one plugin instance per body) and the tree; sizes every workspace.
  BodySystem(const Scene& scene, PluginRegistry& registry);
  ~BodySystem();

  std::size_t body_count() const { return bodies_.size(); }
  std::size_t configuration_size() const { return nq_; }  ///< nq
  std::size_t velocity_size() const { return nv_; }       ///< nv
  /// [q; v] of the scene's initial state.
  std::vector<double> initial_state() const;

  // --- kinematics of the last compute() ---
  /// Forward kinematics at y's q and v: every body's pose and velocity.
  void compute(std::span<const double> y);
  std::span<const Pose> poses_WB() const { return X_WB_; }
  const Pose& pose_WB(std::size_t body) const { return X_WB_[body]; }
  /// Velocity of the body-fixed point at p_W [m/s], world axes.
  Vec3 point_velocity_W(std::size_t body, const Vec3& p_W) const {
    const Runtime& b = bodies_[body];
    return b.v_WBo + b.w_WB.cross(p_W - X_WB_[body].p);
  }
  const Vec3& angular_velocity_W(std::size_t body) const { return bodies_[body].w_WB; }
  /// The q of the last compute().
  std::span<const double> kinematics_q() const { return kinematics_q_; }
  /// Body `body`'s world-frame state (the kinematics must be those of y).
  BodyState body_state(std::size_t body, std::span<const double> y) const;
  /// Kinetic + gravitational potential + the joints' elastic energy [J] (the kinematics must be
  /// those of y).
  double mechanical_energy(std::span<const double> y) const;
  /// Poses X_WB at configuration q into `out` (sized body_count()), without touching the
  /// kinematics of compute().
  void poses_at(std::span<const double> q, std::vector<Pose>& out);

  // --- dynamics ---
  /// Per body: its weight as a wrench about the body origin (nothing on bodies that cannot move).
  void gravity_wrenches(std::span<BodyWrench> wrenches) const;
  /// q̇ and v̇ of y_rate from the joints' rates and forces, the prescribed motions and the loads
  /// `wrenches` (gravity included); the kinematics need not be those of y.
  void accelerations(double t, std::span<const double> y, std::span<const BodyWrench> wrenches,
                     std::span<double> y_rate);
  /// y with every driven joint's q and v replaced by its prescribed motion at t (a view of an
  /// internal copy valid until the next call), or y itself when nothing is driven.
  std::span<const double> with_drives(double t, std::span<const double> y);
  void integrate_configuration(std::span<const double> q, std::span<const double> v, double dt,
                               std::span<double> q_out) const;
  /// Normalises the joints' coordinates (quaternions) in y.
  void project(std::span<double> y) const;

  // --- contacts through the tree ---
  /// n·(Δv_B(p) − Δv_A(p)) for a unit impulse n at p on body_b and −n on body_a (either may be
  /// no_body) at configuration q: the inverse effective mass n·J·M⁻¹·Jᵀ·n of those sides. Leaves
  /// Δv = M⁻¹·Jᵀ·n in impulse_response().
  double unit_impulse_response(std::size_t body_a, std::size_t body_b, const Vec3& point_W,
                               const Vec3& normal_W, std::span<const double> q);
  std::span<const double> impulse_response() const { return impulse_response_; }
  /// m* of a contact along normal_W at point_W at the kinematics of the last compute():
  /// (1/m_A + 1/m_B)⁻¹ for free bodies (∞ for a body welded to the world); through the tree,
  /// 1/(n·J·M⁻¹·Jᵀ·n), when a body is articulated.
  double effective_mass(std::size_t body_a, std::size_t body_b, const Vec3& point_W,
                        const Vec3& normal_W);
  /// Whether either body is articulated (its effective mass comes from the tree).
  bool articulated(std::size_t body_a, std::size_t body_b) const {
    return bodies_[body_a].articulated || bodies_[body_b].articulated;
  }

  // --- the tree, for the time-stepping host (mechanics_host.hpp) ---
  const Joint& joint(std::size_t body) const { return *bodies_[body].joint; }
  int parent(std::size_t body) const { return bodies_[body].parent; }
  bool mobile(std::size_t body) const { return bodies_[body].mobile; }
  bool driven(std::size_t body) const { return bodies_[body].driven; }
  /// X_PJ: the joint frame in the parent body's frame (the world's for a root).
  const Pose& joint_placement(std::size_t body) const { return bodies_[body].X_PJ; }

  // --- state layout ---
  std::size_t q_offset(std::size_t body) const { return bodies_[body].q_offset; }
  std::size_t v_offset(std::size_t body) const { return bodies_[body].v_offset; }
  int nq(std::size_t body) const { return bodies_[body].nq; }
  int nv(std::size_t body) const { return bodies_[body].nv; }
  /// The coupling block of body's joint tree (see OdeView::state_coupling), or no_block when the
  /// tree has no state (welded to the world).
  std::uint32_t tree_block(std::size_t body) const { return tree_block_[body]; }
  std::uint32_t tree_blocks() const { return tree_blocks_; }
  /// Names what state index i of y = [q; v; x] belongs to ("the state of body 'ball'"), for
  /// messages.
  std::string state_owner(std::size_t i) const;

 private:
  struct Runtime {
    std::shared_ptr<Joint> joint;
    std::size_t q_offset = 0, v_offset = 0;
    int nq = 0, nv = 0;
    int parent = -1;
    bool mobile = false;  ///< its joint or an ancestor's has velocities
    bool driven = false;  ///< its joint's motion is prescribed
    /// Mobile and part of an articulated tree (it has a parent body, children, or fewer than
    /// six velocities): its contacts' effective mass comes from the tree, not its own mass.
    bool articulated = false;
    Pose X_PJ;
    double mass_kg = 0.0;
    Vec3 p_BCm = Vec3::Zero();
    Mat3 inertia_Cm_B = Mat3::Zero();
    // Per compute() (from the tree's forward kinematics); the pose is in X_WB_.
    Vec3 v_WBo = Vec3::Zero();  ///< velocity of the body origin
    Vec3 w_WB = Vec3::Zero();
    std::vector<double> q_drive, v_drive, a_drive;
  };

  const Scene& scene_;
  std::vector<Runtime> bodies_;
  std::vector<Pose> X_WB_;               ///< per body, at the last compute()
  std::unique_ptr<MultibodyTree> tree_;  ///< the joint tree (Scene::bodies order)
  std::size_t nq_ = 0, nv_ = 0;
  bool any_driven_ = false;
  std::vector<std::uint32_t> tree_block_;
  std::uint32_t tree_blocks_ = 0;  ///< joint trees with states
  // Workspace (sized once; no allocation per evaluation).
  std::vector<double> kinematics_q_;          ///< q of the last compute()
  std::vector<double> drive_y_;               ///< with_drives()' copy of y
  std::vector<double> tau_;                   ///< joint forces (nv)
  std::vector<double> zero_v_;                ///< nv zeros
  std::vector<double> impulse_response_;      ///< M⁻¹·Jᵀ·n (nv)
  std::vector<BodyWrench> impulse_wrenches_;  ///< per body: a unit contact impulse
};

}  // namespace contactlab::core
