// GJK/EPA narrow phase (see the header for the method): the plugin class, its query's outline and
// the warm-start cache. The algorithm's parts are the headers of
// this folder, each included only here.
#include "gjk_epa_narrow_phase.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include <contactlab/errors.hpp>
#include <contactlab/geometry/half_space.hpp>
#include <contactlab/geometry/manifold.hpp>
#include <contactlab/geometry/swap.hpp>

// The outline of a query, in the order query() runs it: the certificates (first_steps.hpp: the
// warm start's in warm_start.hpp, the others in *_certificate.hpp, behind certificate.hpp), GJK
// and EPA (solve_pair.hpp: solver.hpp with gjk.hpp, newton_polish.hpp and epa.hpp), then the
// swept radii and the warm start (cache_entry.hpp).
#include "cache_entry.hpp"
#include "epa.hpp"
#include "first_steps.hpp"
#include "gjk.hpp"
#include "newton_polish.hpp"
#include "solve_pair.hpp"
#include "warm_start.hpp"

namespace contactlab::plugins {

using namespace gjk_epa;

GjkEpaNarrowPhase::GjkEpaNarrowPhase(const ParameterValues& params)
    : tolerance_(params.real("tolerance")),
      max_iterations_(static_cast<int>(params.integer("max_iterations"))),
      workspace_(std::make_unique<Workspace>(max_iterations_)) {
  if (params.contains("manifold_points")) {
    const std::int64_t points = params.integer("manifold_points");
    if (points < 1 || points > max_manifold_points) {
      throw InputError("gjk_epa narrow phase: params.manifold_points is " + std::to_string(points) +
                       "; expected 1.." + std::to_string(max_manifold_points));
    }
    manifold_points_ = static_cast<int>(points);
  }
}

GjkEpaNarrowPhase::~GjkEpaNarrowPhase() = default;

ParameterSchema GjkEpaNarrowPhase::schema() {
  return {
      real_parameter("tolerance", 1e-12, 0.0, 1e-2, "",
                     "relative accuracy of distances and penetration depths; on curved cores "
                     "(ellipsoid, cylinder, cone, beam) GJK and EPA hand over to Newton steps on "
                     "the support function, and EPA alone (minima on kinks) stops at 1e-11 of the "
                     "shape size when this is smaller"),
      integer_parameter("max_iterations", 512, 4, 100000,
                        "iteration limit of each GJK and each EPA run (best result so far "
                        "beyond); EPA's polytope is sized for it. EPA on a kinked curved minimum "
                        "(cylinder rims, side lines) took up to ~150 iterations"),
      integer_parameter(
          "manifold_points", 1, 1, max_manifold_points,
          "contact points per pair: 1 keeps the deepest point; 2..4 add the other points of a "
          "line or face contact (a cylinder, cone or capsule lying on its side, a cap or a face "
          "on a face) by clipping the shapes' supporting features "
          "(contactlab/geometry/manifold.hpp), so "
          "resting bodies do not rock on one point; the deepest first, then the spread of the "
          "patch"),
  };
}

bool GjkEpaNarrowPhase::supports(ShapeType a, ShapeType b) const {
  return !(a == ShapeType::half_space && b == ShapeType::half_space);
}

void GjkEpaNarrowPhase::query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                              NarrowPhaseCache& cache, ContactManifold& manifold) {
  manifold.count = 1;
  ContactGeometry& out = manifold.points[0];
  const bool a_is_half_space = a.type == ShapeType::half_space;
  const bool b_is_half_space = b.type == ShapeType::half_space;
  if (a_is_half_space && b_is_half_space) {
    throw SimulationError(
        "gjk_epa narrow phase: half_space–half_space is unsupported (two unbounded solids have "
        "no finite penetration depth); exclude the pair from collision");
  }
  ++statistics_.queries;
  if (b_is_half_space) {
    out = geometry::support_half_space(a, X_WA, b, X_WB);
    geometry::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold);
    return;
  }
  if (a_is_half_space) {
    out = geometry::swapped(geometry::support_half_space(b, X_WB, a, X_WA));
    geometry::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold);
    return;
  }

  // B in A's frame, and M = core(A) − core(B), its hull climbs started where the last query's
  // ended (the pair's cache entry; none for a cold query).
  const Mat3 R_AW = X_WA.R.transpose();
  const Pose X_AB{R_AW * X_WB.R, R_AW * (X_WB.p - X_WA.p)};
  const std::uint64_t tag = kCacheTag.of(a.type, b.type);
  const CacheEntry* entry = cached_entry<CacheEntry>(cache, tag);
  CoreDifference difference(a, b, X_AB, entry != nullptr ? entry->start_vertex_a : 0,
                            entry != nullptr ? entry->start_vertex_b : 0, entry != nullptr);
  const double radius_a_m = sweep_radius(a);
  const double radius_b_m = sweep_radius(b);
  QueryCounters counters;
  // World +z seen in A: the normal of last resort (concentric spheres), as in the primitive plugin.
  const PairInputs in{a,
                      b,
                      X_AB,
                      difference,
                      radius_a_m + radius_b_m,
                      tolerance_,
                      polytope_core(a.type) && polytope_core(b.type),
                      X_WA.R.row(2).transpose(),
                      counters};

  // 1. The certificates (first_steps.hpp); 2. else GJK, EPA and the Newton polish (solve_pair.hpp).
  QueryStart query_start;
  const std::optional<Certified> certified = certify(in, entry, query_start);
  CoreContact core = certified ? certified_contact(*certified, in.polytope_cores)
                               : solve_pair(in, entry, query_start, max_iterations_, *workspace_);

  // 3. Sweep the cores back to the shapes: exact for any sign of the core distance.
  const Vec3 point_a_A = core.point_a + radius_a_m * core.normal;
  const Vec3 point_b_A = core.point_b - radius_b_m * core.normal;
  out.distance_m = core.distance_m - radius_a_m - radius_b_m;
  out.normal_W = X_WA.R * core.normal;
  out.point_a_W = affine(X_WA.R, point_a_A, X_WA.p);
  out.point_b_W = affine(X_WA.R, point_b_A, X_WA.p);

  // 4. The warm start for the pair's next query (cache_entry.hpp).
  CacheEntry& kept = cache_entry<CacheEntry>(cache, tag);  // (`entry`, when it was not null)
  if (core.one_point && in.polytope_cores) {
    if (!query_start.pair_kept) keep_one_point(a, b, X_AB, core, kept);
  } else if (core.warm_pair_count > 0) {
    kept.kind = WarmStart::vertex_pairs;
    kept.count = core.warm_pair_count;
    for (int i = 0; i < core.warm_pair_count; ++i) kept.pairs[i] = core.warm_pairs[i];
  } else {
    kept.kind = WarmStart::directions;
    kept.count = core.warm_count;
    for (int i = 0; i < core.warm_count; ++i) {
      for (int k = 0; k < 3; ++k) kept.directions[i][k] = core.warm_directions[i][k];
    }
  }
  kept.start_vertex_a = difference.last_vertex_a();
  kept.start_vertex_b = difference.last_vertex_b();

  statistics_.total_iterations += counters.iterations;
  statistics_.max_iterations_used =
      std::max<std::int64_t>(statistics_.max_iterations_used, counters.iterations);
  if (counters.hit_limit) ++statistics_.iteration_limit_hits;
  if (counters.degenerate) ++statistics_.degenerate_cases;
  // (build_manifold returns at once for one point; the test here spares the call.)
  if (manifold_points_ > 1) geometry::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold);
}

}  // namespace contactlab::plugins
