// Closed forms against a half-space (see half_space.hpp).
#include "contactlab/geometry/half_space.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "contactlab/geometry/manifold.hpp"

namespace contactlab::geometry {

namespace {

// Most candidate points of one patch: a box's 8 corners.
constexpr int kMaxCandidates = 8;

/// The boundary plane's outward normal in world, normalised again (see the header).
Vec3 normal_W(const Vec3& normal_H, const Pose& X_WH) {
  return X_WH.R * normal_H.normalized();
}

/// Candidate points of one contact patch, all with the pair's normal, before reduction.
struct PatchCandidates {
  std::array<ContactGeometry, kMaxCandidates> points{};
  int count = 0;

  /// The core point point_W of A, swept by radius_m, against the plane through p_WH with outward
  /// normal n_W: A's lowest point and its projection onto the plane, at their signed distance.
  void add(const Vec3& point_W, double radius_m, const Vec3& n_W, const Vec3& p_WH) {
    const double height_m = n_W.dot(point_W - p_WH);
    ContactGeometry& g = points[count++];
    g.point_a_W = point_W - radius_m * n_W;
    g.point_b_W = point_W - height_m * n_W;
    g.normal_W = -n_W;
    g.distance_m = height_m - radius_m;
  }
};

/// Keeps at most max_points of the candidates in `out`, chosen by choose_patch_points;
/// distances are compared in the tangent plane of the pair's normal (every candidate's).
void reduce_patch(const PatchCandidates& candidates, int max_points, double length_scale_m,
                  ContactManifold& out) {
  const Vec3& n_W = candidates.points[0].normal_W;
  // Each candidate's position (the middle of its witness points) in the tangent plane.
  std::array<Vec3, kMaxCandidates> tangential_W;
  std::array<double, kMaxCandidates> distance_m;
  for (int i = 0; i < candidates.count; ++i) {
    const Vec3 middle_W = 0.5 * (candidates.points[i].point_a_W + candidates.points[i].point_b_W);
    tangential_W[i] = middle_W - n_W.dot(middle_W) * n_W;
    distance_m[i] = candidates.points[i].distance_m;
  }
  std::array<int, max_manifold_points> chosen;
  out.count = choose_patch_points(tangential_W.data(), distance_m.data(), candidates.count, n_W,
                                  max_points, length_scale_m, chosen);
  for (int k = 0; k < out.count; ++k) out.points[k] = candidates.points[chosen[k]];
}

}  // namespace

ContactGeometry support_half_space(const Shape& shape, const Pose& X_WA, const Shape& half_space,
                                   const Pose& X_WH) {
  const Vec3 n_W = normal_W(half_space.normal, X_WH);
  const Vec3 deepest_W = support_W(shape, X_WA, -n_W);
  const double height_m = n_W.dot(deepest_W - X_WH.p);  // below the plane when negative
  ContactGeometry out;
  out.distance_m = height_m;
  out.normal_W = -n_W;  // the half-space lies along −n_W as seen from A
  out.point_a_W = deepest_W;
  out.point_b_W = deepest_W - height_m * n_W;  // projected onto the boundary plane
  return out;
}

ContactGeometry sphere_half_space(double radius_m, const Vec3& p_WA, const Vec3& normal_G,
                                  const Pose& X_WH) {
  const Vec3 n_W = normal_W(normal_G, X_WH);
  // Height of the sphere centre above the boundary plane (negative below it).
  const double height_m = n_W.dot(p_WA - X_WH.p);
  ContactGeometry out;
  out.distance_m = height_m - radius_m;
  out.normal_W = -n_W;
  out.point_a_W = p_WA - radius_m * n_W;  // lowest point of the sphere
  out.point_b_W = p_WA - height_m * n_W;  // centre projected onto the boundary plane
  return out;
}

void capsule_half_space(const Shape& capsule, const Pose& X_WA, const Shape& half_space,
                        const Pose& X_WH, int max_points, ContactManifold& out) {
  const Vec3 n_W = normal_W(half_space.normal, X_WH);
  const Vec3 half_axis_W = capsule.half_length_m * X_WA.R.col(2);
  PatchCandidates candidates;
  // Each end sphere's lowest point.
  candidates.add(X_WA.p - half_axis_W, capsule.radius_m, n_W, X_WH.p);
  candidates.add(X_WA.p + half_axis_W, capsule.radius_m, n_W, X_WH.p);
  reduce_patch(candidates, max_points, capsule.half_length_m + capsule.radius_m, out);
}

void box_half_space(const Shape& box, const Pose& X_WA, const Shape& half_space, const Pose& X_WH,
                    int max_points, ContactManifold& out) {
  const Vec3 n_W = normal_W(half_space.normal, X_WH);
  // The core's half extents: shrunk by the smoothing radius, never negative.
  const double r = box.smoothing_radius_m;
  const Vec3 h =
      r == 0.0 ? box.half_extents_m : Vec3((box.half_extents_m - Vec3::Constant(r)).cwiseMax(0.0));
  PatchCandidates candidates;
  for (int corner = 0; corner < 8; ++corner) {
    // Corner bits: bit 0 for x, bit 1 for y, bit 2 for z (set: +h).
    const Vec3 signs((corner & 1) ? 1.0 : -1.0, (corner & 2) ? 1.0 : -1.0,
                     (corner & 4) ? 1.0 : -1.0);
    candidates.add(X_WA.transform_point(signs.cwiseProduct(h)), r, n_W, X_WH.p);
  }
  reduce_patch(candidates, max_points, box.half_extents_m.maxCoeff(), out);
}

void cylinder_half_space(const Shape& cylinder, const Pose& X_WA, const Shape& half_space,
                         const Pose& X_WH, int max_points, ContactManifold& out) {
  const Vec3 n_W = normal_W(half_space.normal, X_WH);
  const double r = cylinder.smoothing_radius_m;
  const double radius_m = std::max(0.0, cylinder.radius_m - r);
  const double half_length_m = std::max(0.0, cylinder.half_length_m - r);
  // Direction into the half-space, in the cylinder's frame. The support of a cylinder along d is
  // the rim point of the cap on d's side of the axis, in the direction of d's radial part.
  const Vec3 d_A = -(X_WA.R.transpose() * n_W);
  const double radial = std::hypot(d_A.x(), d_A.y());
  const Vec3 u_A = radial > 0.0 ? Vec3(d_A.x() / radial, d_A.y() / radial, 0.0) : Vec3::UnitX();
  const Vec3 v_A(-u_A.y(), u_A.x(), 0.0);
  const Vec3 cap_A(0.0, 0.0, (d_A.z() < 0.0 ? -1.0 : 1.0) * half_length_m);

  PatchCandidates candidates;
  auto add_rim_point = [&](const Vec3& point_A) {
    candidates.add(X_WA.transform_point(point_A), r, n_W, X_WH.p);
  };
  add_rim_point(cap_A + radius_m * u_A);  // the support point: the deepest
  add_rim_point(cap_A + radius_m * v_A);
  add_rim_point(cap_A - radius_m * v_A);
  add_rim_point(cap_A - radius_m * u_A);
  add_rim_point(-cap_A + radius_m * u_A);  // the other cap, below the axis as well
  reduce_patch(candidates, max_points, std::max(cylinder.radius_m, cylinder.half_length_m), out);
}

}  // namespace contactlab::geometry
