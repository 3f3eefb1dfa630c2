// A/B swapping of narrow-phase answers (contactlab geometry library: linked into the plugin,
// outside the plugin ABI handshake).
//
// A narrow phase that solves a pair in one order only (a closed form for a box against a
// half-space, a solver run with the half-space as B) answers the host's other order by solving
// with the roles exchanged and exchanging them back: the signed distance is symmetric, the normal
// from A to B changes sign, and the witness points trade places, so that the ContactGeometry
// contract point_b_W − point_a_W = distance_m · normal_W still holds exactly.
//
// Used by every narrow phase: primitive (every pair given as B–A), gjk_epa and mpr (a half-space
// given as A).
#pragma once

#include "contactlab/contact.hpp"

namespace contactlab::geometry {

/// The same contact seen with A and B exchanged: distance unchanged, normal negated, witness
/// points swapped.
inline ContactGeometry swapped(const ContactGeometry& geometry) {
  ContactGeometry out;
  out.distance_m = geometry.distance_m;
  out.normal_W = -geometry.normal_W;
  out.point_a_W = geometry.point_b_W;
  out.point_b_W = geometry.point_a_W;
  return out;
}

/// swapped() applied to every point of a manifold, in place.
inline void swap_roles(ContactManifold& manifold) {
  for (int i = 0; i < manifold.count; ++i) manifold.points[i] = swapped(manifold.points[i]);
}

}  // namespace contactlab::geometry
