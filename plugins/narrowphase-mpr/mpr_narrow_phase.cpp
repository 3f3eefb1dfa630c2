// The MPR narrow phase's adapter (mpr_narrow_phase.hpp): its parameters, the half-space pairs in
// closed form, the pair's cache entry around mpr::signed_distance (mpr_algorithm.hpp) and the
// counters.
#include "mpr_narrow_phase.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <contactlab/errors.hpp>
#include <contactlab/geometry/half_space.hpp>
#include <contactlab/geometry/manifold.hpp>
#include <contactlab/geometry/swap.hpp>
#include <cstdint>
#include <string>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace contactlab::plugins {

namespace {

/// The warm start of a pair of shapes of types a and b from its cache entry (mpr_cache.hpp):
/// false, `warm` left invalid, when the cache holds no entry of this plugin's for these shape types
/// or the entry's directions are not finite.
bool read_portal(const NarrowPhaseCache& cache, ShapeType a, ShapeType b, mpr::WarmPortal& warm) {
  if (cache.tag == 0) return false;  // empty: no tag to compute (a sphere pair's cache stays so)
  const mpr::CacheEntry* entry = cached_entry<mpr::CacheEntry>(cache, mpr::kCacheTag.of(a, b));
  if (entry == nullptr) return false;
  const std::array<double, 9>& directions = entry->directions;
#if defined(__SSE2__)
  // All nine finite: x − x is 0 for finite x and NaN otherwise, two at a time and one branch
  // (fewer instructions than nine std::isfinite tests: tools/bench/narrow_phase_history.md).
  __m128d nan_if_not_finite = _mm_setzero_pd();
  for (int k = 0; k < 8; k += 2) {
    const __m128d pair = _mm_loadu_pd(&directions[k]);
    nan_if_not_finite = _mm_add_pd(nan_if_not_finite, _mm_sub_pd(pair, pair));
  }
  const __m128d last = _mm_load_sd(&directions[8]);
  nan_if_not_finite = _mm_add_pd(nan_if_not_finite, _mm_sub_pd(last, last));
  if (_mm_movemask_pd(_mm_cmpunord_pd(nan_if_not_finite, nan_if_not_finite)) != 0) return false;
#else
  for (int k = 0; k < 9; ++k)
    if (!std::isfinite(directions[k])) return false;
#endif
  for (int v = 0; v < 3; ++v)
    warm.directions[v] = Vec3(directions[3 * v], directions[3 * v + 1], directions[3 * v + 2]);
  warm.cores = entry->cores;
  warm.newton = entry->newton;
  warm.newton_side = entry->newton_side;
  warm.newton_separated = entry->newton_separated;
  warm.face = entry->face;
  warm.hint_a = entry->hint_a;
  warm.hint_b = entry->hint_b;
  warm.valid = true;
  return true;
}

/// The portal the query ended on as the cache entry of a pair of shapes of types a and b; an
/// invalid one empties the cache.
void write_portal(const mpr::WarmPortal& warm, ShapeType a, ShapeType b, NarrowPhaseCache& cache) {
  if (!warm.valid) {
    cache.tag = 0;
    return;
  }
  mpr::CacheEntry& entry = cache_entry<mpr::CacheEntry>(cache, mpr::kCacheTag.of(a, b));
  for (int v = 0; v < 3; ++v)
    for (int k = 0; k < 3; ++k) entry.directions[3 * v + k] = warm.directions[v][k];
  entry.hint_a = warm.hint_a;
  entry.hint_b = warm.hint_b;
  entry.cores = warm.cores;
  entry.newton = warm.newton;
  entry.newton_side = warm.newton_side;
  entry.newton_separated = warm.newton_separated;
  entry.face = warm.face;
}

/// Adds one MPR query's result to the counters.
void count(const mpr::Result& result, MprStatistics& statistics) {
  NarrowPhaseStatistics& totals = statistics.totals;
  const std::int32_t iterations = result.iterations();
  totals.total_iterations += iterations;
  totals.max_iterations_used = std::max<std::int64_t>(totals.max_iterations_used, iterations);
  if (result.iteration_limit_hit) ++totals.iteration_limit_hits;
  if (result.degenerate) ++totals.degenerate_cases;
  ++statistics.terminations[static_cast<int>(result.termination)];
  if (result.coincident_interior_points) ++statistics.coincident_interior_points;
  if (result.completion_iterations > 0) ++statistics.completions;
  if (result.full_shape_rerun) ++statistics.full_shape_reruns;
  statistics.max_phase2_iterations =
      std::max(statistics.max_phase2_iterations, result.phase2_iterations);
  statistics.max_phase3_iterations =
      std::max(statistics.max_phase3_iterations, result.phase3_iterations);
  statistics.max_completion_iterations =
      std::max(statistics.max_completion_iterations, result.completion_iterations);
}

mpr::Precision parse_precision(const std::string& name) {
  if (name == "double") return mpr::Precision::double_precision;
  if (name == "long_double") return mpr::Precision::long_double;
  if (name == "double_double") return mpr::Precision::double_double;
  throw InputError("mpr narrow phase: params.precision is '" + name +
                   "'; expected one of double, long_double, double_double");
}

}  // namespace

MprNarrowPhase::MprNarrowPhase(const ParameterValues& params) {
  if (params.contains("precision")) precision_ = parse_precision(params.text("precision"));
  if (params.contains("tolerance")) settings_.tolerance = params.real("tolerance");
  if (params.contains("max_iterations")) {
    settings_.max_iterations = static_cast<std::int32_t>(
        std::clamp<std::int64_t>(params.integer("max_iterations"), 1, 1000000));
  }
  if (params.contains("swept_radii")) {
    const std::string mode = params.text("swept_radii");
    if (mode != "core" && mode != "support") {
      throw InputError("mpr narrow phase: params.swept_radii is '" + mode +
                       "'; expected one of core, support");
    }
    settings_.on_cores = mode == "core";
  }
  if (params.contains("manifold_points")) {
    const std::int64_t points = params.integer("manifold_points");
    if (points < 1 || points > max_manifold_points) {
      throw InputError("mpr narrow phase: params.manifold_points is " + std::to_string(points) +
                       "; expected 1.." + std::to_string(max_manifold_points));
    }
    manifold_points_ = static_cast<int>(points);
  }
  if (params.contains("warm_start")) warm_start_ = params.boolean("warm_start");
  if (params.contains("newton_finish")) settings_.newton_finish = params.boolean("newton_finish");
  if (!(settings_.tolerance > 0.0)) {
    throw InputError("mpr narrow phase: params.tolerance is " +
                     std::to_string(settings_.tolerance) + "; expected a value > 0");
  }
}

ParameterSchema MprNarrowPhase::schema() {
  ParameterSpec tolerance = real_parameter(
      "tolerance", 1e-12, 0.0, 1e-3, "",
      "MPR termination tolerance (TC2/TC3) relative to the size of the Minkowski difference; "
      "1e-12 suits every precision, and long_double or double_double may go down to about 1e-15, "
      "the rounding floor of the double support points (Modia3D's 1e-20 needs supports in "
      "quadruple precision)");
  tolerance.minimum_exclusive = true;
  return {
      tolerance,
      integer_parameter("max_iterations", 120, 1, 1000000,
                        "iteration limit of each MPR phase; at the limit the best result so far "
                        "is returned and counted (Neumayr 2025 §6.1.4)"),
      choice_parameter("precision", "double", {"double", "long_double", "double_double"},
                       "arithmetic of the MPR iteration; double_double is the 106-bit Double64 of "
                       "Modia3D, about 10x slower than double"),
      choice_parameter("swept_radii", "core", {"core", "support"},
                       "core: MPR runs on the shapes' cores (spheres to their centres, capsules to "
                       "their segments, smoothed shapes shrunk by the smoothing radius) and the "
                       "radii are added to the result, exact for sphere and capsule pairs; "
                       "support: the radii are swept inside the support mapping as in Modia3D, "
                       "which makes the refinement converge slowly on the rounded parts"),
      integer_parameter(
          "manifold_points", 1, 1, max_manifold_points,
          "contact points per pair: 1 keeps MPR's deepest point; 2..4 add the other points of a "
          "line or face contact (a cylinder, cone or capsule lying on its side, a cap or a face "
          "on a face) by clipping the shapes' supporting features "
          "(contactlab/geometry/manifold.hpp), so "
          "the point does not jump along the line and resting bodies do not rock; the deepest "
          "first, then the spread of the patch"),
      boolean_parameter(
          "warm_start", true,
          "temporal coherence on polytope pairs (box, hull, sphere and capsule cores): phase 2 "
          "starts from the portal the pair's previous query ended on (kept in the pair's cache) "
          "when its support points still span a tetrahedron around the origin ray, else the "
          "query starts cold; the answer is the cold one to rounding. Curved pairs start the "
          "Newton finish from the normal their last query ended on (newton_finish). false starts "
          "every query from the interior point, as Modia3D does"),
      boolean_parameter(
          "newton_finish", true,
          "on curved pairs (ellipsoid, cylinder, cone, beam cores), where the portal refinement "
          "converges only linearly, Newton steps on the support function take over once the "
          "refinement is within 1e-3 of the size, and end when the support point lies on the "
          "origin ray within the tolerance (the limit of the refinement, certified); where "
          "Newton cannot (side lines, a hull's faces) the refinement goes on; a box's face or "
          "a cylinder's or frustum's cap against a curved shape's point is certified by one "
          "support (the flat face certificate). false refines to TC2/TC3 as Neumayr's MPR "
          "does"),
  };
}

bool MprNarrowPhase::supports(ShapeType a, ShapeType b) const {
  return !(a == ShapeType::half_space && b == ShapeType::half_space);
}

void MprNarrowPhase::query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                           NarrowPhaseCache& cache, ContactManifold& manifold_out) {
  // Half-space pairs in closed form; any other pair by MPR, warm-started from the pair's cache
  // entry (mpr_cache.hpp) and writing back the portal it ended on; then the manifold's other
  // points and the counters.
  manifold_out.count = 1;
  ContactGeometry& out = manifold_out.points[0];
  if (a.type == ShapeType::half_space && b.type == ShapeType::half_space) {
    throw SimulationError(
        "mpr narrow phase: unsupported pair half_space–half_space; two half-spaces have no "
        "finite signed distance");
  }
  ++statistics_.totals.queries;
  if (b.type == ShapeType::half_space) {
    ++statistics_.half_space_queries;
    out = geometry::support_half_space(a, X_WA, b, X_WB);
    geometry::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold_out);
    return;
  }
  if (a.type == ShapeType::half_space) {
    ++statistics_.half_space_queries;
    out = geometry::swapped(geometry::support_half_space(b, X_WB, a, X_WA));
    geometry::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold_out);
    return;
  }

  if (warm_start_) {
    mpr::WarmPortal warm;
    read_portal(cache, a.type, b.type, warm);
    mpr::signed_distance(precision_, a, X_WA, b, X_WB, settings_, &warm, last_result_);
    write_portal(warm, a.type, b.type, cache);
    if (last_result_.warm_started) ++statistics_.warm_starts;
  } else {
    mpr::signed_distance(precision_, a, X_WA, b, X_WB, settings_, nullptr, last_result_);
  }
  out = last_result_.geometry;
  geometry::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold_out);
  count(last_result_, statistics_);
}

}  // namespace contactlab::plugins
