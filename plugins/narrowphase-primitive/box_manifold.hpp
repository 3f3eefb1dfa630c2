// The contact of two overlapping (or touching) box cores, for the box–box pair of the primitive
// narrow phase (box_box.hpp): along a face axis the clipped polygon of the reference face and the
// incident face, reduced to the manifold's points; along an edge-pair axis one point between the
// two edges. Internal to the plugin.
#pragma once

#include <contactlab/contact.hpp>

#include "box_pair.hpp"
#include "box_separating_axes.hpp"

namespace contactlab::plugins::primitive {

/// Edge–edge contact of overlapping cores along the edge-pair axis `best`: one point, between the
/// two support edges' closest points, at the axis' separation.
void box_box_edge_contact(const BoxBoxContact& f, const Axis& best, ContactManifold& out);

/// Face contact of overlapping (or touching) cores along the face axis `best`: the vertices of the
/// incident face clipped to the reference face that lie within r_A + r_B (+ the touching
/// tolerance) of the reference plane, at most max_points of them (geometry::choose_patch_points);
/// with max_points 1 the incident face's deepest corner when it lies over the reference face.
void box_box_face_contact(const BoxBoxContact& f, const Axis& best, int max_points,
                          ContactManifold& out);

}  // namespace contactlab::plugins::primitive
