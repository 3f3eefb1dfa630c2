// The closest features of two separated box cores, for the box–box pair of the primitive narrow
// phase (box_box.hpp): candidate pairs of features (a corner against the other box, two edges),
// the certificate that a corner pair is the closest one, the bracketed search over features, and
// the touching case of rounded boxes. Internal to the plugin.
#pragma once

#include <algorithm>
#include <cmath>

#include <contactlab/contact.hpp>
#include <contactlab/geometry/segment.hpp>
#include <contactlab/math.hpp>

#include "box_pair.hpp"
#include "box_separating_axes.hpp"

namespace contactlab::plugins::primitive {

/// A candidate closest pair of separated cores, in A's frame: an upper bound of their distance.
/// `direction` (from A to B, not unit) is the pair's difference taken in the frame where it is
/// exact — a clamp leaves the free coordinates unchanged, so a corner over a face gives exactly
/// that box's axis — or, for two edges, their common perpendicular e_i × b_j, exact in A's frame.
/// `feature` names the pair for the warm start: 0..7 a corner of B (corner_of bits) against A,
/// 8..15 a corner of A against B, 16 + ((3i + j)·8 + bits_a)·8 + bits_b A's edge along e_i through
/// corner bits_a and B's along b_j through corner bits_b (interior closest points).
struct PairCandidate {
  double distance_squared_m2 = kInfinity;
  Vec3 on_a = Vec3::Zero();
  Vec3 on_b = Vec3::Zero();
  Vec3 direction = Vec3::UnitZ();
  int feature = -1;
};

inline constexpr int kFeatureCornerOfA = 8;
inline constexpr int kFeatureEdges = 16;
inline constexpr int kFeatureCount = kFeatureEdges + 9 * 64;

/// The candidate named by `feature` (see PairCandidate), offered to `best`; nothing for an edge
/// pair whose closest points are no longer interior. `feature` must lie in [0, kFeatureCount).
void offer_feature(const BoxPairInA& pair, int feature, PairCandidate& best);

/// The unit direction of a candidate and its length (for a corner the direction is the gap, whose
/// length is the candidate's distance).
[[gnu::always_inline]] inline Vec3 unit_direction(const PairCandidate& c) {
  return c.direction / std::sqrt(c.direction.squaredNorm());
}

/// Closest points of separated cores, exact to the rounding of the coordinates (certify_m).
///
/// Every unit direction n bounds the distance from below (the separation along n, between the
/// support corners: A's along n and B's along −n), every pair of points of A and B from above.
/// Starting from n = start_n (unit, from A to B; start_n_B = Rᵀ start_n, start_separation_m the
/// separation along it), each step takes the support corners along n and, as upper bounds, each
/// corner with its closest point on the other box (a clamp in that box's frame) and the support
/// edges most nearly perpendicular to n (when their closest points are interior to both; on the
/// first step only when start_n is the edge-pair axis of the edges start_i, start_j), then goes
/// on along the best pair's direction. When the closest points include a corner (corner against
/// face, edge or corner) the step after the one that finds it closes the bracket; for a face axis
/// whose opposite support corner lies over the face, or the edge-pair axis of two edges whose
/// closest points are interior, the first step does.
///
/// Otherwise the bracket [L, U] along the best direction n prunes the exhaustive search over
/// corners and edge pairs: a feature whose points lie at least e further along −n than the support
/// feature of its box (its excess) is at least L + e from the other box, so only features with
/// excess below U − L are tried — corners against the other box, and pairs of edges whose closest
/// points are interior to both (any other closest pair contains a corner).
///
/// `best` may hold a candidate already (an upper bound); returns the closest pair in it, and its
/// unit direction in `normal`.
void separated_closest_points(const BoxPairInA& pair, const Vec3& start_n, const Vec3& start_n_B,
                              double start_separation_m, int start_i, int start_j, double certify_m,
                              PairCandidate& best, Vec3& normal);

/// A corner of box C against box F, both seen from F's centre in world axes (no rotation
/// between the boxes is formed): the corner, and the gap from its closest point on F (a clamp in
/// F's frame) to it.
struct CornerAgainstBox {
  Vec3 corner_W;  // C's corner, relative to F's centre
  Vec3 gap_F;     // corner − its closest point on F, in F's frame
  double distance_squared_m2 = kInfinity;
};

/// The corner of C with signs `signs` (±1 per axis of C), C at d_W from F's centre.
[[gnu::always_inline]] inline void corner_against_box(const Mat3& R_WC, const Vec3& h_c,
                                                      const Vec3& signs, const Mat3& R_WF,
                                                      const Vec3& h_f, const Vec3& d_W,
                                                      CornerAgainstBox& out) {
  out.corner_W = d_W + times(R_WC, signs.cwiseProduct(h_c));
  const Vec3 corner_F = transpose_times(R_WF, out.corner_W);
  out.gap_F = corner_F - clamp_to_box(corner_F, h_f);
  out.distance_squared_m2 = out.gap_F.squaredNorm();
}

/// Is the corner and its closest point on F the closest pair of C and F? With g the gap (the
/// corner x minus its clamp q onto F, F's frame) and n = g/|g|, the separation along n is
/// n·x − h_f·|n_F| − (n·x − min over C of n·c); the clamp gives g·q = h_f·|g| exactly, so the first
/// two terms are |g|, the pair's distance, and the separation falls short of it by C's excess
/// along −n, Σ_i 2 h_c,i max(0, s_i (R_WCᵀn)_i) (s the corner's signs): zero exactly when the
/// corner is C's support corner along −n. Certified when that excess is within certify_m, decided
/// from m_C = R_WCᵀ g (the excess times |g|) without the square root or a division, and without
/// the cancellation of the separation's large terms. Also gives the gap in world axes and m_C. A
/// corner touching F (g = 0) has no direction and is not certified.
[[gnu::always_inline]] inline bool certify_corner(const CornerAgainstBox& c, const Mat3& R_WC,
                                                  const Vec3& h_c, const Vec3& signs,
                                                  const Mat3& R_WF, double certify_m, Vec3& gap_W,
                                                  Vec3& m_C) {
  gap_W = times(R_WF, c.gap_F);
  m_C = transpose_times(R_WC, gap_W);
  const double excess =
      2.0 * (h_c[0] * std::max(0.0, signs[0] * m_C[0]) + h_c[1] * std::max(0.0, signs[1] * m_C[1]) +
             h_c[2] * std::max(0.0, signs[2] * m_C[2]));
  return c.distance_squared_m2 > 0.0 &&
         excess * excess <= certify_m * certify_m * c.distance_squared_m2;
}

/// Support edge of A along e_i (towards direction d_A) and of B along b_j (towards −d_A), with
/// both parallel edges where d has (almost) no component along an axis. Keeps the pair closest.
/// With interior_only, only pairs whose closest points lie inside both edges are considered (the
/// others are corner pairs, found separately).
void closest_support_edges(const BoxPairInA& pair, int i, int j, const Vec3& d_A,
                           bool interior_only, geometry::SegmentClosestPoints& best_pair);

/// Rounded boxes whose cores are separated but whose swept shapes touch (see box_box.cpp): true
/// when answered with one point; false when a face realises the distance, for the face patch.
bool box_box_touching_rounded(const BoxBoxContact& f, const Axis& best, ContactManifold& out);

}  // namespace contactlab::plugins::primitive
