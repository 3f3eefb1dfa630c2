// The box–box pair of the primitive narrow phase (see primitive_narrow_phase.hpp for the contract,
// the smoothing rule and the manifold rule), and its warm start in the pair's cache. The algorithm
// is in five files: box_box.cpp (this outline, the warm start and the certificates' answers),
// box_separating_axes (the 15 axes), box_closest_features (closest features of separated cores),
// box_manifold (the contact of overlapping cores) and box_pair.hpp (the pair in A's frame).
#pragma once

#include <array>
#include <cstdint>

#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>
#include <contactlab/shapes.hpp>

namespace contactlab::plugins {

/// Box A and box B.
/// - Penetrating or touching: separating-axis test over the 15 axes (3 + 3 face normals, 9 edge
///   cross products; Gottschalk, Lin & Manocha 1996): the smallest overlap is the exact depth,
///   because every face normal of the Minkowski difference is one of these axes. Ties prefer A's
///   faces, then B's faces, then edges (within 1e-12 of the boxes' size). The nine edge
///   separations c/|u| are compared through c·|c|/|u|² without square roots; only the winner's
///   axis is normalised. A face axis gives the contact polygon of the reference face and the most
///   anti-parallel (incident) face of the other box — the vertices of Sutherland–Hodgman clipping
///   (as in Box2D and Bullet's box–box), found by slab tests of the incident edges against the
///   reference rectangle (Liang–Barsky) plus the rectangle's corners inside the incident face —
///   reduced to max_points; with max_points 1, the incident face's deepest corner when it lies
///   over the reference face (the same point, without clipping). An edge axis gives one point
///   between the two edges.
/// - Separated cores (separated by more than 1e-12 of the boxes' size): the exact distance, to
///   64 ε of the coordinates' magnitude relative to A. First the support corners along the
///   direction between the centres (A's along it, B's against it), each with its closest point on
///   the other box; the closer pair is the answer when the separation along its own direction —
///   a lower bound of the distance — reaches its length (a certificate; it is the closest pair
///   whenever it contains one of these corners). This is computed in world axes relative to one
///   box's centre, without forming the boxes' relative rotation. Otherwise the distance is
///   bracketed between lower bounds (the separation along a direction) and upper bounds (a
///   corner and its closest point on the other box, or two edges joined along their common
///   perpendicular), from the centre direction or else from the best axis of the test above. The
///   bracket closes in two steps when a corner is among the closest points; otherwise it prunes
///   an exhaustive search over corners and edge pairs. The normal is exact when a face normal or
///   an edge-pair axis realises the distance. One point — unless smoothing radii make the boxes
///   touch through a face that realises the distance: then the face patch as above.
///
/// `cache` (optional, the pair's NarrowPhaseCache): a BoxBoxWarmStart entry (below), the closest
/// feature pair of this pair's last separated answer (a corner of either box, or two edges) and
/// its normal in A's frame. The feature pair is tried first under the same certificate (temporal
/// coherence: while the same corner stays closest, no search is needed), then the normal as the
/// start of the bracket. Any entry contents are safe: the answer is exact with or without it.
void box_box(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB, int max_points,
             ContactManifold& out, NarrowPhaseCache* cache = nullptr);

/// The primitive plugin's cache tag (NarrowPhaseCacheTag): only box–box keeps an entry.
inline constexpr NarrowPhaseCacheTag kPrimitiveCacheTag{"primitive"};
inline constexpr std::uint64_t kBoxBoxCacheTag =
    kPrimitiveCacheTag.of(ShapeType::box, ShapeType::box);

/// The warm start box_box() keeps in the pair's cache (cache_entry under kBoxBoxCacheTag), written
/// by every separated answer and cleared (the cache made empty) when neither its feature nor its
/// normal answers the next query.
struct BoxBoxWarmStart {
  /// The closest feature pair: 0..7 a corner of B (bit k set: +h along axis k) against A, 8..15 a
  /// corner of A (8 + bits) against B, 16 + ((3i + j)·8 + bits_a)·8 + bits_b A's edge along e_i
  /// through corner bits_a and B's along b_j through corner bits_b. Any other value names none.
  std::int32_t feature = -1;
  /// The normal from A to B of that answer, in A's frame (normalised again when read).
  std::array<double, 3> normal_A{};
};

}  // namespace contactlab::plugins
