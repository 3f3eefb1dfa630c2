// The same contact seen with A and B exchanged, for narrow phases that answer a pair (A, B) by
// solving (B, A): the normal negated, the witness points swapped, the distance unchanged.
//
// Used by the MPR narrow phase (a half-space A against a convex B). The gjk_epa narrow phase's
// swapped() and the primitive narrow phase's swap_order() are the same.
#pragma once

#include <contactlab/contact.hpp>

namespace contactlab::geometry {

inline ContactGeometry swap_roles(const ContactGeometry& geometry) {
  ContactGeometry out;
  out.distance_m = geometry.distance_m;
  out.normal_W = -geometry.normal_W;
  out.point_a_W = geometry.point_b_W;
  out.point_b_W = geometry.point_a_W;
  return out;
}

}  // namespace contactlab::geometry
