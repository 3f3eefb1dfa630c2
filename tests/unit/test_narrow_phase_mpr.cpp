// Unit tests of the MPR narrow phase (plugins/narrowphase-mpr). References are independent of MPR:
// the primitive closed forms (sphere–sphere, sphere–box, sphere–half-space), an exact box–box
// distance from all vertex–box and edge–edge pairs, and the box–box penetration depth from the 15
// separating axes. Random convex hulls check the ContactGeometry invariants, continuity through
// touching and the agreement of the precisions; the degenerate cases of Neumayr (2025) ch. 6 and
// the best-so-far fallback are checked one by one.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <contactlab/core/shape_library.hpp>
#include <contactlab/errors.hpp>
#include <contactlab/geometry/half_space.hpp>
#include <contactlab/geometry/swap.hpp>

#include "mpr_narrow_phase.hpp"
#include "narrow_phase_test_support.hpp"
#include "primitive_narrow_phase.hpp"
#include "support/work_figures.hpp"

using contactlab::ContactGeometry;
using contactlab::ContactManifold;
using contactlab::ConvexHull;
using contactlab::Mat3;
using contactlab::NarrowPhaseCache;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::Pose;
using contactlab::Shape;
using contactlab::ShapeType;
using contactlab::Vec3;
using contactlab::plugins::MprNarrowPhase;
namespace mpr = contactlab::plugins::mpr;
using namespace contactlab::testing;

namespace {

constexpr int kSamples = 10000;
const std::vector<std::string> kPrecisions = {"double", "long_double", "double_double"};

MprNarrowPhase make_mpr(const std::string& precision,
                        std::map<std::string, ParameterValue> overrides = {}) {
  overrides["precision"] = precision;
  return MprNarrowPhase(ParameterValues::defaults(MprNarrowPhase::schema(), overrides));
}

ContactGeometry run_query(MprNarrowPhase& mpr_phase, const Shape& a, const Pose& X_WA,
                          const Shape& b, const Pose& X_WB) {
  NarrowPhaseCache cache;
  ContactManifold out;
  mpr_phase.query(a, X_WA, b, X_WB, cache, out);
  REQUIRE(out.count == 1);
  return out.points[0];
}

/// Support value of A ⊖ B along n: the penetration depth along n when > 0 (moving B by it along n
/// separates the shapes), minus the gap between the support planes when < 0.
double support_value(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                     const Vec3& n) {
  return n.dot(contactlab::support_W(a, X_WA, n) - contactlab::support_W(b, X_WB, -n));
}

// ----- Independent box–box references ----------------------------------------------------------

Vec3 box_vertex(const Vec3& h, const Pose& X, int index) {
  return X.transform_point(Vec3((index & 1) ? h.x() : -h.x(), (index & 2) ? h.y() : -h.y(),
                                (index & 4) ? h.z() : -h.z()));
}

double point_to_box(const Vec3& p_W, const Vec3& h, const Pose& X) {
  const Vec3 p_B = X.R.transpose() * (p_W - X.p);
  return (p_B - p_B.cwiseMax(-h).cwiseMin(h)).norm();
}

/// Distance between segments [p1, q1] and [p2, q2]: minimise over the first parameter with the
/// second one clamped optimally (closed form of the 2×2 least-squares problem, then clamping).
double segment_distance(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2) {
  const Vec3 d1 = q1 - p1;
  const Vec3 d2 = q2 - p2;
  const Vec3 r = p1 - p2;
  const double a = d1.dot(d1), e = d2.dot(d2), b = d1.dot(d2), c = d1.dot(r), f = d2.dot(r);
  const double denominator = a * e - b * b;
  double s =
      denominator > 1e-14 * a * e ? std::clamp((b * f - c * e) / denominator, 0.0, 1.0) : 0.0;
  double t = (b * s + f) / e;
  if (t < 0.0) {
    t = 0.0;
    s = std::clamp(-c / a, 0.0, 1.0);
  } else if (t > 1.0) {
    t = 1.0;
    s = std::clamp((b - c) / a, 0.0, 1.0);
  }
  return ((p1 + s * d1) - (p2 + t * d2)).norm();
}

/// Exact distance of two disjoint boxes: the closest pair involves a vertex of one box (vertex to
/// the other box) or lies inside an edge of each (edge to edge).
double box_box_distance(const Vec3& h_a, const Pose& X_a, const Vec3& h_b, const Pose& X_b) {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 8; ++i) {
    best = std::min(best, point_to_box(box_vertex(h_a, X_a, i), h_b, X_b));
    best = std::min(best, point_to_box(box_vertex(h_b, X_b, i), h_a, X_a));
  }
  for (int i = 0; i < 8; ++i) {
    for (int bit_i : {1, 2, 4}) {
      if (i & bit_i) continue;
      for (int j = 0; j < 8; ++j) {
        for (int bit_j : {1, 2, 4}) {
          if (j & bit_j) continue;
          best = std::min(
              best, segment_distance(box_vertex(h_a, X_a, i), box_vertex(h_a, X_a, i | bit_i),
                                     box_vertex(h_b, X_b, j), box_vertex(h_b, X_b, j | bit_j)));
        }
      }
    }
  }
  return best;
}

/// Smallest overlap of two boxes over the 15 separating axes (3 + 3 face normals, 9 edge cross
/// products). Negative: separated. Positive: the exact penetration depth, because the faces of the
/// Minkowski difference of two boxes are normal to these axes.
double box_box_sat_depth(const Vec3& h_a, const Pose& X_a, const Vec3& h_b, const Pose& X_b) {
  const Vec3 d = X_b.p - X_a.p;
  double best = std::numeric_limits<double>::infinity();
  auto test_axis = [&](Vec3 axis) {
    const double length = axis.norm();
    if (length < 1e-9) return;  // parallel edges: the face axes cover it
    axis /= length;
    double radius_a = 0.0, radius_b = 0.0;
    for (int k = 0; k < 3; ++k) {
      radius_a += h_a[k] * std::abs(axis.dot(X_a.R.col(k)));
      radius_b += h_b[k] * std::abs(axis.dot(X_b.R.col(k)));
    }
    best = std::min(best, radius_a + radius_b - std::abs(axis.dot(d)));
  };
  for (int i = 0; i < 3; ++i) {
    test_axis(X_a.R.col(i));
    test_axis(X_b.R.col(i));
    for (int j = 0; j < 3; ++j) test_axis(X_a.R.col(i).cross(X_b.R.col(j)));
  }
  return best;
}

// ----- Random convex hulls
// ------------------------------------------------------------------------

/// A cloud of points on and inside a random ellipsoid, as a ConvexHull with only the vertices and
/// the centroid (their mean, an interior point) set.
struct RandomHull {
  std::vector<Vec3> points;
  ConvexHull hull;
  double size_m = 0.0;  ///< largest distance from the centroid

  RandomHull(std::mt19937_64& rng, int count) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const Vec3 semi_axes(0.2 + 0.8 * unit(rng), 0.2 + 0.8 * unit(rng), 0.2 + 0.8 * unit(rng));
    for (int i = 0; i < count; ++i) {
      const double radius = i < count / 2 ? 1.0 : std::cbrt(unit(rng));
      points.push_back(semi_axes.cwiseProduct(random_unit(rng)) * radius);
    }
    Vec3 centroid = Vec3::Zero();
    for (const Vec3& p : points) centroid += p;
    centroid /= count;
    for (const Vec3& p : points) size_m = std::max(size_m, (p - centroid).norm());
    hull.vertices = points.data();
    hull.vertex_count = static_cast<std::uint32_t>(count);
    hull.centroid = centroid;
  }
  RandomHull(const RandomHull&) = delete;
  RandomHull& operator=(const RandomHull&) = delete;
  Shape shape() const { return Shape::convex_hull(&hull); }
};

/// Quantiles of a sample (sorted copy).
struct Quantiles {
  double median, p90, p99, max;
};
Quantiles quantiles(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  auto at = [&](double fraction) {
    return values[std::min(values.size() - 1, static_cast<size_t>(fraction * values.size()))];
  };
  return {at(0.5), at(0.9), at(0.99), values.back()};
}

}  // namespace

// ----- Schema and supported pairs
// -----------------------------------------------------------------

TEST_CASE(
    "mpr: schema declares tolerance 1e-12, max_iterations 120, the three precisions, "
    "swept_radii core or support, manifold_points 1..4 (default 1), warm_start and newton_finish "
    "(default true), and supports every pair but half_space–half_space") {
  const auto schema = MprNarrowPhase::schema();
  REQUIRE(schema.size() == 7);
  CHECK(schema[0].name == "tolerance");
  CHECK(std::get<double>(schema[0].default_value) == 1e-12);
  CHECK(schema[0].minimum_exclusive);
  CHECK(schema[1].name == "max_iterations");
  CHECK(std::get<std::int64_t>(schema[1].default_value) == 120);
  CHECK(schema[2].name == "precision");
  CHECK(std::get<std::string>(schema[2].default_value) == "double");
  CHECK(schema[2].choices == std::vector<std::string>{"double", "long_double", "double_double"});
  CHECK(schema[3].name == "swept_radii");
  CHECK(std::get<std::string>(schema[3].default_value) == "core");
  CHECK(schema[3].choices == std::vector<std::string>{"core", "support"});
  CHECK(schema[4].name == "manifold_points");
  CHECK(std::get<std::int64_t>(schema[4].default_value) == 1);
  CHECK(schema[5].name == "warm_start");
  CHECK(std::get<bool>(schema[5].default_value));
  CHECK(make_mpr("double").warm_start());
  CHECK(schema[6].name == "newton_finish");
  CHECK(std::get<bool>(schema[6].default_value));
  CHECK(make_mpr("double").settings().newton_finish);
  CHECK_FALSE(make_mpr("double", {{"newton_finish", false}}).settings().newton_finish);
  CHECK_FALSE(make_mpr("double", {{"warm_start", false}}).warm_start());

  MprNarrowPhase mpr_phase = make_mpr("double");
  CHECK(mpr_phase.settings().on_cores);
  CHECK_FALSE(make_mpr("double", {{"swept_radii", std::string("support")}}).settings().on_cores);
  CHECK(mpr_phase.settings().tolerance == 1e-12);
  CHECK(mpr_phase.settings().max_iterations == 120);
  CHECK(make_mpr("double_double").precision() == mpr::Precision::double_double);
  for (int i = 0; i < contactlab::shape_type_count; ++i) {
    for (int j = 0; j < contactlab::shape_type_count; ++j) {
      const auto a = static_cast<ShapeType>(i);
      const auto b = static_cast<ShapeType>(j);
      CHECK(mpr_phase.supports(a, b) ==
            !(a == ShapeType::half_space && b == ShapeType::half_space));
    }
  }
}

TEST_CASE("mpr: an unknown precision is refused naming the choices, half_space pairs throw") {
  CHECK_THROWS_WITH(make_mpr("quad"), Catch::Contains("double, long_double, double_double"));
  MprNarrowPhase mpr_phase = make_mpr("double");
  const Shape floor = Shape::half_space(Vec3::UnitZ());
  CHECK_THROWS_AS(run_query(mpr_phase, floor, Pose{}, floor, Pose{}), contactlab::SimulationError);
}

// ----- Exact references on seeded random poses
// ----------------------------------------------------

TEST_CASE(
    "mpr: sphere–sphere equals the closed form within 1e-9 relative on 10,000 seeded poses, "
    "separated and penetrating, every precision") {
  for (const std::string& precision : kPrecisions) {
    MprNarrowPhase mpr_phase = make_mpr(precision);
    std::mt19937_64 rng(101);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    int separated = 0;
    for (int i = 0; i < kSamples; ++i) {
      const double r_a = 0.05 + unit(rng), r_b = 0.05 + unit(rng);
      // Centre distances from 1% of the radii sum (deep) to three times it (far apart).
      const double centres_m = (r_a + r_b) * (0.01 + 2.99 * unit(rng));
      const Pose X_WA = random_pose(rng, 5.0);
      const Pose X_WB = pose_at(X_WA.p + centres_m * random_unit(rng));
      const ContactGeometry g =
          run_query(mpr_phase, Shape::sphere(r_a), X_WA, Shape::sphere(r_b), X_WB);
      const ContactGeometry expected = contactlab::plugins::sphere_sphere(r_a, X_WA.p, r_b, X_WB.p);
      INFO(precision << " sample " << i);
      REQUIRE(std::abs(g.distance_m - expected.distance_m) <=
              1e-9 * std::max(std::abs(expected.distance_m), 1e-3 * (r_a + r_b)));
      REQUIRE((g.normal_W - expected.normal_W).norm() <= 1e-9);
      check_contract(g, 1e-12);
      separated += expected.distance_m > 0.0;
      // Both spheres are their own support mapping: TC1 ends every query in phase 1.
      REQUIRE(mpr_phase.last_result().termination == mpr::Termination::tc1);
    }
    CHECK(separated > 5000);
    CHECK(separated < 8000);
  }
}

TEST_CASE(
    "mpr: separated sphere–box distance equals the closed form within 1e-9 relative on 10,000 "
    "seeded poses in both orders, every precision") {
  for (const std::string& precision : kPrecisions) {
    MprNarrowPhase mpr_phase = make_mpr(precision);
    std::mt19937_64 rng(202);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::uniform_real_distribution<double> symmetric(-1.0, 1.0);
    double worst = 0.0;
    for (int i = 0; i < kSamples; ++i) {
      const double r = 0.05 + unit(rng);
      const Vec3 h(0.1 + unit(rng), 0.1 + unit(rng), 0.1 + unit(rng));
      const double size_m = std::max(r, h.maxCoeff());
      const Pose X_WB = random_pose(rng, 3.0);
      // A centre outside the box, at least 1% of the size away from the sphere's touching shell.
      Vec3 c_B;
      ContactGeometry expected;
      do {
        c_B = (h + Vec3::Constant(3.0 * r))
                  .cwiseProduct(Vec3(symmetric(rng), symmetric(rng), symmetric(rng)));
        expected = contactlab::plugins::sphere_box(r, X_WB.transform_point(c_B), h, X_WB);
      } while (expected.distance_m < 0.01 * size_m);
      const Pose X_WA = pose_at(X_WB.transform_point(c_B));
      const bool sphere_first = i % 2 == 0;
      const ContactGeometry g =
          sphere_first ? run_query(mpr_phase, Shape::sphere(r), X_WA, Shape::box(h), X_WB)
                       : contactlab::geometry::swapped(
                             run_query(mpr_phase, Shape::box(h), X_WB, Shape::sphere(r), X_WA));
      INFO(precision << " sample " << i << " termination "
                     << mpr::termination_name(mpr_phase.last_result().termination));
      const double error = std::abs(g.distance_m - expected.distance_m) / expected.distance_m;
      worst = std::max(worst, error);
      REQUIRE(error <= 1e-9);
      REQUIRE((g.normal_W - expected.normal_W).norm() <= 1e-6);
      check_contract(g, 1e-12);
    }
    std::printf("mpr %s: separated sphere–box worst relative error %.2e\n", precision.c_str(),
                worst);
  }
}

TEST_CASE(
    "mpr: separated box–box distance equals the exact vertex–box and edge–edge minimum within "
    "1e-9 relative on 10,000 seeded poses, every precision") {
  for (const std::string& precision : kPrecisions) {
    MprNarrowPhase mpr_phase = make_mpr(precision);
    std::mt19937_64 rng(303);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    double worst = 0.0;
    int separated = 0;
    while (separated < kSamples) {
      const Vec3 h_a(0.1 + unit(rng), 0.1 + unit(rng), 0.1 + unit(rng));
      const Vec3 h_b(0.1 + unit(rng), 0.1 + unit(rng), 0.1 + unit(rng));
      const double size_m = std::max(h_a.maxCoeff(), h_b.maxCoeff());
      const Pose X_WA = random_pose(rng, 3.0);
      Pose X_WB = random_pose(rng, 3.0);
      X_WB.p = X_WA.p + (0.5 + 3.0 * unit(rng)) * size_m * random_unit(rng);
      if (box_box_sat_depth(h_a, X_WA, h_b, X_WB) >= 0.0) continue;
      const double expected_m = box_box_distance(h_a, X_WA, h_b, X_WB);
      if (expected_m < 0.01 * size_m) continue;
      ++separated;
      const ContactGeometry g = run_query(mpr_phase, Shape::box(h_a), X_WA, Shape::box(h_b), X_WB);
      INFO(precision << " sample " << separated << " termination "
                     << mpr::termination_name(mpr_phase.last_result().termination));
      const double error = std::abs(g.distance_m - expected_m) / expected_m;
      worst = std::max(worst, error);
      REQUIRE(error <= 1e-9);
      check_contract(g, 1e-12);
      // The witness points are on the boxes' boundaries and at the distance apart.
      CHECK(point_to_box(g.point_a_W, h_a, X_WA) <= 1e-9 * size_m);
      CHECK(point_to_box(g.point_b_W, h_b, X_WB) <= 1e-9 * size_m);
    }
    const auto& statistics = mpr_phase.detailed_statistics();
    std::printf(
        "mpr %s: separated box–box worst relative error %.2e; %lld of %d needed the "
        "closest-point completion (Thm 6.3 case 2)\n",
        precision.c_str(), worst, static_cast<long long>(statistics.completions), kSamples);
  }
}

TEST_CASE(
    "mpr: penetrating sphere–box depth is never below the closed form by more than 1e-9 of the "
    "size, and equals it within 1e-9 where the origin ray leaves through the closed form's face "
    "(10,000 seeded poses)") {
  MprNarrowPhase mpr_phase = make_mpr("double");
  std::mt19937_64 rng(404);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_real_distribution<double> symmetric(-1.0, 1.0);
  std::vector<double> excess_deep, excess_shallow;
  int same_face = 0;
  for (int i = 0; i < kSamples; ++i) {
    const double r = 0.05 + unit(rng);
    const Vec3 h(0.1 + unit(rng), 0.1 + unit(rng), 0.1 + unit(rng));
    const double size_m = std::max(r, h.maxCoeff());
    const Pose X_WB = random_pose(rng, 3.0);
    // Every other sample shallow: a centre just outside a face, penetrating by up to 5% of r.
    Vec3 c_B;
    ContactGeometry expected;
    const bool shallow = i % 2 == 1;
    do {
      c_B = h.cwiseProduct(Vec3(symmetric(rng), symmetric(rng), symmetric(rng)));
      if (shallow) {
        const int axis = static_cast<int>(3.0 * unit(rng)) % 3;
        c_B[axis] = (unit(rng) < 0.5 ? 1.0 : -1.0) * (h[axis] + r * (1.0 - 0.05 * unit(rng)));
      }
      expected = contactlab::plugins::sphere_box(r, X_WB.transform_point(c_B), h, X_WB);
    } while (!(expected.distance_m < 0.0));
    const Pose X_WA = pose_at(X_WB.transform_point(c_B));
    const ContactGeometry g = run_query(mpr_phase, Shape::sphere(r), X_WA, Shape::box(h), X_WB);
    check_contract(g, 1e-12);
    const double true_depth_m = -expected.distance_m;
    const double depth_m = -g.distance_m;
    const mpr::Result& result = mpr_phase.last_result();
    INFO("sample " << i << " c_B " << c_B.transpose() << " h " << h.transpose() << " r " << r
                   << " termination " << mpr::termination_name(result.termination) << " TC "
                   << result.result_tolerance << " iterations " << result.phase3_iterations);
    REQUIRE(depth_m >= true_depth_m - 1e-9 * size_m);
    // MPR's depth is the exact penetration along its own normal (the support value of A ⊖ B).
    REQUIRE(std::abs(depth_m - support_value(Shape::sphere(r), X_WA, Shape::box(h), X_WB,
                                             g.normal_W)) <= 1e-9 * size_m);
    (shallow ? excess_shallow : excess_deep).push_back((depth_m - true_depth_m) / true_depth_m);
    // The origin ray runs from the box centre through the sphere centre (box frame). It leaves the
    // rounded box (box ⊕ ball r) through the flat part of face `exit` when the other coordinates
    // stay within the box there; MPR's portal then lies on that face.
    int exit = 0;
    for (int k = 1; k < 3; ++k) {
      if (std::abs(c_B[k]) / (h[k] + r) > std::abs(c_B[exit]) / (h[exit] + r)) exit = k;
    }
    const double scale = (h[exit] + r) / std::abs(c_B[exit]);
    bool flat_exit = true;
    for (int k = 0; k < 3; ++k) {
      if (k != exit && std::abs(c_B[k]) * scale > h[k] * (1.0 - 1e-6)) flat_exit = false;
    }
    const Vec3 expected_normal_B = X_WB.R.transpose() * expected.normal_W;
    if (flat_exit && -expected_normal_B[exit] * (c_B[exit] > 0.0 ? 1.0 : -1.0) > 1.0 - 1e-12) {
      ++same_face;
      REQUIRE(std::abs(depth_m - true_depth_m) <= 1e-9 * size_m);
      REQUIRE((g.normal_W - expected.normal_W).norm() <= 1e-9);
    }
  }
  const Quantiles deep = quantiles(excess_deep);
  const Quantiles shallow = quantiles(excess_shallow);
  std::printf(
      "mpr: sphere–box penetration, (MPR depth − true depth)/true depth: deep median %.2e p90 "
      "%.2e p99 %.2e max %.2e; shallow (≤ 5%% of r) median %.2e p90 %.2e p99 %.2e max %.2e; exact "
      "subset %d of %d\n",
      deep.median, deep.p90, deep.p99, deep.max, shallow.median, shallow.p90, shallow.p99,
      shallow.max, same_face, kSamples);
  CHECK(same_face >= 3000);
}

TEST_CASE(
    "mpr: box–box penetration depth vs the 15-axis SAT depth, never below it by more than 1e-9 "
    "of the size, shallow (≤ 5% of the size) at most 0.05 of the size above it and at least 95% "
    "exact within 1e-9 relative (10,000 poses)") {
  MprNarrowPhase mpr_phase = make_mpr("double");
  std::mt19937_64 rng(505);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> excess_deep, excess_shallow, excess_shallow_absolute;
  int samples = 0;
  while (samples < kSamples) {
    const Vec3 h_a(0.1 + unit(rng), 0.1 + unit(rng), 0.1 + unit(rng));
    const Vec3 h_b(0.1 + unit(rng), 0.1 + unit(rng), 0.1 + unit(rng));
    const double size_m = std::max(h_a.maxCoeff(), h_b.maxCoeff());
    const Pose X_WA = random_pose(rng, 3.0);
    Pose X_WB = random_pose(rng, 3.0);
    const bool shallow = samples % 2 == 1;
    const Vec3 direction = random_unit(rng);
    if (shallow) {
      // Slide B in along a random direction to the touching distance (bisection on the SAT
      // overlap), then push it in by up to 5% of the size.
      double inside = 0.0, outside = 4.0 * size_m;
      for (int k = 0; k < 60; ++k) {
        const double middle = 0.5 * (inside + outside);
        X_WB.p = X_WA.p + middle * direction;
        (box_box_sat_depth(h_a, X_WA, h_b, X_WB) > 0.0 ? inside : outside) = middle;
      }
      X_WB.p = X_WA.p + (outside - 0.05 * size_m * unit(rng)) * direction;
    } else {
      X_WB.p = X_WA.p + 1.5 * size_m * unit(rng) * direction;
    }
    const double true_depth_m = box_box_sat_depth(h_a, X_WA, h_b, X_WB);
    if (!(true_depth_m > 1e-6 * size_m)) continue;
    if (shallow && true_depth_m > 0.05 * size_m) continue;
    ++samples;
    const ContactGeometry g = run_query(mpr_phase, Shape::box(h_a), X_WA, Shape::box(h_b), X_WB);
    check_contract(g, 1e-12);
    const double depth_m = -g.distance_m;
    INFO("sample " << samples);
    REQUIRE(depth_m >= true_depth_m - 1e-9 * size_m);
    REQUIRE(std::abs(depth_m - support_value(Shape::box(h_a), X_WA, Shape::box(h_b), X_WB,
                                             g.normal_W)) <= 1e-9 * size_m);
    const double excess = (depth_m - true_depth_m) / true_depth_m;
    if (shallow) {
      excess_shallow.push_back(excess);
      excess_shallow_absolute.push_back((depth_m - true_depth_m) / size_m);
      REQUIRE(depth_m - true_depth_m <= 0.05 * size_m);
    } else {
      excess_deep.push_back(excess);
    }
  }
  const Quantiles deep = quantiles(excess_deep);
  const Quantiles shallow = quantiles(excess_shallow);
  const Quantiles shallow_absolute = quantiles(excess_shallow_absolute);
  auto exact_fraction = [](const std::vector<double>& values) {
    return static_cast<double>(
               std::count_if(values.begin(), values.end(), [](double v) { return v <= 1e-9; })) /
           static_cast<double>(values.size());
  };
  std::printf(
      "mpr: box–box penetration, (MPR depth − SAT depth)/SAT depth: deep (random overlap) exact "
      "%.1f%%, median %.2e p90 %.2e p99 %.2e max %.2e; shallow (≤ 5%% of size) exact %.1f%%, "
      "median %.2e p90 %.2e p99 %.2e max %.2e; shallow excess/size p99 %.2e max %.2e\n",
      100.0 * exact_fraction(excess_deep), deep.median, deep.p90, deep.p99, deep.max,
      100.0 * exact_fraction(excess_shallow), shallow.median, shallow.p90, shallow.p99, shallow.max,
      shallow_absolute.p99, shallow_absolute.max);
  CHECK(exact_fraction(excess_shallow) >= 0.95);
}

// ----- Invariants on random convex hulls
// ----------------------------------------------------------

TEST_CASE(
    "mpr: random 32-vertex hulls keep the witness identity and a unit normal within 1e-12 and "
    "the support-plane identity within 1e-9 of the size, every precision (2,000 pairs each)") {
  for (const std::string& precision : kPrecisions) {
    MprNarrowPhase mpr_phase = make_mpr(precision);
    std::mt19937_64 rng(606);
    for (int i = 0; i < 2000; ++i) {
      const RandomHull a(rng, 32), b(rng, 32);
      const Pose X_WA = random_pose(rng, 1.0), X_WB = random_pose(rng, 1.0);
      const ContactGeometry g = run_query(mpr_phase, a.shape(), X_WA, b.shape(), X_WB);
      INFO(precision << " pair " << i << " termination "
                     << mpr::termination_name(mpr_phase.last_result().termination));
      check_contract(g, 1e-12);
      // Separated: the support planes along n are δ apart; penetrating: δ is the depth along n.
      REQUIRE(std::abs(-g.distance_m - support_value(a.shape(), X_WA, b.shape(), X_WB,
                                                     g.normal_W)) <= 1e-9 * (a.size_m + b.size_m));
    }
    CHECK(mpr_phase.statistics().iteration_limit_hits == 0);
  }
}

TEST_CASE(
    "mpr: signed distance and normal are continuous as random hulls slide from separated "
    "through touching to penetrating (Lipschitz 1 within 1e-12, normal steps within 1e-6)") {
  MprNarrowPhase mpr_phase = make_mpr("double");
  std::mt19937_64 rng(707);
  for (int pair = 0; pair < 100; ++pair) {
    const RandomHull a(rng, 32), b(rng, 32);
    const Pose X_WA = random_pose(rng, 0.0);
    Pose X_WB = random_pose(rng, 0.0);
    const Vec3 direction = random_unit(rng);
    const double size_m = a.size_m + b.size_m;
    auto distance_at = [&](double t) {
      X_WB.p = X_WA.p + t * direction - X_WB.R * b.hull.centroid + X_WA.R * a.hull.centroid;
      return run_query(mpr_phase, a.shape(), X_WA, b.shape(), X_WB);
    };
    // Touching parameter by bisection on the sign of the signed distance.
    double inside = 0.01 * size_m, outside = 2.0 * size_m;
    REQUIRE(distance_at(inside).distance_m < 0.0);
    REQUIRE(distance_at(outside).distance_m > 0.0);
    for (int k = 0; k < 60; ++k) {
      const double middle = 0.5 * (inside + outside);
      (distance_at(middle).distance_m < 0.0 ? inside : outside) = middle;
    }
    // 200 steps over ±1e-3 of the size around touching.
    const int steps = 200;
    const double half_window = 1e-3 * size_m, step = 2.0 * half_window / steps;
    ContactGeometry previous = distance_at(outside + half_window);
    REQUIRE(previous.distance_m > 0.0);
    for (int k = 1; k <= steps; ++k) {
      const ContactGeometry g = distance_at(outside + half_window - k * step);
      INFO("pair " << pair << " step " << k << " distance " << g.distance_m << " termination "
                   << mpr::termination_name(mpr_phase.last_result().termination));
      REQUIRE(std::abs(g.distance_m - previous.distance_m) <= step + 1e-12 * size_m);
      REQUIRE((g.normal_W - previous.normal_W).norm() <= 1e-6);
      previous = g;
    }
    REQUIRE(previous.distance_m < 0.0);
  }
}

TEST_CASE(
    "mpr: double and double_double agree within 1e-9 of the size in distance and normal on "
    "2,000 random hull pairs") {
  MprNarrowPhase in_double = make_mpr("double");
  MprNarrowPhase in_double_double = make_mpr("double_double");
  std::mt19937_64 rng(808);
  double worst_distance = 0.0, worst_normal = 0.0;
  for (int i = 0; i < 2000; ++i) {
    const RandomHull a(rng, 32), b(rng, 32);
    const Pose X_WA = random_pose(rng, 1.0), X_WB = random_pose(rng, 1.0);
    const ContactGeometry g = run_query(in_double, a.shape(), X_WA, b.shape(), X_WB);
    const ContactGeometry reference = run_query(in_double_double, a.shape(), X_WA, b.shape(), X_WB);
    const double size_m = a.size_m + b.size_m;
    INFO("pair " << i);
    worst_distance =
        std::max(worst_distance, std::abs(g.distance_m - reference.distance_m) / size_m);
    worst_normal = std::max(worst_normal, (g.normal_W - reference.normal_W).norm());
    REQUIRE(std::abs(g.distance_m - reference.distance_m) <= 1e-9 * size_m);
    REQUIRE((g.normal_W - reference.normal_W).norm() <= 1e-9);
  }
  std::printf("mpr: double vs double_double on hulls: distance %.2e of the size, normal %.2e\n",
              worst_distance, worst_normal);
}

// ----- Half-spaces
// ----------------------------------------------------------------------------------

TEST_CASE("mpr: half-space pairs equal the closed form within 1e-12 in both orders") {
  MprNarrowPhase mpr_phase = make_mpr("double");
  std::mt19937_64 rng(909);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 1000; ++i) {
    const Shape floor = Shape::half_space(random_unit(rng));
    const Pose X_WH = random_pose(rng, 2.0);
    const double r = 0.1 + unit(rng);
    const Pose X_WS = random_pose(rng, 2.0);
    const ContactGeometry expected =
        contactlab::geometry::sphere_half_space(r, X_WS.p, floor.normal, X_WH);
    const ContactGeometry g = run_query(mpr_phase, Shape::sphere(r), X_WS, floor, X_WH);
    CHECK(std::abs(g.distance_m - expected.distance_m) <= 1e-12);
    CHECK((g.normal_W - expected.normal_W).norm() <= 1e-12);
    CHECK((g.point_a_W - expected.point_a_W).norm() <= 1e-12);
    check_contract(g, 1e-12);
    const ContactGeometry swapped = run_query(mpr_phase, floor, X_WH, Shape::sphere(r), X_WS);
    CHECK(std::abs(swapped.distance_m - expected.distance_m) <= 1e-12);
    CHECK((swapped.normal_W + expected.normal_W).norm() <= 1e-12);
    check_contract(swapped, 1e-12);

    // A box: the signed distance is the lowest vertex's height above the plane.
    const Vec3 h(0.1 + unit(rng), 0.1 + unit(rng), 0.1 + unit(rng));
    const Vec3 n_W = X_WH.R * floor.normal;
    double lowest_m = std::numeric_limits<double>::infinity();
    for (int v = 0; v < 8; ++v)
      lowest_m = std::min(lowest_m, n_W.dot(box_vertex(h, X_WS, v) - X_WH.p));
    const ContactGeometry box_g = run_query(mpr_phase, floor, X_WH, Shape::box(h), X_WS);
    CHECK(std::abs(box_g.distance_m - lowest_m) <= 1e-12);
    CHECK((box_g.normal_W - n_W).norm() <= 1e-12);
    check_contract(box_g, 1e-12);
  }
  CHECK(mpr_phase.detailed_statistics().half_space_queries == 3000);
}

// ----- Degenerate cases
// -----------------------------------------------------------------------------

TEST_CASE(
    "mpr: coincident centres are guarded — concentric spheres give −(r_A + r_B) along +z within "
    "1e-12, boxes a valid depth, counted as degenerate, every precision") {
  for (const std::string& precision : kPrecisions) {
    MprNarrowPhase mpr_phase = make_mpr(precision);
    const Pose X_W = pose_at(Vec3(0.3, -0.2, 1.0));
    const ContactGeometry g =
        run_query(mpr_phase, Shape::sphere(0.5), X_W, Shape::sphere(0.2), X_W);
    CHECK(std::abs(g.distance_m - (-0.7)) <= 1e-12);
    CHECK((g.normal_W - Vec3::UnitZ()).norm() <= 1e-12);
    check_contract(g, 1e-12);
    CHECK(mpr_phase.last_result().coincident_interior_points);
    CHECK(mpr_phase.statistics().degenerate_cases == 1);
    CHECK(mpr_phase.detailed_statistics().coincident_interior_points == 1);

    std::mt19937_64 rng(1010);
    for (int i = 0; i < 100; ++i) {
      const Vec3 h_a(0.1 + 0.01 * i, 0.3, 0.2), h_b(0.25, 0.1, 0.4);
      Pose X_WA = random_pose(rng, 1.0);
      Pose X_WB = random_pose(rng, 1.0);
      X_WB.p = X_WA.p;
      const ContactGeometry box_g =
          run_query(mpr_phase, Shape::box(h_a), X_WA, Shape::box(h_b), X_WB);
      check_contract(box_g, 1e-12);
      CHECK(-box_g.distance_m >= box_box_sat_depth(h_a, X_WA, h_b, X_WB) - 1e-12);
      CHECK(std::abs(-box_g.distance_m - support_value(Shape::box(h_a), X_WA, Shape::box(h_b), X_WB,
                                                       box_g.normal_W)) <= 1e-9);
    }
    CHECK(mpr_phase.detailed_statistics().coincident_interior_points == 101);
  }
}

TEST_CASE("mpr: touching faces of two boxes give distance 0 within 1e-12 along the face normal") {
  for (const std::string& precision : kPrecisions) {
    MprNarrowPhase mpr_phase = make_mpr(precision);
    std::mt19937_64 rng(1111);
    std::uniform_real_distribution<double> symmetric(-1.0, 1.0);
    for (int i = 0; i < 200; ++i) {
      const Vec3 h_a(0.5, 0.4, 0.3), h_b(0.2, 0.3, 0.25);
      const Pose X_WA = random_pose(rng, 1.0);
      // B on A's +x face, shifted within it, same orientation.
      Pose X_WB = X_WA;
      X_WB.p = X_WA.transform_point(
          Vec3(h_a.x() + h_b.x(), 0.1 * symmetric(rng), 0.05 * symmetric(rng)));
      const ContactGeometry g = run_query(mpr_phase, Shape::box(h_a), X_WA, Shape::box(h_b), X_WB);
      INFO(precision << " " << i);
      CHECK(std::abs(g.distance_m) <= 1e-12);
      CHECK((g.normal_W - X_WA.R.col(0)).norm() <= 1e-9);
      check_contract(g, 1e-12);
    }
  }
}

TEST_CASE(
    "mpr: TC1 ends phase 1 for spheres and for a cube corner on the centre line, exact within "
    "1e-12") {
  MprNarrowPhase mpr_phase = make_mpr("double");
  const ContactGeometry g = run_query(mpr_phase, Shape::sphere(0.5), pose_at(Vec3(1, 2, 3)),
                                      Shape::sphere(0.25), pose_at(Vec3(1, 2, 3.5)));
  CHECK(mpr_phase.last_result().termination == mpr::Termination::tc1);
  CHECK(mpr_phase.last_result().iterations() == 0);
  CHECK(std::abs(g.distance_m - (-0.25)) <= 1e-12);
  CHECK((g.normal_W - Vec3::UnitZ()).norm() <= 1e-12);
  // A cube with a corner on the centre line (Neumayr Fig. 6.10): the corner is r1, on the ray.
  const double half_m = 0.3;
  Pose X_WC;
  X_WC.R = Eigen::Quaterniond::FromTwoVectors(Vec3(1, 1, 1).normalized(), Vec3::UnitZ())
               .toRotationMatrix();
  const ContactGeometry corner = run_query(mpr_phase, Shape::box(Vec3::Constant(half_m)), X_WC,
                                           Shape::sphere(0.2), pose_at(Vec3(0, 0, 0.9)));
  CHECK(mpr_phase.last_result().termination == mpr::Termination::tc1);
  CHECK(std::abs(corner.distance_m - (0.9 - 0.2 - std::sqrt(3.0) * half_m)) <= 1e-12);
  CHECK((corner.normal_W - Vec3::UnitZ()).norm() <= 1e-12);
  check_contract(corner, 1e-12);
}

TEST_CASE(
    "mpr: very thin shapes — a 1e-9 m plate is exact within 1e-9 against spheres, coplanar "
    "zero-thickness plates fall back without throwing and are counted") {
  for (const std::string& precision : kPrecisions) {
    MprNarrowPhase mpr_phase = make_mpr(precision);
    std::mt19937_64 rng(1212);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const Vec3 plate(0.5, 0.4, 1e-9);
    for (int i = 0; i < 500; ++i) {
      const Pose X_WP = random_pose(rng, 1.0);
      const double r = 0.05 + 0.2 * unit(rng);
      const Vec3 c_P(0.6 * (2 * unit(rng) - 1), 0.5 * (2 * unit(rng) - 1),
                     0.3 * (2 * unit(rng) - 1));
      const Pose X_WS = pose_at(X_WP.transform_point(c_P));
      const ContactGeometry expected = contactlab::plugins::sphere_box(r, X_WS.p, plate, X_WP);
      if (expected.distance_m < 0.01) continue;
      const ContactGeometry g =
          run_query(mpr_phase, Shape::box(plate), X_WP, Shape::sphere(r), X_WS);
      INFO(precision << " " << i);
      CHECK(std::abs(g.distance_m - expected.distance_m) <= 1e-9 * expected.distance_m);
      check_contract(g, 1e-12);
    }
    // Two plates of zero thickness in one plane: A ⊖ B is planar, which 3-D MPR cannot handle.
    const Vec3 flat_a(0.5, 0.4, 0.0), flat_b(0.3, 0.2, 0.0);
    const auto degenerate_before = mpr_phase.statistics().degenerate_cases;
    ContactGeometry g;
    REQUIRE_NOTHROW(g = run_query(mpr_phase, Shape::box(flat_a), Pose{}, Shape::box(flat_b),
                                  pose_at(Vec3(0.2, 0.1, 0.0))));
    check_contract(g, 1e-12);
    CHECK(mpr_phase.last_result().termination == mpr::Termination::degenerate_start);
    CHECK(mpr_phase.statistics().degenerate_cases == degenerate_before + 1);
  }
}

TEST_CASE(
    "mpr: the iteration limit returns the best-so-far portal, not the last, and counts it "
    "(ellipsoids, max_iterations 1 to 12)") {
  std::mt19937_64 rng(1313);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int best_not_last = 0;
  for (int pair = 0; pair < 200 && best_not_last < 5; ++pair) {
    const Shape a = Shape::ellipsoid(Vec3(0.2 + unit(rng), 0.2 + unit(rng), 0.2 + unit(rng)));
    const Shape b = Shape::ellipsoid(Vec3(0.2 + unit(rng), 0.2 + unit(rng), 0.2 + unit(rng)));
    const Pose X_WA = random_pose(rng, 0.3), X_WB = random_pose(rng, 0.3);
    std::vector<ContactGeometry> by_limit(13);
    std::vector<bool> in_phase3(13, false);
    for (int limit = 1; limit <= 12; ++limit) {
      MprNarrowPhase mpr_phase = make_mpr("double", {{"max_iterations", std::int64_t{limit}}});
      by_limit[limit] = run_query(mpr_phase, a, X_WA, b, X_WB);
      const mpr::Result& result = mpr_phase.last_result();
      if (result.termination != mpr::Termination::iteration_limit) break;
      INFO("pair " << pair << " limit " << limit);
      check_contract(by_limit[limit], 1e-12);
      CHECK(mpr_phase.statistics().iteration_limit_hits == 1);
      CHECK(result.iteration_limit_hit);
      // The limit holds per phase: small limits may already stop phase 2 (portal discovery).
      if (result.phase3_iterations == 0) continue;
      in_phase3[limit] = true;
      REQUIRE(result.phase3_iterations == limit);
      REQUIRE(result.result_tolerance <= result.last_tolerance);
      if (result.result_iteration < limit && in_phase3[result.result_iteration]) {
        // The best portal came from an earlier iteration: the result equals the one of the run
        // that stopped right there, not the last iterate.
        ++best_not_last;
        const ContactGeometry& earlier = by_limit[result.result_iteration];
        CHECK(by_limit[limit].distance_m == earlier.distance_m);
        CHECK(by_limit[limit].normal_W == earlier.normal_W);
      }
    }
  }
  CHECK(best_not_last >= 5);
}

TEST_CASE("mpr: statistics count every query and sum the iterations of each") {
  MprNarrowPhase mpr_phase = make_mpr("double");
  std::mt19937_64 rng(1414);
  std::int64_t iterations = 0, most = 0;
  for (int i = 0; i < 100; ++i) {
    const RandomHull a(rng, 16), b(rng, 16);
    run_query(mpr_phase, a.shape(), random_pose(rng, 1.0), b.shape(), random_pose(rng, 1.0));
    iterations += mpr_phase.last_result().iterations();
    most = std::max<std::int64_t>(most, mpr_phase.last_result().iterations());
  }
  run_query(mpr_phase, Shape::sphere(1.0), Pose{}, Shape::half_space(Vec3::UnitZ()),
            pose_at(Vec3(0, 0, -2)));
  const auto statistics = mpr_phase.statistics();
  CHECK(statistics.queries == 101);
  CHECK(statistics.total_iterations == iterations);
  CHECK(statistics.max_iterations_used == most);
  CHECK(statistics.iteration_limit_hits == 0);
  std::int64_t terminations = 0;
  for (const auto count : mpr_phase.detailed_statistics().terminations) terminations += count;
  CHECK(terminations == 100);
}

TEST_CASE(
    "mpr: every convex shape type pairs with every other with the witness identity within "
    "1e-12 and the support-plane identity within 1e-7 m in double, 1e-8 m in long double and "
    "1e-10 m in double-double (shapes of size 0.1 to 0.8 m)") {
  static const std::vector<Vec3> tetrahedron = {Vec3(0.3, 0, -0.1), Vec3(-0.2, 0.25, -0.1),
                                                Vec3(-0.2, -0.25, -0.1), Vec3(0, 0, 0.35)};
  ConvexHull hull;
  hull.vertices = tetrahedron.data();
  hull.vertex_count = 4;
  hull.centroid = Vec3(-0.025, 0.0, 0.0125);
  Shape smoothed_box = Shape::box(Vec3(0.3, 0.2, 0.25));
  smoothed_box.smoothing_radius_m = 0.02;
  Shape smoothed_cylinder = Shape::cylinder(0.2, 0.6);
  smoothed_cylinder.smoothing_radius_m = 0.01;
  const std::vector<Shape> shapes = {Shape::sphere(0.3),
                                     smoothed_box,
                                     Shape::ellipsoid(Vec3(0.4, 0.2, 0.15)),
                                     smoothed_cylinder,
                                     Shape::cone(0.25, 0.0, 0.5),
                                     Shape::cone(0.25, 0.1, 0.4),
                                     Shape::capsule(0.15, 0.5),
                                     Shape::beam(0.8, 0.3, 0.1),
                                     Shape::convex_hull(&hull)};
  const std::map<std::string, double> identity_tolerance_m = {
      {"double", 1e-7}, {"long_double", 1e-8}, {"double_double", 1e-10}};
  for (const std::string& precision : kPrecisions) {
    MprNarrowPhase mpr_phase = make_mpr(precision);
    std::mt19937_64 rng(1515);
    double worst_m = 0.0;
    for (const Shape& a : shapes) {
      for (const Shape& b : shapes) {
        for (int i = 0; i < 40; ++i) {
          const Pose X_WA = random_pose(rng, 0.5), X_WB = random_pose(rng, 0.5);
          const ContactGeometry g = run_query(mpr_phase, a, X_WA, b, X_WB);
          INFO(precision << " " << shape_type_name(a.type) << "–" << shape_type_name(b.type)
                         << " termination "
                         << mpr::termination_name(mpr_phase.last_result().termination));
          check_contract(g, 1e-12);
          const double identity_m =
              std::abs(-g.distance_m - support_value(a, X_WA, b, X_WB, g.normal_W));
          worst_m = std::max(worst_m, identity_m);
          REQUIRE(identity_m <= identity_tolerance_m.at(precision));
        }
      }
    }
    std::printf(
        "mpr %s: all shape pairs: support-plane identity within %.2e m; %lld queries, %lld "
        "iteration-limit hits, %lld degenerate\n",
        precision.c_str(), worst_m, static_cast<long long>(mpr_phase.statistics().queries),
        static_cast<long long>(mpr_phase.statistics().iteration_limit_hits),
        static_cast<long long>(mpr_phase.statistics().degenerate_cases));
  }
}

// ----- Swept radii: MPR on the cores (default) and in the support mapping (Modia3D) -----------

TEST_CASE(
    "mpr: on the cores, sphere–capsule and capsule–capsule equal the closed forms within 1e-9 "
    "relative on 10,000 seeded poses each, separated and penetrating with the segments apart") {
  MprNarrowPhase mpr_phase = make_mpr("double");
  std::mt19937_64 rng(2121);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int penetrating = 0;
  for (int i = 0; i < kSamples; ++i) {
    const Shape sphere = Shape::sphere(0.05 + 0.4 * unit(rng));
    const Shape capsule_a = Shape::capsule(0.05 + 0.3 * unit(rng), 0.1 + unit(rng));
    const Shape capsule_b = Shape::capsule(0.05 + 0.3 * unit(rng), 0.1 + unit(rng));
    const Pose X_WA = random_pose(rng, 0.6), X_WB = random_pose(rng, 0.6);
    const ContactGeometry expected_sc =
        contactlab::plugins::sphere_capsule(sphere, X_WA, capsule_b, X_WB);
    const ContactGeometry expected_cc =
        contactlab::plugins::capsule_capsule(capsule_a, X_WA, capsule_b, X_WB);
    const double radii_sc = sphere.radius_m + capsule_b.radius_m;
    const double radii_cc = capsule_a.radius_m + capsule_b.radius_m;
    INFO("sample " << i);
    // Cores 1% of the radii apart or more: the closed form is the signed distance there.
    if (expected_sc.distance_m + radii_sc > 0.01 * radii_sc) {
      const ContactGeometry g = run_query(mpr_phase, sphere, X_WA, capsule_b, X_WB);
      REQUIRE(std::abs(g.distance_m - expected_sc.distance_m) <= 1e-9 * radii_sc);
      REQUIRE((g.normal_W - expected_sc.normal_W).norm() <= 1e-6);
      check_contract(g, 1e-12);
      CHECK_FALSE(mpr_phase.last_result().full_shape_rerun);
      penetrating += expected_sc.distance_m < 0.0;
    }
    if (expected_cc.distance_m + radii_cc > 0.01 * radii_cc) {
      const ContactGeometry g = run_query(mpr_phase, capsule_a, X_WA, capsule_b, X_WB);
      REQUIRE(std::abs(g.distance_m - expected_cc.distance_m) <= 1e-9 * radii_cc);
      check_contract(g, 1e-12);
      CHECK_FALSE(mpr_phase.last_result().full_shape_rerun);
      penetrating += expected_cc.distance_m < 0.0;
    }
  }
  CHECK(penetrating > 1000);
}

TEST_CASE(
    "mpr: crossing capsule segments and concentric spheres fall back to the full shapes, counted, "
    "with the witness identity within 1e-12") {
  MprNarrowPhase mpr_phase = make_mpr("double");
  // Two capsules whose segments cross off their centres: the cores' difference is a flat
  // parallelogram around the origin, the completion finds the cores intersecting, and the full
  // shapes answer. Moving B by 0.2 m normal to the segments' plane separates them: the depth is at
  // least that (MPR reports the depth along its ray, not always the minimum).
  Pose X_WB;
  X_WB.R = Eigen::AngleAxisd(M_PI / 3, Vec3::UnitX()).toRotationMatrix();
  X_WB.p = Vec3(0.0, 0.1, 0.05);
  const ContactGeometry crossing =
      run_query(mpr_phase, Shape::capsule(0.1, 1.0), Pose{}, Shape::capsule(0.1, 1.0), X_WB);
  INFO(mpr::termination_name(mpr_phase.last_result().termination) << " d " << crossing.distance_m);
  check_contract(crossing, 1e-12);
  CHECK(crossing.distance_m <= -0.2 + 1e-12);
  CHECK(mpr_phase.last_result().full_shape_rerun);
  CHECK(mpr_phase.detailed_statistics().full_shape_reruns == 1);
  // Concentric spheres: the cores are one point; the full-shape run shifts r0 (Neumayr L316).
  const ContactGeometry concentric =
      run_query(mpr_phase, Shape::sphere(0.3), Pose{}, Shape::sphere(0.2), Pose{});
  check_contract(concentric, 1e-12);
  CHECK(std::abs(concentric.distance_m - (-0.5)) <= 1e-12);
  CHECK(mpr_phase.last_result().full_shape_rerun);
  CHECK(mpr_phase.last_result().coincident_interior_points);
}

TEST_CASE(
    "mpr: swept_radii core and support agree within 1e-9 m on separated pairs of smoothed boxes, "
    "spheres and capsules, and core is exact on penetrating sphere–box where support is not") {
  MprNarrowPhase on_cores = make_mpr("double");
  MprNarrowPhase in_support = make_mpr("double", {{"swept_radii", std::string("support")}});
  Shape smoothed_box = Shape::box(Vec3(0.3, 0.2, 0.25));
  smoothed_box.smoothing_radius_m = 0.02;
  const std::vector<Shape> shapes = {smoothed_box, Shape::sphere(0.25), Shape::capsule(0.1, 0.4)};
  std::mt19937_64 rng(2323);
  int compared = 0;
  for (const Shape& a : shapes) {
    for (const Shape& b : shapes) {
      for (int i = 0; i < 300; ++i) {
        const Pose X_WA = random_pose(rng, 0.2);
        Pose X_WB = random_pose(rng, 0.0);
        X_WB.p = X_WA.p +
                 (0.7 + 0.3 * std::uniform_real_distribution<double>(0, 1)(rng)) * random_unit(rng);
        const ContactGeometry g_core = run_query(on_cores, a, X_WA, b, X_WB);
        const ContactGeometry g_support = run_query(in_support, a, X_WA, b, X_WB);
        if (g_core.distance_m <= 0.0) continue;
        INFO(shape_type_name(a.type) << "–" << shape_type_name(b.type) << " " << i);
        REQUIRE(std::abs(g_core.distance_m - g_support.distance_m) <= 1e-9);
        ++compared;
      }
    }
  }
  CHECK(compared > 1500);
  // Sphere centre outside the box, sphere overlapping it by up to 5% of its radius: the depth is
  // the radius minus the centre's distance to the box. On the cores a point–box pair: exact.
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const Vec3 h(0.4, 0.3, 0.2);
  double worst_core = 0.0, worst_support = 0.0;
  for (int i = 0; i < 2000; ++i) {
    const Pose X_WB = random_pose(rng, 0.5);
    const double r = 0.1 + 0.2 * unit(rng);
    const Vec3 n = random_unit(rng);
    // The box point nearest the centre: the support point along n; the centre lies along n.
    const Vec3 surface_W = contactlab::support_W(Shape::box(h), X_WB, n);
    const Pose X_WS = pose_at(surface_W + (r * (1.0 - 0.05 * unit(rng))) * n);
    const ContactGeometry expected = contactlab::plugins::sphere_box(r, X_WS.p, h, X_WB);
    const ContactGeometry g_core = run_query(on_cores, Shape::sphere(r), X_WS, Shape::box(h), X_WB);
    const ContactGeometry g_support =
        run_query(in_support, Shape::sphere(r), X_WS, Shape::box(h), X_WB);
    worst_core = std::max(worst_core, std::abs(g_core.distance_m - expected.distance_m) / r);
    worst_support =
        std::max(worst_support, std::abs(g_support.distance_m - expected.distance_m) / r);
  }
  std::printf("mpr: shallow sphere–box depth error / r: core %.2e, support %.2e\n", worst_core,
              worst_support);
  CHECK(worst_core <= 1e-9);
}

TEST_CASE(
    "mpr: separated parallel cylinders side by side give the closed-form distance within 1e-9 "
    "of the size, the support-plane identity within 1e-9 of the size and the normal within 1e-4, "
    "every precision (1,000 poses each)",
    "[budget]") {
  // Parallel axes, z ranges overlapping: the distance is the axis distance minus both radii,
  // along the axis-to-axis direction (independent of MPR). On curved cores the normal converges
  // only as the square root of the distance gap (1e-12 relative; about 1e-5 measured), hence the
  // loose 1e-4 on the normal and the support-plane identity as its real check. The error relative
  // to the distance is printed: the closest-point completion can stop on a repeated support point
  // before its bounds meet on these parallel edges (a few 1e-9 of the distance on one pose).
  for (const std::string& precision : kPrecisions) {
    MprNarrowPhase mpr_phase = make_mpr(precision);
    std::mt19937_64 rng(2424);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::int64_t proven_separated = 0;
    double worst_relative = 0.0;
    for (int i = 0; i < 1000; ++i) {
      const double r_a = 0.1 + 0.3 * unit(rng), r_b = 0.1 + 0.3 * unit(rng);
      const double length_a = 0.5 + unit(rng), length_b = 0.5 + unit(rng);
      const double gap_m = (r_a + r_b) * (0.05 + unit(rng));  // 5% to 105% of the radii
      const double angle = 2.0 * 3.141592653589793 * unit(rng);
      const Vec3 across_A(std::cos(angle), std::sin(angle), 0.0);
      const double shift_z = 0.4 * std::min(length_a, length_b) * (2.0 * unit(rng) - 1.0);
      const Pose X_WA = random_pose(rng, 1.0);
      Pose X_WB = X_WA;
      X_WB.p = X_WA.transform_point((r_a + r_b + gap_m) * across_A + Vec3(0.0, 0.0, shift_z));
      const Shape a = Shape::cylinder(r_a, length_a), b = Shape::cylinder(r_b, length_b);
      const ContactGeometry g = run_query(mpr_phase, a, X_WA, b, X_WB);
      const mpr::Result& result = mpr_phase.last_result();
      INFO(precision << " pose " << i << " termination "
                     << mpr::termination_name(result.termination));
      const double size_m = std::max(length_a, length_b);
      REQUIRE(std::abs(g.distance_m - gap_m) <= 1e-9 * size_m);
      REQUIRE((g.normal_W - X_WA.R * across_A).norm() <= 1e-4);
      REQUIRE(std::abs(-g.distance_m - support_value(a, X_WA, b, X_WB, g.normal_W)) <=
              1e-9 * size_m);
      check_contract(g, 1e-12);
      REQUIRE_FALSE(result.iteration_limit_hit);
      worst_relative = std::max(worst_relative, std::abs(g.distance_m - gap_m) / gap_m);
      proven_separated += result.termination == mpr::Termination::separated_closest_point;
    }
    std::printf(
        "mpr %s: separated parallel cylinders: worst |d - gap| / gap %.2e; %lld of 1000 completed "
        "once separation was proven\n",
        precision.c_str(), worst_relative, static_cast<long long>(proven_separated));
    CHECK(mpr_phase.detailed_statistics()
              .terminations[static_cast<int>(mpr::Termination::separated_closest_point)] ==
          proven_separated);
    // How often the completion from the portal answers once separation is proven.
    report_work_figure("mpr.parallel_cylinders.proven_separated_percent", precision,
                       100.0 * static_cast<double>(proven_separated) / 1000.0);
  }
}

// ----- Warm start (temporal coherence)
// -------------------------------------------------------------

namespace {

/// A pair of shapes for the warm-start tests, with a size to scale tolerances and whether A ⊖ B
/// is a polytope (then MPR's answer does not depend on the start portal beyond rounding) or curved
/// in two directions (then the Newton finish answers penetrating pairs and warm-starts them; a
/// cone's rim against a hull curves A ⊖ B in one direction only, where Newton cannot step).
struct WarmCase {
  std::string name;
  Shape a, b;
  double size_m;
  bool polytope;
  bool newton = false;
};

}  // namespace

TEST_CASE(
    "mpr: warm starts along 50 trajectories per pair crossing contact give the cold answer within "
    "1e-12 of the size (curved pairs: where both end in Newton, else within 1e-6), and a repeated "
    "pose gives the same answer within 1e-12 of the size",
    "[budget]") {
  std::mt19937_64 rng(20261126);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  RandomHull hull_a(rng, 32), hull_b(rng, 48);
  const std::vector<WarmCase> cases = {
      {"box-box", Shape::box(Vec3(0.5, 0.35, 0.25)), Shape::box(Vec3(0.3, 0.4, 0.2)), 1.0, true},
      {"hull-hull", hull_a.shape(), hull_b.shape(), 2.0, true},
      {"box-hull", Shape::box(Vec3(0.5, 0.35, 0.25)), hull_b.shape(), 2.0, true},
      {"sphere-box", Shape::sphere(0.3), Shape::box(Vec3(0.5, 0.35, 0.25)), 1.0, true},
      {"cylinder-cylinder", Shape::cylinder(0.3, 1.0), Shape::cylinder(0.2, 0.8), 1.0, false, true},
      {"ellipsoid-box", Shape::ellipsoid(Vec3(0.5, 0.3, 0.2)), Shape::box(Vec3(0.4, 0.3, 0.2)), 1.0,
       false, true},
      {"cone-hull", Shape::cone(0.3, 0.0, 0.8), hull_a.shape(), 2.0, false}};
  for (const std::string& precision : kPrecisions) {
    for (const WarmCase& c : cases) {
      MprNarrowPhase warm_phase = make_mpr(precision);
      MprNarrowPhase cold_phase = make_mpr(precision, {{"warm_start", false}});
      double worst = 0.0;
      std::int64_t queries = 0, repeated_in_one = 0, repeated = 0, both_newton = 0;
      std::int64_t penetrating = 0, penetrating_warm = 0, repeated_penetrating = 0;
      std::int64_t ray_newton = 0;  // queries ending in the (penetrating) ray exit's Newton
      double worst_mixed = 0.0;     // curved pairs where one of the two did not end in Newton
      for (int trajectory = 0; trajectory < 50; ++trajectory) {
        // B starts 0.1 m away along a random direction and moves through A's surface to 5 % of
        // the size deep, turning slowly: 40 coherent steps.
        const Pose X_WA = random_pose(rng, 1.0);
        const Vec3 n = random_unit(rng);
        const Vec3 a_point = contactlab::support_W(c.a, X_WA, n);
        Pose X_WB = random_pose(rng, 0.0);
        const Vec3 b_offset = X_WB.p - contactlab::support_W(c.b, X_WB, -n);
        const Vec3 spin_axis = random_unit(rng);
        NarrowPhaseCache cache;
        for (int step = 0; step <= 40; ++step) {
          const double s = 0.1 - (0.1 + 0.05 * c.size_m) * step / 40.0;
          const Mat3 turn = Eigen::AngleAxisd(2e-3 * step, spin_axis).toRotationMatrix();
          Pose X = X_WB;
          X.R = turn * X_WB.R;
          X.p = a_point + s * n + turn * b_offset;
          ContactManifold warm_out, cold_out;
          NarrowPhaseCache cold_cache;
          warm_phase.query(c.a, X_WA, c.b, X, cache, warm_out);
          cold_phase.query(c.a, X_WA, c.b, X, cold_cache, cold_out);
          REQUIRE(cold_cache.tag == 0);  // warm_start: false never writes the cache
          const ContactGeometry& w = warm_out.points[0];
          const ContactGeometry& k = cold_out.points[0];
          INFO(precision << " " << c.name << " trajectory " << trajectory << " step " << step
                         << " warm " << w.distance_m << " cold " << k.distance_m);
          check_contract(w, 1e-12);
          const double difference = std::abs(w.distance_m - k.distance_m) / c.size_m;
          const bool newton = warm_phase.last_result().termination == mpr::Termination::newton &&
                              cold_phase.last_result().termination == mpr::Termination::newton;
          if (c.polytope || newton) {
            // Polytopes: the face the ray leaves through; Newton: the ray's exit point, certified.
            REQUIRE(difference <= 1e-12);
            worst = std::max(worst, difference);
            both_newton += newton;
          } else {
            // A refinement ending on a curved part moves with its start portal (the header's
            // 1e-8–1e-7 of the size), and the warm run's Newton finish may succeed where the cold
            // run's refinement ended first.
            REQUIRE(difference <= 1e-6);
            worst_mixed = std::max(worst_mixed, difference);
          }
          ++queries;
          const bool penetrates = k.distance_m < 0.0;
          penetrating += penetrates;
          penetrating_warm += penetrates && warm_phase.last_result().warm_started;
          ray_newton += warm_phase.last_result().termination == mpr::Termination::newton;
          if (step % 10 == 5) {
            // The same pose again: the cached portal is the one this query ended on.
            ContactManifold again;
            warm_phase.query(c.a, X_WA, c.b, X, cache, again);
            const mpr::Result& result = warm_phase.last_result();
            ++repeated;
            repeated_penetrating += penetrates;
            if (result.warm_started &&
                (c.polytope ? result.phase3_iterations == 1 : result.newton_iterations == 1)) {
              ++repeated_in_one;
            }
            REQUIRE(std::abs(again.points[0].distance_m - w.distance_m) <= 1e-12 * c.size_m);
          }
        }
      }
      const auto& stats = warm_phase.detailed_statistics();
      std::printf(
          "mpr %s warm start %s: %lld of %lld queries warm-started, worst |warm - cold| / size "
          "%.2e (%lld both ending in Newton; the others %.2e), repeated poses ending in one "
          "phase-3 iteration or Newton step %lld of %lld; penetrating %lld, warm-started %lld\n",
          precision.c_str(), c.name.c_str(), static_cast<long long>(stats.warm_starts),
          static_cast<long long>(stats.totals.queries), worst, static_cast<long long>(both_newton),
          worst_mixed, static_cast<long long>(repeated_in_one), static_cast<long long>(repeated),
          static_cast<long long>(penetrating), static_cast<long long>(penetrating_warm));
      const std::string where = precision + " " + c.name;
      const auto percent = [](std::int64_t part, std::int64_t whole) {
        return 100.0 * static_cast<double>(part) / static_cast<double>(whole);
      };
      if (c.polytope) {
        report_work_figure("mpr.warm_trajectories.polytope.warm_started_percent", where,
                           percent(stats.warm_starts, stats.totals.queries));
        report_work_figure("mpr.warm_trajectories.polytope.repeat_in_one_iteration_percent", where,
                           percent(repeated_in_one, repeated));
      } else if (c.newton) {
        // Curved: Newton answers (and warm-starts) penetrating pairs only.
        // (measured: 74–93 %, 86–100 % and 84–100 % over the three precisions)
        report_work_figure("mpr.warm_trajectories.curved.penetrating_warm_started_percent", where,
                           percent(penetrating_warm, penetrating));
        report_work_figure("mpr.warm_trajectories.curved.both_newton_percent_of_penetrating", where,
                           percent(both_newton, penetrating));
        // (every repeat ending in one warm Newton step, separated ones too, per penetrating repeat)
        report_work_figure(
            "mpr.warm_trajectories.curved.repeats_in_one_newton_step_per_penetrating", where,
            static_cast<double>(repeated_in_one) / static_cast<double>(repeated_penetrating));
        CHECK(both_newton > 0);  // the 1e-12 comparison of Newton endings above did run
      } else {
        // Curved in one direction only: the ray exit's Newton never ends (separated pairs, whose
        // Newton model is positive definite, may end in Newton and warm-start).
        CHECK(ray_newton == 0);
      }
      CHECK(cold_phase.detailed_statistics().warm_starts == 0);
    }
  }
}

TEST_CASE(
    "mpr: a warm start whose origin ray leaves A ⊖ B through a vertex ends in TC1 as the cold "
    "start "
    "does, the same answer within 1e-15 m") {
  // Sphere A's centre on the diagonal of box B through its corner h: A ⊖ B is B's core box
  // mirrored about the sphere's centre, and the origin ray leaves it exactly through that corner,
  // which is then the support point along the ray (TC1). The warm start skips that support and must
  // find TC1 at its end.
  const Vec3 h(0.5, 0.35, 0.25);
  const Shape a = Shape::sphere(0.5), b = Shape::box(h);
  const Mat3 R = Eigen::AngleAxisd(0.7, Vec3(0.2, -0.5, 0.8).normalized()).toRotationMatrix();
  const Pose X_WB{R, Vec3(0.1, -0.2, 0.3)};
  for (const std::string& precision : kPrecisions) {
    MprNarrowPhase warm_phase = make_mpr(precision);
    MprNarrowPhase cold_phase = make_mpr(precision, {{"warm_start", false}});
    for (const double t : {1.2, 1.3, 1.5}) {
      NarrowPhaseCache cache;
      ContactManifold warm_out, cold_out;
      // A nearby pose off the diagonal fills the cache with a portal on the corner's faces.
      const Pose near{Mat3::Identity(), X_WB.transform_point(t * h + Vec3(0.02, -0.03, 0.01))};
      warm_phase.query(a, near, b, X_WB, cache, warm_out);
      REQUIRE(cache.tag != 0);
      const Pose X_WA{Mat3::Identity(), X_WB.transform_point(t * h)};
      warm_phase.query(a, X_WA, b, X_WB, cache, warm_out);
      const mpr::Result warm = warm_phase.last_result();
      NarrowPhaseCache cold_cache;
      cold_phase.query(a, X_WA, b, X_WB, cold_cache, cold_out);
      INFO(precision << " t " << t);
      REQUIRE(cold_phase.last_result().termination == mpr::Termination::tc1);
      CHECK(warm.warm_started);
      CHECK(warm.termination == mpr::Termination::tc1);
      const ContactGeometry& w = warm_out.points[0];
      const ContactGeometry& k = cold_out.points[0];
      CHECK(std::abs(w.distance_m - k.distance_m) <= 1e-15);
      CHECK((w.normal_W - k.normal_W).norm() <= 1e-15);
      CHECK((w.point_a_W - k.point_a_W).norm() <= 1e-15);
      // The corner is |h|(t − 1) from the sphere's centre, whose radius is 0.5.
      CHECK(k.distance_m == Approx(h.norm() * (t - 1.0) - 0.5).margin(1e-14));
      CHECK(cache.tag != 0);  // a warm TC1 leaves its portal for the next query
    }
  }
}

TEST_CASE(
    "mpr: hull supports climbing from any cached vertex numbers (in range or not) give the cold "
    "answer within 1e-12 of the size",
    "[budget]") {
  std::mt19937_64 rng(11);
  RandomHull hull_a(rng, 40), hull_b(rng, 300);
  const Shape a = hull_a.shape(), b = hull_b.shape();
  MprNarrowPhase warm_phase = make_mpr("double");
  MprNarrowPhase cold_phase = make_mpr("double", {{"warm_start", false}});
  std::uniform_int_distribution<int> vertex(0, 700);
  std::int64_t warm_started = 0;
  for (int trajectory = 0; trajectory < 40; ++trajectory) {
    const Pose X_WA = random_pose(rng, 0.2);
    Pose X_WB = random_pose(rng, 1.0);
    const Vec3 step = 0.02 * random_unit(rng);
    NarrowPhaseCache cache;
    for (int k = 0; k < 20; ++k) {
      X_WB.p += step;
      // Vertex numbers from another pose, or beyond the hulls' (40 and 300 vertices).
      if (cache.tag != 0) {
        auto& entry = contactlab::cache_entry<mpr::CacheEntry>(cache, cache.tag);
        entry.hint_a = vertex(rng);
        entry.hint_b = vertex(rng);
      }
      ContactManifold warm_out, cold_out;
      NarrowPhaseCache cold_cache;
      warm_phase.query(a, X_WA, b, X_WB, cache, warm_out);
      warm_started += warm_phase.last_result().warm_started ? 1 : 0;
      cold_phase.query(a, X_WA, b, X_WB, cold_cache, cold_out);
      INFO("trajectory " << trajectory << " step " << k);
      check_contract(warm_out.points[0], 1e-12);
      REQUIRE(std::abs(warm_out.points[0].distance_m - cold_out.points[0].distance_m) <= 1e-12);
    }
  }
  CHECK(warm_started > 0);  // the cached vertex numbers were used
  report_work_figure("mpr.hull_climb_any_vertex.warm_started_percent", "",
                     100.0 * static_cast<double>(warm_started) / (40.0 * 20.0));
}

TEST_CASE(
    "mpr: a warm start from a corrupted or foreign cache (random, zero, NaN or huge directions) "
    "gives the cold answer within 1e-12 of the size") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  MprNarrowPhase warm_phase = make_mpr("double");
  MprNarrowPhase cold_phase = make_mpr("double", {{"warm_start", false}});
  RandomHull hull(rng, 40);
  const Shape a = Shape::box(Vec3(0.5, 0.35, 0.25)), b = hull.shape();
  for (int i = 0; i < 2000; ++i) {
    const Pose X_WA = random_pose(rng, 0.3), X_WB = random_pose(rng, 0.9);
    NarrowPhaseCache cache;
    const int kind = i % 5;
    // mpr's entry for this pair, or another plugin's bytes (read as empty).
    auto& entry = contactlab::cache_entry<mpr::CacheEntry>(
        cache, i % 2 == 0 ? mpr::kCacheTag.of(a.type, b.type)
                          : contactlab::NarrowPhaseCacheTag{"gjk_epa"}.of(a.type, b.type));
    for (double& value : entry.directions) {
      value = kind == 0   ? unit(rng)
              : kind == 1 ? 0.0
              : kind == 2 ? std::numeric_limits<double>::quiet_NaN()
              : kind == 3 ? 1e300 * unit(rng)
                          : unit(rng) * 1e-300;
    }
    // Flags and vertex numbers of any value.
    entry.hint_a = static_cast<std::uint32_t>(rng());
    entry.hint_b = static_cast<std::uint32_t>(rng());
    entry.cores = rng() % 2 == 0;
    entry.newton = rng() % 2 == 0;
    entry.newton_side = static_cast<std::uint8_t>(rng());
    entry.newton_separated = rng() % 2 == 0;
    entry.face = rng() % 2 == 0;
    ContactManifold warm_out, cold_out;
    NarrowPhaseCache cold_cache;
    warm_phase.query(a, X_WA, b, X_WB, cache, warm_out);
    cold_phase.query(a, X_WA, b, X_WB, cold_cache, cold_out);
    INFO("pose " << i << " kind " << kind);
    check_contract(warm_out.points[0], 1e-12);
    REQUIRE(std::abs(warm_out.points[0].distance_m - cold_out.points[0].distance_m) <= 1e-12);
  }
  CHECK(warm_phase.statistics().iteration_limit_hits == 0);
}

TEST_CASE(
    "mpr: the Newton finish ends on the origin ray's exit point (support set within 2e-12 m of "
    "the ray, the 1e-12 tolerance times the size, depth its support value), the refinement's "
    "answer within 1e-6 m, also on a cylinder's side line and a box's or a hull's edge",
    "[budget]") {
  // Curved pairs (cylinder–cylinder, ellipsoid–ellipsoid, frustum–ellipsoid, and a cylinder and a
  // frustum against a box, a cylinder against a hull with its vertex adjacency (qhull) and a beam
  // against a box, curved in one direction only) penetrating by up to 5 % of the size.
  // The certificate is checked with the SDK's supports in the world frame,
  // independently of the solver: along the reported normal n, the support point s of A ⊖ B lies on
  // the ray from r0 = c_A − c_B through the origin, and the distance is −s·n. The same pair refined
  // to TC2/TC3 without Newton (newton_finish: false) converges to that point only linearly.
  std::mt19937_64 rng(20261127);
  std::uniform_real_distribution<double> depth(0.0, 0.05);
  std::vector<Vec3> hull_points;
  for (int i = 0; i < 64; ++i) hull_points.push_back(0.4 * random_unit(rng));
  const auto hull64 = contactlab::core::build_convex_hull(hull_points);
  const std::vector<std::pair<Shape, Shape>> pairs = {
      {Shape::cylinder(0.3, 1.0), Shape::cylinder(0.2, 0.8)},
      {Shape::ellipsoid(Vec3(0.5, 0.3, 0.2)), Shape::ellipsoid(Vec3(0.2, 0.4, 0.3))},
      {Shape::cone(0.3, 0.1, 0.8), Shape::ellipsoid(Vec3(0.2, 0.4, 0.3))},
      {Shape::cylinder(0.3, 1.0), Shape::box(Vec3(0.4, 0.3, 0.2))},
      {Shape::cone(0.3, 0.1, 0.8), Shape::box(Vec3(0.4, 0.3, 0.2))},
      {Shape::cylinder(0.3, 1.0), Shape::convex_hull(&hull64->hull)},
      {Shape::beam(1.0, 0.3, 0.2), Shape::box(Vec3(0.4, 0.3, 0.2))}};
  for (const std::string& precision : kPrecisions) {
    MprNarrowPhase newton_phase = make_mpr(precision);
    MprNarrowPhase refine_phase = make_mpr(precision, {{"newton_finish", false}});
    for (const auto& [a, b] : pairs) {
      int newton_endings = 0, queries = 0, side_lines = 0;
      double worst_off_ray = 0.0, worst_versus_refinement = 0.0;
      for (int i = 0; i < 300; ++i) {
        const Pose X_WA = random_pose(rng, 2.0);
        Pose X_WB = random_pose(rng, 0.0);
        const Vec3 n = random_unit(rng);
        X_WB.p = contactlab::support_W(a, X_WA, n) -
                 X_WB.R * contactlab::support(b, X_WB.R.transpose() * -n) - depth(rng) * n;
        NarrowPhaseCache cache, refine_cache;
        ContactManifold out, refined;
        newton_phase.query(a, X_WA, b, X_WB, cache, out);
        refine_phase.query(a, X_WA, b, X_WB, refine_cache, refined);
        const ContactGeometry& g = out.points[0];
        INFO(precision << " " << shape_type_name(a.type) << "-" << shape_type_name(b.type)
                       << " pose " << i << " d " << g.distance_m);
        check_contract(g, 1e-12);
        ++queries;
        worst_versus_refinement = std::max(worst_versus_refinement,
                                           std::abs(g.distance_m - refined.points[0].distance_m));
        CHECK(std::abs(g.distance_m - refined.points[0].distance_m) <= 1e-6);
        if (newton_phase.last_result().termination != mpr::Termination::newton) continue;
        ++newton_endings;
        // The straight lines of the boundaries: a cylinder's side lines (its z axis), a box's
        // edges (any axis), a beam's flat sides (x) and round ends (z).
        const auto line_axes = [](const Shape& shape, const Pose& X, const Vec3& n) {
          std::vector<Vec3> axes;
          for (int k = 0; k < 3; ++k) {
            const bool straight = shape.type == ShapeType::box ||
                                  (shape.type == ShapeType::cylinder && k == 2) ||
                                  (shape.type == ShapeType::beam && k != 1);
            if (straight && std::abs(n.dot(X.R.col(k))) < 1e-9) axes.push_back(X.R.col(k));
          }
          return axes;
        };
        // A hull's support set along n: its vertices within 1e-9 m of the support plane.
        const auto hull_support_set = [](const Shape& shape, const Pose& X, const Vec3& n) {
          const ConvexHull& hull = *shape.hull;
          const Vec3 d = X.R.transpose() * n;
          double top = -std::numeric_limits<double>::infinity();
          for (std::uint32_t i = 0; i < hull.vertex_count; ++i)
            top = std::max(top, d.dot(hull.vertices[i]));
          std::vector<Vec3> set;
          for (std::uint32_t i = 0; i < hull.vertex_count; ++i) {
            if (d.dot(hull.vertices[i]) >= top - 1e-9) {
              set.push_back(X.transform_point(hull.vertices[i]));
            }
          }
          return set;
        };
        side_lines += !line_axes(a, X_WA, g.normal_W).empty() ||
                      !line_axes(b, X_WB, -g.normal_W).empty() ||
                      (b.type == ShapeType::convex_hull &&
                       hull_support_set(b, X_WB, -g.normal_W).size() == 2);
        // The support set of each shape along n: one point, a hull's vertices on the support
        // plane, or a straight line's two ends (picked by tilting n along the line, which leaves
        // the rim point's radial direction as it is) when n is normal to it.
        const auto support_set = [&](const Shape& shape, const Pose& X, const Vec3& n) {
          if (shape.type == ShapeType::convex_hull) return hull_support_set(shape, X, n);
          const std::vector<Vec3> axes = line_axes(shape, X, n);
          if (axes.size() == 1) {
            // (tilted by 1e-12: a beam's end moves by 1e-12 of its radius, a rim point not at all)
            return std::vector<Vec3>{contactlab::support_W(shape, X, n + 1e-12 * axes[0]),
                                     contactlab::support_W(shape, X, n - 1e-12 * axes[0])};
          }
          return std::vector<Vec3>{contactlab::support_W(shape, X, n)};
        };
        std::vector<Vec3> points;  // of A ⊖ B's support set along n
        for (const Vec3& p_a : support_set(a, X_WA, g.normal_W))
          for (const Vec3& p_b : support_set(b, X_WB, -g.normal_W)) points.push_back(p_a - p_b);
        // MPR's interior points (the centres; a hull's centroid).
        const Vec3 r0 = X_WA.transform_point(contactlab::interior_point(a)) -
                        X_WB.transform_point(contactlab::interior_point(b));
        const Vec3 u = -r0.normalized();
        // Distance from the origin ray's line to the support set (its points and the segments
        // between them; the set is a point or a segment here).
        double off_ray = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < points.size(); ++i) {
          const Vec3 o_i = (points[i] - r0).cross(u);
          off_ray = std::min(off_ray, o_i.norm());
          for (std::size_t j = i + 1; j < points.size(); ++j) {
            const Vec3 o_j = (points[j] - r0).cross(u);
            const Vec3 edge = o_j - o_i;
            const double t = std::clamp(-o_i.dot(edge) / edge.squaredNorm(), 0.0, 1.0);
            off_ray = std::min(off_ray, (o_i + t * edge).norm());
          }
        }
        worst_off_ray = std::max(worst_off_ray, off_ray);
        CHECK(off_ray <= 2e-12);  // tolerance × the size of A ⊖ B seen from r0 (below 2 m here)
        CHECK(std::abs(g.distance_m + points[0].dot(g.normal_W)) <= 1e-12);
        CHECK(g.distance_m < 0.0);
      }
      std::printf(
          "mpr %s Newton finish %s-%s: %d of %d queries ended in Newton (%d on a side line or "
          "an edge), support set off the ray at most %.2e m, |d - refined d| at most %.2e m\n",
          precision.c_str(), shape_type_name(a.type), shape_type_name(b.type), newton_endings,
          queries, side_lines, worst_off_ray, worst_versus_refinement);
      CHECK(newton_endings > 0);  // the certificate above was checked
      report_work_figure("mpr.newton_finish.newton_ending_percent",
                         precision + " " + shape_type_name(a.type) + "-" + shape_type_name(b.type),
                         100.0 * newton_endings / queries);
      if (a.type == ShapeType::cylinder || a.type == ShapeType::beam || b.type == ShapeType::box ||
          b.type == ShapeType::convex_hull) {
        CHECK(side_lines > 0);
      }
    }
  }
}

TEST_CASE(
    "mpr: curved pairs proven separated give the distance within 2e-12 m, and again warm from "
    "the cached normal (also after the closest-point completion)",
    "[budget]") {
  // B is placed at a known gap g along n from A: the planes normal to n through the two support
  // points separate the shapes by g, and those points are the closest, so the distance is g.
  std::mt19937_64 rng(20261128);
  std::uniform_real_distribution<double> gap(1e-3, 0.2);
  const std::vector<std::pair<Shape, Shape>> pairs = {
      {Shape::cylinder(0.3, 1.0), Shape::cylinder(0.2, 0.8)},
      {Shape::ellipsoid(Vec3(0.5, 0.3, 0.2)), Shape::ellipsoid(Vec3(0.2, 0.4, 0.3))},
      {Shape::cone(0.3, 0.1, 0.8), Shape::ellipsoid(Vec3(0.2, 0.4, 0.3))}};
  for (const std::string& precision : kPrecisions) {
    MprNarrowPhase mpr_phase = make_mpr(precision);
    for (const auto& [a, b] : pairs) {
      int newton_endings = 0, repeated_in_one = 0;
      double worst = 0.0;
      for (int i = 0; i < 300; ++i) {
        const Pose X_WA = random_pose(rng, 2.0);
        Pose X_WB = random_pose(rng, 0.0);
        const Vec3 n = random_unit(rng);
        const double g = gap(rng);
        X_WB.p = contactlab::support_W(a, X_WA, n) -
                 X_WB.R * contactlab::support(b, X_WB.R.transpose() * -n) + g * n;
        NarrowPhaseCache cache;
        ContactManifold out;
        mpr_phase.query(a, X_WA, b, X_WB, cache, out);
        const ContactGeometry& result = out.points[0];
        INFO(precision << " " << shape_type_name(a.type) << "-" << shape_type_name(b.type)
                       << " pose " << i << " d " << result.distance_m << " gap " << g);
        check_contract(result, 1e-12);
        CHECK(std::abs(result.distance_m - g) <= 2e-12);
        worst = std::max(worst, std::abs(result.distance_m - g));
        newton_endings +=
            mpr_phase.last_result().termination == mpr::Termination::newton_closest_point;
        // Every ending caches its normal (a Newton ending's or the completion's): the same pose
        // again starts the separated Newton there.
        ContactManifold again;
        mpr_phase.query(a, X_WA, b, X_WB, cache, again);
        CHECK(std::abs(again.points[0].distance_m - g) <= 2e-12);
        repeated_in_one +=
            mpr_phase.last_result().warm_started &&
            mpr_phase.last_result().termination == mpr::Termination::newton_closest_point &&
            mpr_phase.last_result().newton_iterations == 1;
      }
      std::printf(
          "mpr %s separated %s-%s: %d of 300 ended in Newton, %d of 300 again in one warm Newton "
          "step, |d - gap| at most %.2e m\n",
          precision.c_str(), shape_type_name(a.type), shape_type_name(b.type), newton_endings,
          repeated_in_one, worst);
      // How often Newton steps on the support function end the query, and end its repeat in one.
      const std::string where =
          precision + " " + shape_type_name(a.type) + "-" + shape_type_name(b.type);
      report_work_figure("mpr.separated_newton.newton_ending_percent", where,
                         100.0 * newton_endings / 300.0);
      report_work_figure("mpr.separated_newton.repeat_in_one_step_percent", where,
                         100.0 * repeated_in_one / 300.0);
    }
  }
}

TEST_CASE(
    "mpr: a flat face (a box's face, a cylinder's or frustum's cap) against a curved shape's "
    "point gives the distance within 2e-12 m along the face normal, separated or (where "
    "certified) penetrating, the same again warm within 1e-15 m, and no certificate beyond the "
    "face's edge",
    "[budget]") {
  // The face is A's or B's. The other shape's support point along the face's inward normal is put
  // above a point inside the face (within 80 % of its size) at signed gap s along the face's
  // outward normal n: separated (s > 0), the distance is s along n exactly; penetrating (s < 0),
  // moving B by −s along n separates the shapes, and the origin ray leaves A ⊖ B through that
  // face when its exit point lies in it (the certificate checks that: where it does not, MPR's
  // answer is another face's). The refinement alone (newton_finish: false, which also turns the
  // certificate off) converges to the same answer only linearly; it is the reference within 1e-6 m.
  // A point beyond the face's edge (at 1.2 of its size) must not be certified. The face points lie
  // inside the flat part of smoothed faces (80 % of the size, the core's face reaches 90 % here).
  struct Case {
    Shape a, b;
    bool face_of_b;  // the face is B's (else A's)
  };
  const auto smoothed = [](Shape shape, double radius_m) {
    shape.smoothing_radius_m = radius_m;
    return shape;
  };
  const std::vector<Case> cases = {
      {Shape::cylinder(0.3, 1.0), Shape::cylinder(0.2, 0.8), false},
      {Shape::cylinder(0.3, 1.0), Shape::ellipsoid(Vec3(0.2, 0.4, 0.3)), false},
      {Shape::box(Vec3(0.4, 0.3, 0.2)), Shape::cylinder(0.2, 0.8), false},
      {Shape::ellipsoid(Vec3(0.5, 0.3, 0.2)), Shape::box(Vec3(0.4, 0.3, 0.2)), true},
      {Shape::cone(0.3, 0.1, 0.8), Shape::cylinder(0.2, 0.8), true},
      {Shape::cone(0.3, 0.1, 0.8), Shape::ellipsoid(Vec3(0.2, 0.4, 0.3)), false},
      {Shape::ellipsoid(Vec3(0.5, 0.3, 0.2)), Shape::cone(0.3, 0.1, 0.8), true},
      // Smoothed (rounded) shapes: the certificate runs on the cores, the radii added after.
      {smoothed(Shape::box(Vec3(0.4, 0.3, 0.2)), 0.02), smoothed(Shape::cylinder(0.2, 0.8), 0.01),
       false}};
  std::mt19937_64 rng(20261129);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_real_distribution<double> gap(1e-3, 0.2);
  std::uniform_real_distribution<double> depth(0.0, 0.05);
  for (const std::string& precision : kPrecisions) {
    MprNarrowPhase mpr_phase = make_mpr(precision);
    MprNarrowPhase refine_phase = make_mpr(precision, {{"newton_finish", false}});
    for (const Case& c : cases) {
      const Shape& flat = c.face_of_b ? c.b : c.a;
      const Shape& other = c.face_of_b ? c.a : c.b;
      int certified[2] = {0, 0}, warm_certified[2] = {0, 0}, outside_certified = 0;
      double worst = 0.0;
      for (int i = 0; i < 400; ++i) {
        const bool separated = i % 2 == 0;
        const bool outside = i % 10 == 9;  // beyond the face's edge
        const Pose X_WF = random_pose(rng, 2.0);
        Pose X_WO = random_pose(rng, 0.0);
        // A face of the flat shape and a point on its plane, in its frame.
        Vec3 n_F = Vec3::Zero(), p_F = Vec3::Zero();
        const double reach = outside ? 1.2 : 0.8;
        if (flat.type == ShapeType::box) {
          const int axis = static_cast<int>(rng() % 3);
          const double sign = rng() % 2 == 0 ? 1.0 : -1.0;
          n_F[axis] = sign;
          for (int k = 0; k < 3; ++k) p_F[k] = reach * unit(rng) * flat.half_extents_m[k];
          if (outside) p_F[(axis + 1) % 3] = reach * flat.half_extents_m[(axis + 1) % 3];
          p_F[axis] = sign * flat.half_extents_m[axis];
        } else {  // a cylinder's or frustum's cap (a frustum's top radius at +z)
          const double sign = rng() % 2 == 0 ? 1.0 : -1.0;
          const double angle = 3.14159265358979 * unit(rng);
          const double radius = outside ? reach : reach * std::sqrt(std::abs(unit(rng)));
          const double cap_m =
              flat.type == ShapeType::cone && sign > 0.0 ? flat.top_radius_m : flat.radius_m;
          n_F = Vec3(0.0, 0.0, sign);
          p_F = Vec3(radius * cap_m * std::cos(angle), radius * cap_m * std::sin(angle),
                     sign * flat.half_length_m);
        }
        const Vec3 n = X_WF.R * n_F;  // the face's outward normal
        const double s = separated ? gap(rng) : -depth(rng);
        // The other shape's support point along −n at the face point plus s·n.
        X_WO.p = X_WF.transform_point(p_F) -
                 X_WO.R * contactlab::support(other, X_WO.R.transpose() * -n) + s * n;
        const Pose& X_WA = c.face_of_b ? X_WO : X_WF;
        const Pose& X_WB = c.face_of_b ? X_WF : X_WO;
        // A's outward normal of the contact: n for A's face, −n for B's.
        const Vec3 normal = c.face_of_b ? Vec3(-n) : n;
        NarrowPhaseCache cache, refine_cache;
        ContactManifold out, refined;
        mpr_phase.query(c.a, X_WA, c.b, X_WB, cache, out);
        refine_phase.query(c.a, X_WA, c.b, X_WB, refine_cache, refined);
        const ContactGeometry& g = out.points[0];
        INFO(precision << " " << shape_type_name(c.a.type) << "-" << shape_type_name(c.b.type)
                       << " pose " << i << " s " << s << " d " << g.distance_m << " outside "
                       << outside);
        check_contract(g, 1e-12);
        CHECK(std::abs(g.distance_m - refined.points[0].distance_m) <= 1e-6);
        const bool face = mpr_phase.last_result().termination == mpr::Termination::face;
        if (outside) {
          // (another face may be certified: the other shape's cap or face)
          outside_certified += face && g.normal_W.dot(normal) >= 1.0 - 1e-9;
          continue;
        }
        if (separated) CHECK(std::abs(g.distance_m - s) <= 2e-12);
        if (!face) continue;
        ++certified[separated];
        CHECK(std::abs(g.distance_m - s) <= 2e-12);
        CHECK(g.normal_W.dot(normal) >= 1.0 - 1e-12);
        worst = std::max(worst, std::abs(g.distance_m - s));
        // The same pose again: the cached face answers at once.
        ContactManifold again;
        mpr_phase.query(c.a, X_WA, c.b, X_WB, cache, again);
        const mpr::Result& warm = mpr_phase.last_result();
        CHECK(std::abs(again.points[0].distance_m - g.distance_m) <= 1e-15);
        warm_certified[separated] += warm.termination == mpr::Termination::face &&
                                     warm.warm_started && warm.phase3_iterations == 0;
      }
      std::printf(
          "mpr %s face %s-%s (%s face): certified %d of 200 separated, %d of 160 penetrating, "
          "warm %d and %d, beyond the edge %d of 40, |d - s| at most %.2e m\n",
          precision.c_str(), shape_type_name(c.a.type), shape_type_name(c.b.type),
          c.face_of_b ? "B's" : "A's", certified[1], certified[0], warm_certified[1],
          warm_certified[0], outside_certified, worst);
      CHECK(outside_certified == 0);
      CHECK(certified[0] > 0);  // penetrating poses were checked against s
      // How often the face certifies (of 200 separated poses, of 160 penetrating ones: the ray may
      // leave A ⊖ B through another face), and again warm without refinement.
      const std::string where = precision + " " + shape_type_name(c.a.type) + "-" +
                                shape_type_name(c.b.type) +
                                (c.a.smoothing_radius_m > 0.0 ? " smoothed" : "");
      report_work_figure("mpr.face_certificate.separated_percent", where,
                         100.0 * certified[1] / 200.0);
      report_work_figure("mpr.face_certificate.penetrating_percent", where,
                         100.0 * certified[0] / 160.0);
      report_work_figure(
          "mpr.face_certificate.warm_again_percent", where,
          100.0 * (warm_certified[0] + warm_certified[1]) / (certified[0] + certified[1]));
    }
  }
}
