// The one-point warm starts and their certificates (certificate.hpp): the closest pair kept
// between polytope cores, read back as a point of M (ClosestPairCertificate), and a single warm
// support (WarmPointCertificate).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <contactlab/shapes.hpp>

#include <optional>

#include "cache_entry.hpp"
#include "certificate.hpp"
#include "cold_start.hpp"
#include "core_contact.hpp"

namespace contactlab::plugins::gjk_epa {

// Keeps the closest pair of a one-point answer between polytope cores (WarmStart::closest_pair):
// A's point in A's frame, B's in B's, a hull's as its vertex number. Out of line: a warm query
// whose cached pair certified keeps the entry as it is and does not call it.
[[gnu::noinline]] inline void keep_one_point(const Shape& a, const Shape& b, const Pose& X_AB,
                                             const CoreContact& core, CacheEntry& entry) {
  entry.kind = WarmStart::closest_pair;
  ClosestPair& kept = entry.closest;
  if (a.type == ShapeType::convex_hull) {
    kept.vertex_a = core.vertex_a;
  } else {
    for (int k = 0; k < 3; ++k) kept.point_a[k] = core.point_a[k];
  }
  if (b.type == ShapeType::convex_hull) {
    kept.vertex_b = core.vertex_b;
  } else {
    const Vec3 r = core.point_b - X_AB.p;  // R_ABᵀ·r, column by column
    for (int k = 0; k < 3; ++k) kept.point_b[k] = X_AB.R.col(k).dot(r);
  }
}

// A point of the shape's core (sphere, capsule, box or hull) from what keep_one_point() kept, in
// the shape's frame G, with its hull vertex (0 for other shapes): the kept point projected on
// the core, so a point of the core whatever the entry holds (B's point came back through a
// rotation; an entry made for other shapes of the same types is a poor start, not a wrong one).
// False when a hull's vertex number is out of range.
[[gnu::always_inline]] inline bool cached_core_point(const Shape& shape,
                                                     const std::array<double, 3>& stored,
                                                     std::uint32_t stored_vertex, Vec3& p_G,
                                                     std::uint32_t& vertex) {
  vertex = 0;
  switch (shape.type) {
    case ShapeType::box: {
      const Vec3 h = box_core_half_extents(shape);
      p_G = Vec3(stored[0], stored[1], stored[2]).cwiseMax(-h).cwiseMin(h);
      return true;
    }
    case ShapeType::convex_hull:
      if (shape.hull == nullptr || !(stored_vertex < shape.hull->vertex_count)) return false;
      vertex = stored_vertex;
      p_G = shape.hull->vertices[vertex];
      return true;
    case ShapeType::capsule:
      p_G = Vec3(0.0, 0.0, std::clamp(stored[2], -shape.half_length_m, shape.half_length_m));
      return true;
    default:  // a sphere's core, its centre (polytope cores only reach here)
      p_G = Vec3::Zero();
      return true;
  }
}

// A warm start's single support p (the pose barely moved) certifies the cores' distance at once:
// the check Solver::solve makes after gjk()'s first step, with the same scale, for cores swept by
// `sweep` = r_A + r_B.
[[gnu::always_inline]] inline bool warm_point_certifies(const SupportPoint& p, double sweep,
                                                        double tolerance) {
  const double vv = p.w.squaredNorm();
  const double scale = std::sqrt(std::max(sweep * sweep, vv));  // as Solver::solve
  return vv > kSeparatedFraction * scale * kSeparatedFraction * scale &&
         one_point_certifies(p, vv, tolerance, scale);
}

// A warm support start.points[0] (M's support along the last query's one cached direction) that
// certifies the distance at once (warm_point_certifies()).
struct WarmPointCertificate {
  std::optional<Certified> try_certify(const PairInputs& in, ColdStart& start) const {
    if (!warm_point_certifies(start.points[0], in.sweep, in.tolerance)) return std::nullopt;
    return certified_at(start);
  }
};

// A cached closest pair `kept` as the point p = start.points[0] of M at this pose, and GJK's first
// iteration from it: M's support q along −p.w (start.points[1]) and GJK's stopping rule; p is the
// answer when it holds. `supported`: q was taken (p is separated), also when it did not hold.
struct ClosestPairCertificate {
  const ClosestPair& kept;
  bool& supported;

  std::optional<Certified> try_certify(const PairInputs& in, ColdStart& start) const {
    SupportPoint& p = start.points[0];
    Vec3 b_B;
    if (!cached_core_point(in.a, kept.point_a, kept.vertex_a, p.a, p.vertex_a) ||
        !cached_core_point(in.b, kept.point_b, kept.vertex_b, b_B, p.vertex_b)) {
      return std::nullopt;
    }
    p.b = affine(in.X_AB.R, b_B, in.X_AB.p);
    p.w = p.a - p.b;
    p.d = -p.w;
    double vv, gap, scale;
    if (!first_support(in.difference, p, in.sweep, start.points[1], vv, gap, scale)) {
      return std::nullopt;
    }
    supported = true;
    ++in.counters.iterations;
    if (!gjk_converged(gap, vv, in.tolerance, scale)) return std::nullopt;
    return certified_at(start);
  }
};

}  // namespace contactlab::plugins::gjk_epa
