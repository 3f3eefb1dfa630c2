// A query's GJK/EPA part (solve_pair): the start simplex from the cache (warm directions or
// vertex pairs), a begun cold start or M's interior point, then the solver.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <optional>

#include "cold_seeds.hpp"
#include "cold_start.hpp"
#include "solver.hpp"
#include "warm_start.hpp"
#include "warm_start_layout.hpp"

namespace contactlab::plugins::gjk_epa {

// Everything of a query but the one-point answers (query() tries those first, with its small
// frame): the warm or cold start, the first GJK iteration of a cold polytope pair and the solver.
// `first_warm_point`: the support along the first cached direction, when query() has taken it.
// `cold_start`: a one-point start between polytope cores that query() has begun (ColdStart):
// cold, or from a warm point that did not certify.
[[gnu::noinline]] inline CoreContact solve_pair(
    const Shape& a, const Shape& b, const Pose& X_AB, const NarrowPhaseCache& cache,
    bool same_types, CoreDifference& difference, double radius_a_m, double radius_b_m,
    const Vec3& up_A, bool polytope_cores, const SupportPoint* first_warm_point,
    const ColdStart* cold_start, double tolerance, int max_iterations,
    GjkEpaNarrowPhase::Workspace& workspace, QueryCounters& counters) {
  // Warm start from the support directions of the last answer; cold start along the line from
  // M's interior point to the origin, where M's points nearest to the origin lie.
  Simplex simplex;
  // A hull and a hull or a box: vertex pairs after EPA (kCacheCount). Not two boxes: EPA from
  // the support directions needs 4.4 iterations there, fewer than inserting the seeds costs
  // (callgrind per warm query: 8,524 with directions, 11,129 with pairs).
  const std::uint32_t vertices_a = named_vertices(a);
  const std::uint32_t vertices_b = named_vertices(b);
  const bool vertex_pair = vertices_a > 0 && vertices_b > 0 &&
                           (a.type == ShapeType::convex_hull || b.type == ShapeType::convex_hull);
  std::array<SupportPoint, kMaxWarmPairs - 4> seeds;
  std::array<SupportPoint, ColdSeeds::kSeeds> cold_seed_points;
  int seed_count = 0;
  bool from_pairs = false;
  const bool warm = same_types && cache.data[kCacheCount] >= 1.0 && cache.data[kCacheCount] <= 4.0;
  if (same_types && vertex_pair && cache.data[kCacheCount] <= -4.0 &&
      cache.data[kCacheCount] >= -static_cast<double>(kMaxWarmPairs)) {
    // Vertex pairs (kCacheCount): the points themselves, no supports. The first four restart
    // GJK, the others seed EPA.
    const int count = static_cast<int>(-cache.data[kCacheCount]);
    from_pairs = true;
    const Vec3 centre_A = interior_point(a) - X_AB.transform_point(interior_point(b));
    for (int i = 0; i < count; ++i) {
      const double pair = cache.data[kCacheDirections + i];
      if (!(pair >= 0.0 && pair < kVertexPacking * kVertexPacking)) break;
      const auto bits = static_cast<std::uint64_t>(pair);
      const auto vertex_a = static_cast<std::uint32_t>(bits & kVertexMask);
      const auto vertex_b = static_cast<std::uint32_t>(bits >> kVertexBits);
      if (vertex_a >= vertices_a || vertex_b >= vertices_b) break;
      SupportPoint p;
      p.a = named_vertex(a, vertex_a);
      p.b = X_AB.R * named_vertex(b, vertex_b) + X_AB.p;  // as CoreDifference::support
      p.w = p.a - p.b;
      p.d = p.w - centre_A;  // a direction p is about the support point for (warm directions)
      p.vertex_a = vertex_a;
      p.vertex_b = vertex_b;
      if (i >= 4) {
        seeds[seed_count++] = p;
        continue;
      }
      bool repeated = false;
      for (int j = 0; j < simplex.count; ++j) repeated = repeated || p.w == simplex.points[j].w;
      if (!repeated) simplex.points[simplex.count++] = p;
    }
  } else if (warm && cold_start == nullptr) {  // (a begun start replaces the cached points)
    const int count = static_cast<int>(cache.data[kCacheCount]);
    for (int i = 0; i < count; ++i) {
      const double* d = &cache.data[kCacheDirections + 3 * i];
      const Vec3 d_A(d[0], d[1], d[2]);
      if (!(d_A.squaredNorm() > 0.0) || !d_A.allFinite()) continue;
      // (the one-point warm start's support, when query() has taken it: the same point)
      const SupportPoint p =
          i == 0 && first_warm_point != nullptr ? *first_warm_point : difference.support(d_A);
      bool repeated = false;
      for (int j = 0; j < simplex.count; ++j) repeated = repeated || p.w == simplex.points[j].w;
      if (!repeated) simplex.points[simplex.count++] = p;
    }
  }
  std::optional<ColdSeeds> cold_seeds;
  if (cold_start != nullptr && cold_start->has_enclosing) {
    for (int i = 0; i < 4; ++i) simplex.points[i] = cold_start->enclosing[i];
    simplex.count = 4;
    if (vertex_pair) {
      cold_seeds.emplace(a, b, X_AB, difference, cold_start->points[0], cold_start->d_A);
    }
  } else if (cold_start != nullptr) {
    for (int i = 0; i < cold_start->count; ++i) simplex.points[i] = cold_start->points[i];
    simplex.count = cold_start->count;
    if (vertex_pair) {
      cold_seeds.emplace(a, b, X_AB, difference, simplex.points[0], cold_start->d_A);
    }
  } else if (simplex.count == 0) {
    Vec3 d_A = X_AB.transform_point(interior_point(b)) - interior_point(a);
    if (!(d_A.squaredNorm() > 0.0)) d_A = up_A;
    simplex.points[0] = difference.support(d_A);
    simplex.count = 1;
    if (vertex_pair) cold_seeds.emplace(a, b, X_AB, difference, simplex.points[0], d_A);
  }

  return [&]() -> CoreContact {
    // A warm start from one cached direction whose support certifies the distance at once (the
    // pose barely moved) is answered here, as Solver::solve would after gjk()'s first check,
    // without setting up the solver: that set-up was a fifth of such a query.
    if (warm && cold_start == nullptr && simplex.count == 1 &&
        warm_point_certifies(simplex.points[0], radius_a_m + radius_b_m, tolerance)) {
      return one_point_contact(simplex.points[0], polytope_cores);
    }
    Solver solver(difference, tolerance, polytope_cores, max_iterations, workspace, counters);
    solver.set_seeds(seeds.data(), seed_count, vertex_pair, warm && !from_pairs);
    if (cold_seeds) solver.set_cold_seeds(&*cold_seeds, cold_seed_points.data());
    return solver.solve(simplex, radius_a_m + radius_b_m, up_A);
  }();
}

}  // namespace contactlab::plugins::gjk_epa
