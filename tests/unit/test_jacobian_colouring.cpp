// Sparse Jacobians by coloured finite differences (integrator-sundials, linear_solver: sparse):
// the structure built from an OdeView's StateCoupling, the greedy distance-2 column colouring
// (checked independently on random patterns, and its colour count on chains and grids of growing
// size), the coloured Jacobian against the analytic one of a nonlinear spring chain, and cvode /
// arkode with the sparse solver against their dense solver on that chain.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include "arkode_integrator.hpp"
#include "cvode_integrator.hpp"
#include "jacobian_colouring.hpp"
#include "sundials_common.hpp"

#include "support/allocation_counter.hpp"
#include "support/skip.hpp"
#include "support/work_figures.hpp"

using contactlab::IntegrationResult;
using contactlab::IntegrationStatus;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::StateCoupling;
using contactlab::StepAction;
using contactlab::plugins::Arkode;
using contactlab::plugins::colour_columns;
using contactlab::plugins::Cvode;
using contactlab::plugins::pattern_from_coupling;
using contactlab::plugins::SparsityPattern;

namespace {

/// Independent check of a colouring: within every row, the columns that have an entry there
/// carry distinct colours, and every colour is in [0, colours).
bool colouring_is_valid(const SparsityPattern& pattern, const std::vector<std::int32_t>& colour,
                        std::size_t colours) {
  std::map<std::int64_t, std::set<std::int32_t>> colours_of_row;
  std::map<std::int64_t, std::size_t> entries_of_row;
  for (std::size_t j = 0; j < pattern.n; ++j) {
    if (colour[j] < 0 || static_cast<std::size_t>(colour[j]) >= colours) return false;
    for (auto p = pattern.column_start[j]; p < pattern.column_start[j + 1]; ++p) {
      colours_of_row[pattern.row_index[p]].insert(colour[j]);
      ++entries_of_row[pattern.row_index[p]];
    }
  }
  for (const auto& [row, set] : colours_of_row)
    if (set.size() != entries_of_row[row]) return false;
  return true;
}

/// Blocks of `block_size` states each; block b depends on the blocks in neighbours[b].
StateCoupling coupling_of(std::size_t block_size,
                          const std::vector<std::vector<std::uint32_t>>& neighbours) {
  StateCoupling coupling;
  coupling.dependency_offsets.push_back(0);
  for (std::size_t b = 0; b < neighbours.size(); ++b) {
    for (std::size_t k = 0; k < block_size; ++k)
      coupling.block_of_state.push_back(static_cast<std::uint32_t>(b));
    coupling.dependencies.insert(coupling.dependencies.end(), neighbours[b].begin(),
                                 neighbours[b].end());
    coupling.dependency_offsets.push_back(static_cast<std::uint32_t>(coupling.dependencies.size()));
  }
  return coupling;
}

/// A row of n bodies, each touching the next.
std::vector<std::vector<std::uint32_t>> chain(std::size_t n) {
  std::vector<std::vector<std::uint32_t>> neighbours(n);
  for (std::size_t b = 0; b + 1 < n; ++b) {
    neighbours[b].push_back(static_cast<std::uint32_t>(b + 1));
    neighbours[b + 1].push_back(static_cast<std::uint32_t>(b));
  }
  return neighbours;
}

/// An m×m grid of bodies, each touching its four neighbours.
std::vector<std::vector<std::uint32_t>> grid(std::size_t m) {
  std::vector<std::vector<std::uint32_t>> neighbours(m * m);
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t c = 0; c < m; ++c) {
      const auto b = static_cast<std::uint32_t>(r * m + c);
      if (c + 1 < m) {
        neighbours[b].push_back(b + 1);
        neighbours[b + 1].push_back(b);
      }
      if (r + 1 < m) {
        neighbours[b].push_back(static_cast<std::uint32_t>(b + m));
        neighbours[b + m].push_back(b);
      }
    }
  return neighbours;
}

/// m masses on a line, y = [x; v]: ẋ_i = v_i, v̇_i = −x_i³ − c·v_i + Σ_links k·sin(x_j − x_i),
/// the links i–(i+1) and, once the ring is closed (at the first accepted step t_r ≥ ring_from_s),
/// (m−1)–0 with k·min(1, t − t_r): it starts from zero, as a contact born at zero penetration, so
/// that f stays continuous. Block i holds x_i and v_i.
class SpringChain final : public contactlab::OdeView {
 public:
  explicit SpringChain(std::size_t masses) : m_(masses) {}
  std::size_t configuration_size() const override { return m_; }
  std::size_t velocity_size() const override { return m_; }
  std::size_t state_size() const override { return 2 * m_; }
  std::size_t event_count() const override { return 0; }
  void event_values(double, std::span<const double>, std::span<double>) override {}
  void derivative(double t, std::span<const double> y, std::span<double> rate) override {
    ++derivative_calls;
    for (std::size_t i = 0; i < m_; ++i) {
      rate[i] = y[m_ + i];
      rate[m_ + i] = -y[i] * y[i] * y[i] - damping * y[m_ + i];
    }
    for_each_link(t, [&](std::size_t i, std::size_t j, double k) {
      const double s = k * std::sin(y[j] - y[i]);
      rate[m_ + i] += s;
      rate[m_ + j] -= s;
    });
  }
  void integrate_configuration(std::span<const double>, std::span<const double>, double,
                               std::span<double>) override {}
  void project(std::span<double>) override {}
  StepAction step_completed(double t, std::span<const double>) override {
    if (!ring && t >= ring_from_s) close_ring(t);
    return StepAction::proceed;
  }
  /// A new coupling without a restart, as a contact born at a step: bumps the revision.
  void close_ring(double start_s) {
    ring = true;
    ring_start_s = start_s;
    ++revision_;
  }
  void output(double, std::span<const double>) override {}
  void state_coupling(StateCoupling& coupling) const override {
    std::vector<std::vector<std::uint32_t>> neighbours(m_);
    for_each_link(0.0, [&](std::size_t i, std::size_t j, double) {
      neighbours[i].push_back(static_cast<std::uint32_t>(j));
      neighbours[j].push_back(static_cast<std::uint32_t>(i));
    });
    coupling = coupling_of(1, neighbours);
    coupling.block_of_state.resize(2 * m_);
    for (std::size_t i = 0; i < m_; ++i)
      coupling.block_of_state[m_ + i] = static_cast<std::uint32_t>(i);
  }
  std::uint64_t state_coupling_revision() const override { return revision_; }

  /// ∂f/∂y at (t, y), dense, row-major (closed form).
  std::vector<double> analytic_jacobian(double t, std::span<const double> y) const {
    const std::size_t n = 2 * m_;
    std::vector<double> J(n * n, 0.0);
    for (std::size_t i = 0; i < m_; ++i) {
      J[i * n + m_ + i] = 1.0;
      J[(m_ + i) * n + i] = -3.0 * y[i] * y[i];
      J[(m_ + i) * n + m_ + i] = -damping;
    }
    for_each_link(t, [&](std::size_t i, std::size_t j, double k) {
      const double c = k * std::cos(y[j] - y[i]);
      J[(m_ + i) * n + j] += c;
      J[(m_ + i) * n + i] -= c;
      J[(m_ + j) * n + j] -= c;
      J[(m_ + j) * n + i] += c;
    });
    return J;
  }

  std::vector<double> initial_state() const {
    std::vector<double> y(2 * m_, 0.0);
    for (std::size_t i = 0; i < m_; ++i) y[i] = 0.5 * std::sin(1.3 * static_cast<double>(i) + 0.2);
    return y;
  }
  /// A state with every |y_j| ≥ 0.2 (x and v), where the increments are √u·|y_j|.
  std::vector<double> busy_state() const {
    std::vector<double> y(2 * m_, 0.0);
    for (std::size_t i = 0; i < 2 * m_; ++i)
      y[i] = (i % 2 ? -1.0 : 1.0) * (0.2 + 0.3 * std::abs(std::sin(0.7 * static_cast<double>(i))));
    return y;
  }

  double stiffness = 20.0, damping = 0.5;
  bool ring = false;
  double ring_from_s = 1e300, ring_start_s = 0.0;
  std::int64_t derivative_calls = 0;

 private:
  template <class F>
  void for_each_link(double t, F&& f) const {
    for (std::size_t i = 0; i + 1 < m_; ++i) f(i, i + 1, stiffness);
    if (ring && m_ > 2) f(m_ - 1, 0, stiffness * std::clamp(t - ring_start_s, 0.0, 1.0));
  }
  std::size_t m_;
  std::uint64_t revision_ = 0;
};

/// Evaluates the coloured Jacobian of `ode` at y through the SUNDIALS callback, with constant
/// error weights w and step h, into a fresh CSC matrix; returns it dense, row-major.
struct JacobianHarness {
  SUNContext context = nullptr;
  N_Vector y = nullptr, fy = nullptr, tmp[3] = {nullptr, nullptr, nullptr};
  SUNMatrix matrix = nullptr;
  SUNLinearSolver klu = nullptr;
  contactlab::plugins::sundials_detail::ColouredJacobian jacobian;
  std::unique_ptr<contactlab::plugins::sundials_detail::OdeBridge> bridge;
  std::size_t n;

  static constexpr double weight = 1e6;  // 1/(rtol·|y| + atol) with a tolerance of 1e-6
  static constexpr double h = 1e-3;
  static int weights(void* /*solver*/, N_Vector w) {
    N_VConst(weight, w);
    return 0;
  }
  static int step(void* /*solver*/, double* h_out) {
    *h_out = h;
    return 0;
  }

  explicit JacobianHarness(contactlab::OdeView& ode) : n(ode.state_size()) {
    SUNContext_Create(nullptr, &context);
    const auto length = static_cast<sunindextype>(n);
    y = N_VNew_Serial(length, context);
    fy = N_VNew_Serial(length, context);
    for (N_Vector& v : tmp) v = N_VNew_Serial(length, context);
    matrix = SUNSparseMatrix(length, length, length, CSC_MAT, context);
    klu = SUNLinSol_KLU(y, matrix, context);
    bridge = std::make_unique<contactlab::plugins::sundials_detail::OdeBridge>(ode);
    bridge->jacobian = &jacobian;
    jacobian.attach(nullptr, weights, step, klu, y);
  }
  ~JacobianHarness() {
    jacobian.release();
    SUNLinSolFree(klu);
    SUNMatDestroy(matrix);
    for (N_Vector v : tmp) N_VDestroy(v);
    N_VDestroy(fy);
    N_VDestroy(y);
    SUNContext_Free(&context);
  }

  std::vector<double> evaluate(contactlab::OdeView& ode, std::span<const double> state) {
    std::copy(state.begin(), state.end(), N_VGetArrayPointer(y));
    ode.derivative(0.0, state, std::span<double>(N_VGetArrayPointer(fy), n));
    SUNMatZero(matrix);  // as CVODE does before calling the Jacobian function
    const int flag = contactlab::plugins::sundials_detail::ColouredJacobian::evaluate(
        0.0, y, fy, matrix, bridge.get(), tmp[0], tmp[1], tmp[2]);
    REQUIRE(flag == 0);
    std::vector<double> dense(n * n, 0.0);
    const sunindextype* start = SUNSparseMatrix_IndexPointers(matrix);
    const sunindextype* rows = SUNSparseMatrix_IndexValues(matrix);
    const double* data = SUNSparseMatrix_Data(matrix);
    for (std::size_t j = 0; j < n; ++j)
      for (auto p = start[j]; p < start[j + 1]; ++p)
        dense[static_cast<std::size_t>(rows[p]) * n + j] = data[p];
    return dense;
  }
};

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

double largest_magnitude(const std::vector<double>& a) {
  double largest = 0.0;
  for (double v : a) largest = std::max(largest, std::abs(v));
  return largest;
}

}  // namespace

TEST_CASE(
    "jacobian colouring: on random patterns (n up to 300, seeded) no two columns of one colour "
    "share a row, checked row by row") {
  std::mt19937 random(20250601u);
  for (std::size_t n : {1u, 2u, 7u, 40u, 300u}) {
    for (double density : {0.01, 0.1, 0.5}) {
      SparsityPattern pattern;
      pattern.n = n;
      pattern.column_start.push_back(0);
      std::uniform_real_distribution<double> uniform(0.0, 1.0);
      for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t i = 0; i < n; ++i)
          if (i == j || uniform(random) < density)
            pattern.row_index.push_back(static_cast<std::int64_t>(i));
        pattern.column_start.push_back(static_cast<std::int64_t>(pattern.row_index.size()));
      }
      std::vector<std::int32_t> colour;
      const std::size_t colours = colour_columns(pattern, colour);
      INFO("n = " << n << ", density = " << density << ", colours = " << colours);
      CHECK(colour.size() == n);
      CHECK(colours <= n);
      CHECK(colouring_is_valid(pattern, colour, colours));
    }
  }
}

TEST_CASE(
    "jacobian colouring: a diagonal pattern needs one colour, a full one n colours, a chain of "
    "13-state bodies 39 (3 bodies, distance 2 on a path)") {
  std::vector<std::int32_t> colour;
  SparsityPattern diagonal = pattern_from_coupling(coupling_of(1, {{}, {}, {}, {}, {}}), 5);
  CHECK(colour_columns(diagonal, colour) == 1);
  StateCoupling full;
  full.set_dense(6);
  CHECK(colour_columns(pattern_from_coupling(full, 6), colour) == 6);
  // Bodies b and b' conflict iff |b − b'| ≤ 2 (they share the rows of a body between them), so a
  // path needs 3 body colours; greedy in order reaches 3 (b gets b mod 3).
  CHECK(colour_columns(pattern_from_coupling(coupling_of(13, chain(10)), 130), colour) == 39);
}

TEST_CASE(
    "jacobian colouring: the colour count stays the same for 10, 100 and 1000 bodies in a row "
    "and for 10×10, 20×20 and 40×40 grids of touching bodies (13 states each)") {
  std::vector<std::int32_t> colour;
  std::vector<std::size_t> chain_colours, grid_colours;
  for (std::size_t n : {10u, 100u, 1000u}) {
    const SparsityPattern pattern = pattern_from_coupling(coupling_of(13, chain(n)), 13 * n);
    const std::size_t colours = colour_columns(pattern, colour);
    CHECK(colouring_is_valid(pattern, colour, colours));
    chain_colours.push_back(colours);
  }
  for (std::size_t m : {10u, 20u, 40u}) {
    const SparsityPattern pattern = pattern_from_coupling(coupling_of(13, grid(m)), 13 * m * m);
    const std::size_t colours = colour_columns(pattern, colour);
    CHECK(colouring_is_valid(pattern, colour, colours));
    grid_colours.push_back(colours);
  }
  INFO("chain colours " << chain_colours[0] << ", grid colours " << grid_colours[0]);
  CHECK(chain_colours[0] == chain_colours[1]);
  CHECK(chain_colours[1] == chain_colours[2]);
  CHECK(grid_colours[0] == grid_colours[1]);
  CHECK(grid_colours[1] == grid_colours[2]);
  // Distance-2 neighbourhood of a grid body: 12 others, so at most 13 body colours.
  CHECK(grid_colours[2] <= 13 * 13);
}

TEST_CASE(
    "jacobian colouring: the structure of a coupling is exactly the entries whose column's block "
    "is the row's block or one of its dependencies (random couplings, seeded)") {
  std::mt19937 random(7u);
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t blocks = 1 + random() % 12, n = 1 + random() % 40;
    StateCoupling coupling;
    for (std::size_t i = 0; i < n; ++i)
      coupling.block_of_state.push_back(static_cast<std::uint32_t>(random() % blocks));
    coupling.dependency_offsets.push_back(0);
    std::vector<std::set<std::uint32_t>> depends(blocks);
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t count = random() % 4;
      for (std::size_t k = 0; k < count; ++k) {
        const auto d = static_cast<std::uint32_t>(random() % blocks);
        coupling.dependencies.push_back(d);  // duplicates and self allowed
        depends[b].insert(d);
      }
      depends[b].insert(static_cast<std::uint32_t>(b));
      coupling.dependency_offsets.push_back(
          static_cast<std::uint32_t>(coupling.dependencies.size()));
    }
    const SparsityPattern pattern = pattern_from_coupling(coupling, n);
    std::set<std::pair<std::int64_t, std::size_t>> entries;
    for (std::size_t j = 0; j < n; ++j) {
      CHECK(std::is_sorted(pattern.row_index.begin() + pattern.column_start[j],
                           pattern.row_index.begin() + pattern.column_start[j + 1]));
      for (auto p = pattern.column_start[j]; p < pattern.column_start[j + 1]; ++p)
        entries.insert({pattern.row_index[p], j});
    }
    CHECK(entries.size() == pattern.nonzeros());  // no duplicates
    std::size_t expected = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (depends[coupling.block_of_state[i]].count(coupling.block_of_state[j])) {
          ++expected;
          CHECK(entries.count({static_cast<std::int64_t>(i), j}) == 1);
        }
    CHECK(expected == pattern.nonzeros());
  }
}

TEST_CASE(
    "jacobian colouring: a coupling that does not describe the states is refused, naming what is "
    "wrong") {
  StateCoupling coupling;
  coupling.set_dense(4);
  CHECK_THROWS_WITH(pattern_from_coupling(coupling, 5), Catch::Contains("4 entries for 5 states"));
  coupling.block_of_state[2] = 3;
  CHECK_THROWS_WITH(pattern_from_coupling(coupling, 4), Catch::Contains("state 2 is in block 3"));
  coupling.set_dense(4);
  coupling.dependencies = {9};
  coupling.dependency_offsets = {0, 1};
  CHECK_THROWS_WITH(pattern_from_coupling(coupling, 4), Catch::Contains("block 9 of 1"));
}

/// The dense forward-difference Jacobian, one column at a time, with the increments the coloured
/// Jacobian documents: δ_j = max(√u·|y_j|, δ_min/w_j), δ_min = 1000·|h|·u·n·‖f‖_WRMS (row-major).
std::vector<double> dense_difference_quotients(contactlab::OdeView& ode, std::vector<double> y,
                                               double weight, double h) {
  const std::size_t n = y.size();
  std::vector<double> f(n), f_plus(n), J(n * n);
  ode.derivative(0.0, y, f);
  double sum = 0.0;
  for (double v : f) sum += (v * weight) * (v * weight);
  const double f_norm = std::sqrt(sum / static_cast<double>(n));
  const double u = std::numeric_limits<double>::epsilon();
  const double min_increment = 1000.0 * h * u * static_cast<double>(n) * f_norm;
  for (std::size_t j = 0; j < n; ++j) {
    const double y_j = y[j];
    y[j] += std::max(std::sqrt(u) * std::abs(y_j), min_increment / weight);
    const double increment = y[j] - y_j;
    ode.derivative(0.0, y, f_plus);
    for (std::size_t i = 0; i < n; ++i) J[i * n + j] = (f_plus[i] - f[i]) / increment;
    y[j] = y_j;
  }
  return J;
}

TEST_CASE(
    "coloured jacobian: on a nonlinear 12-mass spring chain it equals the column-by-column "
    "difference quotients within 1e-12 of the largest entry and the analytic Jacobian within "
    "1e-6, with 6 f evaluations (3 masses × 2 states), and again after the chain closes into a "
    "ring (new structure, more nonzeros)") {
  SpringChain chain(12);
  JacobianHarness harness(chain);
  const std::vector<double> y = chain.busy_state();
  for (int shape = 0; shape < 2; ++shape) {
    INFO((shape == 0 ? "chain" : "ring"));
    const std::int64_t calls = chain.derivative_calls;
    const std::vector<double> coloured = harness.evaluate(chain, y);
    CHECK(chain.derivative_calls - calls == 1 + 6);  // f(y) in evaluate(), then one per colour
    const std::vector<double> analytic = chain.analytic_jacobian(0.0, y);
    const std::vector<double> columns =
        dense_difference_quotients(chain, y, JacobianHarness::weight, JacobianHarness::h);
    const double scale = largest_magnitude(analytic);
    CHECK(largest_difference(coloured, columns) < 1e-12 * scale);
    CHECK(largest_difference(coloured, analytic) < 1e-6 * scale);
    // Columns of mass i (x_i, v_i) have the rows of mass i and of its neighbours, 2 states each:
    // in the chain the two end masses 2 × 2 = 4 rows and the 10 inner ones 3 × 2 = 6; in the
    // ring every mass 6.
    const sunindextype nonzeros = SUNSparseMatrix_IndexPointers(harness.matrix)[24];
    CHECK(nonzeros == (shape == 0 ? 2 * 2 * 4 + 10 * 2 * 6 : 12 * 2 * 6));
    chain.close_ring(-1.0);  // the ring's link at full stiffness at t = 0
  }
}

namespace {

struct ChainRun {
  IntegrationResult result;
  std::vector<double> y;
  contactlab::plugins::SundialsStatistics statistics;
};

template <class Integrator>
ChainRun run_chain(std::size_t masses, const std::string& method, const std::string& solver,
                   double ring_from_s = 1e300, const std::string& preconditioner = "none",
                   double stiffness = 1e4, double damping = 1e3) {
  std::map<std::string, ParameterValue> overrides = {{"method", method},
                                                     {"linear_solver", solver},
                                                     {"krylov_preconditioner", preconditioner},
                                                     {"rtol", 1e-9},
                                                     {"atol", 1e-11}};
  Integrator integrator(ParameterValues::defaults(Integrator::schema(), overrides));
  SpringChain chain(masses);
  chain.ring_from_s = ring_from_s;
  chain.stiffness = stiffness;
  chain.damping = damping;
  ChainRun run;
  run.y = chain.initial_state();
  run.result = integrator.integrate(chain, 0.0, 2.0, 0.0, run.y);
  run.statistics = integrator.statistics();
  return run;
}

}  // namespace

TEST_CASE(
    "cvode bdf linear_solver sparse: the stiff 12-mass chain (k = 1e4, c = 1e3, closing into a "
    "ring at t = 1 s without a restart) matches linear_solver dense within 1e-6 at rtol 1e-9, "
    "one f per colour per Jacobian") {
  const ChainRun dense = run_chain<Cvode>(12, "bdf", "dense", 1.0);
  const ChainRun sparse = run_chain<Cvode>(12, "bdf", "sparse", 1.0);
  INFO(dense.result.message << " | " << sparse.result.message);
  REQUIRE(dense.result.status == IntegrationStatus::completed);
  REQUIRE(sparse.result.status == IntegrationStatus::completed);
  CHECK(largest_difference(dense.y, sparse.y) < 1e-6);
  CHECK(sparse.statistics.jacobian_structure_builds == 2);  // the chain, then the ring
  CHECK(sparse.statistics.jacobian_colours == 6);
  CHECK(sparse.statistics.jacobian_evaluations > 0);
  CHECK(sparse.statistics.jacobian_rhs_evaluations == 6 * sparse.statistics.jacobian_evaluations);
  CHECK(sparse.result.jacobian_evaluations == sparse.statistics.jacobian_evaluations);
  // rhs_evaluations counts every f call, the Jacobians' included.
  CHECK(sparse.result.rhs_evaluations ==
        sparse.statistics.integrator_rhs_evaluations + sparse.statistics.jacobian_rhs_evaluations);
  CHECK(sparse.result.jacobian_rhs_evaluations == sparse.statistics.jacobian_rhs_evaluations);
  CHECK(dense.statistics.jacobian_rhs_evaluations == 24 * dense.statistics.jacobian_evaluations);
  CHECK(dense.result.jacobian_rhs_evaluations == dense.statistics.jacobian_rhs_evaluations);
  CHECK(dense.statistics.linear_solver_rhs_evaluations ==
        24 * dense.statistics.jacobian_evaluations);
}

TEST_CASE(
    "cvode bdf linear_solver sparse: the f evaluations per Jacobian are the same (6) for stiff "
    "chains of 10 and 100 masses") {
  const ChainRun small = run_chain<Cvode>(10, "bdf", "sparse");
  const ChainRun large = run_chain<Cvode>(100, "bdf", "sparse");
  REQUIRE(small.result.status == IntegrationStatus::completed);
  REQUIRE(large.result.status == IntegrationStatus::completed);
  REQUIRE(small.statistics.jacobian_evaluations > 0);
  REQUIRE(large.statistics.jacobian_evaluations > 0);
  CHECK(small.statistics.jacobian_rhs_evaluations == 6 * small.statistics.jacobian_evaluations);
  CHECK(large.statistics.jacobian_rhs_evaluations == 6 * large.statistics.jacobian_evaluations);
}

TEST_CASE(
    "arkode dirk linear_solver sparse: the stiff 12-mass chain (k = 1e4, c = 1e3, ring from "
    "t = 1 s) matches linear_solver dense within 1e-6 at rtol 1e-9") {
  const ChainRun dense = run_chain<Arkode>(12, "dirk", "dense", 1.0);
  const ChainRun sparse = run_chain<Arkode>(12, "dirk", "sparse", 1.0);
  REQUIRE(dense.result.status == IntegrationStatus::completed);
  REQUIRE(sparse.result.status == IntegrationStatus::completed);
  CHECK(largest_difference(dense.y, sparse.y) < 1e-6);
  CHECK(sparse.statistics.jacobian_colours == 6);
  CHECK(sparse.statistics.jacobian_rhs_evaluations == 6 * sparse.statistics.jacobian_evaluations);
}

TEST_CASE(
    "cvode bdf krylov with krylov_preconditioner coloured: the stiff 12-mass chain (k = 1e4, c = "
    "1e3, ring from t = 1 s) matches linear_solver dense within 1e-6 at rtol 1e-9, 6 f per "
    "preconditioner Jacobian",
    "[budget]") {
  const ChainRun dense = run_chain<Cvode>(12, "bdf", "dense", 1.0);
  const ChainRun plain = run_chain<Cvode>(12, "bdf", "krylov", 1.0);
  const ChainRun preconditioned = run_chain<Cvode>(12, "bdf", "krylov", 1.0, "coloured");
  INFO(dense.result.message << " | " << plain.result.message << " | "
                            << preconditioned.result.message);
  REQUIRE(dense.result.status == IntegrationStatus::completed);
  REQUIRE(plain.result.status == IntegrationStatus::completed);
  REQUIRE(preconditioned.result.status == IntegrationStatus::completed);
  INFO("linear iterations: plain "
       << plain.statistics.linear_iterations << ", preconditioned "
       << preconditioned.statistics.linear_iterations << "; Newton iterations "
       << plain.statistics.nonlinear_iterations << ", "
       << preconditioned.statistics.nonlinear_iterations << "; steps " << dense.result.steps << ", "
       << plain.result.steps << ", " << preconditioned.result.steps << "; plain vs dense "
       << largest_difference(dense.y, plain.y));
  CHECK(largest_difference(dense.y, preconditioned.y) < 1e-6);
  CHECK(preconditioned.statistics.jacobian_evaluations > 0);
  CHECK(preconditioned.statistics.jacobian_structure_builds == 2);
  CHECK(preconditioned.statistics.jacobian_rhs_evaluations ==
        6 * preconditioned.statistics.jacobian_evaluations);
  CHECK(plain.statistics.jacobian_evaluations == 0);
  CHECK(plain.statistics.jacobian_rhs_evaluations == 0);  // J·v products are not Jacobians
  contactlab::testing::report_work_figure(
      "sundials.coloured_preconditioner.linear_iterations_over_unpreconditioned", "12-mass chain",
      static_cast<double>(preconditioned.statistics.linear_iterations) /
          static_cast<double>(plain.statistics.linear_iterations));
}

TEST_CASE(
    "coloured jacobian: an evaluation whose structure did not change allocates nothing "
    "(counted at malloc level, 100-mass chain)") {
  if (!contactlab::testing::allocation_counting_available())
    CONTACTLAB_SKIP("this build cannot count heap allocations (neither glibc nor a sanitizer)");
  SpringChain chain(100);
  JacobianHarness harness(chain);
  const std::vector<double> y = chain.busy_state();
  harness.evaluate(chain, y);  // builds the structure (allocates)
  using contactlab::plugins::sundials_detail::ColouredJacobian;
  int flag = 0;
  const long allocations = contactlab::testing::allocations_during([&] {
    for (int i = 0; i < 3; ++i) {
      SUNMatZero(harness.matrix);
      flag |= ColouredJacobian::evaluate(0.0, harness.y, harness.fy, harness.matrix,
                                         harness.bridge.get(), harness.tmp[0], harness.tmp[1],
                                         harness.tmp[2]);
    }
  });
  CHECK(flag == 0);
  CHECK(allocations == 0);
}
