// Primitive narrow phase: exact closed forms for pairs of spheres, capsules, boxes, cylinders and
// half-spaces (the list is in PrimitiveNarrowPhase::supports).
//
// Every function follows the ContactGeometry contract: signed distance (> 0 separated, < 0
// penetrating), unit normal from A to B, witness points on the boundaries of A and B with
// point_b_W − point_a_W = distance_m · normal_W. The deepest point of every result is exact up to
// rounding (no iteration), so these functions also serve as ground truth for iterative narrow
// phases. Penetration is the minimum translation distance.
//
// Smoothing radius r (shapes.hpp: the shape is its core, shrunk by r, swept by a sphere of radius
// r). For convex A and B the support function of the Minkowski difference of the swept shapes is
// the core's plus r_A + r_B in every direction, so the signed distance of the swept shapes is
// exactly the core signed distance − r_A − r_B — when the cores are separated and when they
// penetrate — with the same normal, and the witness points move by r_A along +n and r_B along −n.
// Every function here that takes a Shape honours its smoothing radius this way (a core half size
// smaller than r is taken as 0); a sphere's and a capsule's radius already are their sweep.
//
// Manifolds: the extra points of a flat contact (box corners on a half-space, the clipped polygon
// of two box faces, the rim of a cylinder cap, the two ends of a capsule) are reported when they
// touch or penetrate (own distance ≤ 1e-12 of the shapes' size, so that rounding does not drop a
// touching corner). Each carries its own signed distance with the pair's normal and satisfies the
// contract. At most `max_points` (1..4) are kept: the deepest, the one farthest from it, then the
// ones spanning the largest triangles on either side of that diagonal. With a smoothing radius,
// every point is a core point moved by the radius along the normal: on the rounded surface when
// the normal lies in the core's normal cone there (always for the deepest point, and for parallel
// faces); otherwise up to r·(1 − cos α) inside it, α the angle between the normal and that cone.
#pragma once

#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>
#include <contactlab/narrow_phase.hpp>
#include <contactlab/parameters.hpp>
#include <contactlab/shapes.hpp>

namespace contactlab::plugins {

/// Sphere A (radius_a_m, centre p_WA) and sphere B (radius_b_m, centre p_WB). When the centres
/// coincide (closer than 1e-100 m) the direction is undefined; the normal is then +z of world.
ContactGeometry sphere_sphere(double radius_a_m, const Vec3& p_WA, double radius_b_m,
                              const Vec3& p_WB);

/// Sphere A (radius_m, centre p_WA) and half-space B: the solid {x : n·x ≤ 0} in its frame G at
/// pose X_WG, n = normal_G (normalised here). Distance n_W·(p_WA − p_WG) − r; the normal from the
/// sphere to the half-space is −n_W.
ContactGeometry sphere_half_space(double radius_m, const Vec3& p_WA, const Vec3& normal_G,
                                  const Pose& X_WG);

/// Sphere A (radius_m, centre p_WA) and box B (half_extents_m along the axes of its frame, pose
/// X_WB; no smoothing). Exact also when the centre is inside the box: the sphere then leaves
/// through the nearest face (ties: lowest axis index, + face before −), so the normal from A to B
/// is minus that face's outward normal and distance = −(depth of the centre below that face + r).
ContactGeometry sphere_box(double radius_m, const Vec3& p_WA, const Vec3& half_extents_m,
                           const Pose& X_WB);

/// Sphere A and capsule B (axis segment along B's z, from −half_length_m to +half_length_m): the
/// sphere centre against the closest point of the segment. When the centre lies on the segment
/// (within 1e-12 of the coordinates' magnitude) the sphere leaves along B's +x axis (normal −x_B)
/// and distance = −(r_A + r_B).
ContactGeometry sphere_capsule(const Shape& sphere, const Pose& X_WA, const Shape& capsule,
                               const Pose& X_WB);

/// Capsule A and capsule B: exact closest points of the two axis segments (closest_segment_points),
/// each swept by its radius. When the segments intersect (closer than 1e-12 of the coordinates'
/// magnitude) the normal is the common perpendicular ±(z_A × z_B) (sign towards B's centre, +
/// on a tie), or A's +x axis for collinear segments, and distance = −(r_A + r_B).
ContactGeometry capsule_capsule(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB);

/// Capsule A and half-space B: the segment endpoints' heights above the plane minus the radius.
/// Points: the deepest endpoint (ties: the −z end), then the other one when it touches or
/// penetrates (a capsule lying on the plane reports both ends).
void capsule_half_space(const Shape& capsule, const Pose& X_WA, const Shape& half_space,
                        const Pose& X_WB, int max_points, ContactManifold& out);

/// Box A and half-space B: the corners' heights above the plane (minus the smoothing radius).
/// Points: the deepest corner, then the other corners that touch or penetrate (a box resting flat
/// reports its 4 bottom corners; more than 4 penetrating corners are reduced as described above).
void box_half_space(const Shape& box, const Pose& X_WA, const Shape& half_space, const Pose& X_WB,
                    int max_points, ContactManifold& out);

/// Cylinder A (axis along A's z) and half-space B: the core's support point along −n (a point of
/// the rim of the lower cap; +x of A when the cap is exactly parallel to the plane) minus the
/// smoothing radius. Further points, when they touch or penetrate: the same cap's rim at 90°, 180°
/// and 270° from the deepest point (a cylinder standing on its cap reports 4 rim points), and the
/// other cap's rim point below the first (a cylinder lying on its side reports both ends).
void cylinder_half_space(const Shape& cylinder, const Pose& X_WA, const Shape& half_space,
                         const Pose& X_WB, int max_points, ContactManifold& out);

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
/// `cache` (optional, the pair's NarrowPhaseCache): the closest feature pair of this pair's last
/// separated answer (a corner of either box, or two edges) and its normal in A's frame. The
/// feature pair is tried first under the same certificate (temporal coherence: while the same
/// corner stays closest, no search is needed), then the normal as the start of the bracket. Any
/// cache contents are safe: the answer is exact with or without it.
void box_box(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB, int max_points,
             ContactManifold& out, NarrowPhaseCache* cache = nullptr);

/// Closest points of the segments p0–p1 and q0–q1 (either may have zero length): p0 + s(p1 − p0)
/// and q0 + t(q1 − q0), s, t in [0, 1]. The minimum over the interior stationary point (computed
/// from cross products, which stay accurate for nearly parallel segments; Ericson 2005 §5.1.9)
/// and the four endpoint–segment closest points. For parallel segments whose projections overlap,
/// the midpoint of the overlap is returned when it is as close (within rounding).
struct SegmentClosestPoints {
  double s = 0.0;
  double t = 0.0;
  Vec3 point_p = Vec3::Zero();
  Vec3 point_q = Vec3::Zero();
  double distance_squared_m2 = 0.0;
};
SegmentClosestPoints closest_segment_points(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                            const Vec3& q1);

/// The same contact seen with A and B exchanged: normal negated, witness points swapped.
ContactGeometry swap_order(const ContactGeometry& geometry);
/// swap_order applied to every point of a manifold, in place.
void swap_order(ContactManifold& manifold);

class PrimitiveNarrowPhase final : public NarrowPhase {
 public:
  /// Reads `manifold_points` (1..4); when absent (a default ParameterValues) it is 4.
  explicit PrimitiveNarrowPhase(const ParameterValues& params);
  static ParameterSchema schema();

  /// Exactly these pairs, in both orders: sphere–sphere, sphere–capsule, sphere–box,
  /// sphere–half_space, capsule–capsule, capsule–half_space, box–box, box–half_space,
  /// cylinder–half_space.
  bool supports(ShapeType a, ShapeType b) const override;
  /// Throws contactlab::SimulationError for an unsupported pair (the host asks supports() first).
  void query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
             NarrowPhaseCache& cache, ContactManifold& out) override;
  /// The queries answered (closed forms: no iterations, limits or degenerate fallbacks), so that a
  /// chain's statistics say which plugin answered how many pairs.
  NarrowPhaseStatistics statistics() const override {
    NarrowPhaseStatistics out;
    out.queries = queries_;
    return out;
  }

 private:
  int max_points_ = max_manifold_points;
  std::int64_t queries_ = 0;
};

}  // namespace contactlab::plugins
