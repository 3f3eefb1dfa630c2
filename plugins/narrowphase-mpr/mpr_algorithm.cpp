// Minkowski Portal Refinement as improved by Neumayr (2025) §6.1, templated on the arithmetic.
//
// Notation (Neumayr 2025 L278–283): a support point r = (p, a, b) has p = a − b ∈ A ⊖ B, where
// a = support of A in direction e and b = support of B in direction −e, so e points from A to B.
// r0 is an interior point of A ⊖ B, the origin ray runs from r0 through the origin, and a portal
// (r1, r2, r3) is a triangle of support points the origin ray passes through (Def. 6.3).
//
// Portal orientation (our convention, as in libccd): with v_i = r_i − r0, every portal is kept
// positively oriented, v1·(v2 × v3) > 0, so its normal (r2 − r1) × (r3 − r1) points away from r0,
// and the origin ray (unit u) passes through it iff u·(v1 × v2), u·(v2 × v3) and u·(v3 × v1) are
// all ≥ 0.
#include "mpr_algorithm.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace contactlab::plugins::mpr {

const char* termination_name(Termination termination) {
  switch (termination) {
    case Termination::tc1:
      return "tc1";
    case Termination::tc2:
      return "tc2";
    case Termination::tc3_inside:
      return "tc3_inside";
    case Termination::tc3_penetrating_outside:
      return "tc3_penetrating_outside";
    case Termination::tc3_closest_point:
      return "tc3_closest_point";
    case Termination::iteration_limit:
      return "iteration_limit";
    case Termination::degenerate_portal:
      return "degenerate_portal";
    case Termination::degenerate_start:
      return "degenerate_start";
    case Termination::cores_closest_point:
      return "cores_closest_point";
    case Termination::separated_closest_point:
      return "separated_closest_point";
    case Termination::newton:
      return "newton";
    case Termination::newton_closest_point:
      return "newton_closest_point";
    case Termination::face:
      return "face";
  }
  return "unknown";
}

namespace {

/// Machine epsilon of each arithmetic, as a double.
template <class T>
double machine_epsilon() {
  return static_cast<double>(std::numeric_limits<T>::epsilon());
}
template <>
double machine_epsilon<DoubleDouble>() {
  return DoubleDouble::epsilon();
}

/// Scale of Neumayr's ε = 100·eps(T) (L471) for the degeneracy tests.
constexpr double kEpsilonFactor = 100.0;
/// The SDK computes support points in double, so every point carries a rounding error of a few
/// ulps of the coordinates; termination tests are never asked to resolve less than this many.
constexpr double kSupportRoundingUlps = 16.0;
/// Coincident interior points: r0 is moved this fraction of the way to a boundary point. Any value
/// in (0, 1) keeps r0 interior (a convex combination weighted on an interior point).
constexpr double kInteriorShiftFraction = 1.0 / 1024.0;
/// The Newton finish takes over from the refinement once its TC3 value is below this fraction of
/// the size of A ⊖ B (Newton's quadratic convergence then reaches 1e-12 in two or three steps);
/// when it gives up, it is tried again once the value is below kNewtonRetry of that, since a start
/// closer to the answer is more often in Newton's basin (near a kink of the support mapping).
constexpr double kNewtonSwitch = 1e-2;
constexpr double kNewtonRetry = 1e-2;
constexpr int kNewtonAttempts = 2;
/// Newton steps before it gives up (each one support point and one derivative).
constexpr int kNewtonSteps = 8;
/// Support evaluations of the separated Newton (steps and the shorter trials of its trust region)
/// before it gives up, and the smallest trust radius it tries.
constexpr int kSeparatedNewtonEvaluations = 16;
constexpr double kSeparatedNewtonMinRadius = 1e-3;
/// Newton gives up when the model's 2×2 Hessian has det ≤ this · trace² (a flat direction).
constexpr double kNewtonConditioning = 1e-10;
/// Largest Newton step in the chart n = u + w (|w| = tan of the angle to the ray): 45°.
constexpr double kNewtonTrustRadius = 1.0;
/// The straight-line Newton is tried when the Newton finish gives up with its normal within this
/// cosine of normal to a straight line of a boundary (|n·a| < kSideLineAngle, a the line's
/// direction: a cylinder's axis, a box's or a hull's edge).
constexpr double kSideLineAngle = 0.05;
/// A flat face's certificate (Solver::face_certificate) is tried at the first portal and where the
/// refinement would hand over to the Newton finish or to the closest-point completion, when the
/// portal normal is within this cosine of the face's normal (about 26°), once per face and query.
constexpr double kFaceCosine = 0.9;
/// The same before a separated pair's completion (Newton on the support function, then the
/// closest-point iteration), which costs far more than a failed certificate: about 60°.
constexpr double kSeparatedFaceCosine = 0.5;
/// A refinement ending whose normal is within this of a face's (1 − cosine) is cached as that
/// face (Solver::cache_face_ending).
constexpr double kFaceEndingSlack = 1e-9;

template <class T>
double to_double(const T& value) {
  return static_cast<double>(value);
}

template <class T>
struct Vector3 {
  T x{};
  T y{};
  T z{};

  [[gnu::always_inline]] static Vector3 from(const Vec3& v) {
    return {T(v.x()), T(v.y()), T(v.z())};
  }
  [[gnu::always_inline]] Vec3 to_vec3() const {
    return Vec3(to_double(x), to_double(y), to_double(z));
  }

  [[gnu::always_inline]] friend Vector3 operator+(const Vector3& a, const Vector3& b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
  }
  [[gnu::always_inline]] friend Vector3 operator-(const Vector3& a, const Vector3& b) {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
  }
  [[gnu::always_inline]] friend Vector3 operator-(const Vector3& a) { return {-a.x, -a.y, -a.z}; }
  [[gnu::always_inline]] friend Vector3 operator*(const Vector3& a, const T& s) {
    return {a.x * s, a.y * s, a.z * s};
  }
  /// One reciprocal and three products (a double-double division costs several products).
  [[gnu::always_inline]] friend Vector3 operator/(const Vector3& a, const T& s) {
    const T inverse = T(1.0) / s;
    return {a.x * inverse, a.y * inverse, a.z * inverse};
  }
};

template <class T>
[[gnu::always_inline]] inline T dot(const Vector3<T>& a, const Vector3<T>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

template <class T>
[[gnu::always_inline]] inline Vector3<T> cross(const Vector3<T>& a, const Vector3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

template <class T>
[[gnu::always_inline]] inline T norm(const Vector3<T>& a) {
  using std::sqrt;
  return sqrt(dot(a, a));
}

/// A point of A ⊖ B with the points of A and B it came from (Neumayr L278–283).
template <class T>
struct SupportPoint {
  Vector3<T> p;  ///< a − b [m]
  Vector3<T> a;  ///< on the boundary of A, world [m]
  Vector3<T> b;  ///< on the boundary of B, world [m]
  Vec3 d =
      Vec3::Zero();  ///< the search direction it is the support point of (A frame, not normalised)
};

/// Up to four support points with the barycentric weights of the point of their hull closest to
/// the origin (for the closest-point completion).
template <class T>
struct Simplex {
  std::array<SupportPoint<T>, 4> points{};
  std::array<T, 4> weights{};
  int size = 0;
};

/// The pair in the frame of A: B's pose relative to A, so that a support point of B costs one
/// rotation each way and A's none.
struct PosedPair {
  const Shape& a;
  const Shape& b;
  Mat3 R_AB;
  Vec3 p_AB;
  Vec3 world_up_A;  ///< the world's +z in A (the coincident-interior-point direction)
};

// ----- Closest points of simplices to the origin (for the closest-point completion) -----------
// Voronoi-region tests as in Ericson (2005) §5.1.5; each routine keeps only the vertices of the
// feature that holds the closest point, with their barycentric weights.

template <class T>
Vector3<T> keep_vertex(Simplex<T>& s, int i) {
  s.points[0] = s.points[i];
  s.weights[0] = T(1.0);
  s.size = 1;
  return s.points[0].p;
}

/// Keeps vertices i and j with weights (1 − t, t).
template <class T>
Vector3<T> keep_edge(Simplex<T>& s, int i, int j, const T& t) {
  const SupportPoint<T> pi = s.points[i];
  const SupportPoint<T> pj = s.points[j];
  s.points[0] = pi;
  s.points[1] = pj;
  s.weights[0] = T(1.0) - t;
  s.weights[1] = t;
  s.size = 2;
  return pi.p + (pj.p - pi.p) * t;
}

template <class T>
Vector3<T> closest_on_segment(Simplex<T>& s) {
  const Vector3<T> a = s.points[0].p;
  const Vector3<T> ab = s.points[1].p - a;
  const T length_squared = dot(ab, ab);
  const T along = -dot(a, ab);  // (origin − a)·ab
  if (!(along > T(0.0)) || !(length_squared > T(0.0))) return keep_vertex(s, 0);
  if (along >= length_squared) return keep_vertex(s, 1);
  return keep_edge(s, 0, 1, T(along / length_squared));
}

/// The point of triangle (p[0], p[1], p[2]) closest to the origin, as barycentric weights of the
/// vertices it keeps (kept[0..size), in ascending order; the others' weights are 0), without the
/// support points' witnesses: callers combine those only for the kept vertices.
template <class T>
struct TriangleClosest {
  Vector3<T> point;
  std::array<T, 3> weights{};
  std::array<int, 3> kept{};
  int size = 0;
};

template <class T>
TriangleClosest<T> closest_triangle_point(const std::array<Vector3<T>, 3>& p) {
  TriangleClosest<T> r;
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
  const Vector3<T>& a = p[0];
  const Vector3<T>& b = p[1];
  const Vector3<T>& c = p[2];
  const Vector3<T> ab = b - a;
  const Vector3<T> ac = c - a;
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
    TriangleClosest<T> best;
    for (const auto& [i, j] : {std::pair{0, 1}, std::pair{0, 2}, std::pair{1, 2}}) {
      r = TriangleClosest<T>{};
      const Vector3<T> e = p[j] - p[i];
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

template <class T>
Vector3<T> closest_on_triangle(Simplex<T>& s) {
  const TriangleClosest<T> r =
      closest_triangle_point<T>({s.points[0].p, s.points[1].p, s.points[2].p});
  if (r.size < 3) {
    const std::array<SupportPoint<T>, 3> vertices{s.points[0], s.points[1], s.points[2]};
    for (int k = 0; k < r.size; ++k) s.points[k] = vertices[r.kept[k]];
  }
  for (int k = 0; k < r.size; ++k) s.weights[k] = r.weights[r.kept[k]];
  s.size = r.size;
  return r.point;
}

/// Closest point of a tetrahedron; `enclosed` is set when the origin lies inside it. A tetrahedron
/// whose volume is below the rounding of its own construction (points clustered on a curved
/// surface, far from the origin) is treated as flat: only its faces are candidates.
template <class T>
Vector3<T> closest_on_tetrahedron(Simplex<T>& s, const T& flatness, bool& enclosed) {
  constexpr std::array<std::array<int, 4>, 4> faces = {
      {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}}};  // three face vertices, opposite
  using std::abs;
  const Vector3<T>& a = s.points[0].p;
  const Vector3<T> ab = s.points[1].p - a;
  const Vector3<T> ac = s.points[2].p - a;
  const Vector3<T> ad = s.points[3].p - a;
  const T edge = std::max({norm(ab), norm(ac), norm(ad)});
  const T magnitude =
      std::max({norm(a), norm(s.points[1].p), norm(s.points[2].p), norm(s.points[3].p)});
  // The volume's rounding error scales with |p|·edge², its size with edge³.
  const bool flat = !(abs(dot(ab, cross(ac, ad))) > flatness * magnitude * edge * edge);
  enclosed = !flat;
  Simplex<T> best;
  Vector3<T> best_point;
  T best_distance = std::numeric_limits<double>::infinity();
  for (const auto& face : faces) {
    const Vector3<T>& p0 = s.points[face[0]].p;
    const Vector3<T> normal = cross(s.points[face[1]].p - p0, s.points[face[2]].p - p0);
    const T origin_side = -dot(normal, p0);
    const T opposite_side = dot(normal, s.points[face[3]].p - p0);
    // The origin is outside this face when it lies on the other side than the opposite vertex.
    if (!flat && !(origin_side * opposite_side < T(0.0))) continue;
    enclosed = false;
    Simplex<T> triangle;
    for (int k = 0; k < 3; ++k) triangle.points[k] = s.points[face[k]];
    triangle.size = 3;
    const Vector3<T> point = closest_on_triangle(triangle);
    const T distance = dot(point, point);
    if (distance < best_distance) {
      best_distance = distance;
      best = triangle;
      best_point = point;
    }
  }
  if (enclosed) {
    for (int k = 0; k < 4; ++k) s.weights[k] = T(0.25);
    return Vector3<T>{};
  }
  s = best;
  return best_point;
}

/// `flatness`: relative volume below which a tetrahedron counts as flat (Neumayr's ε).
template <class T>
Vector3<T> closest_on_simplex(Simplex<T>& s, const T& flatness, bool& enclosed) {
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

// ----- The MPR solver -------------------------------------------------------------------------

/// The Newton step −Q⁻¹g of the 2×2 model Q = [q11 q12; q12 q22] (determinant `det` ≠ 0) with
/// the gradient (g1, g2), both in the basis (t1, t2), as a vector, shortened to
/// kNewtonTrustRadius.
[[gnu::always_inline]] inline Vec3 newton_step_2d(double q11, double q12, double q22, double det,
                                                  double g1, double g2, const Vec3& t1,
                                                  const Vec3& t2) {
  double a = -(q22 * g1 - q12 * g2) / det;
  double b = -(q11 * g2 - q12 * g1) / det;
  const double length = std::sqrt(a * a + b * b);
  if (length > kNewtonTrustRadius) {
    a *= kNewtonTrustRadius / length;
    b *= kNewtonTrustRadius / length;
  }
  return a * t1 + b * t2;
}

/// The shape's core is a polytope: a point (sphere), a segment (capsule), a box or a hull.
bool polytope_core(const Shape& shape) {
  return shape.type == ShapeType::sphere || shape.type == ShapeType::capsule ||
         shape.type == ShapeType::box || shape.type == ShapeType::convex_hull;
}

/// Index of a vertex of a small hull maximising d·x: a scan in two interleaved chains without
/// branches on the comparisons (which are as good as random), where the SDK's climb along the
/// adjacency mispredicts one branch per neighbour visited. (An SSE2 version, two vertices per
/// register with masked selects, measured slower.)
inline std::uint32_t scan_support_vertex(const ConvexHull& hull, const Vec3& d) {
  const Vec3* v = hull.vertices;
  const std::uint32_t n = hull.vertex_count;
  const double dx = d.x(), dy = d.y(), dz = d.z();
  double best0 = dx * v[0].x() + dy * v[0].y() + dz * v[0].z();
  double best1 = best0;
  std::uint32_t index0 = 0, index1 = 0;
  std::uint32_t i = 1;
  for (; i + 1 < n; i += 2) {
    const double value0 = dx * v[i].x() + dy * v[i].y() + dz * v[i].z();
    const double value1 = dx * v[i + 1].x() + dy * v[i + 1].y() + dz * v[i + 1].z();
    index0 = value0 > best0 ? i : index0;
    best0 = value0 > best0 ? value0 : best0;
    index1 = value1 > best1 ? i + 1 : index1;
    best1 = value1 > best1 ? value1 : best1;
  }
  if (i < n) {
    const double value0 = dx * v[i].x() + dy * v[i].y() + dz * v[i].z();
    index0 = value0 > best0 ? i : index0;
    best0 = value0 > best0 ? value0 : best0;
  }
  return best1 > best0 ? index1 : index0;
}

/// Index of a vertex of a hull (with adjacency) maximising d·x, by steepest ascent from `start`
/// (whose value is `start_value`): each step takes the best neighbour, selected without branches,
/// and moves while it improves. Exact for the same reason as the SDK's climb (on a convex polytope
/// a vertex no neighbour improves on is a global maximum, and each move strictly increases d·x),
/// with one branch per step instead of one per neighbour.
inline std::uint32_t climb_support_vertex(const ConvexHull& hull, const Vec3& d,
                                          std::uint32_t start, double start_value) {
  const double dx = d.x(), dy = d.y(), dz = d.z();
  std::uint32_t best = start;
  double best_value = start_value;
  for (;;) {
    std::uint32_t next = best;
    double next_value = best_value;
    const std::uint32_t end = hull.neighbor_offsets[best + 1];
    for (std::uint32_t k = hull.neighbor_offsets[best]; k < end; ++k) {
      const std::uint32_t j = hull.neighbors[k];
      const Vec3& v = hull.vertices[j];
      const double value = dx * v.x() + dy * v.y() + dz * v.z();
      next = value > next_value ? j : next;
      next_value = value > next_value ? value : next_value;
    }
    if (next == best) return best;
    best = next;
    best_value = next_value;
  }
}

/// A box's core half extents, or a cylinder's core (radius, 0, half length); zero for other
/// shapes (the solver's support shortcuts, Solver::support_point).
[[gnu::always_inline]] inline Vec3 core_size(const Shape& shape) {
  const double r = shape.smoothing_radius_m;
  if (shape.type == ShapeType::box) return shape.half_extents_m - Vec3::Constant(r);
  if (shape.type == ShapeType::cylinder) {
    return Vec3(shape.radius_m - r, 0.0, shape.half_length_m - r);
  }
  return Vec3::Zero();
}

/// A cylinder or a cone (frustum): flat caps normal to z (a pointed cone's top is its apex).
bool capped(const Shape& shape) {
  return shape.type == ShapeType::cylinder || shape.type == ShapeType::cone;
}

/// The core's radius of a cylinder's or frustum's cap at z < 0 (`negative`, a cone's base) or at
/// z > 0 (a cone's top radius), the smoothing radius taken off; 0 at a pointed cone's apex.
double core_cap_radius(const Shape& shape, bool negative) {
  const double radius =
      shape.type == ShapeType::cone && !negative ? shape.top_radius_m : shape.radius_m;
  return std::max(0.0, radius - shape.smoothing_radius_m);
}

/// The core support of a cylinder of core (radius, ·, half length) `core`: the rim point along d's
/// radial part (any, if d is axial) at the end d points to. The components are those of a
/// direction whose squares neither overflow nor underflow here (MPR's directions are cross
/// products of portal edges, far above the degeneracy floor), so a plain square root serves where
/// the SDK calls hypot.
[[gnu::always_inline]] inline Vec3 cylinder_rim(const Vec3& core, const Vec3& d) {
  const double radial_squared = d.x() * d.x() + d.y() * d.y();
  const double z = d.z() < 0.0 ? -core.z() : core.z();
  if (!(radial_squared > 0.0)) return Vec3(core.x(), 0.0, z);
  const double scale = core.x() / std::sqrt(radial_squared);
  return Vec3(scale * d.x(), scale * d.y(), z);
}

/// Hulls with fewer vertices than this are scanned (scan_support_vertex), larger ones climbed.
constexpr std::uint32_t kScanBelow = 64;
/// Sampled vertices that seed the climb on larger hulls.
constexpr std::uint32_t kClimbSeeds = 32;

/// The SDK's core support mapping (direction of any length > 0) for shapes other than boxes and
/// cylinders (the solver takes those itself), with a shortcut for the inner loop: hulls climbed
/// from `hint`, the vertex the previous support of
/// this shape ended at, when it is `trusted` (a warm start: every direction of the query is near
/// the previous query's), else small hulls scanned without branches and large ones climbed from the
/// best of `hint` and a sample. Successive MPR directions are close, so the climb usually takes a
/// step or two instead of the O(√n) from vertex 0 (the climb is exact from any start: each move
/// strictly increases d·x).
[[gnu::always_inline]] inline Vec3 local_core_support(const Shape& shape, const Vec3& d,
                                                      std::uint32_t& hint, bool trusted) {
  switch (shape.type) {
    case ShapeType::convex_hull: {
      const ConvexHull& hull = *shape.hull;
      if (hull.neighbor_offsets == nullptr) {
        hint = scan_support_vertex(hull, d);
        return hull.vertices[hint];
      }
      if (trusted && hint < hull.vertex_count) {
        hint = climb_support_vertex(hull, d, hint, d.dot(hull.vertices[hint]));
        return hull.vertices[hint];
      }
      if (hull.vertex_count < kScanBelow) {
        hint = scan_support_vertex(hull, d);
        return hull.vertices[hint];
      }
      // The climb starts from the best of the previous support's vertex and a spread sample of
      // vertices (every n/32-th, branchless): phase 1 and 2 directions jump, so the previous
      // vertex alone can be far from the answer.
      const std::uint32_t n = hull.vertex_count;
      const std::uint32_t stride = n / kClimbSeeds;
      std::uint32_t start = hint < n ? hint : 0;
      double start_value = d.dot(hull.vertices[start]);
      for (std::uint32_t k = 0; k < kClimbSeeds; ++k) {
        const std::uint32_t i = k * stride;
        const double value = d.dot(hull.vertices[i]);
        start = value > start_value ? i : start;
        start_value = value > start_value ? value : start_value;
      }
      const std::uint32_t best = climb_support_vertex(hull, d, start, start_value);
      hint = best;
      return hull.vertices[best];
    }
    default:
      return contactlab::core_support(shape, d);
  }
}

#if defined(__SSE2__)
constexpr bool kPackedSupport = true;

/// The core support point of A ⊖ B for two boxes in double, in A's frame (Solver::box_support):
/// the same products and sums in the same order as the scalar support_point, x and y in one SSE2
/// register. B's corner takes the sign bits of −e_B, A's those of e (copysign).
class PackedBoxSupport {
 public:
  void set(const Mat3& R_AB, const Vec3& p_AB, const Vec3& core_a, const Vec3& core_b) {
    R_ = &R_AB;
    t_z_ = p_AB.z();
    for (int j = 0; j < 3; ++j) {
      row_[j] = _mm_set_pd(R_AB(j, 1), R_AB(j, 0));
      col_[j] = _mm_loadu_pd(&R_AB(0, j));
    }
    const __m128d sign = _mm_set1_pd(-0.0);
    t01_ = _mm_loadu_pd(p_AB.data());
    a01_ = _mm_andnot_pd(sign, _mm_loadu_pd(core_a.data()));
    b01_ = _mm_andnot_pd(sign, _mm_loadu_pd(core_b.data()));
    a2_ = _mm_andnot_pd(sign, _mm_set_sd(core_a.z()));
    b2_ = _mm_andnot_pd(sign, _mm_set_sd(core_b.z()));
  }

  /// The support point p = a − b, A's point a, B's point b (A's frame) and the direction d along
  /// (x, y, z), each written as three consecutive doubles.
  [[gnu::always_inline]] void support(double x, double y, double z, double* p, double* a, double* b,
                                      double* d) const {
    const Mat3& R = *R_;
    const __m128d sign = _mm_set1_pd(-0.0);
    const __m128d ex = _mm_set1_pd(x), ey = _mm_set1_pd(y), ez = _mm_set1_pd(z);
    const __m128d exy = _mm_unpacklo_pd(ex, ey);
    const __m128d e_B01 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(row_[0], ex), _mm_mul_pd(row_[1], ey)),
                                     _mm_mul_pd(row_[2], ez));
    const __m128d e_B2 = _mm_add_sd(
        _mm_add_sd(_mm_mul_sd(_mm_set_sd(R(0, 2)), ex), _mm_mul_sd(_mm_set_sd(R(1, 2)), ey)),
        _mm_mul_sd(_mm_set_sd(R(2, 2)), ez));
    const __m128d b01 = _mm_or_pd(b01_, _mm_andnot_pd(e_B01, sign));
    const __m128d b2 = _mm_or_pd(b2_, _mm_andnot_pd(e_B2, sign));
    const __m128d a01 = _mm_or_pd(a01_, _mm_and_pd(exy, sign));
    const __m128d a2 = _mm_or_pd(a2_, _mm_and_pd(ez, sign));
    const __m128d bx = _mm_unpacklo_pd(b01, b01), by = _mm_unpackhi_pd(b01, b01),
                  bz = _mm_unpacklo_pd(b2, b2);
    const __m128d b_A01 =
        _mm_add_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(col_[0], bx), _mm_mul_pd(col_[1], by)),
                              _mm_mul_pd(col_[2], bz)),
                   t01_);
    const __m128d b_A2 = _mm_add_sd(_mm_add_sd(_mm_add_sd(_mm_mul_sd(_mm_set_sd(R(2, 0)), bx),
                                                          _mm_mul_sd(_mm_set_sd(R(2, 1)), by)),
                                               _mm_mul_sd(_mm_set_sd(R(2, 2)), b2)),
                                    _mm_set_sd(t_z_));
    _mm_storeu_pd(p, _mm_sub_pd(a01, b_A01));
    _mm_store_sd(p + 2, _mm_sub_sd(a2, b_A2));
    _mm_storeu_pd(a, a01);
    _mm_store_sd(a + 2, a2);
    _mm_storeu_pd(b, b_A01);
    _mm_store_sd(b + 2, b_A2);
    _mm_storeu_pd(d, exy);
    _mm_store_sd(d + 2, ez);
  }

 private:
  const Mat3* R_ = nullptr;
  double t_z_ = 0.0;
  /// row_[j] = (R(j, 0), R(j, 1)), col_[k] = (R(0, k), R(1, k)), B's position's x and y, the
  /// core sizes' magnitudes (x and y; z)
  __m128d row_[3], col_[3], t01_, a01_, b01_, a2_, b2_;
};
#else
constexpr bool kPackedSupport = false;
struct PackedBoxSupport {};
#endif

/// kBoxes: both shapes are boxes (the commonest polytope pair), whose core supports are corners
/// of the kept core sizes: the support mapping without dispatch, no Newton finish, the interior
/// points the frames' origins (an instantiation of its own, so that the compiler keeps the
/// support inline and drops the curved-pair code).
template <class T, bool kBoxes = false>
class Solver {
 public:
  /// The query's answer is written into `result` (reset here).
  /// Always inlined: out of line (GCC's choice once the solver grew), the call and the members'
  /// set-up cost 76 instructions per query, 3 % of a warm box–box query.
  [[gnu::always_inline]] Solver(const PosedPair& pair, const Settings& settings, bool on_cores,
                                WarmPortal* warm, Result& result)
      : pair_(pair),
        warm_(warm),
        on_cores_(on_cores),
        radius_a_(sweep_radius(pair.a)),
        radius_b_(sweep_radius(pair.b)),
        swept_(radius_a_ > 0.0 || radius_b_ > 0.0),
        box_a_(pair.a.type == ShapeType::box),
        box_b_(pair.b.type == ShapeType::box),
        cylinder_a_(pair.a.type == ShapeType::cylinder),
        cylinder_b_(pair.b.type == ShapeType::cylinder),
        core_a_(core_size(pair.a)),
        core_b_(core_size(pair.b)),
        newton_(!kBoxes && settings.newton_finish &&
                (on_cores || (radius_a_ == 0.0 && radius_b_ == 0.0)) &&
                !(polytope_core(pair.a) && polytope_core(pair.b))),
        max_iterations_(std::max<std::int32_t>(1, settings.max_iterations)),
        tolerance_(settings.tolerance),
        epsilon_(kEpsilonFactor * machine_epsilon<T>()),
        result_(result) {
    result_ = Result{};
    if constexpr (kPackedBoxes) box_.set(pair.R_AB, pair.p_AB, core_a_, core_b_);
  }

  /// The query; in the cores mode the swept radii are added to the result.
  void run();
  /// Cores mode: the cores intersect where their difference is degenerate, so this run has no
  /// answer and the full shapes must be used.
  bool needs_full_shapes() const { return needs_full_shapes_; }

 private:
  using V = Vector3<T>;
  using S = SupportPoint<T>;

  /// Which phase-3 iterate a best-so-far result is taken from (Neumayr L403–404). The portal
  /// itself is not copied at every improvement: the refinement is deterministic, so finish_best
  /// replays it from the phase-3 start portal to that iteration (only the rare limit and
  /// degenerate endings pay for it).
  struct Candidate {
    bool tc2 = false;  ///< TC2 was the smaller termination value
    /// The square of that value [m²]
    T value_squared = T(std::numeric_limits<double>::infinity());
    std::int32_t iteration = 0;
  };
  struct Portal {
    S r1, r2, r3;
  };

  /// Normal n4 = (r2 − r1) × (r3 − r1) of the portal, not normalised, pointing away from r0
  /// (L417–434); false when the portal is degenerate.
  bool portal_normal(const Portal& portal, V& n4) const {
    n4 = cross(portal.r2.p - portal.r1.p, portal.r3.p - portal.r1.p);
    return dot(n4, n4) > area_threshold_ * area_threshold_;
  }

  /// Refinement (L445–463): of the portals (r1, r2, r4), (r2, r3, r4), (r3, r1, r4) take the one
  /// the origin ray passes through. The planes through r0, r4 and each r_i separate them: with
  /// t_i = u·(v4 × v_i) = v_i·(u × v4), portal (r_i, r_j, r4) is valid when t_i ≥ 0 and t_j ≤ 0
  /// (Neumayr's isNextPortal; the side (r_i, r_j) is valid from the current portal). When the ray
  /// grazes an edge two candidates tie at 0, so the one with the larger margin is taken rather
  /// than the first in order; false when none is valid within ε (the refinement failed).
  bool refine(Portal& portal, const S& r4) const {
    const V side = cross(ray_, V(r4.p - r0_));
    const T t1 = dot(V(portal.r1.p - r0_), side);
    const T t2 = dot(V(portal.r2.p - r0_), side);
    const T t3 = dot(V(portal.r3.p - r0_), side);
    const T margin_124 = std::min(t1, T(-t2));
    const T margin_234 = std::min(t2, T(-t3));
    const T margin_314 = std::min(t3, T(-t1));
    if (std::max({margin_124, margin_234, margin_314}) < -area_threshold_) return false;
    if (margin_124 >= margin_234 && margin_124 >= margin_314) {
      portal.r3 = r4;  // (r1, r2, r4)
    } else if (margin_234 >= margin_314) {
      portal.r1 = r4;  // (r4, r2, r3)
    } else {
      portal.r2 = r4;  // (r1, r4, r3)
    }
    return true;
  }

  /// Support point of A ⊖ B in direction e (A frame): of the cores in the cores mode, else of the
  /// full shapes (the SDK's support mapping, radius added along e).
  /// Two boxes: inlined (a few dozen instructions, where the call and the result's trip through
  /// memory cost a third of that); other pairs as the compiler sees fit.
  [[gnu::always_inline]] S support(const V& direction) const {
    if constexpr (kBoxes) {
      return box_support(direction, on_cores_);
    } else {
      return shape_support(direction);
    }
  }
  S shape_support(const V& direction) const { return support_point(direction, on_cores_); }

  /// Support point of the cores (the shapes shrunk by their swept radii, SDK core_support).
  S core_support(const V& direction) const {
    if constexpr (kBoxes) {
      return box_support(direction, true);
    } else {
      return support_point(direction, true);
    }
  }

  /// support_point for two boxes: the corners of their core sizes, in scalars with no branch but
  /// for the full shapes' swept radii (support_point's arithmetic, so the same values).
  [[gnu::always_inline]] S box_support(const V& direction, bool cores) const {
    if (!cores && swept_) [[unlikely]] {
      return support_point(direction, false);
    }
    if constexpr (kPackedBoxes) {
      S s;
      box_.support(direction.x, direction.y, direction.z, &s.p.x, &s.a.x, &s.b.x, s.d.data());
      return s;
    }
    const double ex = to_double(direction.x), ey = to_double(direction.y),
                 ez = to_double(direction.z);
    const Mat3& R = pair_.R_AB;
    const Vec3& t = pair_.p_AB;
    const double bx = std::copysign(core_b_.x(), -(R(0, 0) * ex + R(1, 0) * ey + R(2, 0) * ez));
    const double by = std::copysign(core_b_.y(), -(R(0, 1) * ex + R(1, 1) * ey + R(2, 1) * ez));
    const double bz = std::copysign(core_b_.z(), -(R(0, 2) * ex + R(1, 2) * ey + R(2, 2) * ez));
    const V a_A{T(std::copysign(core_a_.x(), ex)), T(std::copysign(core_a_.y(), ey)),
                T(std::copysign(core_a_.z(), ez))};
    const V b_A{T(R(0, 0) * bx + R(0, 1) * by + R(0, 2) * bz + t.x()),
                T(R(1, 0) * bx + R(1, 1) * by + R(1, 2) * bz + t.y()),
                T(R(2, 0) * bx + R(2, 1) * by + R(2, 2) * bz + t.z())};
    return S{a_A - b_A, a_A, b_A, Vec3(ex, ey, ez)};
  }

  [[gnu::always_inline]] S support_point(const V& direction, bool cores) const {
    // Written out in scalars: Eigen's 2-wide packets on 3-vectors cost more shuffles than
    // arithmetic here, and this is the inner loop.
    const double ex = to_double(direction.x), ey = to_double(direction.y),
                 ez = to_double(direction.z);
    const Mat3& R = pair_.R_AB;
    const Vec3 e_A(ex, ey, ez);
    const Vec3 e_B(R(0, 0) * ex + R(1, 0) * ey + R(2, 0) * ez,
                   R(0, 1) * ex + R(1, 1) * ey + R(2, 1) * ez,
                   R(0, 2) * ex + R(1, 2) * ey + R(2, 2) * ez);
    // Boxes (the commonest polytope) and cylinders with their core sizes kept: no dispatch.
    Vec3 a = kBoxes || box_a_ ? box_corner(core_a_, e_A)
             : cylinder_a_    ? cylinder_rim(core_a_, e_A)
                              : local_core_support(pair_.a, e_A, hint_a_, trust_hints_);
    Vec3 b = kBoxes || box_b_ ? box_corner(core_b_, -e_B)
             : cylinder_b_    ? cylinder_rim(core_b_, -e_B)
                              : local_core_support(pair_.b, -e_B, hint_b_, trust_hints_);
    if (!cores && swept_) {
      if (radius_a_ > 0.0) a += radius_a_ / e_A.norm() * e_A;
      if (radius_b_ > 0.0) b -= radius_b_ / e_B.norm() * e_B;
    }
    const Vec3& t = pair_.p_AB;
    const V a_A{T(a.x()), T(a.y()), T(a.z())};
    const V b_A{T(R(0, 0) * b.x() + R(0, 1) * b.y() + R(0, 2) * b.z() + t.x()),
                T(R(1, 0) * b.x() + R(1, 1) * b.y() + R(1, 2) * b.z() + t.y()),
                T(R(2, 0) * b.x() + R(2, 1) * b.y() + R(2, 2) * b.z() + t.z())};
    return S{a_A - b_A, a_A, b_A, e_A};
  }

  /// No 3-D portal. Cores mode: the closest-point completion from direction e gives the answer
  /// when the cores are apart, otherwise the full shapes are needed. Full shapes: the
  /// support-plane estimate of r along e, counted as degenerate.
  void finish_degenerate_start(const S& r, const V& e) {
    if (on_cores_) {
      result_.termination = Termination::cores_closest_point;
      if (!complete_closest_point(e)) needs_full_shapes_ = true;
      return;
    }
    result_.degenerate = true;
    finish_on_ray(r, e, Termination::degenerate_start);
  }

  void run_portal();
  /// A termination value given by its square [m²], relative to the size of A ⊖ B (one formula
  /// for the result's and the last iterate's values, so that equal values compare equal).
  double relative_tolerance(const T& value_squared) const {
    using std::sqrt;
    return to_double(sqrt(value_squared) / length_);
  }
  /// The support points are those of the cores (cores mode, or no swept radius at all).
  bool portal_on_cores() const { return on_cores_ || (radius_a_ == 0.0 && radius_b_ == 0.0); }

  /// Witness points a, b (their difference is ≈ −δ·n) re-centred on their midpoint so that
  /// point_b − point_a = δ·n holds to rounding.
  [[gnu::always_inline]] void set_geometry(const V& a, const V& b, const T& distance,
                                           const V& normal) {
    const V middle = (a + b) * T(0.5);
    const V half_gap = normal * T(distance * T(0.5));
    ContactGeometry& g = result_.geometry;
    g.distance_m = to_double(distance);
    g.normal_W = normal.to_vec3();  // unit already: every caller passes a normalised direction
    g.point_a_W = (middle - half_gap).to_vec3();
    g.point_b_W = (middle + half_gap).to_vec3();
  }

  /// The support-plane estimate along a search direction e with its support point r: the signed
  /// distance of the origin from the plane through r normal to e (TC1, L300–303).
  void finish_on_ray(const S& r, const V& e, Termination termination) {
    result_.termination = termination;
    set_geometry(r.a, r.b, T(-dot(r.p, e)), e);
  }

  /// TC2 (L435–439): r4 lies on the ray of its search direction e4, so it is the point of A ⊖ B
  /// closest to (separated) or deepest below (penetrating) the origin along e4. Its own support
  /// points are used as witnesses; they lie on both boundaries.
  void finish_tc2(const S& r4, const V& e4, Termination termination) {
    result_.termination = termination;
    set_geometry(r4.a, r4.b, T(-dot(r4.p, e4)), e4);
  }

  /// Flat faces of the cores whose support set has a closed form: a box's six faces, a
  /// cylinder's or a frustum's two caps. face_certificate(on_b, axis, negative): the face of A (or
  /// B) normal to its frame's axis `axis`, on the negative side when `negative`. With M = A ⊖ B and
  /// e the direction of A ⊖ B whose support set is that face minus the other shape's support point
  /// s (e the face's outward normal for A, minus it for B), the plane e·x = h, h = e·s.p, supports
  /// A ⊖ B. The face's flat piece of A ⊖ B is the face translated by the other shape's point. When
  /// the origin's foot on that plane, h·e, lies in that piece (and, if h ≥ 0, the origin ray's
  /// exit point does too), the answer is exact: separated (h < 0), the foot is the point of
  /// A ⊖ B nearest to the origin, at distance −h; penetrating, the origin ray leaves A ⊖ B
  /// through that face, the limit the refinement converges to, and the depth is h along e, the
  /// witnesses at the foot as finish_tc3 takes them. On a curved pair the refinement converges to
  /// a face only linearly (its support points slide along the other shape's curve), the Newton
  /// finish cannot (a face is a kink of the support function): a cylinder's cap on another
  /// cylinder's rim took 18 refinement iterations, 30 when separated. One support each.
  bool face_certificate(bool on_b, int axis, bool negative);
  /// The certificate of A's and of B's face nearest to the portal normal n4, when within
  /// min_cosine of it and not tried yet in this query. True when one answered. Out of line: the
  /// refinement loop keeps its registers.
  [[gnu::noinline]] bool try_faces(const V& n4, double min_cosine = kFaceCosine) {
    const Vec3 e = n4.to_vec3().normalized();
    for (const bool on_b : {false, true}) {
      int axis;
      bool negative;
      if (!nearest_face(on_b, e, axis, negative, min_cosine)) continue;
      const std::uint16_t bit =
          std::uint16_t(1u << ((on_b ? 6 : 0) + 2 * axis + (negative ? 1 : 0)));
      if ((faces_tried_ & bit) != 0) continue;
      faces_tried_ |= bit;
      if (face_certificate(on_b, axis, negative)) return true;
    }
    return false;
  }
  /// The face of A (of B when on_b) whose direction of A ⊖ B (face_direction) is nearest to the
  /// unit direction e (A's frame): a box's face or a cylinder's or frustum's cap, in `axis` and
  /// `negative`. False for other shapes or when the cosine between them is below `min_cosine`.
  bool nearest_face(bool on_b, const Vec3& e, int& axis, bool& negative, double min_cosine) const {
    const bool box = on_b ? box_b_ : box_a_;
    if (!box && !capped(on_b ? pair_.b : pair_.a)) return false;
    // The face's outward normal in its shape's frame is e for A, −R_ABᵀe for B.
    const Vec3 d = on_b ? Vec3(-(pair_.R_AB.transpose() * e)) : e;
    axis = 2;
    if (box) d.cwiseAbs().maxCoeff(&axis);
    negative = d[axis] < 0.0;
    return std::abs(d[axis]) >= min_cosine;
  }
  /// The direction e of A ⊖ B (A's frame) along which A's support set is A's face (on_b false)
  /// or B's is B's face: the face's outward normal for A, its opposite for B.
  Vec3 face_direction(bool on_b, int axis, bool negative) const {
    const double sign = negative ? -1.0 : 1.0;
    return on_b ? Vec3(-sign * pair_.R_AB.col(axis)) : Vec3(sign * Vec3::Unit(axis));
  }

  bool newton_finish(const Vec3& start);
  struct StraightLine;
  /// `found`: the line as find_straight_line gave it at `start`, else it is looked up here.
  bool newton_side_line(const Vec3& start, std::uint8_t straight_line,
                        const StraightLine* found = nullptr);
  bool newton_separated(const Vec3& start);
  /// The Newton finish, then (where it gives up next to a straight line of a shape's boundary: a
  /// cylinder's side line, a box's or a hull's edge) the 1-D Newton along that line's kink. `line`:
  /// the line the pair's last query ended on (warm start, WarmPortal::newton_side), tried first.
  bool newton(const Vec3& start, std::uint8_t line = 0) {
    if (line != 0 && newton_side_line(start, line)) return true;
    if (newton_finish(start)) return true;
    const Vec3 e = start.normalized();
    for (std::uint8_t candidate = 1; candidate <= kStraightLines; ++candidate) {
      if (candidate == line || !has_straight_line(candidate)) continue;
      StraightLine edge;
      if (find_straight_line(candidate, e, edge) && std::abs(e.dot(edge.axis)) < kSideLineAngle &&
          newton_side_line(start, candidate, &edge)) {
        return true;
      }
    }
    return false;
  }
  /// Straight lines of the boundaries, numbered 1 + X + 2k (X: 0 for A, 1 for B; k: 0–2 the axis
  /// of X's frame they run along, 3 a hull's edge): a cylinder's side lines (k = 2), a box's edges
  /// (k = 0–2), a beam's (k = 0, 2) and a hull's edges (with a vertex adjacency). The support of X
  /// along a normal of such a line is the whole segment, symmetric about X's mid-plane normal to
  /// axis k (but for a hull's).
  static constexpr std::uint8_t kStraightLines = 8;
  bool has_straight_line(std::uint8_t line) const {
    if (line == 0 || line > kStraightLines) return false;
    const bool on_b = ((line - 1) & 1) != 0;
    const int k = (line - 1) / 2;
    const Shape& shape = on_b ? pair_.b : pair_.a;
    if (k == 3) {
      return shape.type == ShapeType::convex_hull && shape.hull != nullptr &&
             shape.hull->neighbor_offsets != nullptr && shape.hull->neighbors != nullptr;
    }
    const bool box = on_b ? box_b_ : box_a_;
    const bool cylinder = on_b ? cylinder_b_ : cylinder_a_;
    // A beam's flat sides run along x (between its round ends) and its round ends along z.
    const bool beam = shape.type == ShapeType::beam;
    return box || (cylinder && k == 2) || (beam && k != 1);
  }
  /// One straight line near the unit normal e (A's frame): its axis in A's frame and, on a hull,
  /// its two vertices (the support vertex along e and the neighbour whose edge is the most nearly
  /// normal to e). False when a hull has no edge there (a single vertex, degenerate edges).
  struct StraightLine {
    Vec3 axis = Vec3::UnitZ();
    std::uint32_t first = 0, second = 0;  ///< a hull edge's vertices
  };
  bool find_straight_line(std::uint8_t line, const Vec3& e, StraightLine& out) const {
    const bool on_b = ((line - 1) & 1) != 0;
    const int k = (line - 1) / 2;
    const Mat3& R = pair_.R_AB;
    if (k < 3) {
      out.axis = on_b ? Vec3(R.col(k)) : Vec3::Unit(k);
      return true;
    }
    const ConvexHull& hull = *(on_b ? pair_.b : pair_.a).hull;
    const Vec3 d = on_b ? Vec3(-(R.transpose() * e)) : e;  // X's outward direction, X's frame
    const std::uint32_t i = hull_support_vertex(hull, d, on_b ? hint_b_ : hint_a_);
    double best = std::numeric_limits<double>::infinity();
    for (std::uint32_t n = hull.neighbor_offsets[i]; n < hull.neighbor_offsets[i + 1]; ++n) {
      const std::uint32_t j = hull.neighbors[n];
      const Vec3 edge = hull.vertices[j] - hull.vertices[i];
      const double length = edge.norm();
      if (!(length > 0.0)) continue;
      const double cosine = std::abs(d.dot(edge)) / (length * d.norm());
      if (cosine < best) {
        best = cosine;
        out.first = i;
        out.second = j;
        out.axis = edge / length;
      }
    }
    if (!(best < 1.0)) return false;
    if (on_b) out.axis = R * out.axis;
    return true;
  }

  /// A Newton ending at direction n with witnesses a, b and a support point p of A ⊖ B along n
  /// (the depth is its support value), `off_squared` its termination value [m²]; recorded for the
  /// pair's next query with the straight line it ended on (`side`, WarmPortal::newton_side).
  void finish_newton(const V& a, const V& b, const V& p, const Vec3& n, const T& off_squared,
                     std::uint8_t side) {
    const V e = V::from(n) / T(n.norm());
    result_.termination = Termination::newton;
    result_.result_tolerance = result_.last_tolerance = relative_tolerance(off_squared);
    set_geometry(a, b, T(-dot(p, e)), e);
    finish_newton_cache(n, side);
  }
  /// Caches the normal n of a Newton ending for the pair's next query.
  void finish_newton_cache(const Vec3& n, std::uint8_t side) {
    if (warm_ == nullptr) return;
    // (all three written: the cache stores them, and Eigen leaves unset vectors garbage)
    warm_->directions = {n, Vec3::Zero(), Vec3::Zero()};
    warm_->hint_a = hint_a_;
    warm_->hint_b = hint_b_;
    warm_->newton = warm_->valid = true;
    warm_->newton_side = side;
    warm_->newton_separated = false;
    warm_->face = false;
    warm_->cores = on_cores_;
  }
  /// Caches the normal e of a flat face the query ended on: the pair's next query tries that
  /// face's certificate first (run_portal).
  void cache_face(const Vec3& e) {
    if (warm_ == nullptr) return;
    finish_newton_cache(e, 0);
    warm_->face = true;
  }
  /// A refinement ending (TC2, TC3) on a curved pair whose portal normal n4 is a face's normal to
  /// within rounding: that face is cached as face_certificate's ending caches it.
  void cache_face_ending(const V& n4) {
    if (!faces_ || warm_ == nullptr) return;
    const Vec3 e = n4.to_vec3().normalized();
    for (const bool on_b : {false, true}) {
      int axis;
      bool negative;
      if (nearest_face(on_b, e, axis, negative, 1.0 - kFaceEndingSlack)) {
        cache_face(face_direction(on_b, axis, negative));
        return;
      }
    }
  }
  /// Sets the origin ray e1 (from r0, set by phase 1's start), the ray's support point and the
  /// thresholds for a warm Newton start from the cached normal, as the cold start sets them (which
  /// then reuses the support point); false when the cold start must handle the pair (coincident
  /// interior points, no size).
  bool warm_newton(const Vec3& c_A, const Vec3& c_B, const T& r0_norm, const V& e1);

  void finish_tc3(const S& r1, const S& r2, const S& r3, const S& r4, const V& e4, const V& n4,
                  const T& n4_squared, Termination termination);
  bool complete_closest_point(const V& initial_normal, const Portal* start = nullptr,
                              const S* start_support = nullptr);
  void finish_best(const Candidate& best, const Portal& start, const S& fallback,
                   const V& fallback_e, Termination termination);

  /// The warm start portal's support points, climbing hulls from the previous query's vertices.
  /// The portal is invalidated here (the query's ending writes it again).
  void warm_supports(S& r1, S& r2, S& r3) {
    warm_->valid = false;
    hint_a_ = warm_->hint_a;
    hint_b_ = warm_->hint_b;
    trust_hints_ = true;
    r1 = support(V::from(warm_->directions[0]));
    r2 = support(V::from(warm_->directions[1]));
    r3 = support(V::from(warm_->directions[2]));
  }
  /// The portal a phase-3 ending leaves for the pair's next query: its directions as they were
  /// used (the support mapping does not need them unit) and the hulls' last support vertices.
  void save_portal(const Portal& portal) {
    if (warm_ == nullptr || newton_on()) return;  // a curved pair's portal is no warm start
    warm_->directions = {portal.r1.d, portal.r2.d, portal.r3.d};
    warm_->hint_a = hint_a_;
    warm_->hint_b = hint_b_;
    warm_->valid = true;
    warm_->cores = on_cores_;
  }
  /// Phase 1's support point along the origin ray, computed on first use in a warm run.
  const S& ray_support() {
    if (!have_ray_support_) {
      ray_support_ = support(ray_);
      have_ray_support_ = true;
    }
    return ray_support_;
  }
  /// A warm run ending on `portal` and r4: TC1 as a cold run would have tested it first. It can
  /// hold only when the ray's support point lies on the origin ray, i.e. is the ray's exit point
  /// and a vertex of A ⊖ B (polytope pairs), and then it is a vertex of the final portal or r4;
  /// only then is the ray's support computed. True when TC1 holds (the result is written).
  bool warm_tc1(const Portal& portal, const S& r4) {
    if (!warm_run_) return false;
    const T limit = ray_threshold_ * ray_threshold_;
    bool on_ray = false;
    for (const S* r : {&portal.r1, &portal.r2, &portal.r3, &r4}) {
      const V off = cross(ray_, r->p);
      on_ray = on_ray || dot(off, off) <= limit;
    }
    if (!on_ray) return false;
    const S& r1 = ray_support();
    const V off = cross(ray_, r1.p);
    if (!(dot(off, off) <= limit)) return false;
    finish_on_ray(r1, ray_, Termination::tc1);
    return true;
  }
  /// Sets the tolerances from the size of A ⊖ B seen from r0.
  void set_thresholds(const Vec3& c_A, const Vec3& c_B) {
    // Scalar max of the six magnitudes (Eigen's cwiseAbs().maxCoeff() on 3-vectors took ~40
    // instructions of shuffles per query).
    const double coordinates = std::max({std::abs(c_A.x()), std::abs(c_A.y()), std::abs(c_A.z()),
                                         std::abs(c_B.x()), std::abs(c_B.y()), std::abs(c_B.z())});
    const T noise = T(kSupportRoundingUlps * std::numeric_limits<double>::epsilon() *
                      (coordinates + to_double(length_)));
    tc_threshold_ = std::max(T(tolerance_) * length_, noise);
    ray_threshold_ = std::max(T(epsilon_) * length_, noise);
    area_threshold_ = T(epsilon_) * length_ * length_;
    volume_threshold_ = area_threshold_ * length_;
  }

  const PosedPair& pair_;
  WarmPortal* const warm_;
  const bool on_cores_;
  const double radius_a_;
  const double radius_b_;
  const bool swept_;  ///< a radius is swept (the full shapes' supports add it)
  const bool box_a_;  ///< A is a box: its core support is a corner of core_a_
  const bool box_b_;
  const bool cylinder_a_;  ///< A is a cylinder: its core support is on a rim of core_a_
  const bool cylinder_b_;
  const Vec3 core_a_;  ///< the core's sizes of a box or a cylinder (core_size)
  const Vec3 core_b_;
  /// Two boxes in double: box_support in SSE2 registers (PackedBoxSupport).
  static constexpr bool kPackedBoxes = kBoxes && std::is_same_v<T, double> && kPackedSupport;
  struct NoBoxes {};
  std::conditional_t<kPackedBoxes, PackedBoxSupport, NoBoxes> box_;
  /// Curved pair on the cores (or without swept radii): the Newton finish may take over.
  const bool newton_;
  /// newton_, known false at compile time for two boxes.
  bool newton_on() const {
    if constexpr (kBoxes) {
      return false;
    } else {
      return newton_;
    }
  }
  int newton_attempts_ = 0;  ///< Newton finishes tried in this query
  /// Curved pair on the cores with a box, a cylinder or a frustum: flat faces are certified
  /// (try_faces).
  const bool faces_ =
      newton_on() && portal_on_cores() && (box_a_ || box_b_ || capped(pair_.a) || capped(pair_.b));
  std::uint16_t faces_tried_ = 0;     ///< faces tried in this query (try_faces' bits)
  bool radii_applied_ = false;        ///< the completion reported the full shapes' distance
  mutable std::uint32_t hint_a_ = 0;  ///< hull vertex of A's latest support (climb start)
  mutable std::uint32_t hint_b_ = 0;
  bool trust_hints_ = false;  ///< hulls climb from the hints alone (warm start, phase 3)
  bool warm_run_ = false;     ///< phase 2 started from the warm portal (no ray support yet)
  bool have_ray_support_ = false;
  S ray_support_;  ///< phase 1's support along the origin ray (ray_support())
  bool needs_full_shapes_ = false;
  const std::int32_t max_iterations_;
  const double tolerance_;
  const double epsilon_;  ///< Neumayr's ε = 100·eps(T) (L471), relative
  T length_{};            ///< size of A ⊖ B seen from r0 [m]
  T tc_threshold_{};      ///< TC2/TC3 threshold [m]
  T ray_threshold_{};     ///< TC1 and coincident-r0 threshold [m]
  T area_threshold_{};    ///< cross products of portal edges [m²]
  T volume_threshold_{};  ///< tetrahedron volumes (×6) [m³]
  V r0_;
  V ray_;  ///< unit direction of the origin ray, from r0 towards the origin
  Result& result_;
};

template <class T, bool kBoxes>
bool Solver<T, kBoxes>::face_certificate(bool on_b, int axis, bool negative) {
  const Mat3& R = pair_.R_AB;
  const Vec3 e = face_direction(on_b, axis, negative);
  const V e_T = V::from(e);
  const S s = core_support(e_T);
  const T h = dot(s.p, e_T);  // the support value of A ⊖ B along e
  const V foot = e_T * h;
  // Whether the point x of the plane e·x = h lies in the face's piece of A ⊖ B: the face's point
  // x + s.b (A's face) or s.a − x (B's, in B's frame) inside the face, tested across its normal.
  const double cap_radius = core_cap_radius(on_b ? pair_.b : pair_.a, negative);
  const double cap_radius_squared = cap_radius * cap_radius;
  const auto in_face = [&](const V& x) {
    const Vec3& core = on_b ? core_b_ : core_a_;
    const Vec3 p =
        on_b ? Vec3(R.transpose() * ((s.a - x).to_vec3() - pair_.p_AB)) : (x + s.b).to_vec3();
    if (on_b ? box_b_ : box_a_) {
      const int i = (axis + 1) % 3, j = (axis + 2) % 3;
      return std::abs(p[i]) <= core[i] && std::abs(p[j]) <= core[j];
    }
    return p.x() * p.x() + p.y() * p.y() <= cap_radius_squared;  // a cylinder's or frustum's cap
  };
  if (!(h < T(0.0))) {
    // Penetrating (or touching): the origin ray r0 + t·ray must leave through the face.
    const T along = dot(ray_, e_T);
    if (!(along > T(0.0))) return false;
    const T t = (h - dot(r0_, e_T)) / along;
    if (!in_face(r0_ + ray_ * t)) return false;
  }
  if (!in_face(foot)) return false;
  result_.termination = Termination::face;
  result_.result_tolerance = result_.last_tolerance = 0.0;
  if (on_b) {
    set_geometry(s.a, s.a - foot, T(-h), e_T);
  } else {
    set_geometry(foot + s.b, s.b, T(-h), e_T);
  }
  cache_face(e);
  return true;
}

/// TC3 (L440–444): the portal lies on the boundary of A ⊖ B within tolerance. A penetrating pair
/// reports the depth along the portal normal e4 as the support value r4·e4 of A ⊖ B, the exact
/// translation along e4 that separates the shapes (within the TC tolerance of Neumayr's distance to
/// the portal plane, and immune to the rounding of e4 on sliver portals). A separated pair reports
/// the distance to the portal plane when the origin's foot lies inside the portal (Thm 6.3 case 1),
/// else it is completed to the Euclidean distance (case 2).
template <class T, bool kBoxes>
void Solver<T, kBoxes>::finish_tc3(const S& r1, const S& r2, const S& r3, const S& r4, const V& e4,
                                   const V& n4, const T& n4_squared, Termination termination) {
  // Signed offset of the portal plane along e4; positive when the origin is behind it (inside).
  const T plane_offset = (dot(r1.p, e4) + dot(r2.p, e4) + dot(r3.p, e4)) / T(3.0);
  const V foot = e4 * plane_offset;
  // Barycentric coordinates of the foot from the signed areas of the sub-triangles, against the
  // portal's normal n4 = (r2 − r1) × (r3 − r1).
  const T inverse_area = T(1.0) / n4_squared;
  const T w1 = dot(cross(r2.p - foot, r3.p - foot), n4) * inverse_area;
  const T w2 = dot(cross(r3.p - foot, r1.p - foot), n4) * inverse_area;
  const T w3 = T(1.0) - w1 - w2;
  const T slack = T(-epsilon_);
  if (w1 >= slack && w2 >= slack && w3 >= slack) {
    const T c1 = std::max(w1, T(0.0));
    const T c2 = std::max(w2, T(0.0));
    const T c3 = std::max(w3, T(0.0));
    const T inverse_sum = T(1.0) / (c1 + c2 + c3);
    const V a = (r1.a * c1 + r2.a * c2 + r3.a * c3) * inverse_sum;
    const V b = (r1.b * c1 + r2.b * c2 + r3.b * c3) * inverse_sum;
    result_.termination = termination;
    set_geometry(a, b, plane_offset >= T(0.0) ? T(-dot(r4.p, e4)) : T(-plane_offset), e4);
    return;
  }
  if (plane_offset >= T(0.0)) {
    // Penetrating, foot outside the portal. The portal plane supports A ⊖ B (TC3), so moving B by
    // the support value along e4 separates the shapes: a valid depth, not more (up to the TC
    // tolerance) than the distance to the portal that Neumayr's distanceToPortal returns.
    // Witnesses from the portal point nearest to the foot.
    const TriangleClosest<T> nearest =
        closest_triangle_point<T>({r1.p - foot, r2.p - foot, r3.p - foot});
    const std::array<const S*, 3> vertices{&r1, &r2, &r3};
    V a, b;
    for (int k = 0; k < nearest.size; ++k) {
      const int i = nearest.kept[k];
      a = a + vertices[i]->a * nearest.weights[i];
      b = b + vertices[i]->b * nearest.weights[i];
    }
    result_.termination =
        termination == Termination::tc3_inside ? Termination::tc3_penetrating_outside : termination;
    set_geometry(a, b, T(-dot(r4.p, e4)), e4);
    return;
  }
  // Separated, foot outside the portal: the distance to the portal is only an upper bound
  // (Thm 6.3 case 2, Neumayr's distanceToPortal); complete it to the Euclidean distance.
  result_.termination =
      termination == Termination::tc3_inside ? Termination::tc3_closest_point : termination;
  Simplex<T> triangle;
  triangle.points = {r1, r2, r3, S{}};
  triangle.size = 3;
  bool enclosed = false;
  const V closest = closest_on_simplex(triangle, T(epsilon_), enclosed);
  const T portal_distance = norm(closest);
  const V portal_normal = portal_distance > T(0.0) ? V(-closest / portal_distance) : e4;
  if (complete_closest_point(portal_normal)) return;
  // The cores overlap (numerically touching): keep the distance to the portal.
  V a, b;
  for (int k = 0; k < triangle.size; ++k) {
    a = a + triangle.points[k].a * triangle.weights[k];
    b = b + triangle.points[k].b * triangle.weights[k];
  }
  set_geometry(a, b, portal_distance, portal_normal);
}

/// Closest-point completion (not in the thesis) of a separated pair: a GJK distance iteration
/// (Gilbert, Johnson and Keerthi 1988; van den Bergen 2003 §4.3) between the cores of A and B
/// (each shape shrunk by its swept radius: a sphere's centre, a capsule's segment, a smoothed
/// shape's inner shape), started along the normal MPR found; the distance of the shapes is the
/// cores' distance minus the two radii (van den Bergen 2003 §4.3.7). Cores of spheres, capsules
/// and (smoothed) boxes and hulls are polytopes, on which the iteration ends exactly. Each step
/// adds the core support point towards the origin and stops when that support plane (a lower
/// bound) is within the TC tolerance of the closest point (an upper bound), or when no progress is
/// left at this precision. The normal reported is the direction of the best lower bound: its
/// support plane is within the final gap of the distance, whereas the direction of the simplex's
/// closest point converges more slowly (by the square root of the gap on curved cores, and worse
/// next to flat faces of A ⊖ B, where the support value has a kink). Returns false when the cores
/// are found to overlap.
template <class T, bool kBoxes>
bool Solver<T, kBoxes>::complete_closest_point(const V& initial_normal, const Portal* start,
                                               const S* start_support) {
  const T radius_a = T(radius_a_);
  const T radius_b = T(radius_b_);
  Simplex<T> simplex;
  V closest;
  T lower_bound = T(-std::numeric_limits<double>::infinity());
  V lower_bound_normal = initial_normal;
  if (start != nullptr && portal_on_cores()) {
    // Started from MPR's portal (points of the cores' difference) and the support point along its
    // unit normal `initial_normal`, whose support plane is a first lower bound.
    simplex.points = {start->r1, start->r2, start->r3, S{}};
    simplex.size = 3;
    bool enclosed = false;
    closest = closest_on_simplex(simplex, T(epsilon_), enclosed);
    lower_bound = -dot(start_support->p, initial_normal);
  } else {
    simplex.points[0] = core_support(initial_normal);
    simplex.weights[0] = T(1.0);
    simplex.size = 1;
    closest = simplex.points[0].p;
  }
  bool converged = false;
  for (std::int32_t iteration = 1; iteration <= max_iterations_; ++iteration) {
    const T distance = norm(closest);
    if (!(distance > ray_threshold_)) return false;
    // The direction from A towards B: from the cores' closest point towards the origin.
    const V normal = -closest / distance;
    const S s = core_support(normal);
    result_.completion_iterations = iteration;
    if (T(-dot(s.p, normal)) > lower_bound) {
      lower_bound = -dot(s.p, normal);
      lower_bound_normal = normal;
    }
    bool repeated = false;
    for (int k = 0; k < simplex.size; ++k) {
      const V offset = simplex.points[k].p - s.p;
      repeated = repeated || dot(offset, offset) <= tc_threshold_ * tc_threshold_;
    }
    if (distance - lower_bound <= tc_threshold_ || repeated) {
      converged = true;
      break;
    }
    Simplex<T> grown = simplex;
    grown.points[grown.size++] = s;
    bool enclosed = false;
    const V next = closest_on_simplex(grown, T(epsilon_), enclosed);
    if (enclosed) return false;
    if (!(norm(next) < distance)) {
      converged = true;  // no progress left at this precision
      break;
    }
    simplex = grown;
    closest = next;
  }
  // Started from an early portal, the completion must close the gap between its bounds; when it
  // stops on a repeated point or for lack of progress first (parallel edges of curved cores), the
  // refinement goes on and a later completion starts from a better portal.
  if (start != nullptr && !(norm(closest) - lower_bound <= tc_threshold_)) return false;
  if (!converged) result_.iteration_limit_hit = true;
  const T core_distance = norm(closest);
  if (!(core_distance > T(0.0))) return false;
  const V& normal = lower_bound_normal;
  V a, b;
  for (int k = 0; k < simplex.size; ++k) {
    a = a + simplex.points[k].a * simplex.weights[k];
    b = b + simplex.points[k].b * simplex.weights[k];
  }
  set_geometry(a + normal * radius_a, b - normal * radius_b, T(core_distance - radius_a - radius_b),
               normal);
  radii_applied_ = true;
  if (newton_on() && warm_ != nullptr) {
    // A curved pair: the next query starts the separated Newton from this normal (a polytope
    // pair's portal is saved by the caller).
    finish_newton_cache(normal.to_vec3(), 0);
    warm_->newton_separated = true;
  }
  return true;
}

template <class T, bool kBoxes>
void Solver<T, kBoxes>::finish_best(const Candidate& best, const Portal& start, const S& fallback,
                                    const V& fallback_e, Termination termination) {
  if (best.iteration == 0) {
    finish_on_ray(fallback, fallback_e, termination);
    return;
  }
  // Replay the refinement to the best iteration; it repeats the same arithmetic, so it succeeds
  // as it did the first time.
  Portal portal = start;
  V n4;
  S r4;
  for (std::int32_t iteration = 1;; ++iteration) {
    portal_normal(portal, n4);
    r4 = support(n4);
    if (iteration == best.iteration) break;
    refine(portal, r4);
  }
  using std::sqrt;
  const V e4 = n4 / sqrt(dot(n4, n4));
  result_.result_iteration = best.iteration;
  result_.result_tolerance = relative_tolerance(best.value_squared);
  if (best.tc2) {
    finish_tc2(r4, e4, termination);
  } else {
    finish_tc3(portal.r1, portal.r2, portal.r3, r4, e4, n4, dot(n4, n4), termination);
  }
}

/// Newton finish (see the header): Newton steps on g(w) = h(u + w) − (u + w)·r0 over w ⊥ u from
/// the direction `start` (A frame, start·u > 0). In the basis (t1, t2) of the plane normal to the
/// ray, g's gradient is the offset of the support point s(n) from the ray, (tᵢ·(s − r0)), and its
/// Hessian tᵢ·J(n)·tⱼ, J the derivative of the support mapping of A ⊖ B at n = u + w:
/// J_A(n) + R_AB·J_B(−R_ABᵀn)·R_ABᵀ. True when the support point lies on the ray within the TC
/// threshold and the pair penetrates there (the result is written, as TC3 writes it: depth along
/// the normal as its support value, the support point's own witnesses); false when Newton gives
/// up or the support plane leaves the origin outside (a separated pair: the refinement and its
/// closest-point completion answer it).
template <class T, bool kBoxes>
bool Solver<T, kBoxes>::newton_finish(const Vec3& start) {
  const Vec3 u = ray_.to_vec3();
  const double along = start.dot(u);
  if (!(along > 0.0)) return false;
  Vec3 t1, t2;
  complete_basis(u, t1, t2);
  const V t1_T = V::from(t1), t2_T = V::from(t2);
  const Mat3& R = pair_.R_AB;
  const Vec3 t1_B = R.transpose() * t1, t2_B = R.transpose() * t2;
  Vec3 w = start / along - u;
  w -= w.dot(u) * u;  // in the plane normal to the ray
  const T threshold_squared = tc_threshold_ * tc_threshold_;
  T previous_squared{};
  for (int step = 1; step <= kNewtonSteps; ++step) {
    const Vec3 n = u + w;
    const S s = support(V::from(n));
    ++result_.newton_iterations;
    const V offset = s.p - r0_;
    const T g1 = dot(offset, t1_T), g2 = dot(offset, t2_T);
    const T off_squared = g1 * g1 + g2 * g2;
    // A support plane that leaves the origin outside proves the pair separated: the exit point is
    // not the answer (the refinement's closest-point completion is).
    if (dot(s.p, V::from(n)) < T(0.0)) return false;
    if (off_squared <= threshold_squared) {
      finish_newton(s.a, s.b, s.p, n, off_squared, 0);
      return true;
    }
    // A step that does not halve the offset: a kink of the support mapping (its branches' models
    // disagree) or a start outside Newton's basin; the refinement is the safe way on.
    if (step > 1 && !(off_squared < T(0.25) * previous_squared)) return false;
    previous_squared = off_squared;
    double q11 = 0.0, q12 = 0.0, q22 = 0.0;
    add_core_support_derivative(pair_.a, n, t1, t2, q11, q12, q22);
    add_core_support_derivative(pair_.b, -(R.transpose() * n), t1_B, t2_B, q11, q12, q22);
    const double trace = q11 + q22;
    const double det = q11 * q22 - q12 * q12;
    if (!(trace > 0.0) || !(det > kNewtonConditioning * trace * trace)) return false;
    w += newton_step_2d(q11, q12, q22, det, to_double(g1), to_double(g2), t1, t2);
    if (!w.allFinite()) return false;
  }
  return false;
}

/// Straight-line Newton (see the header). Where the origin ray leaves A ⊖ B through the strip
/// swept by a straight segment of X's boundary with direction a (a cylinder's side line, a box's
/// or a hull's edge: `straight_line`, see has_straight_line), X's support at the answer's normal n
/// (n ⊥ a) is the whole segment, g has a kink along the line L = {w : (u + w)·a = 0}, and its
/// minimum lies on L: a 1-D Newton along ℓ = u × a, L's direction, on which either end gives the
/// same gradient ℓ·(s − r0) and the same curvature ℓ·J·ℓ. It ends when that gradient is within the
/// TC threshold and the ray passes between the two ends' support points (their offsets from the
/// ray across L bracket zero): the exit point lies on the segment joining them. Same contract as
/// newton_finish.
template <class T, bool kBoxes>
bool Solver<T, kBoxes>::newton_side_line(const Vec3& start, std::uint8_t straight_line,
                                         const StraightLine* found) {
  if (straight_line == 0 || straight_line > kStraightLines || !has_straight_line(straight_line)) {
    return false;
  }
  const bool on_b = ((straight_line - 1) & 1) != 0;
  const int k = (straight_line - 1) / 2;
  const Mat3& R = pair_.R_AB;
  const double start_norm = start.norm();
  if (!(start_norm > 0.0)) return false;
  StraightLine edge;
  if (found != nullptr) {
    edge = *found;
  } else if (!find_straight_line(straight_line, start / start_norm, edge)) {
    return false;
  }
  const Vec3& axis = edge.axis;  // in A's frame
  const ConvexHull* hull = k == 3 ? (on_b ? pair_.b : pair_.a).hull : nullptr;
  const Vec3 u = ray_.to_vec3();
  Vec3 line = u.cross(axis);
  const double across_length = line.norm();  // |P_u a|: the axis's part normal to the ray
  if (!(across_length > kSideLineAngle)) return false;  // the ray runs along the axis
  line /= across_length;
  const Vec3 across = (axis - axis.dot(u) * u) / across_length;  // L's normal in the plane
  const double start_along = start.dot(u);
  if (!(start_along > 0.0)) return false;
  Vec3 w = start / start_along - u;
  // Onto L: (u + w)·a = 0, i.e. w·across = −(u·a)/|P_u a|, keeping the component along ℓ.
  w = w.dot(line) * line - (axis.dot(u) / across_length) * across;
  const Vec3 line_B = R.transpose() * line;
  const V line_T = V::from(line), across_T = V::from(across);
  const V axis_T = V::from(axis), t_T = V::from(Vec3(pair_.p_AB));
  const T threshold_squared = tc_threshold_ * tc_threshold_;
  T previous{};
  for (int step = 1; step <= kNewtonSteps; ++step) {
    const Vec3 n = u + w;
    const S s = support(V::from(n));
    ++result_.newton_iterations;
    if (dot(s.p, V::from(n)) < T(0.0)) return false;  // separated (see newton_finish)
    // The segment's other end: a hull edge's other vertex (the support must stay on the edge),
    // else X's point mirrored through its mid-plane normal to axis k.
    S other = s;
    if (hull != nullptr) {
      const std::uint32_t at = on_b ? hint_b_ : hint_a_;  // the vertex of this support
      if (at != edge.first && at != edge.second) return false;
      const Vec3& v = hull->vertices[at == edge.first ? edge.second : edge.first];
      if (on_b) {
        other.b = V::from(Vec3(R * v + pair_.p_AB));
      } else {
        other.a = V::from(v);
      }
    } else if (on_b) {
      const T height = dot(s.b - t_T, axis_T);
      other.b = s.b - axis_T * T(2.0 * height);
    } else {
      const T height = k == 0 ? s.a.x : k == 1 ? s.a.y : s.a.z;
      other.a = s.a - axis_T * T(2.0 * height);
    }
    other.p = other.a - other.b;
    const T gradient = dot(s.p - r0_, line_T);
    if (gradient * gradient <= threshold_squared) {
      const T offset = dot(s.p - r0_, across_T);
      const T other_offset = dot(other.p - r0_, across_T);
      if (offset * other_offset > T(0.0)) return false;  // the ray misses the segment
      const T denominator = other_offset - offset;
      const T lambda = denominator != T(0.0) ? T(other_offset / denominator) : T(0.5);
      finish_newton(other.a + (s.a - other.a) * lambda, other.b + (s.b - other.b) * lambda, s.p, n,
                    gradient * gradient, straight_line);
      return true;
    }
    const T magnitude = gradient < T(0.0) ? T(-gradient) : gradient;
    if (step > 1 && !(magnitude < T(0.5) * previous)) return false;
    previous = magnitude;
    double q = 0.0, q12 = 0.0, q22 = 0.0;
    add_core_support_derivative(pair_.a, n, line, line, q, q12, q22);
    double q_b = 0.0;
    add_core_support_derivative(pair_.b, -(R.transpose() * n), line_B, line_B, q_b, q12, q22);
    q += q_b;
    if (!(q > 0.0)) return false;
    const double step_length =
        std::clamp(-to_double(gradient) / q, -kNewtonTrustRadius, kNewtonTrustRadius);
    w += step_length * line;
    if (!w.allFinite()) return false;
  }
  return false;
}

/// Separated curved pair (see the header): Newton steps on h(m) = m̂·s(m̂) from the direction
/// `start`, in the chart m̂ + a·t1 + b·t2 of the tangent plane, where h has the gradient
/// (t1·s, t2·s) and the Hessian J − h·I. The upper bound |s| of the best support point and the
/// lower bound −h of the best direction must agree to the TC threshold; the answer is that support
/// point (the cores' closest point within the tolerance) with its direction as the normal, the
/// swept radii taken off. False when the bounds do not close within kNewtonSteps, when no lower
/// bound is positive (not separated after all) or the model is not positive definite; the
/// closest-point iteration then answers.
template <class T, bool kBoxes>
bool Solver<T, kBoxes>::newton_separated(const Vec3& start) {
  const double start_length = start.norm();
  if (!(start_length > 0.0)) return false;
  Vec3 m = start / start_length;
  const Mat3& R = pair_.R_AB;
  T lower = T(-std::numeric_limits<double>::infinity());
  T upper = T(std::numeric_limits<double>::infinity());
  S closest;
  Vec3 closest_direction = m;  // the direction `closest` is the support point of
  // The iterate m with its support point s and support value h; a trial direction replaces it
  // only when it raises the lower bound −h (backtracking: from a start far from the answer, full
  // Newton steps on the support function overshoot and cycle).
  S s;
  T h{};
  Vec3 step_A = Vec3::Zero();  // the Newton step from m, tangent to the sphere
  // Trust radius of the step (in the chart m + w): halved after a trial that made no progress,
  // doubled (up to kNewtonTrustRadius) after one that did, so that a step that overshot once is
  // not tried at full length again. Newton's own steps near the answer are far shorter.
  double radius = kNewtonTrustRadius;
  double tried = 0.0;  // length of the last trial step
  bool have_iterate = false;
  for (int evaluation = 1; evaluation <= kSeparatedNewtonEvaluations; ++evaluation) {
    Vec3 trial = m;
    if (have_iterate) {
      const double length = step_A.norm();
      tried = std::min(length, radius);
      trial = (m + (tried / length) * step_A).normalized();
    }
    if (!trial.allFinite()) return false;
    const S s_trial = support(V::from(trial));
    ++result_.newton_iterations;
    const T h_trial = dot(s_trial.p, V::from(trial));
    if (T(-h_trial) > lower) lower = -h_trial;
    const T length = norm(s_trial.p);
    if (length < upper) {
      upper = length;
      closest = s_trial;
      closest_direction = trial;
    }
    if (upper - lower <= tc_threshold_) {
      if (!(lower > T(0.0))) return false;
      const V normal = -closest.p / upper;  // from A towards B
      const T radius_a = T(radius_a_), radius_b = T(radius_b_);
      result_.termination = Termination::newton_closest_point;
      result_.result_tolerance = result_.last_tolerance =
          relative_tolerance(T((upper - lower) * (upper - lower)));
      set_geometry(closest.a + normal * radius_a, closest.b - normal * radius_b,
                   T(upper - radius_a - radius_b), normal);
      radii_applied_ = true;
      if (warm_ != nullptr) {
        // The direction of the closest support point: from it the next query at this pose meets
        // the same bounds at its first step.
        finish_newton_cache(closest_direction, 0);
        warm_->newton_separated = true;
      }
      return true;
    }
    if (have_iterate && !(T(-h_trial) > T(-h))) {
      // No progress: a shorter step from the same iterate, down to kSeparatedNewtonMinRadius.
      radius = 0.5 * tried;
      if (radius < kSeparatedNewtonMinRadius) return false;
      continue;
    }
    if (have_iterate) radius = std::min(kNewtonTrustRadius, 2.0 * tried);
    m = trial;
    s = s_trial;
    h = h_trial;
    have_iterate = true;
    if (evaluation >= 2 && !(lower > T(0.0))) return false;
    Vec3 t1, t2;
    complete_basis(m, t1, t2);
    double q11 = 0.0, q12 = 0.0, q22 = 0.0;
    add_core_support_derivative(pair_.a, m, t1, t2, q11, q12, q22);
    add_core_support_derivative(pair_.b, -(R.transpose() * m), R.transpose() * t1,
                                R.transpose() * t2, q11, q12, q22);
    const double h_double = to_double(h);
    q11 -= h_double;
    q22 -= h_double;
    const double det = q11 * q22 - q12 * q12;
    if (!(q11 > 0.0 && q22 > 0.0 && det > 0.0) || !std::isfinite(det)) return false;
    step_A = newton_step_2d(q11, q12, q22, det, to_double(dot(s.p, V::from(t1))),
                            to_double(dot(s.p, V::from(t2))), t1, t2);
  }
  return false;
}

template <class T, bool kBoxes>
bool Solver<T, kBoxes>::warm_newton(const Vec3& c_A, const Vec3& c_B, const T& r0_norm,
                                    const V& e1) {
  if (!(r0_norm > T(0.0))) return false;
  ray_ = e1;
  // The size as the cold start measures it, from the ray's own support point.
  ray_support_ = support(ray_);
  have_ray_support_ = true;
  length_ = std::max(r0_norm, norm(ray_support_.p - r0_));
  if (!(length_ < T(std::numeric_limits<double>::infinity()))) return false;
  set_thresholds(c_A, c_B);
  return r0_norm > ray_threshold_;
}

template <class T, bool kBoxes>
void Solver<T, kBoxes>::run() {
  run_portal();
  if (on_cores_ && !radii_applied_ && !needs_full_shapes_ &&
      (radius_a_ != 0.0 || radius_b_ != 0.0)) {
    // A ⊖ B is the cores' difference grown by a ball of radius r_A + r_B.
    ContactGeometry& g = result_.geometry;
    g.distance_m -= radius_a_ + radius_b_;
    g.point_a_W += radius_a_ * g.normal_W;
    g.point_b_W -= radius_b_ * g.normal_W;
  }
}

template <class T, bool kBoxes>
void Solver<T, kBoxes>::run_portal() {
  using std::abs;
  // ----- Phase 1: interior point and initial portal (Neumayr §6.1.1, L296–306) -----
  // (A box's interior point is its frame's origin.)
  const Vec3 c_A = kBoxes ? Vec3(Vec3::Zero()) : interior_point(pair_.a);
  const Vec3 c_B = kBoxes ? pair_.p_AB : Vec3(pair_.R_AB * interior_point(pair_.b) + pair_.p_AB);
  r0_ = V::from(c_A) - V::from(c_B);  // exact in double-double
  T r0_norm = norm(r0_);
  V e1 = r0_norm > T(0.0) ? V(-r0_ / r0_norm) : V{T(0.0), T(0.0), T(1.0)};

  if (newton_on() && warm_ != nullptr && warm_->valid && warm_->newton &&
      warm_->cores == on_cores_) {
    // Curved pair: Newton from the normal the pair's last query ended on.
    warm_->valid = false;
    hint_a_ = warm_->hint_a;
    hint_b_ = warm_->hint_b;
    // A face's normal (face_certificate) gives that face's certificate at once, else the query
    // starts cold.
    const bool answered =
        warm_newton(c_A, c_B, r0_norm, e1) &&
        (warm_->face               ? faces_ && try_faces(V::from(warm_->directions[0]))
         : warm_->newton_separated ? newton_separated(warm_->directions[0])
                                   : newton(warm_->directions[0], warm_->newton_side));
    if (answered) {
      result_.warm_started = true;
      return;
    }
    result_ = Result{};  // the cold start below answers (its own counts)
  }

  // ----- Phase 2: a portal the origin ray passes through (§6.1.2, L366–390; libccd) -----
  // Whichever side face the origin ray leaves through, replace the portal vertex opposite to it
  // by the support point beyond that face, then restore the orientation. Sets `flat` when the
  // tetrahedron (r0; r1, r2, r3) is flat (A ⊖ B is planar).
  // The phase-3 start portal (finish_best replays the refinement from it).
  Portal start;
  S& r1 = start.r1;
  S& r2 = start.r2;
  S& r3 = start.r3;
  bool flat = false;
  const auto find_portal = [&]() {
    flat = false;
    for (std::int32_t iteration = 1; iteration <= max_iterations_; ++iteration) {
      ++result_.phase2_iterations;
      const V v1 = r1.p - r0_;
      const V v2 = r2.p - r0_;
      const V v3 = r3.p - r0_;
      if (!(dot(v1, cross(v2, v3)) > volume_threshold_)) {
        flat = true;
        return false;
      }
      const V n12 = cross(v1, v2);
      if (dot(ray_, n12) < -area_threshold_) {
        r3 = support(V(-n12));
        std::swap(r1, r2);
        continue;
      }
      const V n23 = cross(v2, v3);
      if (dot(ray_, n23) < -area_threshold_) {
        r1 = support(V(-n23));
        std::swap(r2, r3);
        continue;
      }
      const V n31 = cross(v3, v1);
      if (dot(ray_, n31) < -area_threshold_) {
        r2 = support(V(-n31));
        std::swap(r3, r1);
        continue;
      }
      return true;
    }
    return false;
  };

  // Warm start: phase 2 from the portal the pair's previous query ended on, without phase 1's
  // support along the origin ray (the size of A ⊖ B comes from the warm points; TC1 is checked
  // at the end, warm_tc1). A portal that is not a tetrahedron with r0 on its apex side, or that
  // phase 2 cannot repair, sends the query to the cold start below.
  bool valid_portal = false;
  if (!newton_on() && warm_ != nullptr && warm_->valid && !warm_->newton &&
      warm_->cores == on_cores_) {
    warm_supports(r1, r2, r3);
    {
      using std::sqrt;
      const V v1 = r1.p - r0_, v2 = r2.p - r0_, v3 = r3.p - r0_;
      length_ = std::max(r0_norm, T(sqrt(std::max({dot(v1, v1), dot(v2, v2), dot(v3, v3)}))));
    }
    set_thresholds(c_A, c_B);
    ray_ = e1;
    // find_portal first checks that (r0; r1, r2, r3) is a tetrahedron with r0 on its apex side.
    valid_portal = length_ > T(0.0) && length_ < T(std::numeric_limits<double>::infinity()) &&
                   r0_norm > ray_threshold_ && find_portal();
    trust_hints_ = valid_portal;
  }
  result_.warm_started = warm_run_ = valid_portal;

  if (!valid_portal) {
    r1 = have_ray_support_ ? ray_support_ : support(e1);  // L324–328 (warm_newton's, if it ran)
    length_ = std::max(r0_norm, norm(r1.p - r0_));
    set_thresholds(c_A, c_B);
    if (!(length_ > T(0.0)) || !(length_ < T(std::numeric_limits<double>::infinity()))) {
      // Both shapes are single points at the same place, or the input is not finite.
      finish_degenerate_start(r1, e1);
      return;
    }

    if (!(r0_norm > ray_threshold_)) {
      // Coincident interior points (L316–318, an error in Modia3D): move r0 a small step towards
      // the boundary point of A ⊖ B below it. The origin ray then points along +z of world, the
      // choice the primitive closed forms make for concentric spheres.
      result_.coincident_interior_points = true;
      result_.degenerate = true;
      const S below = support(-V::from(pair_.world_up_A));
      r0_ = r0_ + (below.p - r0_) * T(kInteriorShiftFraction);
      r0_norm = norm(r0_);
      if (!(r0_norm > T(0.0))) {
        finish_on_ray(r1, e1, Termination::degenerate_start);
        return;
      }
      e1 = -r0_ / r0_norm;
      r1 = support(e1);
    }
    ray_ = e1;
    ray_support_ = r1;
    have_ray_support_ = true;

    // TC1 (L333): r1 on the origin ray; its support plane gives the signed distance (L300–303).
    // Support directions below are not normalised (the support mapping does not need it) and
    // lengths are compared in squares.
    const V n2 = cross(e1, r1.p);
    if (!(dot(n2, n2) > ray_threshold_ * ray_threshold_)) {
      finish_on_ray(r1, e1, Termination::tc1);
      return;
    }

    const T area_squared = area_threshold_ * area_threshold_;
    // r2 (L338): normal to the plane through the origin, r0 and r1.
    r2 = support(n2);

    // r3 (L343–365): normal to the plane through r0, r1, r2, on the origin's side.
    V n3 = cross(r1.p - r0_, r2.p - r0_);
    if (!(dot(n3, n3) > area_squared)) {
      r2 = support(V(-n2));  // L346: the opposite direction
      n3 = cross(r1.p - r0_, r2.p - r0_);
      if (!(dot(n3, n3) > area_squared)) {
        // L348: A ⊖ B is planar (2-D MPR is not supported) — keep the support-plane estimate.
        finish_degenerate_start(ray_support_, e1);
        return;
      }
    }
    if (dot(n3, ray_) < T(0.0)) {
      // L352–353 flip n3; swapping r1 and r2 keeps (r1 − r0) × (r2 − r0) = n3 (our orientation).
      std::swap(r1, r2);
      n3 = -n3;
    }
    r3 = support(n3);
    V n123 = cross(r2.p - r1.p, r3.p - r1.p);
    if (!(dot(n123, n123) > area_squared)) {
      r3 = support(V(-n3));  // L359
      n123 = cross(r2.p - r1.p, r3.p - r1.p);
      if (!(dot(n123, n123) > area_squared)) {
        finish_degenerate_start(ray_support_, e1);
        return;
      }
      std::swap(r1, r2);  // r3 now lies behind the plane (r0, r1, r2): restore the orientation
    }
    valid_portal = find_portal();
    if (!valid_portal) {
      // L385–387 (an error in Modia3D): no valid portal; keep the support-plane estimate.
      if (flat) {
        finish_degenerate_start(ray_support_, e1);
      } else {
        result_.iteration_limit_hit = true;
        finish_on_ray(ray_support_, e1, Termination::iteration_limit);
      }
      return;
    }
  }
  const T area_squared = area_threshold_ * area_threshold_;
  // Phase-3 directions are portal normals converging on one face: hull supports climb from the
  // previous support's vertex alone (cold runs sample only in phases 1 and 2, whose directions
  // jump; measured on hull256 overlapping, cold: 31.5k -> 21.7k instructions per query).
  trust_hints_ = true;

  // ----- Phase 3: portal refinement (§6.1.3, L392–416) -----
  // The loop carries no square root and no division on its critical path: the support mapping
  // takes the unnormalised portal normal n4 (any positive multiple of e4 gives the same support
  // point), and TC2/TC3 are compared in squares scaled by |n4|² (|r4 × n4|² ≤ τ²|n4|² is
  // |r4 × e4| ≤ τ, and (r4 − r1)·n4 ≤ τ|n4| is (r4 − r1)·e4 ≤ τ). e4 itself is formed only where
  // the loop ends. The best-so-far bookkeeping (one division) is off that path.
  // The refined portal is copied from the start portal (r1, r2, r3, kept for finish_best) at the
  // first refinement, not before: a warm start at an unchanged pose ends before it.
  union Refined {
    Refined() {}  // uninitialised until the first refinement
    Portal portal;
  } refined;
  const Portal* current = &start;
  Candidate best;
  const T tc_squared = tc_threshold_ * tc_threshold_;
  T newton_switch_squared = T(kNewtonSwitch * kNewtonSwitch) * length_ * length_;
  // The previous iterate's termination values (scaled as below), for last_tolerance when a
  // degenerate portal ends the loop.
  T last_tc2_scaled = T(-1.0), last_tc3_scaled{}, last_n4_squared = T(1.0);
  bool completion_tried = !portal_on_cores();  // the portal must be a simplex of the cores
  const auto record_last_tolerance = [&]() {
    if (last_tc2_scaled < T(0.0)) return;
    result_.last_tolerance = relative_tolerance(
        std::min(last_tc2_scaled, T(last_tc3_scaled * last_tc3_scaled)) / last_n4_squared);
  };
  for (std::int32_t iteration = 1; iteration <= max_iterations_; ++iteration) {
    const Portal& portal = *current;
    result_.phase3_iterations = iteration;
    // r4 (L417–434): the support point along the portal normal, which points away from r0.
    const V n4 = cross(portal.r2.p - portal.r1.p, portal.r3.p - portal.r1.p);
    const T n4_squared = dot(n4, n4);
    if (!(n4_squared > area_squared)) {
      result_.degenerate = true;
      record_last_tolerance();
      finish_best(best, start, ray_support(), e1, Termination::degenerate_portal);
      return;
    }
    // The first portal's normal is often near the face already (a face contact's certificate
    // then costs no refinement).
    if (faces_ && iteration == 1 && try_faces(n4)) return;
    const S r4 = support(n4);
    const V off_ray = cross(r4.p, n4);
    const T tc2_scaled = dot(off_ray, off_ray);        // TC2 (L396): tc2² · |n4|²
    const T tc3_scaled = dot(r4.p - portal.r1.p, n4);  // TC3 (L397): tc3 · |n4|, signed
    const T tc3_squared_scaled = tc3_scaled * tc3_scaled;
    const T limit_scaled = tc_squared * n4_squared;
    const bool tc2_met = tc2_scaled <= limit_scaled;
    const bool tc3_met = tc3_scaled <= T(0.0) || tc3_squared_scaled <= limit_scaled;
    // Separation is proven once r4's support plane leaves the origin outside (r4·e4 < 0): the
    // distance is then completed from this portal (see complete_closest_point), since refining
    // the portal further towards the origin ray's exit point would not give it. Tried once; when
    // the cores turn out to touch numerically, the refinement goes on.
    const bool separated = !completion_tried && dot(r4.p, n4) < T(0.0) && !tc2_met && !tc3_met;
    if (tc2_met || tc3_met || separated || iteration == max_iterations_) {
      // The termination values of this iterate, relative to the size of A ⊖ B.
      using std::sqrt;
      const T n4_norm = sqrt(n4_squared);
      result_.last_tolerance =
          relative_tolerance(std::min(tc2_scaled, tc3_squared_scaled) / n4_squared);
      // The result's own value: the last one's when its condition gave the minimum.
      const auto value_of = [&](const T& scaled) {
        return scaled <= std::min(tc2_scaled, tc3_squared_scaled)
                   ? result_.last_tolerance
                   : relative_tolerance(scaled / n4_squared);
      };
      const V e4 = n4 / n4_norm;
      if ((tc2_met || tc3_met || separated) && warm_tc1(portal, r4)) {
        save_portal(portal);
        return;
      }
      if (separated) {
        completion_tried = true;
        if (faces_ && try_faces(n4, kSeparatedFaceCosine)) return;
        if (newton_on() && newton_separated(e4.to_vec3())) return;
        if (complete_closest_point(e4, &portal, &r4)) {
          save_portal(portal);
          result_.result_iteration = iteration;
          result_.result_tolerance = result_.last_tolerance;
          result_.termination = Termination::separated_closest_point;
          return;
        }
      }
      if (tc2_met || tc3_met) cache_face_ending(n4);  // (a polytope pair saves its portal)
      if (tc2_met) {
        save_portal(portal);
        result_.result_iteration = iteration;
        result_.result_tolerance = value_of(tc2_scaled);
        finish_tc2(r4, e4, Termination::tc2);
        return;
      }
      if (tc3_met) {
        save_portal(portal);
        result_.result_iteration = iteration;
        result_.result_tolerance = value_of(tc3_squared_scaled);
        finish_tc3(portal.r1, portal.r2, portal.r3, r4, e4, n4, n4_squared,
                   Termination::tc3_inside);
        return;
      }
    }
    // Curved pair close to the boundary: the Newton finish takes over (once per query).
    if (newton_on() && newton_attempts_ < kNewtonAttempts &&
        tc3_squared_scaled <= newton_switch_squared * n4_squared) {
      if (faces_ && try_faces(n4)) return;
      ++newton_attempts_;
      if (newton(n4.to_vec3())) return;
      newton_switch_squared *= T(kNewtonRetry * kNewtonRetry);
    }
    // Best so far (L403–404): the smallest termination value seen, with the iterate it came from
    // (compared in squares: min(tc2², tc3²), tc3 > 0 here).
    const T value_squared = std::min(tc2_scaled, tc3_squared_scaled) / n4_squared;
    if (value_squared < best.value_squared)
      best = Candidate{tc2_scaled < tc3_squared_scaled, value_squared, iteration};
    if (iteration == max_iterations_) break;
    last_tc2_scaled = tc2_scaled;
    last_tc3_scaled = tc3_scaled;
    last_n4_squared = n4_squared;
    if (current == &start) {
      std::construct_at(&refined.portal, start);
      current = &refined.portal;
    }
    if (!refine(refined.portal, r4)) {
      // L406–409: no candidate portal is valid (rounding), return the best so far.
      result_.degenerate = true;
      record_last_tolerance();
      finish_best(best, start, ray_support(), e1, Termination::degenerate_portal);
      return;
    }
  }
  // L412–415: iteration limit, return the best so far (not the last iterate).
  result_.iteration_limit_hit = true;
  finish_best(best, start, ray_support(), e1, Termination::iteration_limit);
  return;
}

}  // namespace

/// Cores mode, two spheres: the cores are the centres, so A ⊖ B's core is the single point
/// r0 = c_A − c_B and phase 1 ends at once with r1 = r0 on the origin ray (TC1): what the general
/// path computes, written out in the world frame without the pair's frame and the solver set-up.
/// False (nothing written) when the centres coincide to rounding (the guarded general path).
template <class T>
bool sphere_cores_tc1(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                      Result& result) {
  using std::sqrt;
  const Vector3<T> c_A = Vector3<T>::from(X_WA.p), c_B = Vector3<T>::from(X_WB.p);
  const Vector3<T> r0 = c_A - c_B;
  const T r0_norm = sqrt(dot(r0, r0));
  const double coordinates = std::max(X_WA.p.cwiseAbs().maxCoeff(), X_WB.p.cwiseAbs().maxCoeff());
  const double noise = kSupportRoundingUlps * std::numeric_limits<double>::epsilon() *
                       (coordinates + to_double(r0_norm));
  if (!(r0_norm > T(noise)) || !(r0_norm < T(std::numeric_limits<double>::infinity()))) {
    return false;
  }
  const Vector3<T> e = -r0 / r0_norm;  // from A towards B
  // As finish_on_ray and the radii step of the general path: the core points re-centred on their
  // midpoint, then moved by their radii along the normal.
  const T distance = r0_norm - T(a.radius_m) - T(b.radius_m);
  const Vector3<T> middle = (c_A + c_B) * T(0.5);
  const Vector3<T> half_gap = e * T(r0_norm * T(0.5));
  ContactGeometry& g = result.geometry;
  g.distance_m = to_double(distance);
  g.normal_W = e.to_vec3();
  g.point_a_W = (middle - half_gap + e * T(a.radius_m)).to_vec3();
  g.point_b_W = (middle + half_gap - e * T(b.radius_m)).to_vec3();
  result.termination = Termination::tc1;
  return true;
}

/// The solver's run on the pair (the cores first where a radius is swept, the full shapes when the
/// cores intersect where their difference is degenerate), in A's frame.
template <class Scalar, bool kBoxes>
[[gnu::always_inline]] inline void solve(const PosedPair& pair, const Settings& settings,
                                         bool swept, WarmPortal* warm, Result& result) {
  if (settings.on_cores && swept) {
    Solver<Scalar, kBoxes> solver(pair, settings, true, warm, result);
    solver.run();
    if (solver.needs_full_shapes()) {
      const Result cores = result;
      Solver<Scalar, kBoxes> full(pair, settings, false, nullptr, result);  // full shapes: curved
      full.run();
      result.full_shape_rerun = true;
      result.phase2_iterations += cores.phase2_iterations;
      result.phase3_iterations += cores.phase3_iterations;
      result.completion_iterations += cores.completion_iterations;
      result.iteration_limit_hit = result.iteration_limit_hit || cores.iteration_limit_hit;
    }
  } else {
    Solver<Scalar, kBoxes> solver(pair, settings, false, warm, result);
    solver.run();
  }
}

template <class Scalar>
void signed_distance(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                     const Settings& settings, WarmPortal* warm, Result& result) {
  if (settings.on_cores && a.type == ShapeType::sphere && b.type == ShapeType::sphere) {
    result = Result{};
    if (sphere_cores_tc1<Scalar>(a, X_WA, b, X_WB, result)) return;
  }
  const Mat3 R_AW = X_WA.R.transpose();
  const PosedPair pair{a, b, R_AW * X_WB.R, R_AW * (X_WB.p - X_WA.p), R_AW.col(2)};
  // Portal warm starts only where A ⊖ B, as this run sees it, is a polytope: there the answer is
  // the face the origin ray leaves through whatever the start portal. On a curved difference the
  // refinement's answer moves with the start portal by about the TC tolerance times the support's
  // gradient (1e-8–1e-7 of the size measured on cylinders, cones and ellipsoids), so curved pairs
  // warm-start only the Newton finish, whose answer is the ray's exit point to the tolerance
  // whatever its start.
  const bool swept = sweep_radius(a) > 0.0 || sweep_radius(b) > 0.0;
  if (warm != nullptr && !((settings.on_cores || !swept) &&
                           (settings.newton_finish || (polytope_core(a) && polytope_core(b))))) {
    warm->valid = false;
    warm = nullptr;
  }
  if constexpr (std::is_same_v<Scalar, double>) {
    if (a.type == ShapeType::box && b.type == ShapeType::box) {
      solve<Scalar, true>(pair, settings, swept, warm, result);
    } else {
      solve<Scalar, false>(pair, settings, swept, warm, result);
    }
  } else {
    solve<Scalar, false>(pair, settings, swept, warm, result);
  }
  // From the frame of A to the world.
  ContactGeometry& g = result.geometry;
  g.normal_W = X_WA.R * g.normal_W;
  g.point_a_W = X_WA.transform_point(g.point_a_W);
  g.point_b_W = X_WA.transform_point(g.point_b_W);
}

template <class Scalar>
Result signed_distance(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                       const Settings& settings, WarmPortal* warm) {
  Result result;
  signed_distance<Scalar>(a, X_WA, b, X_WB, settings, warm, result);
  return result;
}

template Result signed_distance<double>(const Shape&, const Pose&, const Shape&, const Pose&,
                                        const Settings&, WarmPortal*);
template Result signed_distance<long double>(const Shape&, const Pose&, const Shape&, const Pose&,
                                             const Settings&, WarmPortal*);
template Result signed_distance<DoubleDouble>(const Shape&, const Pose&, const Shape&, const Pose&,
                                              const Settings&, WarmPortal*);

void signed_distance(Precision precision, const Shape& a, const Pose& X_WA, const Shape& b,
                     const Pose& X_WB, const Settings& settings, WarmPortal* warm, Result& result) {
  switch (precision) {
    case Precision::long_double:
      return signed_distance<long double>(a, X_WA, b, X_WB, settings, warm, result);
    case Precision::double_double:
      return signed_distance<DoubleDouble>(a, X_WA, b, X_WB, settings, warm, result);
    case Precision::double_precision:
      break;
  }
  signed_distance<double>(a, X_WA, b, X_WB, settings, warm, result);
}

Result signed_distance(Precision precision, const Shape& a, const Pose& X_WA, const Shape& b,
                       const Pose& X_WB, const Settings& settings, WarmPortal* warm) {
  Result result;
  signed_distance(precision, a, X_WA, b, X_WB, settings, warm, result);
  return result;
}

}  // namespace contactlab::plugins::mpr
