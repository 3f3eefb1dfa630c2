// Two box cores in the frame of box A, and the small operations every box–box step uses on them:
// corners, support corners, clamps, separations along a direction, edge closest points (see
// box_box.hpp for the algorithm). Internal to the plugin. Everything here is inline: these run
// inside the loops of the separating-axis test and the closest-feature search.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>

#include "primitive_common.hpp"

namespace contactlab::plugins::primitive {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A unit-vector component this small counts as zero when choosing the support edge of a box: both
// parallel edges are then tried.
inline constexpr double kSupportTieComponent = 1e-12;

/// Two box cores seen from A's frame, where A is the axis-aligned [−h_a, h_a]: B's axes are the
/// columns of R (= R_AB) and its centre is p (= p_AB). p_B = Rᵀp, so a point x of A's frame lies
/// at Rᵀx − p_B in B's frame.
struct BoxPairInA {
  Vec3 h_a;
  Vec3 h_b;
  Mat3 R;
  Vec3 p;
  Vec3 p_B;
};

/// The data of the box–box paths after the separating-axis test, and the way back to world. Each
/// path is a function of its own: in one large function the compiler spills the hot overlapping
/// path's values around the code of every other path.
struct BoxBoxContact {
  const Pose& X_WA;
  const Pose& X_WB;
  const BoxPairInA& pair;
  double r_a, r_b, size_m, tolerance_m;

  /// A contact given in A's frame, in world and swept by the radii.
  [[gnu::always_inline]] ContactGeometry to_world(const Vec3& point_a_A, const Vec3& point_b_A,
                                                  const Vec3& n_A, double distance_m) const {
    ContactGeometry g;
    g.point_a_W = times(X_WA.R, point_a_A) + X_WA.p;
    g.point_b_W = times(X_WA.R, point_b_A) + X_WA.p;
    g.normal_W = times(X_WA.R, n_A);
    g.distance_m = distance_m;
    sweep(g, r_a, r_b);
    return g;
  }
};

/// e_k and the mask (1, 1, 1) with 0 at k, from static tables: a vector assembled by a store to
/// a computed index and then read as a whole would wait for the store to commit (the load spans
/// several stores and cannot be forwarded), a stall of a dozen cycles on the hot paths.
inline constexpr double kUnitAxes[3][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
inline constexpr double kAllBut[3][3] = {{0.0, 1.0, 1.0}, {1.0, 0.0, 1.0}, {1.0, 1.0, 0.0}};
inline Eigen::Map<const Vec3> unit_axis(int k) {
  return Eigen::Map<const Vec3>(kUnitAxes[k]);
}
inline Eigen::Map<const Vec3> all_but(int k) {
  return Eigen::Map<const Vec3>(kAllBut[k]);
}

/// The signs (±1) of corner `index` (0..7) of a box: bit 0 for x, bit 1 for y, bit 2 for z.
inline Vec3 corner_signs(int index) {
  return Vec3((index & 1) ? 1.0 : -1.0, (index & 2) ? 1.0 : -1.0, (index & 4) ? 1.0 : -1.0);
}

/// ±1 per axis for the corner bits of corner_of, without branches.
[[gnu::always_inline]] inline Vec3 corner_signs_of(int bits) {
  static constexpr double kSign[2] = {-1.0, 1.0};
  return Vec3(kSign[bits & 1], kSign[(bits >> 1) & 1], kSign[(bits >> 2) & 1]);
}

/// x clamped to the box [−h, h], without branches (minsd/maxsd: the poses of a simulation give
/// the branch predictor nothing to learn).
[[gnu::always_inline]] inline double clamp_branchless(double x, double h) {
  return std::min(std::max(x, -h), h);
}
[[gnu::always_inline]] inline Vec3 clamp_to_box(const Vec3& x, const Vec3& h) {
  return Vec3(clamp_branchless(x[0], h[0]), clamp_branchless(x[1], h[1]),
              clamp_branchless(x[2], h[2]));
}

/// The corner of the box [−h, h] farthest along d (+h where a component is 0).
[[gnu::always_inline]] inline Vec3 support_corner(const Vec3& d, const Vec3& h) {
  return Vec3(d[0] < 0.0 ? -h[0] : h[0], d[1] < 0.0 ? -h[1] : h[1], d[2] < 0.0 ? -h[2] : h[2]);
}

/// The corner of [−h, h] with +h where bit k of `bits` is set, −h elsewhere (as corner_signs),
/// without branches.
[[gnu::always_inline]] inline Vec3 corner_of(int bits, const Vec3& h) {
  static constexpr double kSign[2] = {-1.0, 1.0};
  return Vec3(kSign[bits & 1] * h[0], kSign[(bits >> 1) & 1] * h[1], kSign[(bits >> 2) & 1] * h[2]);
}

/// The bits (for corner_of) of the support corner along d: bit k set where d_k ≥ 0.
[[gnu::always_inline]] inline int support_bits(const Vec3& d) {
  return (d[0] < 0.0 ? 0 : 1) | (d[1] < 0.0 ? 0 : 2) | (d[2] < 0.0 ? 0 : 4);
}

/// Index of the component of v of least magnitude (the lowest index on a tie).
inline int smallest_component(const Vec3& v) {
  const double x = std::abs(v[0]), y = std::abs(v[1]), z = std::abs(v[2]);
  return x <= y ? (x <= z ? 0 : 2) : (y <= z ? 1 : 2);
}

/// The signs a support feature may take along an axis whose component of the direction is
/// `component`: its sign, or both when it is (almost) zero. Returns how many.
inline int support_signs(double component, std::array<double, 2>& signs) {
  signs = {sign_of(component), -sign_of(component)};
  return std::abs(component) <= kSupportTieComponent ? 2 : 1;
}

/// Separation of the cores along the unit direction n (A's frame; n_B = Rᵀn): n·p − h_a·|n| −
/// h_b·|n_B|, a lower bound of their distance.
[[gnu::always_inline]] inline double separation_along(const BoxPairInA& pair, const Vec3& n,
                                                      const Vec3& n_B) {
  return n[0] * pair.p[0] + n[1] * pair.p[1] + n[2] * pair.p[2] -
         (pair.h_a[0] * std::abs(n[0]) + pair.h_a[1] * std::abs(n[1]) +
          pair.h_a[2] * std::abs(n[2])) -
         (pair.h_b[0] * std::abs(n_B[0]) + pair.h_b[1] * std::abs(n_B[1]) +
          pair.h_b[2] * std::abs(n_B[2]));
}

/// Closest points of A's edge along e_i through middle_a and B's edge along b_j through middle_b
/// (A's frame; each middle has 0 for its own edge's coordinate), when they are interior to both
/// edges. As in geometry::closest_segment_points: s on A's edge from the cross products with the
/// exact common perpendicular u = e_i × b_j, and B's point as the projection of A's onto B's line.
[[gnu::always_inline]] inline bool interior_edge_points(const BoxPairInA& pair, int i,
                                                        const Vec3& middle_a, int j,
                                                        const Vec3& middle_b, Vec3& on_a,
                                                        Vec3& on_b) {
  const int k = (i + 1) % 3, l = (i + 2) % 3;
  const Vec3 b = pair.R.col(j);
  const double u_k = -b[l], u_l = b[k];
  const double length_squared = u_k * u_k + u_l * u_l;
  if (!(length_squared > 1e-300)) return false;  // parallel: an endpoint is closest
  const Vec3 w = middle_a - middle_b;
  // −((w × b)·u) / |u|², with only u's components k and l nonzero.
  const double s =
      -((w[l] * b[i] - w[i] * b[l]) * u_k + (w[i] * b[k] - w[k] * b[i]) * u_l) / length_squared;
  if (!(std::abs(s) <= pair.h_a[i])) return false;
  on_a = middle_a + s * unit_axis(i);  // middle_a's coordinate i is 0
  const double t = (on_a - middle_b).dot(b);
  if (!(std::abs(t) <= pair.h_b[j])) return false;
  on_b = middle_b + t * b;
  return true;
}

}  // namespace contactlab::plugins::primitive
