// The one interface of gjk_epa's certificates: shortcuts that answer a query exactly before GJK
// and EPA run, each from one point of M and a few supports (first_steps.hpp runs them).
//
// Every certificate is a struct with one entry point,
//   std::optional<Certified> try_certify(const PairInputs&, ColdStart& start) const;
// which starts from the point start.points[0] of M (a cold start's first support, a warm point, a
// cached closest pair) and, when its bounds on the distance or the depth agree, returns where the
// answer lies; otherwise std::nullopt, with what it learnt left in `start` for the next one (GJK's
// first support, an enclosing tetrahedron for EPA).
#pragma once

#include <optional>

#include "cold_start.hpp"
#include "core_contact.hpp"

namespace contactlab::plugins::gjk_epa {

/// What every certificate, and GJK and EPA after them (solve_pair()), are given: the pair (B's pose
/// in A's frame), the Minkowski difference M of its cores, the sum of the swept radii (the
/// problem's size, with M's points, as Solver::solve measures it), the relative tolerance, whether
/// both cores are polytopes, world +z in A (the normal of last resort) and the query's counters.
struct PairInputs {
  const Shape& a;
  const Shape& b;
  const Pose& X_AB;
  CoreDifference& difference;
  double sweep;
  double tolerance;
  bool polytope_cores;
  Vec3 up_A;
  QueryCounters& counters;
};

/// A certified answer: the contact of the cores at the point `point` of M (its witnesses point->a
/// and point->b), separated, or, when `start` is given and start->depth > 0, penetrating by that
/// depth along start->normal; `start` also brings the contact face's vertex pairs for the warm
/// start (start->face_pair_count > 0).
struct Certified {
  const SupportPoint* point;
  const ColdStart* start;
};

/// The answer of a certificate that ended at start.points[0].
inline std::optional<Certified> certified_at(const ColdStart& start) {
  return Certified{&start.points[0], &start};
}

// The answer of a penetration certificate (penetration_at_face(), cap_penetration_step()).
[[gnu::noinline]] inline CoreContact penetration_contact(const ColdStart& start) {
  CoreContact c;
  c.distance_m = -start.depth;
  c.normal = start.normal;
  c.point_a = start.points[0].a;
  c.point_b = start.points[0].b;
  // (replaced by the face's vertex pairs when a hull is among the cores; two boxes restart from
  // their supports along the normal, where the certificate holds again at a nearby pose)
  c.warm_count = 1;
  c.warm_directions[0] = start.normal;
  return c;
}

/// The contact of the cores a certificate answered, with what the warm start keeps of it.
inline CoreContact certified_contact(const Certified& certified, bool polytope_cores) {
  const ColdStart* start = certified.start;
  CoreContact core = start != nullptr && start->depth > 0.0
                         ? penetration_contact(*start)
                         : one_point_contact(*certified.point, polytope_cores);
  if (start != nullptr && start->face_pair_count > 0) {
    // A face certificate's answer: cached as its face's vertex pairs, not as one closest pair
    // (whose vertex is a corner of the face, not the closest point: GJK would start from it).
    core.one_point = false;
    core.warm_pair_count = start->face_pair_count;
    for (int k = 0; k < start->face_pair_count; ++k) core.warm_pairs[k] = start->face_pairs[k];
  }
  return core;
}

}  // namespace contactlab::plugins::gjk_epa
