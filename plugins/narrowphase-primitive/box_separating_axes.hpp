// The separating-axis test of two box cores (Gottschalk, Lin & Manocha 1996), for the box–box
// pair of the primitive narrow phase (box_box.hpp): the 15 candidate axes and the one of largest
// separation. Internal to the plugin.
#pragma once

#include <contactlab/math.hpp>

#include "box_pair.hpp"

namespace contactlab::plugins::primitive {

enum class AxisKind { face_a, face_b, edges };

/// A candidate axis of the separating-axis test: unit direction u_A in A's frame (either sign)
/// and the separation of the cores along it (negative: overlap of their projections).
struct Axis {
  AxisKind kind = AxisKind::face_a;
  int i = 0, j = 0;
  Vec3 u_A = Vec3::UnitX();
  double separation_m = -kInfinity;
  // u_A before normalisation (e_i × b_j for an edge pair, exact in A's frame; u_A for a face):
  // what follows the test may start from it while u_A's square root and division are pending.
  Vec3 direction_A = Vec3::UnitX();
};

/// Separation along the unit edge-pair axis u/|u|, u = e_i × b_j, one pair at a time (the same
/// quantities as in separating_axes); −∞ for parallel edges (|u| ≤ 1e-150), whose cross product is
/// no direction.
double edge_separation(const BoxPairInA& pair, int i, int j);

/// The separating-axis test in A's frame over the 15 axes (Gottschalk, Lin & Manocha 1996): faces
/// of A, faces of B, edge pairs e_i × b_j (parallel edges skipped: their cross product is no
/// direction). Returns the axis of largest separation. Ties prefer A's faces, then B's faces,
/// then edges: a later kind must beat the best by tolerance_m, because faces give stable patches.
Axis separating_axes(const BoxPairInA& pair, double tolerance_m);

/// The unit edge axis e_i × b_j in A's frame.
inline Vec3 edge_axis(const Mat3& R_AB, int i, int j) {
  return Vec3(Vec3::Unit(i).cross(Vec3(R_AB.col(j)))).normalized();
}

}  // namespace contactlab::plugins::primitive
