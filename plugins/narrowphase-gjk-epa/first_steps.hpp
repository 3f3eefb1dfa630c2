// A query's certificates before GJK (certify()): the warm start's one point (a cached direction's
// support, a cached closest pair), then a cold start's or a moved warm point's first steps between
// polytope cores (the clamp certificate, GJK's first iteration, the hull face certificate, the
// face penetration certificate) or between a cylinder and a polytope core (the cap penetration
// certificate, the clamp certificate). Each behind certificate.hpp's interface.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "cache_entry.hpp"
#include "certificate.hpp"
#include "clamp_certificate.hpp"
#include "cold_start.hpp"
#include "face_certificate.hpp"
#include "penetration_certificate.hpp"
#include "warm_start.hpp"

namespace contactlab::plugins::gjk_epa {

// GJK's first iteration from start.points[0] (cold_first_iteration()) as a certificate: its
// stopping rule holds at once (a vertex–vertex contact).
struct FirstIterationCertificate {
  std::optional<Certified> try_certify(const PairInputs& in, ColdStart& start) const {
    if (!cold_first_iteration(in.difference, start, in.sweep, in.tolerance, in.counters)) {
      return std::nullopt;
    }
    return certified_at(start);
  }
};

// The first certificate of `Certificates` that answers from `start`, in order.
template <class... Certificates>
[[gnu::always_inline]] inline std::optional<Certified> first_certified(const PairInputs& in,
                                                                       ColdStart& start) {
  std::optional<Certified> certified;
  static_cast<void>((static_cast<bool>(certified = Certificates{}.try_certify(in, start)) || ...));
  return certified;
}

// Between a cylinder and a polytope core, from the point start.points[0] of M: the cap
// certificate, then the clamp certificate.
inline std::optional<Certified> cylinder_step(const PairInputs& in, ColdStart& start) {
  return first_certified<CapPenetrationCertificate, ClampCertificate>(in, start);
}

// Between polytope cores, from one point of M, start.points[0]: the clamp certificate when a box
// is among the cores, GJK's first iteration, the face certificate of hulls, then the penetration
// certificate where the face certificate did not try it (boxes among the cores, or the point
// within kSeparatedFraction of the origin). The face certificate comes after GJK's iteration,
// which ends most vertex–vertex contacts by itself.
inline std::optional<Certified> polytope_step(const PairInputs& in, ColdStart& start) {
  return first_certified<ClampCertificate, FirstIterationCertificate, HullFaceCertificate,
                         FacePenetrationCertificate>(in, start);
}

// Begins a cold query in `start`: the support along the line from M's interior point to the
// origin, and the first steps from it (polytope_step() or cylinder_step()). Out of line: warm
// queries keep their small frame.
[[gnu::noinline]] inline std::optional<Certified> begin_cold(const PairInputs& in,
                                                             ColdStart& start) {
  Vec3 d_A = in.X_AB.transform_point(interior_point(in.b)) - interior_point(in.a);
  if (!(d_A.squaredNorm() > 0.0)) d_A = in.up_A;
  start.d_A = d_A;
  in.difference.support_into(d_A, start.points[0]);
  start.count = 1;
  return in.polytope_cores ? polytope_step(in, start) : cylinder_step(in, start);
}

// What the certificates leave to GJK and EPA when none answered (solve_pair()).
struct QueryStart {
  // points[0]: the warm point, or a cold start's first support; a begun one-point start.
  ColdStart start;
  bool have_warm_point = false;  // start.points[0] is M's support along the first cached direction
  bool cold_begun = false;  // `start` is a begun one-point start, which solve_pair() goes on from
  bool pair_kept = false;   // a cached closest pair certified: the cache keeps it as it is
};

// The certificates of a query, in order; the answer when one holds. `entry`: the pair's cache
// entry (null: a cold query).
[[gnu::always_inline]] inline std::optional<Certified> certify(const PairInputs& in,
                                                               const CacheEntry* entry,
                                                               QueryStart& query) {
  ColdStart& start = query.start;
  // A warm start from one cached direction whose support certifies the distance at once (the
  // pose barely moved), as Solver::solve would after gjk()'s first check, without the solver's
  // set-up.
  if (entry != nullptr && entry->kind == WarmStart::directions && entry->count == 1) {
    const std::array<double, 3>& d = entry->directions[0];
    const Vec3 d_A(d[0], d[1], d[2]);
    if (d_A.squaredNorm() > 0.0 && d_A.allFinite()) {
      in.difference.support_into(d_A, start.points[0]);
      query.have_warm_point = true;
      if (auto certified = WarmPointCertificate{}.try_certify(in, start)) return certified;
    }
  }
  // A cached closest pair (WarmStart::closest_pair); when it does not certify, the support it took
  // starts as a warm point would (a clamp first, with a box among the cores), or GJK goes on from
  // the pair and its support, as after its first iteration from the pair.
  if (entry != nullptr && in.polytope_cores && entry->kind == WarmStart::closest_pair) {
    bool supported = false;
    if (auto certified = ClosestPairCertificate{entry->closest, supported}.try_certify(in, start)) {
      query.pair_kept = true;
      return certified;
    }
    if (supported && (in.difference.a_clampable() || in.difference.b_clampable())) {
      query.have_warm_point = true;
      start.points[0] = start.points[1];
    } else if (supported) {
      const SupportPoint& p = start.points[0];
      const double vv = p.w.squaredNorm();
      start.count = sub_segment(start.points.data(), 0, 1).vv < vv ? 2 : 1;
      start.d_A = p.d;
      query.cold_begun = true;
    }
  }
  // A cylinder with a polytope core: the cap and clamp certificates. (Not two cylinders: their
  // rims are curved on both sides, so a rim over a rim never certifies, and the clamps cost more
  // than they save.)
  const ShapeType type_a = in.a.type, type_b = in.b.type;
  const bool clamp_curved = (type_a == ShapeType::cylinder && polytope_core(type_b)) ||
                            (type_b == ShapeType::cylinder && polytope_core(type_a));
  if (entry == nullptr && (in.polytope_cores || clamp_curved)) {
    query.cold_begun = true;
    return begin_cold(in, start);
  }
  // A warm point that did not certify (the pose moved, so its direction is no longer the normal):
  // between polytope cores GJK's first iteration from it often ends a moved vertex–vertex
  // contact, again without solve_pair()'s set-up.
  if (query.have_warm_point && in.polytope_cores) {
    query.cold_begun = true;
    start.count = 1;
    start.d_A = start.points[0].d;
    return polytope_step(in, start);
  }
  if (query.have_warm_point && clamp_curved) return cylinder_step(in, start);
  return std::nullopt;
}

}  // namespace contactlab::plugins::gjk_epa
