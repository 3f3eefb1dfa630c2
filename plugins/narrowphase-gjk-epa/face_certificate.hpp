// The face certificate of hulls: a hull's vertex over a hull's face (how hulls rest on each
// other), from the faces around a support vertex.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <optional>

#include "certificate.hpp"
#include "cold_start.hpp"
#include "penetration_certificate.hpp"

namespace contactlab::plugins::gjk_epa {

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
[[gnu::noinline]] inline bool hull_face_certificate(CoreDifference& difference,
                                                    const SupportPoint& p,
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
          start.face_pairs[k] = on_a ? VertexPair{corner, vertex_b} : VertexPair{vertex_a, corner};
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
[[gnu::noinline]] inline bool face_step(CoreDifference& difference, ColdStart& start, double sweep,
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

// The hull face certificate's entry point (certificate.hpp).
struct HullFaceCertificate {
  std::optional<Certified> try_certify(const PairInputs& in, ColdStart& start) const {
    if (!face_step(in.difference, start, in.sweep, in.counters)) return std::nullopt;
    return certified_at(start);
  }
};

}  // namespace contactlab::plugins::gjk_epa
