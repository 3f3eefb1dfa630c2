// A one-point warm start: the closest pair kept between polytope cores, read back as a point
// of M, and the certificate of a single warm support.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <contactlab/shapes.hpp>

#include <contactlab/contact.hpp>

#include "core_contact.hpp"

namespace contactlab::plugins::gjk_epa {

// Keeps the closest pair of a one-point answer between polytope cores (kCacheOnePoint): A's point
// in A's frame, B's in B's, a hull's as its vertex number. Out of line: a warm query whose cached
// pair certified keeps the entry as it is and does not call it.
[[gnu::noinline]] inline void keep_one_point(const Shape& a, const Shape& b, const Pose& X_AB,
                                             const CoreContact& core, NarrowPhaseCache& cache) {
  cache.data[kCacheCount] = kCacheOnePoint;
  double* stored_a = &cache.data[kCachePointA];
  double* stored_b = &cache.data[kCachePointB];
  if (a.type == ShapeType::convex_hull) {
    stored_a[0] = static_cast<double>(core.vertex_a);
  } else {
    for (int k = 0; k < 3; ++k) stored_a[k] = core.point_a[k];
  }
  if (b.type == ShapeType::convex_hull) {
    stored_b[0] = static_cast<double>(core.vertex_b);
  } else {
    const Vec3 r = core.point_b - X_AB.p;  // R_ABᵀ·r, column by column
    for (int k = 0; k < 3; ++k) stored_b[k] = X_AB.R.col(k).dot(r);
  }
}

// A point of the shape's core (sphere, capsule, box or hull) from what keep_one_point() kept, in
// the shape's frame G, with its hull vertex (0 for other shapes): the kept point projected on
// the core, so a point of the core whatever the entry holds (B's point came back through a
// rotation; an entry made for other shapes of the same types is a poor start, not a wrong one).
// False when a hull's vertex number is out of range.
[[gnu::always_inline]] inline bool cached_core_point(const Shape& shape, const double* stored,
                                                     Vec3& p_G, std::uint32_t& vertex) {
  vertex = 0;
  switch (shape.type) {
    case ShapeType::box: {
      const Vec3 h = box_core_half_extents(shape);
      p_G = Vec3(stored[0], stored[1], stored[2]).cwiseMax(-h).cwiseMin(h);
      return true;
    }
    case ShapeType::convex_hull:
      if (shape.hull == nullptr || !(stored[0] >= 0.0 && stored[0] < shape.hull->vertex_count)) {
        return false;
      }
      vertex = static_cast<std::uint32_t>(stored[0]);
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

}  // namespace contactlab::plugins::gjk_epa
