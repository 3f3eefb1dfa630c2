// The capsule pair of the primitive narrow phase (see capsule_pairs.hpp).
#include "capsule_pairs.hpp"

#include <contactlab/geometry/segment.hpp>

#include "primitive_common.hpp"

namespace contactlab::plugins {

ContactGeometry capsule_capsule(const Shape& a, const Pose& X_WA, const Shape& b,
                                const Pose& X_WB) {
  const Vec3 half_axis_a_W = a.half_length_m * X_WA.R.col(2);
  const Vec3 half_axis_b_W = b.half_length_m * X_WB.R.col(2);
  const Vec3 a0_W = X_WA.p - half_axis_a_W, a1_W = X_WA.p + half_axis_a_W;
  const Vec3 b0_W = X_WB.p - half_axis_b_W, b1_W = X_WB.p + half_axis_b_W;
  const geometry::SegmentClosestPoints closest =
      geometry::closest_segment_points(a0_W, a1_W, b0_W, b1_W);

  // Intersecting segments: the Minkowski difference of the cores is a flat parallelogram (or a
  // segment) through the origin, left fastest along its normal z_A × z_B (or any direction
  // perpendicular to collinear segments: A's +x axis).
  Vec3 fallback_W = X_WA.R.col(0);
  const Vec3 cross_W = X_WA.R.col(2).cross(X_WB.R.col(2));
  if (cross_W.squaredNorm() > 1e-20) {
    fallback_W = cross_W.normalized();
    if (fallback_W.dot(X_WB.p - X_WA.p) < 0.0) fallback_W = -fallback_W;
  }
  const double coincident_m =
      primitive::kRelativeTolerance * geometry::coordinate_scale(a0_W, a1_W, b0_W, b1_W);
  return primitive::swept_points(closest.point_p, a.radius_m, closest.point_q, b.radius_m,
                                 fallback_W, coincident_m);
}

}  // namespace contactlab::plugins
