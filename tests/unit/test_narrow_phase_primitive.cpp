// Unit tests of the primitive narrow phase (plugins/narrowphase-primitive): every result is
// compared with a closed form or a brute-force reference computed independently here, or with the
// SDK's support mappings.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <contactlab/geometry/swap.hpp>

#include "narrow_phase_test_support.hpp"
#include "primitive_narrow_phase.hpp"

using contactlab::ContactGeometry;
using contactlab::ContactManifold;
using contactlab::Mat3;
using contactlab::NarrowPhaseCache;
using contactlab::ParameterValues;
using contactlab::Pose;
using contactlab::Shape;
using contactlab::ShapeType;
using contactlab::Vec3;
using contactlab::plugins::BoxBoxWarmStart;
using contactlab::plugins::PrimitiveNarrowPhase;
using namespace contactlab::testing;

namespace {

constexpr int kSamples = 10000;
constexpr double kPi = std::numbers::pi;

Mat3 rotation_about(const Vec3& axis, double angle_rad) {
  return Eigen::AngleAxisd(angle_rad, axis.normalized()).toRotationMatrix();
}

ContactManifold run_manifold(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                             std::int64_t manifold_points = 4) {
  PrimitiveNarrowPhase narrow_phase{ParameterValues::defaults(
      PrimitiveNarrowPhase::schema(), {{"manifold_points", manifold_points}})};
  NarrowPhaseCache cache;
  ContactManifold out;
  narrow_phase.query(a, X_WA, b, X_WB, cache, out);
  return out;
}

ContactGeometry run_query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB) {
  PrimitiveNarrowPhase narrow_phase{contactlab::ParameterValues{}};
  NarrowPhaseCache cache;
  ContactManifold out;
  narrow_phase.query(a, X_WA, b, X_WB, cache, out);
  REQUIRE(out.count == 1);
  return out.points[0];
}

/// Every point of a manifold: the contract, the pair's normal, and points[0] the deepest.
void check_manifold(const ContactManifold& m, double tolerance) {
  REQUIRE(m.count >= 1);
  REQUIRE(m.count <= contactlab::max_manifold_points);
  for (int i = 0; i < m.count; ++i) {
    check_contract(m.points[i], tolerance);
    CHECK((m.points[i].normal_W - m.points[0].normal_W).norm() <= tolerance);
    CHECK(m.points[i].distance_m >= m.points[0].distance_m - tolerance);
  }
}

/// Separation of A and B along n_W from the SDK's support mappings (smoothing included):
/// min over B of n·x − max over A of n·x. Equals the signed distance exactly when n is the
/// pair's closest-points or minimum-translation direction.
double support_separation(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                          const Vec3& n_W) {
  return n_W.dot(contactlab::support_W(b, X_WB, -n_W)) -
         n_W.dot(contactlab::support_W(a, X_WA, n_W));
}

/// Signed distance from a point to a box of half extents h at pose X (negative inside).
double box_signed_distance(const Vec3& p_W, const Vec3& h, const Pose& X) {
  const Vec3 q = (X.R.transpose() * (p_W - X.p)).cwiseAbs() - h;
  return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
}

double point_segment_distance(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 d = b - a;
  const double dd = d.squaredNorm();
  const double t = dd > 0.0 ? std::clamp((p - a).dot(d) / dd, 0.0, 1.0) : 0.0;
  return (a + t * d - p).norm();
}

// ---- Segment references ----------------------------------------------------------------------

using Real = long double;
using Vec3L = Eigen::Matrix<Real, 3, 1>;

Real point_segment_distance_l(const Vec3L& p, const Vec3L& a, const Vec3L& b) {
  const Vec3L d = b - a;
  const Real dd = d.squaredNorm();
  Real t = dd > 0 ? (p - a).dot(d) / dd : Real(0);
  t = std::clamp(t, Real(0), Real(1));
  return (a + t * d - p).norm();
}

/// Golden-section search over s of the distance from p(s) to the segment q0–q1 in long double.
/// That distance is convex in s (a point moving on a line against a convex set), so the search
/// cannot be misled; 140 steps shrink the bracket to 0.618^140 ≈ 1e-29.
double golden_segment_distance(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1,
                               double* argmin_s = nullptr) {
  const Vec3L P0 = p0.cast<Real>(), P1 = p1.cast<Real>(), Q0 = q0.cast<Real>(),
              Q1 = q1.cast<Real>();
  auto f = [&](Real s) { return point_segment_distance_l(P0 + s * (P1 - P0), Q0, Q1); };
  const Real g = (std::sqrt(Real(5)) - 1) / 2;
  Real lo = 0, hi = 1;
  Real x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  Real f1 = f(x1), f2 = f(x2);
  for (int k = 0; k < 140; ++k) {
    if (f1 < f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = f(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = f(x2);
    }
  }
  const Real best = std::min({f1, f2, f(0), f(1)});
  if (argmin_s != nullptr) {
    *argmin_s = best == f(0) ? 0.0 : best == f(1) ? 1.0 : static_cast<double>(f1 < f2 ? x1 : x2);
  }
  return static_cast<double>(best);
}

/// Segment–segment distance from the normal equations of |p(s) − q(t)|² (Cramer's rule) and the
/// four clamped edges of [0, 1]², in long double: a different route from the plugin's.
double closed_form_segment_distance(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                    const Vec3& q1) {
  const Vec3L P0 = p0.cast<Real>(), Q0 = q0.cast<Real>();
  const Vec3L d1 = p1.cast<Real>() - P0, d2 = q1.cast<Real>() - Q0, r = P0 - Q0;
  const Real a = d1.dot(d1), e = d2.dot(d2), b = d1.dot(d2), c = d1.dot(r), f = d2.dot(r);
  auto at = [&](Real s, Real t) { return (P0 + s * d1 - Q0 - t * d2).norm(); };
  auto clamp01 = [](Real x) { return std::clamp(x, Real(0), Real(1)); };
  Real best = std::numeric_limits<Real>::infinity();
  best = std::min(best, at(0, e > 0 ? clamp01(f / e) : 0));
  best = std::min(best, at(1, e > 0 ? clamp01((b + f) / e) : 0));
  best = std::min(best, at(a > 0 ? clamp01(-c / a) : 0, 0));
  best = std::min(best, at(a > 0 ? clamp01((b - c) / a) : 0, 1));
  const Real det = a * e - b * b;
  if (det > Real(1e-24) * a * e) {
    const Real s = (b * f - c * e) / det, t = (a * f - b * c) / det;
    if (s >= 0 && s <= 1 && t >= 0 && t <= 1) best = std::min(best, at(s, t));
  }
  return static_cast<double>(best);
}

// ---- Box references --------------------------------------------------------------------------

std::array<Vec3, 8> box_corners(const Vec3& h, const Pose& X) {
  std::array<Vec3, 8> corners;
  for (int k = 0; k < 8; ++k) {
    corners[k] = X.transform_point(
        Vec3((k & 1) ? h.x() : -h.x(), (k & 2) ? h.y() : -h.y(), (k & 4) ? h.z() : -h.z()));
  }
  return corners;
}

/// The 15 candidate axes in world coordinates (degenerate cross products dropped).
std::vector<Vec3> sat_axes(const Pose& X_WA, const Pose& X_WB) {
  std::vector<Vec3> axes;
  for (int i = 0; i < 3; ++i) axes.push_back(X_WA.R.col(i));
  for (int j = 0; j < 3; ++j) axes.push_back(X_WB.R.col(j));
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const Vec3 c = Vec3(X_WA.R.col(i)).cross(Vec3(X_WB.R.col(j)));
      if (c.norm() > 1e-9) axes.push_back(c.normalized());
    }
  }
  return axes;
}

/// Separation of two corner sets along a unit axis: the gap between their projected intervals.
double projected_separation(const std::array<Vec3, 8>& a, const std::array<Vec3, 8>& b,
                            const Vec3& u) {
  double min_a = 1e300, max_a = -1e300, min_b = 1e300, max_b = -1e300;
  for (const Vec3& p : a) {
    min_a = std::min(min_a, u.dot(p));
    max_a = std::max(max_a, u.dot(p));
  }
  for (const Vec3& p : b) {
    min_b = std::min(min_b, u.dot(p));
    max_b = std::max(max_b, u.dot(p));
  }
  return std::max(min_b - max_a, min_a - max_b);
}

/// Independent 15-axis SAT from projected corners: the largest separation (for overlapping boxes
/// minus the penetration depth; for separated ones a lower bound of the distance).
double reference_sat(const Vec3& h_a, const Pose& X_WA, const Vec3& h_b, const Pose& X_WB) {
  const auto a = box_corners(h_a, X_WA);
  const auto b = box_corners(h_b, X_WB);
  double best = -1e300;
  for (const Vec3& u : sat_axes(X_WA, X_WB)) best = std::max(best, projected_separation(a, b, u));
  return best;
}

double point_rectangle_distance(const Vec3& p, const Vec3& centre, const Vec3& normal,
                                const Vec3& axis_1, double half_1, const Vec3& axis_2,
                                double half_2) {
  const Vec3 v = p - centre;
  const double dx = std::max(std::abs(v.dot(axis_1)) - half_1, 0.0);
  const double dy = std::max(std::abs(v.dot(axis_2)) - half_2, 0.0);
  const double dz = v.dot(normal);
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

/// Exact distance of separated boxes: minimum over corner–face (point–rectangle, 2 × 8 × 6) and
/// edge–edge (12 × 12, closed_form_segment_distance) feature pairs.
double reference_box_distance(const Vec3& h_a, const Pose& X_WA, const Vec3& h_b,
                              const Pose& X_WB) {
  double best = 1e300;
  auto corners_against_faces = [&](const Vec3& h_c, const Pose& X_c, const Vec3& h_f,
                                   const Pose& X_f) {
    for (const Vec3& corner : box_corners(h_c, X_c)) {
      for (int k = 0; k < 3; ++k) {
        const int p = (k + 1) % 3, q = (k + 2) % 3;
        for (const double side : {-1.0, 1.0}) {
          const Vec3 normal = side * X_f.R.col(k);
          best =
              std::min(best, point_rectangle_distance(corner, X_f.p + h_f[k] * normal, normal,
                                                      X_f.R.col(p), h_f[p], X_f.R.col(q), h_f[q]));
        }
      }
    }
  };
  corners_against_faces(h_a, X_WA, h_b, X_WB);
  corners_against_faces(h_b, X_WB, h_a, X_WA);
  auto edges = [](const Vec3& h, const Pose& X) {
    std::vector<std::array<Vec3, 2>> out;
    for (int k = 0; k < 3; ++k) {
      const int p = (k + 1) % 3, q = (k + 2) % 3;
      for (const double sp : {-1.0, 1.0}) {
        for (const double sq : {-1.0, 1.0}) {
          const Vec3 middle = X.p + sp * h[p] * X.R.col(p) + sq * h[q] * X.R.col(q);
          out.push_back({middle - h[k] * X.R.col(k), middle + h[k] * X.R.col(k)});
        }
      }
    }
    return out;
  };
  for (const auto& ea : edges(h_a, X_WA)) {
    for (const auto& eb : edges(h_b, X_WB)) {
      best = std::min(best, closed_form_segment_distance(ea[0], ea[1], eb[0], eb[1]));
    }
  }
  return best;
}

/// Signed distance of two boxes from the references: SAT when overlapping, features otherwise.
double reference_box_signed_distance(const Vec3& h_a, const Pose& X_WA, const Vec3& h_b,
                                     const Pose& X_WB) {
  const double sat = reference_sat(h_a, X_WA, h_b, X_WB);
  return sat > 0.0 ? reference_box_distance(h_a, X_WA, h_b, X_WB) : sat;
}

/// Independent sphere–box closed form in the box frame: distance outside from the per-axis excess
/// over the half extents; inside, the smallest slack to a face.
struct BoxReference {
  double distance_m;
  Vec3 normal_B;  // from the sphere to the box
  bool centre_inside;
};

BoxReference box_reference(const Vec3& c_B, const Vec3& h, double r) {
  Vec3 excess = Vec3::Zero();
  for (int i = 0; i < 3; ++i) {
    const double over = std::abs(c_B[i]) - h[i];
    if (over > 0.0) excess[i] = over * (c_B[i] > 0.0 ? 1.0 : -1.0);
  }
  const double outside_m = std::sqrt(excess.squaredNorm());
  if (outside_m > 0.0) return {outside_m - r, -excess / outside_m, false};
  int axis = 0;
  double slack = h[0] - std::abs(c_B[0]);
  for (int i = 1; i < 3; ++i) {
    if (h[i] - std::abs(c_B[i]) < slack) {
      slack = h[i] - std::abs(c_B[i]);
      axis = i;
    }
  }
  Vec3 n_B = Vec3::Zero();
  n_B[axis] = c_B[axis] >= 0.0 ? -1.0 : 1.0;
  return {-(slack + r), n_B, true};
}

/// Does `p` match one of `candidates` within `tolerance`?
bool matches_one_of(const Vec3& p, const std::vector<Vec3>& candidates, double tolerance) {
  return std::any_of(candidates.begin(), candidates.end(),
                     [&](const Vec3& c) { return (c - p).norm() <= tolerance; });
}

}  // namespace

TEST_CASE(
    "primitive: supports exactly the listed pairs in both orders, schema has manifold_points "
    "1..4 with default 4") {
  PrimitiveNarrowPhase narrow_phase{contactlab::ParameterValues{}};
  const auto schema = PrimitiveNarrowPhase::schema();
  REQUIRE(schema.size() == 1);
  CHECK(schema[0].name == "manifold_points");
  CHECK(schema[0].type == contactlab::ParameterType::integer);
  CHECK(std::get<std::int64_t>(schema[0].default_value) == 4);
  CHECK(schema[0].minimum == 1.0);
  CHECK(schema[0].maximum == 4.0);
  using T = ShapeType;
  const std::vector<std::pair<T, T>> expected = {
      {T::sphere, T::sphere},     {T::sphere, T::capsule},  {T::sphere, T::box},
      {T::sphere, T::half_space}, {T::capsule, T::capsule}, {T::capsule, T::half_space},
      {T::box, T::box},           {T::box, T::half_space},  {T::cylinder, T::half_space}};
  int supported = 0;
  for (int i = 0; i < contactlab::shape_type_count; ++i) {
    for (int j = 0; j < contactlab::shape_type_count; ++j) {
      const T a = static_cast<T>(i), b = static_cast<T>(j);
      const bool listed = std::any_of(expected.begin(), expected.end(), [&](const auto& pair) {
        return (pair.first == a && pair.second == b) || (pair.first == b && pair.second == a);
      });
      INFO(contactlab::shape_type_name(a) << "–" << contactlab::shape_type_name(b));
      CHECK(narrow_phase.supports(a, b) == listed);
      supported += listed ? 1 : 0;
    }
  }
  CHECK(supported == 15);  // 3 same-type pairs + 6 mixed pairs in two orders
}

TEST_CASE("primitive: unsupported pairs throw SimulationError naming the pair") {
  const Shape box = Shape::box(Vec3(1, 1, 1));
  const Shape ellipsoid = Shape::ellipsoid(Vec3(1, 2, 3));
  const Shape floor = Shape::half_space(Vec3::UnitZ());
  CHECK_THROWS_AS(run_query(ellipsoid, Pose{}, box, Pose{}), contactlab::SimulationError);
  CHECK_THROWS_WITH(run_query(ellipsoid, Pose{}, box, Pose{}), Catch::Contains("ellipsoid–box"));
  CHECK_THROWS_WITH(run_query(floor, Pose{}, floor, Pose{}),
                    Catch::Contains("half_space–half_space"));
  CHECK_THROWS_WITH(run_query(Shape::capsule(1, 1), Pose{}, box, Pose{}),
                    Catch::Contains("capsule–box"));
}

TEST_CASE("primitive: manifold_points outside 1..4 is refused, naming the value") {
  for (const std::int64_t points : {std::int64_t{0}, std::int64_t{5}}) {
    const ParameterValues params(
        std::map<std::string, contactlab::ParameterValue>{{"manifold_points", points}});
    CHECK_THROWS_WITH(
        PrimitiveNarrowPhase(params),
        Catch::Contains("manifold_points must be 1..4, got " + std::to_string(points)));
  }
}

TEST_CASE(
    "primitive: sphere–box distance equals the exact closed form within 1e-12 on 10,000 "
    "seeded poses (separated, shallow, deep, centre inside), normal within 1e-9") {
  std::mt19937_64 rng(0xC0FFEE);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_real_distribution<double> symmetric(-1.0, 1.0);
  int separated = 0, shallow = 0, deep = 0, inside = 0;
  for (int i = 0; i < kSamples; ++i) {
    const double r = 0.05 + 0.95 * unit(rng);
    const Vec3 h(0.1 + 1.9 * unit(rng), 0.1 + 1.9 * unit(rng), 0.1 + 1.9 * unit(rng));
    // The centre in the box frame, drawn per category.
    Vec3 c_B;
    const int category = i % 4;
    if (category <= 1) {
      // Outside: per axis inside the slab, above or below it; at least one axis outside.
      const double max_offset = category == 0 ? 3.0 * r : 0.55 * r;  // separated / shallow
      const int forced = static_cast<int>(3.0 * unit(rng)) % 3;
      for (int k = 0; k < 3; ++k) {
        const int region = k == forced ? 1 + static_cast<int>(2.0 * unit(rng)) % 2
                                       : static_cast<int>(3.0 * unit(rng)) % 3;
        const double offset = max_offset * unit(rng);
        c_B[k] =
            region == 0 ? h[k] * symmetric(rng) : (region == 1 ? h[k] + offset : -h[k] - offset);
      }
    } else if (category == 2) {
      c_B = h.cwiseProduct(Vec3(symmetric(rng), symmetric(rng), symmetric(rng)));
    } else {
      // Just below one face.
      c_B = h.cwiseProduct(Vec3(symmetric(rng), symmetric(rng), symmetric(rng)));
      const int axis = static_cast<int>(3.0 * unit(rng)) % 3;
      c_B[axis] = (unit(rng) < 0.5 ? 1.0 : -1.0) * (h[axis] - 0.1 * h.minCoeff() * unit(rng));
    }
    const Pose X_WB = random_pose(rng, 5.0);
    const Vec3 c_W = X_WB.transform_point(c_B);
    const BoxReference expected = box_reference(c_B, h, r);
    if (expected.centre_inside) {
      ++inside;
    } else if (expected.distance_m > 0.0) {
      ++separated;
    } else if (expected.distance_m > -r) {
      ++shallow;
    }
    if (expected.distance_m < -r) ++deep;

    const ContactGeometry g = contactlab::plugins::sphere_box(r, c_W, h, X_WB);
    INFO("sample " << i << " c_B = " << c_B.transpose() << " h = " << h.transpose()
                   << " r = " << r);
    REQUIRE(std::abs(g.distance_m - expected.distance_m) <= 1e-12);
    REQUIRE((g.normal_W - X_WB.R * expected.normal_B).norm() <= 1e-9);
    check_contract(g, 1e-12);
    // Witness on the sphere, and on the box boundary (in the box frame: inside, one face active).
    CHECK(std::abs((g.point_a_W - c_W).norm() - r) <= 1e-12);
    const Vec3 point_b_B = X_WB.R.transpose() * (g.point_b_W - X_WB.p);
    CHECK(std::abs((point_b_B.cwiseAbs() - h).maxCoeff()) <= 1e-12);
  }
  CHECK(separated >= 2000);
  CHECK(shallow >= 2000);
  CHECK(inside >= 4000);
  CHECK(deep >= 4000);
}

TEST_CASE("primitive: sphere–sphere equals the closed form within 1e-12 on 10,000 seeded poses") {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> gaussian(0.0, 1.0);
  int separated = 0, shallow = 0, deep = 0;
  for (int i = 0; i < kSamples; ++i) {
    const double r_a = 0.05 + unit(rng);
    const double r_b = 0.05 + unit(rng);
    const Vec3 c_a = 5.0 * Vec3(gaussian(rng), gaussian(rng), gaussian(rng));
    const Vec3 direction = Vec3(gaussian(rng), gaussian(rng), gaussian(rng)).normalized();
    // Centre distance from 1e-3 m (almost concentric) to well separated.
    const double centre_distance = (1e-3 + 2.0 * unit(rng)) * (r_a + r_b);
    const Vec3 c_b = c_a + centre_distance * direction;
    const Vec3 delta = c_b - c_a;
    const double length =
        std::sqrt(delta.x() * delta.x() + delta.y() * delta.y() + delta.z() * delta.z());
    const double expected = length - (r_a + r_b);
    if (expected > 0.0) {
      ++separated;
    } else if (expected > -std::min(r_a, r_b)) {
      ++shallow;
    } else {
      ++deep;
    }
    const ContactGeometry g = contactlab::plugins::sphere_sphere(r_a, c_a, r_b, c_b);
    REQUIRE(std::abs(g.distance_m - expected) <= 1e-12);
    REQUIRE((g.normal_W - delta / length).norm() <= 1e-12);
    check_contract(g, 1e-12);
    CHECK(std::abs((g.point_a_W - c_a).norm() - r_a) <= 1e-12);
    CHECK(std::abs((g.point_b_W - c_b).norm() - r_b) <= 1e-12);
  }
  CHECK(separated >= 3000);
  CHECK(shallow >= 1000);
  CHECK(deep >= 1000);
}

TEST_CASE("primitive: concentric spheres use +z of world as the normal, distance −(r_A + r_B)") {
  const Vec3 c(0.3, -0.2, 1.5);
  const ContactGeometry g =
      run_query(Shape::sphere(0.5), pose_at(c), Shape::sphere(0.25), pose_at(c));
  CHECK(g.distance_m == -0.75);
  CHECK(g.normal_W == Vec3::UnitZ());
  CHECK(g.point_a_W == c + 0.5 * Vec3::UnitZ());
  CHECK(g.point_b_W == c - 0.25 * Vec3::UnitZ());
  check_contract(g, 1e-15);
}

TEST_CASE(
    "primitive: sphere–half-space equals n_W·(c − p_WG) − r within 1e-12 on 10,000 seeded "
    "poses, normal +n_W from the half-space to the sphere") {
  std::mt19937_64 rng(777);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> gaussian(0.0, 1.0);
  for (int i = 0; i < kSamples; ++i) {
    const double r = 0.05 + unit(rng);
    const Vec3 n_G = Vec3(gaussian(rng), gaussian(rng), gaussian(rng)).normalized();
    const Pose X_WG = random_pose(rng, 5.0);
    const Vec3 n_W = X_WG.R * n_G;
    // Height of the centre above the plane from −2r (deep) to +2r (separated).
    const Vec3 tangent = n_W.unitOrthogonal();
    const Vec3 c_W = X_WG.p + (4.0 * unit(rng) - 2.0) * r * n_W + 3.0 * gaussian(rng) * tangent;
    const double expected = n_W.dot(c_W - X_WG.p) - r;

    const Shape floor = Shape::half_space(n_G);
    const Pose X_WS = pose_at(c_W);
    const ContactGeometry floor_first = run_query(floor, X_WG, Shape::sphere(r), X_WS);
    REQUIRE(std::abs(floor_first.distance_m - expected) <= 1e-12);
    REQUIRE((floor_first.normal_W - n_W).norm() <= 1e-12);
    check_contract(floor_first, 1e-12);
    // point_a on the plane, point_b on the sphere.
    CHECK(std::abs(n_W.dot(floor_first.point_a_W - X_WG.p)) <= 1e-12);
    CHECK(std::abs((floor_first.point_b_W - c_W).norm() - r) <= 1e-12);

    const ContactGeometry sphere_first = run_query(Shape::sphere(r), X_WS, floor, X_WG);
    REQUIRE(std::abs(sphere_first.distance_m - expected) <= 1e-12);
    REQUIRE((sphere_first.normal_W + n_W).norm() <= 1e-12);
    check_contract(sphere_first, 1e-12);
  }
}

TEST_CASE(
    "primitive: swapping A and B negates the normal and swaps the witness points on 10,000 "
    "seeded poses of every supported pair, within 1e-14 for mixed and 1e-9 for same-type pairs") {
  std::mt19937_64 rng(4242);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto random_shape = [&](ShapeType type) {
    switch (type) {
      case ShapeType::sphere:
        return Shape::sphere(0.1 + unit(rng));
      case ShapeType::capsule:
        return Shape::capsule(0.1 + 0.5 * unit(rng), 2.0 * unit(rng));
      case ShapeType::box: {
        Shape box = Shape::box(Vec3(0.2 + unit(rng), 0.2 + unit(rng), 0.2 + unit(rng)));
        box.smoothing_radius_m = unit(rng) < 0.5 ? 0.0 : 0.15 * unit(rng);
        return box;
      }
      case ShapeType::cylinder:
        return Shape::cylinder(0.2 + unit(rng), 0.4 + 2.0 * unit(rng));
      default:
        return Shape::half_space(random_unit(rng));
    }
  };
  using T = ShapeType;
  const std::pair<T, T> pairs[] = {
      {T::sphere, T::sphere},     {T::sphere, T::capsule},  {T::sphere, T::box},
      {T::sphere, T::half_space}, {T::capsule, T::capsule}, {T::capsule, T::half_space},
      {T::box, T::box},           {T::box, T::half_space},  {T::cylinder, T::half_space}};
  for (int i = 0; i < kSamples; ++i) {
    const auto& pair = pairs[i % 9];
    const Shape a = random_shape(pair.first);
    const Shape b = random_shape(pair.second);
    const Pose X_WA = random_pose(rng, 1.0);
    const Pose X_WB = random_pose(rng, 1.0);
    const double tolerance = pair.first == pair.second ? 1e-9 : 1e-14;
    const ContactManifold ab = run_manifold(a, X_WA, b, X_WB);
    const ContactManifold ba = run_manifold(b, X_WB, a, X_WA);
    INFO("sample " << i << ": " << contactlab::shape_type_name(a.type) << "–"
                   << contactlab::shape_type_name(b.type));
    REQUIRE(ab.count == ba.count);
    // The deepest point first; the others may come in another order (equal triangle areas).
    for (int k = 0; k < ab.count; ++k) {
      bool found = false;
      for (int l = k == 0 ? 0 : 1; l < (k == 0 ? 1 : ba.count) && !found; ++l) {
        found = std::abs(ab.points[k].distance_m - ba.points[l].distance_m) <= tolerance &&
                (ab.points[k].normal_W + ba.points[l].normal_W).norm() <= tolerance &&
                (ab.points[k].point_a_W - ba.points[l].point_b_W).norm() <= tolerance &&
                (ab.points[k].point_b_W - ba.points[l].point_a_W).norm() <= tolerance;
      }
      INFO("point " << k);
      REQUIRE(found);
    }
  }
}

TEST_CASE("primitive: sphere–box inside ties resolve to the lowest axis, + face before −") {
  const Pose X_WB = pose_at(Vec3(1, 2, 3));
  SECTION("sphere at the centre of a cube exits through +x") {
    const Shape cube = Shape::box(Vec3(1, 1, 1));
    const ContactGeometry g = run_query(Shape::sphere(0.5), X_WB, cube, X_WB);
    CHECK(g.distance_m == -1.5);
    CHECK(g.normal_W == -Vec3::UnitX());  // from the sphere to the box
    CHECK(g.point_b_W == Vec3(2, 2, 3));
    CHECK(g.point_a_W == Vec3(0.5, 2, 3));
    const ContactGeometry swapped = run_query(cube, X_WB, Shape::sphere(0.5), X_WB);
    CHECK(swapped.normal_W == Vec3::UnitX());  // from the box to the sphere: the face normal
  }
  SECTION("tie between +y and −z picks +y") {
    const Shape box = Shape::box(Vec3(2, 1, 1));
    const ContactGeometry g = run_query(Shape::sphere(0.1), pose_at(Vec3(1, 2.5, 2.5)), box, X_WB);
    CHECK(g.distance_m == Approx(-0.6).margin(1e-15));
    CHECK(g.normal_W == -Vec3::UnitY());
  }
  SECTION("tie between +y and −y picks +y") {
    const Shape box = Shape::box(Vec3(3, 1, 2));
    const ContactGeometry g = run_query(Shape::sphere(0.2), X_WB, box, X_WB);
    CHECK(g.distance_m == Approx(-1.2).margin(1e-15));
    CHECK(g.normal_W == -Vec3::UnitY());
  }
}

TEST_CASE(
    "primitive: sphere–box is continuous (within 1e-12) as the centre crosses a face, and "
    "exactly 0 when touching") {
  const Shape box = Shape::box(Vec3(1, 0.5, 0.25));
  const Shape sphere = Shape::sphere(0.3);
  // Binary-exact numbers, so that "touching" is exact: 1.25 − 1 = 0.25.
  const ContactGeometry touching =
      run_query(Shape::sphere(0.25), pose_at(Vec3(1.25, 0.125, 0.125)), box, Pose{});
  CHECK(touching.distance_m == 0.0);
  CHECK(touching.normal_W == -Vec3::UnitX());
  const ContactGeometry on_face = run_query(sphere, pose_at(Vec3(1.0, 0.1, 0.1)), box, Pose{});
  CHECK(on_face.distance_m == -0.3);
  CHECK(on_face.normal_W == -Vec3::UnitX());
  const ContactGeometry above = run_query(sphere, pose_at(Vec3(1.0 + 1e-9, 0.1, 0.1)), box, Pose{});
  const ContactGeometry below = run_query(sphere, pose_at(Vec3(1.0 - 1e-9, 0.1, 0.1)), box, Pose{});
  CHECK(above.distance_m == Approx(-0.3 + 1e-9).margin(1e-12));
  CHECK(below.distance_m == Approx(-0.3 - 1e-9).margin(1e-12));
  CHECK((above.normal_W - below.normal_W).norm() <= 1e-12);
  CHECK((above.point_b_W - below.point_b_W).norm() <= 1e-8);
}

TEST_CASE("primitive: query leaves the warm-start cache untouched for pairs other than box–box") {
  PrimitiveNarrowPhase narrow_phase{contactlab::ParameterValues{}};
  NarrowPhaseCache cache;
  contactlab::ContactManifold out;
  narrow_phase.query(Shape::sphere(1), Pose{}, Shape::box(Vec3(1, 1, 1)), pose_at(Vec3(3, 0, 0)),
                     cache, out);
  CHECK(cache.tag == 0);
  CHECK(std::all_of(cache.bytes.begin(), cache.bytes.end(),
                    [](std::byte x) { return x == std::byte{0}; }));
  CHECK(out.count == 1);
  CHECK(out.points[0].distance_m == 1.0);
}

// ---- Sphere–capsule and capsule–capsule ------------------------------------------------------

TEST_CASE(
    "primitive: sphere–capsule equals the point–segment closed form within 1e-12 m on 10,000 "
    "seeded poses, in both orders") {
  std::mt19937_64 rng(31337);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int separated = 0, shallow = 0, deep = 0;
  for (int i = 0; i < kSamples; ++i) {
    const double r_s = 0.05 + 0.5 * unit(rng);
    const double r_c = 0.05 + 0.5 * unit(rng);
    const double half_length = i % 10 == 0 ? 0.0 : 1.5 * unit(rng);
    const Shape sphere = Shape::sphere(r_s);
    const Shape capsule = Shape::capsule(r_c, 2.0 * half_length);
    const Pose X_WC = random_pose(rng, 2.0);
    // A point near the capsule (also beyond the ends), moved along the ray from its closest point
    // of the segment (which stays the closest point) to a target distance: separated, shallow
    // (depth up to 5% of the smaller radius) or deep (down to the centre on the segment).
    const double along = (3.0 * unit(rng) - 1.5) * (half_length + 0.2);
    const double angle = 2.0 * kPi * unit(rng);
    const Vec3 x_C(std::cos(angle), std::sin(angle), along);
    const Vec3 closest_C(0, 0, std::clamp(along, -half_length, half_length));
    const Vec3 ray_C = (x_C - closest_C).normalized();
    const double touching = r_s + r_c;
    const double target = i % 3 == 0   ? touching * (1.0 + unit(rng))
                          : i % 3 == 1 ? touching - 0.05 * std::min(r_s, r_c) * unit(rng)
                                       : touching * unit(rng);
    const Vec3 c_W = X_WC.transform_point(closest_C + target * ray_C);
    const Vec3 end0_W = X_WC.transform_point(Vec3(0, 0, -half_length));
    const Vec3 end1_W = X_WC.transform_point(Vec3(0, 0, half_length));
    const double expected = point_segment_distance(c_W, end0_W, end1_W) - r_s - r_c;
    if (expected > 0.0) {
      ++separated;
    } else if (expected > -0.05 * std::min(r_s, r_c)) {
      ++shallow;
    } else {
      ++deep;
    }

    const ContactGeometry g = run_query(sphere, pose_at(c_W), capsule, X_WC);
    INFO("sample " << i);
    REQUIRE(std::abs(g.distance_m - expected) <= 1e-12);
    check_contract(g, 1e-12);
    CHECK(std::abs((g.point_a_W - c_W).norm() - r_s) <= 1e-12);
    CHECK(std::abs(point_segment_distance(g.point_b_W, end0_W, end1_W) - r_c) <= 1e-12);
    // The separation along the normal, from the SDK's supports, is the distance: first-order
    // sensitive to the normal's direction (rounding / distance from the axis), so checked 1e-3 m
    // or more from the axis.
    if (target > 1e-3) {
      CHECK(std::abs(support_separation(sphere, pose_at(c_W), capsule, X_WC, g.normal_W) -
                     expected) <= 1e-11);
    }
    const ContactGeometry swapped = run_query(capsule, X_WC, sphere, pose_at(c_W));
    REQUIRE(swapped.distance_m == g.distance_m);
    REQUIRE(swapped.normal_W == -g.normal_W);
  }
  CHECK(separated >= 3000);
  CHECK(shallow >= 3000);
  CHECK(deep >= 3000);
}

TEST_CASE("primitive: a sphere centred on a capsule's axis leaves along the capsule's +x axis") {
  const Pose X_WC = make_pose(rotation_about(Vec3(1, 2, 3), 0.7), Vec3(0.5, -1, 2));
  const Vec3 c_W = X_WC.transform_point(Vec3(0, 0, 0.3));
  const ContactGeometry g =
      run_query(Shape::sphere(0.2), pose_at(c_W), Shape::capsule(0.1, 2.0), X_WC);
  CHECK(g.distance_m == Approx(-0.3).margin(1e-15));
  CHECK((g.normal_W + X_WC.R.col(0)).norm() <= 1e-15);
  check_contract(g, 1e-15);
}

TEST_CASE(
    "primitive: capsule–capsule equals a golden-section segment reference within 1e-12 m on "
    "10,000 seeded poses: separated, shallow, deep, parallel and nearly parallel") {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int separated = 0, shallow = 0, deep = 0;
  double worst_error = 0.0;
  for (int i = 0; i < kSamples; ++i) {
    const double r_a = 0.05 + 0.35 * unit(rng);
    const double r_b = 0.05 + 0.35 * unit(rng);
    const double half_a = i % 17 == 0 ? 0.0 : unit(rng);
    const double half_b = unit(rng);
    const Shape a = Shape::capsule(r_a, 2.0 * half_a);
    const Shape b = Shape::capsule(r_b, 2.0 * half_b);
    const Pose X_WA = random_pose(rng, 1.0);
    Pose X_WB;
    const int orientation_kind = i % 10;
    if (orientation_kind == 0) {
      X_WB.R = X_WA.R;  // parallel
    } else if (orientation_kind == 1) {
      X_WB.R = X_WA.R * rotation_about(Vec3::UnitX(), kPi);  // antiparallel
    } else if (orientation_kind <= 3) {
      // Nearly parallel: 1e-12 to 1e-3 rad.
      X_WB.R = X_WA.R * rotation_about(random_unit(rng), std::pow(10.0, -12.0 + 9.0 * unit(rng)));
    } else {
      X_WB.R = random_rotation(rng);
    }
    // Far enough that the segments are at least 1 m apart, then moved along the closest
    // direction to the target distance (translating along it changes the distance by exactly the
    // translation while the segments stay apart).
    X_WB.p = X_WA.p + (half_a + half_b + 1.0 + unit(rng)) * random_unit(rng);
    auto ends = [](const Shape& s, const Pose& X) {
      return std::array<Vec3, 2>{X.transform_point(Vec3(0, 0, -s.half_length_m)),
                                 X.transform_point(Vec3(0, 0, s.half_length_m))};
    };
    auto ea = ends(a, X_WA), eb = ends(b, X_WB);
    // The closest direction from the reference: the nearest point of B's segment to the closest
    // point of A's.
    double best_s = 0.0;
    const double core_distance_0 = golden_segment_distance(ea[0], ea[1], eb[0], eb[1], &best_s);
    const Vec3 on_a = ea[0] + best_s * (ea[1] - ea[0]);
    const Vec3 axis_b = eb[1] - eb[0];
    const double t = axis_b.squaredNorm() > 0.0
                         ? std::clamp((on_a - eb[0]).dot(axis_b) / axis_b.squaredNorm(), 0.0, 1.0)
                         : 0.0;
    const Vec3 direction = (eb[0] + t * axis_b - on_a).normalized();
    const int category = i % 3;
    const double min_radius = std::min(r_a, r_b);
    double target = 0.0;
    if (category == 0) {
      target = r_a + r_b + 0.001 + unit(rng);
    } else if (category == 1) {
      target = r_a + r_b - 0.05 * min_radius * std::pow(10.0, -3.0 * unit(rng));
    } else {
      target = unit(rng) * (r_a + r_b - 0.05 * min_radius);
    }
    X_WB.p += (target - core_distance_0) * direction;
    eb = ends(b, X_WB);
    const double reference_core = golden_segment_distance(ea[0], ea[1], eb[0], eb[1]);
    const double expected = reference_core - r_a - r_b;
    if (expected > 0.0) {
      ++separated;
    } else if (expected >= -0.05 * min_radius) {
      ++shallow;
    } else {
      ++deep;
    }

    const ContactGeometry g = run_query(a, X_WA, b, X_WB);
    INFO("sample " << i << " orientation kind " << orientation_kind);
    worst_error = std::max(worst_error, std::abs(g.distance_m - expected));
    REQUIRE(std::abs(g.distance_m - expected) <= 1e-12);
    check_contract(g, 1e-12);
    CHECK(std::abs(point_segment_distance(g.point_a_W, ea[0], ea[1]) - r_a) <= 1e-12);
    CHECK(std::abs(point_segment_distance(g.point_b_W, eb[0], eb[1]) - r_b) <= 1e-12);
    // The separation along the normal, from the SDK's supports, is the distance: first-order
    // sensitive to the normal's direction (rounding / distance of the axes; for nearly parallel
    // axes also the position along them) where a support switches ends, so checked within 1e-10
    // for axes 1e-3 m or more apart.
    if (reference_core > 1e-3) {
      CHECK(std::abs(support_separation(a, X_WA, b, X_WB, g.normal_W) - expected) <= 1e-10);
    }
    // The construction agrees with the reference (a check of the test itself).
    CHECK(std::abs(reference_core - target) <= 1e-9);
  }
  INFO("worst |error| " << worst_error << " m");
  CHECK(worst_error <= 1e-12);
  CHECK(separated >= 3000);
  CHECK(shallow >= 3000);
  CHECK(deep >= 3000);
}

TEST_CASE(
    "primitive: parallel capsules contact at the middle of their overlap, collinear and crossing "
    "ones leave along a perpendicular, exact to 1e-15 m") {
  const Shape a = Shape::capsule(0.1, 2.0);  // segment z in [−1, 1]
  const Shape b = Shape::capsule(0.2, 2.0);
  const Pose X_WA = Pose{};
  SECTION("parallel, offset along the axis: the middle of the overlap z in [−0.5, 1]") {
    const ContactGeometry g = run_query(a, X_WA, b, pose_at(Vec3(0.25, 0, 0.5)));
    CHECK(g.distance_m == Approx(-0.05).margin(1e-15));
    CHECK((g.normal_W - Vec3::UnitX()).norm() <= 1e-15);
    CHECK((g.point_a_W - Vec3(0.1, 0, 0.25)).norm() <= 1e-15);
    CHECK((g.point_b_W - Vec3(0.05, 0, 0.25)).norm() <= 1e-15);
  }
  SECTION("antiparallel: the same contact") {
    const Pose X_WB = make_pose(rotation_about(Vec3::UnitY(), kPi), Vec3(0.25, 0, 0.5));
    const ContactGeometry g = run_query(a, X_WA, b, X_WB);
    CHECK(g.distance_m == Approx(-0.05).margin(1e-15));
    CHECK((g.point_a_W - Vec3(0.1, 0, 0.25)).norm() <= 1e-15);
  }
  SECTION("parallel, end to end: the facing endpoints") {
    const ContactGeometry g = run_query(a, X_WA, b, pose_at(Vec3(0.3, 0, 3)));
    CHECK(g.distance_m == Approx(std::sqrt(0.09 + 1.0) - 0.3).margin(1e-15));
    check_contract(g, 1e-15);
    CHECK(std::abs(point_segment_distance(g.point_a_W, Vec3(0, 0, -1), Vec3(0, 0, 1)) - 0.1) <=
          1e-15);
  }
  SECTION("collinear and overlapping: A's +x axis, distance −(r_A + r_B)") {
    const ContactGeometry g = run_query(a, X_WA, b, pose_at(Vec3(0, 0, 0.5)));
    CHECK(g.distance_m == Approx(-0.3).margin(1e-15));
    CHECK(g.normal_W == Vec3::UnitX());
    CHECK((g.point_a_W - Vec3(0.1, 0, 0.25)).norm() <= 1e-15);
    check_contract(g, 1e-15);
  }
  SECTION("identical poses") {
    const ContactGeometry g = run_query(a, X_WA, a, X_WA);
    CHECK(g.distance_m == Approx(-0.2).margin(1e-15));
    CHECK(g.normal_W == Vec3::UnitX());
  }
  SECTION("crossing at the centres: along z_A × z_B") {
    const Pose X_WB = make_pose(rotation_about(Vec3::UnitX(), kPi / 2), Vec3::Zero());
    const ContactGeometry g = run_query(a, X_WA, b, X_WB);
    CHECK(g.distance_m == Approx(-0.3).margin(1e-15));
    CHECK((g.normal_W - Vec3::UnitX()).norm() <= 1e-15);  // z × (−y) = +x
    check_contract(g, 1e-15);
  }
  SECTION("zero-length capsules are spheres") {
    const ContactGeometry g = run_query(Shape::capsule(0.1, 0.0), X_WA, Shape::capsule(0.2, 0.0),
                                        pose_at(Vec3(0, 0.5, 0)));
    CHECK(g.distance_m == Approx(0.2).margin(1e-15));
    CHECK((g.normal_W - Vec3::UnitY()).norm() <= 1e-15);
  }
}

// ---- Half-spaces -----------------------------------------------------------------------------

TEST_CASE(
    "primitive: capsule–half-space equals n·(c − p) − h·|n·z| − r within 1e-12 m on 10,000 "
    "seeded poses, reporting the other end when it touches") {
  std::mt19937_64 rng(555);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int two_points = 0;
  for (int i = 0; i < kSamples; ++i) {
    const double r = 0.05 + 0.5 * unit(rng);
    const double half_length = 1.5 * unit(rng);
    const Shape capsule = Shape::capsule(r, 2.0 * half_length);
    const Shape floor = Shape::half_space(random_unit(rng));
    const Pose X_WG = random_pose(rng, 2.0);
    const Vec3 n_W = X_WG.R * floor.normal;
    Pose X_WC;
    // Every fifth lies parallel to the plane (its axis along a tangent of the plane).
    X_WC.R = i % 5 == 0
                 ? Mat3(Eigen::Quaterniond::FromTwoVectors(Vec3::UnitZ(), n_W.unitOrthogonal())
                            .toRotationMatrix())
                 : random_rotation(rng);
    const double lowest_offset = half_length * std::abs(n_W.dot(X_WC.R.col(2))) + r;
    // Target distance from −r (deep) to +r (separated).
    const double target = (2.0 * unit(rng) - 1.0) * r;
    X_WC.p =
        X_WG.p + (lowest_offset + target) * n_W + 3.0 * (X_WG.R * floor.normal.unitOrthogonal());
    const double expected =
        n_W.dot(X_WC.p - X_WG.p) - half_length * std::abs(n_W.dot(X_WC.R.col(2))) - r;
    const double other_end =
        n_W.dot(X_WC.p - X_WG.p) + half_length * std::abs(n_W.dot(X_WC.R.col(2))) - r;

    for (const bool capsule_first : {true, false}) {
      const ContactManifold m = capsule_first ? run_manifold(capsule, X_WC, floor, X_WG)
                                              : run_manifold(floor, X_WG, capsule, X_WC);
      INFO("sample " << i << " capsule first " << capsule_first);
      REQUIRE(std::abs(m.points[0].distance_m - expected) <= 1e-12);
      REQUIRE((m.points[0].normal_W - (capsule_first ? -n_W : n_W)).norm() <= 1e-12);
      check_manifold(m, 1e-12);
      const bool both = other_end <= 0.0 || std::abs(other_end - expected) <= 1e-13;
      if (other_end < -1e-12) REQUIRE(m.count == 2);
      if (other_end > 1e-11) REQUIRE(m.count == 1);
      two_points += (both && capsule_first) ? 1 : 0;
      if (m.count == 2) CHECK(std::abs(m.points[1].distance_m - other_end) <= 1e-12);
    }
  }
  CHECK(two_points >= 1000);
}

TEST_CASE(
    "primitive: box–half-space equals n·(c − p) − Σ h_i·|n·a_i| − r within 1e-12 m on 10,000 "
    "seeded poses with and without smoothing, the points being the touching core corners") {
  std::mt19937_64 rng(8080);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int four = 0;
  for (int i = 0; i < kSamples; ++i) {
    Shape box = Shape::box(Vec3(0.1 + unit(rng), 0.1 + unit(rng), 0.1 + unit(rng)));
    if (i % 2 == 1) box.smoothing_radius_m = 0.5 * box.half_extents_m.minCoeff() * unit(rng);
    const double r = box.smoothing_radius_m;
    const Vec3 h = box.half_extents_m - Vec3::Constant(r);
    const Shape floor = Shape::half_space(random_unit(rng));
    const Pose X_WG = random_pose(rng, 2.0);
    const Vec3 n_W = X_WG.R * floor.normal;
    Pose X_WA;
    // Every fourth box rests nearly flat (tilted by up to 1e-3 rad about a random axis).
    X_WA.R = i % 4 == 0
                 ? Mat3(Eigen::Quaterniond::FromTwoVectors(Vec3::UnitZ(), n_W).toRotationMatrix() *
                        rotation_about(random_unit(rng), 1e-3 * unit(rng)))
                 : random_rotation(rng);
    const Vec3 n_A = X_WA.R.transpose() * n_W;
    const double lowest_offset = h.dot(n_A.cwiseAbs()) + r;
    const double size = box.half_extents_m.minCoeff();
    const double target = (2.0 * unit(rng) - 1.0) * size;
    X_WA.p =
        X_WG.p + (lowest_offset + target) * n_W + 2.0 * (X_WG.R * floor.normal.unitOrthogonal());
    const double expected = n_W.dot(X_WA.p - X_WG.p) - h.dot(n_A.cwiseAbs()) - r;

    std::vector<Vec3> corners;
    int touching = 0;
    for (const Vec3& corner : box_corners(h, X_WA)) {
      corners.push_back(corner);
      if (n_W.dot(corner - X_WG.p) - r <= 0.0) ++touching;
    }
    const ContactManifold m = run_manifold(box, X_WA, floor, X_WG);
    INFO("sample " << i);
    REQUIRE(std::abs(m.points[0].distance_m - expected) <= 1e-12);
    REQUIRE((m.points[0].normal_W + n_W).norm() <= 1e-12);
    check_manifold(m, 1e-12);
    CHECK(m.count == std::clamp(touching, 1, 4));
    for (int k = 0; k < m.count; ++k) {
      const ContactGeometry& p = m.points[k];
      CHECK(matches_one_of(p.point_a_W + r * n_W, corners, 1e-12));  // a core corner, swept
      CHECK(std::abs(n_W.dot(p.point_b_W - X_WG.p)) <= 1e-12);       // on the plane
      if (k > 0) CHECK(p.distance_m <= 1e-12 * box.half_extents_m.maxCoeff());
    }
    // The deepest point is the support point of the (smoothed) box along −n.
    CHECK(std::abs(n_W.dot(m.points[0].point_a_W - contactlab::support_W(box, X_WA, -n_W))) <=
          1e-12);
    four += m.count == 4 ? 1 : 0;
  }
  CHECK(four >= 1000);
}

TEST_CASE(
    "primitive: cylinder–half-space equals n·(c − p) − ℓ·|n·z| − ρ·|n × z| − r within 1e-12 m "
    "on 10,000 seeded poses with and without smoothing") {
  std::mt19937_64 rng(1234);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < kSamples; ++i) {
    Shape cylinder = Shape::cylinder(0.1 + unit(rng), 0.2 + 2.0 * unit(rng));
    if (i % 2 == 1) {
      cylinder.smoothing_radius_m =
          0.5 * std::min(cylinder.radius_m, cylinder.half_length_m) * unit(rng);
    }
    const double r = cylinder.smoothing_radius_m;
    const double radius = cylinder.radius_m - r, half_length = cylinder.half_length_m - r;
    const Shape floor = Shape::half_space(random_unit(rng));
    const Pose X_WG = random_pose(rng, 2.0);
    const Vec3 n_W = X_WG.R * floor.normal;
    Pose X_WA;
    X_WA.R = random_rotation(rng);
    const Vec3 z_W = X_WA.R.col(2);
    const double lowest_offset =
        half_length * std::abs(n_W.dot(z_W)) + radius * n_W.cross(z_W).norm() + r;
    const double target = (2.0 * unit(rng) - 1.0) * std::min(cylinder.radius_m, half_length + r);
    X_WA.p =
        X_WG.p + (lowest_offset + target) * n_W + 1.5 * (X_WG.R * floor.normal.unitOrthogonal());
    const double expected = n_W.dot(X_WA.p - X_WG.p) - lowest_offset;

    for (const bool cylinder_first : {true, false}) {
      const ContactManifold m = cylinder_first ? run_manifold(cylinder, X_WA, floor, X_WG)
                                               : run_manifold(floor, X_WG, cylinder, X_WA);
      INFO("sample " << i);
      REQUIRE(std::abs(m.points[0].distance_m - expected) <= 1e-12);
      check_manifold(m, 1e-12);
      const ContactGeometry deepest =
          cylinder_first ? m.points[0] : contactlab::geometry::swapped(m.points[0]);
      // The deepest point is the SDK's support point of the (smoothed) cylinder along −n.
      CHECK((deepest.point_a_W - contactlab::support_W(cylinder, X_WA, -n_W)).norm() <= 1e-12);
      for (int k = 0; k < m.count; ++k) {
        const ContactGeometry p =
            cylinder_first ? m.points[k] : contactlab::geometry::swapped(m.points[k]);
        // Every point lies on the rim of a core cap, swept by r towards the plane.
        const Vec3 core_A = X_WA.R.transpose() * (p.point_a_W + r * n_W - X_WA.p);
        CHECK(std::abs(std::hypot(core_A.x(), core_A.y()) - radius) <= 1e-12);
        CHECK(std::abs(std::abs(core_A.z()) - half_length) <= 1e-12);
        if (k > 0)
          CHECK(p.distance_m <= 1e-12 * std::max(cylinder.radius_m, cylinder.half_length_m));
      }
    }
  }
}

// ---- Box–box ---------------------------------------------------------------------------------

namespace {

/// A pair of boxes (A at X_WA, B turned by R_WB) placed along a random direction at a chosen
/// signed distance category:
/// 0 separated, 1 shallow (depth up to 5% of the smallest half extent), 2 deep. The touching
/// offset and the shallow offsets come from bisection on the reference SAT along the ray (the SAT
/// separation is a signed distance for overlapping boxes and crosses zero where they touch; it is
/// convex along the ray).
struct BoxPair {
  Vec3 h_a, h_b;
  Pose X_WA, X_WB;
};

BoxPair place_boxes_with(std::mt19937_64& rng, const Vec3& h_a, const Vec3& h_b, const Pose& X_WA,
                         const Mat3& R_WB, int category) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  BoxPair pair{h_a, h_b, X_WA, Pose{}};
  pair.X_WB.R = R_WB;
  const Vec3 u = random_unit(rng);
  pair.X_WB.p = pair.X_WA.p;
  const auto corners_a = box_corners(h_a, pair.X_WA);
  const auto corners_b = box_corners(h_b, pair.X_WB);
  // Per axis: B's interval moves by t·(u·axis) as B moves by t·u.
  struct AxisInterval {
    double min_a, max_a, min_b, max_b, rate;
  };
  std::vector<AxisInterval> intervals;
  for (const Vec3& axis : sat_axes(pair.X_WA, pair.X_WB)) {
    AxisInterval interval{1e300, -1e300, 1e300, -1e300, u.dot(axis)};
    for (const Vec3& p : corners_a) {
      interval.min_a = std::min(interval.min_a, axis.dot(p));
      interval.max_a = std::max(interval.max_a, axis.dot(p));
    }
    for (const Vec3& p : corners_b) {
      interval.min_b = std::min(interval.min_b, axis.dot(p));
      interval.max_b = std::max(interval.max_b, axis.dot(p));
    }
    intervals.push_back(interval);
  }
  auto sat = [&](double t) {
    double best = -1e300;
    for (const AxisInterval& i : intervals) {
      best =
          std::max(best, std::max(i.min_b + t * i.rate - i.max_a, i.min_a - i.max_b - t * i.rate));
    }
    return best;
  };
  auto solve = [&](double target, double low, double high) {
    for (int k = 0; k < 100; ++k) {
      const double middle = 0.5 * (low + high);
      (sat(middle) < target ? low : high) = middle;
    }
    return 0.5 * (low + high);
  };
  const double t_touch = solve(0.0, 0.0, h_a.norm() + h_b.norm() + 0.1);
  const double size = std::min(h_a.minCoeff(), h_b.minCoeff());
  double t = 0.0;
  if (category == 0) {
    t = t_touch + size * (1e-3 + unit(rng));
  } else if (category == 1) {
    t = solve(-0.05 * size * std::pow(10.0, -3.0 * unit(rng)), 0.0, t_touch);
  } else {
    t = unit(rng) * solve(-0.05 * size, 0.0, t_touch);
  }
  pair.X_WB.p = pair.X_WA.p + t * u;
  return pair;
}

/// place_boxes_with for random orientations of both boxes.
BoxPair place_boxes(std::mt19937_64& rng, const Vec3& h_a, const Vec3& h_b, int category) {
  const Pose X_WA = random_pose(rng, 1.0);
  const Mat3 R_WB = random_rotation(rng);
  return place_boxes_with(rng, h_a, h_b, X_WA, R_WB, category);
}

/// Checks one box–box manifold against the references (or against `known`, a signed distance
/// known by construction, when given); returns the signed distance checked against.
double check_box_box(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                     const ContactManifold& m,
                     double known = std::numeric_limits<double>::quiet_NaN()) {
  const double r_a = a.smoothing_radius_m, r_b = b.smoothing_radius_m;
  const Vec3 core_a = a.half_extents_m - Vec3::Constant(r_a);
  const Vec3 core_b = b.half_extents_m - Vec3::Constant(r_b);
  const double expected =
      std::isnan(known) ? reference_box_signed_distance(core_a, X_WA, core_b, X_WB) - r_a - r_b
                        : known;
  const double size = a.half_extents_m.maxCoeff() + b.half_extents_m.maxCoeff();
  const double tolerance = 1e-9 * std::abs(expected) + 1e-13;
  REQUIRE(std::abs(m.points[0].distance_m - expected) <= tolerance);
  check_manifold(m, 1e-12 * (1.0 + X_WA.p.norm() + X_WB.p.norm()));
  // The normal is a minimum-translation (or closest-points) direction: the boxes' separation
  // along it, from the SDK's support mappings, is the distance.
  CHECK(std::abs(support_separation(a, X_WA, b, X_WB, m.points[0].normal_W) - expected) <=
        tolerance);
  for (int k = 0; k < m.count; ++k) {
    const ContactGeometry& p = m.points[k];
    // Witness points on the boundaries of the (smoothed) boxes.
    // Extra points of a smoothed box may lie inside its rounded surface, by less than r (header).
    const double sd_a = box_signed_distance(p.point_a_W, core_a, X_WA) - r_a;
    const double sd_b = box_signed_distance(p.point_b_W, core_b, X_WB) - r_b;
    if (k == 0 || r_a == 0.0) CHECK(std::abs(sd_a) <= 1e-11);
    if (k == 0 || r_b == 0.0) CHECK(std::abs(sd_b) <= 1e-11);
    CHECK((sd_a <= 1e-11 && sd_a >= -r_a - 1e-11));
    CHECK((sd_b <= 1e-11 && sd_b >= -r_b - 1e-11));
    if (k > 0) CHECK(p.distance_m <= 1e-12 * size);
  }
  if (expected > 1e-12 * size) CHECK(m.count == 1);
  return expected;
}

}  // namespace

TEST_CASE(
    "primitive: box–box depth equals an independent 15-axis SAT and the separated distance a "
    "corner–face and edge–edge minimum, relative error 1e-9, on 10,000 seeded poses") {
  std::mt19937_64 rng(271828);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int separated = 0, shallow = 0, deep = 0, multi_point = 0;
  for (int i = 0; i < kSamples; ++i) {
    const Vec3 h_a(0.1 + 0.9 * unit(rng), 0.1 + 0.9 * unit(rng), 0.1 + 0.9 * unit(rng));
    const Vec3 h_b(0.1 + 0.9 * unit(rng), 0.1 + 0.9 * unit(rng), 0.1 + 0.9 * unit(rng));
    const BoxPair pair = place_boxes(rng, h_a, h_b, i % 3);
    const Shape a = Shape::box(h_a), b = Shape::box(h_b);
    const ContactManifold m = run_manifold(a, pair.X_WA, b, pair.X_WB);
    INFO("sample " << i);
    const double expected = check_box_box(a, pair.X_WA, b, pair.X_WB, m);
    const double size = std::min(h_a.minCoeff(), h_b.minCoeff());
    if (expected > 0.0) {
      ++separated;
    } else if (expected >= -0.05 * size) {
      ++shallow;
    } else {
      ++deep;
    }
    multi_point += m.count > 1 ? 1 : 0;
  }
  CHECK(separated >= 3000);
  CHECK(shallow >= 3000);
  CHECK(deep >= 3000);
  CHECK(multi_point >= 100);
}

TEST_CASE(
    "primitive: box–box with the pair's warm-start cache matches the references, relative error "
    "1e-9, along 300 seeded trajectories of 40 small steps crossing from separated to overlapping "
    "and back, with distances equal to the cold answers within 1e-12 m") {
  std::mt19937_64 rng(314159);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  PrimitiveNarrowPhase narrow_phase{contactlab::ParameterValues{}};
  int warm_separated = 0, overlapping = 0;
  for (int trajectory = 0; trajectory < 300; ++trajectory) {
    const Vec3 h_a(0.1 + 0.9 * unit(rng), 0.1 + 0.9 * unit(rng), 0.1 + 0.9 * unit(rng));
    const Vec3 h_b(0.1 + 0.9 * unit(rng), 0.1 + 0.9 * unit(rng), 0.1 + 0.9 * unit(rng));
    const Shape a = Shape::box(h_a), b = Shape::box(h_b);
    const BoxPair start = place_boxes(rng, h_a, h_b, 0);  // separated
    // B approaches A along the centre line, turning a little, to 5% past the start distance.
    const Vec3 approach = start.X_WA.p - start.X_WB.p;
    const Vec3 axis = random_unit(rng);
    NarrowPhaseCache cache;
    for (int step = 0; step <= 40; ++step) {
      const double s = step <= 20 ? step / 20.0 : (40 - step) / 20.0;  // in and out again
      Pose X_WB = start.X_WB;
      X_WB.p += 0.6 * s * approach;
      X_WB.R = rotation_about(axis, 0.3 * s) * start.X_WB.R;
      ContactManifold warm, cold;
      NarrowPhaseCache fresh;
      narrow_phase.query(a, start.X_WA, b, X_WB, cache, warm);
      narrow_phase.query(a, start.X_WA, b, X_WB, fresh, cold);
      INFO("trajectory " << trajectory << " step " << step);
      const double expected = check_box_box(a, start.X_WA, b, X_WB, warm);
      REQUIRE(std::abs(warm.points[0].distance_m - cold.points[0].distance_m) <= 1e-12);
      if (expected > 0.0 && step > 0) ++warm_separated;
      overlapping += expected < 0.0;
    }
  }
  CHECK(warm_separated > 1000);
  CHECK(overlapping > 1000);
}

TEST_CASE(
    "primitive: smoothed box–box distance is the core distance minus both radii, relative error "
    "1e-9, on 3,000 seeded poses with separated and with overlapping cores") {
  std::mt19937_64 rng(161803);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int cores_separated = 0, cores_overlapping = 0, penetrating = 0;
  for (int i = 0; i < 3000; ++i) {
    Shape a = Shape::box(Vec3(0.2 + unit(rng), 0.2 + unit(rng), 0.2 + unit(rng)));
    Shape b = Shape::box(Vec3(0.2 + unit(rng), 0.2 + unit(rng), 0.2 + unit(rng)));
    a.smoothing_radius_m = 0.15 * unit(rng);
    b.smoothing_radius_m = 0.15 * unit(rng);
    const Vec3 core_a = a.half_extents_m - Vec3::Constant(a.smoothing_radius_m);
    const Vec3 core_b = b.half_extents_m - Vec3::Constant(b.smoothing_radius_m);
    const BoxPair pair = place_boxes(rng, core_a, core_b, i % 3);
    const ContactManifold m = run_manifold(a, pair.X_WA, b, pair.X_WB);
    INFO("sample " << i);
    const double expected = check_box_box(a, pair.X_WA, b, pair.X_WB, m);
    const double core = expected + a.smoothing_radius_m + b.smoothing_radius_m;
    (core > 0.0 ? cores_separated : cores_overlapping) += 1;
    penetrating += (expected < 0.0 && core > 0.0) ? 1 : 0;
  }
  CHECK(cores_separated >= 900);
  CHECK(cores_overlapping >= 1800);
  CHECK(penetrating >= 100);  // swept shapes penetrate while the cores are apart
}

TEST_CASE(
    "primitive: very thin boxes (1e-6 m thick) match the references, relative error 1e-9, on "
    "1,000 seeded poses") {
  std::mt19937_64 rng(606);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 1000; ++i) {
    const Vec3 h_a(0.2 + unit(rng), 0.2 + unit(rng), 1e-6);
    const Vec3 h_b(0.2 + unit(rng), 1e-6, 0.2 + unit(rng));
    const BoxPair pair = place_boxes(rng, h_a, h_b, i % 3);
    INFO("sample " << i);
    check_box_box(Shape::box(h_a), pair.X_WA, Shape::box(h_b), pair.X_WB,
                  run_manifold(Shape::box(h_a), pair.X_WA, Shape::box(h_b), pair.X_WB));
  }
}

// ---- Manifolds -------------------------------------------------------------------------------

TEST_CASE("primitive: a box resting flat on a half-space reports its 4 bottom corners, 1e-12 m") {
  const Shape box = Shape::box(Vec3(0.5, 0.3, 0.2));
  const Shape floor = Shape::half_space(Vec3::UnitZ());
  const Pose X_WA = make_pose(rotation_about(Vec3::UnitZ(), 0.7), Vec3(1, 2, 0.19));
  std::vector<Vec3> bottom;
  for (const Vec3& corner : box_corners(box.half_extents_m, X_WA)) {
    if (corner.z() < 0.0) bottom.push_back(corner);
  }
  REQUIRE(bottom.size() == 4);
  const ContactManifold m = run_manifold(box, X_WA, floor, Pose{});
  REQUIRE(m.count == 4);
  check_manifold(m, 1e-12);
  for (int k = 0; k < 4; ++k) {
    CHECK(m.points[k].distance_m == Approx(-0.01).margin(1e-12));
    CHECK(matches_one_of(m.points[k].point_a_W, bottom, 1e-12));
    for (int l = 0; l < k; ++l) CHECK((m.points[k].point_a_W - m.points[l].point_a_W).norm() > 0.1);
  }
  const ContactManifold reversed = run_manifold(floor, Pose{}, box, X_WA);
  REQUIRE(reversed.count == 4);
  for (int k = 0; k < 4; ++k) CHECK(matches_one_of(reversed.points[k].point_b_W, bottom, 1e-12));
}

TEST_CASE(
    "primitive: a box resting face to face on a box reports 4 points inside both faces, 1e-12 m") {
  const Shape large = Shape::box(Vec3(1, 1, 0.5));
  const Shape small = Shape::box(Vec3(0.3, 0.2, 0.25));
  const Pose X_WL = make_pose(rotation_about(Vec3(0.2, -0.1, 1), 0.3), Vec3(0.1, 0.2, 0.3));
  // The small box on the large one's top face, turned by 0.4 rad about the face normal.
  const Pose X_LS = make_pose(rotation_about(Vec3::UnitZ(), 0.4), Vec3(0.2, -0.1, 0.75 - 0.02));
  const Pose X_WS = X_WL * X_LS;
  auto inside_both_faces = [&](const ContactGeometry& p, const Pose& X_W_bottom,
                               const Vec3& h_bottom, const Pose& X_W_top, const Vec3& h_top) {
    // The point on the lower box's top face and the point on the upper box's bottom face.
    const Vec3 on_bottom = X_W_bottom.R.transpose() * (p.point_a_W - X_W_bottom.p);
    const Vec3 on_top = X_W_top.R.transpose() * (p.point_b_W - X_W_top.p);
    CHECK(std::abs(on_bottom.z() - h_bottom.z()) <= 1e-12);
    CHECK(std::abs(on_bottom.x()) <= h_bottom.x() + 1e-12);
    CHECK(std::abs(on_bottom.y()) <= h_bottom.y() + 1e-12);
    CHECK(std::abs(on_top.z() + h_top.z()) <= 1e-12);
    CHECK(std::abs(on_top.x()) <= h_top.x() + 1e-12);
    CHECK(std::abs(on_top.y()) <= h_top.y() + 1e-12);
  };
  SECTION("small on large: the small box's bottom corners") {
    const ContactManifold m = run_manifold(large, X_WL, small, X_WS);
    REQUIRE(m.count == 4);
    check_manifold(m, 1e-12);
    for (int k = 0; k < 4; ++k) {
      CHECK(m.points[k].distance_m == Approx(-0.02).margin(1e-12));
      inside_both_faces(m.points[k], X_WL, large.half_extents_m, X_WS, small.half_extents_m);
    }
  }
  SECTION("large on small: the small box's top face corners") {
    // The small box at the origin; the large box 0.25 + 0.5 − 0.02 above, turned by 0.4 rad.
    const Pose X_W_small = Pose{};
    const Pose X_W_large = make_pose(rotation_about(Vec3::UnitZ(), 0.4), Vec3(0.05, 0.02, 0.73));
    const ContactManifold m = run_manifold(small, X_W_small, large, X_W_large);
    REQUIRE(m.count == 4);
    check_manifold(m, 1e-12);
    std::vector<Vec3> top_corners;
    for (const Vec3& corner : box_corners(small.half_extents_m, X_W_small)) {
      if (corner.z() > 0.0) top_corners.push_back(corner);
    }
    for (int k = 0; k < 4; ++k) {
      CHECK(m.points[k].distance_m == Approx(-0.02).margin(1e-12));
      CHECK(matches_one_of(m.points[k].point_a_W, top_corners, 1e-12));
      inside_both_faces(m.points[k], X_W_small, small.half_extents_m, X_W_large,
                        large.half_extents_m);
    }
  }
}

TEST_CASE(
    "primitive: an octagonal face overlap is reduced to 4 points keeping the deepest and at "
    "least 60% of the overlap area") {
  // Two unit cubes, the upper turned by 45° about z: their faces overlap in a regular octagon of
  // area 2(√2 − 1).
  const Shape cube = Shape::box(Vec3(0.5, 0.5, 0.5));
  const Pose X_WB = make_pose(rotation_about(Vec3::UnitZ(), kPi / 4), Vec3(0, 0, 0.99));
  const ContactManifold m = run_manifold(cube, Pose{}, cube, X_WB);
  REQUIRE(m.count == 4);
  check_manifold(m, 1e-12);
  std::vector<Vec3> points;
  for (int k = 0; k < 4; ++k) {
    CHECK(m.points[k].distance_m == Approx(-0.01).margin(1e-12));
    points.push_back(m.points[k].point_a_W);
  }
  // Area of the quadrilateral: its points sorted by angle about their centroid.
  Vec3 centroid = Vec3::Zero();
  for (const Vec3& p : points) centroid += p / 4.0;
  std::sort(points.begin(), points.end(), [&](const Vec3& p, const Vec3& q) {
    return std::atan2(p.y() - centroid.y(), p.x() - centroid.x()) <
           std::atan2(q.y() - centroid.y(), q.x() - centroid.x());
  });
  double area = 0.0;
  for (int k = 0; k < 4; ++k) {
    const Vec3& p = points[k];
    const Vec3& q = points[(k + 1) % 4];
    area += 0.5 * (p.x() * q.y() - q.x() * p.y());
  }
  CHECK(area >= 0.6 * 2.0 * (std::sqrt(2.0) - 1.0));
}

TEST_CASE(
    "primitive: a box tilted about one axis reports 2 points, tilted about a diagonal 1 point, "
    "on a half-space and on a box") {
  const Shape box = Shape::box(Vec3(0.4, 0.3, 0.2));
  const Shape floor = Shape::half_space(Vec3::UnitZ());
  const Shape base = Shape::box(Vec3(2, 2, 0.5));
  const Pose X_W_base = pose_at(Vec3(0, 0, -0.5));  // top face at z = 0, like the floor
  auto resting = [&](const Mat3& R, double depth) {
    Pose X = make_pose(R, Vec3(0.1, -0.2, 0));
    double lowest = 1e300;
    for (const Vec3& corner : box_corners(box.half_extents_m, X))
      lowest = std::min(lowest, corner.z());
    X.p.z() -= lowest + depth;
    return X;
  };
  SECTION("edge down: 2 points of equal depth") {
    const Pose X = resting(rotation_about(Vec3::UnitX(), 0.2), 0.01);
    for (const ContactManifold& m :
         {run_manifold(box, X, floor, Pose{}), run_manifold(base, X_W_base, box, X)}) {
      REQUIRE(m.count == 2);
      check_manifold(m, 1e-12);
      CHECK(m.points[0].distance_m == Approx(-0.01).margin(1e-12));
      CHECK(m.points[1].distance_m == Approx(-0.01).margin(1e-12));
    }
  }
  SECTION("corner down: 1 point") {
    const Pose X = resting(rotation_about(Vec3(1, 1, 0), 0.3), 0.01);
    for (const ContactManifold& m :
         {run_manifold(box, X, floor, Pose{}), run_manifold(base, X_W_base, box, X)}) {
      REQUIRE(m.count == 1);
      CHECK(m.points[0].distance_m == Approx(-0.01).margin(1e-12));
    }
  }
}

TEST_CASE("primitive: manifold_points 1 keeps exactly the deepest point, 2 and 3 keep that many") {
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const Shape floor = Shape::half_space(Vec3::UnitZ());
  const Shape box = Shape::box(Vec3(0.5, 0.4, 0.3));
  const Shape cylinder = Shape::cylinder(0.3, 1.0);
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    // Nearly flat poses, sunk by up to 0.05 m.
    const Mat3 R = rotation_about(random_unit(rng), 0.02 * unit(rng));
    const Pose X_box = make_pose(R, Vec3(0, 0, 0.3 - 0.05 * unit(rng)));
    const Pose X_cylinder = make_pose(R, Vec3(0, 0, 0.5 - 0.05 * unit(rng)));
    const Pose X_top = make_pose(R, Vec3(0.1, 0.1, 0.6 - 0.05 * unit(rng)));
    struct Case {
      const Shape* a;
      Pose X_WA;
      const Shape* b;
      Pose X_WB;
    };
    const Shape large = Shape::box(Vec3(1, 1, 0.3));
    const Case cases[] = {{&box, X_box, &floor, Pose{}},
                          {&cylinder, X_cylinder, &floor, Pose{}},
                          {&large, Pose{}, &box, X_top}};
    for (const Case& c : cases) {
      const ContactManifold all = run_manifold(*c.a, c.X_WA, *c.b, c.X_WB, 4);
      check_manifold(all, 1e-12);  // points[0] is the deepest of all
      for (const std::int64_t limit : {1, 2, 3}) {
        const ContactManifold m = run_manifold(*c.a, c.X_WA, *c.b, c.X_WB, limit);
        REQUIRE(m.count == std::min<int>(static_cast<int>(limit), all.count));
        for (int k = 0; k < m.count; ++k) {
          CHECK(m.points[k].distance_m == all.points[k].distance_m);
          CHECK(m.points[k].point_a_W == all.points[k].point_a_W);
          CHECK(m.points[k].point_b_W == all.points[k].point_b_W);
        }
      }
      checked += all.count == 4 ? 1 : 0;
    }
  }
  CHECK(checked >= 500);
}

TEST_CASE(
    "primitive: a cylinder standing on its cap reports 4 rim points 90° apart, lying on its side "
    "2 points, tilted 1 point, 1e-12 m") {
  const Shape cylinder = Shape::cylinder(0.3, 1.0);
  const Shape floor = Shape::half_space(Vec3::UnitZ());
  SECTION("standing") {
    const Pose X = make_pose(rotation_about(Vec3::UnitZ(), 0.3), Vec3(1, 1, 0.49));
    const ContactManifold m = run_manifold(cylinder, X, floor, Pose{});
    REQUIRE(m.count == 4);
    check_manifold(m, 1e-12);
    for (int k = 0; k < 4; ++k) {
      CHECK(m.points[k].distance_m == Approx(-0.01).margin(1e-12));
      CHECK(std::hypot(m.points[k].point_a_W.x() - 1, m.points[k].point_a_W.y() - 1) ==
            Approx(0.3).margin(1e-12));
    }
    // A square inscribed in the rim: sides 0.3·√2, diagonals 0.6.
    std::vector<double> lengths;
    for (int k = 0; k < 4; ++k) {
      for (int l = 0; l < k; ++l) {
        lengths.push_back((m.points[k].point_a_W - m.points[l].point_a_W).norm());
      }
    }
    std::sort(lengths.begin(), lengths.end());
    for (int k = 0; k < 4; ++k) CHECK(lengths[k] == Approx(0.3 * std::sqrt(2.0)).margin(1e-12));
    CHECK(lengths[4] == Approx(0.6).margin(1e-12));
    CHECK(lengths[5] == Approx(0.6).margin(1e-12));
  }
  SECTION("lying on its side: both ends") {
    const Pose X = make_pose(rotation_about(Vec3::UnitX(), kPi / 2), Vec3(0, 0, 0.29));
    const ContactManifold m = run_manifold(cylinder, X, floor, Pose{});
    REQUIRE(m.count == 2);
    CHECK(m.points[0].distance_m == Approx(-0.01).margin(1e-12));
    CHECK(m.points[1].distance_m == Approx(-0.01).margin(1e-12));
    CHECK((m.points[0].point_a_W - m.points[1].point_a_W).norm() == Approx(1.0).margin(1e-12));
  }
  SECTION("tilted by 0.3 rad: the lowest rim point") {
    const Mat3 R = rotation_about(Vec3::UnitX(), 0.3);
    const double lowest = 0.5 * std::cos(0.3) + 0.3 * std::sin(0.3);
    const Pose X = make_pose(R, Vec3(0, 0, lowest - 0.01));
    const ContactManifold m = run_manifold(cylinder, X, floor, Pose{});
    REQUIRE(m.count == 1);
    CHECK(m.points[0].distance_m == Approx(-0.01).margin(1e-12));
  }
}

TEST_CASE("primitive: a capsule lying on a half-space reports both ends, a tilted one the lower") {
  const Shape capsule = Shape::capsule(0.1, 1.0);
  const Shape floor = Shape::half_space(Vec3::UnitZ());
  const Pose lying = make_pose(rotation_about(Vec3::UnitY(), kPi / 2), Vec3(0, 0, 0.09));
  const ContactManifold m = run_manifold(capsule, lying, floor, Pose{});
  REQUIRE(m.count == 2);
  check_manifold(m, 1e-12);
  CHECK(m.points[0].distance_m == Approx(-0.01).margin(1e-12));
  CHECK(m.points[1].distance_m == Approx(-0.01).margin(1e-12));
  CHECK((m.points[0].point_a_W - m.points[1].point_a_W).norm() == Approx(1.0).margin(1e-12));
  const Pose tilted = make_pose(rotation_about(Vec3::UnitY(), 1.2), Vec3(0, 0, 0.09));
  CHECK(run_manifold(capsule, tilted, floor, Pose{}).count == 1);
  CHECK(run_manifold(capsule, lying, floor, Pose{}, 1).count == 1);
}

// ---- Degenerate configurations ----------------------------------------------------------------

TEST_CASE(
    "primitive: libccd issue 25 – two 2 m cubes at z = 0 and z = 1.9 overlap by 0.1 m along z, "
    "also turned about z, within 1e-12 m") {
  const Shape cube = Shape::box(Vec3(1, 1, 1));
  for (const double turn : {0.0, 0.5}) {
    const Pose X_WB = make_pose(rotation_about(Vec3::UnitZ(), turn), Vec3(0, 0, 1.9));
    const ContactManifold m = run_manifold(cube, Pose{}, cube, X_WB);
    INFO("turned by " << turn);
    CHECK(m.points[0].distance_m == Approx(-0.1).margin(1e-12));
    CHECK((m.points[0].normal_W - Vec3::UnitZ()).norm() <= 1e-12);
    REQUIRE(m.count == 4);
    check_manifold(m, 1e-12);
    for (int k = 0; k < 4; ++k) CHECK(m.points[k].distance_m == Approx(-0.1).margin(1e-12));
  }
}

TEST_CASE("primitive: boxes touching face to face report distance 0 and 4 points") {
  const Shape a = Shape::box(Vec3(1, 1, 1));
  const Shape b = Shape::box(Vec3(0.5, 0.5, 0.5));
  SECTION("axis-aligned, binary-exact: exactly 0") {
    const ContactManifold m = run_manifold(a, Pose{}, b, pose_at(Vec3(0.25, 0.25, 1.5)));
    CHECK(m.points[0].distance_m == 0.0);
    CHECK(m.count == 4);
    CHECK(m.points[0].normal_W == Vec3::UnitZ());
  }
  SECTION("the same pair under a random rigid motion: 0 within 1e-14 m") {
    std::mt19937_64 rng(5);
    for (int i = 0; i < 100; ++i) {
      const Pose X = random_pose(rng, 3.0);
      const ContactManifold m = run_manifold(a, X, b, X * pose_at(Vec3(0.25, 0.25, 1.5)));
      CHECK(std::abs(m.points[0].distance_m) <= 1e-14);
      CHECK(m.count == 4);
      check_manifold(m, 1e-14);
    }
  }
}

TEST_CASE(
    "primitive: boxes edge to edge with parallel edges: the exact gap when apart, the face-normal "
    "depth when overlapping, within 1e-12 m") {
  // Both cubes turned by 45° about x: A's top edge and B's bottom edge are parallel to x.
  const Shape cube = Shape::box(Vec3(0.5, 0.5, 0.5));
  const Mat3 R = rotation_about(Vec3::UnitX(), kPi / 4);
  const double reach = 0.5 * std::sqrt(2.0);
  const Pose X_WA = make_pose(R, Vec3::Zero());
  for (const double gap : {0.1, 0.0, -0.01}) {
    const Pose X_WB = make_pose(R, Vec3(0.3, 0, 2 * reach + gap));
    const ContactManifold m = run_manifold(cube, X_WA, cube, X_WB);
    INFO("gap " << gap);
    // Overlapping 90° wedges slide apart along a face normal: depth |gap|/√2.
    const double expected = gap >= 0.0 ? gap : gap / std::sqrt(2.0);
    CHECK(m.points[0].distance_m == Approx(expected).margin(1e-12));
    check_manifold(m, 1e-12);
    check_box_box(cube, X_WA, cube, X_WB, m);
  }
}

TEST_CASE(
    "primitive: boxes with coincident centres leave along the face axis of least overlap, and "
    "match the SAT when turned") {
  const Shape a = Shape::box(Vec3(1, 0.5, 0.8));
  const Shape b = Shape::box(Vec3(0.3, 0.6, 0.2));
  const ContactManifold m = run_manifold(a, Pose{}, b, Pose{});
  CHECK(m.points[0].distance_m == Approx(-1.0).margin(1e-15));  // 0.8 + 0.2 along z
  CHECK(m.points[0].normal_W == Vec3::UnitZ());
  check_manifold(m, 1e-15);
  std::mt19937_64 rng(9);
  for (int i = 0; i < 100; ++i) {
    const Pose X = random_pose(rng, 1.0);
    const Pose X_WB = make_pose(random_rotation(rng), X.p);
    check_box_box(a, X, b, X_WB, run_manifold(a, X, b, X_WB));
  }
}

TEST_CASE("primitive: very thin boxes stack and separate exactly, relative error 1e-9") {
  const Shape a = Shape::box(Vec3(1, 1, 1e-6));
  const Shape b = Shape::box(Vec3(0.5, 0.5, 1e-6));
  const Mat3 R = rotation_about(Vec3::UnitZ(), 0.3);
  const ContactManifold stacked = run_manifold(a, Pose{}, b, make_pose(R, Vec3(0, 0, 2e-6 - 1e-7)));
  CHECK(stacked.points[0].distance_m == Approx(-1e-7).epsilon(1e-9));
  CHECK(stacked.count == 4);
  const ContactManifold apart = run_manifold(a, Pose{}, b, make_pose(R, Vec3(0, 0, 2e-6 + 1e-7)));
  CHECK(apart.points[0].distance_m == Approx(1e-7).epsilon(1e-9));
  CHECK(apart.count == 1);
}

// ---- Box–box separated: closest features of each kind ----------------------------------------

namespace {

/// Random half extents in [0.1, 1] m.
Vec3 random_half_extents(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  return Vec3(0.1 + 0.9 * unit(rng), 0.1 + 0.9 * unit(rng), 0.1 + 0.9 * unit(rng));
}

/// Checks a separated box–box result against a constructed distance and closest direction (world):
/// distance within a relative 1e-9 plus 1e-13 m (the rounding of coordinates up to 10 m, as in
/// check_box_box), normal within normal_tolerance, one point, and the rest of check_box_box with
/// the constructed distance (its long double reference loses digits for nearly parallel edges);
/// where the reference is well conditioned (compare_reference) it must agree within a relative
/// 1e-6 as well.
void check_constructed_separation(const Vec3& h_a, const Pose& X_WA, const Vec3& h_b,
                                  const Pose& X_WB, double gap, const Vec3& n_W,
                                  double normal_tolerance, bool compare_reference = true) {
  const Shape a = Shape::box(h_a), b = Shape::box(h_b);
  for (const bool a_first : {true, false}) {
    ContactManifold m = a_first ? run_manifold(a, X_WA, b, X_WB) : run_manifold(b, X_WB, a, X_WA);
    INFO("A first " << a_first);
    REQUIRE(m.count == 1);
    if (!a_first) contactlab::geometry::swap_roles(m);
    CHECK(std::abs(m.points[0].distance_m - gap) <= 1e-9 * gap + 1e-13);
    CHECK((m.points[0].normal_W - n_W).norm() <= normal_tolerance);
    check_box_box(a, X_WA, b, X_WB, m, gap);
  }
  if (compare_reference) {
    CHECK(std::abs(reference_box_distance(h_a, X_WA, h_b, X_WB) - gap) <= 1e-6 * gap);
  }
}

}  // namespace

TEST_CASE(
    "primitive: separated box–box with corner–corner closest points (B placed from both support "
    "corners along a random direction) equals the constructed gap, relative error 1e-9 plus "
    "1e-13 m, on 10,000 seeded poses") {
  std::mt19937_64 rng(31337);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < kSamples; ++i) {
    const Vec3 h_a = random_half_extents(rng), h_b = random_half_extents(rng);
    const Pose X_WA = random_pose(rng, 5.0);
    Pose X_WB = make_pose(random_rotation(rng), Vec3::Zero());
    const Vec3 n_W = random_unit(rng);
    const double gap = std::pow(10.0, -4.0 * unit(rng));  // 1e-4 .. 1 m
    // The support corners of A along n and of B along −n, gap apart along n: for a generic n both
    // are unique, so they are the closest points and n the closest direction.
    const Vec3 corner_a_W = contactlab::support_W(Shape::box(h_a), X_WA, n_W);
    const Vec3 corner_b_from_centre_W = contactlab::support_W(Shape::box(h_b), X_WB, -n_W) - X_WB.p;
    X_WB.p = corner_a_W + gap * n_W - corner_b_from_centre_W;
    INFO("sample " << i);
    // The normal is the difference of the rounded corners over the gap.
    check_constructed_separation(h_a, X_WA, h_b, X_WB, gap, n_W, 1e-10 / gap);
  }
}

TEST_CASE(
    "primitive: separated box–box with a corner over a face equals the constructed gap, relative "
    "error 1e-9 plus 1e-13 m, with the face normal within 1e-12, on 2,000 seeded poses") {
  std::mt19937_64 rng(4242);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 2000; ++i) {
    const Vec3 h_a = random_half_extents(rng), h_b = random_half_extents(rng);
    const Pose X_WA = random_pose(rng, 5.0);
    const Mat3 R_AB = random_rotation(rng);
    const int axis = i % 3, p = (axis + 1) % 3, q = (axis + 2) % 3;
    const double side = (i / 3) % 2 == 0 ? 1.0 : -1.0;
    const double gap = std::pow(10.0, -6.0 * unit(rng));  // 1e-6 .. 1 m
    // B's support corner along −m (m the face normal, in A's frame) over the face's interior.
    const Vec3 m_A = side * Vec3::Unit(axis);
    Vec3 corner_A = Vec3::Zero();
    corner_A[axis] = side * (h_a[axis] + gap);
    corner_A[p] = (2.0 * unit(rng) - 1.0) * 0.9 * h_a[p];
    corner_A[q] = (2.0 * unit(rng) - 1.0) * 0.9 * h_a[q];
    const Vec3 signs_B = -(R_AB.transpose() * m_A);
    Vec3 corner_from_centre_B;
    for (int c = 0; c < 3; ++c) corner_from_centre_B[c] = signs_B[c] < 0.0 ? -h_b[c] : h_b[c];
    const Pose X_AB = make_pose(R_AB, corner_A - R_AB * corner_from_centre_B);
    INFO("sample " << i);
    check_constructed_separation(h_a, X_WA, h_b, X_WA * X_AB, gap, X_WA.R * m_A, 1e-12);
  }
}

TEST_CASE(
    "primitive: separated box–box with crossing edges (closest points interior to both, edges "
    "down to 1e-9 rad from parallel) equals the constructed gap along their common "
    "perpendicular, relative error 1e-9 plus 1e-13 m, on 4,000 seeded poses") {
  std::mt19937_64 rng(2718);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 4000; ++i) {
    const Vec3 h_a = random_half_extents(rng), h_b = random_half_extents(rng);
    const Pose X_WA = random_pose(rng, 5.0);
    // A's edge along x at (y, z) = (h_y, h_z); n in its normal cone (between +y and +z).
    const double theta = (0.05 + 0.9 * unit(rng)) * kPi / 2;
    const Vec3 n_A(0.0, std::cos(theta), std::sin(theta));
    // B's edge along b_0 ⊥ n, turned by φ from A's edge: φ from 1.5 rad down to 1e-9 rad.
    const double phi = i % 2 == 0 ? 1.5 * unit(rng) + 1e-3 : std::pow(10.0, -3.0 - 6.0 * unit(rng));
    const Vec3 t_A = n_A.cross(Vec3::UnitX());
    const Vec3 b0 = std::cos(phi) * Vec3::UnitX() + std::sin(phi) * t_A;
    // −n in the normal cone of B's edge through its (−h_1, −h_2) corner: n = cos ψ b_1 + sin ψ b_2.
    const double psi = (0.05 + 0.9 * unit(rng)) * kPi / 2;
    const Vec3 w = b0.cross(n_A);
    const Vec3 b1 = std::cos(psi) * n_A - std::sin(psi) * w;
    const Vec3 b2 = std::sin(psi) * n_A + std::cos(psi) * w;
    Mat3 R_AB;
    R_AB << b0, b1, b2;
    const double gap = std::pow(10.0, -5.0 * unit(rng));  // 1e-5 .. 1 m
    // B's edge's middle over A's edge, gap along n: the common perpendicular of the two lines.
    const Vec3 on_a(0.8 * (2.0 * unit(rng) - 1.0) * h_a.x(), h_a.y(), h_a.z());
    const Vec3 centre_b = on_a + gap * n_A + h_b[1] * b1 + h_b[2] * b2;
    const Pose X_WB = X_WA * make_pose(R_AB, centre_b);
    INFO("sample " << i << ", phi " << phi);
    // The normal carries no rounding division by the gap: it is the edge-pair axis itself when
    // the edges are not nearly parallel (for nearly parallel ones the corners are as close).
    check_constructed_separation(h_a, X_WA, h_b, X_WB, gap, X_WA.R * n_A, phi > 1e-3 ? 1e-9 : 1.0,
                                 phi > 1e-3);
  }
}

TEST_CASE(
    "primitive: separated box–box with nearly parallel edges (relative turns 1e-3 to 1e-12 rad "
    "from a signed axis permutation) matches the corner–face and edge–edge reference, relative "
    "error 1e-9, on 3,000 seeded poses") {
  std::mt19937_64 rng(1618);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 3000; ++i) {
    const Vec3 h_a = random_half_extents(rng), h_b = random_half_extents(rng);
    // A signed permutation of the axes, turned by a tiny angle: every edge of B is nearly
    // parallel to one of A's.
    std::array<int, 3> order{0, 1, 2};
    std::shuffle(order.begin(), order.end(), rng);
    Mat3 permutation = Mat3::Zero();
    for (int c = 0; c < 3; ++c) permutation(order[c], c) = unit(rng) < 0.5 ? -1.0 : 1.0;
    if (permutation.determinant() < 0.0) permutation.col(0) *= -1.0;
    const double angle = std::pow(10.0, -3.0 - 9.0 * unit(rng));
    const Mat3 R_AB = rotation_about(random_unit(rng), angle) * permutation;
    const Pose X_WA = random_pose(rng, 1.0);
    const BoxPair pair = place_boxes_with(rng, h_a, h_b, X_WA, X_WA.R * R_AB, 0);  // separated
    const Shape a = Shape::box(h_a), b = Shape::box(h_b);
    INFO("sample " << i << ", angle " << angle);
    for (const bool a_first : {true, false}) {
      ContactManifold m = a_first ? run_manifold(a, pair.X_WA, b, pair.X_WB)
                                  : run_manifold(b, pair.X_WB, a, pair.X_WA);
      if (!a_first) contactlab::geometry::swap_roles(m);
      const double expected = check_box_box(a, pair.X_WA, b, pair.X_WB, m);
      CHECK(expected > 0.0);
    }
  }
}

// ---- Fast paths: sphere–smoothed box, warm starts, certificates, face clipping
// -------------------

TEST_CASE(
    "primitive: sphere against a smoothed box equals the core's closed form minus both radii "
    "within 1e-12 m on 10,000 seeded poses, in both orders") {
  std::mt19937_64 rng(8086);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_real_distribution<double> symmetric(-1.0, 1.0);
  int outside = 0, inside = 0;
  for (int i = 0; i < kSamples; ++i) {
    Shape box = Shape::box(Vec3(0.2 + unit(rng), 0.2 + unit(rng), 0.2 + unit(rng)));
    box.smoothing_radius_m = 0.15 * unit(rng);
    const Vec3 core = box.half_extents_m - Vec3::Constant(box.smoothing_radius_m);
    const double r = 0.05 + unit(rng);
    // Centre anywhere within 1.5 times the box (inside and outside the core).
    const Vec3 c_B =
        1.5 * box.half_extents_m.cwiseProduct(Vec3(symmetric(rng), symmetric(rng), symmetric(rng)));
    const Pose X_WB = random_pose(rng, 5.0);
    const Vec3 c_W = X_WB.transform_point(c_B);
    const BoxReference core_reference = box_reference(c_B, core, r);
    const double expected = core_reference.distance_m - box.smoothing_radius_m;
    (core_reference.centre_inside ? inside : outside) += 1;
    INFO("sample " << i);
    const ContactGeometry g = run_query(Shape::sphere(r), pose_at(c_W), box, X_WB);
    REQUIRE(std::abs(g.distance_m - expected) <= 1e-12);
    CHECK((g.normal_W - X_WB.R * core_reference.normal_B).norm() <= 1e-9);
    check_contract(g, 1e-12);
    CHECK(std::abs((g.point_a_W - c_W).norm() - r) <= 1e-12);
    // B's witness on the rounded surface: r_box from the core's boundary.
    const Vec3 point_b_B = X_WB.R.transpose() * (g.point_b_W - X_WB.p);
    const Vec3 q = point_b_B.cwiseAbs() - core;
    const double core_distance = q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
    CHECK(std::abs(core_distance - box.smoothing_radius_m) <= 1e-12);
    const ContactGeometry swapped = run_query(box, X_WB, Shape::sphere(r), pose_at(c_W));
    CHECK(swapped.distance_m == g.distance_m);
    CHECK(swapped.normal_W == -g.normal_W);
  }
  CHECK(outside >= 3000);
  CHECK(inside >= 1000);
}

namespace {

/// The box–box warm start a cache holds (null when it holds none).
const BoxBoxWarmStart* box_box_warm_start(const NarrowPhaseCache& cache) {
  return contactlab::cached_entry<BoxBoxWarmStart>(cache, contactlab::plugins::kBoxBoxCacheTag);
}

/// The box–box warm start of a cache, to be written.
BoxBoxWarmStart& box_box_warm_start_entry(NarrowPhaseCache& cache) {
  return contactlab::cache_entry<BoxBoxWarmStart>(cache, contactlab::plugins::kBoxBoxCacheTag);
}

/// A cache holding a box–box warm start, from a separated query.
NarrowPhaseCache box_box_tagged_cache(PrimitiveNarrowPhase& narrow_phase) {
  NarrowPhaseCache tagged;
  ContactManifold scratch;
  narrow_phase.query(Shape::box(Vec3(1, 1, 1)), Pose{}, Shape::box(Vec3(1, 1, 1)),
                     pose_at(Vec3(3, 0.2, 0.1)), tagged, scratch);
  REQUIRE(box_box_warm_start(tagged) != nullptr);
  return tagged;
}

/// A cache holding a box–box warm start whose contents are arbitrary: feature codes in and out of
/// range, and normals of any length or NaN.
NarrowPhaseCache garbage_box_cache(std::mt19937_64& rng, const NarrowPhaseCache& valid_one) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  NarrowPhaseCache cache = valid_one;  // the tag
  const std::int32_t codes[] = {-1, 0,   3,   7,   8,          15,         16,
                                17, 123, 591, 592, 1000000000, -123456789, -2147483647 - 1};
  BoxBoxWarmStart& warm = box_box_warm_start_entry(cache);
  warm.feature = unit(rng) < 0.5 ? codes[static_cast<int>(14.0 * unit(rng)) % 14]
                                 : static_cast<std::int32_t>(std::floor(600.0 * unit(rng)));
  const Vec3 n = unit(rng) < 0.1 ? Vec3(Vec3::Constant(std::numeric_limits<double>::quiet_NaN()))
                                 : Vec3((0.5 + 2.5 * unit(rng)) * random_unit(rng));
  warm.normal_A = {n[0], n[1], n[2]};
  return cache;
}

}  // namespace

TEST_CASE(
    "primitive: box–box warm starts from arbitrary cache contents (any feature code, normal or "
    "NaN) give the cold answer within 1e-12 m on 6,000 seeded poses") {
  std::mt19937_64 rng(1979);
  PrimitiveNarrowPhase narrow_phase{contactlab::ParameterValues{}};
  const NarrowPhaseCache tagged = box_box_tagged_cache(narrow_phase);
  int separated = 0;
  for (int i = 0; i < 6000; ++i) {
    const Vec3 h_a = random_half_extents(rng), h_b = random_half_extents(rng);
    const BoxPair pair = place_boxes(rng, h_a, h_b, i % 3);
    Shape a = Shape::box(h_a), b = Shape::box(h_b);
    if (i % 5 == 4) {
      a.half_extents_m += Vec3::Constant(0.05);
      a.smoothing_radius_m = 0.05;
    }
    NarrowPhaseCache warm = garbage_box_cache(rng, tagged), cold;
    const std::int32_t feature = box_box_warm_start(warm)->feature;
    ContactManifold from_warm, from_cold;
    narrow_phase.query(a, pair.X_WA, b, pair.X_WB, warm, from_warm);
    narrow_phase.query(a, pair.X_WA, b, pair.X_WB, cold, from_cold);
    INFO("sample " << i << " feature " << feature);
    REQUIRE(std::abs(from_warm.points[0].distance_m - from_cold.points[0].distance_m) <= 1e-12);
    CHECK(from_warm.count == from_cold.count);
    check_box_box(a, pair.X_WA, b, pair.X_WB, from_warm);
    separated += from_cold.points[0].distance_m > 0.0;
  }
  CHECK(separated >= 1500);
}

TEST_CASE(
    "primitive: a box–box warm start from any of the 16 cached corners, over a face at gaps 0.1 "
    "and 1e-9 m, keeps only the lowest corner of the tilted box, distance and witness within "
    "1e-14 m") {
  PrimitiveNarrowPhase narrow_phase{contactlab::ParameterValues{}};
  const NarrowPhaseCache tagged = box_box_tagged_cache(narrow_phase);
  // A small box tilted over the top face (z = 1) of a large axis-aligned one: its lowest corner,
  // found here over its 8 corners, is the closest point, at the constructed gap straight above
  // its foot on the face. The other corners are higher by at least a few cm.
  const Shape large = Shape::box(Vec3(1, 1, 1));
  const Vec3 h_small(0.4, 0.3, 0.2);
  const Shape small = Shape::box(h_small);
  const Mat3 R = rotation_about(Vec3(1, 2, 0.5), 0.2);
  Vec3 lowest_offset(0, 0, std::numeric_limits<double>::infinity());
  for (int k = 0; k < 8; ++k) {
    const Vec3 offset =
        R * Vec3((k & 1) ? h_small.x() : -h_small.x(), (k & 2) ? h_small.y() : -h_small.y(),
                 (k & 4) ? h_small.z() : -h_small.z());
    if (offset.z() < lowest_offset.z()) lowest_offset = offset;
  }
  for (const double gap : {0.1, 1e-9}) {
    const Pose X_WS = make_pose(R, Vec3(0.1, -0.2, 1.0 + gap - lowest_offset.z()));
    const Vec3 corner_W = X_WS.p + lowest_offset;
    for (int feature = 0; feature < 16; ++feature) {
      for (const bool small_is_b : {true, false}) {
        INFO("gap " << gap << " feature " << feature << " small box is B " << small_is_b);
        NarrowPhaseCache cache = tagged;
        BoxBoxWarmStart& warm = box_box_warm_start_entry(cache);
        warm.feature = feature;
        warm.normal_A = {0.0, 0.0, small_is_b ? 1.0 : -1.0};
        ContactManifold m;
        if (small_is_b) {
          narrow_phase.query(large, Pose{}, small, X_WS, cache, m);
        } else {
          narrow_phase.query(small, X_WS, large, Pose{}, cache, m);
        }
        REQUIRE(m.count == 1);
        const ContactGeometry& g = m.points[0];
        CHECK(std::abs(g.distance_m - gap) <= 1e-14);
        const Vec3& on_small = small_is_b ? g.point_b_W : g.point_a_W;
        const Vec3& on_large = small_is_b ? g.point_a_W : g.point_b_W;
        CHECK((on_small - corner_W).norm() <= 1e-14);
        CHECK((on_large - Vec3(corner_W.x(), corner_W.y(), 1.0)).norm() <= 1e-14);
        CHECK((g.normal_W - (small_is_b ? 1.0 : -1.0) * Vec3::UnitZ()).norm() <= 1e-12);
        // The next query, from the cache this one left, answers the same to rounding.
        ContactManifold again;
        if (small_is_b) {
          narrow_phase.query(large, Pose{}, small, X_WS, cache, again);
        } else {
          narrow_phase.query(small, X_WS, large, Pose{}, cache, again);
        }
        CHECK(std::abs(again.points[0].distance_m - gap) <= 1e-14);
        CHECK((again.points[0].point_a_W - g.point_a_W).norm() <= 1e-14);
        CHECK((again.points[0].point_b_W - g.point_b_W).norm() <= 1e-14);
      }
    }
  }
}

TEST_CASE(
    "primitive: box–box warm-started while B orbits A at a fixed gap (closest features moving "
    "between corners, edges and faces) matches the corner–face and edge–edge reference, "
    "relative error 1e-9, and the cold answer within 1e-12 m, along 200 seeded orbits") {
  std::mt19937_64 rng(4711);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  PrimitiveNarrowPhase narrow_phase{contactlab::ParameterValues{}};
  int warm_steps = 0;
  for (int orbit = 0; orbit < 200; ++orbit) {
    const Vec3 h_a = random_half_extents(rng), h_b = random_half_extents(rng);
    const Shape a = Shape::box(h_a), b = Shape::box(h_b);
    const Pose X_WA = random_pose(rng, 2.0);
    const Vec3 axis = random_unit(rng);
    const Mat3 R_0 = random_rotation(rng);
    const double radius = h_a.norm() + h_b.norm() + 0.05 + 0.5 * unit(rng);  // always apart
    const Vec3 start = radius * random_unit(rng);
    NarrowPhaseCache cache;
    for (int step = 0; step < 60; ++step) {
      // B's centre turns about A's centre by 2π/60 per step and B turns with it (0.3 rad/step).
      const Mat3 turn = rotation_about(axis, 2.0 * kPi * step / 60.0);
      const Pose X_WB = make_pose(rotation_about(axis, 0.3 * step) * R_0, X_WA.p + turn * start);
      ContactManifold warm, cold;
      NarrowPhaseCache fresh;
      narrow_phase.query(a, X_WA, b, X_WB, cache, warm);
      narrow_phase.query(a, X_WA, b, X_WB, fresh, cold);
      INFO("orbit " << orbit << " step " << step);
      const double expected = check_box_box(a, X_WA, b, X_WB, warm);
      REQUIRE(expected > 0.0);
      REQUIRE(std::abs(warm.points[0].distance_m - cold.points[0].distance_m) <= 1e-12);
      warm_steps += step > 0;
    }
  }
  CHECK(warm_steps == 200 * 59);
}

TEST_CASE(
    "primitive: box–box with B's corner at, just inside and just outside the boundary of A's "
    "face (±1e-15 to ±1e-6 of the half extent) and gaps from 1 m down to touching matches the "
    "corner–face and edge–edge reference, relative error 1e-9 plus 1e-12 of the size (the "
    "touching tolerance), cold and warm") {
  std::mt19937_64 rng(6502);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  PrimitiveNarrowPhase narrow_phase{contactlab::ParameterValues{}};
  const double offsets[] = {-1e-6, -1e-9, -1e-12, -1e-15, 0.0, 1e-15, 1e-12, 1e-9, 1e-6};
  const double gaps[] = {1.0, 1e-3, 1e-6, 1e-9, 1e-12, 0.0};
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    const Vec3 h_a = random_half_extents(rng), h_b = random_half_extents(rng);
    const Pose X_WA = random_pose(rng, 3.0);
    const Mat3 R_AB = random_rotation(rng);
    const int axis = i % 3, p = (axis + 1) % 3, q = (axis + 2) % 3;
    const double side = (i / 3) % 2 == 0 ? 1.0 : -1.0;
    const Vec3 m_A = side * Vec3::Unit(axis);
    // B's support corner along −m (unique for a random turn), from B's centre.
    const Vec3 signs_B = -(R_AB.transpose() * m_A);
    Vec3 corner_from_centre_B;
    for (int c = 0; c < 3; ++c) corner_from_centre_B[c] = signs_B[c] < 0.0 ? -h_b[c] : h_b[c];
    const double y = (2.0 * unit(rng) - 1.0) * h_a[q];
    for (const double offset : offsets) {
      for (const double gap : gaps) {
        Vec3 corner_A = Vec3::Zero();
        corner_A[axis] = side * (h_a[axis] + gap);
        corner_A[p] = (1.0 + offset) * h_a[p];  // at the edge of the face along p
        corner_A[q] = y;
        const Pose X_WB = X_WA * make_pose(R_AB, corner_A - R_AB * corner_from_centre_B);
        const Shape a = Shape::box(h_a), b = Shape::box(h_b);
        INFO("sample " << i << " offset " << offset << " gap " << gap);
        NarrowPhaseCache cache;
        for (int pass = 0; pass < 2; ++pass) {  // cold, then warm from the cold answer
          ContactManifold m;
          narrow_phase.query(a, X_WA, b, X_WB, cache, m);
          const double reference = reference_box_signed_distance(h_a, X_WA, h_b, X_WB);
          // Below 1e-12 of the size the boxes count as touching (header): the contact path then
          // answers, to that tolerance.
          const double size = h_a.maxCoeff() + h_b.maxCoeff();
          const double tolerance = 1e-9 * std::abs(reference) + 1e-12 * size;
          REQUIRE(std::abs(m.points[0].distance_m - reference) <= tolerance);
          check_contract(m.points[0], 1e-12);
          // The corner on the face (or its boundary) at gap 0: touching.
          if (gap == 0.0 && offset <= 0.0) CHECK(std::abs(m.points[0].distance_m) <= 1e-12 * size);
          ++checked;
        }
      }
    }
  }
  CHECK(checked == 300 * 9 * 6 * 2);
}

namespace {

/// Sutherland–Hodgman clipping of a 3-D polygon to the half-space n·x ≤ d, written independently
/// of the plugin (which clips by slab tests in the reference face's coordinates).
std::vector<Vec3> clip_to_half_space(const std::vector<Vec3>& polygon, const Vec3& n, double d) {
  std::vector<Vec3> out;
  for (std::size_t i = 0; i < polygon.size(); ++i) {
    const Vec3& from = polygon[i];
    const Vec3& to = polygon[(i + 1) % polygon.size()];
    const double f_from = n.dot(from) - d, f_to = n.dot(to) - d;
    if (f_from <= 0.0) out.push_back(from);
    if ((f_from < 0.0 && f_to > 0.0) || (f_from > 0.0 && f_to < 0.0)) {
      out.push_back(from + f_from / (f_from - f_to) * (to - from));
    }
  }
  return out;
}

/// The face contact of two boxes with reference box R (half extents h_r, pose X_WR) and reference
/// face normal m_W (outward, world), incident box I: the incident face (most anti-parallel to
/// m_W) clipped to the reference face's four side planes, world coordinates, with each vertex's
/// height above the reference face plane.
std::vector<std::pair<Vec3, double>> reference_face_contact(const Vec3& h_r, const Pose& X_WR,
                                                            const Vec3& m_W, const Vec3& h_i,
                                                            const Pose& X_WI) {
  int axis = 0;
  for (int k = 1; k < 3; ++k) {
    if (std::abs(X_WR.R.col(k).dot(m_W)) > std::abs(X_WR.R.col(axis).dot(m_W))) axis = k;
  }
  int incident = 0;
  for (int k = 1; k < 3; ++k) {
    if (std::abs(X_WI.R.col(k).dot(m_W)) > std::abs(X_WI.R.col(incident).dot(m_W))) incident = k;
  }
  const double face_side = X_WI.R.col(incident).dot(m_W) > 0.0 ? -1.0 : 1.0;
  const int u = (incident + 1) % 3, v = (incident + 2) % 3;
  const Vec3 c = X_WI.p + face_side * h_i[incident] * X_WI.R.col(incident);
  const Vec3 a = h_i[u] * X_WI.R.col(u), b = h_i[v] * X_WI.R.col(v);
  std::vector<Vec3> polygon = {c + a + b, c - a + b, c - a - b, c + a - b};
  for (const int k : {(axis + 1) % 3, (axis + 2) % 3}) {
    const Vec3 e = X_WR.R.col(k);
    polygon = clip_to_half_space(polygon, e, e.dot(X_WR.p) + h_r[k]);
    polygon = clip_to_half_space(polygon, -e, -e.dot(X_WR.p) + h_r[k]);
  }
  const double plane = m_W.dot(X_WR.p) + h_r[axis];
  std::vector<std::pair<Vec3, double>> out;
  for (const Vec3& x : polygon) out.emplace_back(x, m_W.dot(x) - plane);
  return out;
}

}  // namespace

TEST_CASE(
    "primitive: box–box face contacts: every manifold point is a penetrating vertex of an "
    "independent Sutherland–Hodgman clip of the incident face, the deepest first and the "
    "farthest from it second, within 1e-10 m, on 4,000 seeded poses (tilted, axis-aligned, "
    "quarter-turned, larger incident faces)") {
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int face_contacts = 0, multi_point = 0;
  for (int i = 0; i < 4000; ++i) {
    Vec3 h_a = random_half_extents(rng), h_b = random_half_extents(rng);
    if (i % 4 == 3) h_b = 2.0 * h_a.cwiseMax(h_b);  // B's faces cover A's: A's corners inside
    // B above A's top face, tilted a little (or not at all, or by a quarter turn about z).
    Mat3 R_AB = Mat3::Identity();
    if (i % 4 == 0 || i % 4 == 3) {
      R_AB = rotation_about(random_unit(rng), 0.2 * unit(rng)) *
             rotation_about(Vec3::UnitZ(), 2.0 * kPi * unit(rng));
    } else if (i % 4 == 2) {
      R_AB = rotation_about(Vec3::UnitZ(), kPi / 2);
    }
    // B's lowest corner along A's z, from B's centre (in A's frame).
    const Vec3 down_B = -(R_AB.transpose() * Vec3::UnitZ());
    Vec3 lowest_local;
    for (int c = 0; c < 3; ++c) lowest_local[c] = down_B[c] < 0.0 ? -h_b[c] : h_b[c];
    const Vec3 lowest_B = R_AB * lowest_local;
    // That corner over A's top face, `depth` below it.
    const double depth = 0.02 * std::min(h_a.z(), h_b.minCoeff()) * unit(rng);
    const Vec3 target(0.9 * (2.0 * unit(rng) - 1.0) * h_a.x(),
                      0.9 * (2.0 * unit(rng) - 1.0) * h_a.y(), h_a.z() - depth);
    const Vec3 offset_A = target - lowest_B;
    const Pose X_WA = random_pose(rng, 2.0);
    const Pose X_WB = X_WA * make_pose(R_AB, offset_A);
    const Shape a = Shape::box(h_a), b = Shape::box(h_b);
    const ContactManifold m = run_manifold(a, X_WA, b, X_WB);
    INFO("sample " << i);
    const double expected = check_box_box(a, X_WA, b, X_WB, m);
    REQUIRE(expected <= 0.0);
    // Which face is the reference: A's when the normal is one of A's axes.
    const Vec3 n_W = m.points[0].normal_W;
    bool reference_a = false, reference_b = false;
    for (int k = 0; k < 3; ++k) {
      reference_a = reference_a || std::abs(std::abs(n_W.dot(X_WA.R.col(k))) - 1.0) <= 1e-12;
      reference_b = reference_b || std::abs(std::abs(n_W.dot(X_WB.R.col(k))) - 1.0) <= 1e-12;
    }
    if (!reference_a && !reference_b) continue;  // an edge–edge contact
    ++face_contacts;
    const auto vertices = reference_a ? reference_face_contact(h_a, X_WA, n_W, h_b, X_WB)
                                      : reference_face_contact(h_b, X_WB, -n_W, h_a, X_WA);
    const double size = h_a.maxCoeff() + h_b.maxCoeff();
    std::vector<Vec3> penetrating;
    for (const auto& [x, height] : vertices) {
      if (height <= 1e-12 * size) penetrating.push_back(x);
    }
    // The incident point of each manifold point: B's when A is the reference, else A's.
    std::vector<Vec3> reported;
    for (int k = 0; k < m.count; ++k) {
      reported.push_back(reference_a ? m.points[k].point_b_W : m.points[k].point_a_W);
      CHECK(matches_one_of(reported.back(), penetrating, 1e-10));
    }
    // A deepest penetrating vertex comes first (ties: any of them); the farthest from it second
    // (the reduction rule of the header), whenever two distinct vertices penetrate.
    double deepest = 0.0;
    for (const auto& vertex : vertices) deepest = std::min(deepest, vertex.second);
    CHECK(std::abs(m.points[0].distance_m - deepest) <= 1e-12);
    double farthest = 0.0;
    for (const Vec3& x : penetrating) farthest = std::max(farthest, (x - reported[0]).norm());
    if (farthest > 1e-9 * size) {
      REQUIRE(m.count >= 2);
      CHECK(std::abs((reported[1] - reported[0]).norm() - farthest) <= 1e-10);
      ++multi_point;
    }
  }
  CHECK(face_contacts >= 3000);
  CHECK(multi_point >= 2000);
}

TEST_CASE(
    "primitive: overlapping box–box with nearly parallel edges (relative turns 1e-3 to 1e-12 rad "
    "from a signed axis permutation) has the depth of an independent 15-axis SAT, relative error "
    "1e-9 plus 1e-13 m, on 3,000 seeded poses") {
  std::mt19937_64 rng(1729);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 3000; ++i) {
    const Vec3 h_a = random_half_extents(rng), h_b = random_half_extents(rng);
    std::array<int, 3> order{0, 1, 2};
    std::shuffle(order.begin(), order.end(), rng);
    Mat3 permutation = Mat3::Zero();
    for (int c = 0; c < 3; ++c) permutation(order[c], c) = unit(rng) < 0.5 ? -1.0 : 1.0;
    if (permutation.determinant() < 0.0) permutation.col(0) *= -1.0;
    const double angle = std::pow(10.0, -3.0 - 9.0 * unit(rng));
    const Mat3 R_AB = rotation_about(random_unit(rng), angle) * permutation;
    const Pose X_WA = random_pose(rng, 1.0);
    const BoxPair pair = place_boxes_with(rng, h_a, h_b, X_WA, X_WA.R * R_AB, 1 + i % 2);
    const Shape a = Shape::box(h_a), b = Shape::box(h_b);
    INFO("sample " << i << ", angle " << angle);
    const ContactManifold m = run_manifold(a, pair.X_WA, b, pair.X_WB);
    const double expected = reference_sat(h_a, pair.X_WA, h_b, pair.X_WB);
    REQUIRE(expected <= 0.0);
    REQUIRE(std::abs(m.points[0].distance_m - expected) <= 1e-9 * std::abs(expected) + 1e-13);
    check_manifold(m, 1e-12);
    // The normal: an axis whose separation is the depth, or within 1e-12 of the size of it when
    // a face is preferred to a nearly parallel one (the documented tie rule).
    const double size = h_a.maxCoeff() + h_b.maxCoeff();
    CHECK(std::abs(support_separation(a, pair.X_WA, b, pair.X_WB, m.points[0].normal_W) -
                   expected) <= 1e-9 * std::abs(expected) + 1e-12 * size);
  }
}

TEST_CASE(
    "primitive: a sharp box answers as the same box smoothed by 1e-300 m (the core shortcut), "
    "box–box cold and warm and sphere–box, within 1e-15 relative") {
  // A radius of 1e-300 m leaves the core and every swept point unchanged in double precision, but
  // takes the general core and sweep code instead of the sharp box's shortcut.
  std::mt19937_64 rng(0x5A4B);
  std::uniform_real_distribution<double> size(0.1, 1.0), offset(-1.2, 1.2);
  PrimitiveNarrowPhase narrow_phase{ParameterValues{}};
  auto same = [](const ContactManifold& sharp, const ContactManifold& smoothed) {
    REQUIRE(sharp.count == smoothed.count);
    for (int i = 0; i < sharp.count; ++i) {
      const ContactGeometry& p = sharp.points[i];
      const ContactGeometry& q = smoothed.points[i];
      const double scale = 1.0 + p.point_a_W.cwiseAbs().maxCoeff();
      CHECK(std::abs(p.distance_m - q.distance_m) <= 1e-15 * scale);
      CHECK((p.normal_W - q.normal_W).norm() <= 1e-15);
      CHECK((p.point_a_W - q.point_a_W).norm() <= 1e-15 * scale);
      CHECK((p.point_b_W - q.point_b_W).norm() <= 1e-15 * scale);
    }
  };
  for (int sample = 0; sample < 2000; ++sample) {
    Shape a = Shape::box(Vec3(size(rng), size(rng), size(rng)));
    Shape b = Shape::box(Vec3(size(rng), size(rng), size(rng)));
    Shape a_smoothed = a, b_smoothed = b;
    a_smoothed.smoothing_radius_m = 1e-300;
    b_smoothed.smoothing_radius_m = 1e-300;
    Pose X_WA, X_WB;
    X_WA.R = random_rotation(rng);
    X_WB.R = random_rotation(rng);
    X_WA.p = Vec3(offset(rng), offset(rng), offset(rng));
    X_WB.p = Vec3(offset(rng), offset(rng), offset(rng));
    // Box–box, each from a cold cache and then warm from its own first answer.
    NarrowPhaseCache sharp_cache, smoothed_cache;
    for (int pass = 0; pass < 2; ++pass) {
      ContactManifold sharp, smoothed;
      narrow_phase.query(a, X_WA, b, X_WB, sharp_cache, sharp);
      narrow_phase.query(a_smoothed, X_WA, b_smoothed, X_WB, smoothed_cache, smoothed);
      same(sharp, smoothed);
    }
    const Shape sphere = Shape::sphere(size(rng));
    ContactManifold sharp, smoothed;
    NarrowPhaseCache cache;
    narrow_phase.query(sphere, X_WA, b, X_WB, cache, sharp);
    narrow_phase.query(sphere, X_WA, b_smoothed, X_WB, cache, smoothed);
    same(sharp, smoothed);
  }
}
