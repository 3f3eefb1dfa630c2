// The local frictional contact problem as a value: Siconos' error measure against known solutions,
// the reader on Siconos' own test problems (dense and sparse-block storage of the same problem
// agree), exact round trips, and nsgs reaching the tolerance it is asked for.
#include <catch2/catch.hpp>

#include <random>
#include <sstream>

#include "contactlab/contact_problem/siconos_io.hpp"
#include "contactlab/contact_problem/solvers.hpp"

using namespace contactlab::contact_problem;

namespace {

const std::string data = std::string(CONTACTLAB_TEST_DATA_DIR) + "/siconos/";

/// One contact with W = I.
FrictionContactProblem one_contact(double qn, double qt, double mu) {
  FrictionContactProblem p;
  p.W.reset(1);
  p.W.push_block(0, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  p.W.end_row();
  p.q = {qn, qt, 0.0};
  p.mu = {mu};
  return p;
}

bool same(const FrictionContactProblem& a, const FrictionContactProblem& b) {
  return a.W.row_offsets == b.W.row_offsets && a.W.columns == b.W.columns &&
         a.W.blocks == b.W.blocks && a.q == b.q && a.mu == b.mu;
}

}  // namespace

TEST_CASE(
    "contact problem: Siconos' error is 0 exactly at sticking, sliding and separating "
    "solutions and positive elsewhere",
    "[contact_problem]") {
  // Sticking: q = (−1, 0.2, 0), μ = 0.5 → r = (1, −0.2, 0), u = 0.
  {
    const auto p = one_contact(-1.0, 0.2, 0.5);
    const std::vector<double> r = {1.0, -0.2, 0.0}, u = {0.0, 0.0, 0.0};
    CHECK(siconos_error(p, r, u) == 0.0);
  }
  // Sliding: q = (−1, 2, 0), μ = 0.5 → r = (1, −0.5, 0), u = (0, 1.5, 0).
  {
    const auto p = one_contact(-1.0, 2.0, 0.5);
    const std::vector<double> r = {1.0, -0.5, 0.0}, u = {0.0, 1.5, 0.0};
    CHECK(siconos_error(p, r, u) == Approx(0.0).margin(1e-15));
    const std::vector<double> wrong = {1.0, -0.4, 0.0}, u_wrong = {0.0, 1.6, 0.0};
    CHECK(siconos_error(p, wrong, u_wrong) > 1e-3);
  }
  // Separating: q = (1, 3, 0) → r = 0, u = q.
  {
    const auto p = one_contact(1.0, 3.0, 0.5);
    const std::vector<double> r = {0.0, 0.0, 0.0}, u = {1.0, 3.0, 0.0};
    CHECK(siconos_error(p, r, u) == 0.0);
  }
}

TEST_CASE(
    "contact problem: Siconos' test problems are read, dense and sparse-block storage of "
    "one problem agree, and round trips are exact",
    "[contact_problem][siconos]") {
  const auto dense = read_siconos_file(data + "FC3D_Example1.dat");
  const auto sbm = read_siconos_file(data + "FC3D_Example1_SBM.dat");
  REQUIRE(dense.contact_count() == 3);
  REQUIRE(sbm.contact_count() == 3);
  std::vector<double> x(9), y_dense(9), y_sbm(9);
  for (int i = 0; i < 9; ++i) x[i] = 0.1 * (i + 1) - 0.3;
  dense.W.multiply(x, y_dense);
  sbm.W.multiply(x, y_sbm);
  for (int i = 0; i < 9; ++i) CHECK(y_dense[i] == Approx(y_sbm[i]).margin(1e-12));
  CHECK(dense.q == sbm.q);
  CHECK(dense.mu == sbm.mu);

  for (const char* name : {"FrictionContact3D_1c.dat", "FC3D_Example1_SBM.dat", "Rover1039.dat",
                           "Confeti-ex13-4contact-Fc3D-SBM.dat", "BoxesStack1-i100000-32.hdf5.dat",
                           "Capsules-i101-404.dat"}) {
    INFO(name);
    const auto problem = read_siconos_file(data + name);
    CHECK(problem.contact_count() > 0);
    std::stringstream text;
    write_siconos(problem, text);
    CHECK(same(read_siconos(text, "round trip"), problem));
  }
}

TEST_CASE("contact problem: malformed files are refused with the file and what is wrong",
          "[contact_problem][siconos]") {
  auto refuse = [](const std::string& text, const std::string& expected) {
    std::stringstream in(text);
    try {
      read_siconos(in, "bad.dat");
      FAIL("accepted: " << text);
    } catch (const std::runtime_error& error) {
      CHECK_THAT(std::string(error.what()), Catch::StartsWith("bad.dat: "));
      CHECK_THAT(std::string(error.what()), Catch::Contains(expected));
    }
  };
  refuse("2\n1\n0\n2\n2\n", "dimension is 2");
  refuse("3\n1\n2\n3\n3\n", "storage type is 2");
  refuse("3\n1\n0\n3\n3\n3\t3\n1 0 0 0 1 0 0 0", "ends before");
  refuse("3\n2\n0\n3\n3\n", "W is 3 x 3 for 2 contacts");
  refuse("3\n1\n0\n3\n3\n3\t3\n1 0 0 0 1 0 0 0 1\n-1 x 0\n0.5\n", "not a number: 'x'");
}

TEST_CASE(
    "contact problem: nsgs, newton_ac and newton_fb reach a Siconos error of 1e-8 on "
    "Siconos' test problems and on random problems, and an unknown solver names the known "
    "ones",
    "[contact_problem][solvers]") {
  const std::string method = GENERATE("nsgs", "newton_ac", "newton_fb");
  INFO(method);
  std::vector<std::string> files = {"FC3D_Example1_SBM.dat", "Confeti-ex13-4contact-Fc3D-SBM.dat",
                                    "Rover1039.dat", "Capsules-i101-404.dat"};
  // The stack of 52 contacts: nsgs stalls near 1e-6 (100,000 sweeps); Newton reaches 1e-8.
  if (method != "nsgs") files.push_back("BoxesStack1-i100000-32.hdf5.dat");
  for (const std::string& name : files) {
    INFO(name);
    const auto problem = read_siconos_file(data + name);
    std::vector<double> r(3 * problem.contact_count(), 0.0), u(r.size(), 0.0);
    SolverOptions options;
    options.max_iterations = method == "nsgs" ? 100000 : 200;
    const SolverReport report = solve(problem, method, r, u, options);
    INFO("iterations " << report.iterations << ", error " << report.error);
    CHECK(report.converged);
    CHECK(siconos_error(problem, r, u) <= 1e-8);
  }
  // A random chain of contacts sharing bodies: W = J·M⁻¹·Jᵀ with block-banded J.
  std::mt19937 random(3);
  std::normal_distribution<double> normal;
  const std::size_t n = 20;
  std::vector<std::array<double, 9>> J(n);  // contact k couples bodies k and k+1 (3 dof each)
  for (auto& block : J)
    for (double& v : block) v = normal(random);
  FrictionContactProblem p;
  p.W.reset(n);
  auto product = [](const std::array<double, 9>& a, const std::array<double, 9>& b) {
    std::array<double, 9> c{};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) c[3 * i + j] += a[3 * i + k] * b[3 * j + k];  // a·bᵀ
    return c;
  };
  for (std::size_t k = 0; k < n; ++k) {
    // u_k = J_k·(v_{k+1} − v_k), unit masses: W_kk = 2 J_k J_kᵀ, W_k,k±1 = −J_k J_{k±1}ᵀ.
    if (k > 0) {
      auto b = product(J[k], J[k - 1]);
      for (double& v : b) v = -v;
      p.W.push_block(static_cast<std::uint32_t>(k - 1), b);
    }
    auto d = product(J[k], J[k]);
    for (double& v : d) v *= 2.0;
    p.W.push_block(static_cast<std::uint32_t>(k), d);
    if (k + 1 < n) {
      auto b = product(J[k], J[k + 1]);
      for (double& v : b) v = -v;
      p.W.push_block(static_cast<std::uint32_t>(k + 1), b);
    }
    p.W.end_row();
  }
  p.q.resize(3 * n);
  for (double& v : p.q) v = normal(random);
  p.mu.assign(n, 0.4);
  REQUIRE_NOTHROW(p.check());
  std::vector<double> r(3 * n, 0.0), u(3 * n, 0.0);
  SolverOptions options;
  options.max_iterations = method == "nsgs" ? 200000 : 200;
  const SolverReport report = solve(p, method, r, u, options);
  INFO("iterations " << report.iterations << ", error " << report.error);
  CHECK(report.converged);
  CHECK(siconos_error(p, r, u) <= 1e-8);
  CHECK_THROWS_WITH(solve(p, "magic", r, u), Catch::Contains("known: nsgs, newton_ac, newton_fb"));
}
