// Closed forms against a half-space (contactlab geometry library: linked into the plugin, outside
// the plugin ABI handshake).
//
// The half-space B is the solid {x : n·x ≤ 0} of its frame H at pose X_WH, n = the shape's
// `normal` (normalised here, so that a hand-built Shape with a non-unit normal still gives a true
// distance). A convex shape A meets it deepest at its support point along −n_W: the signed
// distance is that point's height above the boundary plane, the normal from A to B is −n_W, and
// B's witness point is A's projected onto the plane. Exact, no iteration, for every shape whose
// support mapping is exact.
//
// - support_half_space(): any shape, by its support mapping (one point): the gjk_epa and mpr
//   narrow phases' pairs with a half-space.
// - sphere_half_space(), capsule_half_space(), box_half_space(), cylinder_half_space(): the
//   primitive narrow phase's closed forms, which also report the other points of a flat contact
//   (a box's corners, a cylinder cap's rim, a capsule's two ends): every candidate point of the
//   core is taken with its own height above the plane minus the sweep radius (the smoothing
//   radius; a capsule's radius), and at most max_points (1..4) of those that touch or penetrate
//   (own distance ≤ 1e-12 of the shape's size) are kept by choose_patch_points(): the
//   deepest, the one farthest from it, then the ones spanning the largest triangles on either side
//   of that diagonal. Every point has the pair's normal −n_W and satisfies the ContactGeometry
//   contract. With a smoothing radius the points are core points moved by the radius along the
//   normal: on the rounded surface (the plane's normal lies in the core's normal cone at a corner
//   or rim point).
//
// Nothing here allocates.
#pragma once

#include "contactlab/contact.hpp"
#include "contactlab/math.hpp"
#include "contactlab/shapes.hpp"

namespace contactlab::geometry {

/// Shape A (any type but half_space) at pose X_WA against half-space B at pose X_WH: A's support
/// point along −n_W and its projection onto the boundary plane; distance n_W·(support − p_WH).
ContactGeometry support_half_space(const Shape& shape, const Pose& X_WA, const Shape& half_space,
                                   const Pose& X_WH);

/// Sphere A (radius_m, centre p_WA) and half-space B (normal_G in its frame, pose X_WH). Distance
/// n_W·(p_WA − p_WH) − r; the normal from the sphere to the half-space is −n_W.
ContactGeometry sphere_half_space(double radius_m, const Vec3& p_WA, const Vec3& normal_G,
                                  const Pose& X_WH);

/// Capsule A and half-space B: the segment endpoints' heights above the plane minus the radius.
/// Points: the deepest endpoint (ties: the −z end), then the other one when it touches or
/// penetrates (a capsule lying on the plane reports both ends).
void capsule_half_space(const Shape& capsule, const Pose& X_WA, const Shape& half_space,
                        const Pose& X_WH, int max_points, ContactManifold& out);

/// Box A and half-space B: the corners' heights above the plane (minus the smoothing radius).
/// Points: the deepest corner, then the other corners that touch or penetrate (a box resting flat
/// reports its 4 bottom corners; more than 4 penetrating corners are reduced as described above).
void box_half_space(const Shape& box, const Pose& X_WA, const Shape& half_space, const Pose& X_WH,
                    int max_points, ContactManifold& out);

/// Cylinder A (axis along A's z) and half-space B: the core's support point along −n (a point of
/// the rim of the lower cap; +x of A when the cap is exactly parallel to the plane) minus the
/// smoothing radius. Further points, when they touch or penetrate: the same cap's rim at 90°, 180°
/// and 270° from the deepest point (a cylinder standing on its cap reports 4 rim points), and the
/// other cap's rim point below the first (a cylinder lying on its side reports both ends).
void cylinder_half_space(const Shape& cylinder, const Pose& X_WA, const Shape& half_space,
                         const Pose& X_WH, int max_points, ContactManifold& out);

}  // namespace contactlab::geometry
