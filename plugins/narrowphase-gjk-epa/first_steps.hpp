// The first steps of a query before GJK: which certificates run from a cold or warm point
// (cylinder_step, first_step, polytope_step), a cached closest pair's certificate
// (pair_certifies) and the cold start (begin_cold).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "clamp_certificate.hpp"
#include "cold_start.hpp"
#include "face_certificate.hpp"
#include "penetration_certificate.hpp"
#include "warm_start.hpp"
#include "warm_start_layout.hpp"

namespace contactlab::plugins::gjk_epa {

// The first step from the point start.points[0] of M between a cylinder and a polytope core: the
// cap certificate, then the clamp certificate. True when that ends the query at start.points[0]
// (a penetration's when start.depth > 0).
inline bool cylinder_step(CoreDifference& difference, ColdStart& start, double sweep,
                          double tolerance, QueryCounters& counters) {
  return cap_penetration_step(difference, start, counters) ||
         clamp_step(difference, start, sweep, tolerance, counters);
}

// The first step from one point of M between polytope cores, start.points[0]: the clamp
// certificate (clamp_step()) when a box is among the cores, then GJK's first iteration
// (cold_first_iteration()), then the face certificate of hulls (face_step()). True when that ends
// the query at start.points[0]. The face certificate comes after GJK's iteration, which ends most
// vertex–vertex contacts by itself. Callgrind per cold hull32–hull32 query, separated, before the
// certificate → tried first → tried after: default poses 3,830 → 4,928 → 4,153; face poses
// 9,961 → 3,355 → 4,409 (wall time, face poses: 1,250 → 300 ns).
inline bool first_step(CoreDifference& difference, ColdStart& start, double sweep, double tolerance,
                       QueryCounters& counters) {
  return clamp_step(difference, start, sweep, tolerance, counters) ||
         cold_first_iteration(difference, start, sweep, tolerance, counters) ||
         face_step(difference, start, sweep, counters);
}

// first_step(), then the penetration certificate where face_step() did not try it (boxes among
// the cores, or p within kSeparatedFraction of the origin). True when that ends the query at
// start.points[0] (a penetration's when start.depth > 0).
inline bool polytope_step(CoreDifference& difference, ColdStart& start, double sweep,
                          double tolerance, QueryCounters& counters) {
  return first_step(difference, start, sweep, tolerance, counters) ||
         (!start.faces_tried && face_penetration_step(difference, start, counters));
}

// A cached closest pair (kCacheOnePoint) as the point p = start.points[0] of M at this pose, and
// GJK's first iteration from it: M's support q along −p.w (start.points[1]) and GJK's stopping
// rule. True when it holds: p is the answer. `supported`: q was taken (p is separated).
inline bool pair_certifies(const Shape& a, const Shape& b, const NarrowPhaseCache& cache,
                           const Pose& X_AB, CoreDifference& difference, double sweep,
                           double tolerance, QueryCounters& counters, ColdStart& start,
                           bool& supported) {
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
[[gnu::noinline]] inline CoreContact penetration_contact(const ColdStart& start) {
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
[[gnu::noinline]] inline bool begin_cold(const Shape& a, const Shape& b, const Pose& X_AB,
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

}  // namespace contactlab::plugins::gjk_epa
