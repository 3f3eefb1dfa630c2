// Contact force assembly: the run's contact laws (ContactLaws: the force law and the friction law
// with what they declare per contact) and ContactForces, which turns a pair of the contact set
// into what the laws see (ContactKinematics: penetration, rate, slip, R*, E*, m*, the pair
// material) and their answers into loads on the two bodies: the normal force along n and the
// friction force at each active manifold point, and the friction torques, as wrenches about the
// body origins (the tree's forward dynamics turns them into generalized forces Jᵀ·f).
#pragma once

#include <array>
#include <memory>
#include <span>
#include <vector>

#include "contactlab/core/body_system.hpp"
#include "contactlab/core/contact_pipeline.hpp"
#include "contactlab/force_law.hpp"
#include "contactlab/friction.hpp"

namespace contactlab::core {

/// The force law and the friction law of a run, and what they ask of the host.
struct ContactLaws {
  /// Creates both laws (none under a time-stepping integrator) and checks what they declare
  /// (PluginError: a layout beyond the SDK's bounds, an activation distance that is negative or not
  /// finite).
  ContactLaws(const Scene& scene, PluginRegistry& registry);

  std::shared_ptr<ForceLaw> force_law;
  std::shared_ptr<Friction> friction;
  ContactLawLayout law_layout, friction_layout;
  int states_per_contact = 0;  ///< continuous states per living contact: law's, then friction's
  int events_per_contact = 0;  ///< event functions per living contact: law's, then friction's
  /// A pair is in contact while its signed distance is below this [m].
  double activation_distance_m = 0.0;
  bool impulsive = false;  ///< the force law acts by impulses at contact starts
};

class ContactForces {
 public:
  /// `contacts` is the run's contact set (the pipeline's), read at every call.
  ContactForces(const Scene& scene, BodySystem& bodies, const ContactLaws& laws,
                const ContactSet& contacts);

  /// The contact set was replaced (a new detection): forgets the effective masses of the old.
  void new_detection() {
    effective_mass_kg_.assign(contacts_.pairs.size(), std::array<double, max_manifold_points>{});
  }

  /// What the laws see of point `point` of pair `pair` at time t, at the bodies' kinematics of
  /// their last compute(). `living` is the pair's contact state when it lives (its impact
  /// velocity), else null (the impact velocity is then the current rate).
  ContactKinematics kinematics(double t, std::size_t pair, int point, const ContactState* living);

  /// Adds the loads of living pair `pair` with contact state `state` (continuous states current)
  /// to `wrenches` (per body: force and torque about the body origin, world axes). With
  /// `samples`, appends one ContactSample per active point; with a non-empty `x_rate` (the pair's
  /// states_per_contact entries of ẏ), writes the rates of its continuous states.
  void add_pair(double t, std::size_t pair, const ContactState& state,
                std::span<BodyWrench> wrenches, std::vector<ContactSample>* samples,
                std::span<double> x_rate);

  /// The elastic energy the force law stores at point `point` of pair `pair` [J] (state:
  /// the pair's, default for a pair without a living contact).
  double potential_energy(std::size_t pair, int point, const ContactState& state,
                          const ContactState* living);

 private:
  /// m* of a manifold point; through the tree once per point and detection (it depends on q
  /// only).
  double effective_mass(std::size_t pair, int point, const Vec3& point_W, const Vec3& normal_W);

  const Scene& scene_;
  BodySystem& bodies_;
  const ContactLaws& laws_;
  const ContactSet& contacts_;
  /// Per pair of the contact set: m* of each point when a body is articulated (0: not yet).
  std::vector<std::array<double, max_manifold_points>> effective_mass_kg_;
};

}  // namespace contactlab::core
