// Minkowski Portal Refinement (MPR) for the signed distance of two convex shapes, as improved by
// Neumayr (2025) chapter 6 (Modia3D): unit search directions, phases 1–3, termination conditions
// TC1–TC3, the Euclidean distance for separated shapes and the best-so-far result when the
// iteration limit or a degenerate portal is hit.
//
// The algorithm is written once, as a template on the scalar type of its arithmetic (double,
// long double or DoubleDouble); the support points are computed in double by the SDK and converted.
// Tolerances are relative to the size of the Minkowski difference, so that one value serves shapes
// of any size (Modia3D scales the portal to unit size for the same reason).
//
// Departures from the thesis, each marked where it is implemented:
//  - never an error: coincident interior points shift r0 inside A ⊖ B, and planar (degenerate)
//    Minkowski differences or portals return the best result found so far, counted as degenerate;
//  - a separated pair whose TC3 foot point falls outside the portal (Thm 6.3 case 2, where the
//    thesis returns an upper bound) is completed to the exact Euclidean distance by a closest-point
//    (GJK) iteration on the shapes' cores, the swept radii added back;
//  - once a phase-3 support plane leaves the origin outside (r4·e4 < 0: the pair is separated),
//    the distance is completed from that portal by the same closest-point iteration instead of
//    refining the portal towards the origin ray's exit point first (kept only when the iteration
//    closes its bounds to the tolerance; else the refinement goes on);
//  - the phase-3 loop feeds the unnormalised portal normal to the support mapping and compares
//    TC2/TC3 in squares scaled by its length (no square root or division per iteration);
//  - a penetrating pair reports the depth along the portal normal as the support value of A ⊖ B
//    there (within the TC tolerance of the thesis's distance to the portal plane), so that the
//    depth is exactly the translation along the reported normal that separates the shapes, and
//    b − a = δ·n holds exactly also when the foot point falls outside the portal;
//  - TC2 takes its witness points from r4's own support points, which lie on both boundaries;
//  - the refined portal is the candidate whose two new side conditions hold with the largest
//    margin (the thesis takes the first valid one in order), which is robust to a ray grazing an
//    edge;
//  - by default (Settings::on_cores) MPR runs on the cores of the shapes — each shrunk by its swept
//    radius: a sphere to its centre, a capsule to its segment, a smoothed shape by its smoothing
//    radius — and the radii are added to the result. A ⊖ B is the cores' difference grown by a
//    ball of radius r_A + r_B, so the signed distance is exactly the cores' minus r_A + r_B, the
//    normal is the cores' and each witness point moves by its radius along it. Modia3D adds the
//    radius inside the support mapping (on_cores = false), which makes A ⊖ B curved wherever a
//    radius is swept, so the refinement converges only linearly there (Remark 6.1); on the cores a
//    sphere–polytope pair is a polytope pair and ends exactly. Cores whose difference is not 3-D
//    (point, segment or parallelogram: sphere and capsule pairs) go to the closest-point
//    completion directly, and cores that intersect fall back to the thesis's full-shape run;
//  - supports are computed in the frame of A, with one relative rotation for B, and the result is
//    mapped to the world once;
//  - warm start (temporal coherence; the thesis starts every query from r0): a query may be given
//    the support directions of the portal the pair's previous query ended on (WarmPortal). When
//    their support points span a tetrahedron with r0 on the right side, phase 2 starts from them
//    instead of from phase 1's r1, r2, r3 (phase 1's support along the origin ray is not computed:
//    the size of A ⊖ B is taken from the warm points, and TC1 is checked at the end, when a point
//    of the final portal lies on the origin ray, the only case where the ray's own support can
//    meet TC1); phase 2 still makes the origin ray pass through the portal and phase 3 still
//    refines to TC2/TC3. Hull supports climb from the vertices the previous query ended at. Only
//    where A ⊖ B is a polytope (box, hull, sphere and capsule cores), whose answer is the face the
//    origin ray leaves through whatever the start portal, so warm and cold answers agree to
//    rounding. Curved pairs warm-start the Newton finish below instead;
//  - Newton finish on curved pairs (cores with curvature: ellipsoid, cylinder, cone, beam). On a
//    curved part of A ⊖ B the refinement converges only linearly (Remark 6.1), and its limit is the
//    point s where the origin ray leaves A ⊖ B, with its normal n. With the ray r0 + t·u, that
//    normal minimises the convex function g(w) = h(u + w) − (u + w)·r0 over w ⊥ u (h the support
//    function of A ⊖ B: a point x lies in A ⊖ B iff n·x ≤ h(n) for all n), whose gradient is the
//    support point's offset from the ray and whose Hessian is the support mapping's derivative
//    (SDK add_core_support_derivative). Once the refinement's TC3 value is below kNewtonSwitch of
//    the size, Newton steps on g take over from the portal normal; they end when the support point
//    lies on the origin ray within the TC tolerance, which certifies it as the ray's exit point
//    (the support plane touches A ⊖ B there), whatever the start. The pair is answered as TC3
//    does (depth along that normal as the support value) and the normal is cached: the pair's next
//    query starts Newton from it (no portal at all when the pose has barely moved). Newton gives
//    up, and the refinement goes on, when the model is not positive definite (a flat direction: a
//    face, or a curved shape against a polytope, curved in one direction only) or a step does not
//    halve the offset (a kink of the support mapping). Next to a straight line of a boundary (a
//    cylinder's side line, a box's or a hull's edge: the normal within 0.05 of normal to it) a
//    1-D Newton along the kink takes over where the 2-D one gives up: there the shape's support is
//    the whole segment, the answer's normal is normal to it, and the exit point lies on the
//    segment between its ends' points when the ray passes between them (a cylinder's rim against
//    a box's edge, whose 2-D model is singular, ends so). Frustum side lines and the corners where
//    two such lines meet are still refined linearly. A curved pair proven separated is completed by
//    Newton steps on the support function h over unit directions m (Hessian J − h·I, positive
//    definite when the pair is separated, h < 0) before the closest-point iteration (which crawls
//    on curved cores): every m gives the lower bound −h(m) of the distance and every support point
//    the upper bound |s|, and the answer stands when they agree to the tolerance; its normal is
//    cached as well;
//  - flat face certificate on curved pairs: where a box's face or a cylinder's or frustum's cap
//    meets a point of the other shape, A ⊖ B has a flat face whose support points the refinement
//    reaches only linearly (they slide along the other shape's curve) and Newton not at all (a face
//    is a kink of the support function). At the first portal, and where the refinement would hand
//    over to Newton or to the closest-point completion, when the portal normal is within 26° of
//    such a face's normal (60° before a separated pair's completion), one support along that normal
//    gives the face's support plane; when the origin's foot on it (and, penetrating, the origin
//    ray's exit point) lies in the face's piece of A ⊖ B, that plane is the answer, exactly
//    (Termination::face). The face's normal is cached (WarmPortal::face), also after a refinement
//    ending on it, and the pair's next query tries that face first;
#pragma once

#include <array>
#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>
#include <contactlab/shapes.hpp>
#include <cstdint>

#include "double_double.hpp"

namespace contactlab::plugins::mpr {

/// The arithmetic MPR runs in.
enum class Precision : std::int32_t {
  double_precision = 0,  ///< "double": 53-bit significand
  long_double = 1,       ///< "long_double": the platform's long double (64-bit on x86-64)
  double_double = 2,     ///< "double_double": 106-bit significand (Modia3D's Double64)
};

struct Settings {
  /// TC2/TC3 tolerance relative to the size of A ⊖ B (Neumayr's mprTol, there in scaled units).
  /// Values below the rounding of the double support points (about 4e-15 of the coordinates'
  /// magnitude) are raised to that floor.
  double tolerance = 1e-12;
  /// Iteration limit of each phase (Neumayr's mprIterMax, §6.1.4).
  std::int32_t max_iterations = 120;
  /// MPR on the shapes' cores with the swept radii added to the result (see above); false runs
  /// it on the full shapes as Modia3D does.
  bool on_cores = true;
  /// Newton finish on curved pairs (see above); false refines the portal to TC2/TC3 as the thesis.
  bool newton_finish = true;
};

/// The portal a pair's last query ended on, for the next query's warm start: the three support
/// directions in A's frame and where the hull supports ended. Written at every phase-3 ending
/// (TC2, TC3, a separated pair's completion) and invalidated by any other ending.
struct WarmPortal {
  /// Any positive multiples of the directions will do (they are stored as the query used them,
  /// not normalised).
  std::array<Vec3, 3> directions{Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
  /// Hull vertex numbers of the last support points of A and B (0 for other shapes): the next
  /// query's hull supports climb from them instead of scanning or sampling the hull. The climb is
  /// exact from any start, so a stale or out-of-range number costs time, never accuracy.
  std::uint32_t hint_a = 0;
  std::uint32_t hint_b = 0;
  bool valid = false;
  bool cores = false;  ///< the portal's support points were the cores' (Settings::on_cores)
  /// A curved pair's Newton finish: directions[0] is the normal it ended on (the next query's
  /// Newton start), directions[1..2] are unused.
  bool newton = false;
  /// The Newton finish ended on a straight line of a boundary, numbered 1 + X + 2k (X: 0 for A's,
  /// 1 for B's; k: 0–2 the axis of X's frame it runs along, a cylinder's side line k = 2 or a
  /// box's edge; 3 a hull's edge), 0 on none.
  std::uint8_t newton_side = 0;
  /// The pair was separated: directions[0] is the normal of its distance (the separated Newton's
  /// start).
  bool newton_separated = false;
  /// The pair ended on a flat face (a box's face or a cylinder's or frustum's cap,
  /// Termination::face or a refinement ending there): directions[0] is its normal, whose face
  /// certificate the next query tries first.
  bool face = false;
};

/// How a query ended.
enum class Termination : std::int32_t {
  tc1 = 0,         ///< r1 on the origin ray (TC1, Neumayr L333)
  tc2 = 1,         ///< r4 on the ray of its search direction (TC2, L398)
  tc3_inside = 2,  ///< portal on the boundary, the origin's foot inside it (TC3, L400; exact)
  tc3_penetrating_outside = 3,  ///< TC3, penetrating, foot outside: depth along the portal normal
  tc3_closest_point = 4,        ///< TC3, separated, foot outside: completed to the exact distance
  iteration_limit = 5,          ///< best-so-far portal after max_iterations (L412–415)
  degenerate_portal = 6,        ///< best-so-far portal after a degenerate refinement (L409)
  degenerate_start = 7,  ///< no 3-D portal (planar A ⊖ B): support-plane estimate along the ray
  /// Cores mode: the cores' difference is not 3-D (sphere and capsule cores), answered by the
  /// closest-point completion on the cores
  cores_closest_point = 8,
  /// Phase 3 proved the pair separated (r4's support plane leaves the origin outside) before
  /// TC2/TC3: the distance is completed to the exact Euclidean one from that portal (cores mode)
  separated_closest_point = 9,
  /// Curved pair: the Newton finish found the normal whose support point lies on the origin ray
  /// within the TC tolerance (the limit of TC3's refinement; exact to the tolerance)
  newton = 10,
  /// Curved pair proven separated: Newton steps on the support function over unit directions
  /// closed the gap between the distance's bounds to the tolerance
  newton_closest_point = 11,
  face = 12,  ///< certified on a box's face or a cylinder's or frustum's cap (face_certificate)
};
inline constexpr int termination_count = 13;
const char* termination_name(Termination termination);

/// Result of one MPR query with what is needed to judge it.
struct Result {
  ContactGeometry geometry;
  Termination termination = Termination::degenerate_start;
  std::int32_t phase2_iterations = 0;
  std::int32_t phase3_iterations = 0;
  std::int32_t completion_iterations = 0;  ///< closest-point iterations (separated, Thm 6.3 case 2)
  std::int32_t newton_iterations = 0;      ///< Newton steps (each one support point)
  bool iteration_limit_hit = false;        ///< some phase stopped at max_iterations
  bool degenerate = false;                 ///< a degenerate case was handled by a fallback
  bool coincident_interior_points = false;  ///< r0 ≈ 0 was shifted (Neumayr L316–318)
  /// The cores intersect or are degenerate and coincide: the query was run again on the full
  /// shapes (Settings::on_cores only).
  bool full_shape_rerun = false;
  /// Phase 2 started from the WarmPortal given to the query and found a valid portal from it, or
  /// (curved pairs) the Newton finish started from the cached normal and ended there.
  bool warm_started = false;
  /// The termination value (TC2 or TC3, relative to the size of A ⊖ B) of the phase-3 iterate the
  /// result was taken from, and of the last phase-3 iterate; −1 when phase 3 did not run.
  double result_tolerance = -1.0;
  double last_tolerance = -1.0;
  std::int32_t result_iteration = 0;  ///< the phase-3 iteration the result was taken from (1-based)

  std::int32_t iterations() const {
    return phase2_iterations + phase3_iterations + completion_iterations + newton_iterations;
  }
};

/// Signed distance of convex shape A at X_WA and convex shape B at X_WB (neither a half-space):
/// > 0 separated, < 0 penetrating, with a unit normal from A to B and witness points such that
/// point_b_W − point_a_W = distance_m · normal_W. `warm`, when given, is read as the start portal
/// and overwritten with the portal this query ends on. Never throws and never allocates.
template <class Scalar>
Result signed_distance(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                       const Settings& settings, WarmPortal* warm = nullptr);

extern template Result signed_distance<double>(const Shape&, const Pose&, const Shape&, const Pose&,
                                               const Settings&, WarmPortal*);
extern template Result signed_distance<long double>(const Shape&, const Pose&, const Shape&,
                                                    const Pose&, const Settings&, WarmPortal*);
extern template Result signed_distance<DoubleDouble>(const Shape&, const Pose&, const Shape&,
                                                     const Pose&, const Settings&, WarmPortal*);

/// The same, with the precision chosen at run time.
Result signed_distance(Precision precision, const Shape& a, const Pose& X_WA, const Shape& b,
                       const Pose& X_WB, const Settings& settings, WarmPortal* warm = nullptr);
/// The same, written into `result` (no copy of the Result: the plugin's per-query path).
void signed_distance(Precision precision, const Shape& a, const Pose& X_WA, const Shape& b,
                     const Pose& X_WB, const Settings& settings, WarmPortal* warm, Result& result);

}  // namespace contactlab::plugins::mpr
