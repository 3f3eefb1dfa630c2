// The narrow-phase benchmark's pose sets, shared by bench_narrow_phase, the answer dump
// (tools/regress/narrow_phase_answers.cpp) and the narrow-phase conformance suite
// (tests/conformance/narrow_phase_conformance.cpp): seeded random poses of two shapes whose signed
// distance is known by construction (see narrow_phase.cpp's header for the construction and the
// modes).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numbers>
#include <random>
#include <vector>

#include "contactlab/core/shape_library.hpp"
#include "contactlab/shapes.hpp"

namespace contactlab::bench {

inline constexpr double kSize_m = 1.0;  // largest dimension of every benchmark shape

struct PoseSpec {
  double gap_m = 0.10 * kSize_m;        // separated poses: exact distance
  double min_depth_m = 0.01 * kSize_m;  // overlapping poses: depth along n, uniform in
  double max_depth_m = 0.05 * kSize_m;  // [min_depth_m, max_depth_m]
  bool faces = false;                   // --faces: n is a face normal of A (face_anchor)
};

struct PosePair {
  Pose X_WA;
  Pose X_WB;
  double s_m = 0.0;  // > 0: exact distance; < 0: −(depth along n), an upper bound of the depth
  Vec3 n_W = Vec3::UnitZ();  // the construction's direction n (A to B): the normal when s > 0
};

inline Mat3 random_rotation(std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  Eigen::Quaterniond q(normal(rng), normal(rng), normal(rng), normal(rng));
  q.normalize();
  return q.toRotationMatrix();
}

inline Vec3 random_unit(std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  Vec3 v;
  do {
    v = Vec3(normal(rng), normal(rng), normal(rng));
  } while (v.norm() < 1e-6);
  return v.normalized();
}

/// B placed so that its support point along −n_W sits at a_W + s·n_W, a_W a point of A's surface
/// where n_W is an outward normal of A (place_b, --faces).
inline void place_b_at(const Shape& b, const Vec3& a_W, const Vec3& n_W, PosePair& pose) {
  const Vec3 b_rel_W = pose.X_WB.R * support(b, pose.X_WB.R.transpose() * -n_W);
  pose.X_WB.p = a_W - b_rel_W + pose.s_m * n_W;
  pose.n_W = n_W;
}

/// B placed so that its support point along −n sits at A's along n plus s·n.
inline void place_b(const Shape& a, const Shape& b, const Vec3& n_W, PosePair& pose) {
  place_b_at(b, support_W(a, pose.X_WA, n_W), n_W, pose);
}

/// --faces: a face of A's and a point inside it, in A's frame: a random face of a box (the point
/// uniform over its middle 80 % in each direction), a cylinder's cap (within 0.8 of its radius), a
/// hull's boundary triangle (random barycentric weights of at least 0.1 each). B's support along
/// the face's inward normal, a vertex at random orientations, goes above that point: a face–vertex
/// contact, where the closest point of M lies inside one of M's faces (the default construction,
/// a random n, gives vertex–vertex contacts: a corner of M). False for shapes without flat faces.
inline bool face_anchor(const Shape& a, std::mt19937_64& rng, Vec3& n_A, Vec3& p_A) {
  std::uniform_real_distribution<double> unit(-0.8, 0.8);
  std::uniform_int_distribution<int> pick(0, 5);
  if (a.type == ShapeType::half_space) {
    // The boundary plane is the only face, and B over any point of it (within 1 m of G's origin).
    n_A = a.normal;
    const Vec3 t1 = n_A.unitOrthogonal();
    const Vec3 t2 = n_A.cross(t1);
    p_A = unit(rng) * t1 + unit(rng) * t2;
    return true;
  }
  if (a.type == ShapeType::box) {
    const int face = pick(rng);
    const int axis = face / 2;
    const double sign = face % 2 == 0 ? 1.0 : -1.0;
    n_A = Vec3::Zero();
    n_A[axis] = sign;
    for (int k = 0; k < 3; ++k) p_A[k] = unit(rng) * a.half_extents_m[k];
    p_A[axis] = sign * a.half_extents_m[axis];
    return true;
  }
  if (a.type == ShapeType::cylinder) {
    const double sign = pick(rng) % 2 == 0 ? 1.0 : -1.0;
    double x, y;
    do {
      x = unit(rng);
      y = unit(rng);
    } while (x * x + y * y > 0.64);
    n_A = Vec3(0.0, 0.0, sign);
    p_A = Vec3(x * a.radius_m, y * a.radius_m, sign * a.half_length_m);
    return true;
  }
  if (a.type == ShapeType::convex_hull && a.hull->triangle_count > 0) {
    const ConvexHull& hull = *a.hull;
    std::uniform_int_distribution<std::uint32_t> triangle(0, hull.triangle_count - 1);
    std::uniform_real_distribution<double> weight(0.1, 1.0);
    const std::uint32_t* t = hull.triangles + 3 * triangle(rng);
    const Vec3 &v0 = hull.vertices[t[0]], &v1 = hull.vertices[t[1]], &v2 = hull.vertices[t[2]];
    n_A = (v1 - v0).cross(v2 - v0).normalized();  // outward: counter-clockwise from outside
    const double w0 = weight(rng), w1 = weight(rng), w2 = weight(rng);
    p_A = (w0 * v0 + w1 * v1 + w2 * v2) / (w0 + w1 + w2);
    return true;
  }
  return false;
}

/// n random poses (steps = 0), or n closed paths of `steps` poses each (--moving), stored step
/// by step: pose k·n + i is step k of path i, so the loop over the poses visits every path's
/// steps in order and path i keeps warm-start cache i.
inline std::vector<PosePair> make_poses(const Shape& a, const Shape& b, bool overlapping,
                                        const PoseSpec& spec, std::size_t n, std::size_t steps,
                                        std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> offset(-5.0, 5.0);
  std::uniform_real_distribution<double> depth(spec.min_depth_m, spec.max_depth_m);
  std::uniform_real_distribution<double> phase(0.0, 2.0 * std::numbers::pi);
  constexpr double kSwing_rad = 0.1;  // --moving: amplitude of each rotation along its path
  std::vector<PosePair> poses(n * std::max<std::size_t>(1, steps));
  for (std::size_t i = 0; i < n; ++i) {
    PosePair base;
    base.X_WA.R = random_rotation(rng);
    base.X_WA.p = Vec3(offset(rng), offset(rng), offset(rng));
    base.X_WB.R = random_rotation(rng);
    const Vec3 n_W = random_unit(rng);
    base.s_m = overlapping ? -depth(rng) : spec.gap_m;
    Vec3 face_n_A, face_p_A;
    // A half-space has no support along a random n: its poses are always on its face.
    const bool on_face =
        (spec.faces || a.type == ShapeType::half_space) && face_anchor(a, rng, face_n_A, face_p_A);
    // A face contact follows A: its normal and point turn with A's orientation.
    auto place = [&](PosePair& pose, const Vec3& random_n_W) {
      if (on_face) {
        place_b_at(b, pose.X_WA.transform_point(face_p_A), pose.X_WA.R * face_n_A, pose);
      } else {
        place_b(a, b, random_n_W, pose);
      }
    };
    if (steps == 0) {
      place(base, n_W);
      poses[i] = base;
      continue;
    }
    // Each of the three rotations (A, B, the normal) swings about its own random axis with its
    // own phase: angle kSwing_rad·sin(2πk/steps + φ), a closed path.
    Vec3 axes[3];
    double phases[3];
    for (int r = 0; r < 3; ++r) {
      axes[r] = random_unit(rng);
      phases[r] = phase(rng);
    }
    for (std::size_t k = 0; k < steps; ++k) {
      const double t = 2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(steps);
      auto swing = [&](int r) {
        return Eigen::AngleAxisd(kSwing_rad * std::sin(t + phases[r]), axes[r]).toRotationMatrix();
      };
      PosePair& pose = poses[k * n + i];
      pose = base;
      pose.X_WA.R = swing(0) * base.X_WA.R;
      pose.X_WB.R = swing(1) * base.X_WB.R;
      place(pose, swing(2) * n_W);
    }
  }
  return poses;
}

// Hulls of seeded random points on a sphere of diameter kSize_m: every point is a vertex.
inline std::unique_ptr<core::HullStorage> sphere_point_hull(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Vec3> points(count);
  for (Vec3& p : points) p = 0.5 * kSize_m * random_unit(rng);
  auto hull = core::build_convex_hull(points);
  if (hull->hull.vertex_count != count) {
    std::fprintf(stderr, "warning: hull of %zu sphere points has %u vertices\n", count,
                 hull->hull.vertex_count);
  }
  return hull;
}

}  // namespace contactlab::bench
