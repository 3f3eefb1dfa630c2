// Kinematics of every joint with coordinates (revolute, prismatic, helical, cylindrical, planar,
// universal, spherical, free) checked against finite differences of its own transform: the
// motion subspace, the bias acceleration, configuration_rate and integrate, from_pose.
#include <cmath>
#include <cstdio>
#include <numbers>

#include <catch2/catch.hpp>

#include "joint_test_support.hpp"

using namespace joint_test;

TEST_CASE("joints: the neutral configuration transforms to the identity within 1e-15") {
  for (const NamedJoint& named : moving_joints()) {
    INFO(named.name);
    std::vector<double> q(named.joint->nq(), 42.0);
    named.joint->neutral_configuration(q);
    CHECK(pose_difference(named.joint->transform(q), Pose::identity()) <= 1e-15);
  }
}

TEST_CASE(
    "joints: each column of S(q) equals the spatial velocity in P of X_PC along that velocity "
    "coordinate (central differences through integrate and through configuration_rate), within "
    "1e-8") {
  std::mt19937_64 rng(11);
  const double h = 1e-6;
  for (const NamedJoint& named : moving_joints()) {
    INFO(named.name);
    const Joint& joint = *named.joint;
    double worst = 0.0;
    for (int sample = 0; sample < 20; ++sample) {
      const std::vector<double> q = random_configuration(joint, rng);
      const auto S = motion_subspace(joint, q);
      const Pose at = joint.transform(q);
      for (int i = 0; i < joint.nv(); ++i) {
        std::vector<double> e(joint.nv(), 0.0), q_plus(joint.nq()), q_minus(joint.nq());
        e[i] = 1.0;
        // On the manifold: q ⊕ ±h·eᵢ.
        joint.integrate(q, e, h, q_plus);
        joint.integrate(q, e, -h, q_minus);
        const Vector6 along_integrate =
            twist_by_differences(joint.transform(q_minus), at, joint.transform(q_plus), h);
        // In the embedding: q ± h·q̇(q, eᵢ) (transform normalises quaternions).
        std::vector<double> rate(joint.nq());
        joint.configuration_rate(q, e, rate);
        for (int k = 0; k < joint.nq(); ++k) {
          q_plus[k] = q[k] + h * rate[k];
          q_minus[k] = q[k] - h * rate[k];
        }
        const Vector6 along_rate =
            twist_by_differences(joint.transform(q_minus), at, joint.transform(q_plus), h);
        worst = std::max(worst, (along_integrate - S.col(i)).cwiseAbs().maxCoeff());
        worst = std::max(worst, (along_rate - S.col(i)).cwiseAbs().maxCoeff());
      }
    }
    std::printf("S vs differences of X_PC, %-11s: max error %.2e\n", named.name.c_str(), worst);
    CHECK(worst <= 1e-8);
  }
}

TEST_CASE(
    "joints: the bias acceleration equals d/dt (S(q(t))·v) along q(t) = q ⊕ v·t (central "
    "differences, step 1e-5 s), within 1e-8 relative to |v|²") {
  std::mt19937_64 rng(12);
  const double h = 1e-5;
  for (const NamedJoint& named : moving_joints()) {
    INFO(named.name);
    const Joint& joint = *named.joint;
    double worst = 0.0;
    for (int sample = 0; sample < 20; ++sample) {
      const std::vector<double> q = random_configuration(joint, rng);
      const std::vector<double> v = random_velocity(joint, rng);
      const Eigen::Map<const Eigen::VectorXd> v_vector(v.data(), joint.nv());
      std::vector<double> q_plus(joint.nq()), q_minus(joint.nq()), bias(6);
      joint.integrate(q, v, h, q_plus);
      joint.integrate(q, v, -h, q_minus);
      const Vector6 derivative =
          (motion_subspace(joint, q_plus) * v_vector - motion_subspace(joint, q_minus) * v_vector) /
          (2.0 * h);
      joint.bias_acceleration(q, v, bias);
      const Vector6 bias_vector = Eigen::Map<const Vector6>(bias.data());
      worst = std::max(worst, (bias_vector - derivative).cwiseAbs().maxCoeff() /
                                  std::max(1.0, v_vector.squaredNorm()));
    }
    std::printf("Ṡv vs differences, %-11s: max relative error %.2e\n", named.name.c_str(), worst);
    CHECK(worst <= 1e-8);
  }
}

TEST_CASE(
    "joints: the universal joint's bias acceleration is not identically zero (θ̇₁·θ̇₂·a₁ × "
    "R₁a₂), checked against its closed form within 1e-15") {
  using contactlab::plugins::UniversalJoint;
  const auto joint = make<UniversalJoint>();  // a₁ = x, a₂ = y
  const std::vector<double> q{0.0, 0.3}, v{2.0, 3.0};
  std::vector<double> bias(6);
  joint->bias_acceleration(q, v, bias);
  // At θ₁ = 0: R₁a₂ = y, a₁ × y = z: bias = [0, 0, 0, 0, 0, 6].
  const std::vector<double> expected{0, 0, 0, 0, 0, 6};
  for (int i = 0; i < 6; ++i) CHECK(bias[i] == Approx(expected[i]).margin(1e-15));
}

TEST_CASE(
    "joints: integrate(q, v, dt) = q + q̇·dt + O(dt²): the difference is below 2·(1 + |v|)²·dt² "
    "at dt = 1e-3 and 1e-4 s") {
  std::mt19937_64 rng(13);
  for (const NamedJoint& named : moving_joints()) {
    INFO(named.name);
    const Joint& joint = *named.joint;
    for (int sample = 0; sample < 20; ++sample) {
      const std::vector<double> q = random_configuration(joint, rng);
      const std::vector<double> v = random_velocity(joint, rng);
      double speed = 0.0;
      for (double x : v) speed += x * x;
      speed = std::sqrt(speed);
      std::vector<double> rate(joint.nq()), next(joint.nq());
      joint.configuration_rate(q, v, rate);
      for (double dt : {1e-3, 1e-4}) {
        joint.integrate(q, v, dt, next);
        double difference = 0.0;
        for (int k = 0; k < joint.nq(); ++k)
          difference = std::max(difference, std::abs(next[k] - (q[k] + rate[k] * dt)));
        CHECK(difference <= 2.0 * (1.0 + speed) * (1.0 + speed) * dt * dt);
      }
    }
  }
}

TEST_CASE(
    "joints: 100000 integrate steps with changing velocities keep the quaternions unit within "
    "1e-14 (spherical, free), and integrate may write in place") {
  std::mt19937_64 rng(14);
  for (const NamedJoint& named : moving_joints()) {
    if (named.name != "spherical" && named.name != "free") continue;
    INFO(named.name);
    const Joint& joint = *named.joint;
    std::vector<double> q = random_configuration(joint, rng);
    const int offset = named.name == "free" ? 3 : 0;
    double worst = 0.0;
    for (int step = 0; step < 100000; ++step) {
      const std::vector<double> v = random_velocity(joint, rng);
      joint.integrate(q, v, 1e-2, q);  // in place
      double norm = 0.0;
      for (int k = 0; k < 4; ++k) norm += q[offset + k] * q[offset + k];
      worst = std::max(worst, std::abs(std::sqrt(norm) - 1.0));
    }
    CHECK(worst <= 1e-14);
  }
}

TEST_CASE(
    "joints: from_pose(transform(q), S(q)·v) succeeds and reproduces the pose within 1e-12 and v "
    "within 1e-10") {
  std::mt19937_64 rng(15);
  for (const NamedJoint& named : moving_joints()) {
    INFO(named.name);
    const Joint& joint = *named.joint;
    for (int sample = 0; sample < 50; ++sample) {
      const std::vector<double> q = random_configuration(joint, rng);
      const std::vector<double> v = random_velocity(joint, rng);
      const Vector6 twist =
          motion_subspace(joint, q) * Eigen::Map<const Eigen::VectorXd>(v.data(), joint.nv());
      const Pose X = joint.transform(q);
      std::vector<double> q_found(joint.nq()), v_found(joint.nv());
      REQUIRE(joint.from_pose(X, twist.head<3>(), twist.tail<3>(), q_found, v_found));
      CHECK(pose_difference(joint.transform(q_found), X) <= 1e-12);
      for (int k = 0; k < joint.nv(); ++k) CHECK(v_found[k] == Approx(v[k]).margin(1e-10));
    }
  }
}

TEST_CASE(
    "joints: from_pose refuses a pose or a velocity 1e-6 off the joint's reachable set "
    "(perturbed along the orthogonal complement of S), and accepts 1e-12 off") {
  std::mt19937_64 rng(16);
  for (const NamedJoint& named : moving_joints()) {
    if (named.name == "free") continue;  // reaches everything
    INFO(named.name);
    const Joint& joint = *named.joint;
    for (int sample = 0; sample < 20; ++sample) {
      const std::vector<double> q = random_configuration(joint, rng);
      const std::vector<double> v = random_velocity(joint, rng);
      const auto S = motion_subspace(joint, q);
      const Vector6 twist = S * Eigen::Map<const Eigen::VectorXd>(v.data(), joint.nv());
      // A unit twist orthogonal to every column of S: project a random one.
      const auto Q = Eigen::HouseholderQR<Eigen::Matrix<double, 6, Eigen::Dynamic>>(S);
      const Eigen::Matrix<double, 6, 6> basis = Q.householderQ();
      const Vector6 normal = basis.col(joint.nv() + static_cast<int>(rng() % (6 - joint.nv())));
      const Pose X = joint.transform(q);
      std::vector<double> q_found(joint.nq()), v_found(joint.nv());
      for (double size : {1e-6, 1e-12}) {
        const bool accept = size < 1e-9;
        Pose moved = X;
        moved.p += size * normal.head<3>();
        moved.R =
            Eigen::AngleAxisd(
                size * normal.tail<3>().norm(),
                normal.tail<3>().norm() > 0 ? Vec3(normal.tail<3>().normalized()) : Vec3::UnitX())
                .toRotationMatrix() *
            X.R;
        CHECK(joint.from_pose(moved, twist.head<3>(), twist.tail<3>(), q_found, v_found) == accept);
        const Vector6 off = twist + size * std::max(1.0, twist.norm()) * normal;
        CHECK(joint.from_pose(X, off.head<3>(), off.tail<3>(), q_found, v_found) == accept);
      }
    }
  }
}

TEST_CASE(
    "helical: from_pose recovers several turns from the translation (θ = 20 rad, pitch 0.05 "
    "m/rad) within 1e-12 rad") {
  using contactlab::plugins::HelicalJoint;
  Overrides overrides;
  overrides["pitch_m_per_rad"] = 0.05;
  const auto joint = make<HelicalJoint>(overrides);
  for (double angle : {20.0, -13.0, 3.0 * std::numbers::pi}) {
    const std::vector<double> q{angle};
    std::vector<double> q_found(1), v_found(1);
    REQUIRE(joint->from_pose(joint->transform(q), Vec3(0, 0, 0.05 * 2.0), Vec3(0, 0, 2.0), q_found,
                             v_found));
    CHECK(q_found[0] == Approx(angle).margin(1e-12));
    CHECK(v_found[0] == Approx(2.0).margin(1e-12));
  }
}

TEST_CASE(
    "joints: closed-form transforms — revolute about z by π/2 maps x to y, prismatic moves by "
    "d·a, helical advances pitch·θ, planar translates along e₁, e₂ = n × e₁, universal is "
    "Rot(a₁, θ₁)·Rot(a₂, θ₂) — within 1e-15") {
  using namespace contactlab::plugins;
  const double half_pi = std::numbers::pi / 2;
  {
    const auto joint = make<RevoluteJoint>();
    const Pose X = joint->transform(std::vector<double>{half_pi});
    CHECK((X.R * Vec3::UnitX() - Vec3::UnitY()).norm() <= 1e-15);
    CHECK(X.p.norm() == 0.0);
  }
  {
    Overrides o;
    set_axis(o, "axis", Vec3(0, 3, 4));
    const auto joint = make<PrismaticJoint>(o);
    const Pose X = joint->transform(std::vector<double>{2.0});
    CHECK((X.p - Vec3(0, 1.2, 1.6)).norm() <= 1e-15);
    CHECK(X.R == Mat3::Identity());
  }
  {
    Overrides o;
    o["pitch_m_per_rad"] = 0.01;
    const auto joint = make<HelicalJoint>(o);
    const Pose X = joint->transform(std::vector<double>{half_pi});
    CHECK((X.p - Vec3(0, 0, 0.01 * half_pi)).norm() <= 1e-15);
    CHECK((X.R * Vec3::UnitX() - Vec3::UnitY()).norm() <= 1e-15);
  }
  {
    Overrides o;
    set_axis(o, "in_plane_axis", Vec3(0, 1, 0));  // e₁ = y, e₂ = z × y = −x
    const auto joint = make<PlanarJoint>(o);
    const Pose X = joint->transform(std::vector<double>{2.0, 3.0, half_pi});
    CHECK((X.p - Vec3(-3, 2, 0)).norm() <= 1e-15);
    CHECK((X.R * Vec3::UnitX() - Vec3::UnitY()).norm() <= 1e-15);
  }
  {
    const auto joint = make<UniversalJoint>();  // a₁ = x, a₂ = y
    const Pose X = joint->transform(std::vector<double>{half_pi, half_pi});
    // Rot(x, π/2)·Rot(y, π/2): z → Rot(x, π/2)·x = x; x → Rot(x, π/2)·(−z) = y.
    CHECK((X.R * Vec3::UnitZ() - Vec3::UnitX()).norm() <= 1e-15);
    CHECK((X.R * Vec3::UnitX() - Vec3::UnitY()).norm() <= 1e-15);
  }
}

TEST_CASE(
    "joints: nq, nv and parameter errors — zero axis, non-perpendicular axes and an unknown "
    "drive combination are refused with the parameter's name") {
  using namespace contactlab::plugins;
  const auto joints = moving_joints();
  const std::vector<std::pair<int, int>> sizes{{1, 1}, {1, 1}, {1, 1}, {2, 2},
                                               {3, 3}, {2, 2}, {4, 3}, {7, 6}};
  for (std::size_t i = 0; i < joints.size(); ++i) {
    INFO(joints[i].name);
    CHECK(joints[i].joint->nq() == sizes[i].first);
    CHECK(joints[i].joint->nv() == sizes[i].second);
  }
  Overrides zero;
  set_axis(zero, "axis", Vec3::Zero());
  CHECK_THROWS_WITH(make<RevoluteJoint>(zero), Catch::Contains("axis_x/_y/_z"));
  Overrides skew_axes;
  set_axis(skew_axes, "axis2", Vec3(1, 1, 0));
  CHECK_THROWS_WITH(make<UniversalJoint>(skew_axes), Catch::Contains("perpendicular"));
  Overrides tilted_plane;
  set_axis(tilted_plane, "in_plane_axis", Vec3(1, 0, 0.1));
  CHECK_THROWS_WITH(make<PlanarJoint>(tilted_plane), Catch::Contains("in_plane_axis"));
  // Typed-in decimals of a perpendicular pair are accepted and made exactly perpendicular.
  Overrides rounded;
  set_axis(rounded, "axis1", Vec3(0.7071068, 0.7071068, 0));
  set_axis(rounded, "axis2", Vec3(-0.7071068, 0.7071067, 0));
  const auto universal = make<UniversalJoint>(rounded);
  const auto& typed = static_cast<const UniversalJoint&>(*universal);
  CHECK(std::abs(typed.first_axis().dot(typed.second_axis())) <= 1e-15);
}
