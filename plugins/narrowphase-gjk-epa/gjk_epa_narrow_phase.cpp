// GJK/EPA narrow phase (see the header for the method): the signed-volumes sub-distance
// algorithm, GJK on the shape cores, the shifted-GJK refinement near contact, EPA with a
// fixed-capacity polytope, and the plugin class.
#include "gjk_epa_narrow_phase.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

namespace {

constexpr double kMachineEpsilon = std::numeric_limits<double>::epsilon();

// Fractions of the problem's size (the largest support point or swept radius seen).
//
// Above kSeparatedFraction, GJK's answer stands: its closest-point direction v/|v| is accurate to
// about ε·size/|v| ≤ 2e-10. Between kEnclosingFraction and kSeparatedFraction the direction may
// be rounding noise (the "kissing contact" failures of FCL #493/#495) and GJK's descent on curved
// cores slows to a crawl, so the gap is measured again with B moved away by kShiftFraction·size
// along that direction (refine()). Below kEnclosingFraction the origin is treated as on or in the
// Minkowski difference and EPA takes over, whose normals come from polytope faces and stay well
// conditioned at any gap; its distance is exact when the nearest feature is a face and otherwise
// off by less than kEnclosingFraction·size.
constexpr double kSeparatedFraction = 1e-6;
constexpr double kEnclosingFraction = 1e-12;
constexpr double kShiftFraction = 1e-3;

// Extents of the Minkowski difference below this fraction of the problem's size count as flat:
// EPA then needs no polytope, the depth along the flat direction is exact to this fraction.
constexpr double kFlatFraction = 1e-12;

// Stored in NarrowPhaseCache::data: [0] number of directions, [1..12] up to four support
// directions in A's frame, [13], [14] the shape types the entry was made for.
constexpr int kCacheCount = 0;
constexpr int kCacheDirections = 1;
constexpr int kCacheTypeA = 13;
constexpr int kCacheTypeB = 14;

// One point of the Minkowski difference M = core(A) − core(B), in A's frame.
// Left uninitialised: simplices and polytopes only read the points they have written.
struct SupportPoint {
  Vec3 w;  // a − b [m]
  Vec3 a;  // the point of A's core [m]
  Vec3 b;  // the point of B's core [m]
  Vec3 d;  // the direction w is a support point for (kept for warm starts)
};

// Support mapping of M in A's frame. Working relative to A keeps the coordinates as small as the
// pair's separation, whatever the absolute position of the pair in the world (mujoco_warp #1546:
// support points subtracted in world coordinates lost a 1e-9 overlap to rounding at y = 1 m).
class CoreDifference {
 public:
  CoreDifference(const Shape& a, const Shape& b, const Pose& X_AB) : a_(a), b_(b), X_AB_(X_AB) {}

  SupportPoint support(const Vec3& d_A) const {
    SupportPoint s;
    s.d = d_A;
    s.a = core_support(a_, d_A);
    s.b = X_AB_.transform_point(core_support(b_, -(X_AB_.R.transpose() * d_A)));
    s.w = s.a - s.b;
    return s;
  }

 private:
  const Shape& a_;
  const Shape& b_;
  const Pose& X_AB_;
};

// Two unit vectors completing the unit vector u to a right-handed orthonormal basis, without a
// singular direction (Duff et al. 2017, "Building an orthonormal basis, revisited", listing 3).
void complete_basis(const Vec3& u, Vec3& t1, Vec3& t2) {
  const double sign = std::copysign(1.0, u.z());
  const double a = -1.0 / (sign + u.z());
  const double b = u.x() * u.y() * a;
  t1 = Vec3(1.0 + sign * u.x() * u.x() * a, sign * b, -sign * u.x());
  t2 = Vec3(b, sign + u.y() * u.y() * a, -u.y());
}

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

bool same_sign(double x, double y) {
  return (x > 0.0 && y > 0.0) || (x < 0.0 && y < 0.0);
}

SubSimplex sub_vertex(const Vec3* w, int i) {
  SubSimplex s;
  s.count = 1;
  s.index[0] = i;
  s.lambda[0] = 1.0;
  s.v = w[i];
  s.vv = s.v.squaredNorm();
  return s;
}

void keep_closer(SubSimplex& best, const SubSimplex& candidate) {
  if (candidate.vv < best.vv || best.count == 0) best = candidate;
}

// S1D: segment w[i0] w[i1].
SubSimplex sub_segment(const Vec3* w, int i0, int i1) {
  const Vec3& s1 = w[i0];
  const Vec3& s2 = w[i1];
  const Vec3 e = s2 - s1;
  const double ee = e.squaredNorm();
  if (!(ee > 0.0)) {
    SubSimplex best = sub_vertex(w, i0);
    keep_closer(best, sub_vertex(w, i1));
    return best;
  }
  // Projection of the origin on the line, then signed lengths along the dominant axis.
  const Vec3 p0 = s1 - (s1.dot(e) / ee) * e;
  int axis = 0;
  e.cwiseAbs().maxCoeff(&axis);
  const double mu = s1[axis] - s2[axis];
  const double c1 = p0[axis] - s2[axis];  // weight of s1 times mu
  const double c2 = s1[axis] - p0[axis];  // weight of s2 times mu
  if (same_sign(mu, c1) && same_sign(mu, c2)) {
    SubSimplex s;
    s.count = 2;
    s.index = {i0, i1, 0, 0};
    s.lambda[0] = c1 / mu;
    s.lambda[1] = c2 / mu;
    s.v = s.lambda[0] * s1 + s.lambda[1] * s2;
    s.vv = s.v.squaredNorm();
    return s;
  }
  if (!same_sign(mu, c1)) return sub_vertex(w, i1);  // the origin projects beyond s2
  return sub_vertex(w, i0);                          // ... or beyond s1
}

// S2D: triangle w[i0] w[i1] w[i2].
SubSimplex sub_triangle(const Vec3* w, int i0, int i1, int i2) {
  const Vec3& s1 = w[i0];
  const Vec3& s2 = w[i1];
  const Vec3& s3 = w[i2];
  const Vec3 n = (s2 - s1).cross(s3 - s1);
  const double nn = n.squaredNorm();
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
      SubSimplex s;
      s.count = 3;
      s.index = {i0, i1, i2, 0};
      for (int j = 0; j < 3; ++j) s.lambda[j] = c[j] / sum;
      s.v = s.lambda[0] * s1 + s.lambda[1] * s2 + s.lambda[2] * s3;
      s.vv = s.v.squaredNorm();
      return s;
    }
    SubSimplex best;
    const std::array<int, 3> ids = {i0, i1, i2};
    for (int j = 0; j < 3; ++j) {
      if (!same_sign(mu, c[j]))
        keep_closer(best, sub_segment(w, ids[(j + 1) % 3], ids[(j + 2) % 3]));
    }
    if (best.count > 0) return best;
  }
  // Degenerate (collinear or non-finite) triangle: the closest point lies on an edge.
  SubSimplex best = sub_segment(w, i0, i1);
  keep_closer(best, sub_segment(w, i1, i2));
  keep_closer(best, sub_segment(w, i0, i2));
  return best;
}

// S3D: tetrahedron w[0..3].
SubSimplex sub_tetrahedron(const Vec3* w) {
  const Vec3& s1 = w[0];
  const Vec3& s2 = w[1];
  const Vec3& s3 = w[2];
  const Vec3& s4 = w[3];
  // Six times the signed volume, and the same with each vertex replaced by the origin.
  const double volume = (s2 - s1).dot((s3 - s1).cross(s4 - s1));
  const std::array<double, 4> c = {s2.dot(s3.cross(s4)), -s1.dot((s3 - s1).cross(s4 - s1)),
                                   (s2 - s1).dot((-s1).cross(s4 - s1)),
                                   (s2 - s1).dot((s3 - s1).cross(-s1))};
  if (same_sign(volume, c[0]) && same_sign(volume, c[1]) && same_sign(volume, c[2]) &&
      same_sign(volume, c[3])) {
    const double sum = c[0] + c[1] + c[2] + c[3];
    SubSimplex s;
    s.count = 4;
    s.index = {0, 1, 2, 3};
    for (int j = 0; j < 4; ++j) s.lambda[j] = c[j] / sum;
    s.v = Vec3::Zero();  // the origin is inside
    s.vv = 0.0;
    return s;
  }
  SubSimplex best;
  for (int j = 0; j < 4; ++j) {
    if (!same_sign(volume, c[j])) {
      keep_closer(best, sub_triangle(w, (j + 1) % 4, (j + 2) % 4, (j + 3) % 4));
    }
  }
  if (best.count > 0) return best;
  best = sub_triangle(w, 1, 2, 3);  // only reached with non-finite input
  keep_closer(best, sub_triangle(w, 0, 2, 3));
  keep_closer(best, sub_triangle(w, 0, 1, 3));
  keep_closer(best, sub_triangle(w, 0, 1, 2));
  return best;
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
    std::array<Vec3, 4> w;
    for (int i = 0; i < count; ++i) w[i] = points[i].w;
    SubSimplex s;
    switch (count) {
      case 1:
        s = sub_vertex(w.data(), 0);
        break;
      case 2:
        s = sub_segment(w.data(), 0, 1);
        break;
      case 3:
        s = sub_triangle(w.data(), 0, 1, 2);
        if (exhaustive) {
          keep_closer(s, sub_segment(w.data(), 0, 1));
          keep_closer(s, sub_segment(w.data(), 1, 2));
          keep_closer(s, sub_segment(w.data(), 0, 2));
        }
        break;
      default:
        s = sub_tetrahedron(w.data());
        if (exhaustive && s.count < 4) {
          for (int j = 0; j < 4; ++j) {
            keep_closer(s, sub_triangle(w.data(), (j + 1) % 4, (j + 2) % 4, (j + 3) % 4));
          }
        }
        break;
    }
    return s;
  }

  // Keeps the sub-simplex `s` of this simplex.
  void keep(const SubSimplex& s) {
    std::array<SupportPoint, 4> kept;
    for (int i = 0; i < s.count; ++i) kept[i] = points[s.index[i]];
    for (int i = 0; i < s.count; ++i) points[i] = kept[i];
    lambda = s.lambda;
    count = s.count;
    v = s.v;
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

// Contact between the cores, in A's frame.
struct CoreContact {
  double distance_m = 0.0;      // signed
  Vec3 normal = Vec3::UnitZ();  // unit, from A to B
  Vec3 point_a = Vec3::Zero();  // on A's core
  Vec3 point_b = Vec3::Zero();  // on B's core
  std::array<Vec3, 4> warm_directions;
  int warm_count = 0;
};

// Witness points a, b around their midpoint such that b − a = distance·normal holds to rounding.
void set_witnesses(CoreContact& c, const Vec3& a, const Vec3& b) {
  const Vec3 middle = 0.5 * (a + b);
  c.point_a = middle - (0.5 * c.distance_m) * c.normal;
  c.point_b = middle + (0.5 * c.distance_m) * c.normal;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// EPA polytope memory, sized once from max_iterations: every EPA iteration adds one vertex, and a
// closed triangulated polytope with V vertices has at most 2V − 4 faces.

struct GjkEpaNarrowPhase::Workspace {
  struct Face {
    std::array<int, 3> v{};         // vertex indices, counter-clockwise seen from outside
    std::array<int, 3> adj{};       // neighbour across edge e = (v[e], v[e + 1])
    std::array<int, 3> adj_edge{};  // that edge's index in the neighbour
    Vec3 n = Vec3::Zero();          // unit outward normal
    double d = 0.0;                 // n·(vertices): origin-to-plane distance, > 0 when inside
    bool alive = false;
  };
  struct HorizonEdge {
    int face;  // the kept face beyond the edge
    int edge;  // the edge's index in that face
    int from;  // the edge's vertices in the winding of the removed face
    int to;
  };

  explicit Workspace(int max_iterations)
      : vertex_capacity(max_iterations + 8), face_capacity(2 * vertex_capacity + 8) {
    vertices.resize(static_cast<std::size_t>(vertex_capacity));
    faces.resize(static_cast<std::size_t>(face_capacity));
    free_faces.resize(static_cast<std::size_t>(face_capacity));
    stack.resize(static_cast<std::size_t>(face_capacity));
    removed.resize(static_cast<std::size_t>(face_capacity));
    horizon.resize(static_cast<std::size_t>(3 * face_capacity));
    new_faces.resize(static_cast<std::size_t>(3 * face_capacity));
    face_starting_at.resize(static_cast<std::size_t>(vertex_capacity));
    round_of_vertex.resize(static_cast<std::size_t>(vertex_capacity));
  }

  int vertex_capacity;
  int face_capacity;
  std::vector<SupportPoint> vertices;
  std::vector<Face> faces;
  std::vector<int> free_faces;
  std::vector<int> stack;
  std::vector<int> removed;
  std::vector<HorizonEdge> horizon;
  std::vector<int> new_faces;
  std::vector<int> face_starting_at;
  std::vector<std::int64_t> round_of_vertex;
  int vertex_count = 0;
  int face_slots = 0;  // high-water mark of used face slots
  int free_count = 0;
  std::int64_t round = 0;
};

namespace {

using Workspace = GjkEpaNarrowPhase::Workspace;
using Face = Workspace::Face;

// Counters of one query.
struct QueryCounters {
  int iterations = 0;
  bool hit_limit = false;
  bool degenerate = false;
};

class Solver {
 public:
  Solver(const CoreDifference& difference, double tolerance, int max_iterations, Workspace& ws,
         QueryCounters& counters)
      : m_(difference),
        tolerance_(tolerance),
        max_iterations_(max_iterations),
        ws_(ws),
        counters_(counters) {}

  // The contact of the cores, from GJK started at `simplex` (one or more supported points).
  CoreContact solve(Simplex simplex, double scale, const Vec3& up_A) {
    scale_ = scale;
    for (int i = 0; i < simplex.count; ++i) grow_scale(simplex.points[i].w);
    const bool enclosed = gjk(simplex);
    const double gap = simplex.v.norm();
    if (!enclosed && gap > kSeparatedFraction * scale_) {
      counters_.degenerate = counters_.degenerate || stalled_;
      return separated(simplex);
    }
    CoreContact contact;
    if (!enclosed && refine(-simplex.v / gap, 0.0, contact)) return contact;
    contact = penetration(simplex, up_A);
    if (polytope_used_ && !epa_converged_) {
      // EPA stopped early, as it does on curved cores: its normal is close, its depth less so.
      // Shifting by the support height along the normal, an upper bound of the depth, takes the
      // origin out of the cores' difference for sure.
      const double height = contact.normal.dot(support(contact.normal).w);
      CoreContact refined;
      if (refine(contact.normal, std::max(height, 0.0), refined)) return refined;
    }
    return contact;
  }

 private:
  // SupportPoint of M shifted by −shift_, i.e. with B moved by +shift_ (see refine()).
  SupportPoint support(const Vec3& d) const {
    SupportPoint p = m_.support(d);
    p.b += shift_;
    p.w -= shift_;
    return p;
  }

  // GJK (Gilbert, Johnson & Keerthi 1988) in van den Bergen's form (1999, alg. 1): the simplex
  // keeps the support points whose hull holds the point v closest to the origin; the next support
  // point is taken along −v. Returns true when the simplex encloses the origin or comes within
  // kEnclosingFraction of it; otherwise `simplex` holds the best v found.
  bool gjk(Simplex& simplex) {
    stalled_ = false;
    simplex.keep(simplex.closest(false));
    for (int iteration = 0; iteration < max_iterations_; ++iteration) {
      const double vv = simplex.v.squaredNorm();
      if (simplex.count == 4 || vv <= sq(kEnclosingFraction * scale_)) return true;
      const SupportPoint p = support(-simplex.v);
      ++counters_.iterations;
      grow_scale(p.w);
      // van den Bergen (1999) §4: |v|² − v·w bounds |v|·(|v| − distance), so stopping when it is
      // below tolerance·|v|² makes |v| a distance with relative error ≤ tolerance. The second term
      // is the rounding floor of v·w, without which tiny tolerances would never be met.
      const double gap = vv - simplex.v.dot(p.w);
      if (gap <= tolerance_ * vv + 8.0 * kMachineEpsilon * scale_ * std::sqrt(vv)) break;
      bool repeated = false;
      for (int i = 0; i < simplex.count; ++i) {
        repeated = repeated ||
                   (p.w - simplex.points[i].w).squaredNorm() <= sq(4.0 * kMachineEpsilon * scale_);
      }
      if (repeated) break;  // no new support point: v cannot improve any more
      simplex.points[simplex.count++] = p;
      SubSimplex next = simplex.closest(false);
      if (!(next.vv < vv)) next = simplex.closest(true);  // signs flipped by rounding
      if (!(next.vv < vv)) {  // rounding floor of the descent reached: keep the last simplex
        --simplex.count;
        // Far from the tolerance (GJK crawls on smooth cores at small gaps): the result is a
        // fallback unless refine() takes over.
        stalled_ = gap > std::sqrt(tolerance_) * vv;
        break;
      }
      simplex.keep(next);
      if (iteration + 1 == max_iterations_) counters_.hit_limit = true;
    }
    return simplex.count == 4 || simplex.v.squaredNorm() <= sq(kEnclosingFraction * scale_);
  }

  // Distance along a good normal estimate n when the cores (nearly) touch or EPA stopped early.
  // Moving B away by s = depth + kShiftFraction·size along n and measuring the now comfortable gap
  // g with GJK gives the signed distance g − s: exact when n is the contact normal, because the
  // signed distance to a convex set grows at unit rate along the normal, and otherwise low by at
  // most s·(1 − cos θ) for an error θ of n (the signed distance is convex and 1-Lipschitz). The
  // shifted GJK also returns a well-conditioned normal, used for a second pass; of the two lower
  // bounds the larger is kept. False when the shifted cores still overlap (n was no normal).
  bool refine(Vec3 n, double depth, CoreContact& out) {
    const double clearance = kShiftFraction * scale_;
    const double s = depth + clearance;
    bool refined = false;
    for (int pass = 0; pass < 2; ++pass) {
      shift_ = s * n;
      Simplex simplex;
      simplex.points[0] = support(n);
      simplex.count = 1;
      const bool enclosed = gjk(simplex);
      shift_ = Vec3::Zero();
      const double gap = simplex.v.norm();
      if (enclosed || !(gap > 0.5 * clearance)) break;
      counters_.degenerate = counters_.degenerate || stalled_;
      if (refined && !(gap - s > out.distance_m)) break;
      const Vec3 normal = -simplex.v / gap;
      out.distance_m = gap - s;
      out.normal = normal;
      set_witnesses(out, simplex.point_a(), simplex.point_b() - s * n);
      out.warm_count = simplex.count;
      for (int i = 0; i < simplex.count; ++i) out.warm_directions[i] = simplex.points[i].d;
      refined = true;
      if ((normal - n).norm() <= 1e-9) break;
      n = normal;
    }
    return refined;
  }

  static double sq(double x) { return x * x; }
  void grow_scale(const Vec3& w) { scale_ = std::max(scale_, w.norm()); }
  double flat_length() const { return kFlatFraction * scale_; }

  static CoreContact separated(const Simplex& simplex) {
    CoreContact c;
    const Vec3 a = simplex.point_a();
    const Vec3 b = simplex.point_b();
    const Vec3 v = a - b;  // closest point of M to the origin
    c.distance_m = v.norm();
    c.normal = -v / c.distance_m;
    c.point_a = a;
    c.point_b = b;
    c.warm_count = simplex.count;
    for (int i = 0; i < simplex.count; ++i) c.warm_directions[i] = simplex.points[i].d;
    return c;
  }

  // The cores overlap or touch: build a full-dimensional polytope from the GJK simplex and run
  // EPA, or, when M itself is flat (crossing capsule axes, concentric spheres, coplanar plates),
  // answer directly along the flat direction.
  CoreContact penetration(const Simplex& simplex, const Vec3& up_A) {
    polytope_used_ = false;
    ws_.vertex_count = 0;
    for (int i = 0; i < simplex.count; ++i) add_vertex(simplex.points[i]);
    // The anchor of a flat answer: the point of the simplex nearest to the origin.
    anchor_a_ = simplex.point_a();
    anchor_b_ = simplex.point_b();
    // Probe directions for the flat answer start with the closest-point direction, when GJK has
    // one above rounding noise, and world +z otherwise (as the primitive plugin does for
    // concentric spheres).
    const double norm_v = simplex.v.norm();
    up_ = up_A;
    hint_ = norm_v > flat_length() ? Vec3(-simplex.v / norm_v) : up_A;
    flat_found_ = false;
    flat_height_ = std::numeric_limits<double>::infinity();

    drop_degenerate_vertices();
    if (ws_.vertex_count == 1) extend_from_point();
    if (ws_.vertex_count == 2) extend_from_segment();
    bool built = false;
    if (ws_.vertex_count == 3) built = extend_from_triangle();
    if (ws_.vertex_count == 4) built = build_tetrahedron();
    if (!built) {
      counters_.degenerate = true;
      return flat_contact(simplex);
    }
    return expand_polytope(simplex);
  }

  void add_vertex(const SupportPoint& p) { ws_.vertices[ws_.vertex_count++] = p; }
  const Vec3& w(int i) const { return ws_.vertices[i].w; }

  // Records a probe along unit d that found no extent of M beyond the current affine hull: M is
  // flat there, and h(d) = d·s(d) is an upper bound of the penetration depth of the origin.
  void note_flat(const Vec3& d, const SupportPoint& p) {
    const double height = d.dot(p.w);
    // Earlier probes win ties within the flatness tolerance: they are the better-founded ones.
    if (!flat_found_ || height < flat_height_ - flat_length()) {
      flat_found_ = true;
      flat_height_ = height;
      flat_direction_ = d;
    }
  }

  // Removes repeated points and points inside the affine hull of the others, so that the polytope
  // starts from an affinely independent set (GJK can end with near-duplicates after rounding).
  void drop_degenerate_vertices() {
    const double len = flat_length();
    if (ws_.vertex_count == 4) {
      const double volume = (w(1) - w(0)).dot((w(2) - w(0)).cross(w(3) - w(0)));
      double longest = 0.0;
      for (int i = 0; i < 4; ++i) {
        for (int j = i + 1; j < 4; ++j) longest = std::max(longest, (w(i) - w(j)).norm());
      }
      if (std::abs(volume) <= len * longest * longest) reduce_flat_tetrahedron();
    }
    if (ws_.vertex_count == 3) {
      const double area2 = (w(1) - w(0)).cross(w(2) - w(0)).norm();
      const double longest =
          std::max({(w(1) - w(0)).norm(), (w(2) - w(1)).norm(), (w(2) - w(0)).norm()});
      if (area2 <= len * longest) {
        // Collinear: keep the two points farthest apart.
        const std::array<std::array<int, 2>, 3> pairs = {{{0, 1}, {1, 2}, {0, 2}}};
        int keep0 = 0;
        int keep1 = 1;
        double farthest = -1.0;
        for (const auto& [i, j] : pairs) {
          const double length2 = (w(j) - w(i)).squaredNorm();
          if (length2 > farthest) {
            farthest = length2;
            keep0 = i;
            keep1 = j;
          }
        }
        const SupportPoint p0 = ws_.vertices[keep0];
        const SupportPoint p1 = ws_.vertices[keep1];
        ws_.vertex_count = 0;
        add_vertex(p0);
        add_vertex(p1);
      }
    }
    if (ws_.vertex_count == 2 && (w(1) - w(0)).norm() <= len) ws_.vertex_count = 1;
  }

  // A flat tetrahedron from GJK: keep the face whose projection contains the origin's projection.
  void reduce_flat_tetrahedron() {
    int best_face = 0;
    double best_score = -std::numeric_limits<double>::infinity();
    for (int skip = 0; skip < 4; ++skip) {
      std::array<int, 3> t{};
      for (int i = 0, k = 0; i < 4; ++i) {
        if (i != skip) t[k++] = i;
      }
      const Vec3 n = (w(t[1]) - w(t[0])).cross(w(t[2]) - w(t[0]));
      const double nn = n.squaredNorm();
      if (!(nn > 0.0)) continue;
      // Smallest barycentric coordinate of the origin's projection: ≥ 0 when inside.
      double smallest = std::numeric_limits<double>::infinity();
      for (int j = 0; j < 3; ++j) {
        const Vec3& p = w(t[(j + 1) % 3]);
        const Vec3& q = w(t[(j + 2) % 3]);
        smallest = std::min(smallest, n.dot(p.cross(q)) / nn);
      }
      if (smallest > best_score) {
        best_score = smallest;
        best_face = skip;
      }
    }
    std::array<SupportPoint, 3> kept;
    for (int i = 0, k = 0; i < 4; ++i) {
      if (i != best_face) kept[k++] = ws_.vertices[i];
    }
    ws_.vertex_count = 0;
    for (const SupportPoint& p : kept) add_vertex(p);
  }

  // One point: look for a second point of M along the hint, world up and the axes of A.
  void extend_from_point() {
    const std::array<Vec3, 8> probes = {hint_,          up_,           Vec3::UnitX(),
                                        -Vec3::UnitX(), Vec3::UnitY(), -Vec3::UnitY(),
                                        Vec3::UnitZ(),  -Vec3::UnitZ()};
    for (const Vec3& d : probes) {
      const SupportPoint p = support(d);
      grow_scale(p.w);
      if ((p.w - w(0)).norm() > flat_length()) {
        add_vertex(p);
        return;
      }
      note_flat(d, p);
    }
  }

  // Two points: look off their line, first along the hint's perpendicular part, then at 60° steps
  // around the line (the probes of Bullet's and libccd's EPA initialisation).
  void extend_from_segment() {
    const Vec3 e = (w(1) - w(0)).normalized();
    Vec3 t1, t2;
    complete_basis(e, t1, t2);
    std::array<Vec3, 7> probes;
    const Vec3 hint_perpendicular = hint_ - hint_.dot(e) * e;
    const double hint_norm = hint_perpendicular.norm();
    probes[0] = hint_norm > 1e-6 ? Vec3(hint_perpendicular / hint_norm) : t1;
    for (int k = 0; k < 6; ++k) {
      const double angle = k * std::numbers::pi / 3.0;
      probes[1 + k] = std::cos(angle) * t1 + std::sin(angle) * t2;
    }
    for (const Vec3& d : probes) {
      const SupportPoint p = support(d);
      grow_scale(p.w);
      const Vec3 off_line = (p.w - w(0)) - (p.w - w(0)).dot(e) * e;
      if (off_line.norm() > flat_length()) {
        add_vertex(p);
        return;
      }
      note_flat(d, p);
    }
  }

  // Three points: the support on one side of their plane makes a tetrahedron. A side without
  // extent is a flat side of M; with extent on both sides the farther apex is taken and EPA finds
  // the other one (a bipyramid over both would not be convex unless the apexes' segment crossed
  // the triangle).
  bool extend_from_triangle() {
    const Vec3 n = (w(1) - w(0)).cross(w(2) - w(0)).normalized();
    const SupportPoint above = support(n);
    const SupportPoint below = support(-n);
    grow_scale(above.w);
    grow_scale(below.w);
    const double above_extent = n.dot(above.w - w(0));
    const double below_extent = -n.dot(below.w - w(0));
    if (!(above_extent > flat_length())) note_flat(n, above);
    if (!(below_extent > flat_length())) note_flat(-n, below);
    if (!(std::max(above_extent, below_extent) > flat_length())) {
      return false;  // M is flat: answer along its normal
    }
    add_vertex(above_extent >= below_extent ? above : below);
    return build_tetrahedron();
  }

  bool build_tetrahedron() {
    static constexpr int kTetrahedron[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
    return build_initial_faces(kTetrahedron, 4);
  }

  // Faces oriented away from the centroid of the vertices (an interior point), not from the
  // origin: the origin may lie on a face when the shapes touch (mujoco_warp #1526), and an
  // orientation test against it would then be a coin toss.
  bool build_initial_faces(const int (*triangles)[3], int count) {
    Vec3 centroid = Vec3::Zero();
    for (int i = 0; i < ws_.vertex_count; ++i) centroid += w(i);
    centroid /= ws_.vertex_count;
    interior_ = centroid;  // stays interior: the polytope only grows
    ws_.face_slots = 0;
    ws_.free_count = 0;
    for (int f = 0; f < count; ++f) {
      Face& face = ws_.faces[ws_.face_slots++];
      face.v = {triangles[f][0], triangles[f][1], triangles[f][2]};
      face.alive = true;
      if (!set_plane(face)) return false;
      if (face.n.dot(centroid - w(face.v[0])) > 0.0) {
        std::swap(face.v[1], face.v[2]);
        face.n = -face.n;
        face.d = -face.d;
      }
    }
    // Neighbours: the face holding the same edge in the opposite direction.
    for (int f = 0; f < count; ++f) {
      for (int e = 0; e < 3; ++e) {
        const int from = ws_.faces[f].v[e];
        const int to = ws_.faces[f].v[(e + 1) % 3];
        bool found = false;
        for (int g = 0; g < count && !found; ++g) {
          for (int k = 0; k < 3 && !found; ++k) {
            if (g != f && ws_.faces[g].v[k] == to && ws_.faces[g].v[(k + 1) % 3] == from) {
              ws_.faces[f].adj[e] = g;
              ws_.faces[f].adj_edge[e] = k;
              found = true;
            }
          }
        }
        if (!found) return false;
      }
    }
    return true;
  }

  // Unit normal and offset of a face from its winding; false for a degenerate triangle.
  bool set_plane(Face& face) const {
    const Vec3& p0 = w(face.v[0]);
    const Vec3& p1 = w(face.v[1]);
    const Vec3& p2 = w(face.v[2]);
    const Vec3 e1 = p1 - p0;
    const Vec3 e2 = p2 - p0;
    const Vec3 n = e1.cross(e2);
    const double length = n.norm();
    // sin(angle) between the edges below ~1e-14: the normal would be rounding noise.
    if (!(length > 64.0 * kMachineEpsilon * e1.norm() * e2.norm())) return false;
    face.n = n / length;
    face.d = face.n.dot(p0 + p1 + p2) / 3.0;
    return true;
  }

  // EPA (van den Bergen 2001, §4): repeatedly take the face nearest to the origin, find M's
  // support point along its normal, and stop when that point lies within tolerance of the face's
  // plane; otherwise replace the faces it sees by a fan of faces to it.
  CoreContact expand_polytope(const Simplex& simplex) {
    polytope_used_ = true;
    epa_converged_ = false;
    bool intact = true;
    for (int iteration = 0;; ++iteration) {
      const int nearest = nearest_face();
      if (nearest < 0) {
        counters_.degenerate = true;
        return flat_contact(simplex);
      }
      // The nearest face's distance can only grow as the polytope grows; a drop beyond rounding
      // means the last expansion broke convexity: keep the face from before it.
      if (iteration > 0 &&
          ws_.faces[nearest].d < best_face_.d - (tolerance_ + 64.0 * kMachineEpsilon) * scale_) {
        counters_.degenerate = true;
        intact = false;
        break;
      }
      best_face_ = ws_.faces[nearest];
      for (int i = 0; i < 3; ++i) best_vertices_[i] = ws_.vertices[best_face_.v[i]];
      if (iteration >= max_iterations_ || ws_.vertex_count >= ws_.vertex_capacity) {
        counters_.hit_limit = true;
        break;
      }
      const Face& face = ws_.faces[nearest];
      const SupportPoint p = support(face.n);
      ++counters_.iterations;
      grow_scale(p.w);
      // h(n) − d bounds the error of the depth d from above (the polytope is inside M), the
      // normalised form of the test that libccd#44 and FCL#301 found unnormalised.
      bool done = face.n.dot(p.w) - face.d <= tolerance_ * scale_;
      for (int i = 0; i < 3; ++i) {  // a support point already on the face: nothing to gain
        done = done || (p.w - w(face.v[i])).squaredNorm() <= sq(4.0 * kMachineEpsilon * scale_);
      }
      if (done) {
        epa_converged_ = true;
        break;
      }
      add_vertex(p);
      if (!expand(nearest, ws_.vertex_count - 1)) {
        counters_.degenerate = true;  // the polytope lost its topology: keep the last good face
        intact = false;
        break;
      }
    }
    if (flat_found_ && flat_height_ < best_face_.d - tolerance_ * scale_) {
      // A flat probe found a shallower direction than EPA's face (EPA stopped early).
      return flat_contact(simplex);
    }
    if (intact) choose_face_holding_projection();
    return face_contact();
  }

  // Barycentric coordinates of the point p of a face's plane.
  static std::array<double, 3> barycentric(const Face& face, const std::array<SupportPoint, 3>& v,
                                           const Vec3& p) {
    const Vec3& w0 = v[0].w;
    const Vec3& w1 = v[1].w;
    const Vec3& w2 = v[2].w;
    const double area = face.n.dot((w1 - w0).cross(w2 - w0));
    std::array<double, 3> lambda = {face.n.dot((w1 - p).cross(w2 - p)) / area,
                                    face.n.dot((w2 - p).cross(w0 - p)) / area, 0.0};
    lambda[2] = 1.0 - lambda[0] - lambda[1];
    return lambda;
  }

  // Several faces in one plane of M (a face of a box is two triangles or more) tie for nearest;
  // the origin's projection lies in one of them, and only that one's barycentric coordinates
  // give witness points on the shapes.
  void choose_face_holding_projection() {
    const Vec3 p = best_face_.d * best_face_.n;
    const auto smallest = [](const std::array<double, 3>& l) {
      return std::min({l[0], l[1], l[2]});
    };
    double inside = smallest(barycentric(best_face_, best_vertices_, p));
    if (inside >= 0.0) return;
    for (int f = 0; f < ws_.face_slots; ++f) {
      const Face& face = ws_.faces[f];
      if (!face.alive || std::abs(face.d - best_face_.d) > 64.0 * kMachineEpsilon * scale_ ||
          (face.n - best_face_.n).norm() > 1e-9) {
        continue;
      }
      const std::array<SupportPoint, 3> vertices = {
          ws_.vertices[face.v[0]], ws_.vertices[face.v[1]], ws_.vertices[face.v[2]]};
      const double candidate = smallest(barycentric(face, vertices, p));
      if (candidate > inside) {
        inside = candidate;
        best_face_ = face;
        best_vertices_ = vertices;
      }
    }
  }

  int nearest_face() const {
    int nearest = -1;
    double nearest_d = std::numeric_limits<double>::infinity();
    for (int f = 0; f < ws_.face_slots; ++f) {
      const Face& face = ws_.faces[f];
      if (face.alive && face.d < nearest_d) {
        nearest_d = face.d;
        nearest = f;
      }
    }
    return nearest;
  }

  // Removes every face that sees vertex `apex`, found by flooding from the nearest face across
  // edges (so the removed region is connected), and closes the hole with a fan of faces from the
  // horizon to the apex. False if the horizon is not one simple loop.
  bool expand(int start, int apex) {
    const double visible = 16.0 * kMachineEpsilon * scale_;
    const Vec3& q = w(apex);
    int removed = 0;
    int stacked = 0;
    int horizon = 0;
    ws_.faces[start].alive = false;
    ws_.removed[removed++] = start;
    ws_.stack[stacked++] = start;
    while (stacked > 0) {
      const Face& g = ws_.faces[ws_.stack[--stacked]];
      for (int e = 0; e < 3; ++e) {
        const int h = g.adj[e];
        Face& neighbour = ws_.faces[h];
        if (!neighbour.alive) continue;
        if (neighbour.n.dot(q) - neighbour.d > visible) {
          neighbour.alive = false;
          ws_.removed[removed++] = h;
          ws_.stack[stacked++] = h;
        } else {
          if (horizon >= static_cast<int>(ws_.horizon.size())) return false;
          ws_.horizon[horizon++] = {h, g.adj_edge[e], g.v[e], g.v[(e + 1) % 3]};
        }
      }
    }
    if (horizon < 3) return false;
    for (int i = 0; i < removed; ++i) ws_.free_faces[ws_.free_count++] = ws_.removed[i];

    const std::int64_t round = ++ws_.round;
    for (int k = 0; k < horizon; ++k) {
      const Workspace::HorizonEdge& edge = ws_.horizon[k];
      int f = 0;
      if (ws_.free_count > 0) {
        f = ws_.free_faces[--ws_.free_count];
      } else if (ws_.face_slots < ws_.face_capacity) {
        f = ws_.face_slots++;
      } else {
        return false;
      }
      Face& face = ws_.faces[f];
      face.v = {edge.from, edge.to, apex};
      face.adj = {edge.face, -1, -1};
      face.adj_edge = {edge.edge, -1, -1};
      face.alive = true;
      ws_.faces[edge.face].adj[edge.edge] = f;
      ws_.faces[edge.face].adj_edge[edge.edge] = 0;
      // A fan face folded over its horizon edge (the apex projects outside the removed region
      // and rounding misjudged a nearly coplanar neighbour) faces the interior: give up.
      if (!set_plane(face) || !(face.n.dot(interior_ - q) < 0.0)) return false;
      if (ws_.round_of_vertex[edge.from] == round) return false;  // vertex twice on the horizon
      ws_.round_of_vertex[edge.from] = round;
      ws_.face_starting_at[edge.from] = f;
      ws_.new_faces[k] = f;
    }
    // Stitch the fan: the face on edge (i → j) meets the face on edge (j → k) along (j, apex).
    for (int k = 0; k < horizon; ++k) {
      const int f = ws_.new_faces[k];
      const int j = ws_.faces[f].v[1];
      if (ws_.round_of_vertex[j] != round) return false;
      const int g = ws_.face_starting_at[j];
      ws_.faces[f].adj[1] = g;
      ws_.faces[f].adj_edge[1] = 2;
      ws_.faces[g].adj[2] = f;
      ws_.faces[g].adj_edge[2] = 1;
    }
    // One loop through all the new faces, not several.
    int f = ws_.new_faces[0];
    for (int k = 1; k < horizon; ++k) {
      f = ws_.faces[f].adj[1];
      if (f == ws_.new_faces[0]) return false;
    }
    return ws_.faces[f].adj[1] == ws_.new_faces[0];
  }

  // The contact on EPA's nearest face: the origin projected on its plane, witness points from the
  // barycentric coordinates of that projection.
  CoreContact face_contact() const {
    const Face& face = best_face_;
    std::array<double, 3> lambda = barycentric(face, best_vertices_, face.d * face.n);
    // Outside the face only when the origin is outside M (a touching contact): clamp.
    double sum = 0.0;
    for (double& l : lambda) sum += (l = std::clamp(l, 0.0, 1.0));
    Vec3 a = Vec3::Zero();
    Vec3 b = Vec3::Zero();
    for (int i = 0; i < 3; ++i) {
      a += (lambda[i] / sum) * best_vertices_[i].a;
      b += (lambda[i] / sum) * best_vertices_[i].b;
    }
    CoreContact c;
    c.distance_m = -face.d;
    c.normal = face.n;
    set_witnesses(c, a, b);
    // No warm start after EPA: GJK restarted from the face's support directions (or along its
    // normal) ends in a sliver tetrahedron around the contact, from which EPA converges markedly
    // slower on curved cores than from the cold start's (measured: 2× the iterations).
    c.warm_count = 0;
    return c;
  }

  // M has no extent along flat_direction_ beyond the plane at flat_height_ through the simplex's
  // nearest point: the depth is that height (exact up to kFlatFraction).
  CoreContact flat_contact(const Simplex& simplex) const {
    CoreContact c;
    if (flat_found_) {
      c.distance_m = -flat_height_;
      c.normal = flat_direction_;
    } else {  // no polytope and no flat probe (non-finite input): GJK's own answer
      c.distance_m = simplex.v.norm();
      c.normal = hint_;
    }
    set_witnesses(c, anchor_a_, anchor_b_);
    c.warm_count = simplex.count;
    for (int i = 0; i < simplex.count; ++i) c.warm_directions[i] = simplex.points[i].d;
    return c;
  }

  const CoreDifference& m_;
  double tolerance_;
  int max_iterations_;
  Workspace& ws_;
  QueryCounters& counters_;
  double scale_ = 0.0;
  Vec3 hint_ = Vec3::UnitZ();
  Vec3 up_ = Vec3::UnitZ();
  Vec3 anchor_a_ = Vec3::Zero();
  Vec3 anchor_b_ = Vec3::Zero();
  bool flat_found_ = false;
  double flat_height_ = 0.0;
  Vec3 flat_direction_ = Vec3::UnitZ();
  Vec3 shift_ = Vec3::Zero();
  Vec3 interior_ = Vec3::Zero();
  bool stalled_ = false;  // the last gjk() stopped at the rounding floor far from the tolerance
  bool polytope_used_ = false;
  bool epa_converged_ = false;
  Face best_face_;
  std::array<SupportPoint, 3> best_vertices_;
};

ContactGeometry swapped(const ContactGeometry& g) {
  ContactGeometry out;
  out.distance_m = g.distance_m;
  out.normal_W = -g.normal_W;
  out.point_a_W = g.point_b_W;
  out.point_b_W = g.point_a_W;
  return out;
}

}  // namespace

ContactGeometry shape_half_space(const Shape& shape, const Pose& X_WA, const Shape& half_space,
                                 const Pose& X_WH) {
  // Normalised again so that a hand-built Shape with a non-unit normal still gives a distance.
  const Vec3 n_W = X_WH.R * half_space.normal.normalized();
  const Vec3 deepest_W = support_W(shape, X_WA, -n_W);
  ContactGeometry out;
  out.distance_m = n_W.dot(deepest_W - X_WH.p);
  out.normal_W = -n_W;  // the half-space lies along −n_W as seen from the shape
  out.point_a_W = deepest_W;
  out.point_b_W = deepest_W - out.distance_m * n_W;  // projected on the boundary plane
  return out;
}

GjkEpaNarrowPhase::GjkEpaNarrowPhase(const ParameterValues& params)
    : tolerance_(params.real("tolerance")),
      max_iterations_(static_cast<int>(params.integer("max_iterations"))),
      workspace_(std::make_unique<Workspace>(max_iterations_)) {}

GjkEpaNarrowPhase::~GjkEpaNarrowPhase() = default;

ParameterSchema GjkEpaNarrowPhase::schema() {
  return {
      real_parameter("tolerance", 1e-12, 0.0, 1e-2, "",
                     "relative accuracy of distances and penetration depths"),
      integer_parameter("max_iterations", 128, 4, 100000,
                        "iteration limit of each GJK and each EPA run (best result so far beyond)"),
  };
}

bool GjkEpaNarrowPhase::supports(ShapeType a, ShapeType b) const {
  return !(a == ShapeType::half_space && b == ShapeType::half_space);
}

void GjkEpaNarrowPhase::query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                              NarrowPhaseCache& cache, ContactManifold& manifold) {
  manifold.count = 1;
  ContactGeometry& out = manifold.points[0];
  const bool a_is_half_space = a.type == ShapeType::half_space;
  const bool b_is_half_space = b.type == ShapeType::half_space;
  if (a_is_half_space && b_is_half_space) {
    throw SimulationError(
        "gjk_epa narrow phase: half_space–half_space is unsupported (two unbounded solids have "
        "no finite penetration depth); exclude the pair from collision");
  }
  ++statistics_.queries;
  if (b_is_half_space) {
    out = shape_half_space(a, X_WA, b, X_WB);
    return;
  }
  if (a_is_half_space) {
    out = swapped(shape_half_space(b, X_WB, a, X_WA));
    return;
  }

  const Pose X_AB = X_WA.inverse() * X_WB;
  const CoreDifference difference(a, b, X_AB);
  const double radius_a_m = sweep_radius(a);
  const double radius_b_m = sweep_radius(b);
  // World +z seen in A: the normal of last resort (concentric spheres), as in the primitive plugin.
  const Vec3 up_A = X_WA.R.row(2).transpose();

  // Warm start from the support directions of the last answer; cold start along the line from
  // M's interior point to the origin, where M's points nearest to the origin lie.
  Simplex simplex;
  const bool warm = cache.valid != 0 && cache.data[kCacheCount] >= 1.0 &&
                    cache.data[kCacheCount] <= 4.0 &&
                    cache.data[kCacheTypeA] == static_cast<double>(a.type) &&
                    cache.data[kCacheTypeB] == static_cast<double>(b.type);
  if (warm) {
    const int count = static_cast<int>(cache.data[kCacheCount]);
    for (int i = 0; i < count; ++i) {
      const double* d = &cache.data[kCacheDirections + 3 * i];
      const Vec3 d_A(d[0], d[1], d[2]);
      if (!(d_A.squaredNorm() > 0.0) || !d_A.allFinite()) continue;
      const SupportPoint p = difference.support(d_A);
      bool repeated = false;
      for (int j = 0; j < simplex.count; ++j) repeated = repeated || p.w == simplex.points[j].w;
      if (!repeated) simplex.points[simplex.count++] = p;
    }
  }
  if (simplex.count == 0) {
    Vec3 d_A = X_AB.transform_point(interior_point(b)) - interior_point(a);
    if (!(d_A.squaredNorm() > 0.0)) d_A = up_A;
    simplex.points[0] = difference.support(d_A);
    simplex.count = 1;
  }

  QueryCounters counters;
  Solver solver(difference, tolerance_, max_iterations_, *workspace_, counters);
  const CoreContact core = solver.solve(simplex, radius_a_m + radius_b_m, up_A);

  // Sweep the cores back to the shapes: exact for any sign of the core distance.
  const Vec3 point_a_A = core.point_a + radius_a_m * core.normal;
  const Vec3 point_b_A = core.point_b - radius_b_m * core.normal;
  out.distance_m = core.distance_m - radius_a_m - radius_b_m;
  out.normal_W = X_WA.R * core.normal;
  out.point_a_W = X_WA.transform_point(point_a_A);
  out.point_b_W = X_WA.transform_point(point_b_A);

  cache.valid = 1;
  cache.data[kCacheCount] = core.warm_count;
  for (int i = 0; i < core.warm_count; ++i) {
    for (int k = 0; k < 3; ++k)
      cache.data[kCacheDirections + 3 * i + k] = core.warm_directions[i][k];
  }
  cache.data[kCacheTypeA] = static_cast<double>(a.type);
  cache.data[kCacheTypeB] = static_cast<double>(b.type);

  statistics_.total_iterations += counters.iterations;
  statistics_.max_iterations_used =
      std::max<std::int64_t>(statistics_.max_iterations_used, counters.iterations);
  if (counters.hit_limit) ++statistics_.iteration_limit_hits;
  if (counters.degenerate) ++statistics_.degenerate_cases;
}

}  // namespace contactlab::plugins
