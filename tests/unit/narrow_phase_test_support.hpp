// Helpers shared by the narrow-phase unit tests: seeded random poses and directions, poses from
// parts, and the ContactGeometry contract. Each draws from the generator in a fixed order, so a
// test's seed fixes its poses.
#pragma once

#include <cmath>
#include <random>

#include <catch2/catch.hpp>
#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>

namespace contactlab::testing {

/// Uniform over rotations: a normalised 4-D Gaussian quaternion (four draws).
inline Mat3 random_rotation(std::mt19937_64& rng) {
  std::normal_distribution<double> gaussian(0.0, 1.0);
  Eigen::Quaterniond q(gaussian(rng), gaussian(rng), gaussian(rng), gaussian(rng));
  return q.normalized().toRotationMatrix();
}

/// A random rotation, then a position uniform in the cube [−range, range]³.
inline Pose random_pose(std::mt19937_64& rng, double position_range_m) {
  std::uniform_real_distribution<double> position(-position_range_m, position_range_m);
  Pose X;
  X.R = random_rotation(rng);
  X.p = Vec3(position(rng), position(rng), position(rng));
  return X;
}

/// Uniform on the unit sphere (a normalised 3-D Gaussian).
inline Vec3 random_unit(std::mt19937_64& rng) {
  std::normal_distribution<double> gaussian(0.0, 1.0);
  return Vec3(gaussian(rng), gaussian(rng), gaussian(rng)).normalized();
}

inline Pose make_pose(const Mat3& R, const Vec3& p) {
  Pose X;
  X.R = R;
  X.p = p;
  return X;
}

inline Pose pose_at(const Vec3& p) {
  return make_pose(Mat3::Identity(), p);
}

/// The ContactGeometry contract: finite distance, unit normal, point_b − point_a = distance·normal.
inline void check_contract(const ContactGeometry& g, double tolerance) {
  REQUIRE(std::isfinite(g.distance_m));
  CHECK(std::abs(g.normal_W.norm() - 1.0) <= tolerance);
  CHECK((g.point_b_W - g.point_a_W - g.distance_m * g.normal_W).norm() <= tolerance);
}

}  // namespace contactlab::testing
