// Penetration certificates: a polytope's vertex pressed into a hull's or a box's face, or into
// a cylinder's cap, whose depth the face's plane bounds from above and a pyramid (or a ball)
// of points of M from below.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <optional>

#include "certificate.hpp"
#include "cold_start.hpp"

namespace contactlab::plugins::gjk_epa {

// Whether the origin lies in the pyramid with the convex base t[0..count) (in order around it) and
// the apex w at least `depth` (> 0) from each of its faces through w. (The caller's construction
// puts the origin `depth` below the base's plane and w below the origin.)
inline bool sides_at_least(const std::array<Vec3, 4>& t, int count, const Vec3& w, double depth) {
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
inline bool penetration_at_face(const CoreDifference& difference, bool on_a, std::uint32_t face,
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
  // pairs, WarmStart::vertex_pairs: with a hull among the cores; the first corner twice for a
  // triangle).
  if (difference.has_hull()) {
    for (int k = 0; k < 4; ++k) {
      const std::uint32_t corner = f.ids[k % f.count];
      start.face_pairs[k] = on_a ? VertexPair{corner, s_vertex} : VertexPair{s_vertex, corner};
    }
    start.face_pair_count = 4;
  }
  return true;
}

// penetration_at_face() where face_step() did not run it: boxes among the cores, or the point
// p = start.points[0] of M within kSeparatedFraction of the origin. The side whose point of p
// stands lower over the other's face highest under it (around its vertex of p on a hull, any
// of a box's six) is tried.
[[gnu::noinline]] inline bool face_penetration_step(CoreDifference& difference, ColdStart& start,
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
[[gnu::noinline]] inline bool cap_penetration_step(CoreDifference& difference, ColdStart& start,
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

// The penetration certificates' entry points (certificate.hpp): a polytope's point pressed into a
// cylinder's cap, and a vertex pressed into a hull's or a box's face where the hull face
// certificate did not try it already (HullFaceCertificate tries it first on hulls).
struct CapPenetrationCertificate {
  std::optional<Certified> try_certify(const PairInputs& in, ColdStart& start) const {
    if (!cap_penetration_step(in.difference, start, in.counters)) return std::nullopt;
    return certified_at(start);
  }
};
struct FacePenetrationCertificate {
  std::optional<Certified> try_certify(const PairInputs& in, ColdStart& start) const {
    if (start.faces_tried || !face_penetration_step(in.difference, start, in.counters)) {
      return std::nullopt;
    }
    return certified_at(start);
  }
};

}  // namespace contactlab::plugins::gjk_epa
