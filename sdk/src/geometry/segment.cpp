// Closest points of two line segments (see segment.hpp).
#include "contactlab/geometry/segment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace contactlab::geometry {

namespace {

double clamp01(double value) {
  return std::clamp(value, 0.0, 1.0);
}

}  // namespace

SegmentClosestPoints closest_segment_points(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                            const Vec3& q1) {
  const Vec3 d_p = p1 - p0;
  const Vec3 d_q = q1 - q0;
  const Vec3 w = q0 - p0;
  const double length_p_squared = d_p.squaredNorm();
  const double length_q_squared = d_q.squaredNorm();

  SegmentClosestPoints best;
  best.distance_squared_m2 = std::numeric_limits<double>::infinity();
  auto consider = [&](double s, double t) {
    const Vec3 on_p = p0 + s * d_p;
    const Vec3 on_q = q0 + t * d_q;
    const double d2 = (on_q - on_p).squaredNorm();
    if (d2 < best.distance_squared_m2) best = {s, t, on_p, on_q, d2};
  };

  // Interior stationary point of |p(s) − q(t)|²: there p(s) − q(t) is parallel to n = d_p × d_q.
  // Crossing p0 + s·d_p − q0 − t·d_q = λn with d_q and dotting with n isolates s. For nearly
  // parallel segments s is ill-conditioned, but only along the valley where the distance barely
  // changes; t is therefore not taken from its own formula but as the projection of p(s) onto q's
  // line, which removes the error across the valley, leaving a distance error of order ε·|q0 − p0|.
  const Vec3 n = segment_cross(d_p, d_q);
  const double n_squared = n.squaredNorm();
  if (n_squared > 0.0) {
    const double s = clamp01(w.cross(d_q).dot(n) / n_squared);
    consider(s, clamp01((p0 + s * d_p - q0).dot(d_q) / length_q_squared));
  }
  // Otherwise the minimum of the convex function lies on the boundary of [0, 1]²: an endpoint of
  // one segment against the other segment (Ericson 2005, Real-Time Collision Detection §5.1.9).
  consider(0.0, length_q_squared > 0.0 ? clamp01(-w.dot(d_q) / length_q_squared) : 0.0);
  consider(1.0, length_q_squared > 0.0 ? clamp01((p1 - q0).dot(d_q) / length_q_squared) : 0.0);
  consider(length_p_squared > 0.0 ? clamp01(w.dot(d_p) / length_p_squared) : 0.0, 0.0);
  consider(length_p_squared > 0.0 ? clamp01((q1 - p0).dot(d_p) / length_p_squared) : 0.0, 1.0);

  // Parallel segments (sin² of the angle ≤ 1e-12) with overlapping projections: every point of
  // the overlap is as close; its midpoint is the natural contact point. Taken only when its
  // distance equals the minimum within rounding, so the result stays exact.
  if (length_p_squared > 0.0 && length_q_squared > 0.0 &&
      n_squared <= 1e-12 * length_p_squared * length_q_squared) {
    const double s_q0 = w.dot(d_p) / length_p_squared;
    const double s_q1 = (q1 - p0).dot(d_p) / length_p_squared;
    const double low = std::max(0.0, std::min(s_q0, s_q1));
    const double high = std::min(1.0, std::max(s_q0, s_q1));
    if (low < high) {
      const double s = 0.5 * (low + high);
      const Vec3 on_p = p0 + s * d_p;
      const double t = clamp01((on_p - q0).dot(d_q) / length_q_squared);
      const Vec3 on_q = q0 + t * d_q;
      const double d2 = (on_q - on_p).squaredNorm();
      const double rounding_m = 16.0 * std::numeric_limits<double>::epsilon() *
                                (coordinate_scale(p0, p1, q0, q1) + std::sqrt(length_p_squared) +
                                 std::sqrt(length_q_squared));
      if (std::sqrt(d2) <= std::sqrt(best.distance_squared_m2) + rounding_m) {
        best = {s, t, on_p, on_q, d2};
      }
    }
  }
  return best;
}

}  // namespace contactlab::geometry
