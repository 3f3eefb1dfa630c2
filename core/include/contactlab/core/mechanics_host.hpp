// The host's MechanicsView (contactlab/mechanics.hpp): the multibody system as a time-stepping
// integrator sees it — free accelerations from the tree's forward dynamics, each joint tree's
// inverse mass from its Jacobians, and the contact set at the step's configuration with the
// Jacobian rows of every point.
//
// Jacobians: a body's velocity coordinates move it through the motion subspaces of the joints on
// its path to the root. Column k of joint j (child body j, origin o_j) gives, in the world frame,
// ω_k = R_WJ·S_ω,k and the velocity of o_j v_k = R_WJ·S_v,k (S in the joint frame J, Joint's
// [v; ω] convention), so a point p of a body below j moves with v_k + ω_k × (p − o_j); a unit
// direction d's row entry is d·v_k + ω_k·((p − o_j) × d). The tree's mass matrix is
// M = Σ_b J_Cm,bᵀ·m_b·J_Cm,b + J_ω,bᵀ·I_b,W·J_ω,b over its bodies (Featherstone 2008 §6.1: the
// same M as CRBA), factorised once per step and inverted (trees are small: 6 coordinates for a free
// body). A driven joint's coordinates keep their Jacobian columns (its prescribed velocity moves
// the points) but have zero rows and columns in M⁻¹ (M_ff⁻¹ of the others): contact cannot change a
// prescribed motion.
//
// Persistent patches (Bullet's btPersistentManifold, Coumans): a narrow phase reports the points of
// a flat contact only while they touch, so a box tilted by a few micrometres by one step's inexact
// solve would stand on one corner in the next, and a stack falls. The host keeps each pair's points
// of the last step in its bodies' frames; a kept point whose witnesses are still within the pair's
// margin (1 % of the smaller shape's size) along the current normal — A's witness re-anchored
// under B's when they slid apart — and not repeated by a new point, joins the narrow phase's
// points, and the patch rule of the geometry library (choose_patch_points, with that margin) keeps
// at most four. A kept point's distance is measured along the current normal: a lifted corner is a
// speculative row, which the solver lets close but not pull.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "contactlab/core/body_system.hpp"
#include "contactlab/core/contact_pipeline.hpp"
#include "contactlab/core/observers.hpp"
#include "contactlab/core/scene.hpp"
#include "contactlab/mechanics.hpp"

namespace contactlab::core {

class MechanicsHost final : public MechanicsView {
 public:
  MechanicsHost(const Scene& scene, BodySystem& bodies, ContactPipeline& pipeline);

  void prepare_step(double t, std::span<const double> y, double step_s) override;
  std::span<const double> prepared_state() const override { return y_; }
  std::span<const double> free_acceleration() const override { return a_free_; }
  std::size_t tree_count() const override { return trees_.size(); }
  std::span<const std::uint32_t> tree_velocities(std::size_t tree) const override {
    return trees_[tree].velocities;
  }
  std::span<const double> tree_inverse_mass(std::size_t tree) const override {
    return trees_[tree].inverse_mass;
  }
  void apply_inverse_mass(std::span<const double> f, std::span<double> out) const override;
  const MechanicsContactSet& contacts() const override { return contacts_; }
  void distances_at(std::span<const double> q, std::span<double> distances) override;
  void report_contact_solution(std::span<const double> impulses, double step_s,
                               const ContactSolveReport& report) override;
  bool contact_problem_wanted() const override { return problem_wanted_; }
  void report_contact_problem(const contact_problem::FrictionContactProblem& problem) override;

  /// The observers that receive report_contact_problem()'s problems (may be null).
  void set_observers(ObserverList* observers) { observers_ = observers; }
  /// The points of the last reported solution that carry a force (of either sign), as output
  /// samples (forces = impulse / step).
  const std::vector<ContactSample>& samples() const { return samples_; }
  const ContactSolveStatistics& statistics() const { return statistics_; }
  double time_s() const { return t_; }

 private:
  struct Tree {
    std::vector<std::uint32_t> velocities;  ///< indices into v
    std::vector<std::size_t> bodies;        ///< its bodies, parent first
    std::vector<double> inverse_mass;       ///< n × n row-major, at the prepared q
  };
  /// World motion-subspace columns of a body's own joint at the prepared q.
  struct JointColumns {
    std::vector<Vec3> v, w;  ///< per velocity coordinate of the joint
  };
  void build_trees();
  void joint_columns();
  void mass_matrices();
  /// Appends the three rows (n, t1, t2 of `point`) of side `body` with `sign` to the Jacobian.
  void append_rows(std::size_t body, double sign, MechanicsContactPoint& point, int side);
  const PairMaterial& pair_material(std::size_t geometry_a, std::size_t geometry_b) const;

  const Scene& scene_;
  BodySystem& bodies_;
  ContactPipeline& pipeline_;
  std::vector<Tree> trees_;
  std::vector<std::uint32_t> tree_of_body_;          ///< MechanicsContactPoint::no_tree: immobile
  std::vector<std::uint32_t> local_offset_;          ///< a body's first coordinate within its tree
  std::vector<std::vector<std::size_t>> chain_;      ///< per body: itself and its ancestors with nv
  std::vector<std::size_t> material_of_geometry_;    ///< index into material_names_
  std::vector<const PairMaterial*> pair_materials_;  ///< materials² entries
  std::size_t material_count_ = 0;

  double t_ = 0.0, step_s_ = 0.0;
  std::int64_t steps_ = 0;  ///< prepare_step() calls
  std::vector<double> y_, rate_, a_free_, v_ahead_, q_ahead_;
  std::vector<BodyWrench> wrenches_;
  std::vector<Pose> poses_ahead_, probe_poses_;
  std::vector<JointColumns> columns_;
  MechanicsContactSet contacts_;
  std::vector<ContactGeometry> geometry_;  ///< per point: the narrow phase's answer
  /// This step's points by pair: (first index, count).
  std::unordered_map<PairKey, std::pair<std::uint32_t, std::uint32_t>> pairs_;
  std::vector<PairKey> prepared_pairs_;
  /// Per pair, the patch of the last step in the bodies' frames (persistent patches).
  struct Patch {
    int count = 0;
    std::array<Vec3, max_manifold_points> p_A, p_B;  ///< witness points in A's and B's frames
    std::array<std::int32_t, max_manifold_points> index{};  ///< in the last step's points
  };
  std::unordered_map<PairKey, Patch> patches_, previous_patches_;
  /// 1 % of the pair's smaller shape (a half-space: the other's size).
  double patch_margin(const ContactPair& pair) const;
  /// The patch of one pair at this step: the narrow phase's points and the kept ones, reduced.
  void merge_patch(const ContactPair& pair, ContactManifold& manifold,
                   std::array<std::int32_t, max_manifold_points>& previous);
  ContactSet probe_set_;
  std::vector<ContactSample> samples_;
  bool problem_wanted_ = false;
  ObserverList* observers_ = nullptr;
  ContactSolveStatistics statistics_;
};

}  // namespace contactlab::core
