// The signed distance of a convex shape and a half-space in closed form, from one support point:
// the shape's deepest point below the boundary plane.
//
// Used by the MPR narrow phase for every pair with a half-space (plugins/narrowphase-mpr). The
// gjk_epa narrow phase's shape_half_space is the same closed form in the same operations (its
// answers are these bit for bit); the primitive narrow phase has its own per shape (sphere, box,
// capsule, cylinder: the support point written out for each).
#pragma once

#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>
#include <contactlab/shapes.hpp>

namespace contactlab::geometry {

/// Convex shape A (any type but a half-space) at X_WA and the half-space B = {x : n·x ≤ 0} in its
/// frame G at X_WG, n = normal_G (normalised here, so that a hand-built Shape with a non-unit
/// normal still gives a true distance). The deepest point of A is its support point along −n_W;
/// its height above the boundary plane is the signed distance, the normal from A to the
/// half-space is −n_W, and B's witness point is A's projected onto the plane. Exact.
ContactGeometry convex_half_space(const Shape& a, const Pose& X_WA, const Vec3& normal_G,
                                  const Pose& X_WG);

}  // namespace contactlab::geometry
