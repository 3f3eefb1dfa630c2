// The MPR solver's support points and the pair they are taken of: a point of A ⊖ B with its
// witnesses, the pair in A's frame, the core sizes the solver's support shortcuts keep (boxes,
// cylinders), hull supports climbed from the previous support's vertex (the branchless scan and
// climb of contactlab/geometry/branchless_hull_support.hpp), and two boxes' support in SSE2
// registers. Solver::support_point and Solver::box_support (mpr_solver.hpp) combine them.
// Included only by mpr_algorithm.cpp, in the unnamed namespace of the solver's parts (see
// mpr_solver.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <contactlab/geometry/branchless_hull_support.hpp>
#include <contactlab/math.hpp>
#include <contactlab/shapes.hpp>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mpr_arithmetic.hpp"

namespace contactlab::plugins::mpr {
namespace {

/// A point of A ⊖ B with the points of A and B it came from (Neumayr L278–283).
template <class T>
struct SupportPoint {
  Vector3<T> p;  ///< a − b [m]
  Vector3<T> a;  ///< on the boundary of A, world [m]
  Vector3<T> b;  ///< on the boundary of B, world [m]
  Vec3 d =
      Vec3::Zero();  ///< the search direction it is the support point of (A frame, not normalised)
};

/// The pair in the frame of A: B's pose relative to A, so that a support point of B costs one
/// rotation each way and A's none.
struct PosedPair {
  const Shape& a;
  const Shape& b;
  Mat3 R_AB;
  Vec3 p_AB;
  Vec3 world_up_A;  ///< the world's +z in A (the coincident-interior-point direction)
};

/// The shape's core is a polytope: a point (sphere), a segment (capsule), a box or a hull.
bool polytope_core(const Shape& shape) {
  return shape.type == ShapeType::sphere || shape.type == ShapeType::capsule ||
         shape.type == ShapeType::box || shape.type == ShapeType::convex_hull;
}

/// A box's core half extents, or a cylinder's core (radius, 0, half length); zero for other
/// shapes (the solver's support shortcuts, Solver::support_point).
[[gnu::always_inline]] inline Vec3 core_size(const Shape& shape) {
  const double r = shape.smoothing_radius_m;
  if (shape.type == ShapeType::box) return shape.half_extents_m - Vec3::Constant(r);
  if (shape.type == ShapeType::cylinder) {
    return Vec3(shape.radius_m - r, 0.0, shape.half_length_m - r);
  }
  return Vec3::Zero();
}

/// A cylinder or a cone (frustum): flat caps normal to z (a pointed cone's top is its apex).
bool capped(const Shape& shape) {
  return shape.type == ShapeType::cylinder || shape.type == ShapeType::cone;
}

/// The core's radius of a cylinder's or frustum's cap at z < 0 (`negative`, a cone's base) or at
/// z > 0 (a cone's top radius), the smoothing radius taken off; 0 at a pointed cone's apex.
double core_cap_radius(const Shape& shape, bool negative) {
  const double radius =
      shape.type == ShapeType::cone && !negative ? shape.top_radius_m : shape.radius_m;
  return std::max(0.0, radius - shape.smoothing_radius_m);
}

/// The core support of a cylinder of core (radius, ·, half length) `core`: the rim point along d's
/// radial part (any, if d is axial) at the end d points to. The components are those of a
/// direction whose squares neither overflow nor underflow here (MPR's directions are cross
/// products of portal edges, far above the degeneracy floor), so a plain square root serves where
/// the SDK calls hypot.
[[gnu::always_inline]] inline Vec3 cylinder_rim(const Vec3& core, const Vec3& d) {
  const double radial_squared = d.x() * d.x() + d.y() * d.y();
  const double z = d.z() < 0.0 ? -core.z() : core.z();
  if (!(radial_squared > 0.0)) return Vec3(core.x(), 0.0, z);
  const double scale = core.x() / std::sqrt(radial_squared);
  return Vec3(scale * d.x(), scale * d.y(), z);
}

/// Hulls with fewer vertices than this are scanned (branchless_hull_scan), larger ones climbed.
constexpr std::uint32_t kScanBelow = 64;
/// Sampled vertices that seed the climb on larger hulls.
constexpr std::uint32_t kClimbSeeds = 32;

/// The SDK's core support mapping (direction of any length > 0) for shapes other than boxes and
/// cylinders (the solver takes those itself), with a shortcut for the inner loop: hulls climbed
/// from `hint`, the vertex the previous support of
/// this shape ended at, when it is `trusted` (a warm start: every direction of the query is near
/// the previous query's), else small hulls scanned without branches and large ones climbed from the
/// best of `hint` and a sample. Successive MPR directions are close, so the climb usually takes a
/// step or two instead of the O(√n) from vertex 0 (the climb is exact from any start: each move
/// strictly increases d·x).
[[gnu::always_inline]] inline Vec3 local_core_support(const Shape& shape, const Vec3& d,
                                                      std::uint32_t& hint, bool trusted) {
  switch (shape.type) {
    case ShapeType::convex_hull: {
      const ConvexHull& hull = *shape.hull;
      if (hull.neighbor_offsets == nullptr) {
        hint = geometry::branchless_hull_scan(hull, d);
        return hull.vertices[hint];
      }
      if (trusted && hint < hull.vertex_count) {
        hint = geometry::branchless_hull_climb(hull, d, hint, d.dot(hull.vertices[hint]));
        return hull.vertices[hint];
      }
      if (hull.vertex_count < kScanBelow) {
        hint = geometry::branchless_hull_scan(hull, d);
        return hull.vertices[hint];
      }
      // The climb starts from the best of the previous support's vertex and a spread sample of
      // vertices (every n/32-th, branchless): phase 1 and 2 directions jump, so the previous
      // vertex alone can be far from the answer.
      const std::uint32_t n = hull.vertex_count;
      const std::uint32_t stride = n / kClimbSeeds;
      std::uint32_t start = hint < n ? hint : 0;
      double start_value = d.dot(hull.vertices[start]);
      for (std::uint32_t k = 0; k < kClimbSeeds; ++k) {
        const std::uint32_t i = k * stride;
        const double value = d.dot(hull.vertices[i]);
        start = value > start_value ? i : start;
        start_value = value > start_value ? value : start_value;
      }
      const std::uint32_t best = geometry::branchless_hull_climb(hull, d, start, start_value);
      hint = best;
      return hull.vertices[best];
    }
    default:
      return contactlab::core_support(shape, d);
  }
}

#if defined(__SSE2__)
constexpr bool kPackedSupport = true;

/// The core support point of A ⊖ B for two boxes in double, in A's frame (Solver::box_support):
/// the same products and sums in the same order as the scalar support_point, x and y in one SSE2
/// register. B's corner takes the sign bits of −e_B, A's those of e (copysign).
class PackedBoxSupport {
 public:
  void set(const Mat3& R_AB, const Vec3& p_AB, const Vec3& core_a, const Vec3& core_b) {
    R_ = &R_AB;
    t_z_ = p_AB.z();
    for (int j = 0; j < 3; ++j) {
      row_[j] = _mm_set_pd(R_AB(j, 1), R_AB(j, 0));
      col_[j] = _mm_loadu_pd(&R_AB(0, j));
    }
    const __m128d sign = _mm_set1_pd(-0.0);
    t01_ = _mm_loadu_pd(p_AB.data());
    a01_ = _mm_andnot_pd(sign, _mm_loadu_pd(core_a.data()));
    b01_ = _mm_andnot_pd(sign, _mm_loadu_pd(core_b.data()));
    a2_ = _mm_andnot_pd(sign, _mm_set_sd(core_a.z()));
    b2_ = _mm_andnot_pd(sign, _mm_set_sd(core_b.z()));
  }

  /// The support point p = a − b, A's point a, B's point b (A's frame) and the direction d along
  /// (x, y, z), each written as three consecutive doubles.
  [[gnu::always_inline]] void support(double x, double y, double z, double* p, double* a, double* b,
                                      double* d) const {
    const Mat3& R = *R_;
    const __m128d sign = _mm_set1_pd(-0.0);
    const __m128d ex = _mm_set1_pd(x), ey = _mm_set1_pd(y), ez = _mm_set1_pd(z);
    const __m128d exy = _mm_unpacklo_pd(ex, ey);
    const __m128d e_B01 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(row_[0], ex), _mm_mul_pd(row_[1], ey)),
                                     _mm_mul_pd(row_[2], ez));
    const __m128d e_B2 = _mm_add_sd(
        _mm_add_sd(_mm_mul_sd(_mm_set_sd(R(0, 2)), ex), _mm_mul_sd(_mm_set_sd(R(1, 2)), ey)),
        _mm_mul_sd(_mm_set_sd(R(2, 2)), ez));
    const __m128d b01 = _mm_or_pd(b01_, _mm_andnot_pd(e_B01, sign));
    const __m128d b2 = _mm_or_pd(b2_, _mm_andnot_pd(e_B2, sign));
    const __m128d a01 = _mm_or_pd(a01_, _mm_and_pd(exy, sign));
    const __m128d a2 = _mm_or_pd(a2_, _mm_and_pd(ez, sign));
    const __m128d bx = _mm_unpacklo_pd(b01, b01), by = _mm_unpackhi_pd(b01, b01),
                  bz = _mm_unpacklo_pd(b2, b2);
    const __m128d b_A01 =
        _mm_add_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(col_[0], bx), _mm_mul_pd(col_[1], by)),
                              _mm_mul_pd(col_[2], bz)),
                   t01_);
    const __m128d b_A2 = _mm_add_sd(_mm_add_sd(_mm_add_sd(_mm_mul_sd(_mm_set_sd(R(2, 0)), bx),
                                                          _mm_mul_sd(_mm_set_sd(R(2, 1)), by)),
                                               _mm_mul_sd(_mm_set_sd(R(2, 2)), b2)),
                                    _mm_set_sd(t_z_));
    _mm_storeu_pd(p, _mm_sub_pd(a01, b_A01));
    _mm_store_sd(p + 2, _mm_sub_sd(a2, b_A2));
    _mm_storeu_pd(a, a01);
    _mm_store_sd(a + 2, a2);
    _mm_storeu_pd(b, b_A01);
    _mm_store_sd(b + 2, b_A2);
    _mm_storeu_pd(d, exy);
    _mm_store_sd(d + 2, ez);
  }

 private:
  const Mat3* R_ = nullptr;
  double t_z_ = 0.0;
  /// row_[j] = (R(j, 0), R(j, 1)), col_[k] = (R(0, k), R(1, k)), B's position's x and y, the
  /// core sizes' magnitudes (x and y; z)
  __m128d row_[3], col_[3], t01_, a01_, b01_, a2_, b2_;
};
#else
constexpr bool kPackedSupport = false;
struct PackedBoxSupport {};
#endif

}  // namespace
}  // namespace contactlab::plugins::mpr
