// A query's GJK/EPA part (solve_pair), when no certificate answered (first_steps.hpp): the start
// simplex from the cache (warm directions or vertex pairs), a begun one-point start or M's
// interior point, then the solver (GJK, EPA, Newton polish: solver.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <optional>

#include "certificate.hpp"
#include "cold_seeds.hpp"
#include "cold_start.hpp"
#include "first_steps.hpp"
#include "solver.hpp"
#include "warm_start.hpp"

namespace contactlab::plugins::gjk_epa {

// Everything of a query but the certified answers (certify() tries those first, with its small
// frame): the warm or cold start and the solver. `entry`: the pair's cache entry (null: a cold
// query); `query`: what the certificates left (the support along the first cached direction, a
// one-point start they began: cold, or from a warm point that did not certify).
[[gnu::noinline]] inline CoreContact solve_pair(const PairInputs& in, const CacheEntry* entry,
                                                const QueryStart& query, int max_iterations,
                                                GjkEpaNarrowPhase::Workspace& workspace) {
  const Shape& a = in.a;
  const Shape& b = in.b;
  const Pose& X_AB = in.X_AB;
  CoreDifference& difference = in.difference;
  const SupportPoint* first_warm_point = query.have_warm_point ? &query.start.points[0] : nullptr;
  const ColdStart* cold_start = query.cold_begun ? &query.start : nullptr;
  // Warm start from the support directions of the last answer; cold start along the line from
  // M's interior point to the origin, where M's points nearest to the origin lie.
  Simplex simplex;
  // A hull and a hull or a box: vertex pairs after EPA (WarmStart::vertex_pairs). Not two boxes:
  // EPA from the support directions needs few iterations there, fewer than inserting the seeds
  // costs.
  const std::uint32_t vertices_a = named_vertices(a);
  const std::uint32_t vertices_b = named_vertices(b);
  const bool vertex_pair = vertices_a > 0 && vertices_b > 0 &&
                           (a.type == ShapeType::convex_hull || b.type == ShapeType::convex_hull);
  std::array<SupportPoint, kMaxWarmPairs - 4> seeds;
  std::array<SupportPoint, ColdSeeds::kSeeds> cold_seed_points;
  int seed_count = 0;
  bool from_pairs = false;
  const bool warm = entry != nullptr && entry->kind == WarmStart::directions && entry->count >= 1 &&
                    entry->count <= 4;
  if (entry != nullptr && vertex_pair && entry->kind == WarmStart::vertex_pairs &&
      entry->count >= 4 && entry->count <= kMaxWarmPairs) {
    // Vertex pairs: the points themselves, no supports. The first four restart GJK, the others
    // seed EPA.
    const int count = entry->count;
    from_pairs = true;
    const Vec3 centre_A = interior_point(a) - X_AB.transform_point(interior_point(b));
    for (int i = 0; i < count; ++i) {
      const std::uint32_t vertex_a = entry->pairs[i].a;
      const std::uint32_t vertex_b = entry->pairs[i].b;
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
    const int count = entry->count;
    for (int i = 0; i < count; ++i) {
      const std::array<double, 3>& d = entry->directions[i];
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
    if (!(d_A.squaredNorm() > 0.0)) d_A = in.up_A;
    simplex.points[0] = difference.support(d_A);
    simplex.count = 1;
    if (vertex_pair) cold_seeds.emplace(a, b, X_AB, difference, simplex.points[0], d_A);
  }

  return [&]() -> CoreContact {
    // A warm start from one cached direction whose support certifies the distance at once (the
    // pose barely moved) is answered here, as Solver::solve would after gjk()'s first check,
    // without setting up the solver.
    if (warm && cold_start == nullptr && simplex.count == 1 &&
        warm_point_certifies(simplex.points[0], in.sweep, in.tolerance)) {
      return one_point_contact(simplex.points[0], in.polytope_cores);
    }
    Solver solver(difference, in.tolerance, in.polytope_cores, max_iterations, workspace,
                  in.counters);
    solver.set_seeds(seeds.data(), seed_count, vertex_pair, warm && !from_pairs);
    if (cold_seeds) solver.set_cold_seeds(&*cold_seeds, cold_seed_points.data());
    return solver.solve(simplex, in.sweep, in.up_A);
  }();
}

}  // namespace contactlab::plugins::gjk_epa
