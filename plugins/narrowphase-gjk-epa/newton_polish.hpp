// Near contact and on curved cores: the shifted-GJK refinement (Solver::refine) and Newton steps
// on the support function h(m) = m·s_M(m) (Solver::newton_step, polish_separated,
// polish_penetration). Implementation header of solver.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "solver.hpp"

namespace contactlab::plugins::gjk_epa {

inline bool Solver::refine(Vec3 n, double depth, CoreContact& out) {
  const double clearance = kShiftFraction * scale_;
  const double s = depth + clearance;
  bool refined = false;
  for (int pass = 0; pass < 2; ++pass) {
    shift_ = s * n;
    Simplex simplex;
    simplex.points[0] = support(n);
    simplex.count = 1;
    const bool enclosed = gjk(simplex);
    shift_ = Vec3::Zero();
    const double gap = simplex.v.norm();
    if (enclosed || !(gap > 0.5 * clearance)) break;
    counters_.degenerate = counters_.degenerate || stalled_;
    if (refined && !(gap - s > out.distance_m)) break;
    const Vec3 normal = -simplex.v / gap;
    out.distance_m = gap - s;
    out.normal = normal;
    set_witnesses(out, simplex.point_a(), simplex.point_b() - s * n);
    out.warm_count = simplex.count;
    for (int i = 0; i < simplex.count; ++i) out.warm_directions[i] = simplex.points[i].d;
    refined = true;
    if ((normal - n).norm() <= 1e-9) break;
    n = normal;
  }
  return refined;
}

inline bool Solver::newton_step(const Vec3& m, const SupportPoint& p, double h, Vec3& next,
                                double& decrease, double trust_radius) {
  Vec3 t1, t2;
  complete_basis(m, t1, t2);
  double h11 = 0.0, h12 = 0.0, h22 = 0.0;
  m_.curvature(m, t1, t2, h11, h12, h22);
  h11 -= h;
  h22 -= h;
  const double det = h11 * h22 - h12 * h12;
  if (!(h11 > 0.0 && h22 > 0.0 && det > 0.0) || !std::isfinite(det)) return false;
  const double g1 = t1.dot(p.w);
  const double g2 = t2.dot(p.w);
  // (One division, one square root each for the step and its normalisation: their latency is
  // most of a step's time.)
  const double inverse_det = 1.0 / det;
  double a = -(h22 * g1 - h12 * g2) * inverse_det;
  double b = -(h11 * g2 - h12 * g1) * inverse_det;
  decrease = -0.5 * (a * g1 + b * g2);
  const double length2 = a * a + b * b;
  if (length2 > trust_radius * trust_radius) {
    const double shorten = trust_radius / std::sqrt(length2);
    a *= shorten;
    b *= shorten;
  }
  const Vec3 u = m + a * t1 + b * t2;
  next = u * (1.0 / std::sqrt(u.squaredNorm()));
  return std::isfinite(decrease) && next.allFinite();
}

inline bool Solver::polish_separated(const Simplex& simplex, CoreContact& out,
                                     const SupportPoint* first) {
  double upper = simplex.v.norm();
  double lower = -std::numeric_limits<double>::infinity();
  Vec3 m = simplex.v * (-1.0 / upper);
  // The supports live in `slots` (or are `first`) and are referred to, not copied (two copies
  // of a support point per evaluation were a tenth of a cold cylinder query): `closest`, that
  // of the best upper bound, and `p`, the iterate's; a new one goes to a slot neither uses.
  std::array<SupportPoint, 3> slots;
  const SupportPoint* closest = nullptr;
  // The iterate m with its support p and height h; a trial direction replaces it only when it
  // raises the lower bound −h, else a step half as long is tried from m (from a start far from
  // the answer full steps overshoot).
  const SupportPoint* p = nullptr;
  double h = 0.0;
  double radius = kPolishTrustRadius;
  bool faces_tried = false;
  Vec3 trial = m;
  for (int evaluation = 0; evaluation < kPolishSeparatedEvaluations; ++evaluation) {
    const SupportPoint* q = first;
    if (evaluation > 0 || first == nullptr) {
      SupportPoint* slot = &slots[0];
      if (slot == closest || slot == p) slot = &slots[1];
      if (slot == closest || slot == p) slot = &slots[2];
      support_into(trial, *slot);
      ++counters_.iterations;
      q = slot;
    }
    grow_scale(q->w);
    const double h_trial = trial.dot(q->w);
    lower = std::max(lower, -h_trial);
    const double length = q->w.norm();
    if (length < upper) {
      upper = length;
      closest = q;
    }
    if (upper - lower <= tolerance_ * upper + 8.0 * kMachineEpsilon * scale_) {
      if (!(lower > 0.0)) return false;
      if (closest == nullptr) {
        out = separated(simplex);
        return true;
      }
      out.distance_m = upper;
      out.normal = closest->w * (-1.0 / upper);
      out.point_a = closest->a;
      out.point_b = closest->b;
      out.warm_count = 1;
      out.warm_directions[0] = closest->d;
      return true;
    }
    if (p != nullptr && !(-h_trial > -h)) {
      // No progress: a flat face's kink (face_certificate(), tried once), or else from m
      // again, half as far as this trial went (its chord, about the angle).
      if (!faces_tried) {
        faces_tried = true;
        if (face_certificate(m, out)) return true;
      }
      radius = 0.5 * std::min(radius, (trial - m).norm());
      if (radius < kPolishMinRadius) return false;
    } else {
      if (p != nullptr) radius = std::min(kPolishTrustRadius, 2.0 * radius);
      m = trial;
      p = q;
      h = h_trial;
    }
    if (evaluation >= 2 && !(lower > 0.0)) return false;  // most likely overlapping
    double decrease = 0.0;
    if (!newton_step(m, *p, h, trial, decrease, radius)) {
      return !faces_tried && face_certificate(m, out);
    }
  }
  return false;
}

inline bool Solver::polish_penetration(CoreContact& out) {
  Vec3 m = upper_direction_;
  SupportPoint p = upper_point_;
  double h = upper_bound_;
  const double enough = tolerance_ * scale_ + 8.0 * kMachineEpsilon * scale_;
  for (int iteration = 0; iteration < kPolishIterations; ++iteration) {
    Vec3 next;
    double decrease = 0.0;
    if (!newton_step(m, p, h, next, decrease)) return false;
    const bool converged = decrease <= enough;
    const SupportPoint q = support(next);
    ++counters_.iterations;
    const double height = next.dot(q.w);
    if (height <= h) {
      m = next;
      p = q;
      h = height;
    } else if (!converged) {
      return false;  // the model does not describe h here
    }
    if (converged) {
      if (!(h > 0.0)) return false;
      out.distance_m = -h;
      out.normal = m;
      set_witnesses(out, p.a, p.b);
      return true;
    }
  }
  return false;
}

}  // namespace contactlab::plugins::gjk_epa
