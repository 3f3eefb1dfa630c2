// Closest point to the origin of a point, segment, triangle or tetrahedron by the Voronoi regions
// of its features (Ericson 2005, Real-Time Collision Detection §5.1.5), in any arithmetic: the
// sub-simplex step of a GJK distance iteration (Gilbert, Johnson and Keerthi 1988). Each routine
// keeps only the vertices of the feature that holds the closest point, with their barycentric
// weights, so that points carrying more than a position (the witnesses on A and B of a point of
// A ⊖ B) are combined by the caller with the same weights.
//
// Used by the MPR narrow phase (plugins/narrowphase-mpr: its closest-point completion and the TC3
// witnesses), in double, long double and double-double. The gjk_epa narrow phase's GJK finds the
// same sub-simplex by signed volumes (Montanari, Petrinic and Barbieri 2017) instead: a different
// sequence of operations, whose answers agree with these to rounding, not bit for bit.
//
// The types are the caller's: a Point is any struct with a member `p`, its position, of a vector
// type V with a member type V::Scalar, value-initialised to zero, with V + V, V − V and V * Scalar,
// and with dot(V, V), cross(V, V) and norm(V) found by argument-dependent lookup (the MPR plugin's
// Vector3<T>, whose operators must stay always inlined there, which no SDK header may ask for).
// Scalar has the arithmetic and comparisons of a floating type, abs() by std::abs or
// argument-dependent lookup, and a conversion from double.
//
// The functions have internal linkage (static), for the reason given in
// branchless_hull_support.hpp: a caller's registers are allocated knowing what they clobber.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

namespace contactlab::geometry::voronoi {

/// The position type of a Point (its member `p`).
template <class Point>
using Position = decltype(Point::p);

/// Up to four points with the barycentric weights of the point of their hull closest to the
/// origin (weights[0..size), for points[0..size)).
template <class Point, class Scalar>
struct WeightedSimplex {
  std::array<Point, 4> points{};
  std::array<Scalar, 4> weights{};
  int size = 0;
};

/// Keeps vertex i alone, with weight 1.
template <class Point, class T>
static Position<Point> keep_vertex(WeightedSimplex<Point, T>& s, int i) {
  s.points[0] = s.points[i];
  s.weights[0] = T(1.0);
  s.size = 1;
  return s.points[0].p;
}

/// Keeps vertices i and j with weights (1 − t, t).
template <class Point, class T>
static Position<Point> keep_edge(WeightedSimplex<Point, T>& s, int i, int j, const T& t) {
  const Point pi = s.points[i];
  const Point pj = s.points[j];
  s.points[0] = pi;
  s.points[1] = pj;
  s.weights[0] = T(1.0) - t;
  s.weights[1] = t;
  s.size = 2;
  return pi.p + (pj.p - pi.p) * t;
}

/// The point of segment (points[0], points[1]) closest to the origin.
template <class Point, class T>
static Position<Point> closest_on_segment(WeightedSimplex<Point, T>& s) {
  const Position<Point> a = s.points[0].p;
  const Position<Point> ab = s.points[1].p - a;
  const T length_squared = dot(ab, ab);
  const T along = -dot(a, ab);  // (origin − a)·ab
  if (!(along > T(0.0)) || !(length_squared > T(0.0))) return keep_vertex(s, 0);
  if (along >= length_squared) return keep_vertex(s, 1);
  return keep_edge(s, 0, 1, T(along / length_squared));
}

/// The point of triangle (p[0], p[1], p[2]) closest to the origin, as barycentric weights of the
/// vertices it keeps (kept[0..size), in ascending order; the others' weights are 0), without the
/// support points' witnesses: callers combine those only for the kept vertices.
template <class V>
struct TriangleClosest {
  V point;
  std::array<typename V::Scalar, 3> weights{};
  std::array<int, 3> kept{};
  int size = 0;
};

template <class V>
static TriangleClosest<V> closest_triangle_point(const std::array<V, 3>& p) {
  using T = typename V::Scalar;
  TriangleClosest<V> r;
  const auto vertex = [&](int i) {
    r.point = p[i];
    r.weights[i] = T(1.0);
    r.kept[0] = i;
    r.size = 1;
    return r;
  };
  // Vertices i < j with weights (1 − t, t), as closest_on_segment keeps them.
  const auto edge = [&](int i, int j, const T& t) {
    r.point = p[i] + (p[j] - p[i]) * t;
    r.weights[i] = T(1.0) - t;
    r.weights[j] = t;
    r.kept[0] = i;
    r.kept[1] = j;
    r.size = 2;
    return r;
  };
  const V& a = p[0];
  const V& b = p[1];
  const V& c = p[2];
  const V ab = b - a;
  const V ac = c - a;
  // d_k: projections of (origin − vertex) on the two edges from a.
  const T d1 = -dot(ab, a);
  const T d2 = -dot(ac, a);
  if (d1 <= T(0.0) && d2 <= T(0.0)) return vertex(0);
  const T d3 = -dot(ab, b);
  const T d4 = -dot(ac, b);
  if (d3 >= T(0.0) && d4 <= d3) return vertex(1);
  const T area_c = d1 * d4 - d3 * d2;
  if (area_c <= T(0.0) && d1 >= T(0.0) && d3 <= T(0.0)) return edge(0, 1, d1 / (d1 - d3));
  const T d5 = -dot(ab, c);
  const T d6 = -dot(ac, c);
  if (d6 >= T(0.0) && d5 <= d6) return vertex(2);
  const T area_b = d5 * d2 - d1 * d6;
  if (area_b <= T(0.0) && d2 >= T(0.0) && d6 <= T(0.0)) return edge(0, 2, d2 / (d2 - d6));
  const T area_a = d3 * d6 - d5 * d4;
  if (area_a <= T(0.0) && d4 - d3 >= T(0.0) && d5 - d6 >= T(0.0)) {
    return edge(1, 2, (d4 - d3) / ((d4 - d3) + (d5 - d6)));
  }
  const T area = area_a + area_b + area_c;
  if (!(area > T(0.0))) {
    // A degenerate (zero-area) triangle: the closest point lies on one of its edges (the first
    // of the nearest, as closest_on_segment finds them).
    T best_distance = std::numeric_limits<double>::infinity();
    TriangleClosest<V> best;
    for (const auto& [i, j] : {std::pair{0, 1}, std::pair{0, 2}, std::pair{1, 2}}) {
      r = TriangleClosest<V>{};
      const V e = p[j] - p[i];
      const T length_squared = dot(e, e);
      const T along = -dot(p[i], e);  // (origin − p_i)·e
      if (!(along > T(0.0)) || !(length_squared > T(0.0))) {
        vertex(i);
      } else if (along >= length_squared) {
        vertex(j);
      } else {
        edge(i, j, T(along / length_squared));
      }
      const T distance = dot(r.point, r.point);
      if (distance < best_distance) {
        best_distance = distance;
        best = r;
      }
    }
    return best;
  }
  const T v = area_b / area;
  const T w = area_c / area;
  r.point = a + ab * v + ac * w;
  r.weights = {T(1.0) - v - w, v, w};
  r.kept = {0, 1, 2};
  r.size = 3;
  return r;
}

/// The point of triangle (points[0..2]) closest to the origin, the vertices it keeps first.
template <class Point, class T>
static Position<Point> closest_on_triangle(WeightedSimplex<Point, T>& s) {
  const TriangleClosest<Position<Point>> r =
      closest_triangle_point<Position<Point>>({s.points[0].p, s.points[1].p, s.points[2].p});
  if (r.size < 3) {
    const std::array<Point, 3> vertices{s.points[0], s.points[1], s.points[2]};
    for (int k = 0; k < r.size; ++k) s.points[k] = vertices[r.kept[k]];
  }
  for (int k = 0; k < r.size; ++k) s.weights[k] = r.weights[r.kept[k]];
  s.size = r.size;
  return r.point;
}

/// Closest point of a tetrahedron; `enclosed` is set when the origin lies inside it. A tetrahedron
/// whose volume is below the rounding of its own construction (points clustered on a curved
/// surface, far from the origin) is treated as flat: only its faces are candidates.
template <class Point, class T>
static Position<Point> closest_on_tetrahedron(WeightedSimplex<Point, T>& s, const T& flatness,
                                              bool& enclosed) {
  using V = Position<Point>;
  constexpr std::array<std::array<int, 4>, 4> faces = {
      {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}}};  // three face vertices, opposite
  using std::abs;
  const V& a = s.points[0].p;
  const V ab = s.points[1].p - a;
  const V ac = s.points[2].p - a;
  const V ad = s.points[3].p - a;
  const T edge = std::max({norm(ab), norm(ac), norm(ad)});
  const T magnitude =
      std::max({norm(a), norm(s.points[1].p), norm(s.points[2].p), norm(s.points[3].p)});
  // The volume's rounding error scales with |p|·edge², its size with edge³.
  const bool flat = !(abs(dot(ab, cross(ac, ad))) > flatness * magnitude * edge * edge);
  enclosed = !flat;
  WeightedSimplex<Point, T> best;
  V best_point;
  T best_distance = std::numeric_limits<double>::infinity();
  for (const auto& face : faces) {
    const V& p0 = s.points[face[0]].p;
    const V normal = cross(s.points[face[1]].p - p0, s.points[face[2]].p - p0);
    const T origin_side = -dot(normal, p0);
    const T opposite_side = dot(normal, s.points[face[3]].p - p0);
    // The origin is outside this face when it lies on the other side than the opposite vertex.
    if (!flat && !(origin_side * opposite_side < T(0.0))) continue;
    enclosed = false;
    WeightedSimplex<Point, T> triangle;
    for (int k = 0; k < 3; ++k) triangle.points[k] = s.points[face[k]];
    triangle.size = 3;
    const V point = closest_on_triangle(triangle);
    const T distance = dot(point, point);
    if (distance < best_distance) {
      best_distance = distance;
      best = triangle;
      best_point = point;
    }
  }
  if (enclosed) {
    for (int k = 0; k < 4; ++k) s.weights[k] = T(0.25);
    return V{};
  }
  s = best;
  return best_point;
}

/// The point of the hull of s.points[0..size) closest to the origin: the vertices of the feature
/// that holds it are kept first, with their weights; `enclosed` is set when a tetrahedron holds
/// the origin. `flatness`: the relative volume below which a tetrahedron counts as flat (MPR
/// passes Neumayr's ε).
template <class Point, class T>
static Position<Point> closest_on_simplex(WeightedSimplex<Point, T>& s, const T& flatness,
                                          bool& enclosed) {
  enclosed = false;
  switch (s.size) {
    case 1:
      return keep_vertex(s, 0);
    case 2:
      return closest_on_segment(s);
    case 3:
      return closest_on_triangle(s);
    default:
      return closest_on_tetrahedron(s, flatness, enclosed);
  }
}

}  // namespace contactlab::geometry::voronoi
