// The MPR solver (Neumayr 2025 §6.1), templated on the arithmetic T and on kBoxes (two boxes):
// its state for one query, the portal primitives (a portal's normal, its refinement), the support
// mapping of A ⊖ B in A's frame, the result's writers and the warm portal's readers and writers.
// The rest of its members are defined by meaning:
//   mpr_portal.hpp            phases 1–3 (run, run_portal), TC3 and best-so-far endings
//   mpr_newton.hpp            the Newton finish of curved pairs, on side lines, and separated
//   mpr_completion.hpp        the closest-point completion of separated pairs
//   mpr_face_certificate.hpp  the flat face certificate of curved pairs
//
// Notation (Neumayr 2025 L278–283): a support point r = (p, a, b) has p = a − b ∈ A ⊖ B, where
// a = support of A in direction e and b = support of B in direction −e, so e points from A to B.
// r0 is an interior point of A ⊖ B, the origin ray runs from r0 through the origin, and a portal
// (r1, r2, r3) is a triangle of support points the origin ray passes through (Def. 6.3).
//
// Portal orientation (our convention, as in libccd): with v_i = r_i − r0, every portal is kept
// positively oriented, v1·(v2 × v3) > 0, so its normal (r2 − r1) × (r3 − r1) points away from r0,
// and the origin ray (unit u) passes through it iff u·(v1 × v2), u·(v2 × v3) and u·(v3 × v1) are
// all ≥ 0.
//
// These headers are included by mpr_algorithm.cpp alone, which instantiates the solver for each
// arithmetic, and their templates live in an unnamed namespace: the solver is compiled as one
// translation unit with internal linkage, as it was as one file, so that GCC's inlining and
// cloning of it (and the solver's speed) do not depend on how its source is split.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>
#include <contactlab/shapes.hpp>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "mpr_algorithm.hpp"
#include "mpr_arithmetic.hpp"
#include "mpr_supports.hpp"
#include "mpr_tolerances.hpp"

namespace contactlab::plugins::mpr {
namespace {

/// kBoxes: both shapes are boxes (the commonest polytope pair), whose core supports are corners
/// of the kept core sizes: the support mapping without dispatch, no Newton finish, the interior
/// points the frames' origins (an instantiation of its own, so that the compiler keeps the
/// support inline and drops the curved-pair code).
template <class T, bool kBoxes = false>
class Solver {
 public:
  /// The query's answer is written into `result` (reset here).
  /// Always inlined: out of line (GCC's choice once the solver grew), the call and the members'
  /// set-up cost 76 instructions per query, 3 % of a warm box–box query.
  [[gnu::always_inline]] Solver(const PosedPair& pair, const Settings& settings, bool on_cores,
                                WarmPortal* warm, Result& result)
      : pair_(pair),
        warm_(warm),
        on_cores_(on_cores),
        radius_a_(sweep_radius(pair.a)),
        radius_b_(sweep_radius(pair.b)),
        swept_(radius_a_ > 0.0 || radius_b_ > 0.0),
        box_a_(pair.a.type == ShapeType::box),
        box_b_(pair.b.type == ShapeType::box),
        cylinder_a_(pair.a.type == ShapeType::cylinder),
        cylinder_b_(pair.b.type == ShapeType::cylinder),
        core_a_(core_size(pair.a)),
        core_b_(core_size(pair.b)),
        newton_(!kBoxes && settings.newton_finish &&
                (on_cores || (radius_a_ == 0.0 && radius_b_ == 0.0)) &&
                !(polytope_core(pair.a) && polytope_core(pair.b))),
        max_iterations_(std::max<std::int32_t>(1, settings.max_iterations)),
        tolerance_(settings.tolerance),
        epsilon_(kEpsilonFactor * machine_epsilon<T>()),
        result_(result) {
    result_ = Result{};
    if constexpr (kPackedBoxes) box_.set(pair.R_AB, pair.p_AB, core_a_, core_b_);
  }

  /// The query; in the cores mode the swept radii are added to the result.
  void run();
  /// Cores mode: the cores intersect where their difference is degenerate, so this run has no
  /// answer and the full shapes must be used.
  bool needs_full_shapes() const { return needs_full_shapes_; }

 private:
  using V = Vector3<T>;
  using S = SupportPoint<T>;

  /// Which phase-3 iterate a best-so-far result is taken from (Neumayr L403–404). The portal
  /// itself is not copied at every improvement: the refinement is deterministic, so finish_best
  /// replays it from the phase-3 start portal to that iteration (only the rare limit and
  /// degenerate endings pay for it).
  struct Candidate {
    bool tc2 = false;  ///< TC2 was the smaller termination value
    /// The square of that value [m²]
    T value_squared = T(std::numeric_limits<double>::infinity());
    std::int32_t iteration = 0;
  };
  struct Portal {
    S r1, r2, r3;
  };

  /// Normal n4 = (r2 − r1) × (r3 − r1) of the portal, not normalised, pointing away from r0
  /// (L417–434); false when the portal is degenerate.
  bool portal_normal(const Portal& portal, V& n4) const {
    n4 = cross(portal.r2.p - portal.r1.p, portal.r3.p - portal.r1.p);
    return dot(n4, n4) > area_threshold_ * area_threshold_;
  }

  /// Refinement (L445–463): of the portals (r1, r2, r4), (r2, r3, r4), (r3, r1, r4) take the one
  /// the origin ray passes through. The planes through r0, r4 and each r_i separate them: with
  /// t_i = u·(v4 × v_i) = v_i·(u × v4), portal (r_i, r_j, r4) is valid when t_i ≥ 0 and t_j ≤ 0
  /// (Neumayr's isNextPortal; the side (r_i, r_j) is valid from the current portal). When the ray
  /// grazes an edge two candidates tie at 0, so the one with the larger margin is taken rather
  /// than the first in order; false when none is valid within ε (the refinement failed).
  bool refine(Portal& portal, const S& r4) const {
    const V side = cross(ray_, V(r4.p - r0_));
    const T t1 = dot(V(portal.r1.p - r0_), side);
    const T t2 = dot(V(portal.r2.p - r0_), side);
    const T t3 = dot(V(portal.r3.p - r0_), side);
    const T margin_124 = std::min(t1, T(-t2));
    const T margin_234 = std::min(t2, T(-t3));
    const T margin_314 = std::min(t3, T(-t1));
    if (std::max({margin_124, margin_234, margin_314}) < -area_threshold_) return false;
    if (margin_124 >= margin_234 && margin_124 >= margin_314) {
      portal.r3 = r4;  // (r1, r2, r4)
    } else if (margin_234 >= margin_314) {
      portal.r1 = r4;  // (r4, r2, r3)
    } else {
      portal.r2 = r4;  // (r1, r4, r3)
    }
    return true;
  }

  /// Support point of A ⊖ B in direction e (A frame): of the cores in the cores mode, else of the
  /// full shapes (the SDK's support mapping, radius added along e).
  /// Two boxes: inlined (a few dozen instructions, where the call and the result's trip through
  /// memory cost a third of that); other pairs as the compiler sees fit.
  [[gnu::always_inline]] S support(const V& direction) const {
    if constexpr (kBoxes) {
      return box_support(direction, on_cores_);
    } else {
      return shape_support(direction);
    }
  }
  S shape_support(const V& direction) const { return support_point(direction, on_cores_); }

  /// Support point of the cores (the shapes shrunk by their swept radii, SDK core_support).
  S core_support(const V& direction) const {
    if constexpr (kBoxes) {
      return box_support(direction, true);
    } else {
      return support_point(direction, true);
    }
  }

  /// support_point for two boxes: the corners of their core sizes, in scalars with no branch but
  /// for the full shapes' swept radii (support_point's arithmetic, so the same values).
  [[gnu::always_inline]] S box_support(const V& direction, bool cores) const {
    if (!cores && swept_) [[unlikely]] {
      return support_point(direction, false);
    }
    if constexpr (kPackedBoxes) {
      S s;
      box_.support(direction.x, direction.y, direction.z, &s.p.x, &s.a.x, &s.b.x, s.d.data());
      return s;
    }
    const double ex = to_double(direction.x), ey = to_double(direction.y),
                 ez = to_double(direction.z);
    const Mat3& R = pair_.R_AB;
    const Vec3& t = pair_.p_AB;
    const double bx = std::copysign(core_b_.x(), -(R(0, 0) * ex + R(1, 0) * ey + R(2, 0) * ez));
    const double by = std::copysign(core_b_.y(), -(R(0, 1) * ex + R(1, 1) * ey + R(2, 1) * ez));
    const double bz = std::copysign(core_b_.z(), -(R(0, 2) * ex + R(1, 2) * ey + R(2, 2) * ez));
    const V a_A{T(std::copysign(core_a_.x(), ex)), T(std::copysign(core_a_.y(), ey)),
                T(std::copysign(core_a_.z(), ez))};
    const V b_A{T(R(0, 0) * bx + R(0, 1) * by + R(0, 2) * bz + t.x()),
                T(R(1, 0) * bx + R(1, 1) * by + R(1, 2) * bz + t.y()),
                T(R(2, 0) * bx + R(2, 1) * by + R(2, 2) * bz + t.z())};
    return S{a_A - b_A, a_A, b_A, Vec3(ex, ey, ez)};
  }

  [[gnu::always_inline]] S support_point(const V& direction, bool cores) const {
    // Written out in scalars: Eigen's 2-wide packets on 3-vectors cost more shuffles than
    // arithmetic here, and this is the inner loop.
    const double ex = to_double(direction.x), ey = to_double(direction.y),
                 ez = to_double(direction.z);
    const Mat3& R = pair_.R_AB;
    const Vec3 e_A(ex, ey, ez);
    const Vec3 e_B(R(0, 0) * ex + R(1, 0) * ey + R(2, 0) * ez,
                   R(0, 1) * ex + R(1, 1) * ey + R(2, 1) * ez,
                   R(0, 2) * ex + R(1, 2) * ey + R(2, 2) * ez);
    // Boxes (the commonest polytope) and cylinders with their core sizes kept: no dispatch.
    Vec3 a = kBoxes || box_a_ ? box_corner(core_a_, e_A)
             : cylinder_a_    ? cylinder_rim(core_a_, e_A)
                              : local_core_support(pair_.a, e_A, hint_a_, trust_hints_);
    Vec3 b = kBoxes || box_b_ ? box_corner(core_b_, -e_B)
             : cylinder_b_    ? cylinder_rim(core_b_, -e_B)
                              : local_core_support(pair_.b, -e_B, hint_b_, trust_hints_);
    if (!cores && swept_) {
      if (radius_a_ > 0.0) a += radius_a_ / e_A.norm() * e_A;
      if (radius_b_ > 0.0) b -= radius_b_ / e_B.norm() * e_B;
    }
    const Vec3& t = pair_.p_AB;
    const V a_A{T(a.x()), T(a.y()), T(a.z())};
    const V b_A{T(R(0, 0) * b.x() + R(0, 1) * b.y() + R(0, 2) * b.z() + t.x()),
                T(R(1, 0) * b.x() + R(1, 1) * b.y() + R(1, 2) * b.z() + t.y()),
                T(R(2, 0) * b.x() + R(2, 1) * b.y() + R(2, 2) * b.z() + t.z())};
    return S{a_A - b_A, a_A, b_A, e_A};
  }

  /// No 3-D portal. Cores mode: the closest-point completion from direction e gives the answer
  /// when the cores are apart, otherwise the full shapes are needed. Full shapes: the
  /// support-plane estimate of r along e, counted as degenerate.
  void finish_degenerate_start(const S& r, const V& e) {
    if (on_cores_) {
      result_.termination = Termination::cores_closest_point;
      if (!complete_closest_point(e)) needs_full_shapes_ = true;
      return;
    }
    result_.degenerate = true;
    finish_on_ray(r, e, Termination::degenerate_start);
  }

  void run_portal();
  /// A termination value given by its square [m²], relative to the size of A ⊖ B (one formula
  /// for the result's and the last iterate's values, so that equal values compare equal).
  double relative_tolerance(const T& value_squared) const {
    using std::sqrt;
    return to_double(sqrt(value_squared) / length_);
  }
  /// The support points are those of the cores (cores mode, or no swept radius at all).
  bool portal_on_cores() const { return on_cores_ || (radius_a_ == 0.0 && radius_b_ == 0.0); }

  /// Witness points a, b (their difference is ≈ −δ·n) re-centred on their midpoint so that
  /// point_b − point_a = δ·n holds to rounding.
  [[gnu::always_inline]] void set_geometry(const V& a, const V& b, const T& distance,
                                           const V& normal) {
    const V middle = (a + b) * T(0.5);
    const V half_gap = normal * T(distance * T(0.5));
    ContactGeometry& g = result_.geometry;
    g.distance_m = to_double(distance);
    g.normal_W = normal.to_vec3();  // unit already: every caller passes a normalised direction
    g.point_a_W = (middle - half_gap).to_vec3();
    g.point_b_W = (middle + half_gap).to_vec3();
  }

  /// The support-plane estimate along a search direction e with its support point r: the signed
  /// distance of the origin from the plane through r normal to e (TC1, L300–303).
  void finish_on_ray(const S& r, const V& e, Termination termination) {
    result_.termination = termination;
    set_geometry(r.a, r.b, T(-dot(r.p, e)), e);
  }

  /// TC2 (L435–439): r4 lies on the ray of its search direction e4, so it is the point of A ⊖ B
  /// closest to (separated) or deepest below (penetrating) the origin along e4. Its own support
  /// points are used as witnesses; they lie on both boundaries.
  void finish_tc2(const S& r4, const V& e4, Termination termination) {
    result_.termination = termination;
    set_geometry(r4.a, r4.b, T(-dot(r4.p, e4)), e4);
  }

  // ----- The flat face certificate (mpr_face_certificate.hpp) -----
  /// One support's certificate of the face of A (of B when on_b) normal to its frame's axis
  /// `axis`, on the negative side when `negative`; true when it answered the query.
  bool face_certificate(bool on_b, int axis, bool negative);
  /// The certificates of A's and B's faces nearest to the portal normal n4, when within
  /// min_cosine of it and not tried yet in this query. Out of line: the refinement loop keeps its
  /// registers.
  [[gnu::noinline]] bool try_faces(const V& n4, double min_cosine = kFaceCosine);
  bool nearest_face(bool on_b, const Vec3& e, int& axis, bool& negative, double min_cosine) const;
  Vec3 face_direction(bool on_b, int axis, bool negative) const;
  void cache_face(const Vec3& e);
  void cache_face_ending(const V& n4);

  // ----- The Newton refinement of curved pairs (mpr_newton.hpp) -----
  /// The Newton finish, then the 1-D Newton along a straight line of a boundary where it gives up;
  /// `line`: the line the pair's last query ended on, tried first.
  bool newton(const Vec3& start, std::uint8_t line = 0);
  bool newton_finish(const Vec3& start);
  /// Straight lines of the boundaries, numbered 1 + X + 2k (X: 0 for A, 1 for B; k: 0–2 the axis
  /// of X's frame they run along, 3 a hull's edge): a cylinder's side lines (k = 2), a box's edges
  /// (k = 0–2), a beam's (k = 0, 2) and a hull's edges (with a vertex adjacency). The support of X
  /// along a normal of such a line is the whole segment, symmetric about X's mid-plane normal to
  /// axis k (but for a hull's).
  static constexpr std::uint8_t kStraightLines = 8;
  bool has_straight_line(std::uint8_t line) const;
  struct StraightLine;
  bool find_straight_line(std::uint8_t line, const Vec3& e, StraightLine& out) const;
  /// `found`: the line as find_straight_line gave it at `start`, else it is looked up here.
  bool newton_side_line(const Vec3& start, std::uint8_t straight_line,
                        const StraightLine* found = nullptr);
  bool newton_separated(const Vec3& start);
  void finish_newton(const V& a, const V& b, const V& p, const Vec3& n, const T& off_squared,
                     std::uint8_t side);
  /// Caches the normal n of a Newton ending for the pair's next query.
  void finish_newton_cache(const Vec3& n, std::uint8_t side) {
    if (warm_ == nullptr) return;
    // (all three written: the cache stores them, and Eigen leaves unset vectors garbage)
    warm_->directions = {n, Vec3::Zero(), Vec3::Zero()};
    warm_->hint_a = hint_a_;
    warm_->hint_b = hint_b_;
    warm_->newton = warm_->valid = true;
    warm_->newton_side = side;
    warm_->newton_separated = false;
    warm_->face = false;
    warm_->cores = on_cores_;
  }
  /// Sets the origin ray e1 (from r0, set by phase 1's start), the ray's support point and the
  /// thresholds for a warm Newton start from the cached normal, as the cold start sets them (which
  /// then reuses the support point); false when the cold start must handle the pair (coincident
  /// interior points, no size).
  bool warm_newton(const Vec3& c_A, const Vec3& c_B, const T& r0_norm, const V& e1);

  // ----- Phase 3's endings and the closest-point completion (mpr_portal.hpp, mpr_completion.hpp)
  void finish_tc3(const S& r1, const S& r2, const S& r3, const S& r4, const V& e4, const V& n4,
                  const T& n4_squared, Termination termination);
  bool complete_closest_point(const V& initial_normal, const Portal* start = nullptr,
                              const S* start_support = nullptr);
  void finish_best(const Candidate& best, const Portal& start, const S& fallback,
                   const V& fallback_e, Termination termination);

  /// The warm start portal's support points, climbing hulls from the previous query's vertices.
  /// The portal is invalidated here (the query's ending writes it again).
  void warm_supports(S& r1, S& r2, S& r3) {
    warm_->valid = false;
    hint_a_ = warm_->hint_a;
    hint_b_ = warm_->hint_b;
    trust_hints_ = true;
    r1 = support(V::from(warm_->directions[0]));
    r2 = support(V::from(warm_->directions[1]));
    r3 = support(V::from(warm_->directions[2]));
  }
  /// The portal a phase-3 ending leaves for the pair's next query: its directions as they were
  /// used (the support mapping does not need them unit) and the hulls' last support vertices.
  void save_portal(const Portal& portal) {
    if (warm_ == nullptr || newton_on()) return;  // a curved pair's portal is no warm start
    warm_->directions = {portal.r1.d, portal.r2.d, portal.r3.d};
    warm_->hint_a = hint_a_;
    warm_->hint_b = hint_b_;
    warm_->valid = true;
    warm_->cores = on_cores_;
  }
  /// Phase 1's support point along the origin ray, computed on first use in a warm run.
  const S& ray_support() {
    if (!have_ray_support_) {
      ray_support_ = support(ray_);
      have_ray_support_ = true;
    }
    return ray_support_;
  }
  /// A warm run ending on `portal` and r4: TC1 as a cold run would have tested it first. It can
  /// hold only when the ray's support point lies on the origin ray, i.e. is the ray's exit point
  /// and a vertex of A ⊖ B (polytope pairs), and then it is a vertex of the final portal or r4;
  /// only then is the ray's support computed. True when TC1 holds (the result is written).
  bool warm_tc1(const Portal& portal, const S& r4) {
    if (!warm_run_) return false;
    const T limit = ray_threshold_ * ray_threshold_;
    bool on_ray = false;
    for (const S* r : {&portal.r1, &portal.r2, &portal.r3, &r4}) {
      const V off = cross(ray_, r->p);
      on_ray = on_ray || dot(off, off) <= limit;
    }
    if (!on_ray) return false;
    const S& r1 = ray_support();
    const V off = cross(ray_, r1.p);
    if (!(dot(off, off) <= limit)) return false;
    finish_on_ray(r1, ray_, Termination::tc1);
    return true;
  }
  /// Sets the tolerances from the size of A ⊖ B seen from r0.
  void set_thresholds(const Vec3& c_A, const Vec3& c_B) {
    // Scalar max of the six magnitudes (Eigen's cwiseAbs().maxCoeff() on 3-vectors took ~40
    // instructions of shuffles per query).
    const double coordinates = std::max({std::abs(c_A.x()), std::abs(c_A.y()), std::abs(c_A.z()),
                                         std::abs(c_B.x()), std::abs(c_B.y()), std::abs(c_B.z())});
    const T noise = T(kSupportRoundingUlps * std::numeric_limits<double>::epsilon() *
                      (coordinates + to_double(length_)));
    tc_threshold_ = std::max(T(tolerance_) * length_, noise);
    ray_threshold_ = std::max(T(epsilon_) * length_, noise);
    area_threshold_ = T(epsilon_) * length_ * length_;
    volume_threshold_ = area_threshold_ * length_;
  }

  const PosedPair& pair_;
  WarmPortal* const warm_;
  const bool on_cores_;
  const double radius_a_;
  const double radius_b_;
  const bool swept_;  ///< a radius is swept (the full shapes' supports add it)
  const bool box_a_;  ///< A is a box: its core support is a corner of core_a_
  const bool box_b_;
  const bool cylinder_a_;  ///< A is a cylinder: its core support is on a rim of core_a_
  const bool cylinder_b_;
  const Vec3 core_a_;  ///< the core's sizes of a box or a cylinder (core_size)
  const Vec3 core_b_;
  /// Two boxes in double: box_support in SSE2 registers (PackedBoxSupport).
  static constexpr bool kPackedBoxes = kBoxes && std::is_same_v<T, double> && kPackedSupport;
  struct NoBoxes {};
  std::conditional_t<kPackedBoxes, PackedBoxSupport, NoBoxes> box_;
  /// Curved pair on the cores (or without swept radii): the Newton finish may take over.
  const bool newton_;
  /// newton_, known false at compile time for two boxes.
  bool newton_on() const {
    if constexpr (kBoxes) {
      return false;
    } else {
      return newton_;
    }
  }
  int newton_attempts_ = 0;  ///< Newton finishes tried in this query
  /// Curved pair on the cores with a box, a cylinder or a frustum: flat faces are certified
  /// (try_faces).
  const bool faces_ =
      newton_on() && portal_on_cores() && (box_a_ || box_b_ || capped(pair_.a) || capped(pair_.b));
  std::uint16_t faces_tried_ = 0;     ///< faces tried in this query (try_faces' bits)
  bool radii_applied_ = false;        ///< the completion reported the full shapes' distance
  mutable std::uint32_t hint_a_ = 0;  ///< hull vertex of A's latest support (climb start)
  mutable std::uint32_t hint_b_ = 0;
  bool trust_hints_ = false;  ///< hulls climb from the hints alone (warm start, phase 3)
  bool warm_run_ = false;     ///< phase 2 started from the warm portal (no ray support yet)
  bool have_ray_support_ = false;
  S ray_support_;  ///< phase 1's support along the origin ray (ray_support())
  bool needs_full_shapes_ = false;
  const std::int32_t max_iterations_;
  const double tolerance_;
  const double epsilon_;  ///< Neumayr's ε = 100·eps(T) (L471), relative
  T length_{};            ///< size of A ⊖ B seen from r0 [m]
  T tc_threshold_{};      ///< TC2/TC3 threshold [m]
  T ray_threshold_{};     ///< TC1 and coincident-r0 threshold [m]
  T area_threshold_{};    ///< cross products of portal edges [m²]
  T volume_threshold_{};  ///< tetrahedron volumes (×6) [m³]
  V r0_;
  V ray_;  ///< unit direction of the origin ray, from r0 towards the origin
  Result& result_;
};

}  // namespace
}  // namespace contactlab::plugins::mpr
