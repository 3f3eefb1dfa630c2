// The portal phases of MPR (Neumayr 2025 §6.1): phase 1, the interior point r0, the origin ray
// and a first portal (§6.1.1, TC1); phase 2, a portal the origin ray passes through (§6.1.2);
// phase 3, its refinement to the boundary of A ⊖ B (§6.1.3, TC2, TC3), with the best-so-far
// result at the iteration limit or a degenerate portal. Where the pair allows it, run_portal hands
// over to the warm start (the pair's last portal or Newton normal), the flat face certificate
// (mpr_face_certificate.hpp), the Newton refinement (mpr_newton.hpp) and the closest-point
// completion (mpr_completion.hpp).
// Included only by mpr_algorithm.cpp, in the unnamed namespace of the solver's parts (see
// mpr_solver.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <contactlab/geometry/voronoi_closest_point.hpp>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>

#include "mpr_completion.hpp"
#include "mpr_face_certificate.hpp"
#include "mpr_newton.hpp"
#include "mpr_solver.hpp"

namespace contactlab::plugins::mpr {
namespace {

template <class T, bool kBoxes>
void Solver<T, kBoxes>::run() {
  run_portal();
  if (on_cores_ && !radii_applied_ && !needs_full_shapes_ &&
      (radius_a_ != 0.0 || radius_b_ != 0.0)) {
    // A ⊖ B is the cores' difference grown by a ball of radius r_A + r_B.
    ContactGeometry& g = result_.geometry;
    g.distance_m -= radius_a_ + radius_b_;
    g.point_a_W += radius_a_ * g.normal_W;
    g.point_b_W -= radius_b_ * g.normal_W;
  }
}

template <class T, bool kBoxes>
void Solver<T, kBoxes>::run_portal() {
  using std::abs;
  // ----- Phase 1: interior point and initial portal (Neumayr §6.1.1, L296–306) -----
  // (A box's interior point is its frame's origin.)
  const Vec3 c_A = kBoxes ? Vec3(Vec3::Zero()) : interior_point(pair_.a);
  const Vec3 c_B = kBoxes ? pair_.p_AB : Vec3(pair_.R_AB * interior_point(pair_.b) + pair_.p_AB);
  r0_ = V::from(c_A) - V::from(c_B);  // exact in double-double
  T r0_norm = norm(r0_);
  V e1 = r0_norm > T(0.0) ? V(-r0_ / r0_norm) : V{T(0.0), T(0.0), T(1.0)};

  if (newton_on() && warm_ != nullptr && warm_->valid && warm_->newton &&
      warm_->cores == on_cores_) {
    // Curved pair: Newton from the normal the pair's last query ended on.
    warm_->valid = false;
    hint_a_ = warm_->hint_a;
    hint_b_ = warm_->hint_b;
    // A face's normal (face_certificate) gives that face's certificate at once, else the query
    // starts cold.
    const bool answered =
        warm_newton(c_A, c_B, r0_norm, e1) &&
        (warm_->face               ? faces_ && try_faces(V::from(warm_->directions[0]))
         : warm_->newton_separated ? newton_separated(warm_->directions[0])
                                   : newton(warm_->directions[0], warm_->newton_side));
    if (answered) {
      result_.warm_started = true;
      return;
    }
    result_ = Result{};  // the cold start below answers (its own counts)
  }

  // ----- Phase 2: a portal the origin ray passes through (§6.1.2, L366–390; libccd) -----
  // Whichever side face the origin ray leaves through, replace the portal vertex opposite to it
  // by the support point beyond that face, then restore the orientation. Sets `flat` when the
  // tetrahedron (r0; r1, r2, r3) is flat (A ⊖ B is planar).
  // The phase-3 start portal (finish_best replays the refinement from it).
  Portal start;
  S& r1 = start.r1;
  S& r2 = start.r2;
  S& r3 = start.r3;
  bool flat = false;
  const auto find_portal = [&]() {
    flat = false;
    for (std::int32_t iteration = 1; iteration <= max_iterations_; ++iteration) {
      ++result_.phase2_iterations;
      const V v1 = r1.p - r0_;
      const V v2 = r2.p - r0_;
      const V v3 = r3.p - r0_;
      if (!(dot(v1, cross(v2, v3)) > volume_threshold_)) {
        flat = true;
        return false;
      }
      const V n12 = cross(v1, v2);
      if (dot(ray_, n12) < -area_threshold_) {
        r3 = support(V(-n12));
        std::swap(r1, r2);
        continue;
      }
      const V n23 = cross(v2, v3);
      if (dot(ray_, n23) < -area_threshold_) {
        r1 = support(V(-n23));
        std::swap(r2, r3);
        continue;
      }
      const V n31 = cross(v3, v1);
      if (dot(ray_, n31) < -area_threshold_) {
        r2 = support(V(-n31));
        std::swap(r3, r1);
        continue;
      }
      return true;
    }
    return false;
  };

  // Warm start: phase 2 from the portal the pair's previous query ended on, without phase 1's
  // support along the origin ray (the size of A ⊖ B comes from the warm points; TC1 is checked
  // at the end, warm_tc1). A portal that is not a tetrahedron with r0 on its apex side, or that
  // phase 2 cannot repair, sends the query to the cold start below.
  bool valid_portal = false;
  if (!newton_on() && warm_ != nullptr && warm_->valid && !warm_->newton &&
      warm_->cores == on_cores_) {
    warm_supports(r1, r2, r3);
    {
      using std::sqrt;
      const V v1 = r1.p - r0_, v2 = r2.p - r0_, v3 = r3.p - r0_;
      length_ = std::max(r0_norm, T(sqrt(std::max({dot(v1, v1), dot(v2, v2), dot(v3, v3)}))));
    }
    set_thresholds(c_A, c_B);
    ray_ = e1;
    // find_portal first checks that (r0; r1, r2, r3) is a tetrahedron with r0 on its apex side.
    valid_portal = length_ > T(0.0) && length_ < T(std::numeric_limits<double>::infinity()) &&
                   r0_norm > ray_threshold_ && find_portal();
    trust_hints_ = valid_portal;
  }
  result_.warm_started = warm_run_ = valid_portal;

  if (!valid_portal) {
    r1 = have_ray_support_ ? ray_support_ : support(e1);  // L324–328 (warm_newton's, if it ran)
    length_ = std::max(r0_norm, norm(r1.p - r0_));
    set_thresholds(c_A, c_B);
    if (!(length_ > T(0.0)) || !(length_ < T(std::numeric_limits<double>::infinity()))) {
      // Both shapes are single points at the same place, or the input is not finite.
      finish_degenerate_start(r1, e1);
      return;
    }

    if (!(r0_norm > ray_threshold_)) {
      // Coincident interior points (L316–318, an error in Modia3D): move r0 a small step towards
      // the boundary point of A ⊖ B below it. The origin ray then points along +z of world, the
      // choice the primitive closed forms make for concentric spheres.
      result_.coincident_interior_points = true;
      result_.degenerate = true;
      const S below = support(-V::from(pair_.world_up_A));
      r0_ = r0_ + (below.p - r0_) * T(kInteriorShiftFraction);
      r0_norm = norm(r0_);
      if (!(r0_norm > T(0.0))) {
        finish_on_ray(r1, e1, Termination::degenerate_start);
        return;
      }
      e1 = -r0_ / r0_norm;
      r1 = support(e1);
    }
    ray_ = e1;
    ray_support_ = r1;
    have_ray_support_ = true;

    // TC1 (L333): r1 on the origin ray; its support plane gives the signed distance (L300–303).
    // Support directions below are not normalised (the support mapping does not need it) and
    // lengths are compared in squares.
    const V n2 = cross(e1, r1.p);
    if (!(dot(n2, n2) > ray_threshold_ * ray_threshold_)) {
      finish_on_ray(r1, e1, Termination::tc1);
      return;
    }

    const T area_squared = area_threshold_ * area_threshold_;
    // r2 (L338): normal to the plane through the origin, r0 and r1.
    r2 = support(n2);

    // r3 (L343–365): normal to the plane through r0, r1, r2, on the origin's side.
    V n3 = cross(r1.p - r0_, r2.p - r0_);
    if (!(dot(n3, n3) > area_squared)) {
      r2 = support(V(-n2));  // L346: the opposite direction
      n3 = cross(r1.p - r0_, r2.p - r0_);
      if (!(dot(n3, n3) > area_squared)) {
        // L348: A ⊖ B is planar (2-D MPR is not supported) — keep the support-plane estimate.
        finish_degenerate_start(ray_support_, e1);
        return;
      }
    }
    if (dot(n3, ray_) < T(0.0)) {
      // L352–353 flip n3; swapping r1 and r2 keeps (r1 − r0) × (r2 − r0) = n3 (our orientation).
      std::swap(r1, r2);
      n3 = -n3;
    }
    r3 = support(n3);
    V n123 = cross(r2.p - r1.p, r3.p - r1.p);
    if (!(dot(n123, n123) > area_squared)) {
      r3 = support(V(-n3));  // L359
      n123 = cross(r2.p - r1.p, r3.p - r1.p);
      if (!(dot(n123, n123) > area_squared)) {
        finish_degenerate_start(ray_support_, e1);
        return;
      }
      std::swap(r1, r2);  // r3 now lies behind the plane (r0, r1, r2): restore the orientation
    }
    valid_portal = find_portal();
    if (!valid_portal) {
      // L385–387 (an error in Modia3D): no valid portal; keep the support-plane estimate.
      if (flat) {
        finish_degenerate_start(ray_support_, e1);
      } else {
        result_.iteration_limit_hit = true;
        finish_on_ray(ray_support_, e1, Termination::iteration_limit);
      }
      return;
    }
  }
  const T area_squared = area_threshold_ * area_threshold_;
  // Phase-3 directions are portal normals converging on one face: hull supports climb from the
  // previous support's vertex alone (cold runs sample only in phases 1 and 2, whose directions
  // jump; measured on hull256 overlapping, cold: 31.5k -> 21.7k instructions per query).
  trust_hints_ = true;

  // ----- Phase 3: portal refinement (§6.1.3, L392–416) -----
  // The loop carries no square root and no division on its critical path: the support mapping
  // takes the unnormalised portal normal n4 (any positive multiple of e4 gives the same support
  // point), and TC2/TC3 are compared in squares scaled by |n4|² (|r4 × n4|² ≤ τ²|n4|² is
  // |r4 × e4| ≤ τ, and (r4 − r1)·n4 ≤ τ|n4| is (r4 − r1)·e4 ≤ τ). e4 itself is formed only where
  // the loop ends. The best-so-far bookkeeping (one division) is off that path.
  // The refined portal is copied from the start portal (r1, r2, r3, kept for finish_best) at the
  // first refinement, not before: a warm start at an unchanged pose ends before it.
  union Refined {
    Refined() {}  // uninitialised until the first refinement
    Portal portal;
  } refined;
  const Portal* current = &start;
  Candidate best;
  const T tc_squared = tc_threshold_ * tc_threshold_;
  T newton_switch_squared = T(kNewtonSwitch * kNewtonSwitch) * length_ * length_;
  // The previous iterate's termination values (scaled as below), for last_tolerance when a
  // degenerate portal ends the loop.
  T last_tc2_scaled = T(-1.0), last_tc3_scaled{}, last_n4_squared = T(1.0);
  bool completion_tried = !portal_on_cores();  // the portal must be a simplex of the cores
  const auto record_last_tolerance = [&]() {
    if (last_tc2_scaled < T(0.0)) return;
    result_.last_tolerance = relative_tolerance(
        std::min(last_tc2_scaled, T(last_tc3_scaled * last_tc3_scaled)) / last_n4_squared);
  };
  for (std::int32_t iteration = 1; iteration <= max_iterations_; ++iteration) {
    const Portal& portal = *current;
    result_.phase3_iterations = iteration;
    // r4 (L417–434): the support point along the portal normal, which points away from r0.
    const V n4 = cross(portal.r2.p - portal.r1.p, portal.r3.p - portal.r1.p);
    const T n4_squared = dot(n4, n4);
    if (!(n4_squared > area_squared)) {
      result_.degenerate = true;
      record_last_tolerance();
      finish_best(best, start, ray_support(), e1, Termination::degenerate_portal);
      return;
    }
    // The first portal's normal is often near the face already (a face contact's certificate
    // then costs no refinement).
    if (faces_ && iteration == 1 && try_faces(n4)) return;
    const S r4 = support(n4);
    const V off_ray = cross(r4.p, n4);
    const T tc2_scaled = dot(off_ray, off_ray);        // TC2 (L396): tc2² · |n4|²
    const T tc3_scaled = dot(r4.p - portal.r1.p, n4);  // TC3 (L397): tc3 · |n4|, signed
    const T tc3_squared_scaled = tc3_scaled * tc3_scaled;
    const T limit_scaled = tc_squared * n4_squared;
    const bool tc2_met = tc2_scaled <= limit_scaled;
    const bool tc3_met = tc3_scaled <= T(0.0) || tc3_squared_scaled <= limit_scaled;
    // Separation is proven once r4's support plane leaves the origin outside (r4·e4 < 0): the
    // distance is then completed from this portal (see complete_closest_point), since refining
    // the portal further towards the origin ray's exit point would not give it. Tried once; when
    // the cores turn out to touch numerically, the refinement goes on.
    const bool separated = !completion_tried && dot(r4.p, n4) < T(0.0) && !tc2_met && !tc3_met;
    if (tc2_met || tc3_met || separated || iteration == max_iterations_) {
      // The termination values of this iterate, relative to the size of A ⊖ B.
      using std::sqrt;
      const T n4_norm = sqrt(n4_squared);
      result_.last_tolerance =
          relative_tolerance(std::min(tc2_scaled, tc3_squared_scaled) / n4_squared);
      // The result's own value: the last one's when its condition gave the minimum.
      const auto value_of = [&](const T& scaled) {
        return scaled <= std::min(tc2_scaled, tc3_squared_scaled)
                   ? result_.last_tolerance
                   : relative_tolerance(scaled / n4_squared);
      };
      const V e4 = n4 / n4_norm;
      if ((tc2_met || tc3_met || separated) && warm_tc1(portal, r4)) {
        save_portal(portal);
        return;
      }
      if (separated) {
        completion_tried = true;
        if (faces_ && try_faces(n4, kSeparatedFaceCosine)) return;
        if (newton_on() && newton_separated(e4.to_vec3())) return;
        if (complete_closest_point(e4, &portal, &r4)) {
          save_portal(portal);
          result_.result_iteration = iteration;
          result_.result_tolerance = result_.last_tolerance;
          result_.termination = Termination::separated_closest_point;
          return;
        }
      }
      if (tc2_met || tc3_met) cache_face_ending(n4);  // (a polytope pair saves its portal)
      if (tc2_met) {
        save_portal(portal);
        result_.result_iteration = iteration;
        result_.result_tolerance = value_of(tc2_scaled);
        finish_tc2(r4, e4, Termination::tc2);
        return;
      }
      if (tc3_met) {
        save_portal(portal);
        result_.result_iteration = iteration;
        result_.result_tolerance = value_of(tc3_squared_scaled);
        finish_tc3(portal.r1, portal.r2, portal.r3, r4, e4, n4, n4_squared,
                   Termination::tc3_inside);
        return;
      }
    }
    // Curved pair close to the boundary: the Newton finish takes over (once per query).
    if (newton_on() && newton_attempts_ < kNewtonAttempts &&
        tc3_squared_scaled <= newton_switch_squared * n4_squared) {
      if (faces_ && try_faces(n4)) return;
      ++newton_attempts_;
      if (newton(n4.to_vec3())) return;
      newton_switch_squared *= T(kNewtonRetry * kNewtonRetry);
    }
    // Best so far (L403–404): the smallest termination value seen, with the iterate it came from
    // (compared in squares: min(tc2², tc3²), tc3 > 0 here).
    const T value_squared = std::min(tc2_scaled, tc3_squared_scaled) / n4_squared;
    if (value_squared < best.value_squared)
      best = Candidate{tc2_scaled < tc3_squared_scaled, value_squared, iteration};
    if (iteration == max_iterations_) break;
    last_tc2_scaled = tc2_scaled;
    last_tc3_scaled = tc3_scaled;
    last_n4_squared = n4_squared;
    if (current == &start) {
      std::construct_at(&refined.portal, start);
      current = &refined.portal;
    }
    if (!refine(refined.portal, r4)) {
      // L406–409: no candidate portal is valid (rounding), return the best so far.
      result_.degenerate = true;
      record_last_tolerance();
      finish_best(best, start, ray_support(), e1, Termination::degenerate_portal);
      return;
    }
  }
  // L412–415: iteration limit, return the best so far (not the last iterate).
  result_.iteration_limit_hit = true;
  finish_best(best, start, ray_support(), e1, Termination::iteration_limit);
  return;
}

/// TC3 (L440–444): the portal lies on the boundary of A ⊖ B within tolerance. A penetrating pair
/// reports the depth along the portal normal e4 as the support value r4·e4 of A ⊖ B, the exact
/// translation along e4 that separates the shapes (within the TC tolerance of Neumayr's distance to
/// the portal plane, and immune to the rounding of e4 on sliver portals). A separated pair reports
/// the distance to the portal plane when the origin's foot lies inside the portal (Thm 6.3 case 1),
/// else it is completed to the Euclidean distance (case 2).
template <class T, bool kBoxes>
void Solver<T, kBoxes>::finish_tc3(const S& r1, const S& r2, const S& r3, const S& r4, const V& e4,
                                   const V& n4, const T& n4_squared, Termination termination) {
  // Signed offset of the portal plane along e4; positive when the origin is behind it (inside).
  const T plane_offset = (dot(r1.p, e4) + dot(r2.p, e4) + dot(r3.p, e4)) / T(3.0);
  const V foot = e4 * plane_offset;
  // Barycentric coordinates of the foot from the signed areas of the sub-triangles, against the
  // portal's normal n4 = (r2 − r1) × (r3 − r1).
  const T inverse_area = T(1.0) / n4_squared;
  const T w1 = dot(cross(r2.p - foot, r3.p - foot), n4) * inverse_area;
  const T w2 = dot(cross(r3.p - foot, r1.p - foot), n4) * inverse_area;
  const T w3 = T(1.0) - w1 - w2;
  const T slack = T(-epsilon_);
  if (w1 >= slack && w2 >= slack && w3 >= slack) {
    const T c1 = std::max(w1, T(0.0));
    const T c2 = std::max(w2, T(0.0));
    const T c3 = std::max(w3, T(0.0));
    const T inverse_sum = T(1.0) / (c1 + c2 + c3);
    const V a = (r1.a * c1 + r2.a * c2 + r3.a * c3) * inverse_sum;
    const V b = (r1.b * c1 + r2.b * c2 + r3.b * c3) * inverse_sum;
    result_.termination = termination;
    set_geometry(a, b, plane_offset >= T(0.0) ? T(-dot(r4.p, e4)) : T(-plane_offset), e4);
    return;
  }
  if (plane_offset >= T(0.0)) {
    // Penetrating, foot outside the portal. The portal plane supports A ⊖ B (TC3), so moving B by
    // the support value along e4 separates the shapes: a valid depth, not more (up to the TC
    // tolerance) than the distance to the portal that Neumayr's distanceToPortal returns.
    // Witnesses from the portal point nearest to the foot.
    const geometry::voronoi::TriangleClosest<V> nearest =
        geometry::voronoi::closest_triangle_point<V>({r1.p - foot, r2.p - foot, r3.p - foot});
    const std::array<const S*, 3> vertices{&r1, &r2, &r3};
    V a, b;
    for (int k = 0; k < nearest.size; ++k) {
      const int i = nearest.kept[k];
      a = a + vertices[i]->a * nearest.weights[i];
      b = b + vertices[i]->b * nearest.weights[i];
    }
    result_.termination =
        termination == Termination::tc3_inside ? Termination::tc3_penetrating_outside : termination;
    set_geometry(a, b, T(-dot(r4.p, e4)), e4);
    return;
  }
  // Separated, foot outside the portal: the distance to the portal is only an upper bound
  // (Thm 6.3 case 2, Neumayr's distanceToPortal); complete it to the Euclidean distance.
  result_.termination =
      termination == Termination::tc3_inside ? Termination::tc3_closest_point : termination;
  Simplex<T> triangle;
  triangle.points = {r1, r2, r3, S{}};
  triangle.size = 3;
  bool enclosed = false;
  const V closest = geometry::voronoi::closest_on_simplex(triangle, T(epsilon_), enclosed);
  const T portal_distance = norm(closest);
  const V portal_normal = portal_distance > T(0.0) ? V(-closest / portal_distance) : e4;
  if (complete_closest_point(portal_normal)) return;
  // The cores overlap (numerically touching): keep the distance to the portal.
  V a, b;
  for (int k = 0; k < triangle.size; ++k) {
    a = a + triangle.points[k].a * triangle.weights[k];
    b = b + triangle.points[k].b * triangle.weights[k];
  }
  set_geometry(a, b, portal_distance, portal_normal);
}

template <class T, bool kBoxes>
void Solver<T, kBoxes>::finish_best(const Candidate& best, const Portal& start, const S& fallback,
                                    const V& fallback_e, Termination termination) {
  if (best.iteration == 0) {
    finish_on_ray(fallback, fallback_e, termination);
    return;
  }
  // Replay the refinement to the best iteration; it repeats the same arithmetic, so it succeeds
  // as it did the first time.
  Portal portal = start;
  V n4;
  S r4;
  for (std::int32_t iteration = 1;; ++iteration) {
    portal_normal(portal, n4);
    r4 = support(n4);
    if (iteration == best.iteration) break;
    refine(portal, r4);
  }
  using std::sqrt;
  const V e4 = n4 / sqrt(dot(n4, n4));
  result_.result_iteration = best.iteration;
  result_.result_tolerance = relative_tolerance(best.value_squared);
  if (best.tc2) {
    finish_tc2(r4, e4, termination);
  } else {
    finish_tc3(portal.r1, portal.r2, portal.r3, r4, e4, n4, dot(n4, n4), termination);
  }
}

}  // namespace
}  // namespace contactlab::plugins::mpr
