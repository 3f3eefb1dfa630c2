// The MechanicsView (mechanics.hpp) the integrator conformance suite gives the time-stepping
// integrators (capabilities().needs_mechanics_view): the host's side of a step
// (core/src/mechanics_host.cpp) for the suite's small problems, whose coordinates are those of
// free points (q and v of the same size n, q̇ = v, no joints, no drives).
//
// prepare_step(t, y, h) evaluates, as the host does:
//   - the free acceleration a_free, from the problem (the oscillator's q̈ = −q, uniform motion's
//     0, gravity);
//   - M⁻¹: one tree owning every velocity coordinate, M = mass·I;
//   - the contact set: empty, or with a plane — one contact point between the fixed plane z = 0
//     (side A, no tree) and the point (q₀, q₁, q₂) (side B), distance q₂, normal +z, tangents
//     +x and +y, Jacobian rows N: (0, 0, 1), T1: (1, 0, 0), T2: (0, 1, 0) (then zeros) over the
//     tree's velocities. Like the host's broad phase over the free motion, the point is in the set,
//     touching or not, when the step's free motion (boxes at q and at q + h·(v + h·a_free)) comes
//     within kContactMargin_m of the plane; `previous` links it to the last prepared step's point.
// distances_at(q) answers q₂ (the same plane queried again).
//
// It records what the integrator did (one record per prepare_step(), with the impulses and the
// local problem it reported) for the suite's checks, and fails (conformance::fail) at once on a
// call that breaks the view's contract: a query before the first prepare_step(), spans of the
// wrong size, a tree that does not exist, a step that is not positive and finite, a solution or a
// problem reported twice for one prepared step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "contactlab/contact_problem/problem.hpp"
#include "contactlab/mechanics.hpp"

namespace contactlab::conformance {

/// The pair material of the plane contact.
struct PlaneContact {
  double friction_static = 0.5, friction_kinetic = 0.4, restitution = 0.0;
};

/// How far above the plane the free motion of a step must come for the point to be in the set.
constexpr double kContactMargin_m = 1e-3;

class TestMechanics final : public MechanicsView {
 public:
  /// a_free(t, q, v, a): the free acceleration (every entry n).
  using Acceleration = std::function<void(double t, std::span<const double> q,
                                          std::span<const double> v, std::span<double> a)>;

  /// n coordinates (≥ 3 with a plane), M = mass·I.
  TestMechanics(std::size_t n, double mass, Acceleration free_acceleration, bool with_plane,
                PlaneContact plane = {});

  /// What contact_problem_wanted() answers.
  bool problem_wanted = false;

  /// One prepare_step() and what the integrator reported for it.
  struct Prepared {
    double t = 0.0, step_s = 0.0;
    std::vector<double> y;       ///< as prepared
    std::vector<double> v_free;  ///< v + h·a_free
    std::size_t points = 0;      ///< 0 or 1
    bool solution_reported = false;
    std::vector<double> impulses;  ///< as reported (3 per point)
    double reported_step_s = 0.0;
    ContactSolveReport report;
    bool problem_reported = false;
    contact_problem::FrictionContactProblem problem;  ///< as reported
  };
  std::vector<Prepared> prepared;
  std::int64_t distance_queries = 0;  ///< distances_at() calls

  double mass() const { return mass_; }
  const PlaneContact& plane() const { return plane_; }

  void prepare_step(double t, std::span<const double> y, double step_s) override;
  std::span<const double> prepared_state() const override;
  std::span<const double> free_acceleration() const override;
  std::size_t tree_count() const override { return 1; }
  std::span<const std::uint32_t> tree_velocities(std::size_t tree) const override;
  std::span<const double> tree_inverse_mass(std::size_t tree) const override;
  void apply_inverse_mass(std::span<const double> f, std::span<double> out) const override;
  const MechanicsContactSet& contacts() const override;
  void distances_at(std::span<const double> q, std::span<double> distances) override;
  void report_contact_solution(std::span<const double> impulses, double step_s,
                               const ContactSolveReport& report) override;
  bool contact_problem_wanted() const override;
  void report_contact_problem(const contact_problem::FrictionContactProblem& problem) override;

 private:
  void expect_prepared(const char* query) const;

  std::size_t n_;
  double mass_;
  Acceleration free_acceleration_;
  bool with_plane_;
  PlaneContact plane_;
  std::vector<std::uint32_t> velocities_;
  std::vector<double> inverse_mass_;
  std::vector<double> y_, a_free_;
  MechanicsContactSet set_;
};

}  // namespace contactlab::conformance
