// GJK/EPA narrow phase (see the header for the method): the plugin class, its query's outline,
// the half-space closed form and the warm-start cache. The algorithm's parts are the headers of
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
#include <contactlab/geometry/manifold.hpp>

// The outline of a query, in the order query() runs it: the warm start (warm_start.hpp), the
// certificates of the first steps (first_steps.hpp and the certificates it includes), GJK and EPA
// (solve_pair.hpp: solver.hpp with gjk.hpp, newton_polish.hpp and epa.hpp), then the swept radii.
#include "epa.hpp"
#include "first_steps.hpp"
#include "gjk.hpp"
#include "newton_polish.hpp"
#include "solve_pair.hpp"
#include "warm_start.hpp"
#include "warm_start_layout.hpp"

namespace contactlab::plugins {

using namespace gjk_epa;

namespace {

ContactGeometry swapped(const ContactGeometry& g) {
  ContactGeometry out;
  out.distance_m = g.distance_m;
  out.normal_W = -g.normal_W;
  out.point_a_W = g.point_b_W;
  out.point_b_W = g.point_a_W;
  return out;
}

}  // namespace

ContactGeometry shape_half_space(const Shape& shape, const Pose& X_WA, const Shape& half_space,
                                 const Pose& X_WH) {
  // Normalised again so that a hand-built Shape with a non-unit normal still gives a distance.
  const Vec3 n_W = X_WH.R * half_space.normal.normalized();
  const Vec3 deepest_W = support_W(shape, X_WA, -n_W);
  ContactGeometry out;
  out.distance_m = n_W.dot(deepest_W - X_WH.p);
  out.normal_W = -n_W;  // the half-space lies along −n_W as seen from the shape
  out.point_a_W = deepest_W;
  out.point_b_W = deepest_W - out.distance_m * n_W;  // projected on the boundary plane
  return out;
}

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
    out = shape_half_space(a, X_WA, b, X_WB);
    manifold::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold);
    return;
  }
  if (a_is_half_space) {
    out = swapped(shape_half_space(b, X_WB, a, X_WA));
    manifold::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold);
    return;
  }

  const Mat3 R_AW = X_WA.R.transpose();
  const Pose X_AB{R_AW * X_WB.R, R_AW * (X_WB.p - X_WA.p)};
  const bool same_types = cache.valid != 0 &&
                          cache.data[kCacheTypeA] == static_cast<double>(a.type) &&
                          cache.data[kCacheTypeB] == static_cast<double>(b.type);
  // Hull climbs start where the last query's ended (CoreSupport checks the range).
  std::uint32_t start_vertex_a = 0;
  std::uint32_t start_vertex_b = 0;
  bool start_known = false;
  const double packed = cache.data[kCacheVertices];
  if (same_types && packed >= 0.0 && packed < kVertexPacking * kVertexPacking) {
    start_known = true;
    const auto bits = static_cast<std::uint64_t>(packed);  // exact: an integer below 2^52
    start_vertex_a = static_cast<std::uint32_t>(bits & (kVertexMask));
    start_vertex_b = static_cast<std::uint32_t>(bits >> kVertexBits);
  }
  CoreDifference difference(a, b, X_AB, start_vertex_a, start_vertex_b, start_known);
  const double radius_a_m = sweep_radius(a);
  const double radius_b_m = sweep_radius(b);
  // World +z seen in A: the normal of last resort (concentric spheres), as in the primitive plugin.
  const Vec3 up_A = X_WA.R.row(2).transpose();
  QueryCounters counters;
  const bool polytope_cores = polytope_core(a.type) && polytope_core(b.type);
  // A warm start from one cached direction whose support certifies the distance at once (the
  // pose barely moved) is answered here, as Solver::solve would after gjk()'s first check,
  // without the start's and the solver's set-up (solve_pair).
  SupportPoint warm_point;
  bool have_warm_point = false;
  bool certified = false;
  if (same_types && cache.data[kCacheCount] == 1.0) {
    const Vec3 d_A(cache.data[kCacheDirections], cache.data[kCacheDirections + 1],
                   cache.data[kCacheDirections + 2]);
    if (d_A.squaredNorm() > 0.0 && d_A.allFinite()) {
      warm_point = difference.support(d_A);
      have_warm_point = true;
      certified = warm_point_certifies(warm_point, radius_a_m + radius_b_m, tolerance_);
    }
  }
  // A cold start between polytope cores begins here too: GJK's first iteration often ends it.
  // So does a warm point between polytope cores that did not certify (the pose moved, so its
  // cached direction is no longer the normal): GJK's first iteration from it often ends a moved
  // vertex–vertex contact, again without solve_pair's set-up. A cached closest pair
  // (kCacheOnePoint) is tried first (pair_certifies()); when it does not certify, the support it
  // took starts as a warm point would.
  ColdStart cold_start;
  bool cold_begun = false;
  const SupportPoint* one_point = certified ? &warm_point : nullptr;
  bool pair_kept = false;  // a cached pair certified: the cache keeps it as it is
  if (same_types && polytope_cores && cache.data[kCacheCount] == kCacheOnePoint) {
    bool supported = false;
    pair_kept = pair_certifies(a, b, cache, X_AB, difference, radius_a_m + radius_b_m, tolerance_,
                               counters, cold_start, supported);
    if (pair_kept) {
      one_point = &cold_start.points[0];
    } else if (supported && (difference.a_clampable() || difference.b_clampable())) {
      have_warm_point = true;  // the pair's support starts the clamp below
      warm_point = cold_start.points[1];
    } else if (supported) {
      // GJK goes on from the pair and its support, as after its first iteration from the pair.
      const SupportPoint& p = cold_start.points[0];
      const double vv = p.w.squaredNorm();
      cold_start.count = sub_segment(cold_start.points.data(), 0, 1).vv < vv ? 2 : 1;
      cold_start.d_A = p.d;
      cold_begun = true;
    }
  }
  // A cylinder with a polytope core: the cap and clamp certificates (cylinder_step()), from the
  // cold start's point or a warm point that did not certify; when it fails, the solver takes over
  // from the cold start's point, or from the cached directions. (Not two cylinders: their rims are
  // curved on both sides, so a rim over a rim never certifies, and the clamps cost more than they
  // save: callgrind per query, default poses, cold 3,805 → 4,942, moving 2,794 → 3,914.)
  const bool clamp_curved = (a.type == ShapeType::cylinder && polytope_core(b.type)) ||
                            (b.type == ShapeType::cylinder && polytope_core(a.type));
  if (!same_types && (polytope_cores || clamp_curved)) {
    cold_begun = true;
    if (begin_cold(a, b, X_AB, difference, up_A, radius_a_m + radius_b_m, tolerance_,
                   polytope_cores, cold_start, counters)) {
      one_point = &cold_start.points[0];
    }
  } else if (have_warm_point && !certified && !pair_kept && polytope_cores) {
    cold_begun = true;
    cold_start.points[0] = warm_point;
    cold_start.count = 1;
    cold_start.d_A = warm_point.d;
    if (polytope_step(difference, cold_start, radius_a_m + radius_b_m, tolerance_, counters)) {
      one_point = &cold_start.points[0];
    }
  } else if (have_warm_point && !certified && clamp_curved) {
    cold_start.points[0] = warm_point;
    if (cylinder_step(difference, cold_start, radius_a_m + radius_b_m, tolerance_, counters)) {
      one_point = &cold_start.points[0];
    }
  }
  CoreContact core =
      cold_start.depth > 0.0 && one_point == &cold_start.points[0] ? penetration_contact(cold_start)
      : one_point != nullptr
          ? one_point_contact(*one_point, polytope_cores)
          : solve_pair(a, b, X_AB, cache, same_types, difference, radius_a_m, radius_b_m, up_A,
                       polytope_cores, have_warm_point ? &warm_point : nullptr,
                       cold_begun ? &cold_start : nullptr, tolerance_, max_iterations_, *workspace_,
                       counters);

  // Sweep the cores back to the shapes: exact for any sign of the core distance.
  const Vec3 point_a_A = core.point_a + radius_a_m * core.normal;
  const Vec3 point_b_A = core.point_b - radius_b_m * core.normal;
  out.distance_m = core.distance_m - radius_a_m - radius_b_m;
  out.normal_W = X_WA.R * core.normal;
  out.point_a_W = affine(X_WA.R, point_a_A, X_WA.p);
  out.point_b_W = affine(X_WA.R, point_b_A, X_WA.p);

  if (cold_start.face_pair_count > 0 && one_point == &cold_start.points[0]) {
    // A face certificate's answer: cached as its face's vertex pairs, not as one closest pair
    // (whose vertex is a corner of the face, not the closest point: GJK would start from it).
    core.one_point = false;
    core.warm_pair_count = cold_start.face_pair_count;
    for (int k = 0; k < cold_start.face_pair_count; ++k) {
      core.warm_pairs[k] = cold_start.face_pairs[k];
    }
  }
  cache.valid = 1;
  if (core.one_point && polytope_cores) {
    if (!pair_kept) keep_one_point(a, b, X_AB, core, cache);
  } else if (core.warm_pair_count > 0) {
    cache.data[kCacheCount] = -core.warm_pair_count;
    for (int i = 0; i < core.warm_pair_count; ++i) {
      cache.data[kCacheDirections + i] = core.warm_pairs[i];
    }
  } else {
    cache.data[kCacheCount] = core.warm_count;
    for (int i = 0; i < core.warm_count; ++i) {
      for (int k = 0; k < 3; ++k)
        cache.data[kCacheDirections + 3 * i + k] = core.warm_directions[i][k];
    }
  }
  cache.data[kCacheTypeA] = static_cast<double>(a.type);
  cache.data[kCacheTypeB] = static_cast<double>(b.type);
  cache.data[kCacheVertices] = static_cast<double>(difference.last_vertex_a()) +
                               kVertexPacking * static_cast<double>(difference.last_vertex_b());

  statistics_.total_iterations += counters.iterations;
  statistics_.max_iterations_used =
      std::max<std::int64_t>(statistics_.max_iterations_used, counters.iterations);
  if (counters.hit_limit) ++statistics_.iteration_limit_hits;
  if (counters.degenerate) ++statistics_.degenerate_cases;
  // (build_manifold returns at once for one point; the test here spares the call.)
  if (manifold_points_ > 1) manifold::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold);
}

}  // namespace contactlab::plugins
