// The suite's MechanicsView (see mechanics_fixture.hpp).
#include "mechanics_fixture.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "conformance_support.hpp"

namespace contactlab::conformance {

namespace {

void expect_size(const char* what, std::size_t size, std::size_t expected) {
  if (size != expected)
    fail(std::string("MechanicsView::") + what + " got " + std::to_string(size) +
         " values; expected " + std::to_string(expected));
}

}  // namespace

TestMechanics::TestMechanics(std::size_t n, double mass, Acceleration free_acceleration,
                             bool with_plane, PlaneContact plane)
    : n_(n),
      mass_(mass),
      free_acceleration_(std::move(free_acceleration)),
      with_plane_(with_plane),
      plane_(plane) {
  velocities_.resize(n);
  for (std::size_t i = 0; i < n; ++i) velocities_[i] = static_cast<std::uint32_t>(i);
  inverse_mass_.assign(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) inverse_mass_[i * n + i] = 1.0 / mass;
}

void TestMechanics::prepare_step(double t, std::span<const double> y, double step_s) {
  expect_size("prepare_step() (y)", y.size(), 2 * n_);
  if (!(step_s > 0.0) || !std::isfinite(step_s) || !std::isfinite(t))
    fail("MechanicsView::prepare_step() at t = " + number(t) +
         " s with step_s = " + number(step_s) + " s (a step must be positive and finite)");
  const bool had_point = !set_.points.empty();
  y_.assign(y.begin(), y.end());
  a_free_.assign(n_, 0.0);
  const std::span<const double> q(y_.data(), n_), v(y_.data() + n_, n_);
  free_acceleration_(t, q, v, a_free_);

  Prepared& record = prepared.emplace_back();
  record.t = t;
  record.step_s = step_s;
  record.y = y_;
  record.v_free.resize(n_);
  for (std::size_t i = 0; i < n_; ++i) record.v_free[i] = v[i] + step_s * a_free_[i];

  set_.points.clear();
  set_.jacobian.clear();
  if (!with_plane_) return;
  // The boxes of the free motion: at q and at q + h·v_free.
  const double z_ahead = q[2] + step_s * record.v_free[2];
  if (std::min(q[2], z_ahead) > kContactMargin_m) return;
  MechanicsContactPoint& point = set_.points.emplace_back();
  point.pair = 1;  // geometry 0 (the plane) << 32 | geometry 1 (the point)
  point.previous = had_point ? 0 : -1;
  point.geometry_a = 0;
  point.geometry_b = 1;
  point.distance_m = q[2];
  point.point_W = Vec3(q[0], q[1], 0.5 * q[2]);
  point.normal_W = Vec3::UnitZ();
  point.tangent1_W = Vec3::UnitX();
  point.tangent2_W = Vec3::UnitY();
  point.friction_static = plane_.friction_static;
  point.friction_kinetic = plane_.friction_kinetic;
  point.restitution = plane_.restitution;
  point.tree[0] = MechanicsContactPoint::no_tree;
  point.tree[1] = 0;
  point.jacobian[0] = 0;
  point.jacobian[1] = 0;
  set_.jacobian.assign(3 * n_, 0.0);
  set_.jacobian[0 * n_ + 2] = 1.0;  // N: z
  set_.jacobian[1 * n_ + 0] = 1.0;  // T1: x
  set_.jacobian[2 * n_ + 1] = 1.0;  // T2: y
  record.points = 1;
}

void TestMechanics::expect_prepared(const char* query) const {
  if (prepared.empty())
    fail(std::string("MechanicsView::") + query + " called before any prepare_step()");
}

std::span<const double> TestMechanics::prepared_state() const {
  expect_prepared("prepared_state()");
  return y_;
}

std::span<const double> TestMechanics::free_acceleration() const {
  expect_prepared("free_acceleration()");
  return a_free_;
}

std::span<const std::uint32_t> TestMechanics::tree_velocities(std::size_t tree) const {
  expect_prepared("tree_velocities()");
  if (tree != 0) fail("MechanicsView::tree_velocities(" + std::to_string(tree) + ") of 1 tree");
  return velocities_;
}

std::span<const double> TestMechanics::tree_inverse_mass(std::size_t tree) const {
  expect_prepared("tree_inverse_mass()");
  if (tree != 0) fail("MechanicsView::tree_inverse_mass(" + std::to_string(tree) + ") of 1 tree");
  return inverse_mass_;
}

void TestMechanics::apply_inverse_mass(std::span<const double> f, std::span<double> out) const {
  expect_prepared("apply_inverse_mass()");
  expect_size("apply_inverse_mass() (f)", f.size(), n_);
  expect_size("apply_inverse_mass() (out)", out.size(), n_);
  for (std::size_t i = 0; i < n_; ++i) out[i] = f[i] / mass_;
}

const MechanicsContactSet& TestMechanics::contacts() const {
  expect_prepared("contacts()");
  return set_;
}

void TestMechanics::distances_at(std::span<const double> q, std::span<double> distances) {
  expect_prepared("distances_at()");
  expect_size("distances_at() (q)", q.size(), n_);
  expect_size("distances_at() (distances)", distances.size(), set_.points.size());
  ++distance_queries;
  if (!distances.empty()) distances[0] = q[2];
}

void TestMechanics::report_contact_solution(std::span<const double> impulses, double step_s,
                                            const ContactSolveReport& report) {
  expect_prepared("report_contact_solution()");
  expect_size("report_contact_solution() (impulses)", impulses.size(), 3 * set_.points.size());
  Prepared& record = prepared.back();
  if (record.solution_reported)
    fail("report_contact_solution() called twice for the step prepared at t = " + number(record.t) +
         " s");
  record.solution_reported = true;
  record.impulses.assign(impulses.begin(), impulses.end());
  record.reported_step_s = step_s;
  record.report = report;
}

bool TestMechanics::contact_problem_wanted() const {
  expect_prepared("contact_problem_wanted()");
  return problem_wanted;
}

void TestMechanics::report_contact_problem(const contact_problem::FrictionContactProblem& problem) {
  expect_prepared("report_contact_problem()");
  Prepared& record = prepared.back();
  if (record.problem_reported)
    fail("report_contact_problem() called twice for the step prepared at t = " + number(record.t) +
         " s");
  record.problem_reported = true;
  record.problem = problem;
}

}  // namespace contactlab::conformance
