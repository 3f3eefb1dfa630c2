// Support vertices of a convex hull without data-dependent branches: a scan of small hulls in two
// interleaved chains and a steepest-ascent climb along the vertex adjacency, both selecting their
// best with conditional moves. The signs of successive search directions' comparisons are as good
// as random, so the branches of the SDK's hull_support_vertex and hull_climb_vertex
// (contactlab/shapes.hpp) mispredict about once per vertex or neighbour visited.
//
// Used by the MPR narrow phase (plugins/narrowphase-mpr, its hull supports). How they differ from
// the SDK's:
//  - branchless_hull_climb returns the same vertex as hull_climb_vertex for every hull, direction
//    and start (the same products and sums, the same strict comparisons, the first best neighbour
//    of the vertex it stands on, moving while one is better), with one branch per step instead of
//    one per neighbour: it can replace hull_climb_vertex's body without changing any answer;
//  - branchless_hull_scan returns a vertex maximising d·x as hull_support_vertex's scan does, but
//    not the same one when several tie: it keeps the first best of the even-numbered vertices and
//    of the odd-numbered ones (vertex 0 in both) and returns the even chain's only when it is
//    strictly better, so of two tied vertices 2 and 3 it returns 3 where the SDK returns 2;
//  - neither chooses between scanning and climbing (the SDK scans below kHullClimbFrom vertices):
//    the caller does.
// Eigen's dot product of two 3-vectors sums (x·x' + y·y') + z·z', as these do, so a start value
// computed with Vec3::dot is the value these compare against.
//
// Both have internal linkage (static): every translation unit that calls them has its own copy,
// which lets GCC allocate the caller's registers around the call knowing what the callee clobbers
// (IPA-RA; an inline function with external linkage may be replaced at link time by another
// translation unit's copy, so every call-clobbered register is saved around it: the MPR solver's
// support mapping spilled registers around every hull support).
#pragma once

#include <contactlab/math.hpp>
#include <contactlab/shapes.hpp>
#include <cstdint>

namespace contactlab::geometry {

/// Index of a vertex of `hull` maximising d·x, by a scan in two interleaved chains (ties: see the
/// header). For small hulls, where a climb's adjacency walk costs more than visiting every vertex.
static inline std::uint32_t branchless_hull_scan(const ConvexHull& hull, const Vec3& d) {
  const Vec3* v = hull.vertices;
  const std::uint32_t n = hull.vertex_count;
  const double dx = d.x(), dy = d.y(), dz = d.z();
  double best0 = dx * v[0].x() + dy * v[0].y() + dz * v[0].z();
  double best1 = best0;
  std::uint32_t index0 = 0, index1 = 0;
  std::uint32_t i = 1;
  for (; i + 1 < n; i += 2) {
    const double value0 = dx * v[i].x() + dy * v[i].y() + dz * v[i].z();
    const double value1 = dx * v[i + 1].x() + dy * v[i + 1].y() + dz * v[i + 1].z();
    index0 = value0 > best0 ? i : index0;
    best0 = value0 > best0 ? value0 : best0;
    index1 = value1 > best1 ? i + 1 : index1;
    best1 = value1 > best1 ? value1 : best1;
  }
  if (i < n) {
    const double value0 = dx * v[i].x() + dy * v[i].y() + dz * v[i].z();
    index0 = value0 > best0 ? i : index0;
    best0 = value0 > best0 ? value0 : best0;
  }
  return best1 > best0 ? index1 : index0;
}

/// Index of a vertex of `hull` (with a vertex adjacency) maximising d·x, by steepest ascent from
/// `start` (a valid index, whose value d·x is `start_value`): each step takes the best neighbour,
/// selected without branches, and moves while it improves. Exact: on a convex polytope a vertex
/// no neighbour improves on is a global maximum, and each move strictly increases d·x.
static inline std::uint32_t branchless_hull_climb(const ConvexHull& hull, const Vec3& d,
                                                  std::uint32_t start, double start_value) {
  const double dx = d.x(), dy = d.y(), dz = d.z();
  std::uint32_t best = start;
  double best_value = start_value;
  for (;;) {
    std::uint32_t next = best;
    double next_value = best_value;
    const std::uint32_t end = hull.neighbor_offsets[best + 1];
    for (std::uint32_t k = hull.neighbor_offsets[best]; k < end; ++k) {
      const std::uint32_t j = hull.neighbors[k];
      const Vec3& v = hull.vertices[j];
      const double value = dx * v.x() + dy * v.y() + dz * v.z();
      next = value > next_value ? j : next;
      next_value = value > next_value ? value : next_value;
    }
    if (next == best) return best;
    best = next;
    best_value = next_value;
  }
}

}  // namespace contactlab::geometry
