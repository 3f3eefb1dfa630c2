// What the primitive narrow phase's closed forms share: the rounding tolerances, the smoothing
// radius's sweep (primitive_narrow_phase.hpp), and 3×3 products written out for the hot paths.
// Internal to the plugin (included by its .cpp files only).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>
#include <contactlab/shapes.hpp>

namespace contactlab::plugins::primitive {

// Below this squared centre distance (1e-100 m) the direction between two points is taken as
// undefined: far below any physical length, and far above the range where the squared norm
// underflows and Δ/|Δ| would lose its unit length.
inline constexpr double kCoincidentSquared_m2 = 1e-200;

// Relative size (of the coordinates or of the shapes) below which a length is rounding noise:
// two closest points nearer than this are coincident (their difference has no direction), a
// manifold point whose distance is below this touches, and of two box axes whose separations
// differ by less than this the face axis is preferred.
inline constexpr double kRelativeTolerance = 1e-12;

constexpr double sign_of(double value) {
  return value < 0.0 ? -1.0 : 1.0;
}

/// Half extents of a box's core: shrunk by the smoothing radius, never negative. A sharp box (the
/// common case) is its own core: the same numbers without the arithmetic.
[[gnu::always_inline]] inline Vec3 core_half_extents(const Shape& box) {
  if (box.smoothing_radius_m == 0.0) return box.half_extents_m;
  return (box.half_extents_m - Vec3::Constant(box.smoothing_radius_m)).cwiseMax(0.0);
}

/// Moves a core contact to the swept shapes (see primitive_narrow_phase.hpp): A's witness point
/// out by r_A along the normal, B's by r_B against it, the distance down by both.
[[gnu::always_inline]] inline void sweep(ContactGeometry& geometry, double radius_a_m,
                                         double radius_b_m) {
  geometry.distance_m -= radius_a_m + radius_b_m;
  geometry.point_a_W += radius_a_m * geometry.normal_W;
  geometry.point_b_W -= radius_b_m * geometry.normal_W;
}

/// Two doubles in one SSE register (a GCC/Clang vector type): two quantities computed side by
/// side (two rows of a matrix product, two edge axes of the separating-axis test), each lane
/// rounded as the scalar code would round it.
using Lanes = double __attribute__((vector_size(16)));
using LaneMask = std::int64_t __attribute__((vector_size(16)));  // a comparison's result per lane
[[gnu::always_inline]] inline Lanes abs_lanes(Lanes v) {
  return reinterpret_cast<Lanes>(reinterpret_cast<LaneMask>(v) &
                                 ~reinterpret_cast<LaneMask>(Lanes{-0.0, -0.0}));
}

/// Rv, written out: rows 0 and 1 two at a time in SSE lanes (a column's first two entries are
/// adjacent in memory), row 2 alone; the same products, summed in the same order, as row by row.
[[gnu::always_inline]] inline Vec3 times(const Mat3& R, const Vec3& v) {
  Lanes column[3];
  std::memcpy(column, R.data(), sizeof(Lanes));
  std::memcpy(column + 1, R.data() + 3, sizeof(Lanes));
  std::memcpy(column + 2, R.data() + 6, sizeof(Lanes));
  const Lanes rows01 =
      column[0] * Lanes{v[0], v[0]} + column[1] * Lanes{v[1], v[1]} + column[2] * Lanes{v[2], v[2]};
  return Vec3(rows01[0], rows01[1], R(2, 0) * v[0] + R(2, 1) * v[1] + R(2, 2) * v[2]);
}

/// Rᵀv, written out: Eigen's packet code for 3-vectors spends more on shuffles than on products.
[[gnu::always_inline]] inline Vec3 transpose_times(const Mat3& R, const Vec3& v) {
  return Vec3(R(0, 0) * v[0] + R(1, 0) * v[1] + R(2, 0) * v[2],
              R(0, 1) * v[0] + R(1, 1) * v[1] + R(2, 1) * v[2],
              R(0, 2) * v[0] + R(1, 2) * v[1] + R(2, 2) * v[2]);
}

/// Contact of two swept points (sphere, capsule): core points core_a_W and core_b_W swept by
/// radius_a_m and radius_b_m. When the cores are closer than coincident_m, their difference is
/// rounding noise: fallback_normal_W (unit, A to B) is used, both core points are taken at their
/// midpoint, and the distance is −(r_A + r_B).
inline ContactGeometry swept_points(const Vec3& core_a_W, double radius_a_m, const Vec3& core_b_W,
                                    double radius_b_m, const Vec3& fallback_normal_W,
                                    double coincident_m) {
  const Vec3 d_W = core_b_W - core_a_W;
  const double gap_squared_m2 = d_W.squaredNorm();
  ContactGeometry out;
  if (gap_squared_m2 > kCoincidentSquared_m2 && gap_squared_m2 > coincident_m * coincident_m) {
    const double gap_m = std::sqrt(gap_squared_m2);
    out.normal_W = d_W / gap_m;
    out.distance_m = gap_m;
    out.point_a_W = core_a_W;
    out.point_b_W = core_b_W;
  } else {
    const Vec3 midpoint_W = 0.5 * (core_a_W + core_b_W);
    out.normal_W = fallback_normal_W;
    out.distance_m = 0.0;
    out.point_a_W = midpoint_W;
    out.point_b_W = midpoint_W;
  }
  sweep(out, radius_a_m, radius_b_m);
  return out;
}

}  // namespace contactlab::plugins::primitive
