// Unit tests of the geometry library's closest points of simplices to the origin
// (contactlab/geometry/voronoi_closest_point.hpp), in double with a vector type of the test's own
// (the interface the header asks for), against independent references: a triangle's closest point
// from its plane's projection or its edges', a tetrahedron's from its faces'.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>

#include <catch2/catch.hpp>
#include <contactlab/geometry/voronoi_closest_point.hpp>
#include <contactlab/math.hpp>

#include "narrow_phase_test_support.hpp"

namespace {

/// The smallest vector type the header's templates accept.
struct TestVector {
  using Scalar = double;
  double x = 0.0, y = 0.0, z = 0.0;
  friend TestVector operator+(const TestVector& a, const TestVector& b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
  }
  friend TestVector operator-(const TestVector& a, const TestVector& b) {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
  }
  friend TestVector operator*(const TestVector& a, double s) { return {a.x * s, a.y * s, a.z * s}; }
};
double dot(const TestVector& a, const TestVector& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
TestVector cross(const TestVector& a, const TestVector& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
double norm(const TestVector& a) {
  return std::sqrt(dot(a, a));
}

/// A point with a witness riding along (its index), as MPR's support points carry theirs.
struct TestPoint {
  TestVector p;
  int id = -1;
};
using Simplex = contactlab::geometry::voronoi::WeightedSimplex<TestPoint, double>;

contactlab::Vec3 eigen(const TestVector& v) {
  return {v.x, v.y, v.z};
}
TestVector from(const contactlab::Vec3& v) {
  return {v.x(), v.y(), v.z()};
}

/// Reference: the point of segment [a, b] closest to the origin, by clamping the projection.
contactlab::Vec3 segment_point(const contactlab::Vec3& a, const contactlab::Vec3& b) {
  const contactlab::Vec3 ab = b - a;
  const double t = std::clamp(-a.dot(ab) / ab.squaredNorm(), 0.0, 1.0);
  return a + t * ab;
}

/// Reference: the point of triangle (a, b, c) closest to the origin: the plane's foot when its
/// barycentric coordinates (from a 2×2 system) are all ≥ 0, else the nearest edge's point.
contactlab::Vec3 triangle_point(const contactlab::Vec3& a, const contactlab::Vec3& b,
                                const contactlab::Vec3& c) {
  const contactlab::Vec3 e1 = b - a, e2 = c - a;
  const double a11 = e1.dot(e1), a12 = e1.dot(e2), a22 = e2.dot(e2);
  const double r1 = -a.dot(e1), r2 = -a.dot(e2);
  const double det = a11 * a22 - a12 * a12;
  const double s = (r1 * a22 - r2 * a12) / det, t = (a11 * r2 - a12 * r1) / det;
  if (s >= 0.0 && t >= 0.0 && s + t <= 1.0) return a + s * e1 + t * e2;
  contactlab::Vec3 best = segment_point(a, b);
  for (const contactlab::Vec3& p : {segment_point(b, c), segment_point(a, c)})
    if (p.norm() < best.norm()) best = p;
  return best;
}

/// The closest point, its weights and the witnesses: the kept points' weights are ≥ 0, sum to 1
/// and combine the kept points to the closest point, all within `tolerance`.
void check_weights(const Simplex& s, const TestVector& closest, double tolerance) {
  double sum = 0.0;
  contactlab::Vec3 combined = contactlab::Vec3::Zero();
  for (int k = 0; k < s.size; ++k) {
    CHECK(s.weights[k] >= -tolerance);
    sum += s.weights[k];
    combined += s.weights[k] * eigen(s.points[k].p);
  }
  CHECK(std::abs(sum - 1.0) <= tolerance);
  CHECK((combined - eigen(closest)).norm() <= tolerance);
}

}  // namespace

TEST_CASE(
    "voronoi closest point: segments and triangles give the reference closest point to the "
    "origin within 1e-12, with weights that sum to 1 and rebuild the point within 1e-12") {
  using namespace contactlab::geometry::voronoi;
  std::mt19937_64 rng(2029);
  std::uniform_real_distribution<double> coordinate(-1.0, 1.0);
  const auto random_point = [&] {
    return contactlab::Vec3(coordinate(rng), coordinate(rng), coordinate(rng));
  };
  for (int i = 0; i < 20000; ++i) {
    const std::array<contactlab::Vec3, 3> p = {random_point(), random_point(), random_point()};
    Simplex segment;
    segment.points = {TestPoint{from(p[0]), 0}, TestPoint{from(p[1]), 1}};
    segment.size = 2;
    bool enclosed = true;
    const TestVector on_segment = closest_on_simplex(segment, 1e-14, enclosed);
    INFO("sample " << i);
    CHECK(!enclosed);
    CHECK((eigen(on_segment) - segment_point(p[0], p[1])).norm() <= 1e-12);
    check_weights(segment, on_segment, 1e-12);

    Simplex triangle;
    triangle.points = {TestPoint{from(p[0]), 0}, TestPoint{from(p[1]), 1},
                       TestPoint{from(p[2]), 2}};
    triangle.size = 3;
    const TestVector on_triangle = closest_on_simplex(triangle, 1e-14, enclosed);
    CHECK((eigen(on_triangle) - triangle_point(p[0], p[1], p[2])).norm() <= 1e-12);
    check_weights(triangle, on_triangle, 1e-12);
    // The witnesses ride along: each kept point is one of the triangle's, in ascending order.
    for (int k = 1; k < triangle.size; ++k)
      CHECK(triangle.points[k - 1].id < triangle.points[k].id);
  }
}

TEST_CASE(
    "voronoi closest point: a tetrahedron holding the origin is enclosed, and one that does not "
    "gives "
    "its nearest face's reference closest point within 1e-12") {
  using namespace contactlab::geometry::voronoi;
  std::mt19937_64 rng(2030);
  std::uniform_real_distribution<double> coordinate(-1.0, 1.0);
  const auto random_point = [&] {
    return contactlab::Vec3(coordinate(rng), coordinate(rng), coordinate(rng));
  };
  int inside = 0, outside = 0;
  for (int i = 0; i < 20000; ++i) {
    std::array<contactlab::Vec3, 4> p;
    for (auto& point : p) point = random_point();
    Simplex tetrahedron;
    for (int k = 0; k < 4; ++k) tetrahedron.points[k] = TestPoint{from(p[k]), k};
    tetrahedron.size = 4;
    bool enclosed = false;
    const TestVector closest = closest_on_simplex(tetrahedron, 1e-14, enclosed);
    // Reference: the origin is inside iff it is on the inner side of every face.
    bool holds_origin = true;
    contactlab::Vec3 nearest = contactlab::Vec3::Constant(std::numeric_limits<double>::infinity());
    constexpr int faces[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};
    for (const auto& f : faces) {
      const contactlab::Vec3 n = (p[f[1]] - p[f[0]]).cross(p[f[2]] - p[f[0]]);
      holds_origin = holds_origin && (n.dot(-p[f[0]]) * n.dot(p[f[3]] - p[f[0]]) > 0.0);
      const contactlab::Vec3 on_face = triangle_point(p[f[0]], p[f[1]], p[f[2]]);
      if (on_face.norm() < nearest.norm()) nearest = on_face;
    }
    INFO("sample " << i);
    if (holds_origin) {
      ++inside;
      CHECK(enclosed);
      continue;
    }
    ++outside;
    CHECK(!enclosed);
    CHECK((eigen(closest) - nearest).norm() <= 1e-12);
    check_weights(tetrahedron, closest, 1e-12);
  }
  CHECK(inside > 100);
  CHECK(outside > 100);
}
