// The closest-point completion of separated pairs (not in the thesis; see mpr_algorithm.hpp): a
// GJK distance iteration on the cores, started from MPR's portal or normal, whose sub-simplex
// step is the Voronoi-region closest point of contactlab/geometry/voronoi_closest_point.hpp.
// Called where a separated pair's TC3 foot point falls outside the portal (Thm 6.3 case 2), where
// phase 3 proves the pair separated, and where the cores' difference is not 3-D.
// Included only by mpr_algorithm.cpp, in the unnamed namespace of the solver's parts (see
// mpr_solver.hpp).
#pragma once

#include <contactlab/geometry/voronoi_closest_point.hpp>
#include <cstdint>
#include <limits>

#include "mpr_solver.hpp"

namespace contactlab::plugins::mpr {
namespace {

/// Up to four support points with the barycentric weights of the point of their hull closest to
/// the origin.
template <class T>
using Simplex = geometry::voronoi::WeightedSimplex<SupportPoint<T>, T>;

/// Closest-point completion (not in the thesis) of a separated pair: a GJK distance iteration
/// (Gilbert, Johnson and Keerthi 1988; van den Bergen 2003 §4.3) between the cores of A and B
/// (each shape shrunk by its swept radius: a sphere's centre, a capsule's segment, a smoothed
/// shape's inner shape), started along the normal MPR found; the distance of the shapes is the
/// cores' distance minus the two radii (van den Bergen 2003 §4.3.7). Cores of spheres, capsules
/// and (smoothed) boxes and hulls are polytopes, on which the iteration ends exactly. Each step
/// adds the core support point towards the origin and stops when that support plane (a lower
/// bound) is within the TC tolerance of the closest point (an upper bound), or when no progress is
/// left at this precision. The normal reported is the direction of the best lower bound: its
/// support plane is within the final gap of the distance, whereas the direction of the simplex's
/// closest point converges more slowly (by the square root of the gap on curved cores, and worse
/// next to flat faces of A ⊖ B, where the support value has a kink). Returns false when the cores
/// are found to overlap.
template <class T, bool kBoxes>
bool Solver<T, kBoxes>::complete_closest_point(const V& initial_normal, const Portal* start,
                                               const S* start_support) {
  const T radius_a = T(radius_a_);
  const T radius_b = T(radius_b_);
  Simplex<T> simplex;
  V closest;
  T lower_bound = T(-std::numeric_limits<double>::infinity());
  V lower_bound_normal = initial_normal;
  if (start != nullptr && portal_on_cores()) {
    // Started from MPR's portal (points of the cores' difference) and the support point along its
    // unit normal `initial_normal`, whose support plane is a first lower bound.
    simplex.points = {start->r1, start->r2, start->r3, S{}};
    simplex.size = 3;
    bool enclosed = false;
    closest = geometry::voronoi::closest_on_simplex(simplex, T(epsilon_), enclosed);
    lower_bound = -dot(start_support->p, initial_normal);
  } else {
    simplex.points[0] = core_support(initial_normal);
    simplex.weights[0] = T(1.0);
    simplex.size = 1;
    closest = simplex.points[0].p;
  }
  bool converged = false;
  for (std::int32_t iteration = 1; iteration <= max_iterations_; ++iteration) {
    const T distance = norm(closest);
    if (!(distance > ray_threshold_)) return false;
    // The direction from A towards B: from the cores' closest point towards the origin.
    const V normal = -closest / distance;
    const S s = core_support(normal);
    result_.completion_iterations = iteration;
    if (T(-dot(s.p, normal)) > lower_bound) {
      lower_bound = -dot(s.p, normal);
      lower_bound_normal = normal;
    }
    bool repeated = false;
    for (int k = 0; k < simplex.size; ++k) {
      const V offset = simplex.points[k].p - s.p;
      repeated = repeated || dot(offset, offset) <= tc_threshold_ * tc_threshold_;
    }
    if (distance - lower_bound <= tc_threshold_ || repeated) {
      converged = true;
      break;
    }
    Simplex<T> grown = simplex;
    grown.points[grown.size++] = s;
    bool enclosed = false;
    const V next = geometry::voronoi::closest_on_simplex(grown, T(epsilon_), enclosed);
    if (enclosed) return false;
    if (!(norm(next) < distance)) {
      converged = true;  // no progress left at this precision
      break;
    }
    simplex = grown;
    closest = next;
  }
  // Started from an early portal, the completion must close the gap between its bounds; when it
  // stops on a repeated point or for lack of progress first (parallel edges of curved cores), the
  // refinement goes on and a later completion starts from a better portal.
  if (start != nullptr && !(norm(closest) - lower_bound <= tc_threshold_)) return false;
  if (!converged) result_.iteration_limit_hit = true;
  const T core_distance = norm(closest);
  if (!(core_distance > T(0.0))) return false;
  const V& normal = lower_bound_normal;
  V a, b;
  for (int k = 0; k < simplex.size; ++k) {
    a = a + simplex.points[k].a * simplex.weights[k];
    b = b + simplex.points[k].b * simplex.weights[k];
  }
  set_geometry(a + normal * radius_a, b - normal * radius_b, T(core_distance - radius_a - radius_b),
               normal);
  radii_applied_ = true;
  if (newton_on() && warm_ != nullptr) {
    // A curved pair: the next query starts the separated Newton from this normal (a polytope
    // pair's portal is saved by the caller).
    finish_newton_cache(normal.to_vec3(), 0);
    warm_->newton_separated = true;
  }
  return true;
}

}  // namespace
}  // namespace contactlab::plugins::mpr
