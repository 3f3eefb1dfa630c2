// The contact of the cores in A's frame (CoreContact), what a one-point answer gives, and
// GJK's stopping rule.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <contactlab/shapes.hpp>

#include "cache_entry.hpp"
#include "signed_volumes.hpp"

namespace contactlab::plugins::gjk_epa {

// Contact between the cores, in A's frame.
struct CoreContact {
  double distance_m = 0.0;      // signed
  Vec3 normal = Vec3::UnitZ();  // unit, from A to B
  Vec3 point_a = Vec3::Zero();  // on A's core
  Vec3 point_b = Vec3::Zero();  // on B's core
  std::array<Vec3, 4> warm_directions;
  int warm_count = 0;
  // Hull–hull and hull–box pairs after EPA: points of M as vertex pairs (WarmStart::vertex_pairs),
  // the face's three, the polytope's lowest along the normal, then those of the live faces nearest
  // to the origin. With warm_pair_count > 0 they replace warm_directions in the cache.
  std::array<VertexPair, kMaxWarmPairs> warm_pairs{};
  int warm_pair_count = 0;
  // Separated cores whose closest point of M is one point of GJK's (one_point_contact()): the
  // witnesses are points of the cores, cached as a pair between polytope cores
  // (WarmStart::closest_pair),
  // with the hull vertices they are (SupportPoint::vertex_a, vertex_b).
  bool one_point = false;
  std::uint32_t vertex_a = 0;
  std::uint32_t vertex_b = 0;
};

// R·x + t written out. Eigen's assignment of that expression, instantiated at several places in
// GjkEpaNarrowPhase::query(), was compiled out of line there (a call per point).
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
inline bool one_point_certifies(const SupportPoint& p, double vv, double tolerance, double scale) {
  const double dw = -p.d.dot(p.w);
  if (!(dw > 0.0)) return false;
  const double norm_v = std::sqrt(vv);
  const double lower = dw / p.d.norm();
  return vv - norm_v * lower <= tolerance * vv + 8.0 * kMachineEpsilon * scale * norm_v;
}

// Witness points a, b around their midpoint such that b − a = distance·normal holds to rounding.
inline void set_witnesses(CoreContact& c, const Vec3& a, const Vec3& b) {
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
inline CoreContact one_point_contact(const SupportPoint& p, bool polytope_cores) {
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

}  // namespace contactlab::plugins::gjk_epa
