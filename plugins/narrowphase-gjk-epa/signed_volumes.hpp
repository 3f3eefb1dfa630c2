// GJK's simplex and the signed-volumes sub-distance algorithm (Montanari, Petrinic & Barbieri
// 2017): the point of up to four support points' hull closest to the origin.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <contactlab/shapes.hpp>

#include "core_support.hpp"

namespace contactlab::plugins::gjk_epa {

// ---------------------------------------------------------------------------------------------
// Signed-volumes sub-distance algorithm (Montanari, Petrinic & Barbieri 2017, §3 and alg. 2–4).
// Given up to four points, find the point of their convex hull closest to the origin, the smallest
// subset whose hull contains it and its barycentric coordinates. The barycentric coordinates of
// the origin's projection on the simplex's affine hull are ratios of signed volumes (areas,
// lengths); a facet is searched only when the sign of its opposite coordinate disagrees with the
// simplex's own volume. Areas and lengths are measured in the coordinate plane (axis) where the
// simplex's projection is largest, which keeps the ratios well conditioned, and a zero or
// non-finite volume simply fails every sign test, so degenerate simplices fall through to their
// facets instead of dividing by zero. Montanari et al. report Johnson's sub-algorithm, with its
// fixed-epsilon determinant tests, failing on exactly such nearly degenerate simplices.

struct SubSimplex {
  std::array<int, 4> index{};
  std::array<double, 4> lambda{};
  int count = 0;
  Vec3 v = Vec3::Zero();
  double vv = std::numeric_limits<double>::infinity();
};

inline bool same_sign(double x, double y) {
  return (x > 0.0 && y > 0.0) || (x < 0.0 && y < 0.0);
}

inline SubSimplex sub_vertex(const SupportPoint* w, int i) {
  SubSimplex s;
  s.count = 1;
  s.index[0] = i;
  s.lambda[0] = 1.0;
  s.v = w[i].w;
  s.vv = s.v.squaredNorm();
  return s;
}

inline void keep_closer(SubSimplex& best, const SubSimplex& candidate) {
  if (candidate.vv < best.vv || best.count == 0) best = candidate;
}

// Each function below builds its answer in one named object, `result`, so that it is returned
// in place (NRVO): copying a SubSimplex just written field by field stalls on store forwarding.

// S1D: segment w[i0] w[i1].
inline SubSimplex sub_segment(const SupportPoint* w, int i0, int i1) {
  const Vec3& s1 = w[i0].w;
  const Vec3& s2 = w[i1].w;
  const Vec3 e = s2 - s1;
  const double ee = e.squaredNorm();
  SubSimplex result;
  if (!(ee > 0.0)) {
    result = sub_vertex(w, i0);
    keep_closer(result, sub_vertex(w, i1));
    return result;
  }
  // Projection of the origin on the line, then signed lengths along the dominant axis.
  const Vec3 p0 = s1 - (s1.dot(e) / ee) * e;
  int axis = 0;
  e.cwiseAbs().maxCoeff(&axis);
  const double mu = s1[axis] - s2[axis];
  const double c1 = p0[axis] - s2[axis];  // weight of s1 times mu
  const double c2 = s1[axis] - p0[axis];  // weight of s2 times mu
  if (same_sign(mu, c1) && same_sign(mu, c2)) {
    result.count = 2;
    result.index = {i0, i1, 0, 0};
    result.lambda[0] = c1 / mu;
    result.lambda[1] = c2 / mu;
    result.v = result.lambda[0] * s1 + result.lambda[1] * s2;
    result.vv = result.v.squaredNorm();
    return result;
  }
  // The origin projects beyond s2, or beyond s1.
  const int i = !same_sign(mu, c1) ? i1 : i0;
  result.count = 1;
  result.index[0] = i;
  result.lambda[0] = 1.0;
  result.v = w[i].w;
  result.vv = result.v.squaredNorm();
  return result;
}

// S2D: triangle w[i0] w[i1] w[i2].
inline SubSimplex sub_triangle(const SupportPoint* w, int i0, int i1, int i2) {
  const Vec3& s1 = w[i0].w;
  const Vec3& s2 = w[i1].w;
  const Vec3& s3 = w[i2].w;
  const Vec3 n = (s2 - s1).cross(s3 - s1);
  const double nn = n.squaredNorm();
  SubSimplex result;
  if (nn > 0.0 && std::isfinite(nn)) {
    const Vec3 p0 = (s1.dot(n) / nn) * n;  // the origin projected on the triangle's plane
    int k = 0;
    n.cwiseAbs().maxCoeff(&k);
    const int x = (k + 1) % 3;
    const int y = (k + 2) % 3;
    auto area = [x, y](const Vec3& p, const Vec3& q) { return p[x] * q[y] - p[y] * q[x]; };
    const double mu = n[k];  // twice the projected signed area of the triangle
    const std::array<double, 3> c = {area(s2 - p0, s3 - p0), area(s3 - p0, s1 - p0),
                                     area(s1 - p0, s2 - p0)};
    if (same_sign(mu, c[0]) && same_sign(mu, c[1]) && same_sign(mu, c[2])) {
      const double sum = c[0] + c[1] + c[2];
      result.count = 3;
      result.index = {i0, i1, i2, 0};
      for (int j = 0; j < 3; ++j) result.lambda[j] = c[j] / sum;
      result.v = result.lambda[0] * s1 + result.lambda[1] * s2 + result.lambda[2] * s3;
      result.vv = result.v.squaredNorm();
      return result;
    }
    const std::array<int, 3> ids = {i0, i1, i2};
    for (int j = 0; j < 3; ++j) {
      if (!same_sign(mu, c[j]))
        keep_closer(result, sub_segment(w, ids[(j + 1) % 3], ids[(j + 2) % 3]));
    }
    if (result.count > 0) return result;
  }
  // Degenerate (collinear or non-finite) triangle: the closest point lies on an edge.
  keep_closer(result, sub_segment(w, i0, i1));
  keep_closer(result, sub_segment(w, i1, i2));
  keep_closer(result, sub_segment(w, i0, i2));
  return result;
}

// S3D: tetrahedron w[0..3].
inline SubSimplex sub_tetrahedron(const SupportPoint* w) {
  const Vec3& s1 = w[0].w;
  const Vec3& s2 = w[1].w;
  const Vec3& s3 = w[2].w;
  const Vec3& s4 = w[3].w;
  // Six times the signed volume, and the same with each vertex replaced by the origin.
  const double volume = (s2 - s1).dot((s3 - s1).cross(s4 - s1));
  const std::array<double, 4> c = {s2.dot(s3.cross(s4)), -s1.dot((s3 - s1).cross(s4 - s1)),
                                   (s2 - s1).dot((-s1).cross(s4 - s1)),
                                   (s2 - s1).dot((s3 - s1).cross(-s1))};
  SubSimplex result;
  if (same_sign(volume, c[0]) && same_sign(volume, c[1]) && same_sign(volume, c[2]) &&
      same_sign(volume, c[3])) {
    const double sum = c[0] + c[1] + c[2] + c[3];
    result.count = 4;
    result.index = {0, 1, 2, 3};
    for (int j = 0; j < 4; ++j) result.lambda[j] = c[j] / sum;
    result.v = Vec3::Zero();  // the origin is inside
    result.vv = 0.0;
    return result;
  }
  for (int j = 0; j < 4; ++j) {
    if (!same_sign(volume, c[j])) {
      keep_closer(result, sub_triangle(w, (j + 1) % 4, (j + 2) % 4, (j + 3) % 4));
    }
  }
  if (result.count > 0) return result;
  for (int j = 0; j < 4; ++j) {  // only reached with non-finite input
    keep_closer(result, sub_triangle(w, (j + 1) % 4, (j + 2) % 4, (j + 3) % 4));
  }
  return result;
}

// A GJK simplex: its points, the closest point v of their hull and its barycentric coordinates.
struct Simplex {
  std::array<SupportPoint, 4> points;
  std::array<double, 4> lambda{};
  int count = 0;
  Vec3 v = Vec3::Zero();

  // The smallest sub-simplex holding the point closest to the origin. `exhaustive` searches every
  // facet, not only those the signed volumes point to: the fallback for nearly flat simplices,
  // whose volume signs rounding can flip.
  SubSimplex closest(bool exhaustive) const {
    const SupportPoint* w = points.data();
    if (count == 1) return sub_vertex(w, 0);
    if (count == 2) return sub_segment(w, 0, 1);
    if (!exhaustive) return count == 3 ? sub_triangle(w, 0, 1, 2) : sub_tetrahedron(w);
    return count == 3 ? closest_on_triangle_boundary() : closest_on_tetrahedron_boundary();
  }

  // The exhaustive searches of closest(): every edge of a triangle and every face of a
  // tetrahedron compete with the signed volumes' answer.
  SubSimplex closest_on_triangle_boundary() const {
    const SupportPoint* w = points.data();
    SubSimplex result = sub_triangle(w, 0, 1, 2);
    keep_closer(result, sub_segment(w, 0, 1));
    keep_closer(result, sub_segment(w, 1, 2));
    keep_closer(result, sub_segment(w, 0, 2));
    return result;
  }
  SubSimplex closest_on_tetrahedron_boundary() const {
    const SupportPoint* w = points.data();
    SubSimplex result = sub_tetrahedron(w);
    if (result.count < 4) {
      for (int j = 0; j < 4; ++j) {
        keep_closer(result, sub_triangle(w, (j + 1) % 4, (j + 2) % 4, (j + 3) % 4));
      }
    }
    return result;
  }

  // Keeps the sub-simplex `s` of this simplex, in the order of s.index (the order sets the
  // rounding of later sub-distance steps; results are tuned against it).
  void keep(const SubSimplex& s) {
    bool in_place = true;  // the common case (a warm start's simplex): nothing to move
    for (int i = 0; i < s.count; ++i) in_place = in_place && s.index[i] == i;
    if (!in_place) reorder(s);
    lambda = s.lambda;
    count = s.count;
    v = s.v;
  }
  void reorder(const SubSimplex& s) {
    std::array<SupportPoint, 4> kept;
    for (int i = 0; i < s.count; ++i) kept[i] = points[s.index[i]];
    for (int i = 0; i < s.count; ++i) points[i] = kept[i];
  }

  Vec3 point_a() const {
    Vec3 p = Vec3::Zero();
    for (int i = 0; i < count; ++i) p += lambda[i] * points[i].a;
    return p;
  }
  Vec3 point_b() const {
    Vec3 p = Vec3::Zero();
    for (int i = 0; i < count; ++i) p += lambda[i] * points[i].b;
    return p;
  }
};

}  // namespace contactlab::plugins::gjk_epa
