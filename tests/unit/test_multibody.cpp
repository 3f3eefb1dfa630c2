// Unit tests of the multibody tree (core/src/multibody.cpp): the articulated-body algorithm
// against the CRBA mass-matrix solve and the RNEA, the mass matrix against the bodies' kinetic
// energy, the bias forces against the Lagrangian from finite differences of M, the forward
// kinematics against finite differences of the poses, closed forms (pendulum, the simulation's
// Newton–Euler for one free body, a welded body against merged mass properties), energy
// conservation, and no heap allocation per call.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>
#include <random>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <catch2/catch.hpp>

#include "contactlab/core/multibody.hpp"
#include "contactlab/errors.hpp"
#include "fixed_joint.hpp"
#include "free_joint.hpp"

#include "support/allocation_counter.hpp"
#include "support/skip.hpp"

using contactlab::InputError;
using contactlab::Joint;
using contactlab::Mat3;
using contactlab::ParameterValues;
using contactlab::Pose;
using contactlab::SimulationError;
using contactlab::skew;
using contactlab::Vec3;
using contactlab::core::BodyWrench;
using contactlab::core::MassProperties;
using contactlab::core::MultibodyBody;
using contactlab::core::MultibodyTree;
using contactlab::plugins::FixedJoint;
using contactlab::plugins::FreeJoint;

namespace {

using Vector6 = Eigen::Matrix<double, 6, 1>;
using Matrix6 = Eigen::Matrix<double, 6, 6>;
using Eigen::MatrixXd;
using Eigen::VectorXd;

// --- Test-local joints (SDK convention: S and Ṡv as [v; ω] in the joint frame J) ------------

/// One coordinate with q̇ = v.
class ScalarJoint : public Joint {
 public:
  int nq() const override { return 1; }
  int nv() const override { return 1; }
  void neutral_configuration(std::span<double> q) const override { q[0] = 0.0; }
  void configuration_rate(std::span<const double> /*q*/, std::span<const double> v,
                          std::span<double> q_rate) const override {
    q_rate[0] = v[0];
  }
  void integrate(std::span<const double> q, std::span<const double> v, double dt,
                 std::span<double> q_out) const override {
    q_out[0] = q[0] + v[0] * dt;
  }
  void normalize(std::span<double> /*q*/) const override {}
  bool from_pose(const Pose&, const Vec3&, const Vec3&, std::span<double>,
                 std::span<double>) const override {
    return false;
  }
};

/// Rotation by q about a unit axis through J's origin.
class RevoluteJoint final : public ScalarJoint {
 public:
  explicit RevoluteJoint(const Vec3& axis) : axis_(axis.normalized()) {}
  Pose transform(std::span<const double> q) const override {
    return {Eigen::AngleAxisd(q[0], axis_).toRotationMatrix(), Vec3::Zero()};
  }
  void motion_subspace(std::span<const double>, std::span<double> S) const override {
    S[0] = S[1] = S[2] = 0.0;
    S[3] = axis_.x();
    S[4] = axis_.y();
    S[5] = axis_.z();
  }
  void bias_acceleration(std::span<const double>, std::span<const double>,
                         std::span<double> bias) const override {
    for (int i = 0; i < 6; ++i) bias[i] = 0.0;
  }

 private:
  Vec3 axis_;
};

/// Translation by q along a unit axis.
class PrismaticJoint final : public ScalarJoint {
 public:
  explicit PrismaticJoint(const Vec3& axis) : axis_(axis.normalized()) {}
  Pose transform(std::span<const double> q) const override {
    return {Mat3::Identity(), q[0] * axis_};
  }
  void motion_subspace(std::span<const double>, std::span<double> S) const override {
    S[0] = axis_.x();
    S[1] = axis_.y();
    S[2] = axis_.z();
    S[3] = S[4] = S[5] = 0.0;
  }
  void bias_acceleration(std::span<const double>, std::span<const double>,
                         std::span<double> bias) const override {
    for (int i = 0; i < 6; ++i) bias[i] = 0.0;
  }

 private:
  Vec3 axis_;
};

/// Rotation by q about a unit axis a through J's origin, with the child origin off the axis at
/// R(q)·d: the origin's velocity q̇·a × R d depends on q, so S does and Ṡv ≠ 0:
/// S = [a × R d; a], Ṡv = [q̇²·a × (a × R d); 0].
class CrankJoint final : public ScalarJoint {
 public:
  CrankJoint(const Vec3& axis, const Vec3& d) : axis_(axis.normalized()), d_(d) {}
  Pose transform(std::span<const double> q) const override {
    const Mat3 R = Eigen::AngleAxisd(q[0], axis_).toRotationMatrix();
    return {R, R * d_};
  }
  void motion_subspace(std::span<const double> q, std::span<double> S) const override {
    const Vec3 lin = axis_.cross(transform(q).p);
    for (int i = 0; i < 3; ++i) {
      S[i] = lin[i];
      S[3 + i] = axis_[i];
    }
  }
  void bias_acceleration(std::span<const double> q, std::span<const double> v,
                         std::span<double> bias) const override {
    const Vec3 lin = v[0] * v[0] * axis_.cross(axis_.cross(transform(q).p));
    for (int i = 0; i < 3; ++i) {
      bias[i] = lin[i];
      bias[3 + i] = 0.0;
    }
  }

 private:
  Vec3 axis_, d_;
};

/// Universal (Hooke) joint: R = Rx(q₀)·Ry(q₁), origin fixed. ω = e_x q̇₀ + Rx(q₀) e_y q̇₁, so
/// S = [0 0; e_x, Rx(q₀)e_y] depends on q₀ and Ṡv = [0; q̇₀ q̇₁ e_x × Rx(q₀)e_y].
class UniversalJoint final : public Joint {
 public:
  int nq() const override { return 2; }
  int nv() const override { return 2; }
  void neutral_configuration(std::span<double> q) const override { q[0] = q[1] = 0.0; }
  Pose transform(std::span<const double> q) const override {
    return {(Eigen::AngleAxisd(q[0], Vec3::UnitX()) * Eigen::AngleAxisd(q[1], Vec3::UnitY()))
                .toRotationMatrix(),
            Vec3::Zero()};
  }
  void motion_subspace(std::span<const double> q, std::span<double> S) const override {
    const Vec3 second = Eigen::AngleAxisd(q[0], Vec3::UnitX()) * Vec3::UnitY();
    for (int i = 0; i < 12; ++i) S[i] = 0.0;
    S[3] = 1.0;  // column 0: [0; e_x]
    for (int i = 0; i < 3; ++i) S[9 + i] = second[i];
  }
  void bias_acceleration(std::span<const double> q, std::span<const double> v,
                         std::span<double> bias) const override {
    const Vec3 second = Eigen::AngleAxisd(q[0], Vec3::UnitX()) * Vec3::UnitY();
    const Vec3 w = v[0] * v[1] * Vec3::UnitX().cross(second);
    for (int i = 0; i < 3; ++i) {
      bias[i] = 0.0;
      bias[3 + i] = w[i];
    }
  }
  void configuration_rate(std::span<const double>, std::span<const double> v,
                          std::span<double> q_rate) const override {
    q_rate[0] = v[0];
    q_rate[1] = v[1];
  }
  void integrate(std::span<const double> q, std::span<const double> v, double dt,
                 std::span<double> q_out) const override {
    q_out[0] = q[0] + v[0] * dt;
    q_out[1] = q[1] + v[1] * dt;
  }
  void normalize(std::span<double>) const override {}
  bool from_pose(const Pose&, const Vec3&, const Vec3&, std::span<double>,
                 std::span<double>) const override {
    return false;
  }
};

// --- Random models ---------------------------------------------------------------------------

double uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

Vec3 random_vector(std::mt19937_64& rng, double half_width) {
  return {uniform(rng, -half_width, half_width), uniform(rng, -half_width, half_width),
          uniform(rng, -half_width, half_width)};
}

Eigen::Quaterniond random_quaternion(std::mt19937_64& rng) {
  std::normal_distribution<double> gaussian(0.0, 1.0);
  return Eigen::Quaterniond(gaussian(rng), gaussian(rng), gaussian(rng), gaussian(rng))
      .normalized();
}

Pose random_pose(std::mt19937_64& rng, double half_width) {
  return {random_quaternion(rng).toRotationMatrix(), random_vector(rng, half_width)};
}

/// Mass 0.5–2 kg, COM within 0.2 m of the origin, principal moments 0.05–0.1 kg·m² (each below
/// the sum of the other two) about random principal axes.
MassProperties random_mass(std::mt19937_64& rng) {
  MassProperties mass;
  mass.mass_kg = uniform(rng, 0.5, 2.0);
  mass.p_BCm = random_vector(rng, 0.2);
  const Mat3 R = random_quaternion(rng).toRotationMatrix();
  const Vec3 moments(uniform(rng, 0.05, 0.1), uniform(rng, 0.05, 0.1), uniform(rng, 0.05, 0.1));
  mass.inertia_Cm_B = R * moments.asDiagonal() * R.transpose();
  return mass;
}

MultibodyBody make_body(int parent, std::shared_ptr<const Joint> joint, const Pose& X_PJ,
                        const MassProperties& mass) {
  MultibodyBody body;
  body.parent = parent;
  body.joint = std::move(joint);
  body.X_PJ = X_PJ;
  body.mass = mass;
  return body;
}

/// n revolute links in a chain, random axes, placements (offsets up to 0.5 m), masses.
std::vector<MultibodyBody> revolute_chain(int n, std::mt19937_64& rng) {
  std::vector<MultibodyBody> bodies;
  for (int i = 0; i < n; ++i)
    bodies.push_back(
        make_body(i - 1, std::make_shared<RevoluteJoint>(random_vector(rng, 1.0).normalized()),
                  random_pose(rng, 0.5), random_mass(rng)));
  return bodies;
}

/// A branching tree (not a chain), bodies 0..9:
///   0 free (root)      1 revolute ← 0      2 prismatic ← 0     3 fixed ← 1
///   4 universal ← 1    5 crank ← 2         6 revolute ← 3      7 revolute ← 0
///   8 fixed ← 7        9 prismatic ← 4
/// With `free_root` false, body 0 hangs from the world by a universal joint instead (minimal
/// coordinates everywhere, q̇ = v: what the Lagrangian check needs).
std::vector<MultibodyBody> mixed_tree(std::mt19937_64& rng, bool free_root) {
  auto unit = [&] { return random_vector(rng, 1.0).normalized(); };
  std::shared_ptr<const Joint> root;
  if (free_root)
    root = std::make_shared<FreeJoint>(ParameterValues{});
  else
    root = std::make_shared<UniversalJoint>();
  const auto fixed = std::make_shared<FixedJoint>(ParameterValues{});
  std::vector<MultibodyBody> bodies;
  bodies.push_back(make_body(-1, root, random_pose(rng, 0.5), random_mass(rng)));
  bodies.push_back(make_body(0, std::make_shared<RevoluteJoint>(unit()), random_pose(rng, 0.5),
                             random_mass(rng)));
  bodies.push_back(make_body(0, std::make_shared<PrismaticJoint>(unit()), random_pose(rng, 0.5),
                             random_mass(rng)));
  bodies.push_back(make_body(1, fixed, random_pose(rng, 0.5), random_mass(rng)));
  bodies.push_back(
      make_body(1, std::make_shared<UniversalJoint>(), random_pose(rng, 0.5), random_mass(rng)));
  bodies.push_back(make_body(2, std::make_shared<CrankJoint>(unit(), random_vector(rng, 0.3)),
                             random_pose(rng, 0.5), random_mass(rng)));
  bodies.push_back(make_body(3, std::make_shared<RevoluteJoint>(unit()), random_pose(rng, 0.5),
                             random_mass(rng)));
  bodies.push_back(make_body(0, std::make_shared<RevoluteJoint>(unit()), random_pose(rng, 0.5),
                             random_mass(rng)));
  bodies.push_back(make_body(7, nullptr, random_pose(rng, 0.5), random_mass(rng)));  // null: weld
  bodies.push_back(make_body(4, std::make_shared<PrismaticJoint>(unit()), random_pose(rng, 0.5),
                             random_mass(rng)));
  return bodies;
}

struct State {
  VectorXd q, v;
};

/// Random q (angles and displacements in ±1.5, free-joint position ±1 m and a random unit
/// quaternion) and v in ±1.5.
State random_state(const MultibodyTree& tree, std::mt19937_64& rng) {
  State s{VectorXd(tree.nq()), VectorXd(tree.nv())};
  for (int k = 0; k < tree.nq(); ++k) s.q[k] = uniform(rng, -1.5, 1.5);
  for (int k = 0; k < tree.nv(); ++k) s.v[k] = uniform(rng, -1.5, 1.5);
  for (std::size_t i = 0; i < tree.body_count(); ++i)
    if (tree.body_nq(i) == 7) {  // free joint: unit quaternion
      const Eigen::Quaterniond quat = random_quaternion(rng);
      const int o = tree.q_offset(i);
      s.q[o + 3] = quat.w();
      s.q[o + 4] = quat.x();
      s.q[o + 5] = quat.y();
      s.q[o + 6] = quat.z();
    }
  return s;
}

std::vector<BodyWrench> random_wrenches(std::size_t n, std::mt19937_64& rng) {
  std::vector<BodyWrench> wrenches(n);
  for (BodyWrench& w : wrenches) {
    w.force_W = random_vector(rng, 5.0);
    w.torque_Bo_W = random_vector(rng, 2.0);
  }
  return wrenches;
}

std::span<const double> span_of(const VectorXd& x) {
  return {x.data(), static_cast<std::size_t>(x.size())};
}
std::span<double> span_of(VectorXd& x) {
  return {x.data(), static_cast<std::size_t>(x.size())};
}

/// q̇ from every joint's configuration_rate.
VectorXd configuration_rate(const MultibodyTree& tree, const VectorXd& q, const VectorXd& v) {
  VectorXd q_rate(tree.nq());
  for (std::size_t i = 0; i < tree.body_count(); ++i) {
    if (!tree.body(i).joint) continue;
    const auto nq = static_cast<std::size_t>(tree.body_nq(i));
    const auto nv = static_cast<std::size_t>(tree.body_nv(i));
    tree.body(i).joint->configuration_rate(span_of(q).subspan(tree.q_offset(i), nq),
                                           span_of(v).subspan(tree.v_offset(i), nv),
                                           span_of(q_rate).subspan(tree.q_offset(i), nq));
  }
  return q_rate;
}

/// Σ ½ m v_c² + ½ ωᵀ I_W ω over the bodies, from forward_kinematics' poses and velocities.
double kinetic_energy_of_bodies(MultibodyTree& tree, const VectorXd& q, const VectorXd& v) {
  tree.forward_kinematics(span_of(q), span_of(v));
  double energy = 0.0;
  for (std::size_t i = 0; i < tree.body_count(); ++i) {
    const MassProperties& mass = tree.body(i).mass;
    const Pose& X = tree.pose_WB(i);
    const Vec3 w = tree.angular_velocity_W(i);
    const Vec3 v_c = tree.velocity_WBo(i) + w.cross(X.R * mass.p_BCm);
    energy += 0.5 * mass.mass_kg * v_c.squaredNorm() +
              0.5 * w.dot(X.R * mass.inertia_Cm_B * X.R.transpose() * w);
  }
  return energy;
}

/// V = −Σ m g·p_WCm.
double potential_energy(MultibodyTree& tree, const VectorXd& q, const Vec3& gravity_W) {
  tree.forward_kinematics(span_of(q), span_of(VectorXd(VectorXd::Zero(tree.nv()))));
  double energy = 0.0;
  for (std::size_t i = 0; i < tree.body_count(); ++i) {
    const MassProperties& mass = tree.body(i).mass;
    energy -= mass.mass_kg * gravity_W.dot(tree.pose_WB(i).transform_point(mass.p_BCm));
  }
  return energy;
}

MatrixXd mass_matrix(MultibodyTree& tree, const VectorXd& q) {
  MatrixXd M(tree.nv(), tree.nv());
  tree.mass_matrix(span_of(q), M);
  return M;
}

struct Consistency {
  double aba_vs_crba = 0.0;  ///< ‖v̇_ABA − M⁻¹(τ − c)‖ / ‖M⁻¹(τ − c)‖
  double rnea_vs_tau = 0.0;  ///< ‖RNEA(v̇_ABA) − τ‖ / ‖τ‖
  double asymmetry = 0.0;    ///< max |M − Mᵀ| / max |M|
  double min_eigenvalue = 0.0;
};

Consistency check_consistency(MultibodyTree& tree, const State& s, const VectorXd& tau,
                              const Vec3& gravity_W, std::span<const BodyWrench> external) {
  Consistency result;
  const MatrixXd M = mass_matrix(tree, s.q);
  result.asymmetry = (M - M.transpose()).cwiseAbs().maxCoeff() / M.cwiseAbs().maxCoeff();
  result.min_eigenvalue = Eigen::SelfAdjointEigenSolver<MatrixXd>(M).eigenvalues().minCoeff();
  VectorXd c(tree.nv());
  tree.bias_forces(span_of(s.q), span_of(s.v), gravity_W, external, span_of(c));
  const VectorXd v_dot_crba = M.llt().solve(tau - c);
  VectorXd v_dot_aba(tree.nv());
  tree.forward_dynamics(span_of(s.q), span_of(s.v), span_of(tau), gravity_W, external,
                        span_of(v_dot_aba));
  result.aba_vs_crba = (v_dot_aba - v_dot_crba).norm() / v_dot_crba.norm();
  VectorXd tau_back(tree.nv());
  tree.inverse_dynamics(span_of(s.q), span_of(s.v), span_of(v_dot_aba), gravity_W, external,
                        span_of(tau_back));
  result.rnea_vs_tau = (tau_back - tau).norm() / tau.norm();
  return result;
}

const Vec3 kGravity(0.0, 0.0, -9.81);

}  // namespace

TEST_CASE(
    "multibody: 20-link revolute chain, ABA equals the CRBA solve M^-1(tau - c) and "
    "RNEA(ABA(tau)) = tau within 1e-10 relative",
    "[multibody]") {
  std::mt19937_64 rng(20240611);
  MultibodyTree tree(revolute_chain(20, rng));
  REQUIRE(tree.nv() == 20);
  for (int trial = 0; trial < 20; ++trial) {
    const State s = random_state(tree, rng);
    VectorXd tau(tree.nv());
    for (int k = 0; k < tree.nv(); ++k) tau[k] = uniform(rng, -5.0, 5.0);
    const auto external = random_wrenches(tree.body_count(), rng);
    const Consistency r = check_consistency(tree, s, tau, kGravity, external);
    CHECK(r.asymmetry <= 1e-14);
    CHECK(r.min_eigenvalue > 0.0);
    CHECK(r.aba_vs_crba <= 1e-10);
    CHECK(r.rnea_vs_tau <= 1e-10);
  }
}

TEST_CASE(
    "multibody: branching tree with free root, revolute, prismatic, universal, crank and "
    "fixed joints, ABA equals the CRBA solve and RNEA(ABA(tau)) = tau within 1e-10 relative",
    "[multibody]") {
  std::mt19937_64 rng(77);
  for (const bool free_root : {true, false}) {
    MultibodyTree tree(mixed_tree(rng, free_root));
    REQUIRE(tree.nv() == (free_root ? 6 : 2) + 1 + 1 + 0 + 2 + 1 + 1 + 1 + 0 + 1);
    for (int trial = 0; trial < 20; ++trial) {
      const State s = random_state(tree, rng);
      VectorXd tau(tree.nv());
      for (int k = 0; k < tree.nv(); ++k) tau[k] = uniform(rng, -5.0, 5.0);
      const auto external = random_wrenches(tree.body_count(), rng);
      const Consistency r = check_consistency(tree, s, tau, kGravity, external);
      CHECK(r.asymmetry <= 1e-14);
      CHECK(r.min_eigenvalue > 0.0);
      CHECK(r.aba_vs_crba <= 1e-10);
      CHECK(r.rnea_vs_tau <= 1e-10);
    }
  }
}

TEST_CASE(
    "multibody: kinetic energy 1/2 v'Mv equals the bodies' sum of 1/2 m v_c^2 + 1/2 w'Iw "
    "from forward_kinematics within 1e-12 relative",
    "[multibody]") {
  std::mt19937_64 rng(5);
  std::vector<MultibodyTree> trees;
  trees.emplace_back(revolute_chain(20, rng));
  trees.emplace_back(mixed_tree(rng, true));
  trees.emplace_back(mixed_tree(rng, false));
  for (MultibodyTree& tree : trees)
    for (int trial = 0; trial < 10; ++trial) {
      const State s = random_state(tree, rng);
      const double from_M = 0.5 * s.v.dot(mass_matrix(tree, s.q) * s.v);
      const double from_bodies = kinetic_energy_of_bodies(tree, s.q, s.v);
      CHECK(std::abs(from_M - from_bodies) <= 1e-12 * from_bodies);
    }
}

TEST_CASE(
    "multibody: forward-kinematics velocities equal central differences of the poses along "
    "q_dot within 1e-7 m/s and rad/s",
    "[multibody]") {
  std::mt19937_64 rng(11);
  MultibodyTree tree(mixed_tree(rng, true));
  const double h = 1e-6;
  for (int trial = 0; trial < 5; ++trial) {
    const State s = random_state(tree, rng);
    const VectorXd q_rate = configuration_rate(tree, s.q, s.v);
    const VectorXd zero_v = VectorXd::Zero(tree.nv());
    const VectorXd q_plus = s.q + h * q_rate, q_minus = s.q - h * q_rate;
    std::vector<Pose> plus, minus;
    tree.forward_kinematics(span_of(q_plus), span_of(zero_v));
    for (std::size_t i = 0; i < tree.body_count(); ++i) plus.push_back(tree.pose_WB(i));
    tree.forward_kinematics(span_of(q_minus), span_of(zero_v));
    for (std::size_t i = 0; i < tree.body_count(); ++i) minus.push_back(tree.pose_WB(i));
    tree.forward_kinematics(span_of(s.q), span_of(s.v));
    for (std::size_t i = 0; i < tree.body_count(); ++i) {
      const Vec3 v_fd = (plus[i].p - minus[i].p) / (2.0 * h);
      // R₊R₋ᵀ = exp(2h[ω]×) + O(h³): its skew part is sin(2h|ω|)·ω̂ ≈ 2h·ω.
      const Mat3 A = plus[i].R * minus[i].R.transpose();
      const Vec3 w_fd = Vec3(A(2, 1) - A(1, 2), A(0, 2) - A(2, 0), A(1, 0) - A(0, 1)) / (4.0 * h);
      CHECK((tree.velocity_WBo(i) - v_fd).norm() <= 1e-7);
      CHECK((tree.angular_velocity_W(i) - w_fd).norm() <= 1e-7);
    }
  }
}

TEST_CASE(
    "multibody: bias forces equal the Lagrangian M_dot v - 1/2 d(v'Mv)/dq + dV/dq from "
    "central differences of M and V within 1e-8 relative",
    "[multibody]") {
  // Minimal coordinates with q̇ = v (no free joint): Lagrange's equations give
  // c = C(q, v)·v + g(q) = Ṁ·v − ½·∂(vᵀMv)/∂q + ∂V/∂q, with V = −Σ m g·p_WCm. Only M(q) and the
  // positions enter this reference, not the velocity-product terms under test.
  std::mt19937_64 rng(3);
  std::vector<MultibodyTree> trees;
  trees.emplace_back(revolute_chain(8, rng));
  trees.emplace_back(mixed_tree(rng, false));
  const double h = 1e-5;
  for (MultibodyTree& tree : trees)
    for (int trial = 0; trial < 5; ++trial) {
      const State s = random_state(tree, rng);
      const int n = tree.nv();
      REQUIRE(tree.nq() == n);
      const VectorXd& v = s.v;
      const VectorXd M_dot_v =
          (mass_matrix(tree, s.q + h * v) - mass_matrix(tree, s.q - h * v)) * v / (2.0 * h);
      VectorXd reference = M_dot_v;
      for (int k = 0; k < n; ++k) {
        VectorXd q_plus = s.q, q_minus = s.q;
        q_plus[k] += h;
        q_minus[k] -= h;
        const double dT = 0.5 * v.dot(mass_matrix(tree, q_plus) * v) -
                          0.5 * v.dot(mass_matrix(tree, q_minus) * v);
        const double dV =
            potential_energy(tree, q_plus, kGravity) - potential_energy(tree, q_minus, kGravity);
        reference[k] += (-dT + dV) / (2.0 * h);
      }
      VectorXd c(n);
      tree.bias_forces(span_of(s.q), span_of(s.v), kGravity, {}, span_of(c));
      CHECK((c - reference).norm() <= 1e-8 * reference.norm());
    }
}

TEST_CASE(
    "multibody: one free body, forward dynamics equals the simulation's Newton-Euler "
    "about the body origin within 1e-12 relative",
    "[multibody]") {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 10; ++trial) {
    const MassProperties mass = random_mass(rng);
    const Pose X_WJ = random_pose(rng, 1.0);  // the joint frame: v̇ comes in its axes
    MultibodyTree tree({make_body(-1, std::make_shared<FreeJoint>(ParameterValues{}), X_WJ, mass)});
    const Pose X_WB = random_pose(rng, 2.0);
    const Vec3 v_WBo = random_vector(rng, 2.0), w_WB = random_vector(rng, 3.0);
    BodyWrench external;
    external.force_W = random_vector(rng, 5.0);
    external.torque_Bo_W = random_vector(rng, 2.0);

    // Reference: Newton–Euler of one body about its origin (the simulation's per-body equations
    // before it ran on the tree).
    const double m = mass.mass_kg;
    const Vec3 c = X_WB.R * mass.p_BCm;
    const Mat3 I_c = X_WB.R * mass.inertia_Cm_B * X_WB.R.transpose();
    const Mat3 C = skew(c);
    Matrix6 M;
    M.topLeftCorner<3, 3>() = m * Mat3::Identity();
    M.topRightCorner<3, 3>() = -m * C;
    M.bottomLeftCorner<3, 3>() = m * C;
    M.bottomRightCorner<3, 3>() = I_c - m * C * C;
    const Vec3 force_W = m * kGravity + external.force_W;
    const Vec3 torque_Bo_W = c.cross(m * kGravity) + external.torque_Bo_W;
    const Vec3 centripetal = w_WB.cross(w_WB.cross(c));
    Vector6 rhs;
    rhs.head<3>() = force_W - m * centripetal;
    rhs.tail<3>() = torque_Bo_W - w_WB.cross(I_c * w_WB) - m * c.cross(centripetal);
    const Vector6 reference = M.llt().solve(rhs);  // [a_o; ω̇] in world axes

    VectorXd q(7), v(6), tau = VectorXd::Zero(6), v_dot(6);
    const FreeJoint joint{ParameterValues{}};
    REQUIRE(joint.from_pose(X_WJ.inverse() * X_WB, X_WJ.R.transpose() * v_WBo,
                            X_WJ.R.transpose() * w_WB, span_of(q), span_of(v)));
    tree.forward_dynamics(span_of(q), span_of(v), span_of(tau), kGravity,
                          std::span<const BodyWrench>(&external, 1), span_of(v_dot));
    Vector6 result;
    result.head<3>() = X_WJ.R * v_dot.head<3>();
    result.tail<3>() = X_WJ.R * v_dot.tail<3>();
    CHECK((result - reference).norm() <= 1e-12 * reference.norm());
  }
}

TEST_CASE(
    "multibody: simple pendulum, theta_ddot = -(m g d / I_o) sin(theta) within 1e-12 "
    "relative",
    "[multibody]") {
  // A revolute joint about z at the world origin, gravity −g·y, the COM at distance d below the
  // axis (at θ = 0) and an inertia with products of inertia (they only load the bearing).
  const double m = 1.7, d = 0.6, g = 9.81;
  MassProperties mass;
  mass.mass_kg = m;
  mass.p_BCm = Vec3(0.0, -d, 0.0);
  mass.inertia_Cm_B << 0.05, 0.01, -0.02, 0.01, 0.04, 0.015, -0.02, 0.015, 0.07;
  const double I_o = mass.inertia_Cm_B(2, 2) + m * d * d;
  MultibodyTree tree(
      {make_body(-1, std::make_shared<RevoluteJoint>(Vec3::UnitZ()), Pose::identity(), mass)});
  for (const double theta : {-2.5, -0.7, 0.3, 1.2, 2.9}) {
    for (const double theta_dot : {0.0, 1.5}) {
      const double q[] = {theta}, v[] = {theta_dot}, tau[] = {0.0};
      double v_dot[1];
      tree.forward_dynamics(q, v, tau, Vec3(0.0, -g, 0.0), {}, v_dot);
      const double expected = -(m * g * d / I_o) * std::sin(theta);
      CHECK(std::abs(v_dot[0] - expected) <= 1e-12 * std::abs(expected));
    }
  }
}

TEST_CASE(
    "multibody: a body welded by a fixed joint moves as one rigid body with the merged "
    "mass properties within 1e-12 relative",
    "[multibody]") {
  std::mt19937_64 rng(8);
  const MassProperties a = random_mass(rng), b = random_mass(rng);
  const Pose X_AB = random_pose(rng, 0.5);  // the welded body in body A
  const Pose X_WJ = random_pose(rng, 0.5);
  const auto joint = std::make_shared<UniversalJoint>();
  // Merged about A's origin, A's axes: COM by the mass-weighted mean, inertia by parallel axes.
  MassProperties merged;
  merged.mass_kg = a.mass_kg + b.mass_kg;
  const Vec3 c_b = X_AB.transform_point(b.p_BCm);
  merged.p_BCm = (a.mass_kg * a.p_BCm + b.mass_kg * c_b) / merged.mass_kg;
  auto shifted = [&](const Mat3& I, double m, const Vec3& r) {  // about a point at −r
    return I + m * (r.squaredNorm() * Mat3::Identity() - r * r.transpose());
  };
  merged.inertia_Cm_B =
      shifted(a.inertia_Cm_B, a.mass_kg, a.p_BCm - merged.p_BCm) +
      shifted(X_AB.R * b.inertia_Cm_B * X_AB.R.transpose(), b.mass_kg, c_b - merged.p_BCm);
  MultibodyTree welded({make_body(-1, joint, X_WJ, a),
                        make_body(0, std::make_shared<FixedJoint>(ParameterValues{}), X_AB, b)});
  MultibodyTree single({make_body(-1, joint, X_WJ, merged)});
  REQUIRE(welded.nv() == 2);
  for (int trial = 0; trial < 5; ++trial) {
    const State s = random_state(single, rng);
    const VectorXd tau = VectorXd::Random(2);
    VectorXd v_dot_welded(2), v_dot_single(2);
    welded.forward_dynamics(span_of(s.q), span_of(s.v), span_of(tau), kGravity, {},
                            span_of(v_dot_welded));
    single.forward_dynamics(span_of(s.q), span_of(s.v), span_of(tau), kGravity, {},
                            span_of(v_dot_single));
    CHECK((v_dot_welded - v_dot_single).norm() <= 1e-12 * v_dot_single.norm());
    // The welded body's pose follows A's.
    const Pose X_WB = welded.pose_WB(0) * X_AB;
    CHECK((welded.pose_WB(1).p - X_WB.p).norm() <= 1e-14);
    CHECK((welded.pose_WB(1).R - X_WB.R).norm() <= 1e-14);
  }
}

TEST_CASE(
    "multibody: hybrid dynamics (prescribed joint accelerations) equals the partitioned CRBA "
    "solve M_ff v_dot_f = tau_f - c_f - M_fp v_dot_p within 1e-10 relative, keeps the given "
    "v_dot_p exactly and allocates nothing",
    "[multibody]") {
  std::mt19937_64 rng(31);
  for (const bool free_root : {true, false}) {
    // Prescribe the root, an inner joint with children (4: universal ← 1) and a leaf (5).
    std::vector<MultibodyBody> bodies = mixed_tree(rng, free_root);
    for (const std::size_t i : {std::size_t{0}, std::size_t{4}, std::size_t{5}})
      bodies[i].prescribed = true;
    MultibodyTree tree(std::move(bodies));
    std::vector<bool> is_prescribed(static_cast<std::size_t>(tree.nv()), false);
    for (std::size_t i = 0; i < tree.body_count(); ++i)
      for (int k = 0; k < tree.body_nv(i); ++k)
        is_prescribed[static_cast<std::size_t>(tree.v_offset(i) + k)] = tree.body(i).prescribed;
    std::vector<int> free_index, prescribed_index;
    for (int k = 0; k < tree.nv(); ++k)
      (is_prescribed[static_cast<std::size_t>(k)] ? prescribed_index : free_index).push_back(k);
    REQUIRE(!free_index.empty());
    REQUIRE(!prescribed_index.empty());
    for (int trial = 0; trial < 10; ++trial) {
      const State s = random_state(tree, rng);
      VectorXd tau(tree.nv());
      for (int k = 0; k < tree.nv(); ++k) tau[k] = uniform(rng, -5.0, 5.0);
      const auto external = random_wrenches(tree.body_count(), rng);
      VectorXd v_dot(tree.nv());
      for (int k = 0; k < tree.nv(); ++k) v_dot[k] = uniform(rng, -3.0, 3.0);  // inputs where p
      const VectorXd given = v_dot;
      // Reference from M and c: the free rows of M·v̇ + c = τ with the prescribed v̇ known.
      const MatrixXd M = mass_matrix(tree, s.q);
      VectorXd c(tree.nv());
      tree.bias_forces(span_of(s.q), span_of(s.v), kGravity, external, span_of(c));
      const auto nf = static_cast<Eigen::Index>(free_index.size());
      MatrixXd M_ff(nf, nf);
      VectorXd rhs(nf);
      for (Eigen::Index a = 0; a < nf; ++a) {
        const int i = free_index[static_cast<std::size_t>(a)];
        rhs[a] = tau[i] - c[i];
        for (const int p : prescribed_index) rhs[a] -= M(i, p) * given[p];
        for (Eigen::Index b = 0; b < nf; ++b)
          M_ff(a, b) = M(i, free_index[static_cast<std::size_t>(b)]);
      }
      const VectorXd reference = M_ff.llt().solve(rhs);

      const long allocations = contactlab::testing::allocations_during([&] {
        tree.forward_dynamics(span_of(s.q), span_of(s.v), span_of(tau), kGravity, external,
                              span_of(v_dot));
      });
      if (contactlab::testing::allocation_counting_available()) CHECK(allocations == 0);
      VectorXd result(nf);
      for (Eigen::Index a = 0; a < nf; ++a)
        result[a] = v_dot[free_index[static_cast<std::size_t>(a)]];
      CHECK((result - reference).norm() <= 1e-10 * reference.norm());
      for (const int p : prescribed_index) CHECK(v_dot[p] == given[p]);
      // The joint forces that realise the motion: RNEA(v̇) equals τ on the free joints.
      VectorXd tau_back(tree.nv());
      tree.inverse_dynamics(span_of(s.q), span_of(s.v), span_of(v_dot), kGravity, external,
                            span_of(tau_back));
      for (const int f : free_index) CHECK(std::abs(tau_back[f] - tau[f]) <= 1e-9 * tau.norm());
    }
  }
}

namespace {

/// One classical RK4 step of [q; v] with τ = 0 (q̇ from the joints' configuration_rate).
void rk4_step(MultibodyTree& tree, VectorXd& q, VectorXd& v, double dt, const Vec3& gravity_W) {
  const VectorXd tau = VectorXd::Zero(tree.nv());
  auto rate = [&](const VectorXd& qs, const VectorXd& vs, VectorXd& dq, VectorXd& dv) {
    dq = configuration_rate(tree, qs, vs);
    dv.resize(tree.nv());
    tree.forward_dynamics(span_of(qs), span_of(vs), span_of(tau), gravity_W, {}, span_of(dv));
  };
  VectorXd k1q, k1v, k2q, k2v, k3q, k3v, k4q, k4v;
  rate(q, v, k1q, k1v);
  rate(q + 0.5 * dt * k1q, v + 0.5 * dt * k1v, k2q, k2v);
  rate(q + 0.5 * dt * k2q, v + 0.5 * dt * k2v, k3q, k3v);
  rate(q + dt * k3q, v + dt * k3v, k4q, k4v);
  q += dt / 6.0 * (k1q + 2.0 * k2q + 2.0 * k3q + k4q);
  v += dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
}

double max_energy_drift(MultibodyTree& tree, VectorXd q, VectorXd v, double duration, double dt,
                        const Vec3& gravity_W) {
  auto energy = [&] {
    return kinetic_energy_of_bodies(tree, q, v) + potential_energy(tree, q, gravity_W);
  };
  const double E0 = energy();
  double drift = 0.0;
  const int steps = static_cast<int>(std::lround(duration / dt));
  for (int step = 0; step < steps; ++step) {
    rk4_step(tree, q, v, dt, gravity_W);
    drift = std::max(drift, std::abs(energy() - E0));
  }
  return drift / std::abs(E0);
}

}  // namespace

TEST_CASE(
    "multibody: double pendulum conserves energy within 1e-9 relative over 1 s (RK4, "
    "dt = 1e-3 s)",
    "[multibody]") {
  // Two 1 m links swinging about z under gravity −g·y, COMs at mid-link; released at 1 rad and
  // −0.5 rad with 0.3 and 0.8 rad/s. Energy from the bodies' kinematics, not from M.
  MassProperties link;
  link.mass_kg = 1.0;
  link.p_BCm = Vec3(0.0, -0.5, 0.0);
  link.inertia_Cm_B = Vec3(1.0 / 12.0, 1e-3, 1.0 / 12.0).asDiagonal();
  MassProperties link2 = link;
  link2.mass_kg = 0.7;
  link2.inertia_Cm_B *= 0.7;
  const auto revolute = std::make_shared<RevoluteJoint>(Vec3::UnitZ());
  MultibodyTree tree({make_body(-1, revolute, Pose::identity(), link),
                      make_body(0, revolute, Pose{Mat3::Identity(), Vec3(0.0, -1.0, 0.0)}, link2)});
  VectorXd q(2), v(2);
  q << 1.0, -0.5;
  v << 0.3, 0.8;
  const double drift = max_energy_drift(tree, q, v, 1.0, 1e-3, Vec3(0.0, -9.81, 0.0));
  CHECK(drift < 1e-9);
}

TEST_CASE(
    "multibody: branching trees with q-dependent joints (free or universal root) conserve "
    "energy within 1e-9 relative over 1 s (RK4, dt = 5e-4 s)",
    "[multibody]") {
  // The velocity-product terms of the universal, crank and free joints (Ṡv and the rotation of
  // the free joint's parent-aligned velocities) enter here; a wrong one breaks conservation.
  // Measured: 5e-14 (free root, mostly free fall) and 2.7e-10 (universal root; 4.4e-9 at
  // dt = 1e-3 s: the ratio 16 of RK4's truncation error, not a modelling error).
  std::mt19937_64 rng(123);
  for (const bool free_root : {true, false}) {
    MultibodyTree tree(mixed_tree(rng, free_root));
    const State s = random_state(tree, rng);
    const double drift = max_energy_drift(tree, s.q, s.v, 1.0, 5e-4, kGravity);
    CHECK(drift < 1e-9);
  }
}

TEST_CASE(
    "multibody: no heap allocation in forward_kinematics, mass_matrix, bias_forces, "
    "inverse_dynamics and forward_dynamics",
    "[multibody]") {
  if (!contactlab::testing::allocation_counting_available())
    CONTACTLAB_SKIP("this build cannot count heap allocations (neither glibc nor a sanitizer)");
  std::mt19937_64 rng(9);
  std::vector<MultibodyTree> trees;
  trees.emplace_back(revolute_chain(20, rng));
  trees.emplace_back(mixed_tree(rng, true));
  trees.emplace_back(mixed_tree(rng, false));
  // Self-check: the counter sees an allocation when there is one.
  std::vector<double>* probe = nullptr;
  REQUIRE(contactlab::testing::allocations_during([&] { probe = new std::vector<double>(100); }) >=
          1);
  delete probe;
  for (MultibodyTree& tree : trees) {
    const State s = random_state(tree, rng);
    const auto external = random_wrenches(tree.body_count(), rng);
    VectorXd tau = VectorXd::Random(tree.nv()), out(tree.nv()), v_dot(tree.nv());
    MatrixXd M(tree.nv(), tree.nv());
    const long allocations = contactlab::testing::allocations_during([&] {
      for (int repeat = 0; repeat < 3; ++repeat) {
        tree.forward_kinematics(span_of(s.q), span_of(s.v));
        tree.mass_matrix(span_of(s.q), M);
        tree.bias_forces(span_of(s.q), span_of(s.v), kGravity, external, span_of(out));
        tree.forward_dynamics(span_of(s.q), span_of(s.v), span_of(tau), kGravity, external,
                              span_of(v_dot));
        tree.inverse_dynamics(span_of(s.q), span_of(s.v), span_of(v_dot), kGravity, {},
                              span_of(out));
      }
    });
    CHECK(allocations == 0);
  }
}

TEST_CASE(
    "multibody: construction errors name the body, bodies welded to the world may have "
    "infinite mass",
    "[multibody]") {
  MassProperties unit;
  unit.mass_kg = 1.0;
  unit.inertia_Cm_B = Mat3::Identity();
  const auto revolute = std::make_shared<RevoluteJoint>(Vec3::UnitZ());
  CHECK_THROWS_AS(MultibodyTree({make_body(0, revolute, Pose::identity(), unit)}), InputError);
  CHECK_THROWS_AS(MultibodyTree({make_body(-2, revolute, Pose::identity(), unit)}), InputError);
  MassProperties negative = unit;
  negative.mass_kg = -1.0;
  CHECK_THROWS_WITH(MultibodyTree({make_body(-1, revolute, Pose::identity(), negative)}),
                    Catch::Contains("body 0") && Catch::Contains("mass"));
  MassProperties infinite = unit;
  infinite.mass_kg = std::numeric_limits<double>::infinity();
  // A ground welded to the world (null joint) with a pendulum on it.
  MultibodyTree tree({make_body(-1, nullptr, Pose::identity(), infinite),
                      make_body(0, revolute, Pose::identity(), unit)});
  const double q[] = {0.0}, v[] = {1.0}, tau[] = {2.0};
  double v_dot[1];
  tree.forward_dynamics(q, v, tau, kGravity, {}, v_dot);
  CHECK(v_dot[0] == Approx(2.0).epsilon(1e-14));  // I_zz = 1 about the axis, gravity along it
  // A moving body may not be infinitely heavy.
  CHECK_THROWS_AS(MultibodyTree({make_body(-1, revolute, Pose::identity(), infinite)}), InputError);
  // A massless subtree cannot be accelerated.
  MultibodyTree massless({make_body(-1, revolute, Pose::identity(), MassProperties{})});
  CHECK_THROWS_AS(massless.forward_dynamics(q, v, tau, kGravity, {}, v_dot), SimulationError);
}
