// growth_search (Engelson 2000 §6.4) against exact answers.
#include <catch2/catch.hpp>
#include <random>

#include "growth_search_narrow_phase.hpp"
#include "narrow_phase_test_support.hpp"
#include "primitive_narrow_phase.hpp"

using namespace contactlab;
using contactlab::plugins::GrowthSearchNarrowPhase;
using namespace contactlab::testing;

namespace {

ContactGeometry growth(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                       double kappa = 0.2) {
  GrowthSearchNarrowPhase narrow_phase(
      ParameterValues::defaults(GrowthSearchNarrowPhase::schema(), {{"kappa", kappa}}));
  NarrowPhaseCache cache;
  ContactManifold out;
  narrow_phase.query(a, X_WA, b, X_WB, cache, out);
  return out.points[0];
}

}  // namespace

TEST_CASE("growth_search: depth along one of the 26 directions is exact within 1e-9 m") {
  // libccd issue 25: two 2-unit cubes at z = 0 and z = 1.9 overlap by 0.1 along z.
  const Shape cube = Shape::box(Vec3(1, 1, 1));
  const ContactGeometry g = growth(cube, pose_at(Vec3::Zero()), cube, pose_at(Vec3(0, 0, 1.9)));
  CHECK(g.distance_m == Approx(-0.1).margin(1e-9));
  CHECK((g.normal_W - Vec3::UnitZ()).norm() < 1e-12);
  // Spheres overlapping along a diagonal direction of the set.
  const Vec3 diagonal = Vec3(1, 1, 0).normalized();
  const ContactGeometry s = growth(Shape::sphere(0.5), pose_at(Vec3::Zero()), Shape::sphere(0.5),
                                   pose_at(0.93 * diagonal));
  CHECK(s.distance_m == Approx(-0.07).margin(1e-9));
  CHECK((s.normal_W - diagonal).norm() < 1e-12);
  CHECK((s.point_b_W - s.point_a_W - s.distance_m * s.normal_W).norm() < 1e-12);
}

TEST_CASE(
    "growth_search: off-grid normals are rounded to the nearest direction, so the depth "
    "is at least the true depth and within 1/cos(22.5°) of it") {
  std::mt19937_64 rng(17);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 u = Vec3(normal(rng), normal(rng), normal(rng)).normalized();
    const double depth = 0.01 + 0.04 * (trial % 10) / 10.0;
    const ContactGeometry g = growth(Shape::sphere(0.5), pose_at(Vec3::Zero()), Shape::sphere(0.5),
                                     pose_at((1.0 - depth) * u), 0.05);
    // For spheres, moving B along a direction at angle θ to u separates after ≈ δ/cos θ, and
    // the length grid adds at most a factor 1 + κ (κ = 0.05 here).
    double best_cos = 0.0;
    for (int x = -1; x <= 1; ++x)
      for (int y = -1; y <= 1; ++y)
        for (int z = -1; z <= 1; ++z)
          if (x || y || z) best_cos = std::max(best_cos, u.dot(Vec3(x, y, z).normalized()));
    INFO("depth " << depth << ", estimate " << -g.distance_m << ", cos θ " << best_cos);
    CHECK(-g.distance_m >= depth * (1.0 - 1e-9));
    CHECK(-g.distance_m <= depth / best_cos * 1.05 * 1.02 + 1e-9);  // 2%: O(δ²) curvature term
  }
}

TEST_CASE("growth_search: separated pairs are answered exactly by GJK within 1e-12 m") {
  const ContactGeometry g = growth(Shape::sphere(0.5), pose_at(Vec3::Zero()),
                                   Shape::box(Vec3(0.2, 0.3, 0.4)), pose_at(Vec3(1.0, 0.1, -0.2)));
  const ContactGeometry exact = contactlab::plugins::sphere_box(
      0.5, Vec3::Zero(), Vec3(0.2, 0.3, 0.4), pose_at(Vec3(1.0, 0.1, -0.2)));
  CHECK(g.distance_m == Approx(exact.distance_m).margin(1e-12));
}
