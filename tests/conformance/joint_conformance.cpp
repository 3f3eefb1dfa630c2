// Joint conformance: every Joint a plugin library declares, created through the plugin registry
// (dlopen, as users get it), must keep the contract of joint.hpp on seeded random configurations
// (reached from the neutral one by integrate()) and velocities:
//   - 0 ≤ nv ≤ 6 and nv ≤ nq;
//   - transform(neutral configuration) is the identity (1e-12), and the neutral configuration
//     is on the manifold (normalize() leaves it, 1e-12);
//   - transform(q) is a rigid transform: RᵀR = I (1e-12), det R = +1;
//   - S(q) has full column rank (its smallest singular value ≥ 1e-6 of its largest);
//   - S(q)·v is the spatial velocity [v; ω] of the child in P: central differences of
//     transform() along q̇ = configuration_rate(q, v) (1e-6 relative);
//   - configuration_rate() is the time derivative of integrate(): central differences of
//     integrate(q, v, ±h) (1e-6 relative), and integrate(q, v, 0) = q (1e-14);
//   - bias_acceleration(q, v) = d/dt (S(q)·v) along q̇ with v fixed (1e-6 relative);
//   - integrate() stays on the manifold: 100 steps of 0.5 with random velocities, each result
//     left unchanged by normalize() (1e-12) and with a rigid transform; normalize() puts a
//     configuration perturbed off the manifold back on it;
//   - from_pose() inverts transform() and S: it accepts the pose and velocity of any q and v and
//     returns a q′, v′ with the same transform and S(q′)·v′ (1e-9);
//   - joint_force() writes nv finite values, and at v = 0 it is −∂E/∂q along each velocity
//     coordinate for E = potential_energy() (central differences, 1e-6 of max(|τ|, 1 N));
//   - a driven joint's prescribed v and v̇ are the time derivatives of its q and v (central
//     differences, 1e-6 relative), away from t = 0 and 1 s, where default profiles break;
//   - no heap allocation in the hot calls (transform, motion_subspace, bias_acceleration,
//     configuration_rate, integrate, normalize, joint_force, potential_energy,
//     prescribed_motion);
//   - deterministic: the same inputs give the same bits twice and on another instance.
// Where the documentation is silent the suite chose: the tolerances; nv ≤ nq; full rank; that
// −∂E/∂q is taken along configuration_rate(q, eᵢ); the breakpoints avoided; which calls are hot
// (DESIGN.md: no allocation in hot calls); determinism (the README promises same input, same
// bits).
//
// Usage: contactlab-conformance-joint [options] [LIBRARY.so ...] (see
// conformance_support.hpp); fixtures/mutant_joints.cpp holds the defects it must catch.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "conformance_support.hpp"
#include "contactlab/joint.hpp"

namespace {

using namespace contactlab;
using conformance::fail;
using conformance::number;
using conformance::vector_text;

using Vector = Eigen::VectorXd;
using Vector6 = Eigen::Matrix<double, 6, 1>;
using Matrix6X = Eigen::Matrix<double, 6, Eigen::Dynamic>;

constexpr double kRigidTolerance = 1e-12;
constexpr double kDifferenceTolerance = 1e-6;
constexpr double kStep = 1e-6;  // central-difference step [s]
constexpr double kRankTolerance = 1e-6;
constexpr double kFromPoseTolerance = 1e-9;

std::string text(const Vector& v) {
  std::string out = "(";
  for (Eigen::Index i = 0; i < v.size(); ++i) out += (i ? ", " : "") + number(v[i]);
  return out + ")";
}

std::span<double> span(Vector& v) {
  return {v.data(), static_cast<std::size_t>(v.size())};
}
std::span<const double> span(const Vector& v) {
  return {v.data(), static_cast<std::size_t>(v.size())};
}

/// The joint's sizes, checked once.
struct Sizes {
  int nq, nv;
};

Sizes sizes(const Joint& joint) {
  const int nq = joint.nq(), nv = joint.nv();
  if (nv < 0 || nv > 6 || nq < nv)
    fail("nq = " + std::to_string(nq) + ", nv = " + std::to_string(nv) +
         " (a joint has 0 ≤ nv ≤ 6 velocity coordinates and at least as many configuration "
         "coordinates)");
  return {nq, nv};
}

Vector neutral(const Joint& joint, const Sizes& s) {
  Vector q(s.nq);
  joint.neutral_configuration(span(q));
  return q;
}

Vector integrated(const Joint& joint, const Vector& q, const Vector& v, double dt) {
  Vector out(q.size());
  joint.integrate(span(q), span(v), dt, span(out));
  return out;
}

Vector rate(const Joint& joint, const Vector& q, const Vector& v) {
  Vector out(q.size());
  joint.configuration_rate(span(q), span(v), span(out));
  return out;
}

Vector normalized(const Joint& joint, Vector q) {
  joint.normalize(span(q));
  return q;
}

Matrix6X subspace(const Joint& joint, const Vector& q, const Sizes& s) {
  Matrix6X S(6, s.nv);
  joint.motion_subspace(span(q), std::span<double>(S.data(), 6 * static_cast<std::size_t>(s.nv)));
  return S;
}

/// The seeded random (q, v) pairs the checks use: q reached from the neutral configuration by
/// integrate() (so on the manifold by the joint's own rule), v uniform in [−1, 1]^nv.
std::vector<std::pair<Vector, Vector>> states(const Joint& joint, const Sizes& s) {
  std::mt19937_64 rng(811);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  auto random_v = [&] {
    Vector v(s.nv);
    for (int i = 0; i < s.nv; ++i) v[i] = unit(rng);
    return v;
  };
  std::vector<std::pair<Vector, Vector>> out;
  Vector q = neutral(joint, s);
  for (int i = 0; i < 24; ++i) {
    q = integrated(joint, q, random_v(), 1.0);
    out.emplace_back(q, random_v());
  }
  return out;
}

std::string where(const Vector& q, const Vector& v) {
  return " at q = " + text(q) + ", v = " + text(v);
}

void expect_rigid(const Pose& X, const std::string& context) {
  const double orthogonality = (X.R.transpose() * X.R - Mat3::Identity()).cwiseAbs().maxCoeff();
  if (!X.R.allFinite() || !X.p.allFinite() || orthogonality > kRigidTolerance ||
      X.R.determinant() < 0.0)
    fail("transform() is not a rigid transform: |RᵀR − I| = " + number(orthogonality) +
         ", det R = " + number(X.R.determinant()) + ", p = " + vector_text(X.p) + context);
}

/// The spatial velocity [v; ω] (in P) of the child along q(t) = q ± t·q̇ (re-normalised), by
/// central differences of transform().
Vector6 velocity_by_differences(const Joint& joint, const Vector& q, const Vector& q_rate) {
  const Pose plus = joint.transform(span(normalized(joint, q + kStep * q_rate)));
  const Pose minus = joint.transform(span(normalized(joint, q - kStep * q_rate)));
  const Eigen::AngleAxisd turn(Mat3(plus.R * minus.R.transpose()));
  Vector6 out;
  out.head<3>() = (plus.p - minus.p) / (2.0 * kStep);
  out.tail<3>() = turn.angle() * turn.axis() / (2.0 * kStep);
  return out;
}

void expect_close(const Vector& got, const Vector& expected, double tolerance,
                  const std::string& what) {
  if (got.size() != expected.size())
    fail(what + ": " + std::to_string(got.size()) + " values, expected " +
         std::to_string(expected.size()));
  if (got.size() == 0) return;
  const double error = (got - expected).cwiseAbs().maxCoeff();
  if (!(error <= tolerance * std::max(1.0, expected.cwiseAbs().maxCoeff())))
    fail(what + ": " + text(got) + ", expected " + text(expected) + " (difference " +
         number(error) + ")");
}

std::string neutral_is_identity(Joint& joint) {
  const Sizes s = sizes(joint);
  const Vector q = neutral(joint, s);
  const Pose X = joint.transform(span(q));
  const double error =
      std::max((X.R - Mat3::Identity()).cwiseAbs().maxCoeff(), X.p.cwiseAbs().maxCoeff());
  if (!(error <= kRigidTolerance))
    fail("transform(neutral configuration " + text(q) + ") is R = [" + vector_text(X.R.row(0)) +
         ", " + vector_text(X.R.row(1)) + ", " + vector_text(X.R.row(2)) +
         "], p = " + vector_text(X.p) + ", not the identity");
  expect_close(normalized(joint, q), q, kRigidTolerance, "normalize(neutral configuration)");
  return "nq = " + std::to_string(s.nq) + ", nv = " + std::to_string(s.nv);
}

std::string rigid_and_full_rank(Joint& joint) {
  const Sizes s = sizes(joint);
  const auto all = states(joint, s);
  for (const auto& [q, v] : all) {
    expect_rigid(joint.transform(span(q)), where(q, v));
    if (s.nv == 0) continue;
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(subspace(joint, q, s));
    const Vector sigma = svd.singularValues();
    if (!(sigma.minCoeff() >= kRankTolerance * sigma.maxCoeff()))
      fail("S(q) is rank-deficient: singular values " + text(sigma) + where(q, v));
  }
  return std::to_string(all.size()) + " configurations";
}

std::string subspace_matches_motion(Joint& joint) {
  const Sizes s = sizes(joint);
  const auto all = states(joint, s);
  for (const auto& [q, v] : all) {
    const Vector6 spatial = subspace(joint, q, s) * v;
    expect_close(velocity_by_differences(joint, q, rate(joint, q, v)), spatial,
                 kDifferenceTolerance,
                 "the child's velocity by differences of transform() along "
                 "configuration_rate() against S(q)·v" +
                     where(q, v));
  }
  return std::to_string(all.size()) + " configurations";
}

std::string rate_matches_integrate(Joint& joint) {
  const Sizes s = sizes(joint);
  const auto all = states(joint, s);
  for (const auto& [q, v] : all) {
    const Vector difference =
        (integrated(joint, q, v, kStep) - integrated(joint, q, v, -kStep)) / (2.0 * kStep);
    expect_close(
        difference, rate(joint, q, v), kDifferenceTolerance,
        "(integrate(q, v, h) − integrate(q, v, −h))/2h against configuration_rate()" + where(q, v));
    expect_close(integrated(joint, q, v, 0.0), q, 1e-14, "integrate(q, v, 0)" + where(q, v));
  }
  return std::to_string(all.size()) + " configurations";
}

std::string bias_matches_motion(Joint& joint) {
  const Sizes s = sizes(joint);
  const auto all = states(joint, s);
  for (const auto& [q, v] : all) {
    const Vector q_rate = rate(joint, q, v);
    const Vector6 plus = subspace(joint, normalized(joint, q + kStep * q_rate), s) * v;
    const Vector6 minus = subspace(joint, normalized(joint, q - kStep * q_rate), s) * v;
    Vector bias(6);
    joint.bias_acceleration(span(q), span(v), span(bias));
    expect_close(bias, (plus - minus) / (2.0 * kStep), kDifferenceTolerance,
                 "bias_acceleration() against d/dt (S(q)·v)" + where(q, v));
  }
  return std::to_string(all.size()) + " configurations";
}

std::string stays_on_manifold(Joint& joint) {
  const Sizes s = sizes(joint);
  std::mt19937_64 rng(977);
  std::uniform_real_distribution<double> unit(-2.0, 2.0);
  Vector q = neutral(joint, s), v(s.nv);
  for (int step = 0; step < 100; ++step) {
    for (int i = 0; i < s.nv; ++i) v[i] = unit(rng);
    q = integrated(joint, q, v, 0.5);
    expect_close(normalized(joint, q), q, kRigidTolerance,
                 "normalize() moved the result of integrate() (off the manifold) after " +
                     std::to_string(step + 1) + " steps" + where(q, v));
    expect_rigid(joint.transform(span(q)), where(q, v));
  }
  // Off the manifold by 1e-3 in every coordinate: normalize() must bring it back.
  Vector off = q + Vector::Constant(s.nq, 1e-3);
  joint.normalize(span(off));
  expect_close(normalized(joint, off), off, kRigidTolerance, "normalize() twice");
  expect_rigid(joint.transform(span(off)), " after normalize() of q + 1e-3" + where(q, v));
  return "100 steps";
}

std::string from_pose_inverts(Joint& joint) {
  const Sizes s = sizes(joint);
  const auto all = states(joint, s);
  for (const auto& [q, v] : all) {
    const Pose X = joint.transform(span(q));
    const Vector6 spatial = subspace(joint, q, s) * v;
    Vector q2 = Vector::Zero(s.nq), v2 = Vector::Zero(s.nv);
    if (!joint.from_pose(X, spatial.head<3>(), spatial.tail<3>(), span(q2), span(v2)))
      fail("from_pose() refused the pose and velocity of transform(q), S(q)·v" + where(q, v));
    const Pose X2 = joint.transform(span(q2));
    Vector pose(12), pose2(12);
    pose << X.p, X.R.reshaped();
    pose2 << X2.p, X2.R.reshaped();
    expect_close(pose2, pose, kFromPoseTolerance, "transform(from_pose(…)) [p; R]" + where(q, v));
    expect_close(subspace(joint, q2, s) * v2, spatial, kFromPoseTolerance,
                 "S·v of from_pose(…)" + where(q, v));
  }
  return std::to_string(all.size()) + " configurations";
}

std::string force_is_potential(Joint& joint) {
  const Sizes s = sizes(joint);
  const auto all = states(joint, s);
  for (const auto& [q, v] : all) {
    Vector tau = Vector::Constant(s.nv, std::nan("")), tau_moving = tau;
    joint.joint_force(0.0, span(q), span(v), span(tau_moving));
    if (!tau_moving.allFinite())
      fail("joint_force() = " + text(tau_moving) + " (nv finite values)" + where(q, v));
    const Vector zero = Vector::Zero(s.nv);
    joint.joint_force(0.0, span(q), span(zero), span(tau));
    const double energy = joint.potential_energy(span(q));
    if (!std::isfinite(energy)) fail("potential_energy() = " + number(energy) + where(q, v));
    Vector slope(s.nv);
    for (int i = 0; i < s.nv; ++i) {
      const Vector q_rate = rate(joint, q, Vector::Unit(s.nv, i));
      slope[i] = -(joint.potential_energy(span(normalized(joint, q + kStep * q_rate))) -
                   joint.potential_energy(span(normalized(joint, q - kStep * q_rate)))) /
                 (2.0 * kStep);
    }
    expect_close(
        tau, slope, kDifferenceTolerance,
        "joint_force() at v = 0 against −∂E/∂q along each velocity coordinate" + where(q, v));
  }
  return std::to_string(all.size()) + " configurations";
}

std::string drive_is_consistent(Joint& joint) {
  if (!joint.driven()) return "not driven";
  const Sizes s = sizes(joint);
  auto motion = [&](double t, Vector& q, Vector& v, Vector& a) {
    q = Vector::Zero(s.nq), v = Vector::Zero(s.nv), a = Vector::Zero(s.nv);
    joint.prescribed_motion(t, span(q), span(v), span(a));
  };
  for (const double t : {0.137, 0.391, 0.773, 1.61, 2.9}) {
    Vector q, v, a, q_plus, v_plus, a_plus, q_minus, v_minus, a_minus;
    motion(t, q, v, a);
    motion(t + kStep, q_plus, v_plus, a_plus);
    motion(t - kStep, q_minus, v_minus, a_minus);
    expect_close(
        (q_plus - q_minus) / (2.0 * kStep), rate(joint, q, v), kDifferenceTolerance,
        "dq/dt of prescribed_motion() against configuration_rate(q, v) at t = " + number(t) + " s");
    expect_close((v_plus - v_minus) / (2.0 * kStep), a, kDifferenceTolerance,
                 "dv/dt of prescribed_motion() against its v̇ at t = " + number(t) + " s");
  }
  return "5 times";
}

std::string no_allocation(Joint& joint) {
  if (!conformance::allocations_countable())
    return "skipped: this build cannot count allocations (sanitizer)";
  const Sizes s = sizes(joint);
  const auto all = states(joint, s);
  Vector q_out(s.nq), q_rate(s.nq), tau(s.nv), bias(6), a(s.nv), v_drive(s.nv), q_drive(s.nq);
  Matrix6X S(6, s.nv);
  double sum = 0.0;
  auto pass = [&](const Vector& q, const Vector& v) {
    sum += joint.transform(span(q)).p.sum();
    joint.motion_subspace(span(q), std::span<double>(S.data(), 6 * static_cast<std::size_t>(s.nv)));
    joint.bias_acceleration(span(q), span(v), span(bias));
    joint.configuration_rate(span(q), span(v), span(q_rate));
    joint.integrate(span(q), span(v), 0.01, span(q_out));
    joint.normalize(span(q_out));
    joint.joint_force(0.5, span(q), span(v), span(tau));
    sum += joint.potential_energy(span(q));
    if (joint.driven()) joint.prescribed_motion(0.5, span(q_drive), span(v_drive), span(a));
  };
  for (const auto& [q, v] : all) {
    pass(q, v);
    conformance::begin_counting_allocations();
    pass(q, v);
    const long allocations = conformance::end_counting_allocations();
    if (allocations != 0)
      fail(std::to_string(allocations) + " heap allocations in one call of each hot call" +
           where(q, v));
  }
  return std::to_string(all.size()) + " configurations (checksum " + number(sum) + ")";
}

std::string deterministic(const conformance::Factory<Joint>& make) {
  const std::shared_ptr<Joint> first = make(), second = make();
  const Sizes s = sizes(*first);
  auto answers = [&](const Joint& joint, const Vector& q, const Vector& v) {
    const Pose X = joint.transform(span(q));
    Vector out(12 + 6 * s.nv + 6 + s.nq);
    out << X.p, X.R.reshaped(), subspace(joint, q, s).reshaped(), Vector::Zero(6),
        integrated(joint, q, v, 0.3);
    joint.bias_acceleration(span(q), span(v), std::span<double>(out.data() + 12 + 6 * s.nv, 6));
    return out;
  };
  const auto all = states(*first, s);
  for (const auto& [q, v] : all) {
    const Vector a = answers(*first, q, v), b = answers(*first, q, v), c = answers(*second, q, v);
    if (std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) != 0 ||
        std::memcmp(a.data(), c.data(), sizeof(double) * a.size()) != 0)
      fail("transform, S, bias or integrate differ between two calls or two instances" +
           where(q, v));
  }
  return std::to_string(all.size()) + " configurations";
}

conformance::Check<Joint> on_one(std::string id, std::string name, std::string (*run)(Joint&)) {
  return {std::move(id), std::move(name),
          [run](const conformance::Factory<Joint>& make) { return run(*make()); }};
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<conformance::Check<Joint>> checks = {
      on_one("neutral", "nq, nv consistent; the neutral configuration is the identity (1e-12)",
             neutral_is_identity),
      on_one("rigid", "transform() rigid (1e-12); S(q) of full rank", rigid_and_full_rank),
      on_one("subspace", "S(q)·v = the child's velocity by differences of transform() (1e-6)",
             subspace_matches_motion),
      on_one("rate", "configuration_rate() = the derivative of integrate() (1e-6)",
             rate_matches_integrate),
      on_one("bias", "bias_acceleration() = d/dt (S(q)·v) (1e-6)", bias_matches_motion),
      on_one("manifold", "integrate() and normalize() stay on the manifold (1e-12)",
             stays_on_manifold),
      on_one("from-pose", "from_pose() inverts transform() and S (1e-9)", from_pose_inverts),
      on_one("potential", "joint_force() at rest is −∂E/∂q (1e-6)", force_is_potential),
      on_one("drive", "a driven joint's v and v̇ are the derivatives of its q and v (1e-6)",
             drive_is_consistent),
      on_one("allocation", "no allocation in the hot calls", no_allocation),
      {"determinism", "deterministic: the same bits twice and on another instance", deterministic},
  };
  return conformance::run_suite(argc, argv, checks);
}
