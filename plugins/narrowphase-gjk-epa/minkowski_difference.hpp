// The support mapping of the Minkowski difference M = core(A) − core(B) in A's frame, with the
// features of the two cores (faces, caps, nearest points) the certificates query.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <contactlab/shapes.hpp>

#include "core_support.hpp"

namespace contactlab::plugins::gjk_epa {

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
      // out in scalars: Eigen's 3-vector products shuffle 2-wide packets, which cost more.
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
    // frame and the call are skipped.
    if (curved_a_) {
      if (a_.is_cylinder()) {
        const Shape& a = a_.shape();
        add_rim_support_derivative(a.radius_m - a.smoothing_radius_m, d_A,
                                   Vec3(d_A.y(), -d_A.x(), 0.0), t1, t2, q11, q12, q22);
      } else {
        add_core_support_derivative(a_.shape(), d_A, t1, t2, q11, q12, q22);
      }
    }
    if (curved_b_) {
      const Vec3 d_B = -(R_BA_ * d_A);
      if (b_.is_cylinder()) {
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
  bool a_is_cylinder() const { return a_.is_cylinder(); }
  bool b_is_cylinder() const { return b_.is_cylinder(); }
  /// A hull among the cores (vertex pairs name points of M: WarmStart::vertex_pairs).
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

  /// The vertex pair of a point of M between hulls and boxes (WarmStart::vertex_pairs): hull
  /// vertices as the supports found them, box corners by the signs of their coordinates
  /// (corner_id).
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

}  // namespace contactlab::plugins::gjk_epa
