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
#include <optional>
#include <string>
#include <vector>

#include <contactlab/errors.hpp>
#include <contactlab/geometry/manifold.hpp>

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

// EPA on a curved core (ellipsoid, cylinder, cone, beam) approximates a smooth boundary by
// facets: the gap between its depth bounds shrinks by a roughly constant factor per few
// iterations (1e-9 of the size hit the 128-iteration limit on 5 % of deep ellipsoid
// penetrations). On smooth parts of M it hands over to Newton steps on the support function
// (kEpaHandoffFraction below); it runs to this fraction of the size only where those cannot
// finish, a minimum on a kink of the support (a cylinder's side line or cap rim), where the
// polytope resolves the one curved direction quickly. Polytope cores (point, segment, box,
// hull) end exactly when a support repeats and keep the user's tolerance.
constexpr double kCurvedEpaFraction = 1e-11;
// On such a kink the bounds agree while the nearest face's normal is still off the contact
// normal: the support height along it exceeded the face's distance by up to 1.3e-9 of the size
// (a box's corner or a hull's vertex at a cylinder's rim), so moving B by the depth along that
// normal left the shapes overlapping. Beyond this fraction the answer is the lowest support
// height EPA met and its direction instead, which overlaps by exactly that height (Solver::solve;
// refine()'s shifted GJK was no closer on rim-to-rim cylinders).
constexpr double kFaceNormalFraction = 1e-10;

// Newton polishing of the support function on curved cores (Solver::polish_separated and
// Solver::polish_penetration). GJK and EPA
// converge linearly on smooth parts of M, where a second-order method on the support function
// h(m) = m·s_M(m) over unit directions m converges quadratically. GJK on curved cores hands
// over after kGjkHandoffIterations iterations; EPA on curved cores once its depth bounds agree
// to kEpaHandoffFraction of the size (once more at kEpaRetryFraction). kPolishIterations Newton
// steps at most, each with one support and the supports' closed-form derivatives; a step longer
// than kPolishTrustRadius (radians) is shortened.
constexpr int kGjkHandoffIterations = 3;
// GJK on curved cores hands over sooner, with the support it has just taken, once that support's
// height along −v̂ is within this fraction of |v| (the distance bounds agree to it, the lower one
// at least 0.15·|v| > 0), and so does a cold start's one point (Solver::solve): Newton's
// backtracking steps from there cost less than GJK's iterations on curved cores. Callgrind per
// cold separated query, cylinder–box / cylinder–cylinder, GJK alone: 5,293 / 6,057 without, 4,917 /
// 5,705 at 0.05, 4,638 / 5,543 at 0.2, 4,602 / 5,845 at 0.5; with the cold start's hand-off too:
// 4,526 / 5,156 at 0.1, 4,182 / 4,962 at 0.2, 3,858 / 4,614 at 0.35, 3,778 / 4,536 at 0.5, 3,339 /
// 3,894 at 0.7, 3,313 / 3,755 at 0.85, 3,409 / 3,725 at 1 and 3,409 / 3,723 at 1.5.
constexpr double kGjkHandoffGap = 0.85;
constexpr double kEpaHandoffFraction = 1e-4;
constexpr double kEpaRetryFraction = 1e-6;
constexpr int kPolishIterations = 8;
constexpr double kPolishTrustRadius = 0.25;
// The separated polish backtracks: a trial that does not raise the distance's lower bound halves
// the step, down to kPolishMinRadius (radians), within kPolishSeparatedEvaluations supports.
constexpr int kPolishSeparatedEvaluations = 16;
constexpr double kPolishMinRadius = 1e-3;
// Separated curved cores: when a Newton step fails, the flat faces near the direction (a box's
// face, a cylinder's or frustum's cap within 60° of the direction, Solver::face_certificate) are
// tried as the closest features, where the support function has a kink Newton cannot step across.
constexpr double kCapCosine = 0.5;

// Cores that are polytopes: EPA on them terminates exactly.
bool polytope_core(ShapeType type) {
  return type == ShapeType::sphere || type == ShapeType::capsule || type == ShapeType::box ||
         type == ShapeType::convex_hull;
}

// Stored in NarrowPhaseCache::data: [0] number of directions, [1..12] up to four support
// directions in A's frame, [13], [14] the shape types the entry was made for, [15] the hull
// vertices the last supports of A and B ended at, packed as a + kVertexPacking·b (the start
// vertices of the next query's hill climbs; exact in a double below 2^26 vertices each).
constexpr int kCacheCount = 0;
constexpr int kCacheDirections = 1;
constexpr int kCacheTypeA = 13;
constexpr int kCacheTypeB = 14;
constexpr int kCacheVertices = 15;
constexpr int kVertexBits = 26;
constexpr std::uint64_t kVertexMask = (std::uint64_t{1} << kVertexBits) - 1;
constexpr double kVertexPacking = static_cast<double>(std::uint64_t{1} << kVertexBits);
// A hull with a hull or a box, after EPA: [0] holds −k and [1..k] k (4 ≤ k ≤ kMaxWarmPairs) points
// of M as packed vertex pairs a + kVertexPacking·b, in place of support directions: the contact
// face's three corners, the polytope's point lowest along the face normal (the four GJK restarts
// from), then the vertices of the live faces nearest to the origin, which seed EPA's polytope
// before it expands (the ring of M's vertices around the contact that EPA would otherwise find one
// support at a time; 4 of them measured best against 2, 3, 5, 6 and 8). Any vertex pair is a point
// of M, so the seeds keep the polytope inside M at any pose and EPA's answer exact; at a nearby
// pose they are the vertices EPA needs.
constexpr int kMaxWarmPairs = 8;
// Polytope cores separated at one point of M (a one-point answer: a vertex over a vertex, an
// edge or a face): [0] holds −1, [1..3] the closest point of A's core in A's frame, [4..6] that
// of B's core in B's frame, a hull's as its vertex number (keep_one_point()). Any pair of points
// of the cores is a point of M, so at any later pose the pair is a start point, and after a small
// motion the closest one: GJK's first iteration from it, one support, certifies the distance,
// where a support along a cached direction, the normal before the motion, returned the same pair
// without certifying it (the direction is off the new normal by the turn) and GJK took a second
// support. Each point is projected on its core before use (cached_core_point()): an entry made
// for other shapes of the same types must not bring a point outside M.
constexpr double kCacheOnePoint = -1.0;
constexpr int kCachePointA = 1;
constexpr int kCachePointB = 4;

// One point of the Minkowski difference M = core(A) − core(B), in A's frame.
// Left uninitialised: simplices and polytopes only read the points they have written.
struct SupportPoint {
  Vec3 w;                  // a − b [m]
  Vec3 a;                  // the point of A's core [m]
  Vec3 b;                  // the point of B's core [m]
  Vec3 d;                  // the direction w is a support point for (kept for warm starts)
  std::uint32_t vertex_a;  // hull vertex indices of a and b (0 for other shapes): climb starts
  std::uint32_t vertex_b;
};

// A box corner's number: bit k set when coordinate k is negative (the sign box_corner copies
// from the direction, so also for a zero half extent). corner_point() inverts it.
std::uint32_t corner_id(const Vec3& c) {
  return (std::signbit(c.x()) ? 1u : 0u) | (std::signbit(c.y()) ? 2u : 0u) |
         (std::signbit(c.z()) ? 4u : 0u);
}
Vec3 corner_point(const Vec3& h, std::uint32_t id) {
  return box_corner(h, Vec3((id & 1u) != 0 ? -1.0 : 1.0, (id & 2u) != 0 ? -1.0 : 1.0,
                            (id & 4u) != 0 ? -1.0 : 1.0));
}

// A box's core: the box shrunk by its smoothing radius (half sizes).
Vec3 box_core_half_extents(const Shape& box) {
  return box.half_extents_m - Vec3::Constant(box.smoothing_radius_m);
}

// Shapes whose cores have finite vertex sets the warm start can name (kCacheCount): the number
// of vertices, 0 for other shapes.
std::uint32_t named_vertices(const Shape& shape) {
  if (shape.type == ShapeType::box) return 8;
  if (shape.type == ShapeType::convex_hull && shape.hull != nullptr)
    return shape.hull->vertex_count;
  return 0;
}
// Vertex `id` < named_vertices(shape) of the shape's core, in its frame: bitwise the point its
// support returns.
Vec3 named_vertex(const Shape& shape, std::uint32_t id) {
  if (shape.type == ShapeType::box) {
    return corner_point(box_core_half_extents(shape), id);
  }
  return shape.hull->vertices[id];
}

// Hulls with at least this many vertices start a cold query's climbs, and climbs whose direction
// turned by more than 90°, from a sample of their vertices (CoreSupport::jump).
constexpr std::uint32_t kJumpFrom = 64;

// Calls f(j) for each neighbour j of the named vertex `id` < named_vertices(shape): the corners
// one edge away from a box corner, the hull's adjacency (none without one).
template <class F>
void for_each_neighbour(const Shape& shape, std::uint32_t id, F&& f) {
  if (shape.type == ShapeType::box) {
    f(id ^ 1u);
    f(id ^ 2u);
    f(id ^ 4u);
    return;
  }
  const ConvexHull& hull = *shape.hull;
  if (hull.neighbor_offsets == nullptr || hull.neighbors == nullptr) return;
  const std::uint32_t end = hull.neighbor_offsets[id + 1];
  for (std::uint32_t k = hull.neighbor_offsets[id]; k < end; ++k) f(hull.neighbors[k]);
}

// A flat face of a core (CoreDifference::face_plane, face_corners) in A's frame: a hull's triangle
// or a box's rectangle.
struct CoreFace {
  Vec3 n;         // outward unit normal
  double offset;  // n·x ≤ offset on the core
  int count;      // corners: 3 or 4, in order around the face
  std::array<Vec3, 4> corners;
  std::array<std::uint32_t, 4> ids;  // hull vertices or box corner numbers (corner_id())
};

// Support mapping of one shape's core in its own frame G. Boxes, and hulls through a hill climb
// that starts at the vertex found last, get their own paths; the other shapes use the SDK's
// core_support. Successive GJK and EPA directions are close, so the climb from the last vertex
// usually takes one or two steps instead of the O(√n) from vertex 0 (the warm start of Bullet's
// and Coal's hull supports); a climb is exact from any start vertex (see hull_support_vertex).
class CoreSupport {
 public:
  CoreSupport(const Shape& shape, std::uint32_t start_vertex) : shape_(shape) {
    if (shape.type == ShapeType::box) {
      box_half_extents_ = box_core_half_extents(shape);
    } else if (shape.type == ShapeType::convex_hull && shape.hull != nullptr &&
               shape.hull->vertex_count > 0) {
      hull_ = shape.hull;
      vertex_ = start_vertex < hull_->vertex_count ? start_vertex : 0;
      climb_ = hull_->neighbor_offsets != nullptr && hull_->neighbors != nullptr &&
               hull_->vertex_count >= kHullClimbFrom;
    }
  }

  [[gnu::always_inline]] Vec3 operator()(const Vec3& d_G) {
    if (hull_ != nullptr) {
      vertex_ = climb_ ? hull_climb_vertex(*hull_, d_G, vertex_)  // vertex_ is kept valid
                       : hull_support_vertex(*hull_, d_G, vertex_);
      return hull_->vertices[vertex_];
    }
    if (shape_.type == ShapeType::box) {
      return box_corner(box_half_extents_, d_G);
    }
    if (shape_.type == ShapeType::cylinder) {
      // core_support's form with a plain square root for std::hypot (a fifth to a quarter of the
      // time of a cold cylinder query went to hypot's overflow care, which directions of M's
      // scale do not need).
      const double radius = shape_.radius_m - shape_.smoothing_radius_m;
      const double radial2 = d_G.x() * d_G.x() + d_G.y() * d_G.y();
      const double z =
          (d_G.z() < 0.0 ? -1.0 : 1.0) * (shape_.half_length_m - shape_.smoothing_radius_m);
      if (!(radial2 > 0.0) || !std::isfinite(radial2)) return core_support(shape_, d_G);
      const double k = radius / std::sqrt(radial2);
      return Vec3(k * d_G.x(), k * d_G.y(), z);
    }
    return core_support(shape_, d_G);
  }

  const Shape& shape() const { return shape_; }

  /// The hull vertex found last (0 for other shapes): the next climb's start vertex.
  std::uint32_t last_vertex() const { return vertex_; }
  /// A hull large enough to be climbed (the SDK scans smaller ones, where a start vertex is moot).
  bool is_hull() const { return climb_; }
  /// A hull large enough for jump() to pay (measured: 256 vertices gain, 32 lose a little).
  bool jumps() const { return climb_ && hull_->vertex_count >= kJumpFrom; }
  bool is_box() const { return shape_.type == ShapeType::box; }
  /// Whether the core's point nearest to any point has a closed form (nearest()): a box's, the
  /// product of three intervals, and a cylinder's, the product of a disc and an interval.
  bool clampable() const {
    return shape_.type == ShapeType::box || shape_.type == ShapeType::cylinder;
  }
  /// The point of a clampable() core nearest to p_G (p_G projected on it), in G.
  Vec3 nearest(const Vec3& p_G) const {
    if (shape_.type == ShapeType::box) {
      return p_G.cwiseMax(-box_half_extents_).cwiseMin(box_half_extents_);
    }
    const double radius = shape_.radius_m - shape_.smoothing_radius_m;
    const double h = shape_.half_length_m - shape_.smoothing_radius_m;
    const double radial2 = p_G.x() * p_G.x() + p_G.y() * p_G.y();
    const double k = radial2 > radius * radius ? radius / std::sqrt(radial2) : 1.0;
    return Vec3(k * p_G.x(), k * p_G.y(), std::clamp(p_G.z(), -h, h));
  }
  /// A hull whose faces around each vertex are known (ConvexHull::vertex_faces): face_nearest()
  /// applies.
  bool has_faces() const {
    return hull_ != nullptr && hull_->vertex_face_offsets != nullptr &&
           hull_->vertex_faces != nullptr && hull_->face_normals != nullptr &&
           hull_->face_offsets != nullptr && hull_->triangles != nullptr;
  }
  /// The hull's point nearest to p_G when a face around hull vertex `vertex` holds it: of those
  /// faces, the one with the largest height n·p_G − o of p_G over its plane, when that height is
  /// positive and p_G's foot on the plane lies in the face's triangle (`slack` outside its edges
  /// at most); false otherwise. Exact: the face holding the point of a convex polytope nearest to
  /// an outside point p has the largest height of all faces (another face g has
  /// n_g·p − o_g ≤ (n_g·n)(n·p − o) < n·p − o, x* the nearest point, since n_g·x* ≤ o_g), so
  /// when `vertex` is one of its corners it is the one tested. Of coplanar faces (a polygon split
  /// into triangles), which tie, the first is tested: a foot in another gives false (GJK goes on).
  /// `height` and `face_index`: the largest height found, of either sign, and its face, also when
  /// false.
  bool face_nearest(const Vec3& p_G, std::uint32_t vertex, double slack, Vec3& nearest_G,
                    Vec3& normal_G, std::uint32_t& face_index, double& height) const {
    const ConvexHull& hull = *hull_;
    const std::uint32_t face = face_highest(p_G, vertex, height);
    face_index = face;
    if (!(height > 0.0)) return false;  // p_G is not outside any of these planes
    const Vec3& n = hull.face_normals[face];
    const Vec3 foot = p_G - height * n;
    const std::uint32_t* t = &hull.triangles[3 * face];
    // Counter-clockwise seen from outside: the inside lies to the left of every edge, where
    // (edge × (foot − from))·n ≥ 0; `slack` times the edge's length (its 1-norm, a bound without
    // a square root) lets feet on an edge pass.
    for (int e = 0; e < 3; ++e) {
      const Vec3& from = hull.vertices[t[e]];
      const Vec3 edge = hull.vertices[t[e == 2 ? 0 : e + 1]] - from;
      if (!(edge.cross(foot - from).dot(n) >= -slack * edge.cwiseAbs().sum())) return false;
    }
    nearest_G = foot;
    normal_G = n;
    return true;
  }
  /// Of the faces around hull vertex `vertex` (has_faces()), the one with the largest height
  /// n·p_G − o of p_G over its plane (of either sign; the first of equals), and that height.
  std::uint32_t face_highest(const Vec3& p_G, std::uint32_t vertex, double& height) const {
    const ConvexHull& hull = *hull_;
    const std::uint32_t begin = hull.vertex_face_offsets[vertex];
    const std::uint32_t end = hull.vertex_face_offsets[vertex + 1];
    std::uint32_t face = hull.vertex_faces[begin];
    height = hull.face_normals[face].dot(p_G) - hull.face_offsets[face];
    for (std::uint32_t k = begin + 1; k < end; ++k) {
      const std::uint32_t f = hull.vertex_faces[k];
      const double h = hull.face_normals[f].dot(p_G) - hull.face_offsets[f];
      face = h > height ? f : face;
      height = h > height ? h : height;
    }
    return face;
  }
  /// Whether hull vertex `vertex` maximises d_G·x (no neighbour is higher: exact on a convex
  /// polytope); false at the first higher neighbour. Hulls only (all vertices without an
  /// adjacency).
  bool is_support_vertex(std::uint32_t vertex, const Vec3& d_G) const {
    const ConvexHull& hull = *hull_;
    const double height = d_G.dot(hull.vertices[vertex]);
    if (hull.neighbor_offsets == nullptr || hull.neighbors == nullptr) {
      for (std::uint32_t i = 0; i < hull.vertex_count; ++i) {
        if (d_G.dot(hull.vertices[i]) > height) return false;
      }
      return true;
    }
    const std::uint32_t end = hull.neighbor_offsets[vertex + 1];
    for (std::uint32_t k = hull.neighbor_offsets[vertex]; k < end; ++k) {
      if (d_G.dot(hull.vertices[hull.neighbors[k]]) > height) return false;
    }
    return true;
  }
  /// A box core's half sizes (zero for other shapes).
  const Vec3& box_half_extents() const { return box_half_extents_; }

  /// The outward normal (G frame) of the flat face of the core nearest to the unit direction d_G,
  /// when one is near: a box's face along d_G's largest component; a cylinder's or frustum's cap
  /// on d_G's side of the axis when |d_G.z| ≥ kCapCosine. False for other shapes (a hull's faces
  /// are left to GJK).
  bool flat_face_normal(const Vec3& d_G, Vec3& n_G) const {
    if (shape_.type == ShapeType::box) {
      int k = 0;
      d_G.cwiseAbs().maxCoeff(&k);
      n_G = Vec3::Zero();
      n_G[k] = d_G[k] < 0.0 ? -1.0 : 1.0;
      return true;
    }
    if ((shape_.type == ShapeType::cylinder || shape_.type == ShapeType::cone) &&
        std::abs(d_G.z()) >= kCapCosine) {
      n_G = Vec3(0.0, 0.0, d_G.z() < 0.0 ? -1.0 : 1.0);
      return true;
    }
    return false;
  }

  /// Whether the point p_G lies in the core, `slack` outside its surface at most: boxes,
  /// cylinders and frustums (the shapes flat_face_normal() names faces of).
  bool core_contains(const Vec3& p_G, double slack) const {
    const double r = shape_.smoothing_radius_m;
    if (shape_.type == ShapeType::box) {
      return (p_G.cwiseAbs() - box_half_extents_).maxCoeff() <= slack;
    }
    if (shape_.type == ShapeType::cylinder || shape_.type == ShapeType::cone) {
      const double h = shape_.half_length_m - r;
      if (std::abs(p_G.z()) > h + slack) return false;
      double radius = shape_.radius_m - r;  // cylinder; a frustum's radius is linear in z
      if (shape_.type == ShapeType::cone) {
        const double base = std::max(0.0, shape_.radius_m - r);
        const double top = std::max(0.0, shape_.top_radius_m - r);
        const double t = h > 0.0 ? std::clamp((p_G.z() + h) / (2.0 * h), 0.0, 1.0) : 0.5;
        radius = base + t * (top - base);
      }
      return p_G.x() * p_G.x() + p_G.y() * p_G.y() <= (radius + slack) * (radius + slack);
    }
    return false;
  }
  /// Starts the next climb at hull vertex `vertex` (a vertex an earlier support returned).
  void start_at(std::uint32_t vertex) { vertex_ = vertex; }
  /// Starts the next climb at the highest along d_G of the current start vertex and about √n
  /// vertices spread over the hull: a climb from a vertex far from the answer (a cold start, a
  /// direction turned by more than 90°) walks O(√n) edges, from the best sample a step or two.
  void jump(const Vec3& d_G) {
    std::uint32_t best = vertex_;
    double best_dot = d_G.dot(hull_->vertices[best]);
    const std::uint32_t n = hull_->vertex_count;
    // About √n samples, spread over the vertex list (every ⌊√n⌋-th vertex).
    const auto stride =
        std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::sqrt(static_cast<double>(n))));
    for (std::uint32_t i = stride / 2; i < n; i += stride) {
      const double value = d_G.dot(hull_->vertices[i]);
      if (value > best_dot) {
        best_dot = value;
        best = i;
      }
    }
    vertex_ = best;
  }

 private:
  const Shape& shape_;
  Vec3 box_half_extents_ = Vec3::Zero();  // box core half sizes [m]
  const ConvexHull* hull_ = nullptr;
  std::uint32_t vertex_ = 0;
  bool climb_ = false;
};

// Support mapping of M in A's frame. Working relative to A keeps the coordinates as small as the
// pair's separation, whatever the absolute position of the pair in the world (mujoco_warp #1546:
// support points subtracted in world coordinates lost a 1e-9 overlap to rounding at y = 1 m).
// B's supports take one rotation of the direction into B's frame and one of the point back.
class CoreDifference {
 public:
  // `start_known`: the start vertices come from the cache (the last query's), else the query is
  // cold and climbs jump (CoreSupport::jump).
  CoreDifference(const Shape& a, const Shape& b, const Pose& X_AB, std::uint32_t start_vertex_a,
                 std::uint32_t start_vertex_b, bool start_known)
      : a_(a, start_vertex_a),
        b_(b, start_vertex_b),
        R_BA_(X_AB.R.transpose()),
        X_AB_(X_AB),
        cold_(!start_known && (a_.jumps() || b_.jumps())),
        first_(true),
        curved_a_(!polytope_core(a.type)),
        curved_b_(!polytope_core(b.type)),
        boxes_(a_.is_box() && b_.is_box()) {}

  SupportPoint support(const Vec3& d_A) {
    SupportPoint s;
    support_into(d_A, s);
    return s;
  }

  // support() written into `s` in place (no copy of the point where it is kept: GJK's simplex).
  void support_into(const Vec3& d_A, SupportPoint& s) {
    s.d = d_A;
    if (boxes_) {
      // Two boxes: corners by the signs, without the general dispatch (a box's support along
      // −d is minus its support along d, zero components included, as copysign goes). Written
      // out in scalars: Eigen's 3-vector products shuffle 2-wide packets, and this took 119
      // instructions a support against 103 here (callgrind).
      const Mat3& R = X_AB_.R;
      const Vec3& h_a = a_.box_half_extents();
      const Vec3& h_b = b_.box_half_extents();
      const double d0 = d_A.x(), d1 = d_A.y(), d2 = d_A.z();
      // B's corner along R_BA·d (R_BA = R_ABᵀ: R's columns), then its negative seen in A.
      const double c0 = std::copysign(h_b.x(), R(0, 0) * d0 + R(1, 0) * d1 + R(2, 0) * d2);
      const double c1 = std::copysign(h_b.y(), R(0, 1) * d0 + R(1, 1) * d1 + R(2, 1) * d2);
      const double c2 = std::copysign(h_b.z(), R(0, 2) * d0 + R(1, 2) * d1 + R(2, 2) * d2);
      const Vec3& t = X_AB_.p;
      s.a =
          Vec3(std::copysign(h_a.x(), d0), std::copysign(h_a.y(), d1), std::copysign(h_a.z(), d2));
      s.b = Vec3(t.x() - (R(0, 0) * c0 + R(0, 1) * c1 + R(0, 2) * c2),
                 t.y() - (R(1, 0) * c0 + R(1, 1) * c1 + R(1, 2) * c2),
                 t.z() - (R(2, 0) * c0 + R(2, 1) * c1 + R(2, 2) * c2));
      s.w = s.a - s.b;
      s.vertex_a = 0;
      s.vertex_b = 0;
      return;
    }
    if (cold_) [[unlikely]] {
      jump_if_turned(d_A);
    }
    s.a = a_(d_A);
    s.b = X_AB_.R * b_(-(R_BA_ * d_A)) + X_AB_.p;
    s.w = s.a - s.b;
    s.vertex_a = a_.last_vertex();
    s.vertex_b = b_.last_vertex();
  }

  // For a support along the normal n_A of an EPA face, the climbs start at the face's vertices
  // highest along n_A on A and along −n_A on B: the face's corners were supports along nearby
  // directions, so this start is a step or two from the answer where the last support's vertex
  // (another region of the polytope) may be many.
  SupportPoint support_near(const Vec3& n_A, const SupportPoint& p0, const SupportPoint& p1,
                            const SupportPoint& p2) {
    if (a_.is_hull()) {
      const double h0 = n_A.dot(p0.a), h1 = n_A.dot(p1.a), h2 = n_A.dot(p2.a);
      const SupportPoint& p = h0 >= h1 ? (h0 >= h2 ? p0 : p2) : (h1 >= h2 ? p1 : p2);
      a_.start_at(p.vertex_a);
      if (cold_) last_a_ = p.d;
    }
    if (b_.is_hull()) {
      const double h0 = n_A.dot(p0.b), h1 = n_A.dot(p1.b), h2 = n_A.dot(p2.b);
      const SupportPoint& p = h0 <= h1 ? (h0 <= h2 ? p0 : p2) : (h1 <= h2 ? p1 : p2);
      b_.start_at(p.vertex_b);
      if (cold_) last_b_ = p.d;
    }
    return support(n_A);
  }

  /// The quadratic form tᵢ·J·tⱼ of the derivative J of w = s_A(d) − s_B(−d) at the unit
  /// direction d_A, for t1, t2 in A's frame: J = J_A(d) + R_AB·J_B(−R_BA·d)·R_BA.
  void curvature(const Vec3& d_A, const Vec3& t1, const Vec3& t2, double& q11, double& q12,
                 double& q22) const {
    q11 = q12 = q22 = 0.0;
    // Polytope cores (box, hull, point, segment) have no curvature: their rotations into B's
    // frame and the call are skipped (a third of a cylinder–box Newton step).
    if (curved_a_) {
      if (a_.shape().type == ShapeType::cylinder) {
        const Shape& a = a_.shape();
        add_rim_support_derivative(a.radius_m - a.smoothing_radius_m, d_A,
                                   Vec3(d_A.y(), -d_A.x(), 0.0), t1, t2, q11, q12, q22);
      } else {
        add_core_support_derivative(a_.shape(), d_A, t1, t2, q11, q12, q22);
      }
    }
    if (curved_b_) {
      const Vec3 d_B = -(R_BA_ * d_A);
      if (b_.shape().type == ShapeType::cylinder) {
        // The rim's q_B = (d_B.y, −d_B.x, 0) seen in A (R_AB·q_B), instead of t1 and t2 in B.
        const Vec3 q_A = X_AB_.R.col(0) * d_B.y() - X_AB_.R.col(1) * d_B.x();
        const Shape& b = b_.shape();
        add_rim_support_derivative(b.radius_m - b.smoothing_radius_m, d_B, q_A, t1, t2, q11, q12,
                                   q22);
      } else {
        add_core_support_derivative(b_.shape(), d_B, R_BA_ * t1, R_BA_ * t2, q11, q12, q22);
      }
    }
  }

  /// The direction of M (unit, A's frame) along which a flat face of A's near the unit direction
  /// m of M supports it (the face's outward normal); false when A has none there.
  bool a_face_direction(const Vec3& m, Vec3& n) const { return a_.flat_face_normal(m, n); }
  /// The same for a face of B's near −m (minus its outward normal, seen in A).
  bool b_face_direction(const Vec3& m, Vec3& n) const {
    if (!b_.flat_face_normal(-(R_BA_ * m), n)) return false;
    n = -(X_AB_.R * n);
    return true;
  }
  /// Whether A's (B's) core has a closed-form nearest point (a box, a cylinder), for the clamps
  /// below.
  bool a_clampable() const { return a_.clampable(); }
  bool b_clampable() const { return b_.clampable(); }
  /// The point of A's clampable core nearest to p_A.
  Vec3 nearest_on_a(const Vec3& p_A) const { return a_.nearest(p_A); }
  /// The point of B's clampable core nearest to p_A, in A's frame.
  Vec3 nearest_on_b(const Vec3& p_A) const {
    return X_AB_.R * b_.nearest(R_BA_ * (p_A - X_AB_.p)) + X_AB_.p;
  }
  /// Whether A's (B's) core is a hull with its faces around each vertex (face_nearest_on_a/b).
  bool a_has_faces() const { return a_.has_faces(); }
  bool a_is_box() const { return a_.is_box(); }
  bool b_is_box() const { return b_.is_box(); }
  bool a_is_cylinder() const { return a_.shape().type == ShapeType::cylinder; }
  bool b_is_cylinder() const { return b_.shape().type == ShapeType::cylinder; }
  /// A hull among the cores (vertex pairs name points of M: kCacheCount).
  bool has_hull() const {
    return a_.shape().type == ShapeType::convex_hull || b_.shape().type == ShapeType::convex_hull;
  }
  bool b_has_faces() const { return b_.has_faces(); }
  /// A's point nearest to p_A when a face around A's hull vertex `vertex` holds it
  /// (CoreSupport::face_nearest).
  bool face_nearest_on_a(const Vec3& p_A, std::uint32_t vertex, double slack, Vec3& q_A, Vec3& n_A,
                         std::uint32_t& face, double& height) const {
    return a_.face_nearest(p_A, vertex, slack, q_A, n_A, face, height);
  }
  /// The face of A's hull (B's when !on_a) around hull vertex `vertex` of that hull over whose
  /// plane the point p_A stands highest (CoreSupport::face_highest), and that height.
  std::uint32_t face_highest(bool on_a, const Vec3& p_A, std::uint32_t vertex,
                             double& height) const {
    if (on_a) return a_.face_highest(p_A, vertex, height);
    // (p_A − t first: R·(p − t) as one expression is instantiated out of line in query() then)
    const Vec3 p_from_b = p_A - X_AB_.p;
    return b_.face_highest(R_BA_ * p_from_b, vertex, height);
  }
  /// The face of A's box core (B's when !on_a) over whose plane the point p_A stands highest,
  /// numbered 2k (+x_k) or 2k + 1 (−x_k), and that height.
  std::uint32_t box_face_highest(bool on_a, const Vec3& p_A, double& height) const {
    const Vec3 p_G = on_a ? p_A : Vec3(R_BA_ * Vec3(p_A - X_AB_.p));
    const Vec3& h = (on_a ? a_ : b_).box_half_extents();
    std::uint32_t face = 0;
    height = -std::numeric_limits<double>::infinity();
    for (std::uint32_t k = 0; k < 3; ++k) {
      const double above = std::abs(p_G[k]) - h[k];
      face = above > height ? 2 * k + (p_G[k] < 0.0 ? 1 : 0) : face;
      height = above > height ? above : height;
    }
    return face;
  }
  /// Whether the point x_A (A's frame) on the plane of face `face` of A's box core (B's when
  /// !on_a) lies within `slack` of that rectangle.
  bool box_face_holds(bool on_a, std::uint32_t face, const Vec3& x_A, double slack) const {
    const Vec3 x_G = on_a ? x_A : Vec3(R_BA_ * Vec3(x_A - X_AB_.p));
    const Vec3& h = (on_a ? a_ : b_).box_half_extents();
    const int k = static_cast<int>(face / 2), i = (k + 1) % 3, j = (k + 2) % 3;
    return std::abs(x_G[i]) <= h[i] + slack && std::abs(x_G[j]) <= h[j] + slack;
  }
  /// The outward normal (A's frame) of the cap of A's cylinder core that faces along the
  /// direction d_A of M (of B's cylinder core, the cap that faces along −d_A).
  Vec3 cap_facing(bool on_a, const Vec3& d_A) const {
    if (on_a) return Vec3(0.0, 0.0, d_A.z() < 0.0 ? -1.0 : 1.0);
    const Vec3 axis = X_AB_.R.col(2);  // B's z in A's frame
    return axis.dot(d_A) > 0.0 ? Vec3(-axis) : axis;
  }
  /// The depth h of the point s_A (A's frame) under the cap of A's cylinder core (B's when !on_a)
  /// with outward normal n_A (cap_facing()) when the ball of radius h around s_A lies in the core
  /// (s_A at least h from its side and from the other cap), else 0.
  double cap_ball_depth(bool on_a, const Vec3& s_A, const Vec3& n_A) const {
    const Vec3 s_G = on_a ? s_A : Vec3(R_BA_ * Vec3(s_A - X_AB_.p));
    const Vec3 n_G = on_a ? n_A : Vec3(R_BA_ * n_A);
    const Shape& c = (on_a ? a_ : b_).shape();
    const double half_length = c.half_length_m - c.smoothing_radius_m;
    const double h = half_length - n_G.z() * s_G.z();
    const double room = c.radius_m - c.smoothing_radius_m - h;  // the side's distance at least
    const bool inside = h > 0.0 && h <= half_length && room >= 0.0 &&
                        s_G.x() * s_G.x() + s_G.y() * s_G.y() <= room * room;
    return inside ? h : 0.0;
  }
  /// The plane of face `face` of A's core (B's when !on_a), a hull's triangle (face_highest())
  /// or a box's rectangle (box_face_highest()), in A's frame: outward unit normal f.n and offset
  /// f.offset (n·x ≤ offset on the core).
  void face_plane(bool on_a, std::uint32_t face, CoreFace& f) const {
    const CoreSupport& core = on_a ? a_ : b_;
    Vec3 n_G;
    if (core.is_box()) {
      const int k = static_cast<int>(face / 2);
      n_G = Vec3::Zero();
      n_G[k] = face % 2 == 0 ? 1.0 : -1.0;
      f.offset = core.box_half_extents()[k];
    } else {
      n_G = core.shape().hull->face_normals[face];
      f.offset = core.shape().hull->face_offsets[face];
    }
    f.n = on_a ? n_G : Vec3(X_AB_.R * n_G);
    if (!on_a) f.offset += f.n.dot(X_AB_.p);
  }
  /// The corners of that face in A's frame, in order around it, and their vertex numbers (hull
  /// vertices, box corner numbers: corner_id()).
  void face_corners(bool on_a, std::uint32_t face, CoreFace& f) const {
    const CoreSupport& core = on_a ? a_ : b_;
    if (core.is_box()) {
      const Vec3& h = core.box_half_extents();
      const int k = static_cast<int>(face / 2), i = (k + 1) % 3, j = (k + 2) % 3;
      constexpr double kAround[4][2] = {{1.0, 1.0}, {-1.0, 1.0}, {-1.0, -1.0}, {1.0, -1.0}};
      f.count = 4;
      for (int c = 0; c < 4; ++c) {
        Vec3 corner;
        corner[k] = face % 2 == 0 ? h[k] : -h[k];
        corner[i] = kAround[c][0] * h[i];
        corner[j] = kAround[c][1] * h[j];
        f.ids[c] = corner_id(corner);
        f.corners[c] = corner;
      }
    } else {
      const ConvexHull& hull = *core.shape().hull;
      f.count = 3;
      for (int c = 0; c < 3; ++c) {
        f.ids[c] = hull.triangles[3 * face + c];
        f.corners[c] = hull.vertices[f.ids[c]];
      }
    }
    if (on_a) return;
    for (int c = 0; c < f.count; ++c) f.corners[c] = X_AB_.R * f.corners[c] + X_AB_.p;
  }
  /// A's core's interior point (A's frame).
  Vec3 interior_a() const { return interior_point(a_.shape()); }
  /// The difference c_A − c_B of the cores' interior points (a point of M), in A's frame.
  Vec3 interior_difference() const {
    return interior_point(a_.shape()) - X_AB_.transform_point(interior_point(b_.shape()));
  }
  /// A's core's support point along d_A (B's when !on_a, in A's frame) when that is `vertex` (a
  /// hull's vertex: no neighbour higher, CoreSupport::is_support_vertex) or any box corner (the
  /// box's support, whose number replaces `vertex`); false otherwise and for other cores.
  bool support_at(bool on_a, const Vec3& d_A, std::uint32_t& vertex, Vec3& point_A) const {
    const CoreSupport& core = on_a ? a_ : b_;
    const Vec3 d_G = on_a ? d_A : Vec3(R_BA_ * d_A);
    Vec3 point_G;
    if (core.is_box()) {
      point_G = box_corner(core.box_half_extents(), d_G);
      vertex = corner_id(point_G);
    } else if (core.shape().type == ShapeType::convex_hull && core.has_faces()) {
      if (!core.is_support_vertex(vertex, d_G)) return false;
      point_G = core.shape().hull->vertices[vertex];
    } else {
      return false;
    }
    point_A = on_a ? point_G : Vec3(X_AB_.R * point_G + X_AB_.p);
    return true;
  }
  /// The hull's vertex `corner` (0..2) of its face `face` (A's when on_a, else B's).
  std::uint32_t face_corner(bool on_a, std::uint32_t face, int corner) const {
    return (on_a ? a_ : b_).shape().hull->triangles[3 * face + corner];
  }
  /// The same as face_nearest_on_a on B's hull, in A's frame (n_A: the face's outward normal,
  /// B's).
  bool face_nearest_on_b(const Vec3& p_A, std::uint32_t vertex, double slack, Vec3& q_A, Vec3& n_A,
                         std::uint32_t& face, double& height) const {
    Vec3 q_B, n_B;
    if (!b_.face_nearest(R_BA_ * (p_A - X_AB_.p), vertex, slack, q_B, n_B, face, height)) {
      return false;
    }
    q_A = X_AB_.R * q_B + X_AB_.p;
    n_A = X_AB_.R * n_B;
    return true;
  }
  /// A's support point along d_A with its hull climb started at vertex `start`, and the vertex
  /// it ends at.
  [[gnu::noinline]] Vec3 a_support_from(const Vec3& d_A, std::uint32_t start,
                                        std::uint32_t& vertex) {
    a_.start_at(start);
    const Vec3 s = a_(d_A);
    vertex = a_.last_vertex();
    return s;
  }
  /// B's support point along d_A (both in A's frame), its climb started at B's vertex `start`.
  [[gnu::noinline]] Vec3 b_support_from(const Vec3& d_A, std::uint32_t start,
                                        std::uint32_t& vertex) {
    b_.start_at(start);
    const Vec3 s = X_AB_.R * b_(R_BA_ * d_A) + X_AB_.p;
    vertex = b_.last_vertex();
    return s;
  }
  bool a_contains(const Vec3& p_A, double slack) const { return a_.core_contains(p_A, slack); }
  bool b_contains(const Vec3& p_A, double slack) const {
    return b_.core_contains(R_BA_ * (p_A - X_AB_.p), slack);
  }

  std::uint32_t last_vertex_a() const { return a_.last_vertex(); }
  std::uint32_t last_vertex_b() const { return b_.last_vertex(); }

  /// The vertex pair of a point of M between hulls and boxes (kCacheCount): hull vertices as the
  /// supports found them, box corners by the signs of their coordinates (corner_id).
  std::uint32_t vertex_a(const SupportPoint& p) const {
    return a_.is_box() ? corner_id(p.a) : p.vertex_a;
  }
  std::uint32_t vertex_b(const SupportPoint& p) const {
    return b_.is_box() ? corner_id(R_BA_ * (p.b - X_AB_.p)) : p.vertex_b;
  }

 private:
  // A climb whose direction turned by more than 90° from the one its start vertex was found
  // along (the M directions of GJK's first iterations swing across the sphere) starts from the
  // best of a sample of vertices instead. Only in a cold query: warm ones start at the last
  // query's vertices, and their directions barely turn. Out of line: warm queries only test
  // cold_.
  [[gnu::noinline]] void jump_if_turned(const Vec3& d_A) {
    if (a_.jumps() && (first_ || d_A.dot(last_a_) < 0.0)) a_.jump(d_A);
    if (b_.jumps() && (first_ || d_A.dot(last_b_) < 0.0)) b_.jump(-(R_BA_ * d_A));
    first_ = false;
    last_a_ = d_A;
    last_b_ = d_A;
  }

  CoreSupport a_;
  CoreSupport b_;
  Mat3 R_BA_;
  const Pose& X_AB_;
  // A cold query between climbed hulls: the climbs jump (see support()), the first ones always,
  // later ones when their M direction (in A) turned from last_a_ / last_b_, the direction their
  // start vertex was found along.
  bool cold_;
  bool first_;
  bool curved_a_;  // the core has curvature (see curvature())
  bool curved_b_;
  bool boxes_;   // two boxes: support_into's own path
  Vec3 last_a_;  // uninitialised: read only after support() set them (first_)
  Vec3 last_b_;
};

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

SubSimplex sub_vertex(const SupportPoint* w, int i) {
  SubSimplex s;
  s.count = 1;
  s.index[0] = i;
  s.lambda[0] = 1.0;
  s.v = w[i].w;
  s.vv = s.v.squaredNorm();
  return s;
}

void keep_closer(SubSimplex& best, const SubSimplex& candidate) {
  if (candidate.vv < best.vv || best.count == 0) best = candidate;
}

// Each function below builds its answer in one named object, `result`, so that it is returned
// in place (NRVO): copying a SubSimplex just written field by field stalls on store forwarding
// (measured: a third of the sub-distance time on warm-started queries).

// S1D: segment w[i0] w[i1].
SubSimplex sub_segment(const SupportPoint* w, int i0, int i1) {
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
SubSimplex sub_triangle(const SupportPoint* w, int i0, int i1, int i2) {
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
SubSimplex sub_tetrahedron(const SupportPoint* w) {
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

// Contact between the cores, in A's frame.
struct CoreContact {
  double distance_m = 0.0;      // signed
  Vec3 normal = Vec3::UnitZ();  // unit, from A to B
  Vec3 point_a = Vec3::Zero();  // on A's core
  Vec3 point_b = Vec3::Zero();  // on B's core
  std::array<Vec3, 4> warm_directions;
  int warm_count = 0;
  // Hull–hull and hull–box pairs after EPA: points of M as packed vertex pairs (kCacheCount), the
  // face's three, the polytope's lowest along the normal, then those of the live faces nearest
  // to the origin. With warm_pair_count > 0 they replace warm_directions in the cache.
  std::array<double, kMaxWarmPairs> warm_pairs{};
  int warm_pair_count = 0;
  // Separated cores whose closest point of M is one point of GJK's (one_point_contact()): the
  // witnesses are points of the cores, cached as a pair between polytope cores (kCacheOnePoint),
  // with the hull vertices they are (SupportPoint::vertex_a, vertex_b).
  bool one_point = false;
  std::uint32_t vertex_a = 0;
  std::uint32_t vertex_b = 0;
};

// R·x + t written out. Eigen's assignment of that expression, instantiated at several places in
// GjkEpaNarrowPhase::query(), was compiled out of line there (a call per point, about 30
// instructions per query more).
[[gnu::always_inline]] inline Vec3 affine(const Mat3& R, const Vec3& x, const Vec3& t) {
  return Vec3(R(0, 0) * x.x() + R(0, 1) * x.y() + R(0, 2) * x.z() + t.x(),
              R(1, 0) * x.x() + R(1, 1) * x.y() + R(1, 2) * x.z() + t.y(),
              R(2, 0) * x.x() + R(2, 1) * x.y() + R(2, 2) * x.z() + t.z());
}

// GJK's stopping rule (van den Bergen 1999, §4): |v|² − v·w, here `gap`, bounds
// |v|·(|v| − distance), so gap ≤ tolerance·|v|² makes |v| a distance with relative error ≤
// tolerance; the second term is the rounding floor of v·w for a problem of size `scale`, without
// which tiny tolerances would never be met (its square root only when the first test fails).
[[gnu::always_inline]] inline bool gjk_converged(double gap, double vv, double tolerance,
                                                 double scale) {
  return gap <= tolerance * vv ||
         gap <= tolerance * vv + 8.0 * kMachineEpsilon * scale * std::sqrt(vv);
}

// The one-point certificate of a warm start: the point p = s_M(d) is M's support along its
// direction d, so −d̂·w bounds the distance from below (the plane d·x = d·w separates the origin
// from M when positive) and |w| from above. True when the bounds agree to GJK's stopping rule
// (Solver::gjk, with d̂ in place of −v̂), given vv = |w|² and the problem's size `scale`.
bool one_point_certifies(const SupportPoint& p, double vv, double tolerance, double scale) {
  const double dw = -p.d.dot(p.w);
  if (!(dw > 0.0)) return false;
  const double norm_v = std::sqrt(vv);
  const double lower = dw / p.d.norm();
  return vv - norm_v * lower <= tolerance * vv + 8.0 * kMachineEpsilon * scale * norm_v;
}

// Witness points a, b around their midpoint such that b − a = distance·normal holds to rounding.
void set_witnesses(CoreContact& c, const Vec3& a, const Vec3& b) {
  const Vec3 middle = 0.5 * (a + b);
  c.point_a = middle - (0.5 * c.distance_m) * c.normal;
  c.point_b = middle + (0.5 * c.distance_m) * c.normal;
}

// Separated cores whose closest points are the single support point p (GJK's simplex is one
// point): the distance |w|, the normal −w/|w|, the witnesses p.a and p.b. The warm start keeps
// the direction of GJK's last support, −w, for polytope cores: along it p is (within the
// tolerance) a support too, so at the same pose the next query's one warm support certifies the
// distance (one_point_certifies), where the direction p was first found along (a vertex's whole
// normal cone gives it) bounds the distance poorly. On curved cores p's own direction restarts
// at p itself, −w does not.
CoreContact one_point_contact(const SupportPoint& p, bool polytope_cores) {
  CoreContact c;
  const Vec3 v = p.a - p.b;  // = p.w
  c.distance_m = v.norm();
  c.normal = v * (-1.0 / c.distance_m);  // one division off the critical path, not three
  c.point_a = p.a;
  c.point_b = p.b;
  c.warm_count = 1;
  c.warm_directions[0] = polytope_cores ? c.normal : p.d;
  c.one_point = true;
  c.vertex_a = p.vertex_a;
  c.vertex_b = p.vertex_b;
  return c;
}

// Keeps the closest pair of a one-point answer between polytope cores (kCacheOnePoint): A's point
// in A's frame, B's in B's, a hull's as its vertex number. Out of line: a warm query whose cached
// pair certified keeps the entry as it is and does not call it.
[[gnu::noinline]] void keep_one_point(const Shape& a, const Shape& b, const Pose& X_AB,
                                      const CoreContact& core, NarrowPhaseCache& cache) {
  cache.data[kCacheCount] = kCacheOnePoint;
  double* stored_a = &cache.data[kCachePointA];
  double* stored_b = &cache.data[kCachePointB];
  if (a.type == ShapeType::convex_hull) {
    stored_a[0] = static_cast<double>(core.vertex_a);
  } else {
    for (int k = 0; k < 3; ++k) stored_a[k] = core.point_a[k];
  }
  if (b.type == ShapeType::convex_hull) {
    stored_b[0] = static_cast<double>(core.vertex_b);
  } else {
    const Vec3 r = core.point_b - X_AB.p;  // R_ABᵀ·r, column by column
    for (int k = 0; k < 3; ++k) stored_b[k] = X_AB.R.col(k).dot(r);
  }
}

// A point of the shape's core (sphere, capsule, box or hull) from what keep_one_point() kept, in
// the shape's frame G, with its hull vertex (0 for other shapes): the kept point projected on
// the core, so a point of the core whatever the entry holds (B's point came back through a
// rotation; an entry made for other shapes of the same types is a poor start, not a wrong one).
// False when a hull's vertex number is out of range.
[[gnu::always_inline]] inline bool cached_core_point(const Shape& shape, const double* stored,
                                                     Vec3& p_G, std::uint32_t& vertex) {
  vertex = 0;
  switch (shape.type) {
    case ShapeType::box: {
      const Vec3 h = box_core_half_extents(shape);
      p_G = Vec3(stored[0], stored[1], stored[2]).cwiseMax(-h).cwiseMin(h);
      return true;
    }
    case ShapeType::convex_hull:
      if (shape.hull == nullptr || !(stored[0] >= 0.0 && stored[0] < shape.hull->vertex_count)) {
        return false;
      }
      vertex = static_cast<std::uint32_t>(stored[0]);
      p_G = shape.hull->vertices[vertex];
      return true;
    case ShapeType::capsule:
      p_G = Vec3(0.0, 0.0, std::clamp(stored[2], -shape.half_length_m, shape.half_length_m));
      return true;
    default:  // a sphere's core, its centre (polytope cores only reach here)
      p_G = Vec3::Zero();
      return true;
  }
}

// A warm start's single support p (the pose barely moved) certifies the cores' distance at once:
// the check Solver::solve makes after gjk()'s first step, with the same scale, for cores swept by
// `sweep` = r_A + r_B.
[[gnu::always_inline]] inline bool warm_point_certifies(const SupportPoint& p, double sweep,
                                                        double tolerance) {
  const double vv = p.w.squaredNorm();
  const double scale = std::sqrt(std::max(sweep * sweep, vv));  // as Solver::solve
  return vv > kSeparatedFraction * scale * kSeparatedFraction * scale &&
         one_point_certifies(p, vv, tolerance, scale);
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
  struct WalkStep {
    int face;   // a face to test for visibility
    int entry;  // the edge it is entered through
  };

  explicit Workspace(int max_iterations)
      : vertex_capacity(max_iterations + 8), face_capacity(2 * vertex_capacity + 8) {
    vertices.resize(static_cast<std::size_t>(vertex_capacity));
    faces.resize(static_cast<std::size_t>(face_capacity));
    face_distance.resize(static_cast<std::size_t>(face_capacity));
    free_faces.resize(static_cast<std::size_t>(face_capacity));
    stack.resize(static_cast<std::size_t>(3 * face_capacity));
    removed.resize(static_cast<std::size_t>(face_capacity));
    horizon.resize(static_cast<std::size_t>(3 * face_capacity));
    round_of_vertex.resize(static_cast<std::size_t>(vertex_capacity));
    vertex_rank.resize(static_cast<std::size_t>(vertex_capacity));
  }

  int vertex_capacity;
  int face_capacity;
  std::vector<SupportPoint> vertices;
  std::vector<Face> faces;
  // faces[f].d of live faces and +∞ of removed ones, apart from the faces: the search for the
  // nearest face runs over this dense array alone.
  std::vector<double> face_distance;
  std::vector<int> free_faces;
  std::vector<WalkStep> stack;
  std::vector<int> removed;
  std::vector<HorizonEdge> horizon;
  std::vector<std::int64_t> round_of_vertex;
  std::vector<double> vertex_rank;  // the warm start's choice of vertices (set_warm_pairs)
  int vertex_count = 0;
  int face_slots = 0;  // high-water mark of used face slots
  int free_count = 0;
  std::int64_t round = 0;
};

namespace {

using Workspace = GjkEpaNarrowPhase::Workspace;
using Face = Workspace::Face;

// A cold start between a hull and a hull or a box: EPA's seeds are the points of M next to the
// first support p0 (one vertex of A or of B moved to a neighbour) highest along p0's direction,
// the centre difference, near which the contact lies: the ring of M's vertices around the contact
// that EPA would otherwise find one support at a time (cold hull256 pairs: 24 iterations without,
// 10 with). Any vertex pair is a point of M, so the seeds keep EPA exact wherever the contact is
// (see kCacheCount). Computed only when EPA runs (fill()).
struct ColdSeeds {
  // 4 seeds, 6 with a hull of kJumpFrom vertices or more (callgrind per cold query, hull256
  // pairs: 46,551 with 2, 35,223 with 4, 31,803 with 6, 31,588 with 8; box–hull32: 18,283,
  // 17,831, 19,659, 21,908).
  static constexpr int kSeeds = 6;

  ColdSeeds(const Shape& a, const Shape& b, const Pose& X_AB, const CoreDifference& difference,
            const SupportPoint& p0, const Vec3& d_A)
      : a_(a),
        b_(b),
        X_AB_(X_AB),
        difference_(difference),
        p0_a_(p0.a),
        p0_b_(p0.b),
        d_A_(d_A),
        p0_vertex_a_(p0.vertex_a),
        p0_vertex_b_(p0.vertex_b) {}

  // Writes up to kSeeds points into `out`, highest along d_A first; returns their number.
  int fill(SupportPoint* out) const {
    const Vec3 centre_A = interior_point(a_) - X_AB_.transform_point(interior_point(b_));
    const std::uint32_t vertices_a = named_vertices(a_);
    const std::uint32_t vertices_b = named_vertices(b_);
    SupportPoint p0;
    p0.a = p0_a_;
    p0.b = p0_b_;
    p0.vertex_a = p0_vertex_a_;
    p0.vertex_b = p0_vertex_b_;
    const std::uint32_t vertex_a = difference_.vertex_a(p0);
    const std::uint32_t vertex_b = difference_.vertex_b(p0);
    const int limit = std::max(vertices_a, vertices_b) >= kJumpFrom ? kSeeds : 4;
    // The candidates' heights and vertex pairs only (a point is built for the kept ones at the
    // end: moving whole points through the insertion cost as much as the rest of fill()).
    std::array<double, kSeeds> height{};
    std::array<std::uint32_t, kSeeds> moved{};  // the neighbour's vertex index
    std::array<bool, kSeeds> on_b{};            // a neighbour of B's vertex, else of A's
    int count = 0;
    const auto offer = [&](const Vec3& w, std::uint32_t vertex, bool b_side) {
      const double h = d_A_.dot(w);
      int k = count < limit ? count++ : limit;
      if (k == limit) {
        if (!(h > height[limit - 1])) return;
        k = limit - 1;
      }
      while (k > 0 && height[k - 1] < h) {
        height[k] = height[k - 1];
        moved[k] = moved[k - 1];
        on_b[k] = on_b[k - 1];
        --k;
      }
      height[k] = h;
      moved[k] = vertex;
      on_b[k] = b_side;
    };
    // The points of M next to p0: one vertex of A, or of B (in A's frame as
    // CoreDifference::support computes it), moved to a neighbour.
    const auto a_point = [&](std::uint32_t i) { return named_vertex(a_, i); };
    const auto b_point = [&](std::uint32_t j) -> Vec3 {
      return X_AB_.R * named_vertex(b_, j) + X_AB_.p;
    };
    if (vertex_a < vertices_a) {
      for_each_neighbour(a_, vertex_a, [&](std::uint32_t i) {
        if (i >= vertices_a) return;
        offer(Vec3(a_point(i) - p0.b), i, false);
      });
    }
    if (vertex_b < vertices_b) {
      for_each_neighbour(b_, vertex_b, [&](std::uint32_t j) {
        if (j >= vertices_b) return;
        offer(Vec3(p0.a - b_point(j)), j, true);
      });
    }
    for (int k = 0; k < count; ++k) {
      SupportPoint& q = out[k];
      if (on_b[k]) {
        q.a = p0.a;
        q.b = b_point(moved[k]);
        q.vertex_a = p0.vertex_a;
        q.vertex_b = moved[k];
      } else {
        q.a = a_point(moved[k]);
        q.b = p0.b;
        q.vertex_a = moved[k];
        q.vertex_b = p0.vertex_b;
      }
      q.w = q.a - q.b;
      q.d = q.w - centre_A;  // a direction q is about the support point for (warm directions)
    }
    return count;
  }

 private:
  const Shape& a_;
  const Shape& b_;
  const Pose& X_AB_;
  const CoreDifference& difference_;
  Vec3 p0_a_;  // the first support's points of A and B, its direction, its hull vertices
  Vec3 p0_b_;
  Vec3 d_A_;
  std::uint32_t p0_vertex_a_;
  std::uint32_t p0_vertex_b_;
};

// Counters of one query.
struct QueryCounters {
  int iterations = 0;
  bool hit_limit = false;
  bool degenerate = false;
};

class Solver {
 public:
  Solver(CoreDifference& difference, double tolerance, bool polytope_cores, int max_iterations,
         Workspace& ws, QueryCounters& counters)
      : m_(difference),
        tolerance_(tolerance),
        epa_tolerance_(polytope_cores ? tolerance : std::max(tolerance, kCurvedEpaFraction)),
        polytope_cores_(polytope_cores),
        max_iterations_(max_iterations),
        ws_(ws),
        counters_(counters) {}

  // Hull–hull and hull–box pairs: `count` points of M that EPA inserts into its first polytope
  // before it expands (kCacheCount), and the request to keep such points in the contact.
  // `exact_directions`: a warm start from cached directions, every starting point M's support
  // along its direction d, which gjk() may then certify at once (not so for points rebuilt from
  // vertex pairs, whose d only approximates one; a cold start's one direction rarely certifies).
  void set_seeds(const SupportPoint* seeds, int count, bool vertex_pair, bool exact_directions) {
    seeds_ = seeds;
    seed_count_ = count;
    vertex_pair_ = vertex_pair;
    exact_directions_ = exact_directions;
  }

  // A cold start's seeds (ColdSeeds), written into `buffer` (ColdSeeds::kSeeds points) when EPA
  // runs.
  void set_cold_seeds(const ColdSeeds* cold_seeds, SupportPoint* buffer) {
    cold_seeds_ = cold_seeds;
    cold_buffer_ = buffer;
  }

  // The contact of the cores, from GJK started at `simplex` (one or more supported points).
  CoreContact solve(Simplex& simplex, double scale, const Vec3& up_A) {
    double largest2 = scale * scale;  // one square root for all the starting points
    for (int i = 0; i < simplex.count; ++i) {
      largest2 = std::max(largest2, simplex.points[i].w.squaredNorm());
    }
    scale_ = std::sqrt(largest2);
    if (!polytope_cores_ && simplex.count == 1 &&
        simplex.points[0].w.squaredNorm() > sq(kSeparatedFraction * scale_)) {
      // One point between curved cores, M's support along its direction d (the starts of
      // solve_pair between curved cores are supports): a warm start from the last answer's
      // direction is near the answer already, and a cold start's centre-to-centre direction may
      // be (its bounds, −d̂·w and |w|, agree to kGjkHandoffGap as for GJK's hand-off), so Newton
      // takes over at once instead of after GJK's iterations. GJK starts from the same point if
      // the polish does not end it.
      const SupportPoint& p = simplex.points[0];
      const double norm_w = p.w.norm();
      const double norm_d = p.d.norm();
      if (exact_directions_ ||
          norm_w * norm_d + p.d.dot(p.w) <= kGjkHandoffGap * (norm_w * norm_d)) {
        simplex.v = p.d * (-norm_w / norm_d);  // |v| = |w|: the polish's upper bound
        CoreContact polished;
        if (polish_separated(simplex, polished, &p)) return polished;
      }
    }
    bool enclosed = gjk(simplex, polytope_cores_ ? 0 : kGjkHandoffIterations);
    if (handed_off_) {
      // GJK crawls on curved cores: Newton on the support function ends it when the pair is
      // separated (certified by the distance bounds), and GJK resumes otherwise.
      CoreContact polished;
      if (simplex.v.squaredNorm() > sq(kSeparatedFraction * scale_) &&
          polish_separated(simplex, polished, &simplex.points[simplex.count])) {
        return polished;
      }
      enclosed = gjk(simplex, 0);
    }
    if (!enclosed && simplex.v.squaredNorm() > sq(kSeparatedFraction * scale_)) {
      counters_.degenerate = counters_.degenerate || stalled_;
      return separated(simplex);
    }
    const double gap = simplex.v.norm();
    CoreContact contact;
    if (!enclosed && refine(-simplex.v / gap, 0.0, contact)) return contact;
    contact = penetration(simplex, up_A);
    if (polytope_used_ && (!epa_converged_ || face_normal_off_) && std::isfinite(upper_bound_)) {
      // EPA stopped early (iteration limit on a curved core with a flat depth minimum, or a lost
      // topology): the depth lies between its nearest face's distance and the lowest support
      // height seen. The direction of that height is the better normal: the face normals wander
      // over the flat minimum. Shifting by the height takes the origin out of M for sure.
      // Or EPA converged on a kink of M with its nearest face's normal off the contact normal
      // (face_normal_off_): the lowest height is within the tolerance of the face's distance, and
      // its direction overlaps M by exactly that height (refine()'s shifted GJK on the curved
      // cores is no closer: measured on rim-to-rim cylinders).
      if (!epa_converged_) {
        CoreContact refined;
        const bool ok = refine(upper_direction_, std::max(upper_bound_, 0.0), refined);
        // Both refine's depth and the lowest height bound the depth from above: keep the lower.
        if (ok && -refined.distance_m <= upper_bound_) return refined;
      }
      CoreContact upper;
      upper.distance_m = -upper_bound_;
      upper.normal = upper_direction_;
      set_witnesses(upper, upper_point_.a, upper_point_.b);
      upper.warm_count = contact.warm_count;
      upper.warm_directions = contact.warm_directions;
      upper.warm_pair_count = contact.warm_pair_count;
      upper.warm_pairs = contact.warm_pairs;
      return upper;
    }
    return contact;
  }

 private:
  // SupportPoint of M shifted by −shift_, i.e. with B moved by +shift_ (see refine()).
  SupportPoint support(const Vec3& d) {
    SupportPoint p;
    support_into(d, p);
    return p;
  }
  void support_into(const Vec3& d, SupportPoint& p) {
    m_.support_into(d, p);
    p.b += shift_;
    p.w -= shift_;
  }

  // GJK (Gilbert, Johnson & Keerthi 1988) in van den Bergen's form (1999, alg. 1): the simplex
  // keeps the support points whose hull holds the point v closest to the origin; the next support
  // point is taken along −v. Returns true when the simplex encloses the origin or comes within
  // kEnclosingFraction of it; otherwise `simplex` holds the best v found.
  // With `handoff` > 0, gjk() stops unconverged after that many iterations and sets handed_off_
  // (see polish_separated()).
  bool gjk(Simplex& simplex, int handoff = 0) {
    stalled_ = false;
    handed_off_ = false;
    simplex.keep(simplex.closest(false));
    for (int iteration = 0; iteration < max_iterations_; ++iteration) {
      const double vv = simplex.v.squaredNorm();
      if (simplex.count == 4 || vv <= sq(kEnclosingFraction * scale_)) return true;
      if (iteration == 0 && simplex.count == 1 && exact_directions_) {
        // The one point w is M's support along its direction d, so −d̂·w bounds the distance
        // from below (the plane d·x = d·w separates the origin from M when positive) and |w|
        // from above. When they agree to the stopping rule below, with d̂ in place of −v̂, the
        // support along −v adds nothing: a warm start at a (nearly) unchanged pose ends here.
        if (one_point_certifies(simplex.points[0], vv, tolerance_, scale_)) break;
      }
      // Written into the simplex's free slot, where it is kept if it joins (count < 4 here).
      SupportPoint& p = simplex.points[simplex.count];
      support_into(-simplex.v, p);
      ++counters_.iterations;
      grow_scale(p.w);
      const double gap = vv - simplex.v.dot(p.w);
      if (gjk_converged(gap, vv, tolerance_, scale_)) break;
      // The hand-off to Newton (polish_separated) after `handoff` iterations, or sooner once the
      // support along −v comes within kGjkHandoffGap·|v|² of |v|² (the distance bounds agree
      // to about that fraction: −v̂ is a good start). The polish starts from −v̂ with this
      // support, p, as its first evaluation (simplex.points[simplex.count], outside the
      // simplex: GJK resumes without it if the polish does not end the query).
      if (handoff > 0 && (iteration + 1 > handoff || gap <= kGjkHandoffGap * vv)) {
        handed_off_ = true;
        return false;
      }
      bool repeated = false;
      for (int i = 0; i < simplex.count; ++i) {
        repeated = repeated ||
                   (p.w - simplex.points[i].w).squaredNorm() <= sq(4.0 * kMachineEpsilon * scale_);
      }
      if (repeated) break;  // no new support point: v cannot improve any more
      ++simplex.count;
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

  // One Newton step of the minimisation of h(m) = m·s_M(m) over unit m, from m with support
  // point p = s_M(m) and height h = m·p. In the chart u = m + a·t1 + b·t2 of the tangent plane
  // (t1, t2 completing m), h(u/|u|) has gradient g = (t1·p, t2·p) and Hessian J − h·I at the
  // origin, J the derivative of s_M along t1, t2 (the supports' closed-form derivatives: positive
  // semi-definite for a convex M). False when that Hessian is not positive definite (a flat
  // direction of a penetration, a saddle of h: no Newton step). Otherwise `next` is the new unit
  // direction and `decrease` the decrease of h the quadratic model predicts (half the Newton
  // decrement).
  bool newton_step(const Vec3& m, const SupportPoint& p, double h, Vec3& next, double& decrease,
                   double trust_radius = kPolishTrustRadius) {
    Vec3 t1, t2;
    complete_basis(m, t1, t2);
    double h11 = 0.0, h12 = 0.0, h22 = 0.0;
    m_.curvature(m, t1, t2, h11, h12, h22);
    h11 -= h;
    h22 -= h;
    const double det = h11 * h22 - h12 * h12;
    if (!(h11 > 0.0 && h22 > 0.0 && det > 0.0) || !std::isfinite(det)) return false;
    const double g1 = t1.dot(p.w);
    const double g2 = t2.dot(p.w);
    // (One division, one square root each for the step and its normalisation: their latency is
    // most of a step's time.)
    const double inverse_det = 1.0 / det;
    double a = -(h22 * g1 - h12 * g2) * inverse_det;
    double b = -(h11 * g2 - h12 * g1) * inverse_det;
    decrease = -0.5 * (a * g1 + b * g2);
    const double length2 = a * a + b * b;
    if (length2 > trust_radius * trust_radius) {
      const double shorten = trust_radius / std::sqrt(length2);
      a *= shorten;
      b *= shorten;
    }
    const Vec3 u = m + a * t1 + b * t2;
    next = u * (1.0 / std::sqrt(u.squaredNorm()));
    return std::isfinite(decrease) && next.allFinite();
  }

  // Separated cores whose closest points lie on a flat face of one of them (a cylinder's cap
  // over a box's corner, a cylinder's rim over a box's face): along that face's normal n the
  // support point q = s_M(n) gives the lower bound −h, h = n·q.w, as in polish_separated(), and
  // B's support point moved onto A's supporting plane, q.b + h·n, is a point of A when A's face
  // holds it (or A's moved onto B's plane, q.a − h·n, a point of B): that pair of points is at the
  // lower bound, the exact distance. Newton cannot get there: the support function has a kink at
  // n (the whole face is the support), where its steps overshoot and backtrack. Tries A's face
  // nearest to the unit direction m of M and B's nearest to −m; true with `out` set when one
  // certifies the distance. Out of line, as certify_face(): inlined, they made Solver::solve too
  // large to be inlined into solve_pair(), which slowed polytope queries by a fifth (box–box
  // separated, moving: 90 → 113 ns) though they never reach them.
  [[gnu::noinline]] bool face_certificate(const Vec3& m, CoreContact& out) {
    Vec3 n;
    return (m_.a_face_direction(m, n) && certify_face(n, true, out)) ||
           (m_.b_face_direction(m, n) && certify_face(n, false, out));
  }
  // face_certificate()'s test along the face normal n (a direction of M) of A's (on_a) or B's.
  [[gnu::noinline]] bool certify_face(const Vec3& n, bool on_a, CoreContact& out) {
    const SupportPoint q = support(n);
    ++counters_.iterations;
    grow_scale(q.w);
    const double h = n.dot(q.w);
    if (!(h < 0.0)) return false;  // n does not separate the cores
    const double slack = 8.0 * kMachineEpsilon * scale_;
    // (B as moved by refine()'s shift_, as q.b is)
    if (on_a ? !m_.a_contains(q.b + h * n, slack) : !m_.b_contains(q.a - h * n - shift_, slack)) {
      return false;
    }
    out.distance_m = -h;
    out.normal = n;
    out.point_a = on_a ? Vec3(q.b + h * n) : q.a;
    out.point_b = on_a ? q.b : Vec3(q.a - h * n);
    out.warm_count = 1;
    out.warm_directions[0] = n;
    return true;
  }

  // Separated cores, GJK handed over at simplex v: Newton steps on h from m = −v/|v|. Every
  // direction m gives a lower bound −h(m) of the distance (the plane m·x = h(m) separates the
  // origin from M) and every support point an upper bound |s|, as v does; the answer stands when
  // the best bounds agree to the tolerance (GJK's own stopping rule, so the result is as exact as
  // GJK's), with the support point of the best upper bound as the closest point. False otherwise
  // (a flat or kinked part of M, or overlapping cores): GJK resumes from `simplex`.
  // `first`: M's support along −v (a warm start's point), when known: the first evaluation
  // takes it instead of a support of its own.
  bool polish_separated(const Simplex& simplex, CoreContact& out,
                        const SupportPoint* first = nullptr) {
    double upper = simplex.v.norm();
    double lower = -std::numeric_limits<double>::infinity();
    Vec3 m = simplex.v * (-1.0 / upper);
    // The supports live in `slots` (or are `first`) and are referred to, not copied (two copies
    // of a support point per evaluation were a tenth of a cold cylinder query): `closest`, that
    // of the best upper bound, and `p`, the iterate's; a new one goes to a slot neither uses.
    std::array<SupportPoint, 3> slots;
    const SupportPoint* closest = nullptr;
    // The iterate m with its support p and height h; a trial direction replaces it only when it
    // raises the lower bound −h, else a step half as long is tried from m (from a start far from
    // the answer full steps overshoot).
    const SupportPoint* p = nullptr;
    double h = 0.0;
    double radius = kPolishTrustRadius;
    bool faces_tried = false;
    Vec3 trial = m;
    for (int evaluation = 0; evaluation < kPolishSeparatedEvaluations; ++evaluation) {
      const SupportPoint* q = first;
      if (evaluation > 0 || first == nullptr) {
        SupportPoint* slot = &slots[0];
        if (slot == closest || slot == p) slot = &slots[1];
        if (slot == closest || slot == p) slot = &slots[2];
        support_into(trial, *slot);
        ++counters_.iterations;
        q = slot;
      }
      grow_scale(q->w);
      const double h_trial = trial.dot(q->w);
      lower = std::max(lower, -h_trial);
      const double length = q->w.norm();
      if (length < upper) {
        upper = length;
        closest = q;
      }
      if (upper - lower <= tolerance_ * upper + 8.0 * kMachineEpsilon * scale_) {
        if (!(lower > 0.0)) return false;
        if (closest == nullptr) {
          out = separated(simplex);
          return true;
        }
        out.distance_m = upper;
        out.normal = closest->w * (-1.0 / upper);
        out.point_a = closest->a;
        out.point_b = closest->b;
        out.warm_count = 1;
        out.warm_directions[0] = closest->d;
        return true;
      }
      if (p != nullptr && !(-h_trial > -h)) {
        // No progress: a flat face's kink (face_certificate(), tried once), or else from m
        // again, half as far as this trial went (its chord, about the angle).
        if (!faces_tried) {
          faces_tried = true;
          if (face_certificate(m, out)) return true;
        }
        radius = 0.5 * std::min(radius, (trial - m).norm());
        if (radius < kPolishMinRadius) return false;
      } else {
        if (p != nullptr) radius = std::min(kPolishTrustRadius, 2.0 * radius);
        m = trial;
        p = q;
        h = h_trial;
      }
      if (evaluation >= 2 && !(lower > 0.0)) return false;  // most likely overlapping
      double decrease = 0.0;
      if (!newton_step(m, *p, h, trial, decrease, radius)) {
        return !faces_tried && face_certificate(m, out);
      }
    }
    return false;
  }

  // Curved cores in contact, EPA's depth bounds within kEpaHandoffFraction: Newton steps on h
  // from the direction of EPA's lowest support height. Each height is an upper bound of the
  // depth; the answer is the stationary point of h at which the step's predicted decrease is
  // below the tolerance. EPA has bracketed the global minimum of h to kEpaHandoffFraction of the
  // size, and Newton from the bracket's direction finds the local minimum there, which is the
  // depth unless h has another local minimum within that bracket. False (EPA goes on) when a
  // Hessian is not positive definite (kinks: edges of cylinders and cones), a step does not
  // lower h or the steps run out.
  bool polish_penetration(CoreContact& out) {
    Vec3 m = upper_direction_;
    SupportPoint p = upper_point_;
    double h = upper_bound_;
    const double enough = tolerance_ * scale_ + 8.0 * kMachineEpsilon * scale_;
    for (int iteration = 0; iteration < kPolishIterations; ++iteration) {
      Vec3 next;
      double decrease = 0.0;
      if (!newton_step(m, p, h, next, decrease)) return false;
      const bool converged = decrease <= enough;
      const SupportPoint q = support(next);
      ++counters_.iterations;
      const double height = next.dot(q.w);
      if (height <= h) {
        m = next;
        p = q;
        h = height;
      } else if (!converged) {
        return false;  // the model does not describe h here
      }
      if (converged) {
        if (!(h > 0.0)) return false;
        out.distance_m = -h;
        out.normal = m;
        set_witnesses(out, p.a, p.b);
        return true;
      }
    }
    return false;
  }

  static double sq(double x) { return x * x; }
  void grow_scale(const Vec3& w) {
    const double w2 = w.squaredNorm();
    if (w2 > scale_ * scale_) scale_ = std::sqrt(w2);
  }
  double flat_length() const { return kFlatFraction * scale_; }

  CoreContact separated(const Simplex& simplex) const {
    // A single closest point: its own warm direction (see one_point_contact).
    if (simplex.count == 1) return one_point_contact(simplex.points[0], polytope_cores_);
    CoreContact c;
    const Vec3 a = simplex.point_a();
    const Vec3 b = simplex.point_b();
    const Vec3 v = a - b;  // closest point of M to the origin
    c.distance_m = v.norm();
    c.normal = v * (-1.0 / c.distance_m);  // one division off the critical path, not three
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
    if (cold_seeds_ != nullptr && seed_count_ == 0) {
      seed_count_ = cold_seeds_->fill(cold_buffer_);
      seeds_ = cold_buffer_;
    }
    if (seed_count_ > 0) insert_seeds();
    return expand_polytope(simplex);
  }

  // Adds the seed points outside the polytope, each through the expansion EPA uses for its
  // supports. A failed expansion (rounding) restores the tetrahedron without seeds.
  void insert_seeds() {
    for (int i = 0; i < seed_count_; ++i) {
      if (2 * (ws_.vertex_count + 1) >= ws_.vertex_capacity) break;
      const SupportPoint& q = seeds_[i];
      grow_scale(q.w);
      int start = -1;
      double most = 1e-9 * scale_;  // closer seeds add nothing EPA needs
      for (int f = 0; f < ws_.face_slots; ++f) {
        const Face& face = ws_.faces[f];
        if (!face.alive) continue;
        const double above = face.n.dot(q.w) - face.d;
        if (above > most) {
          most = above;
          start = f;
        }
      }
      if (start < 0) continue;
      add_vertex(q);
      if (!expand(start, ws_.vertex_count - 1)) {
        ws_.vertex_count = 4;
        if (!build_tetrahedron()) counters_.degenerate = true;  // built from these four before
        return;
      }
    }
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
      // The longest edge: one square root of the largest squared length (the same number, the
      // square root being monotonic and correctly rounded).
      double longest2 = 0.0;
      for (int i = 0; i < 4; ++i) {
        for (int j = i + 1; j < 4; ++j) longest2 = std::max(longest2, (w(i) - w(j)).squaredNorm());
      }
      const double longest = std::sqrt(longest2);
      if (std::abs(volume) <= len * longest * longest) reduce_flat_tetrahedron();
    }
    if (ws_.vertex_count == 3) {
      const double area2 = (w(1) - w(0)).cross(w(2) - w(0)).norm();
      const double longest = std::sqrt(std::max(
          {(w(1) - w(0)).squaredNorm(), (w(2) - w(1)).squaredNorm(), (w(2) - w(0)).squaredNorm()}));
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

  // The four faces of a tetrahedron, outward when its vertices 0, 1, 2, 3 have a positive
  // volume (w1 − w0)·((w2 − w0) × (w3 − w0)), and the neighbour across each edge e = (v[e], v[e+1])
  // with that edge's index in the neighbour. A negative volume swaps vertices 1 and 2.
  bool build_tetrahedron() {
    static constexpr int kFaces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    static constexpr int kNeighbours[4][3] = {{2, 3, 1}, {0, 3, 2}, {1, 3, 0}, {0, 2, 1}};
    static constexpr int kNeighbourEdges[4][3] = {{2, 0, 0}, {2, 2, 0}, {2, 1, 0}, {1, 1, 1}};
    const double volume = (w(1) - w(0)).dot((w(2) - w(0)).cross(w(3) - w(0)));
    if (!(volume != 0.0)) return false;
    const std::array<int, 4> vertex =
        volume > 0.0 ? std::array<int, 4>{0, 1, 2, 3} : std::array<int, 4>{0, 2, 1, 3};
    interior_ = 0.25 * (w(0) + w(1) + w(2) + w(3));  // stays interior: the polytope only grows
    ws_.face_slots = 4;
    ws_.free_count = 0;
    for (int f = 0; f < 4; ++f) {
      Face& face = ws_.faces[f];
      for (int e = 0; e < 3; ++e) {
        face.v[e] = vertex[kFaces[f][e]];
        face.adj[e] = kNeighbours[f][e];
        face.adj_edge[e] = kNeighbourEdges[f][e];
      }
      // Oriented by the volume's sign, checked against the centroid (not the origin, which may
      // lie on a face when the shapes touch, mujoco_warp #1526).
      if (!set_plane(face) || face.n.dot(interior_ - w(face.v[0])) > 0.0) return false;
      face.alive = true;
      ws_.face_distance[f] = face.d;
    }
    return true;
  }

  // Unit normal and offset of a face from its winding; false for a degenerate triangle.
  bool set_plane(Face& face) const { return set_plane(face, ws_.vertices.data()); }
  static bool set_plane(Face& face, const SupportPoint* vertices) {
    const Vec3& p0 = vertices[face.v[0]].w;
    const Vec3& p1 = vertices[face.v[1]].w;
    const Vec3& p2 = vertices[face.v[2]].w;
    const Vec3 e1 = p1 - p0;
    const Vec3 e2 = p2 - p0;
    const Vec3 n = e1.cross(e2);
    const double length2 = n.squaredNorm();
    // sin(angle) between the edges below ~1e-14: the normal would be rounding noise.
    if (!(length2 > sq(64.0 * kMachineEpsilon) * e1.squaredNorm() * e2.squaredNorm())) {
      return false;
    }
    face.n = n / std::sqrt(length2);
    face.d = face.n.dot(p0 + p1 + p2) / 3.0;
    return true;
  }

  // EPA (van den Bergen 2001, §4): repeatedly take the face nearest to the origin, find M's
  // support point along its normal, and stop when that point lies within tolerance of the face's
  // plane; otherwise replace the faces it sees by a fan of faces to it.
  CoreContact expand_polytope(const Simplex& simplex) {
    polytope_used_ = true;
    epa_converged_ = false;
    face_normal_off_ = false;
    bool intact = true;
    // Polishing is tried when the bounds first agree to kEpaHandoffFraction and, if it fails
    // there, once more at kEpaRetryFraction.
    double polish_gap = kEpaHandoffFraction * scale_;
    CoreContact polished;
    upper_bound_ = std::numeric_limits<double>::infinity();
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
      best_face_ = ws_.faces[nearest];  // vertices stay put: their indices remain valid
      if (iteration >= max_iterations_ || ws_.vertex_count >= ws_.vertex_capacity) {
        counters_.hit_limit = true;
        break;
      }
      const Face& face = ws_.faces[nearest];
      SupportPoint p = m_.support_near(face.n, ws_.vertices[face.v[0]], ws_.vertices[face.v[1]],
                                       ws_.vertices[face.v[2]]);
      p.b += shift_;
      p.w -= shift_;
      ++counters_.iterations;
      grow_scale(p.w);
      // Every support height h(n) = n·s(n) bounds the depth from above and the nearest face's
      // distance d bounds it from below (the polytope is inside M): stop when the lowest height
      // seen and d agree to the tolerance (the normalised form of the test that libccd#44 and
      // FCL#301 found unnormalised; the lowest height instead of the current one ends curved
      // cores sooner, whose heights do not fall monotonically).
      const double height = face.n.dot(p.w);
      if (height < upper_bound_) {
        upper_bound_ = height;
        upper_direction_ = face.n;
        upper_point_ = p;
      }
      bool done = upper_bound_ - face.d <= epa_tolerance_ * scale_;
      for (int i = 0; i < 3; ++i) {  // a support point already on the face: nothing to gain
        done = done || (p.w - w(face.v[i])).squaredNorm() <= sq(4.0 * kMachineEpsilon * scale_);
      }
      if (done) {
        epa_converged_ = true;
        face_normal_off_ = !polytope_cores_ && height - face.d > kFaceNormalFraction * scale_;
        break;
      }
      if (!polytope_cores_ && upper_bound_ - face.d <= polish_gap) {
        polish_gap = polish_gap > kEpaRetryFraction * scale_ ? kEpaRetryFraction * scale_ : -1.0;
        if (polish_penetration(polished) &&
            !(flat_found_ && flat_height_ < -polished.distance_m - tolerance_ * scale_)) {
          epa_converged_ = true;
          polished.warm_count = 4;  // EPA's initial tetrahedron, as face_contact() keeps it
          for (int i = 0; i < 4; ++i) polished.warm_directions[i] = ws_.vertices[i].d;
          return polished;
        }
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
  std::array<double, 3> barycentric(const Face& face, const Vec3& p) const {
    const Vec3& w0 = w(face.v[0]);
    const Vec3& w1 = w(face.v[1]);
    const Vec3& w2 = w(face.v[2]);
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
    double inside = smallest(barycentric(best_face_, p));
    if (inside >= 0.0) return;
    for (int f = 0; f < ws_.face_slots; ++f) {
      const Face& face = ws_.faces[f];
      if (!face.alive || std::abs(face.d - best_face_.d) > 64.0 * kMachineEpsilon * scale_ ||
          (face.n - best_face_.n).norm() > 1e-9) {
        continue;
      }
      const double candidate = smallest(barycentric(face, p));
      if (candidate > inside) {
        inside = candidate;
        best_face_ = face;
      }
    }
  }

  int nearest_face() const {
    int nearest = -1;
    double nearest_d = std::numeric_limits<double>::infinity();
    const double* distance = ws_.face_distance.data();
    for (int f = 0; f < ws_.face_slots; ++f) {
      if (distance[f] < nearest_d) {
        nearest_d = distance[f];
        nearest = f;
      }
    }
    return nearest;
  }

  // Removes every face that sees vertex `apex` and closes the hole with a fan of faces from the
  // horizon to the apex. The visible faces are found by a depth-first walk across edges from the
  // nearest face, each face entered through one edge leaving through the next two in winding
  // order: on a visible region that is a disc this meets the horizon edges in order around it
  // (the silhouette walk of van den Bergen 2001 and Bullet's EPA), so consecutive fan faces are
  // neighbours. False if the horizon is not one simple loop (rounding misjudged a visibility).
  bool expand(int start, int apex) {
    // The workspace's arrays by their data pointers (fixed: nothing here reallocates), loaded once
    // instead of at every access.
    Face* const faces = ws_.faces.data();
    double* const face_distance = ws_.face_distance.data();
    Workspace::WalkStep* const stack = ws_.stack.data();
    int* const removed_faces = ws_.removed.data();
    Workspace::HorizonEdge* const horizon_edges = ws_.horizon.data();
    int* const free_faces = ws_.free_faces.data();
    std::int64_t* const round_of_vertex = ws_.round_of_vertex.data();
    const SupportPoint* const vertices = ws_.vertices.data();
    const double visible = 16.0 * kMachineEpsilon * scale_;
    const Vec3& q = vertices[apex].w;
    int removed = 0;
    int stacked = 0;
    int horizon = 0;
    faces[start].alive = false;
    face_distance[start] = std::numeric_limits<double>::infinity();
    removed_faces[removed++] = start;
    // Stack entries: (face, edge it was entered through); popped in the recursion's order.
    for (int e = 2; e >= 0; --e) {
      stack[stacked++] = {faces[start].adj[e], faces[start].adj_edge[e]};
    }
    while (stacked > 0) {
      const auto [h, entry] = stack[--stacked];
      Face& face = faces[h];
      if (!face.alive) continue;
      if (face.n.dot(q) - face.d > visible) {
        face.alive = false;
        face_distance[h] = std::numeric_limits<double>::infinity();
        removed_faces[removed++] = h;
        const int second = entry == 0 ? 2 : entry - 1;  // (entry + 2) % 3, walked last
        const int first = entry == 2 ? 0 : entry + 1;   // (entry + 1) % 3
        stack[stacked++] = {face.adj[second], face.adj_edge[second]};
        stack[stacked++] = {face.adj[first], face.adj_edge[first]};
      } else {
        // The kept face's edge `entry` runs (to → from) in the removed face's winding.
        const int from = face.v[entry == 2 ? 0 : entry + 1];
        const int to = face.v[entry];
        horizon_edges[horizon++] = {h, entry, from, to};
      }
    }
    if (horizon < 3) return false;
    // The free list's length in a local (the int stores into the arrays could alias the
    // member), written back before every return from here on.
    int free_count = ws_.free_count;
    for (int i = 0; i < removed; ++i) free_faces[free_count++] = removed_faces[i];
    ws_.free_count = free_count;

    // One simple loop: each edge starts where the last one ended, no vertex twice.
    const std::int64_t round = ++ws_.round;
    for (int k = 0; k < horizon; ++k) {
      const Workspace::HorizonEdge& edge = horizon_edges[k];
      if (edge.to != horizon_edges[k + 1 == horizon ? 0 : k + 1].from) return false;
      if (round_of_vertex[edge.from] == round) return false;
      round_of_vertex[edge.from] = round;
    }

    int first_new = -1;
    int previous = -1;
    for (int k = 0; k < horizon; ++k) {
      const Workspace::HorizonEdge& edge = horizon_edges[k];
      int f = 0;
      if (free_count > 0) {
        f = free_faces[--free_count];
      } else if (ws_.face_slots < ws_.face_capacity) {
        f = ws_.face_slots++;
      } else {
        ws_.free_count = free_count;
        return false;
      }
      Face& face = faces[f];
      face.v = {edge.from, edge.to, apex};
      face.adj[0] = edge.face;
      face.adj_edge[0] = edge.edge;
      faces[edge.face].adj[edge.edge] = f;
      faces[edge.face].adj_edge[edge.edge] = 0;
      // Edge 1 (to → apex) meets the next fan face's edge 2 (apex → its from = our to).
      if (previous >= 0) {
        face.adj[2] = previous;
        face.adj_edge[2] = 1;
        faces[previous].adj[1] = f;
        faces[previous].adj_edge[1] = 2;
      } else {
        first_new = f;
      }
      previous = f;
      // A fan face folded over its horizon edge (the apex projects outside the removed region
      // and rounding misjudged a nearly coplanar neighbour) faces the interior: give up.
      if (!set_plane(face, vertices) || !(face.n.dot(interior_ - q) < 0.0)) {
        ws_.free_count = free_count;
        return false;
      }
      face.alive = true;
      face_distance[f] = face.d;
    }
    faces[previous].adj[1] = first_new;
    faces[previous].adj_edge[1] = 2;
    faces[first_new].adj[2] = previous;
    faces[first_new].adj_edge[2] = 1;
    ws_.free_count = free_count;
    return true;
  }

  void remove_face(int f) {
    ws_.faces[f].alive = false;
    ws_.face_distance[f] = std::numeric_limits<double>::infinity();
  }

  // The contact on EPA's nearest face: the origin projected on its plane, witness points from the
  // barycentric coordinates of that projection.
  CoreContact face_contact() const {
    const Face& face = best_face_;
    std::array<double, 3> lambda = barycentric(face, face.d * face.n);
    // Outside the face only when the origin is outside M (a touching contact): clamp.
    double sum = 0.0;
    for (double& l : lambda) sum += (l = std::clamp(l, 0.0, 1.0));
    Vec3 a = Vec3::Zero();
    Vec3 b = Vec3::Zero();
    for (int i = 0; i < 3; ++i) {
      a += (lambda[i] / sum) * ws_.vertices[face.v[i]].a;
      b += (lambda[i] / sum) * ws_.vertices[face.v[i]].b;
    }
    CoreContact c;
    c.distance_m = -face.d;
    c.normal = face.n;
    set_witnesses(c, a, b);
    // Warm start after EPA: the support directions of the face's corners and the direction
    // opposite its normal. At an unchanged or nearby pose GJK finds these four points enclosing
    // the origin (the far support closes a tetrahedron through the whole of M), and EPA starts
    // from a polytope that already holds the contact face: it ends after a step or two. The face's
    // corners alone would leave GJK a sliver tetrahedron around the contact, from which EPA
    // converges markedly slower on curved cores than from a cold start (measured: 2× the
    // iterations).
    // On curved cores the face is one of many tiny facets, and the warm start is EPA's initial
    // tetrahedron instead: the same start as cold at a nearby pose, found without GJK iterations.
    c.warm_count = 4;
    if (vertex_pair_) {
      set_warm_pairs(face, c);
      if (c.warm_pair_count > 0) return c;
    }
    if (polytope_cores_) {
      for (int i = 0; i < 3; ++i) c.warm_directions[i] = ws_.vertices[face.v[i]].d;
      c.warm_directions[3] = -face.n;
    } else {
      for (int i = 0; i < 4; ++i) c.warm_directions[i] = ws_.vertices[i].d;
    }
    return c;
  }

  // The packed vertex pairs of kCacheCount for the contact face `face`: its corners, the polytope
  // vertex lowest along its normal, then the others by the distance of the nearest live face
  // they belong to (the faces next to the contact, which EPA would otherwise find again).
  void set_warm_pairs(const Face& face, CoreContact& c) const {
    const auto pack = [this](int i) {
      return static_cast<double>(m_.vertex_a(ws_.vertices[i])) +
             kVertexPacking * static_cast<double>(m_.vertex_b(ws_.vertices[i]));
    };
    double* rank = ws_.vertex_rank.data();
    int lowest = -1;
    double lowest_h = std::numeric_limits<double>::infinity();
    for (int i = 0; i < ws_.vertex_count; ++i) {
      rank[i] = std::numeric_limits<double>::infinity();
      const double h = face.n.dot(w(i));
      if (h < lowest_h) {
        lowest_h = h;
        lowest = i;
      }
    }
    if (lowest < 0 || lowest == face.v[0] || lowest == face.v[1] || lowest == face.v[2]) return;
    for (int f = 0; f < ws_.face_slots; ++f) {
      const double d = ws_.face_distance[f];  // +∞ for removed faces
      if (!(d < std::numeric_limits<double>::infinity())) continue;
      for (int e = 0; e < 3; ++e) {
        double& r = rank[ws_.faces[f].v[e]];
        r = std::min(r, d);
      }
    }
    for (int i = 0; i < 3; ++i) rank[face.v[i]] = std::numeric_limits<double>::infinity();
    rank[lowest] = std::numeric_limits<double>::infinity();
    constexpr int kExtra = kMaxWarmPairs - 4;
    std::array<int, kExtra> top{};
    std::array<double, kExtra> top_r{};
    int tops = 0;
    for (int i = 0; i < ws_.vertex_count; ++i) {
      const double r = rank[i];
      if (!(r < std::numeric_limits<double>::infinity())) continue;
      // Insertion into the kExtra lowest ranks, in increasing rank.
      int k = tops < kExtra ? tops++ : kExtra;
      if (k == kExtra) {
        if (!(r < top_r[kExtra - 1])) continue;
        k = kExtra - 1;
      }
      while (k > 0 && top_r[k - 1] > r) {
        top[k] = top[k - 1];
        top_r[k] = top_r[k - 1];
        --k;
      }
      top[k] = i;
      top_r[k] = r;
    }
    int count = 0;
    for (int i = 0; i < 3; ++i) c.warm_pairs[count++] = pack(face.v[i]);
    c.warm_pairs[count++] = pack(lowest);
    for (int k = 0; k < tops; ++k) c.warm_pairs[count++] = pack(top[k]);
    c.warm_pair_count = count;
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

  CoreDifference& m_;
  double tolerance_;
  double epa_tolerance_;      // relative accuracy of EPA's depth (see kCurvedEpaFraction)
  bool polytope_cores_;       // both cores are polytopes
  bool vertex_pair_ = false;  // a hull with a hull or box: the warm start keeps vertex pairs
  const SupportPoint* seeds_ = nullptr;
  int seed_count_ = 0;
  const ColdSeeds* cold_seeds_ = nullptr;
  SupportPoint* cold_buffer_ = nullptr;
  bool exact_directions_ = false;  // see set_seeds()
  int max_iterations_;
  Workspace& ws_;
  QueryCounters& counters_;
  double scale_ = 0.0;
  // Left uninitialised (a warm separated query is a few hundred instructions, and these are
  // ~30 stores of it): penetration() sets hint_, up_ and the anchors, note_flat() the flat
  // direction with flat_found_, build_tetrahedron() interior_, EPA upper_direction_ with a finite
  // upper_bound_ and best_face_ before any use.
  Vec3 hint_;
  Vec3 up_;
  Vec3 anchor_a_;
  Vec3 anchor_b_;
  bool flat_found_ = false;
  double flat_height_ = 0.0;
  Vec3 flat_direction_;
  Vec3 shift_ = Vec3::Zero();
  Vec3 interior_;
  bool stalled_ = false;     // the last gjk() stopped at the rounding floor far from the tolerance
  bool handed_off_ = false;  // the last gjk() stopped after its handoff iterations
  bool polytope_used_ = false;
  bool epa_converged_ = false;
  // EPA converged on a curved core, but the support height along its nearest face's normal exceeds
  // that face's distance by more than kFaceNormalFraction of the size (a minimum on a kink of M).
  bool face_normal_off_ = false;
  // The lowest support height EPA met, an upper bound of the depth, its direction and point.
  double upper_bound_ = std::numeric_limits<double>::infinity();
  Vec3 upper_direction_;
  SupportPoint upper_point_;  // set with upper_bound_
  Face best_face_;            // a copy: its slot may be reused by the expansion that follows
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
      workspace_(std::make_unique<Workspace>(max_iterations_)) {
  if (params.contains("manifold_points")) {
    const std::int64_t points = params.integer("manifold_points");
    if (points < 1 || points > max_manifold_points) {
      throw InputError("gjk_epa narrow phase: params.manifold_points is " + std::to_string(points) +
                       "; expected 1.." + std::to_string(max_manifold_points));
    }
    manifold_points_ = static_cast<int>(points);
  }
}

GjkEpaNarrowPhase::~GjkEpaNarrowPhase() = default;

ParameterSchema GjkEpaNarrowPhase::schema() {
  return {
      real_parameter("tolerance", 1e-12, 0.0, 1e-2, "",
                     "relative accuracy of distances and penetration depths; on curved cores "
                     "(ellipsoid, cylinder, cone, beam) GJK and EPA hand over to Newton steps on "
                     "the support function, and EPA alone (minima on kinks) stops at 1e-11 of the "
                     "shape size when this is smaller"),
      integer_parameter("max_iterations", 512, 4, 100000,
                        "iteration limit of each GJK and each EPA run (best result so far "
                        "beyond); EPA's polytope is sized for it. EPA on a kinked curved minimum "
                        "(cylinder rims, side lines) took up to ~150 iterations"),
      integer_parameter(
          "manifold_points", 1, 1, max_manifold_points,
          "contact points per pair: 1 keeps the deepest point; 2..4 add the other points of a "
          "line or face contact (a cylinder, cone or capsule lying on its side, a cap or a face "
          "on a face) by clipping the shapes' supporting features "
          "(contactlab/geometry/manifold.hpp), so "
          "resting bodies do not rock on one point; the deepest first, then the spread of the "
          "patch"),
  };
}

bool GjkEpaNarrowPhase::supports(ShapeType a, ShapeType b) const {
  return !(a == ShapeType::half_space && b == ShapeType::half_space);
}

namespace {

// A cold start between polytope cores, begun in query(): the support along the line from M's
// interior point to the origin (direction d_A) and, when GJK's first iteration kept it, the support
// that iteration took (cold_first_iteration()).
struct ColdStart {
  std::array<SupportPoint, 2> points;
  int count;  // set with the points (begin_cold())
  Vec3 d_A;
  // A face certificate's answer (face_step()): the vertex pairs of the face's corners with the
  // other hull's vertex, packed as the cache keeps them (kCacheCount), and how many (0: none).
  std::array<double, 4> face_pairs;
  int face_pair_count = 0;
  // A penetration certificate's answer (penetration_at_face()): the depth (> 0) and the
  // contact normal from A to B, the witnesses in points[0].a and points[0].b.
  double depth = 0.0;
  Vec3 normal;
  // face_step() ran the face certificate (which also tries penetration_at_face()).
  bool faces_tried = false;
  // A tetrahedron of points of M holding the origin, from a penetration certificate that did
  // not hold (penetration_at_face()): GJK's enclosing simplex, for EPA at once.
  std::array<SupportPoint, 4> enclosing;
  bool has_enclosing = false;
};

// The support GJK's first iteration takes from one point p of M, with Solver::solve's scale for
// cores swept by `sweep`: false when p is not separated beyond kSeparatedFraction of the scale
// (or not finite), no support taken; else M's support along −p.w in q, vv = |p.w|², gap = vv −
// p.w·q.w (GJK's stopping rule's left side) and the scale grown by q (Solver::grow_scale).
bool first_support(CoreDifference& difference, const SupportPoint& p, double sweep, SupportPoint& q,
                   double& vv, double& gap, double& scale) {
  vv = p.w.squaredNorm();
  scale = std::sqrt(std::max(sweep * sweep, vv));  // as Solver::solve
  if (!(vv > kSeparatedFraction * kSeparatedFraction * scale * scale)) return false;
  difference.support_into(-p.w, q);
  const double qq = q.w.squaredNorm();
  if (qq > scale * scale) scale = std::sqrt(qq);  // Solver::grow_scale
  gap = vv - p.w.dot(q.w);
  return true;
}

// GJK's first iteration from a cold start's one point between polytope cores, as Solver::gjk takes
// it (with Solver::solve's scale): true when its stopping rule holds at once (the first support is
// the closest point: a vertex–vertex contact), which needs no solver set-up; otherwise the support
// point it took joins `start` when it lowers |v|, and the solver goes on exactly as gjk() would.
// Run in query(), whose frame is small: the set-up of solve_pair()'s was a fifth of such a query.
bool cold_first_iteration(CoreDifference& difference, ColdStart& start, double sweep,
                          double tolerance, QueryCounters& counters) {
  const SupportPoint& p = start.points[0];
  SupportPoint& q = start.points[1];
  double vv, gap, scale;
  if (!first_support(difference, p, sweep, q, vv, gap, scale)) return false;
  const double separated2 = kSeparatedFraction * kSeparatedFraction;
  const bool stop = gjk_converged(gap, vv, tolerance, scale) ||
                    (q.w - p.w).squaredNorm() <= (4.0 * kMachineEpsilon * scale) *
                                                     (4.0 * kMachineEpsilon * scale);  // repeated
  if (stop && vv > separated2 * scale * scale) {
    ++counters.iterations;
    return true;
  }
  if (!stop && sub_segment(start.points.data(), 0, 1).vv < vv) {
    start.count = 2;
    ++counters.iterations;
  }
  return false;
}

// Cores with a box or a cylinder among them (clampable: their nearest point to any point has a
// closed form), the other core's closest feature a point (a vertex over a box's face, edge or
// corner, how a box rests on a box or a hull; a vertex or a rim point over a cylinder's cap or
// side or at its rim): clamping that point to the clampable core gives that core's nearest point
// c, and the support point s of M along n = (point − c)/|point − c| bounds the distance from below
// by −n·s.w (the plane n·x = n·s.w separates the origin from M) while the pair (c, point) bounds
// it from above by |point − c|. When they agree to GJK's stopping rule the pair is the answer,
// written into `out` as a point of M (out.a on A, out.b on B). Else s's point on the other core
// is the next candidate, for up to kClampSteps clamps; two edges closest to each other are left to
// GJK. With two clampable cores the steps clamp into A and into B in turn. Starts from the support
// point `from`; `scale` is the problem's size (as Solver::solve's).
// Where a face of M holds the closest point (a vertex over a face), GJK needs four or five
// supports to find three of its corners; the clamp takes one or two. Callgrind per query,
// benchmark face poses, cold: box–box separated 4,663 → 1,118 (mean iterations 4.9 → 1.0, the
// start's support not counted), box–hull32 separated 7,716 → 1,788 (5.8 → 1.3); warm (GJK's
// three cached directions before): 2,132 → 1,171 and 2,746 → 1,465. Default (vertex–vertex)
// poses, cold: 1,224 → 1,216 and 3,784 → 3,462.
constexpr int kClampSteps = 3;
bool clamp_certificate(CoreDifference& difference, const SupportPoint& from, double scale,
                       double tolerance, QueryCounters& counters, SupportPoint& out) {
  const double separated2 = kSeparatedFraction * kSeparatedFraction * scale * scale;
  const bool clamp_a = difference.a_clampable();  // B's point clamped to A's core
  const bool clamp_b = difference.b_clampable();  // A's point clamped to B's core
  Vec3 a = from.a, b = from.b;                    // the start's vertices, then the last support's
  std::uint32_t vertex_a = from.vertex_a, vertex_b = from.vertex_b;  // (of a hull among them)
  for (int step = 0; step < kClampSteps; ++step) {
    // The pair as a point v = a − b of M: A's nearest point to b, or a and B's nearest point to
    // a; with two clampable cores A's at even steps, B's at odd ones (a vertex over A's face
    // takes one step, a vertex over B's face two).
    if (clamp_a && (!clamp_b || step % 2 == 0)) {
      a = difference.nearest_on_a(b);
    } else {
      b = difference.nearest_on_b(a);
    }
    const Vec3 v = a - b;
    const double vv = v.squaredNorm();
    if (!(vv > separated2)) return false;  // touching or overlapping: GJK and EPA decide
    SupportPoint& s = out;                 // M's support along −v (out is rewritten on success)
    difference.support_into(-v, s);
    ++counters.iterations;
    if (gjk_converged(vv - v.dot(s.w), vv, tolerance, scale)) {  // GJK's rule, support along −v
      out.a = a;
      out.b = b;
      out.w = v;
      out.d = -v;
      out.vertex_a = vertex_a;
      out.vertex_b = vertex_b;
      return true;
    }
    a = s.a;
    b = s.b;
    vertex_a = s.vertex_a;
    vertex_b = s.vertex_b;
  }
  return false;
}

// The clamp certificate (clamp_certificate()) from the point start.points[0] of M, when a box or a
// cylinder is among the cores. True when it ends the query at start.points[0].
bool clamp_step(CoreDifference& difference, ColdStart& start, double sweep, double tolerance,
                QueryCounters& counters) {
  if (!difference.a_clampable() && !difference.b_clampable()) return false;
  const SupportPoint& p = start.points[0];
  const double scale = std::sqrt(std::max(sweep * sweep, p.w.squaredNorm()));  // Solver::solve
  if (!clamp_certificate(difference, p, scale, tolerance, counters, start.points[1])) return false;
  start.points[0] = start.points[1];
  return true;
}

// Whether the origin lies in the pyramid with the convex base t[0..count) (in order around it) and
// the apex w at least `depth` (> 0) from each of its faces through w. (The caller's construction
// puts the origin `depth` below the base's plane and w below the origin.)
bool sides_at_least(const std::array<Vec3, 4>& t, int count, const Vec3& w, double depth) {
  for (int e = 0; e < count; ++e) {
    const Vec3& p = t[e];
    const Vec3& q = t[(e + 1) % count];
    const Vec3& r = t[(e + 2) % count];
    Vec3 m = (q - p).cross(w - p);
    if (m.dot(r - p) > 0.0) m = -m;  // outward: away from the base's next corner
    // The plane m·x = m·p: the origin lies inside it, `depth` from it at least, when
    // m·p ≥ depth·|m| (compared in squares, m·p > 0).
    const double offset = m.dot(p);
    if (!(offset > 0.0 && offset * offset >= depth * depth * m.squaredNorm())) return false;
  }
  return true;
}

// Writes a penetration certificate's answer into `start`: the other core's point s pressed `depth`
// under the face or cap of A's core (of B's when !on_a) whose plane has M's normal n (A to B);
// the witnesses are s and its foot on that plane. No face pairs (the face certificate adds them).
[[gnu::always_inline]] inline void certified_penetration(bool on_a, const Vec3& s, const Vec3& n,
                                                         double depth, std::uint32_t vertex_a,
                                                         std::uint32_t vertex_b, ColdStart& start,
                                                         QueryCounters& counters) {
  SupportPoint& out = start.points[0];
  out.a = on_a ? Vec3(s + depth * n) : s;
  out.b = on_a ? s : Vec3(s - depth * n);
  out.w = out.a - out.b;
  out.d = n;
  out.vertex_a = vertex_a;
  out.vertex_b = vertex_b;
  start.face_pair_count = 0;
  start.depth = depth;
  start.normal = n;
  start.count = 1;
  ++counters.iterations;
}

// A vertex pressed into a face (a first contact of resting polytopes): the face `face` of A's
// hull or box (of B's when !on_a) under the other core's point s, with outward normal n. When s is
// the other core's support point along −n (a hull's vertex of p with no neighbour lower, or a
// box's corner), M's support height along n is h = o − n·s (the face's plane is its core's
// support plane along n), so the depth is at most h. The face's corners t_i less s are points of
// M on that plane, and so is the difference c of the cores' interior points, below it: when the
// origin lies in the pyramid (t_i − s; c) at least h from each of its faces, its distance to M's
// boundary is at least h as well (the pyramid lies in M). Then h is the depth, exactly, n (minus
// B's normal) the normal and s, s + h·n the witnesses: a face look-up and a test of s's
// neighbours instead of GJK's four supports and EPA's expansion. True with the answer in `start`
// (depth, normal, points[0], and face_pairs when a hull is among the cores).
bool penetration_at_face(const CoreDifference& difference, bool on_a, std::uint32_t face,
                         const SupportPoint& p, ColdStart& start, QueryCounters& counters) {
  CoreFace f;
  difference.face_plane(on_a, face, f);
  std::uint32_t s_vertex = on_a ? p.vertex_b : p.vertex_a;
  Vec3 s;
  if (!difference.support_at(!on_a, -f.n, s_vertex, s)) return false;
  const Vec3 n = on_a ? f.n : Vec3(-f.n);  // M's normal: from A to B
  const double depth = f.offset - f.n.dot(s);
  if (!(depth > 0.0)) return false;
  const Vec3 c = difference.interior_difference();
  const double c_height = n.dot(c);
  if (!(c_height < 0.0)) return false;
  // The origin lies in the pyramid only if the line from its apex c through the origin meets the
  // base plane (depth above the origin along n) inside the base: a 2-D test on a box's face
  // that rejects most vertex–vertex contacts before the corners and the side planes.
  if (on_a ? difference.a_is_box() : difference.b_is_box()) {
    const Vec3 hit = c * (depth / c_height);  // on the base's plane, in t's coordinates
    const double slack = 8.0 * kMachineEpsilon * (depth + c.norm() + s.norm());
    if (!difference.box_face_holds(on_a, face, on_a ? Vec3(s + hit) : Vec3(s - hit), slack)) {
      return false;
    }
  }
  difference.face_corners(on_a, face, f);
  std::array<Vec3, 4> t;
  for (int k = 0; k < f.count; ++k) t[k] = on_a ? Vec3(f.corners[k] - s) : Vec3(s - f.corners[k]);
  if (!sides_at_least(t, f.count, c, depth)) {
    // The origin may still lie in a tetrahedron of the face's corners less s and c: GJK's
    // enclosing simplex, which EPA then expands (solve_pair()) without GJK's four supports.
    for (int first = 1; first + 1 < f.count && !start.has_enclosing; ++first) {
      const std::array<Vec3, 4> base = {t[0], t[first], t[first + 1], Vec3::Zero()};
      if (!sides_at_least(base, 3, c, 0.0)) continue;
      const std::array<int, 3> corner = {0, first, first + 1};
      for (int k = 0; k < 3; ++k) {
        SupportPoint& q = start.enclosing[k];
        q.a = on_a ? f.corners[corner[k]] : s;
        q.b = on_a ? s : f.corners[corner[k]];
        q.w = t[corner[k]];
        q.d = n;
        q.vertex_a = on_a ? f.ids[corner[k]] : s_vertex;
        q.vertex_b = on_a ? s_vertex : f.ids[corner[k]];
      }
      SupportPoint& q = start.enclosing[3];
      q.w = c;
      q.a = difference.interior_a();
      q.b = q.a - c;
      q.d = -n;
      q.vertex_a = p.vertex_a;
      q.vertex_b = p.vertex_b;
      start.has_enclosing = true;
    }
    return false;
  }
  certified_penetration(on_a, s, n, depth, on_a ? p.vertex_a : s_vertex,
                        on_a ? s_vertex : p.vertex_b, start, counters);
  // The face's corners with s's vertex: M's face holding the answer, for the warm start (vertex
  // pairs, kCacheCount: with a hull among the cores; the first corner twice for a triangle).
  if (difference.has_hull()) {
    for (int k = 0; k < 4; ++k) {
      const std::uint32_t corner = f.ids[k % f.count];
      start.face_pairs[k] = on_a ? static_cast<double>(corner) + kVertexPacking * s_vertex
                                 : static_cast<double>(s_vertex) + kVertexPacking * corner;
    }
    start.face_pair_count = 4;
  }
  return true;
}

// penetration_at_face() where face_step() did not run it: boxes among the cores, or the point
// p = start.points[0] of M within kSeparatedFraction of the origin. The side whose point of p
// stands lower over the other's face highest under it (around its vertex of p on a hull, any
// of a box's six) is tried.
[[gnu::noinline]] bool face_penetration_step(CoreDifference& difference, ColdStart& start,
                                             QueryCounters& counters) {
  const SupportPoint& p = start.points[0];
  double height_a = std::numeric_limits<double>::infinity();
  double height_b = std::numeric_limits<double>::infinity();
  std::uint32_t face_a = 0, face_b = 0;
  if (difference.a_is_box()) {
    face_a = difference.box_face_highest(true, p.b, height_a);
  } else if (difference.a_has_faces()) {
    face_a = difference.face_highest(true, p.b, p.vertex_a, height_a);
  }
  if (difference.b_is_box()) {
    face_b = difference.box_face_highest(false, p.a, height_b);
  } else if (difference.b_has_faces()) {
    face_b = difference.face_highest(false, p.a, p.vertex_b, height_b);
  }
  const bool on_a = height_a <= height_b;
  if (!((on_a ? height_a : height_b) <= 0.0)) return false;
  return penetration_at_face(difference, on_a, on_a ? face_a : face_b, p, start, counters);
}

// A polytope core's point pressed into a cylinder's cap (a cylinder standing on a box's corner or
// a hull's vertex, or such a corner on a cylinder's end), from the point p = start.points[0] of
// M: the cap of the cylinder's core that faces the other core along p's direction, with outward
// normal n, and the other core's support point s along −n. The cap's plane is the cylinder's
// support plane along n, so M's support height along n (from A to B) is the depth h of s under
// that plane, and the depth is at most h. When the ball of radius h around s lies in the
// cylinder's core (s at least h from its side and from the other cap: h at most half the core's
// length, cap_ball_depth()), the cylinder less s, which lies in M, holds the
// ball of radius h around the origin: the depth is at least h. Then h is the depth, exactly, with
// s and its foot on the cap as the witnesses: one support of the polytope instead of GJK's
// supports and EPA's expansion on a curved core. A pair that p's support plane separates is
// rejected at once. Between a cylinder and a polytope core, before the clamp certificate
// (cylinder_step()); true with the answer in `start`.
[[gnu::noinline]] bool cap_penetration_step(CoreDifference& difference, ColdStart& start,
                                            QueryCounters& counters) {
  const bool on_a = difference.a_is_cylinder();
  if (!on_a && !difference.b_is_cylinder()) return false;
  const SupportPoint& p = start.points[0];
  if (!(p.d.dot(p.w) > 0.0)) return false;              // M lies below a plane through the origin
  const Vec3 n_cap = difference.cap_facing(on_a, p.d);  // the cap's outward normal (A's frame)
  const Vec3 n = on_a ? n_cap : Vec3(-n_cap);           // M's normal: from A to B
  // The polytope's support point s along −n_cap: a box's corner by the signs, a hull's vertex of
  // p when no neighbour is lower, else climbed from it; M's support along n for the others.
  std::uint32_t vertex_a = p.vertex_a, vertex_b = p.vertex_b;
  std::uint32_t& vertex = on_a ? vertex_b : vertex_a;
  Vec3 s;
  if (!difference.support_at(!on_a, -n_cap, vertex, s)) {
    if (difference.has_hull()) {
      s = on_a ? difference.b_support_from(-n_cap, vertex, vertex)
               : difference.a_support_from(-n_cap, vertex, vertex);
    } else {
      SupportPoint q;
      difference.support_into(n, q);
      s = on_a ? q.b : q.a;
    }
  }
  const double depth = difference.cap_ball_depth(on_a, s, n_cap);
  if (!(depth > 0.0)) return false;
  certified_penetration(on_a, s, n, depth, vertex_a, vertex_b, start, counters);
  return true;
}

// The first step from the point start.points[0] of M between a cylinder and a polytope core: the
// cap certificate, then the clamp certificate. True when that ends the query at start.points[0]
// (a penetration's when start.depth > 0).
bool cylinder_step(CoreDifference& difference, ColdStart& start, double sweep, double tolerance,
                   QueryCounters& counters) {
  return cap_penetration_step(difference, start, counters) ||
         clamp_step(difference, start, sweep, tolerance, counters);
}

// Hulls, a vertex over a face (how hulls rest on each other): from the point p of M, the face
// around A's vertex of p holding A's point x nearest to B's point b of p (face_nearest_on_a), with
// outward normal n and b at height h > 0 over its plane. A lies below that plane and B above the
// plane through its support point along −n, so when b is that support point, h is the distance
// and (x, b) the closest pair: one climb on B instead of GJK's three or four supports of M (the
// closest point of M lies inside one of M's faces there). When B's support point along −n is
// lower than b, it replaces b and the face is found again, once. Then the same with A and B
// exchanged (A's vertex over B's face). True with `out` the closest pair as a point of M and the
// face's vertex pairs in start.face_pairs. Where
// the other hull's vertex of p stands below every face around the vertex (the first step), the
// penetration certificate is tried at the highest of them (penetration_at_face()); true with its
// answer in `start` when it holds.
constexpr int kFaceSteps = 2;
[[gnu::noinline]] bool hull_face_certificate(CoreDifference& difference, const SupportPoint& p,
                                             const SupportPoint& known, double scale,
                                             SupportPoint& out, ColdStart& start,
                                             QueryCounters& counters) {
  const double slack = 8.0 * kMachineEpsilon * scale;
  for (int side = 0; side < 2; ++side) {
    const bool on_a = side == 0;  // a face of A's under a vertex of B's, else the mirror
    if (on_a ? !difference.a_has_faces() : !difference.b_has_faces()) continue;
    Vec3 a = p.a, b = p.b;
    std::uint32_t vertex_a = p.vertex_a, vertex_b = p.vertex_b;
    for (int step = 0; step < kFaceSteps; ++step) {
      Vec3 x, n;  // the face's point nearest to the other's point, and its outward normal (A)
      std::uint32_t face = 0;
      double height = 0.0;
      if (on_a ? !difference.face_nearest_on_a(b, vertex_a, slack, x, n, face, height)
               : !difference.face_nearest_on_b(a, vertex_b, slack, x, n, face, height)) {
        // The other's vertex of p below every face around this one's: pressed into that face?
        if (step == 0 && !(height > 0.0) &&
            penetration_at_face(difference, on_a, face, p, start, counters)) {
          return true;
        }
        break;
      }
      // A known point of the other hull lower along n than the point the face was found for:
      // that point is not the other hull's support along −n (no climb needed to know).
      const Vec3& point = on_a ? b : a;
      if (n.dot(on_a ? known.b : known.a) < n.dot(point) - slack) break;
      // The other hull's support point along −n (from its vertex of p), and whether it is as
      // low along n as the point the face was found for.
      std::uint32_t vertex = 0;
      const Vec3 s = on_a ? difference.b_support_from(-n, vertex_b, vertex)
                          : difference.a_support_from(-n, vertex_a, vertex);
      if (n.dot(s) >= n.dot(point) - slack) {
        out.a = on_a ? x : a;
        out.b = on_a ? b : x;
        out.w = out.a - out.b;
        out.d = -out.w;
        out.vertex_a = vertex_a;
        out.vertex_b = vertex_b;
        // The face's corners with the other hull's vertex: M's face holding the answer, for the
        // warm start (GJK from that triangle certifies a nearby pose in one support); the first
        // corner twice, as the cache holds four pairs at least (a repeat is dropped there).
        for (int k = 0; k < 4; ++k) {
          const std::uint32_t corner = difference.face_corner(on_a, face, k % 3);
          start.face_pairs[k] = on_a ? static_cast<double>(corner) + kVertexPacking * vertex_b
                                     : static_cast<double>(vertex_a) + kVertexPacking * corner;
        }
        return true;
      }
      (on_a ? b : a) = s;
      (on_a ? vertex_b : vertex_a) = vertex;
    }
  }
  return false;
}

// The face certificate of hulls (hull_face_certificate()) from the point start.points[0] of M,
// when neither core is a box (the clamp certificate covers a box's faces) and a hull knows its
// faces around each vertex. True when it ends the query at start.points[0] (a penetration's
// when start.depth > 0).
[[gnu::noinline]] bool face_step(CoreDifference& difference, ColdStart& start, double sweep,
                                 QueryCounters& counters) {
  if (difference.a_clampable() || difference.b_clampable() ||
      (!difference.a_has_faces() && !difference.b_has_faces())) {
    return false;
  }
  const SupportPoint& p = start.points[0];
  const double vv = p.w.squaredNorm();
  const double scale = std::sqrt(std::max(sweep * sweep, vv));  // Solver::solve
  // (touching or overlapping: GJK and EPA decide)
  if (!(vv > kSeparatedFraction * kSeparatedFraction * scale * scale)) return false;
  SupportPoint closest;
  start.faces_tried = true;
  if (!hull_face_certificate(difference, p, start.points[1], scale, closest, start, counters)) {
    return false;
  }
  if (start.depth > 0.0) return true;  // a penetration, answered in start
  start.face_pair_count = 4;
  ++counters.iterations;
  start.points[0] = closest;
  start.count = 1;
  return true;
}

// The first step from one point of M between polytope cores, start.points[0]: the clamp
// certificate (clamp_step()) when a box is among the cores, then GJK's first iteration
// (cold_first_iteration()), then the face certificate of hulls (face_step()). True when that ends
// the query at start.points[0]. The face certificate comes after GJK's iteration, which ends most
// vertex–vertex contacts by itself. Callgrind per cold hull32–hull32 query, separated, before the
// certificate → tried first → tried after: default poses 3,830 → 4,928 → 4,153; face poses
// 9,961 → 3,355 → 4,409 (wall time, face poses: 1,250 → 300 ns).
bool first_step(CoreDifference& difference, ColdStart& start, double sweep, double tolerance,
                QueryCounters& counters) {
  return clamp_step(difference, start, sweep, tolerance, counters) ||
         cold_first_iteration(difference, start, sweep, tolerance, counters) ||
         face_step(difference, start, sweep, counters);
}

// first_step(), then the penetration certificate where face_step() did not try it (boxes among
// the cores, or p within kSeparatedFraction of the origin). True when that ends the query at
// start.points[0] (a penetration's when start.depth > 0).
bool polytope_step(CoreDifference& difference, ColdStart& start, double sweep, double tolerance,
                   QueryCounters& counters) {
  return first_step(difference, start, sweep, tolerance, counters) ||
         (!start.faces_tried && face_penetration_step(difference, start, counters));
}

// A cached closest pair (kCacheOnePoint) as the point p = start.points[0] of M at this pose, and
// GJK's first iteration from it: M's support q along −p.w (start.points[1]) and GJK's stopping
// rule. True when it holds: p is the answer. `supported`: q was taken (p is separated).
bool pair_certifies(const Shape& a, const Shape& b, const NarrowPhaseCache& cache, const Pose& X_AB,
                    CoreDifference& difference, double sweep, double tolerance,
                    QueryCounters& counters, ColdStart& start, bool& supported) {
  SupportPoint& p = start.points[0];
  Vec3 b_B;
  if (!cached_core_point(a, &cache.data[kCachePointA], p.a, p.vertex_a) ||
      !cached_core_point(b, &cache.data[kCachePointB], b_B, p.vertex_b)) {
    return false;
  }
  p.b = affine(X_AB.R, b_B, X_AB.p);
  p.w = p.a - p.b;
  p.d = -p.w;
  double vv, gap, scale;
  if (!first_support(difference, p, sweep, start.points[1], vv, gap, scale)) return false;
  supported = true;
  ++counters.iterations;
  return gjk_converged(gap, vv, tolerance, scale);
}

// The answer of a penetration certificate (penetration_at_face()).
[[gnu::noinline]] CoreContact penetration_contact(const ColdStart& start) {
  CoreContact c;
  c.distance_m = -start.depth;
  c.normal = start.normal;
  c.point_a = start.points[0].a;
  c.point_b = start.points[0].b;
  // (replaced by the face's vertex pairs when a hull is among the cores; two boxes restart from
  // their supports along the normal, where the certificate holds again at a nearby pose)
  c.warm_count = 1;
  c.warm_directions[0] = start.normal;
  return c;
}

// Begins a cold query in `start`: the support along the line from M's interior point to the
// origin, and the first step from it: first_step() between polytope cores, else (a cylinder with
// a polytope core) the cap and clamp certificates (cylinder_step()). True when that ends the
// query at start.points[0]. Out of line: warm queries keep their small frame.
[[gnu::noinline]] bool begin_cold(const Shape& a, const Shape& b, const Pose& X_AB,
                                  CoreDifference& difference, const Vec3& up_A, double sweep,
                                  double tolerance, bool polytope_cores, ColdStart& start,
                                  QueryCounters& counters) {
  Vec3 d_A = X_AB.transform_point(interior_point(b)) - interior_point(a);
  if (!(d_A.squaredNorm() > 0.0)) d_A = up_A;
  start.d_A = d_A;
  difference.support_into(d_A, start.points[0]);
  start.count = 1;
  return polytope_cores ? polytope_step(difference, start, sweep, tolerance, counters)
                        : cylinder_step(difference, start, sweep, tolerance, counters);
}

// Everything of a query but the one-point answers (query() tries those first, with its small
// frame): the warm or cold start, the first GJK iteration of a cold polytope pair and the solver.
// `first_warm_point`: the support along the first cached direction, when query() has taken it.
// `cold_start`: a one-point start between polytope cores that query() has begun (ColdStart):
// cold, or from a warm point that did not certify.
[[gnu::noinline]] CoreContact solve_pair(
    const Shape& a, const Shape& b, const Pose& X_AB, const NarrowPhaseCache& cache,
    bool same_types, CoreDifference& difference, double radius_a_m, double radius_b_m,
    const Vec3& up_A, bool polytope_cores, const SupportPoint* first_warm_point,
    const ColdStart* cold_start, double tolerance, int max_iterations,
    GjkEpaNarrowPhase::Workspace& workspace, QueryCounters& counters) {
  // Warm start from the support directions of the last answer; cold start along the line from
  // M's interior point to the origin, where M's points nearest to the origin lie.
  Simplex simplex;
  // A hull and a hull or a box: vertex pairs after EPA (kCacheCount). Not two boxes: EPA from
  // the support directions needs 4.4 iterations there, fewer than inserting the seeds costs
  // (callgrind per warm query: 8,524 with directions, 11,129 with pairs).
  const std::uint32_t vertices_a = named_vertices(a);
  const std::uint32_t vertices_b = named_vertices(b);
  const bool vertex_pair = vertices_a > 0 && vertices_b > 0 &&
                           (a.type == ShapeType::convex_hull || b.type == ShapeType::convex_hull);
  std::array<SupportPoint, kMaxWarmPairs - 4> seeds;
  std::array<SupportPoint, ColdSeeds::kSeeds> cold_seed_points;
  int seed_count = 0;
  bool from_pairs = false;
  const bool warm = same_types && cache.data[kCacheCount] >= 1.0 && cache.data[kCacheCount] <= 4.0;
  if (same_types && vertex_pair && cache.data[kCacheCount] <= -4.0 &&
      cache.data[kCacheCount] >= -static_cast<double>(kMaxWarmPairs)) {
    // Vertex pairs (kCacheCount): the points themselves, no supports. The first four restart
    // GJK, the others seed EPA.
    const int count = static_cast<int>(-cache.data[kCacheCount]);
    from_pairs = true;
    const Vec3 centre_A = interior_point(a) - X_AB.transform_point(interior_point(b));
    for (int i = 0; i < count; ++i) {
      const double pair = cache.data[kCacheDirections + i];
      if (!(pair >= 0.0 && pair < kVertexPacking * kVertexPacking)) break;
      const auto bits = static_cast<std::uint64_t>(pair);
      const auto vertex_a = static_cast<std::uint32_t>(bits & kVertexMask);
      const auto vertex_b = static_cast<std::uint32_t>(bits >> kVertexBits);
      if (vertex_a >= vertices_a || vertex_b >= vertices_b) break;
      SupportPoint p;
      p.a = named_vertex(a, vertex_a);
      p.b = X_AB.R * named_vertex(b, vertex_b) + X_AB.p;  // as CoreDifference::support
      p.w = p.a - p.b;
      p.d = p.w - centre_A;  // a direction p is about the support point for (warm directions)
      p.vertex_a = vertex_a;
      p.vertex_b = vertex_b;
      if (i >= 4) {
        seeds[seed_count++] = p;
        continue;
      }
      bool repeated = false;
      for (int j = 0; j < simplex.count; ++j) repeated = repeated || p.w == simplex.points[j].w;
      if (!repeated) simplex.points[simplex.count++] = p;
    }
  } else if (warm && cold_start == nullptr) {  // (a begun start replaces the cached points)
    const int count = static_cast<int>(cache.data[kCacheCount]);
    for (int i = 0; i < count; ++i) {
      const double* d = &cache.data[kCacheDirections + 3 * i];
      const Vec3 d_A(d[0], d[1], d[2]);
      if (!(d_A.squaredNorm() > 0.0) || !d_A.allFinite()) continue;
      // (the one-point warm start's support, when query() has taken it: the same point)
      const SupportPoint p =
          i == 0 && first_warm_point != nullptr ? *first_warm_point : difference.support(d_A);
      bool repeated = false;
      for (int j = 0; j < simplex.count; ++j) repeated = repeated || p.w == simplex.points[j].w;
      if (!repeated) simplex.points[simplex.count++] = p;
    }
  }
  std::optional<ColdSeeds> cold_seeds;
  if (cold_start != nullptr && cold_start->has_enclosing) {
    for (int i = 0; i < 4; ++i) simplex.points[i] = cold_start->enclosing[i];
    simplex.count = 4;
    if (vertex_pair) {
      cold_seeds.emplace(a, b, X_AB, difference, cold_start->points[0], cold_start->d_A);
    }
  } else if (cold_start != nullptr) {
    for (int i = 0; i < cold_start->count; ++i) simplex.points[i] = cold_start->points[i];
    simplex.count = cold_start->count;
    if (vertex_pair) {
      cold_seeds.emplace(a, b, X_AB, difference, simplex.points[0], cold_start->d_A);
    }
  } else if (simplex.count == 0) {
    Vec3 d_A = X_AB.transform_point(interior_point(b)) - interior_point(a);
    if (!(d_A.squaredNorm() > 0.0)) d_A = up_A;
    simplex.points[0] = difference.support(d_A);
    simplex.count = 1;
    if (vertex_pair) cold_seeds.emplace(a, b, X_AB, difference, simplex.points[0], d_A);
  }

  return [&]() -> CoreContact {
    // A warm start from one cached direction whose support certifies the distance at once (the
    // pose barely moved) is answered here, as Solver::solve would after gjk()'s first check,
    // without setting up the solver: that set-up was a fifth of such a query.
    if (warm && cold_start == nullptr && simplex.count == 1 &&
        warm_point_certifies(simplex.points[0], radius_a_m + radius_b_m, tolerance)) {
      return one_point_contact(simplex.points[0], polytope_cores);
    }
    Solver solver(difference, tolerance, polytope_cores, max_iterations, workspace, counters);
    solver.set_seeds(seeds.data(), seed_count, vertex_pair, warm && !from_pairs);
    if (cold_seeds) solver.set_cold_seeds(&*cold_seeds, cold_seed_points.data());
    return solver.solve(simplex, radius_a_m + radius_b_m, up_A);
  }();
}

}  // namespace

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
    manifold::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold);
    return;
  }
  if (a_is_half_space) {
    out = swapped(shape_half_space(b, X_WB, a, X_WA));
    manifold::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold);
    return;
  }

  const Mat3 R_AW = X_WA.R.transpose();
  const Pose X_AB{R_AW * X_WB.R, R_AW * (X_WB.p - X_WA.p)};
  const bool same_types = cache.valid != 0 &&
                          cache.data[kCacheTypeA] == static_cast<double>(a.type) &&
                          cache.data[kCacheTypeB] == static_cast<double>(b.type);
  // Hull climbs start where the last query's ended (CoreSupport checks the range).
  std::uint32_t start_vertex_a = 0;
  std::uint32_t start_vertex_b = 0;
  bool start_known = false;
  const double packed = cache.data[kCacheVertices];
  if (same_types && packed >= 0.0 && packed < kVertexPacking * kVertexPacking) {
    start_known = true;
    const auto bits = static_cast<std::uint64_t>(packed);  // exact: an integer below 2^52
    start_vertex_a = static_cast<std::uint32_t>(bits & (kVertexMask));
    start_vertex_b = static_cast<std::uint32_t>(bits >> kVertexBits);
  }
  CoreDifference difference(a, b, X_AB, start_vertex_a, start_vertex_b, start_known);
  const double radius_a_m = sweep_radius(a);
  const double radius_b_m = sweep_radius(b);
  // World +z seen in A: the normal of last resort (concentric spheres), as in the primitive plugin.
  const Vec3 up_A = X_WA.R.row(2).transpose();
  QueryCounters counters;
  const bool polytope_cores = polytope_core(a.type) && polytope_core(b.type);
  // A warm start from one cached direction whose support certifies the distance at once (the
  // pose barely moved) is answered here, as Solver::solve would after gjk()'s first check,
  // without the start's and the solver's set-up (solve_pair).
  SupportPoint warm_point;
  bool have_warm_point = false;
  bool certified = false;
  if (same_types && cache.data[kCacheCount] == 1.0) {
    const Vec3 d_A(cache.data[kCacheDirections], cache.data[kCacheDirections + 1],
                   cache.data[kCacheDirections + 2]);
    if (d_A.squaredNorm() > 0.0 && d_A.allFinite()) {
      warm_point = difference.support(d_A);
      have_warm_point = true;
      certified = warm_point_certifies(warm_point, radius_a_m + radius_b_m, tolerance_);
    }
  }
  // A cold start between polytope cores begins here too: GJK's first iteration often ends it.
  // So does a warm point between polytope cores that did not certify (the pose moved, so its
  // cached direction is no longer the normal): GJK's first iteration from it often ends a moved
  // vertex–vertex contact, again without solve_pair's set-up. A cached closest pair
  // (kCacheOnePoint) is tried first (pair_certifies()); when it does not certify, the support it
  // took starts as a warm point would.
  ColdStart cold_start;
  bool cold_begun = false;
  const SupportPoint* one_point = certified ? &warm_point : nullptr;
  bool pair_kept = false;  // a cached pair certified: the cache keeps it as it is
  if (same_types && polytope_cores && cache.data[kCacheCount] == kCacheOnePoint) {
    bool supported = false;
    pair_kept = pair_certifies(a, b, cache, X_AB, difference, radius_a_m + radius_b_m, tolerance_,
                               counters, cold_start, supported);
    if (pair_kept) {
      one_point = &cold_start.points[0];
    } else if (supported && (difference.a_clampable() || difference.b_clampable())) {
      have_warm_point = true;  // the pair's support starts the clamp below
      warm_point = cold_start.points[1];
    } else if (supported) {
      // GJK goes on from the pair and its support, as after its first iteration from the pair.
      const SupportPoint& p = cold_start.points[0];
      const double vv = p.w.squaredNorm();
      cold_start.count = sub_segment(cold_start.points.data(), 0, 1).vv < vv ? 2 : 1;
      cold_start.d_A = p.d;
      cold_begun = true;
    }
  }
  // A cylinder with a polytope core: the cap and clamp certificates (cylinder_step()), from the
  // cold start's point or a warm point that did not certify; when it fails, the solver takes over
  // from the cold start's point, or from the cached directions. (Not two cylinders: their rims are
  // curved on both sides, so a rim over a rim never certifies, and the clamps cost more than they
  // save: callgrind per query, default poses, cold 3,805 → 4,942, moving 2,794 → 3,914.)
  const bool clamp_curved = (a.type == ShapeType::cylinder && polytope_core(b.type)) ||
                            (b.type == ShapeType::cylinder && polytope_core(a.type));
  if (!same_types && (polytope_cores || clamp_curved)) {
    cold_begun = true;
    if (begin_cold(a, b, X_AB, difference, up_A, radius_a_m + radius_b_m, tolerance_,
                   polytope_cores, cold_start, counters)) {
      one_point = &cold_start.points[0];
    }
  } else if (have_warm_point && !certified && !pair_kept && polytope_cores) {
    cold_begun = true;
    cold_start.points[0] = warm_point;
    cold_start.count = 1;
    cold_start.d_A = warm_point.d;
    if (polytope_step(difference, cold_start, radius_a_m + radius_b_m, tolerance_, counters)) {
      one_point = &cold_start.points[0];
    }
  } else if (have_warm_point && !certified && clamp_curved) {
    cold_start.points[0] = warm_point;
    if (cylinder_step(difference, cold_start, radius_a_m + radius_b_m, tolerance_, counters)) {
      one_point = &cold_start.points[0];
    }
  }
  CoreContact core =
      cold_start.depth > 0.0 && one_point == &cold_start.points[0] ? penetration_contact(cold_start)
      : one_point != nullptr
          ? one_point_contact(*one_point, polytope_cores)
          : solve_pair(a, b, X_AB, cache, same_types, difference, radius_a_m, radius_b_m, up_A,
                       polytope_cores, have_warm_point ? &warm_point : nullptr,
                       cold_begun ? &cold_start : nullptr, tolerance_, max_iterations_, *workspace_,
                       counters);

  // Sweep the cores back to the shapes: exact for any sign of the core distance.
  const Vec3 point_a_A = core.point_a + radius_a_m * core.normal;
  const Vec3 point_b_A = core.point_b - radius_b_m * core.normal;
  out.distance_m = core.distance_m - radius_a_m - radius_b_m;
  out.normal_W = X_WA.R * core.normal;
  out.point_a_W = affine(X_WA.R, point_a_A, X_WA.p);
  out.point_b_W = affine(X_WA.R, point_b_A, X_WA.p);

  if (cold_start.face_pair_count > 0 && one_point == &cold_start.points[0]) {
    // A face certificate's answer: cached as its face's vertex pairs, not as one closest pair
    // (whose vertex is a corner of the face, not the closest point: GJK would start from it).
    core.one_point = false;
    core.warm_pair_count = cold_start.face_pair_count;
    for (int k = 0; k < cold_start.face_pair_count; ++k) {
      core.warm_pairs[k] = cold_start.face_pairs[k];
    }
  }
  cache.valid = 1;
  if (core.one_point && polytope_cores) {
    if (!pair_kept) keep_one_point(a, b, X_AB, core, cache);
  } else if (core.warm_pair_count > 0) {
    cache.data[kCacheCount] = -core.warm_pair_count;
    for (int i = 0; i < core.warm_pair_count; ++i) {
      cache.data[kCacheDirections + i] = core.warm_pairs[i];
    }
  } else {
    cache.data[kCacheCount] = core.warm_count;
    for (int i = 0; i < core.warm_count; ++i) {
      for (int k = 0; k < 3; ++k)
        cache.data[kCacheDirections + 3 * i + k] = core.warm_directions[i][k];
    }
  }
  cache.data[kCacheTypeA] = static_cast<double>(a.type);
  cache.data[kCacheTypeB] = static_cast<double>(b.type);
  cache.data[kCacheVertices] = static_cast<double>(difference.last_vertex_a()) +
                               kVertexPacking * static_cast<double>(difference.last_vertex_b());

  statistics_.total_iterations += counters.iterations;
  statistics_.max_iterations_used =
      std::max<std::int64_t>(statistics_.max_iterations_used, counters.iterations);
  if (counters.hit_limit) ++statistics_.iteration_limit_hits;
  if (counters.degenerate) ++statistics_.degenerate_cases;
  // (build_manifold returns at once for one point; the test here spares the call.)
  if (manifold_points_ > 1) manifold::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold);
}

}  // namespace contactlab::plugins
