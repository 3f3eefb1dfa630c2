// The one-point start the certificates work from (ColdStart, first_steps.hpp's certify()), and
// GJK's first iteration from its point.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core_contact.hpp"
#include "minkowski_difference.hpp"
#include "signed_volumes.hpp"
#include "solver.hpp"

namespace contactlab::plugins::gjk_epa {

// The point of M the certificates start from (points[0]: a warm support, a cached closest pair,
// or a cold start's support along the line from M's interior point to the origin, direction d_A)
// and, when GJK's first iteration kept it, the support that iteration took (points[1],
// cold_first_iteration()); with the answer a certificate wrote, or what it left for GJK and EPA.
struct ColdStart {
  std::array<SupportPoint, 2> points;
  int count;  // set with the points (begin_cold())
  Vec3 d_A;
  // A face certificate's answer (face_step()): the vertex pairs of the face's corners with the
  // other hull's vertex (WarmStart::vertex_pairs), and how many (0: none).
  std::array<VertexPair, 4> face_pairs;
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
inline bool first_support(CoreDifference& difference, const SupportPoint& p, double sweep,
                          SupportPoint& q, double& vv, double& gap, double& scale) {
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
// Run in query(), whose frame is small: such a query needs none of solve_pair()'s set-up.
inline bool cold_first_iteration(CoreDifference& difference, ColdStart& start, double sweep,
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

}  // namespace contactlab::plugins::gjk_epa
