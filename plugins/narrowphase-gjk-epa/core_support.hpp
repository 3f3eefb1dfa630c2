// The support mapping of one shape's core in its own frame (boxes, climbed hulls, cylinders
// and the SDK's core_support for the rest), and the named vertices (box corners, hull vertices)
// the warm start and the certificates refer to.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <contactlab/shapes.hpp>

#include "tolerances.hpp"

namespace contactlab::plugins::gjk_epa {

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
inline std::uint32_t corner_id(const Vec3& c) {
  return (std::signbit(c.x()) ? 1u : 0u) | (std::signbit(c.y()) ? 2u : 0u) |
         (std::signbit(c.z()) ? 4u : 0u);
}
inline Vec3 corner_point(const Vec3& h, std::uint32_t id) {
  return box_corner(h, Vec3((id & 1u) != 0 ? -1.0 : 1.0, (id & 2u) != 0 ? -1.0 : 1.0,
                            (id & 4u) != 0 ? -1.0 : 1.0));
}

// A box's core: the box shrunk by its smoothing radius (half sizes).
inline Vec3 box_core_half_extents(const Shape& box) {
  return box.half_extents_m - Vec3::Constant(box.smoothing_radius_m);
}

// Shapes whose cores have finite vertex sets the warm start can name (WarmStart::vertex_pairs): the
// number of vertices, 0 for other shapes.
inline std::uint32_t named_vertices(const Shape& shape) {
  if (shape.type == ShapeType::box) return 8;
  if (shape.type == ShapeType::convex_hull && shape.hull != nullptr)
    return shape.hull->vertex_count;
  return 0;
}
// Vertex `id` < named_vertices(shape) of the shape's core, in its frame: bitwise the point its
// support returns.
inline Vec3 named_vertex(const Shape& shape, std::uint32_t id) {
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
inline void for_each_neighbour(const Shape& shape, std::uint32_t id, F&& f) {
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

// The kinds of core a support mapping has its own path for (CoreSupport::kind()), chosen once per
// query from the shape's type: the support along each direction then dispatches on the kind, never
// on the shape's type again.
enum class CoreKind : std::uint8_t {
  point,         // a sphere's core, its centre
  segment,       // a capsule's core, its axis
  box,           // corners by the signs of the direction (box_corner)
  climbed_hull,  // a hull of kHullClimbFrom vertices or more, with adjacency: a hill climb
  scanned_hull,  // a smaller hull (or one without adjacency): the SDK's scan
  cylinder,      // the rim point along the direction's radial part
  other,         // ellipsoid, cone, beam: the SDK's core_support
};

// Support mapping of one shape's core in its own frame G, its path chosen once (CoreKind). Hulls
// climb from the vertex found last: successive GJK and EPA directions are close, so the climb
// usually takes one or two steps instead of the O(√n) from vertex 0 (the warm start of Bullet's
// and Coal's hull supports); a climb is exact from any start vertex (see hull_support_vertex).
class CoreSupport {
 public:
  CoreSupport(const Shape& shape, std::uint32_t start_vertex) : shape_(shape) {
    switch (shape.type) {
      case ShapeType::sphere:
        kind_ = CoreKind::point;
        break;
      case ShapeType::capsule:
        kind_ = CoreKind::segment;
        half_length_ = shape.half_length_m;
        break;
      case ShapeType::box:
        kind_ = CoreKind::box;
        box_half_extents_ = box_core_half_extents(shape);
        break;
      case ShapeType::cylinder:
        kind_ = CoreKind::cylinder;
        radius_ = shape.radius_m - shape.smoothing_radius_m;
        half_length_ = shape.half_length_m - shape.smoothing_radius_m;
        break;
      case ShapeType::convex_hull:
        if (shape.hull != nullptr && shape.hull->vertex_count > 0) {
          hull_ = shape.hull;
          vertex_ = start_vertex < hull_->vertex_count ? start_vertex : 0;
          const bool climb = hull_->neighbor_offsets != nullptr && hull_->neighbors != nullptr &&
                             hull_->vertex_count >= kHullClimbFrom;
          kind_ = climb ? CoreKind::climbed_hull : CoreKind::scanned_hull;
        }
        break;
      default:
        break;
    }
  }

  [[gnu::always_inline]] Vec3 operator()(const Vec3& d_G) {
    switch (kind_) {
      case CoreKind::climbed_hull:
        vertex_ = hull_climb_vertex(*hull_, d_G, vertex_);  // vertex_ is kept valid
        return hull_->vertices[vertex_];
      case CoreKind::scanned_hull:
        vertex_ = hull_support_vertex(*hull_, d_G, vertex_);
        return hull_->vertices[vertex_];
      case CoreKind::box:
        return box_corner(box_half_extents_, d_G);
      case CoreKind::cylinder: {
        // core_support's form with a plain square root for std::hypot (hypot's overflow care,
        // which directions of M's scale do not need, was a large part of a cold cylinder query).
        const double radial2 = d_G.x() * d_G.x() + d_G.y() * d_G.y();
        const double z = (d_G.z() < 0.0 ? -1.0 : 1.0) * half_length_;
        if (!(radial2 > 0.0) || !std::isfinite(radial2)) return core_support(shape_, d_G);
        const double k = radius_ / std::sqrt(radial2);
        return Vec3(k * d_G.x(), k * d_G.y(), z);
      }
      case CoreKind::point:
        return Vec3::Zero();
      case CoreKind::segment:  // as core_support: sign(d.z)·L/2
        return Vec3(0.0, 0.0, (d_G.z() < 0.0 ? -1.0 : 1.0) * half_length_);
      case CoreKind::other:
        break;
    }
    return core_support(shape_, d_G);
  }

  /// The path the support takes (chosen at construction).
  CoreKind kind() const { return kind_; }

  const Shape& shape() const { return shape_; }

  /// The hull vertex found last (0 for other shapes): the next climb's start vertex.
  std::uint32_t last_vertex() const { return vertex_; }
  /// A hull large enough to be climbed (the SDK scans smaller ones, where a start vertex is moot).
  bool is_hull() const { return kind_ == CoreKind::climbed_hull; }
  /// A hull large enough for jump() to pay (kJumpFrom: large hulls gain, small ones lose).
  bool jumps() const { return is_hull() && hull_->vertex_count >= kJumpFrom; }
  bool is_box() const { return kind_ == CoreKind::box; }
  bool is_cylinder() const { return kind_ == CoreKind::cylinder; }
  /// Whether the core's point nearest to any point has a closed form (nearest()): a box's, the
  /// product of three intervals, and a cylinder's, the product of a disc and an interval.
  bool clampable() const { return kind_ == CoreKind::box || kind_ == CoreKind::cylinder; }
  /// The point of a clampable() core nearest to p_G (p_G projected on it), in G.
  Vec3 nearest(const Vec3& p_G) const {
    if (kind_ == CoreKind::box) {
      return p_G.cwiseMax(-box_half_extents_).cwiseMin(box_half_extents_);
    }
    const double radius = radius_;
    const double h = half_length_;
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
  double radius_ = 0.0;                   // a cylinder core's radius [m]
  double half_length_ = 0.0;              // a cylinder's or capsule's core half length [m]
  const ConvexHull* hull_ = nullptr;
  std::uint32_t vertex_ = 0;
  CoreKind kind_ = CoreKind::other;
};

}  // namespace contactlab::plugins::gjk_epa
