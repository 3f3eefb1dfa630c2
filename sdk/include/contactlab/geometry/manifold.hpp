// Contact manifolds for any narrow phase: supporting features and clipping (contactlab geometry
// library: linked into the plugin, outside the plugin ABI handshake).
//
// A narrow phase finds the deepest point of a pair: its signed distance, the normal n from A to B
// and the witness points. When two bodies meet along a line or a face (a cylinder lying on a box,
// a box on a box, a capsule on a half-space), one point is not enough: resting bodies rock on it,
// and an iterative narrow phase's point may jump along the line between two evaluations, which
// makes the right-hand side of the equations of motion discontinuous. build_manifold() adds the
// other points of the contact patch, in the manner of Jolt Physics' "supporting face + clipping":
//
// 1. The supporting feature of each shape along the normal (A along n, B along −n): the polygon,
//    segment or point of the shape's core that is extremal along the direction within a small
//    angular tolerance (supporting_feature()): a box face, edge or corner; a cylinder's cap (a rim
//    polygon), side (a segment of its surface line) or rim point; a cone's base, side or apex; a
//    capsule's axis or end; a beam's flat face (a fixed rectangle of 4 points on its round ends
//    near the face's normal, sliding to the exact support points towards the tolerance:
//    detail::beam_face_vertices()), side, edge or round end; a hull's face, edge or vertex; a
//    point for spheres and ellipsoids. The shape is that core swept by a radius (the smoothing
//    radius; a sphere's or capsule's radius), added back along n.
// 2. The features clipped against each other in the contact plane (Sutherland & Hodgman 1974): a
//    polygon or segment of A against the side planes (containing n) of B's polygon, or B's segment
//    against A's polygon, or two parallel segments against each other's ends. A half-space's
//    feature is its whole plane: nothing is clipped.
// 3. Each clipped point's signed distance along n to the other feature's plane: exact for flat
//    features and for the extremal line of a curved surface.
// 4. At most max_points points kept by choose_patch_points(): the deepest first, then the spread
//    of the patch — the same reduction as the primitive plugin's box manifolds (one copy).
//
// Continuity. Extra points carry forces only while they touch or penetrate. A feature changes
// (segment → point as a lying cylinder tilts) only when the direction leaves the angular
// tolerance, i.e. when the dropped points are higher than the deepest by sin(tolerance) times the
// feature's size (2 cm on a 1 m cylinder at the default 0.02): far above any penetration of a
// resting body, so the dropped points carried no force. Within a feature, clipped points move
// continuously with the poses. Points are chosen among touching ones only.
//
// Nothing here allocates: features and clipped polygons live in fixed arrays on the stack.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "contactlab/contact.hpp"
#include "contactlab/math.hpp"
#include "contactlab/shapes.hpp"

namespace contactlab::geometry {

/// Most vertices of a supporting feature (a hull face with more falls back to its support point).
inline constexpr int kMaxFeatureVertices = 32;
/// Most points of a clipped polygon (Sutherland–Hodgman of two convex polygons: n + m vertices).
inline constexpr int kMaxClipPoints = 2 * kMaxFeatureVertices;
/// Vertices of the rim polygon of a cylinder's or cone's cap: 90° apart, the first at the support
/// direction u (the lowest rim point when the cap tilts towards u). Four, not more: a cap resting
/// on a larger face then needs no reduction, and the square turns continuously with u; with equal
/// depths (the cap flat, u ill-defined) its forces have no moment whatever u is. A finer polygon
/// reduced to four points would switch between rotated squares as the deepest vertex changes.
inline constexpr int kRimVertices = 4;
/// Fraction of the angular tolerance within which a beam's flat face is a fixed rectangle: while
/// the face's tilt (the sine of the angle between the direction and the face's normal) is below
/// kBeamFaceFixedFraction·sin_tolerance its 4 points do not move (detail::beam_face_vertices).
inline constexpr double kBeamFaceFixedFraction = 0.5;
/// Default angular tolerance of a supporting feature, as the sine of the angle (about 1.15°): the
/// direction may be this far from the feature's normal (cone).
inline constexpr double kDefaultSinTolerance = 0.02;
/// A point whose distance is below this fraction of the shapes' size touches (rounding noise).
inline constexpr double kTouchingFraction = 1e-12;
/// Two points nearer than this fraction of the shapes' size are one point.
inline constexpr double kDistinctPointFraction = 1e-9;

/// The supporting feature of a shape's core along a direction, in the frame the caller asks for.
struct Feature {
  std::array<Vec3, kMaxFeatureVertices> vertices;
  /// 1: a point; 2: a segment; ≥ 3: a convex polygon, vertices in cyclic order (either sense).
  int count = 0;
  /// Radius the core is swept by (added along the direction to reach the shape's surface) [m].
  double radius_m = 0.0;
};

/// A length scale of the shape [m]: its largest half size (0 for a half-space), against which
/// rounding tolerances are judged. O(vertices) for a hull.
double shape_size(const Shape& shape);

/// The supporting feature of the shape's core along d_G (G frame, unit length), in G: the points
/// of the core within the angular tolerance (sin_tolerance, the sine of the angle between d_G and
/// the feature's normals) of being extremal along d_G, as a point, a segment or a convex polygon;
/// radius_m is the sweep that makes the core the shape. Not for half-spaces (count 0).
void supporting_feature(const Shape& shape, const Vec3& d_G, Feature& out,
                        double sin_tolerance = kDefaultSinTolerance);

/// supporting_feature() of a posed shape along a world direction d_W (unit), in world coordinates.
void supporting_feature_W(const Shape& shape, const Pose& X_WG, const Vec3& d_W, Feature& out,
                          double sin_tolerance = kDefaultSinTolerance);

/// Chooses at most max_points of `count` candidate points, given their positions in the tangent
/// plane of the normal n (`tangential`) and their signed distances: the deepest first, then —
/// among the candidates that touch or penetrate (distance ≤ kTouchingFraction·length_scale_m) —
/// the one farthest from it, then the two spanning the largest triangles with that diagonal on
/// either side (larger first). This keeps the deepest point and the spread of the patch (the
/// area-maximising reduction of Gregorius, "Robust contact creation for physics simulations", GDC
/// 2015). Writes the chosen indices in order and returns how many. Any frame will do, as long as
/// the positions and n share it. Scores within a relative 1e-9 tie and the deeper point wins, so
/// the choice does not hinge on rounding (e.g. on the order of A and B).
/// With margin_m > 0, candidates up to margin_m apart count as touching too (a time-stepping host
/// keeping a patch's points that a small tilt lifted off).
int choose_patch_points(const Vec3* tangential, const double* distance_m, int count, const Vec3& n,
                        int max_points, double length_scale_m,
                        std::array<int, max_manifold_points>& chosen, double margin_m = 0.0);

namespace detail {

/// Points of one clipped patch with their witness points on A and B and their distances.
struct Candidates {
  std::array<Vec3, kMaxClipPoints> point_a;
  std::array<Vec3, kMaxClipPoints> point_b;
  std::array<double, kMaxClipPoints> distance;
  int count = 0;
};

/// Clips the convex polygon or segment `subject` (count ≥ 2) to the prism along n over the convex
/// polygon `clip` (count ≥ 3): Sutherland–Hodgman, one side plane (edge × n) at a time; a segment
/// is clipped as a parameter interval. Returns the number of points written to `out`.
int clip_to_prism(const Feature& subject, const Feature& clip, const Vec3& n,
                  std::array<Vec3, kMaxClipPoints>& out);

}  // namespace detail

/// Completes a one-point narrow-phase answer for shapes A and B into a manifold of at most
/// max_points points (see the top of this file). `manifold.points[0]` is the narrow phase's
/// deepest point (its normal n from A to B is used); it is left alone — count 1 — when max_points
/// is 1, when the pair is separated (deepest distance above kTouchingFraction of the shapes'
/// size), when either feature is a point, when two segments cross, when fewer than two touching
/// points come out, or when the patch's deepest point is shallower than the narrow phase's
/// distance by more than sin_tolerance times the shapes' size. Otherwise the manifold is the
/// reduced patch, every point with the normal n and its own signed distance measured along n
/// between the features, the deepest first (its distance becomes the pair's: exact for the
/// features, where an inexact normal of an iterative narrow phase overstates the depth by the
/// projections' overlap), each satisfying point_b − point_a = distance · n. sin_tolerance: see
/// supporting_feature(). Never allocates.
void build_manifold(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                    int max_points, ContactManifold& manifold,
                    double sin_tolerance = kDefaultSinTolerance);

}  // namespace contactlab::geometry
