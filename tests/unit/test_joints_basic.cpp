// Unit tests of the basic joints (plugins/joints-basic).
#include <array>
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "fixed_joint.hpp"
#include "free_joint.hpp"

using contactlab::Mat3;
using contactlab::ParameterValues;
using contactlab::Pose;
using contactlab::Vec3;
using contactlab::plugins::FixedJoint;
using contactlab::plugins::FreeJoint;

namespace {

using Q = std::array<double, 7>;
using V = std::array<double, 6>;

Eigen::Quaterniond quat_of(const Q& q) {
  return Eigen::Quaterniond(q[3], q[4], q[5], q[6]);
}

Eigen::Quaterniond random_rotation(std::mt19937_64& rng) {
  std::normal_distribution<double> gaussian(0.0, 1.0);
  return Eigen::Quaterniond(gaussian(rng), gaussian(rng), gaussian(rng), gaussian(rng))
      .normalized();
}

Q configuration(const Vec3& p, const Eigen::Quaterniond& quat) {
  return {p.x(), p.y(), p.z(), quat.w(), quat.x(), quat.y(), quat.z()};
}

double max_abs(const Mat3& m) {
  return m.cwiseAbs().maxCoeff();
}

}  // namespace

TEST_CASE(
    "free: nq = 7, nv = 6, empty schema, neutral is p = 0, quaternion (1, 0, 0, 0) and "
    "transforms to the identity") {
  const FreeJoint joint{ParameterValues{}};
  CHECK(FreeJoint::schema().empty());
  CHECK(joint.nq() == 7);
  CHECK(joint.nv() == 6);
  Q q;
  q.fill(42.0);
  joint.neutral_configuration(q);
  CHECK(q == Q{0, 0, 0, 1, 0, 0, 0});
  const Pose X = joint.transform(q);
  CHECK(X.R == Mat3::Identity());
  CHECK(X.p == Vec3::Zero());
}

TEST_CASE("free: motion subspace is I₆ column-major and the bias acceleration is zero") {
  const FreeJoint joint{ParameterValues{}};
  const Q q = configuration(Vec3(1, 2, 3), Eigen::Quaterniond(0.5, 0.5, 0.5, 0.5));
  std::array<double, 36> S;
  S.fill(7.0);
  joint.motion_subspace(q, S);
  for (int col = 0; col < 6; ++col) {
    for (int row = 0; row < 6; ++row) CHECK(S[row + 6 * col] == (row == col ? 1.0 : 0.0));
  }
  std::array<double, 6> bias;
  bias.fill(7.0);
  joint.bias_acceleration(q, V{1, 2, 3, 4, 5, 6}, bias);
  CHECK(bias == std::array<double, 6>{});
}

TEST_CASE(
    "free: integrate with constant ω equals the closed-form rotation exp(skew(ω)·t)·R₀ within "
    "1e-12 after 1000 steps, and p = p₀ + v·t") {
  std::mt19937_64 rng(99);
  const FreeJoint joint{ParameterValues{}};
  const Eigen::Quaterniond quat_0 = random_rotation(rng);
  const Vec3 p_0(0.5, -1.0, 2.0);
  const Vec3 v_P(0.3, 0.2, -0.1);
  const Vec3 w_P(0.7, -2.1, 1.3);  // |ω| ≈ 2.57 rad/s: several turns over the run
  const V v = {v_P.x(), v_P.y(), v_P.z(), w_P.x(), w_P.y(), w_P.z()};
  Q q = configuration(p_0, quat_0);
  const double dt = 3e-3;
  const int steps = 1000;
  for (int i = 0; i < steps; ++i) joint.integrate(q, v, dt, q);  // in place: q_out aliases q
  const double t = steps * dt;
  const Mat3 R_expected = Eigen::AngleAxisd(w_P.norm() * t, w_P.normalized()).toRotationMatrix() *
                          quat_0.toRotationMatrix();
  const Pose X = joint.transform(q);
  CHECK(max_abs(X.R - R_expected) <= 1e-12);
  CHECK((X.p - (p_0 + v_P * t)).norm() <= 1e-12);
  // One large step is exact as well (not just accurate to O(dt²)).
  Q q_big = configuration(p_0, quat_0);
  joint.integrate(q_big, v, t, q_big);
  CHECK(max_abs(joint.transform(q_big).R - R_expected) <= 1e-12);
}

TEST_CASE(
    "free: a zero angular velocity leaves the quaternion unchanged (the small-angle branch), "
    "and a 1e-9 rad step rotates by that angle within 1e-15 rad") {
  const FreeJoint joint{ParameterValues{}};
  const Q q = configuration(Vec3::Zero(), Eigen::Quaterniond(0.5, -0.5, 0.5, 0.5));
  Q q_out;
  joint.integrate(q, V{0, 0, 0, 0, 0, 0}, 0.1, q_out);
  for (int i = 3; i < 7; ++i) CHECK(q_out[i] == Approx(q[i]).margin(1e-16));
  joint.integrate(q, V{0, 0, 0, 0, 0, 1e-9}, 1.0, q_out);
  const Eigen::Quaterniond relative = quat_of(q_out) * quat_of(q).conjugate();
  CHECK(std::abs(2.0 * relative.vec().z() - 1e-9) <= 1e-15);
  CHECK(std::abs(relative.vec().x()) <= 1e-15);
  CHECK(std::abs(relative.vec().y()) <= 1e-15);
}

TEST_CASE("free: the quaternion norm stays 1 within 1e-14 after 10⁶ integrate steps") {
  const FreeJoint joint{ParameterValues{}};
  Q q = configuration(Vec3::Zero(), Eigen::Quaterniond(0.1, 0.7, -0.3, 0.2).normalized());
  const V v = {0, 0, 0, 3.1, -0.4, 12.0};
  for (int i = 0; i < 1000000; ++i) joint.integrate(q, v, 1e-4, q);
  CHECK(std::abs(quat_of(q).norm() - 1.0) <= 1e-14);
}

TEST_CASE(
    "free: configuration_rate equals the central difference of integrate within 1e-8 "
    "(dt = 1e-5) on 100 seeded states") {
  std::mt19937_64 rng(2024);
  std::normal_distribution<double> gaussian(0.0, 1.0);
  const FreeJoint joint{ParameterValues{}};
  for (int sample = 0; sample < 100; ++sample) {
    const Q q =
        configuration(Vec3(gaussian(rng), gaussian(rng), gaussian(rng)), random_rotation(rng));
    V v;
    for (double& x : v) x = 3.0 * gaussian(rng);
    Q rate, forward, backward;
    joint.configuration_rate(q, v, rate);
    const double dt = 1e-5;
    joint.integrate(q, v, dt, forward);
    joint.integrate(q, v, -dt, backward);
    for (int i = 0; i < 7; ++i)
      CHECK((forward[i] - backward[i]) / (2.0 * dt) == Approx(rate[i]).margin(1e-8));
    // The rate is tangent to the unit sphere: quat·q̇uat = 0.
    CHECK(std::abs(q[3] * rate[3] + q[4] * rate[4] + q[5] * rate[5] + q[6] * rate[6]) <= 1e-14);
  }
}

TEST_CASE("free: configuration_rate matches Ṙ = skew(ω)·R (ω in the parent frame) within 1e-14") {
  const FreeJoint joint{ParameterValues{}};
  const Eigen::Quaterniond quat = Eigen::Quaterniond(0.3, -0.2, 0.9, 0.1).normalized();
  const Vec3 w_P(0.4, -1.5, 2.2);
  Q rate;
  joint.configuration_rate(configuration(Vec3::Zero(), quat), V{0, 0, 0, w_P.x(), w_P.y(), w_P.z()},
                           rate);
  // R·e_k = vec(q ⊗ e_k ⊗ q*), so by the product rule Ṙ·e_k = vec(q̇ ⊗ e_k ⊗ q* + q ⊗ e_k ⊗ q̇*).
  const Eigen::Quaterniond quat_rate(rate[3], rate[4], rate[5], rate[6]);
  const Mat3 R = quat.toRotationMatrix();
  Mat3 R_dot;
  for (int k = 0; k < 3; ++k) {
    const Eigen::Quaterniond e_k(0.0, k == 0, k == 1, k == 2);
    R_dot.col(k) =
        (quat_rate * e_k * quat.conjugate()).vec() + (quat * e_k * quat_rate.conjugate()).vec();
  }
  CHECK(max_abs(R_dot - contactlab::skew(w_P) * R) <= 1e-14);
}

TEST_CASE(
    "free: from_pose then transform reproduces the pose (R within 1e-14, p exactly) and "
    "the velocities, w ≥ 0 is chosen") {
  std::mt19937_64 rng(7);
  const FreeJoint joint{ParameterValues{}};
  for (int sample = 0; sample < 1000; ++sample) {
    Pose X_PC;
    X_PC.R = random_rotation(rng).toRotationMatrix();
    X_PC.p = Vec3(0.1 * sample, -2.0, 3.5);
    const Vec3 v_P(1, 2, 3), w_P(-4, 5, -6);
    Q q;
    V v;
    REQUIRE(joint.from_pose(X_PC, v_P, w_P, q, v));
    CHECK(q[3] >= 0.0);
    CHECK(std::abs(quat_of(q).norm() - 1.0) <= 1e-15);
    const Pose X = joint.transform(q);
    CHECK(max_abs(X.R - X_PC.R) <= 1e-14);
    CHECK(X.p == X_PC.p);
    CHECK(v == V{1, 2, 3, -4, 5, -6});
  }
}

TEST_CASE("free: normalize rescales the quaternion to unit norm and keeps its sign, zero throws") {
  const FreeJoint joint{ParameterValues{}};
  Q q = {1, 2, 3, -2.0, 0.0, 0.0, 0.0};
  joint.normalize(q);
  CHECK(q == Q{1, 2, 3, -1.0, 0.0, 0.0, 0.0});
  Q q2 = {0, 0, 0, 0.6, 0.0, 0.8, 0.0};
  for (int i = 3; i < 7; ++i) q2[i] *= 1.0 + 1e-6;
  joint.normalize(q2);
  CHECK(std::abs(quat_of(q2).norm() - 1.0) <= 1e-15);
  CHECK(q2[5] == Approx(0.8).epsilon(1e-15));
  Q zero = {0, 0, 0, 0, 0, 0, 0};
  CHECK_THROWS_AS(joint.normalize(zero), contactlab::SimulationError);
  // transform() normalises on the fly: a scaled quaternion gives the same rotation.
  Q scaled = {0, 0, 0, 1.2, 0.0, 1.6, 0.0};
  CHECK(max_abs(joint.transform(scaled).R -
                Eigen::Quaterniond(0.6, 0.0, 0.8, 0.0).toRotationMatrix()) <= 1e-15);
}

TEST_CASE("fixed: nq = nv = 0, identity transform, zero bias, empty schema") {
  const FixedJoint joint{ParameterValues{}};
  CHECK(FixedJoint::schema().empty());
  CHECK(joint.nq() == 0);
  CHECK(joint.nv() == 0);
  const Pose X = joint.transform({});
  CHECK(X.R == Mat3::Identity());
  CHECK(X.p == Vec3::Zero());
  std::array<double, 6> bias;
  bias.fill(3.0);
  joint.bias_acceleration({}, {}, bias);
  CHECK(bias == std::array<double, 6>{});
  joint.motion_subspace({}, {});
  joint.configuration_rate({}, {}, {});
  joint.integrate({}, {}, 0.1, {});
  joint.normalize({});
}

TEST_CASE("fixed: from_pose accepts only the identity pose (within 1e-12) at rest") {
  const FixedJoint joint{ParameterValues{}};
  CHECK(joint.from_pose(Pose::identity(), Vec3::Zero(), Vec3::Zero(), {}, {}));
  Pose almost;
  almost.p = Vec3(1e-13, 0, 0);
  almost.R(0, 1) = 5e-13;
  CHECK(joint.from_pose(almost, Vec3::Zero(), Vec3::Zero(), {}, {}));
  Pose shifted;
  shifted.p = Vec3(0, 1e-9, 0);
  CHECK_FALSE(joint.from_pose(shifted, Vec3::Zero(), Vec3::Zero(), {}, {}));
  Pose turned;
  turned.R = Eigen::AngleAxisd(1e-6, Vec3::UnitZ()).toRotationMatrix();
  CHECK_FALSE(joint.from_pose(turned, Vec3::Zero(), Vec3::Zero(), {}, {}));
  CHECK_FALSE(joint.from_pose(Pose::identity(), Vec3(0, 0, 1e-3), Vec3::Zero(), {}, {}));
  CHECK_FALSE(joint.from_pose(Pose::identity(), Vec3::Zero(), Vec3(0.1, 0, 0), {}, {}));
}
