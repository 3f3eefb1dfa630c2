// GJK on the cores (Gilbert, Johnson & Keerthi 1988, in van den Bergen's form, 1999):
// Solver::solve, Solver::gjk and the separated answer. Implementation header of solver.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "solver.hpp"

namespace contactlab::plugins::gjk_epa {

inline CoreContact Solver::solve(Simplex& simplex, double scale, const Vec3& up_A) {
  double largest2 = scale * scale;  // one square root for all the starting points
  for (int i = 0; i < simplex.count; ++i) {
    largest2 = std::max(largest2, simplex.points[i].w.squaredNorm());
  }
  scale_ = std::sqrt(largest2);
  if (!polytope_cores_ && simplex.count == 1 &&
      simplex.points[0].w.squaredNorm() > sq(kSeparatedFraction * scale_)) {
    // One point between curved cores, M's support along its direction d (the starts of
    // solve_pair between curved cores are supports): a warm start from the last answer's
    // direction is near the answer already, and a cold start's centre-to-centre direction may
    // be (its bounds, −d̂·w and |w|, agree to kGjkHandoffGap as for GJK's hand-off), so Newton
    // takes over at once instead of after GJK's iterations. GJK starts from the same point if
    // the polish does not end it.
    const SupportPoint& p = simplex.points[0];
    const double norm_w = p.w.norm();
    const double norm_d = p.d.norm();
    if (exact_directions_ || norm_w * norm_d + p.d.dot(p.w) <= kGjkHandoffGap * (norm_w * norm_d)) {
      simplex.v = p.d * (-norm_w / norm_d);  // |v| = |w|: the polish's upper bound
      CoreContact polished;
      if (polish_separated(simplex, polished, &p)) return polished;
    }
  }
  bool enclosed = gjk(simplex, polytope_cores_ ? 0 : kGjkHandoffIterations);
  if (handed_off_) {
    // GJK crawls on curved cores: Newton on the support function ends it when the pair is
    // separated (certified by the distance bounds), and GJK resumes otherwise.
    CoreContact polished;
    if (simplex.v.squaredNorm() > sq(kSeparatedFraction * scale_) &&
        polish_separated(simplex, polished, &simplex.points[simplex.count])) {
      return polished;
    }
    enclosed = gjk(simplex, 0);
  }
  if (!enclosed && simplex.v.squaredNorm() > sq(kSeparatedFraction * scale_)) {
    counters_.degenerate = counters_.degenerate || stalled_;
    return separated(simplex);
  }
  const double gap = simplex.v.norm();
  CoreContact contact;
  if (!enclosed && refine(-simplex.v / gap, 0.0, contact)) return contact;
  contact = penetration(simplex, up_A);
  if (polytope_used_ && (!epa_converged_ || face_normal_off_) && std::isfinite(upper_bound_)) {
    // EPA stopped early (iteration limit on a curved core with a flat depth minimum, or a lost
    // topology): the depth lies between its nearest face's distance and the lowest support
    // height seen. The direction of that height is the better normal: the face normals wander
    // over the flat minimum. Shifting by the height takes the origin out of M for sure.
    // Or EPA converged on a kink of M with its nearest face's normal off the contact normal
    // (face_normal_off_): the lowest height is within the tolerance of the face's distance, and
    // its direction overlaps M by exactly that height (refine()'s shifted GJK on the curved
    // cores is no closer on rim-to-rim cylinders).
    if (!epa_converged_) {
      CoreContact refined;
      const bool ok = refine(upper_direction_, std::max(upper_bound_, 0.0), refined);
      // Both refine's depth and the lowest height bound the depth from above: keep the lower.
      if (ok && -refined.distance_m <= upper_bound_) return refined;
    }
    CoreContact upper;
    upper.distance_m = -upper_bound_;
    upper.normal = upper_direction_;
    set_witnesses(upper, upper_point_.a, upper_point_.b);
    upper.warm_count = contact.warm_count;
    upper.warm_directions = contact.warm_directions;
    upper.warm_pair_count = contact.warm_pair_count;
    upper.warm_pairs = contact.warm_pairs;
    return upper;
  }
  return contact;
}

inline bool Solver::gjk(Simplex& simplex, int handoff) {
  stalled_ = false;
  handed_off_ = false;
  simplex.keep(simplex.closest(false));
  for (int iteration = 0; iteration < max_iterations_; ++iteration) {
    const double vv = simplex.v.squaredNorm();
    if (simplex.count == 4 || vv <= sq(kEnclosingFraction * scale_)) return true;
    if (iteration == 0 && simplex.count == 1 && exact_directions_) {
      // The one point w is M's support along its direction d, so −d̂·w bounds the distance
      // from below (the plane d·x = d·w separates the origin from M when positive) and |w|
      // from above. When they agree to the stopping rule below, with d̂ in place of −v̂, the
      // support along −v adds nothing: a warm start at a (nearly) unchanged pose ends here.
      if (one_point_certifies(simplex.points[0], vv, tolerance_, scale_)) break;
    }
    // Written into the simplex's free slot, where it is kept if it joins (count < 4 here).
    SupportPoint& p = simplex.points[simplex.count];
    support_into(-simplex.v, p);
    ++counters_.iterations;
    grow_scale(p.w);
    const double gap = vv - simplex.v.dot(p.w);
    if (gjk_converged(gap, vv, tolerance_, scale_)) break;
    // The hand-off to Newton (polish_separated) after `handoff` iterations, or sooner once the
    // support along −v comes within kGjkHandoffGap·|v|² of |v|² (the distance bounds agree
    // to about that fraction: −v̂ is a good start). The polish starts from −v̂ with this
    // support, p, as its first evaluation (simplex.points[simplex.count], outside the
    // simplex: GJK resumes without it if the polish does not end the query).
    if (handoff > 0 && (iteration + 1 > handoff || gap <= kGjkHandoffGap * vv)) {
      handed_off_ = true;
      return false;
    }
    bool repeated = false;
    for (int i = 0; i < simplex.count; ++i) {
      repeated = repeated ||
                 (p.w - simplex.points[i].w).squaredNorm() <= sq(4.0 * kMachineEpsilon * scale_);
    }
    if (repeated) break;  // no new support point: v cannot improve any more
    ++simplex.count;
    SubSimplex next = simplex.closest(false);
    if (!(next.vv < vv)) next = simplex.closest(true);  // signs flipped by rounding
    if (!(next.vv < vv)) {  // rounding floor of the descent reached: keep the last simplex
      --simplex.count;
      // Far from the tolerance (GJK crawls on smooth cores at small gaps): the result is a
      // fallback unless refine() takes over.
      stalled_ = gap > std::sqrt(tolerance_) * vv;
      break;
    }
    simplex.keep(next);
    if (iteration + 1 == max_iterations_) counters_.hit_limit = true;
  }
  return simplex.count == 4 || simplex.v.squaredNorm() <= sq(kEnclosingFraction * scale_);
}

inline CoreContact Solver::separated(const Simplex& simplex) const {
  // A single closest point: its own warm direction (see one_point_contact).
  if (simplex.count == 1) return one_point_contact(simplex.points[0], polytope_cores_);
  CoreContact c;
  const Vec3 a = simplex.point_a();
  const Vec3 b = simplex.point_b();
  const Vec3 v = a - b;  // closest point of M to the origin
  c.distance_m = v.norm();
  c.normal = v * (-1.0 / c.distance_m);  // one division off the critical path, not three
  c.point_a = a;
  c.point_b = b;
  c.warm_count = simplex.count;
  for (int i = 0; i < simplex.count; ++i) c.warm_directions[i] = simplex.points[i].d;
  return c;
}

}  // namespace contactlab::plugins::gjk_epa
