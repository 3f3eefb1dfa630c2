#include "mpr_narrow_phase.hpp"

#include <algorithm>
#include <cmath>
#include <contactlab/errors.hpp>
#include <contactlab/geometry/manifold.hpp>
#include <string>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace contactlab::plugins {

namespace {

/// The same contact seen with A and B exchanged: normal negated, witness points swapped.
ContactGeometry swap_roles(const ContactGeometry& geometry) {
  ContactGeometry out;
  out.distance_m = geometry.distance_m;
  out.normal_W = -geometry.normal_W;
  out.point_a_W = geometry.point_b_W;
  out.point_b_W = geometry.point_a_W;
  return out;
}

/// NarrowPhaseCache layout of the warm start: data[0..8] the portal's three support directions in
/// A's frame (a curved pair's Newton normal in data[0..2]), data[9] the flags kCoresFlag and
/// kNewtonFlag (with kSeparatedFlag or kFaceFlag, or the straight line it ended on times
/// kLineUnit), data[10] and data[11] the hull vertex numbers A's and B's supports ended at; `valid`
/// holds kPortalTag while they are set.
constexpr std::int32_t kPortalTag = 0x4d505232;  // "MPR2"
constexpr int kCoresFlag = 1;      ///< the support points were the cores' (WarmPortal::cores)
constexpr int kNewtonFlag = 2;     ///< a Newton normal, not a portal (WarmPortal::newton)
constexpr int kSeparatedFlag = 4;  ///< a separated pair's normal (WarmPortal::newton_separated)
constexpr int kFaceFlag = 8;       ///< a flat face's normal (WarmPortal::face)
constexpr int kLineUnit = 16;      ///< times WarmPortal::newton_side (0..8)
constexpr int kFlagsEnd = 9 * kLineUnit;

/// A vertex number stored as a double (exact below 2^53); anything else reads as 0.
std::uint32_t read_vertex(double value) {
  return value >= 0.0 && value < 4294967296.0 ? static_cast<std::uint32_t>(value) : 0;
}

bool read_portal(const NarrowPhaseCache& cache, mpr::WarmPortal& warm) {
  if (cache.valid != kPortalTag) return false;
#if defined(__SSE2__)
  // data[0..9] all finite: x − x is 0 for finite x and NaN otherwise (two at a time).
  __m128d nan_if_not_finite = _mm_setzero_pd();
  for (int k = 0; k < 10; k += 2) {
    const __m128d pair = _mm_loadu_pd(&cache.data[k]);
    nan_if_not_finite = _mm_add_pd(nan_if_not_finite, _mm_sub_pd(pair, pair));
  }
  if (_mm_movemask_pd(_mm_cmpunord_pd(nan_if_not_finite, nan_if_not_finite)) != 0) return false;
#else
  for (int k = 0; k < 10; ++k)
    if (!std::isfinite(cache.data[k])) return false;
#endif
  for (int v = 0; v < 3; ++v)
    warm.directions[v] = Vec3(cache.data[3 * v], cache.data[3 * v + 1], cache.data[3 * v + 2]);
  const int flags =
      cache.data[9] >= 0.0 && cache.data[9] < kFlagsEnd ? static_cast<int>(cache.data[9]) : 0;
  warm.cores = (flags & kCoresFlag) != 0;
  warm.newton = (flags & kNewtonFlag) != 0;
  warm.newton_side = static_cast<std::uint8_t>(flags / kLineUnit);
  warm.newton_separated = (flags & kSeparatedFlag) != 0;
  warm.face = (flags & kFaceFlag) != 0;
  warm.hint_a = read_vertex(cache.data[10]);
  warm.hint_b = read_vertex(cache.data[11]);
  warm.valid = true;
  return true;
}

void write_portal(const mpr::WarmPortal& warm, NarrowPhaseCache& cache) {
  if (!warm.valid) {
    cache.valid = 0;
    return;
  }
  for (int v = 0; v < 3; ++v)
    for (int k = 0; k < 3; ++k) cache.data[3 * v + k] = warm.directions[v][k];
  cache.data[9] = (warm.cores ? kCoresFlag : 0) + (warm.newton ? kNewtonFlag : 0) +
                  (warm.newton_separated ? kSeparatedFlag : 0) + (warm.face ? kFaceFlag : 0) +
                  kLineUnit * warm.newton_side;
  cache.data[10] = warm.hint_a;
  cache.data[11] = warm.hint_b;
  cache.valid = kPortalTag;
}

mpr::Precision parse_precision(const std::string& name) {
  if (name == "double") return mpr::Precision::double_precision;
  if (name == "long_double") return mpr::Precision::long_double;
  if (name == "double_double") return mpr::Precision::double_double;
  throw InputError("mpr narrow phase: params.precision is '" + name +
                   "'; expected one of double, long_double, double_double");
}

}  // namespace

ContactGeometry convex_half_space(const Shape& a, const Pose& X_WA, const Vec3& normal_G,
                                  const Pose& X_WG) {
  // Normalised again so that a hand-built Shape with a non-unit normal still gives a true distance.
  const Vec3 n_W = X_WG.R * normal_G.normalized();
  const Vec3 deepest_W = support_W(a, X_WA, -n_W);
  const double height_m = n_W.dot(deepest_W - X_WG.p);  // below the plane when negative
  ContactGeometry out;
  out.distance_m = height_m;
  out.normal_W = -n_W;  // the half-space lies along −n_W as seen from A
  out.point_a_W = deepest_W;
  out.point_b_W = deepest_W - height_m * n_W;
  return out;
}

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
    out = convex_half_space(a, X_WA, b.normal, X_WB);
    manifold::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold_out);
    return;
  }
  if (a.type == ShapeType::half_space) {
    ++statistics_.half_space_queries;
    out = swap_roles(convex_half_space(b, X_WB, a.normal, X_WA));
    manifold::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold_out);
    return;
  }

  if (warm_start_) {
    mpr::WarmPortal warm;
    read_portal(cache, warm);
    mpr::signed_distance(precision_, a, X_WA, b, X_WB, settings_, &warm, last_result_);
    write_portal(warm, cache);
    if (last_result_.warm_started) ++statistics_.warm_starts;
  } else {
    mpr::signed_distance(precision_, a, X_WA, b, X_WB, settings_, nullptr, last_result_);
  }
  out = last_result_.geometry;
  manifold::build_manifold(a, X_WA, b, X_WB, manifold_points_, manifold_out);

  NarrowPhaseStatistics& totals = statistics_.totals;
  const std::int32_t iterations = last_result_.iterations();
  totals.total_iterations += iterations;
  totals.max_iterations_used = std::max<std::int64_t>(totals.max_iterations_used, iterations);
  if (last_result_.iteration_limit_hit) ++totals.iteration_limit_hits;
  if (last_result_.degenerate) ++totals.degenerate_cases;
  ++statistics_.terminations[static_cast<int>(last_result_.termination)];
  if (last_result_.coincident_interior_points) ++statistics_.coincident_interior_points;
  if (last_result_.completion_iterations > 0) ++statistics_.completions;
  if (last_result_.full_shape_rerun) ++statistics_.full_shape_reruns;
  statistics_.max_phase2_iterations =
      std::max(statistics_.max_phase2_iterations, last_result_.phase2_iterations);
  statistics_.max_phase3_iterations =
      std::max(statistics_.max_phase3_iterations, last_result_.phase3_iterations);
  statistics_.max_completion_iterations =
      std::max(statistics_.max_completion_iterations, last_result_.completion_iterations);
}

}  // namespace contactlab::plugins
