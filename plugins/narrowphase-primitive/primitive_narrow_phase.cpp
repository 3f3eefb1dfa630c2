#include "primitive_narrow_phase.hpp"

#include <cmath>
#include <string>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

namespace {

// Below this squared centre distance (1e-100 m) the direction between two points is taken as
// undefined: far below any physical length, and far above the range where the squared norm
// underflows and Δ/|Δ| would lose its unit length.
constexpr double kCoincidentSquared_m2 = 1e-200;

}  // namespace

ContactGeometry sphere_sphere(double radius_a_m, const Vec3& p_WA, double radius_b_m,
                              const Vec3& p_WB) {
  const Vec3 d_W = p_WB - p_WA;
  const double centre_distance_squared_m2 = d_W.squaredNorm();
  ContactGeometry out;
  double centre_distance_m = 0.0;
  if (centre_distance_squared_m2 > kCoincidentSquared_m2) {
    centre_distance_m = std::sqrt(centre_distance_squared_m2);
    out.normal_W = d_W / centre_distance_m;
  } else {
    // Concentric spheres: every direction is a deepest one; +z of world is the documented choice.
    out.normal_W = Vec3::UnitZ();
  }
  out.distance_m = centre_distance_m - radius_a_m - radius_b_m;
  out.point_a_W = p_WA + radius_a_m * out.normal_W;
  out.point_b_W = p_WB - radius_b_m * out.normal_W;
  return out;
}

ContactGeometry sphere_half_space(double radius_m, const Vec3& p_WA, const Vec3& normal_G,
                                  const Pose& X_WG) {
  // Normalised again so that a hand-built Shape with a non-unit normal still gives a true distance.
  const Vec3 n_W = X_WG.R * normal_G.normalized();
  // Height of the sphere centre above the boundary plane (negative below it).
  const double height_m = n_W.dot(p_WA - X_WG.p);
  ContactGeometry out;
  out.distance_m = height_m - radius_m;
  // The half-space lies along −n_W as seen from the sphere.
  out.normal_W = -n_W;
  out.point_a_W = p_WA - radius_m * n_W;  // lowest point of the sphere
  out.point_b_W = p_WA - height_m * n_W;  // centre projected onto the boundary plane
  return out;
}

ContactGeometry sphere_box(double radius_m, const Vec3& p_WA, const Vec3& half_extents_m,
                           const Pose& X_WB) {
  // Work in the box frame B, where the box is the axis-aligned [−h, h].
  const Vec3 c_B = X_WB.R.transpose() * (p_WA - X_WB.p);
  const Vec3& h = half_extents_m;
  // Closest point of the box = the centre clamped to the box; when the centre is outside, the
  // segment from it to the centre is normal to the box surface, so the sphere's nearest point
  // lies on that segment.
  const Vec3 closest_B = c_B.cwiseMax(-h).cwiseMin(h);
  const Vec3 box_to_centre_B = c_B - closest_B;
  const double gap_squared_m2 = box_to_centre_B.squaredNorm();

  ContactGeometry out;
  // A centre within 1e-100 m of the surface goes to the inside branch, which is continuous with
  // this one there and needs no division by the gap.
  if (gap_squared_m2 > kCoincidentSquared_m2) {
    const double gap_m = std::sqrt(gap_squared_m2);
    const Vec3 n_B = -box_to_centre_B / gap_m;  // from the sphere towards the box
    out.distance_m = gap_m - radius_m;
    out.normal_W = X_WB.R * n_B;
    out.point_b_W = X_WB.transform_point(closest_B);
    out.point_a_W = p_WA + radius_m * out.normal_W;
    return out;
  }

  // Centre inside the closed box (or on its surface): the minimum-translation exit is through the
  // nearest face. Faces are scanned axis 0..2, + before −, and only a strictly smaller depth
  // replaces the current one, which resolves ties deterministically.
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
  Vec3 face_normal_B = Vec3::Zero();  // outward normal of the exit face
  face_normal_B[exit_axis] = exit_sign;
  Vec3 face_point_B = c_B;  // the centre projected onto the exit face
  face_point_B[exit_axis] = exit_sign * h[exit_axis];

  const Vec3 face_normal_W = X_WB.R * face_normal_B;
  // The sphere must move along +face normal to separate, so B lies along −face normal from A; this
  // also makes the normal continuous with the outside branch as the centre crosses the face.
  out.distance_m = -(exit_depth_m + radius_m);
  out.normal_W = -face_normal_W;
  out.point_b_W = X_WB.transform_point(face_point_B);
  out.point_a_W = p_WA - radius_m * face_normal_W;
  return out;
}

ContactGeometry swap_order(const ContactGeometry& geometry) {
  ContactGeometry out;
  out.distance_m = geometry.distance_m;
  out.normal_W = -geometry.normal_W;
  out.point_a_W = geometry.point_b_W;
  out.point_b_W = geometry.point_a_W;
  return out;
}

PrimitiveNarrowPhase::PrimitiveNarrowPhase(const ParameterValues& /*params*/) {}

ParameterSchema PrimitiveNarrowPhase::schema() {
  return {};
}

bool PrimitiveNarrowPhase::supports(ShapeType a, ShapeType b) const {
  auto pairs_with_sphere = [](ShapeType t) {
    return t == ShapeType::sphere || t == ShapeType::half_space || t == ShapeType::box;
  };
  return (a == ShapeType::sphere && pairs_with_sphere(b)) ||
         (b == ShapeType::sphere && pairs_with_sphere(a));
}

void PrimitiveNarrowPhase::query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                                 NarrowPhaseCache& /*cache*/, ContactManifold& manifold) {
  // Closed forms need no warm start; the cache stays untouched. One point per pair.
  manifold.count = 1;
  ContactGeometry& out = manifold.points[0];
  if (a.type == ShapeType::sphere) {
    switch (b.type) {
      case ShapeType::sphere:
        out = sphere_sphere(a.radius_m, X_WA.p, b.radius_m, X_WB.p);
        return;
      case ShapeType::half_space:
        out = sphere_half_space(a.radius_m, X_WA.p, b.normal, X_WB);
        return;
      case ShapeType::box:
        out = sphere_box(a.radius_m, X_WA.p, b.half_extents_m, X_WB);
        return;
      default:
        break;
    }
  } else if (b.type == ShapeType::sphere) {
    // B–A order: solve with the sphere first, then exchange the roles.
    switch (a.type) {
      case ShapeType::half_space:
        out = swap_order(sphere_half_space(b.radius_m, X_WB.p, a.normal, X_WA));
        return;
      case ShapeType::box:
        out = swap_order(sphere_box(b.radius_m, X_WB.p, a.half_extents_m, X_WA));
        return;
      default:
        break;
    }
  }
  throw SimulationError(std::string("primitive narrow phase: unsupported pair ") +
                        shape_type_name(a.type) + "–" + shape_type_name(b.type) +
                        "; it handles pairs with at least one sphere");
}

}  // namespace contactlab::plugins
