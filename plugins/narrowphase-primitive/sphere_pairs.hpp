// The sphere pairs of the primitive narrow phase: sphere–sphere, sphere–box and sphere–capsule, a
// sphere's centre against the other shape's closest point (see primitive_narrow_phase.hpp for the
// contract and the smoothing rule). sphere_sphere_into() and sphere_box_into() are defined here,
// inline, because the plugin's query() answers these pairs before its dispatch: their closed
// forms are the whole cost of the query.
#pragma once

#include <algorithm>
#include <cmath>

#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>
#include <contactlab/shapes.hpp>

#include "primitive_common.hpp"

namespace contactlab::plugins {

/// Sphere A (radius_a_m, centre p_WA) and sphere B (radius_b_m, centre p_WB). When the centres
/// coincide (closer than 1e-100 m) the direction is undefined; the normal is then +z of world.
ContactGeometry sphere_sphere(double radius_a_m, const Vec3& p_WA, double radius_b_m,
                              const Vec3& p_WB);

/// Sphere A (radius_m, centre p_WA) and box B (half_extents_m along the axes of its frame, pose
/// X_WB; no smoothing). Exact also when the centre is inside the box: the sphere then leaves
/// through the nearest face (ties: lowest axis index, + face before −), so the normal from A to B
/// is minus that face's outward normal and distance = −(depth of the centre below that face + r).
ContactGeometry sphere_box(double radius_m, const Vec3& p_WA, const Vec3& half_extents_m,
                           const Pose& X_WB);

/// Sphere A and capsule B (axis segment along B's z, from −half_length_m to +half_length_m): the
/// sphere centre against the closest point of the segment. When the centre lies on the segment
/// (within 1e-12 of the coordinates' magnitude) the sphere leaves along B's +x axis (normal −x_B)
/// and distance = −(r_A + r_B).
ContactGeometry sphere_capsule(const Shape& sphere, const Pose& X_WA, const Shape& capsule,
                               const Pose& X_WB);

namespace primitive {

/// sphere_sphere() written into `out` (the plugin's manifold slot: no ContactGeometry copy).
[[gnu::always_inline]] inline void sphere_sphere_into(double radius_a_m, const Vec3& p_WA,
                                                      double radius_b_m, const Vec3& p_WB,
                                                      ContactGeometry& out) {
  const Vec3 d_W = p_WB - p_WA;
  const double centre_distance_squared_m2 = d_W.squaredNorm();
  double centre_distance_m = 0.0;
  Vec3 normal_W = Vec3::UnitZ();
  if (centre_distance_squared_m2 > kCoincidentSquared_m2) {
    centre_distance_m = std::sqrt(centre_distance_squared_m2);
    normal_W = d_W / centre_distance_m;
  }
  // Concentric spheres: every direction is a deepest one; +z of world is the documented choice.
  out.normal_W = normal_W;
  out.distance_m = centre_distance_m - radius_a_m - radius_b_m;
  out.point_a_W = p_WA + radius_a_m * normal_W;
  out.point_b_W = p_WB - radius_b_m * normal_W;
}

/// sphere_box written into `out`, for the box's core (half extents h) swept by box_radius_m, in
/// scalar code: this is the whole cost of the query.
inline void sphere_box_into(double radius_m, const Vec3& p_WA, const Vec3& h, double box_radius_m,
                            const Pose& X_WB, ContactGeometry& out) {
  const Mat3& R = X_WB.R;
  // The centre in the box frame B, where the box is the axis-aligned [−h, h].
  const double d_x = p_WA[0] - X_WB.p[0], d_y = p_WA[1] - X_WB.p[1], d_z = p_WA[2] - X_WB.p[2];
  const double c_x = R(0, 0) * d_x + R(1, 0) * d_y + R(2, 0) * d_z;
  const double c_y = R(0, 1) * d_x + R(1, 1) * d_y + R(2, 1) * d_z;
  const double c_z = R(0, 2) * d_x + R(1, 2) * d_y + R(2, 2) * d_z;
  // Closest point of the box = the centre clamped to the box (minsd/maxsd, no branches); when the
  // centre is outside, the segment from it to the centre is normal to the box surface, so the
  // sphere's nearest point lies on that segment.
  const double g_x = c_x - std::min(std::max(c_x, -h[0]), h[0]);
  const double g_y = c_y - std::min(std::max(c_y, -h[1]), h[1]);
  const double g_z = c_z - std::min(std::max(c_z, -h[2]), h[2]);
  const double gap_squared_m2 = g_x * g_x + g_y * g_y + g_z * g_z;

  // A centre within 1e-100 m of the surface goes to the inside branch, which is continuous with
  // this one there and needs no division by the gap.
  if (gap_squared_m2 > kCoincidentSquared_m2) [[likely]] {
    const double gap_m = std::sqrt(gap_squared_m2);
    // From the sphere towards the box: −R·g/|g|.
    const double scale = -1.0 / gap_m;
    const Vec3 n_W = scale * times(R, Vec3(g_x, g_y, g_z));
    out.distance_m = gap_m - radius_m - box_radius_m;
    out.normal_W = n_W;
    out.point_a_W = p_WA + radius_m * n_W;
    // The clamped point p_WA − R·g, written as p_WA + |g|·n, then swept by the box's radius.
    out.point_b_W = p_WA + (gap_m - box_radius_m) * n_W;
    return;
  }

  // Centre inside the closed box (or on its surface): the minimum-translation exit is through the
  // nearest face. Faces are scanned axis 0..2, + before −, and only a strictly smaller depth
  // replaces the current one, which resolves ties deterministically.
  const Vec3 c_B(c_x, c_y, c_z);
  int exit_axis = 0;
  double exit_sign = 1.0;
  double exit_depth_m = h[0] - c_B[0];
  for (int axis = 0; axis < 3; ++axis) {
    for (const double sign : {1.0, -1.0}) {
      const double depth_m = h[axis] - sign * c_B[axis];
      if (depth_m < exit_depth_m) {
        exit_depth_m = depth_m;
        exit_axis = axis;
        exit_sign = sign;
      }
    }
  }
  Vec3 face_point_B = c_B;  // the centre projected onto the exit face
  face_point_B[exit_axis] = exit_sign * h[exit_axis];

  const Vec3 face_normal_W = exit_sign * R.col(exit_axis);  // outward normal of the exit face
  // The sphere must move along +face normal to separate, so B lies along −face normal from A; this
  // also makes the normal continuous with the outside branch as the centre crosses the face.
  out.distance_m = -(exit_depth_m + radius_m) - box_radius_m;
  out.normal_W = -face_normal_W;
  out.point_b_W = X_WB.transform_point(face_point_B) + box_radius_m * face_normal_W;
  out.point_a_W = p_WA - radius_m * face_normal_W;
}

}  // namespace primitive

}  // namespace contactlab::plugins
