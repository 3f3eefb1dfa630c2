// Multibody dynamics cost (Google Benchmark): ns per call of MultibodyTree::forward_dynamics (the
// articulated-body algorithm, O(n)) on seeded random revolute chains of 10, 100 and 1000 links,
// next to the mass-matrix route (CRBA + RNEA bias forces + Cholesky solve, O(n²) + O(n³)) and the
// RNEA inverse dynamics alone. Every benchmark reports `per_link` (time per call / links) and
// `allocs` (operator new calls per call, which must be 0 except in the Eigen LLT of the matrix
// route, whose workspace is preallocated too).
//
// Usage: build/bin/bench_multibody [Google Benchmark flags, e.g. --benchmark_repetitions=5]
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>
#include <Eigen/Cholesky>

#include "contactlab/core/multibody.hpp"

namespace {
std::atomic<long> allocation_count{0};
}  // namespace

// Every operator new in the process is counted (benchmark bookkeeping included, which is why the
// count is taken only around the timed calls).
void* operator new(std::size_t size) {
  ++allocation_count;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  ++allocation_count;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop

namespace {

using contactlab::Joint;
using contactlab::Mat3;
using contactlab::Pose;
using contactlab::Vec3;
using contactlab::core::MassProperties;
using contactlab::core::MultibodyBody;
using contactlab::core::MultibodyTree;

/// Rotation by q about a unit axis (S = [0; a] in the joint frame, no bias).
class RevoluteJoint final : public Joint {
 public:
  explicit RevoluteJoint(const Vec3& axis) : axis_(axis.normalized()) {}
  int nq() const override { return 1; }
  int nv() const override { return 1; }
  void neutral_configuration(std::span<double> q) const override { q[0] = 0.0; }
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
  void configuration_rate(std::span<const double>, std::span<const double> v,
                          std::span<double> q_rate) const override {
    q_rate[0] = v[0];
  }
  void integrate(std::span<const double> q, std::span<const double> v, double dt,
                 std::span<double> q_out) const override {
    q_out[0] = q[0] + v[0] * dt;
  }
  void normalize(std::span<double>) const override {}
  bool from_pose(const Pose&, const Vec3&, const Vec3&, std::span<double>,
                 std::span<double>) const override {
    return false;
  }

 private:
  Vec3 axis_;
};

/// A seeded random chain of n revolute links (as in tests/unit/test_multibody.cpp) and a state.
struct Chain {
  std::unique_ptr<MultibodyTree> tree;
  Eigen::VectorXd q, v, tau;
};

Chain make_chain(int n) {
  std::mt19937_64 rng(1000 + static_cast<unsigned>(n));
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::normal_distribution<double> gaussian(0.0, 1.0);
  auto vec = [&](double s) { return Vec3(s * unit(rng), s * unit(rng), s * unit(rng)); };
  auto rot = [&] {
    return Eigen::Quaterniond(gaussian(rng), gaussian(rng), gaussian(rng), gaussian(rng))
        .normalized()
        .toRotationMatrix();
  };
  std::vector<MultibodyBody> bodies;
  for (int i = 0; i < n; ++i) {
    MultibodyBody body;
    body.parent = i - 1;
    body.joint = std::make_shared<RevoluteJoint>(vec(1.0).normalized());
    body.X_PJ = Pose{rot(), vec(0.5)};
    body.mass.mass_kg = 1.0 + 0.5 * unit(rng);
    body.mass.p_BCm = vec(0.2);
    const Mat3 R = rot();
    body.mass.inertia_Cm_B =
        R *
        Vec3(0.075 + 0.02 * unit(rng), 0.075 + 0.02 * unit(rng), 0.075 + 0.02 * unit(rng))
            .asDiagonal() *
        R.transpose();
    bodies.push_back(std::move(body));
  }
  Chain chain;
  chain.tree = std::make_unique<MultibodyTree>(std::move(bodies));
  chain.q = Eigen::VectorXd::NullaryExpr(n, [&] { return 1.5 * unit(rng); });
  chain.v = Eigen::VectorXd::NullaryExpr(n, [&] { return unit(rng); });
  chain.tau = Eigen::VectorXd::NullaryExpr(n, [&] { return 5.0 * unit(rng); });
  return chain;
}

std::span<double> span_of(Eigen::VectorXd& x) {
  return {x.data(), static_cast<std::size_t>(x.size())};
}

const Vec3 kGravity(0.0, 0.0, -9.81);

void report(benchmark::State& state, int n, long allocations) {
  state.counters["per_link"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
  state.counters["allocs"] =
      benchmark::Counter(static_cast<double>(allocations), benchmark::Counter::kAvgIterations);
}

void BM_ForwardDynamicsABA(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Chain chain = make_chain(n);
  Eigen::VectorXd v_dot(n);
  long allocations = 0;
  for (auto _ : state) {
    const long before = allocation_count.load();
    chain.tree->forward_dynamics(span_of(chain.q), span_of(chain.v), span_of(chain.tau), kGravity,
                                 {}, span_of(v_dot));
    allocations += allocation_count.load() - before;
    benchmark::DoNotOptimize(v_dot.data());
    benchmark::ClobberMemory();
  }
  report(state, n, allocations);
}

void BM_InverseDynamicsRNEA(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Chain chain = make_chain(n);
  Eigen::VectorXd tau(n);
  long allocations = 0;
  for (auto _ : state) {
    const long before = allocation_count.load();
    chain.tree->inverse_dynamics(span_of(chain.q), span_of(chain.v), span_of(chain.v), kGravity, {},
                                 span_of(tau));
    allocations += allocation_count.load() - before;
    benchmark::DoNotOptimize(tau.data());
    benchmark::ClobberMemory();
  }
  report(state, n, allocations);
}

void BM_CrbaCholesky(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Chain chain = make_chain(n);
  Eigen::MatrixXd M(n, n);
  Eigen::VectorXd c(n), v_dot(n);
  Eigen::LLT<Eigen::MatrixXd> llt(n);
  long allocations = 0;
  for (auto _ : state) {
    const long before = allocation_count.load();
    chain.tree->mass_matrix(span_of(chain.q), M);
    chain.tree->bias_forces(span_of(chain.q), span_of(chain.v), kGravity, {}, span_of(c));
    llt.compute(M);
    v_dot = chain.tau - c;
    llt.solveInPlace(v_dot);
    allocations += allocation_count.load() - before;
    benchmark::DoNotOptimize(v_dot.data());
    benchmark::ClobberMemory();
  }
  report(state, n, allocations);
}

void BM_MassMatrixCRBA(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Chain chain = make_chain(n);
  Eigen::MatrixXd M(n, n);
  long allocations = 0;
  for (auto _ : state) {
    const long before = allocation_count.load();
    chain.tree->mass_matrix(span_of(chain.q), M);
    allocations += allocation_count.load() - before;
    benchmark::DoNotOptimize(M.data());
    benchmark::ClobberMemory();
  }
  report(state, n, allocations);
}

}  // namespace

BENCHMARK(BM_ForwardDynamicsABA)->Arg(10)->Arg(100)->Arg(1000);
BENCHMARK(BM_InverseDynamicsRNEA)->Arg(10)->Arg(100)->Arg(1000);
BENCHMARK(BM_MassMatrixCRBA)->Arg(10)->Arg(100)->Arg(1000);
BENCHMARK(BM_CrbaCholesky)->Arg(10)->Arg(100)->Arg(1000);

BENCHMARK_MAIN();
