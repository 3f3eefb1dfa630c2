// The capsule pair of the primitive narrow phase: capsule–capsule, the closest points of the two
// axis segments swept by the radii (see primitive_narrow_phase.hpp for the contract). A sphere
// against a capsule is in sphere_pairs.hpp; a capsule against a half-space is the geometry
// library's closed form (contactlab/geometry/half_space.hpp).
#pragma once

#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>
#include <contactlab/shapes.hpp>

namespace contactlab::plugins {

/// Capsule A and capsule B: exact closest points of the two axis segments
/// (geometry::closest_segment_points), each swept by its radius. When the segments intersect
/// (closer than 1e-12 of the coordinates' magnitude) the normal is the common perpendicular
/// ±(z_A × z_B) (sign towards B's centre, + on a tie), or A's +x axis for collinear segments, and
/// distance = −(r_A + r_B).
ContactGeometry capsule_capsule(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB);

}  // namespace contactlab::plugins
