// Closest points of two line segments (contactlab geometry library: linked into the plugin,
// outside the plugin ABI handshake).
//
// The core of every pair of swept segments: a capsule is its axis segment swept by its radius, so
// the distance of two capsules is that of their axes less both radii; the edges of two boxes meet
// where their segments are closest. closest_segment_points() stays exact for nearly parallel
// segments, where the textbook formula (the stationary point of |p(s) − q(t)|² from a 2×2 system)
// loses every digit: the cross product of the directions carries the answer, and it is computed
// with compensated products when the segments are within 1e-6 rad of parallel.
//
// Used by narrowphase-primitive (capsule–capsule; the edges of box–box). gjk_epa and mpr have no
// segment–segment closest points of their own: their capsules are GJK/MPR cores.
#pragma once

#include <algorithm>
#include <cmath>

#include "contactlab/math.hpp"

namespace contactlab::geometry {

/// a·b − c·d with one rounding (Kahan's algorithm with fused multiply–adds; Jeannerod, Louvet &
/// Muller 2013): no cancellation error when the two products nearly agree.
inline double difference_of_products(double a, double b, double c, double d) {
  const double cd = c * d;
  const double cd_error = std::fma(-c, d, cd);
  return std::fma(a, b, -cd) + cd_error;
}

/// u × v with every component from difference_of_products.
inline Vec3 compensated_cross(const Vec3& u, const Vec3& v) {
  return Vec3(difference_of_products(u.y(), v.z(), u.z(), v.y()),
              difference_of_products(u.z(), v.x(), u.x(), v.z()),
              difference_of_products(u.x(), v.y(), u.y(), v.x()));
}

/// d_p × d_q for two segment directions; when they are nearly parallel (sin(angle) ≤ 1e-6) the
/// plain cross product has relative error ε/sin, so it is recomputed with compensated differences
/// of products, which keep it accurate to a few ε.
inline Vec3 segment_cross(const Vec3& d_p, const Vec3& d_q) {
  const Vec3 n = d_p.cross(d_q);
  return n.squaredNorm() <= 1e-12 * d_p.squaredNorm() * d_q.squaredNorm()
             ? compensated_cross(d_p, d_q)
             : n;
}

/// Largest absolute coordinate of the points [m]: the magnitude against which rounding is judged.
inline double coordinate_scale(const Vec3& p, const Vec3& q, const Vec3& r, const Vec3& s) {
  return std::max({p.cwiseAbs().maxCoeff(), q.cwiseAbs().maxCoeff(), r.cwiseAbs().maxCoeff(),
                   s.cwiseAbs().maxCoeff()});
}

/// Closest points of the segments p0–p1 and q0–q1: p0 + s(p1 − p0) and q0 + t(q1 − q0), s, t in
/// [0, 1], and their squared distance.
struct SegmentClosestPoints {
  double s = 0.0;
  double t = 0.0;
  Vec3 point_p = Vec3::Zero();
  Vec3 point_q = Vec3::Zero();
  double distance_squared_m2 = 0.0;
};

/// Closest points of the segments p0–p1 and q0–q1 (either may have zero length): the minimum over
/// the interior stationary point (computed from cross products, which stay accurate for nearly
/// parallel segments; Ericson 2005 §5.1.9) and the four endpoint–segment closest points. For
/// parallel segments whose projections overlap, the midpoint of the overlap is returned when it is
/// as close (within rounding).
SegmentClosestPoints closest_segment_points(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                            const Vec3& q1);

}  // namespace contactlab::geometry
