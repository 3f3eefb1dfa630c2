// The sphere pairs of the primitive narrow phase (see sphere_pairs.hpp).
#include "sphere_pairs.hpp"

#include <contactlab/geometry/segment.hpp>

namespace contactlab::plugins {

using primitive::kRelativeTolerance;

ContactGeometry sphere_sphere(double radius_a_m, const Vec3& p_WA, double radius_b_m,
                              const Vec3& p_WB) {
  ContactGeometry out;
  primitive::sphere_sphere_into(radius_a_m, p_WA, radius_b_m, p_WB, out);
  return out;
}

ContactGeometry sphere_box(double radius_m, const Vec3& p_WA, const Vec3& half_extents_m,
                           const Pose& X_WB) {
  ContactGeometry out;
  primitive::sphere_box_into(radius_m, p_WA, half_extents_m, 0.0, X_WB, out);
  return out;
}

ContactGeometry sphere_capsule(const Shape& sphere, const Pose& X_WA, const Shape& capsule,
                               const Pose& X_WB) {
  const Vec3 half_axis_W = capsule.half_length_m * X_WB.R.col(2);
  const Vec3 end0_W = X_WB.p - half_axis_W;
  const Vec3 end1_W = X_WB.p + half_axis_W;
  const Vec3 axis_W = end1_W - end0_W;
  const double axis_squared_m2 = axis_W.squaredNorm();
  const double t = axis_squared_m2 > 0.0
                       ? std::clamp((X_WA.p - end0_W).dot(axis_W) / axis_squared_m2, 0.0, 1.0)
                       : 0.0;
  const Vec3 closest_W = end0_W + t * axis_W;
  const double coincident_m =
      kRelativeTolerance * geometry::coordinate_scale(X_WA.p, end0_W, end1_W, closest_W);
  return primitive::swept_points(X_WA.p, sphere.radius_m, closest_W, capsule.radius_m,
                                 -X_WB.R.col(0), coincident_m);
}

}  // namespace contactlab::plugins
