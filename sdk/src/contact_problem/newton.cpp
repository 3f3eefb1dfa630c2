// Semismooth Newton solvers of the local frictional contact problem (solvers.hpp): newton_ac
// (Alart & Curnier 1991) and newton_fb (Fischer–Burmeister on the normal complementarity, as
// SiLVIA's φ(f, δ), with Alart–Curnier's projection for friction).
//
// Both write the problem as Φ(r) = 0 with u = W·r + q, contact by contact, with the scalings
// ρ_N = 1/W_NN and ρ_T = 2/trace(W_TT) that give every component the units of an impulse:
//   newton_ac normal:  Φ_N = r_N − max(0, r_N − ρ_N·u_N)
//   newton_fb normal:  Φ_N = √(r_N² + w²) − r_N − w,  w = ρ_N·u_N (Fischer 1992)
//   friction (both):   Φ_T = r_T − P_D(R)(r_T − ρ_T·u_T), P_D(R) the projection on the disk of
//                      radius R = μ·max(0, x_N) (ac, x_N = r_N − ρ_N u_N) or μ·max(0, r_N) (fb)
// Φ = 0 is Coulomb's law with Signorini's condition on u_N and maximal dissipation (a sliding r_T
// opposite to u_T), whose De Saxcé residual (siconos_error) is then 0. Each contact's Jacobian
// rows are D_k·e_k + E_k·W_k· (D_k, E_k the 3×3 derivatives of Φ_k by its own r_k and by u_k; a
// fixed choice at the kinks: the active branch of max, the direction (1, 1)/√2 at FB's origin),
// so the generalised Jacobian has W's block sparsity; it is factorised by Eigen's SparseLU. The
// step is damped by backtracking on ½‖Φ‖² (Armijo, σ = 1e-4). With options.nonlinear_normal, u_N
// comes from that function (SiLVIA's δ(σ(r))/h) and W's normal rows stand for its derivative.
// Where the line search finds no decrease three iterations in a row (a stalled semismooth Newton:
// a kink or a singular direction), ten Gauss–Seidel sweeps move r before Newton resumes (the hybrid
// globalisation of Siconos' NSN solvers).
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <array>
#include <cmath>
#include <vector>

#include "contactlab/contact_problem/pgs_rule.hpp"
#include "contactlab/contact_problem/solvers.hpp"

namespace contactlab::contact_problem {

namespace {

using Mat33 = std::array<double, 9>;

struct LocalRows {
  double phi[3];
  Mat33 D{};  ///< ∂Φ_k/∂r_k (direct)
  Mat33 E{};  ///< ∂Φ_k/∂u_k
};

/// Φ_T and its derivatives for radius R = μ·x (x the radius's argument, dR/dx = μ when x > 0),
/// `dx_dr` and `dx_du` the derivatives of x by r_N and u_N.
void friction_rows(double mu, double x, double dx_dr, double dx_du, const double* r,
                   const double* u, double rho_T, LocalRows& out) {
  const double R = mu * std::max(0.0, x);
  const double xt1 = r[1] - rho_T * u[1], xt2 = r[2] - rho_T * u[2];
  const double norm = std::hypot(xt1, xt2);
  if (R <= 0.0) {  // no friction force possible: Φ_T = r_T
    out.phi[1] = r[1];
    out.phi[2] = r[2];
    out.D[4] = out.D[8] = 1.0;
    return;
  }
  if (norm <= R) {  // stick: Φ_T = ρ_T·u_T
    out.phi[1] = r[1] - xt1;
    out.phi[2] = r[2] - xt2;
    out.E[4] = out.E[8] = rho_T;
    return;
  }
  // Slide: Φ_T = r_T − R·t, t = x_T/‖x_T‖.
  const double t1 = xt1 / norm, t2 = xt2 / norm;
  out.phi[1] = r[1] - R * t1;
  out.phi[2] = r[2] - R * t2;
  const double k = R / norm;  // (I − t tᵀ)·R/‖x_T‖
  const double P11 = k * (1.0 - t1 * t1), P12 = -k * t1 * t2, P22 = k * (1.0 - t2 * t2);
  const double dR = x > 0.0 ? mu : 0.0;
  // By r_k: dr_T − t·dR·(dx/dr) dr_N − P·dr_T.
  out.D[3] = -t1 * dR * dx_dr;
  out.D[6] = -t2 * dR * dx_dr;
  out.D[4] = 1.0 - P11;
  out.D[5] = -P12;
  out.D[7] = -P12;
  out.D[8] = 1.0 - P22;
  // By u_k: −t·dR·(dx/du) du_N + P·ρ_T du_T.
  out.E[3] = -t1 * dR * dx_du;
  out.E[6] = -t2 * dR * dx_du;
  out.E[4] = rho_T * P11;
  out.E[5] = rho_T * P12;
  out.E[7] = rho_T * P12;
  out.E[8] = rho_T * P22;
}

void local_rows(bool fischer, double mu, const Mat33& Wkk, const double* r, const double* u,
                LocalRows& out) {
  out = LocalRows{};
  const double rho_N = Wkk[0] > 0.0 ? 1.0 / Wkk[0] : 1.0;
  const double trace = Wkk[4] + Wkk[8];
  const double rho_T = trace > 0.0 ? 2.0 / trace : 1.0;
  if (fischer) {
    const double w = rho_N * u[0];
    const double s = std::hypot(r[0], w);
    out.phi[0] = s - r[0] - w;
    const double a = s > 0.0 ? r[0] / s - 1.0 : std::sqrt(0.5) - 1.0;
    const double b = s > 0.0 ? w / s - 1.0 : std::sqrt(0.5) - 1.0;
    out.D[0] = a;
    out.E[0] = b * rho_N;
    friction_rows(mu, r[0], 1.0, 0.0, r, u, rho_T, out);
  } else {
    const double x = r[0] - rho_N * u[0];
    if (x <= 0.0) {
      out.phi[0] = r[0];
      out.D[0] = 1.0;
    } else {
      out.phi[0] = rho_N * u[0];
      out.E[0] = rho_N;
    }
    friction_rows(mu, x, 1.0, -rho_N, r, u, rho_T, out);
  }
}

}  // namespace

SolverReport solve_newton(const FrictionContactProblem& problem, bool fischer, std::span<double> r,
                          std::span<double> u, const SolverOptions& options) {
  const std::size_t n = problem.contact_count();
  const std::size_t size = 3 * n;
  const BlockSparseMatrix& W = problem.W;
  std::vector<const BlockSparseMatrix::Block*> diagonal(n);
  for (std::size_t k = 0; k < n; ++k) diagonal[k] = W.diagonal(k);
  static const BlockSparseMatrix::Block unit = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  std::vector<double> normal(options.nonlinear_normal ? n : 0);
  std::vector<LocalRows> rows(n);
  std::vector<double> trial_r(size), trial_u(size);

  // u = W·r + q, with the nonlinear normal part when asked.
  auto velocities = [&](std::span<const double> r_in, std::span<double> u_out) {
    local_velocities(problem, r_in, u_out);
    if (options.nonlinear_normal) {
      options.nonlinear_normal(r_in, normal);
      for (std::size_t k = 0; k < n; ++k) u_out[3 * k] = normal[k];
    }
  };
  auto merit = [&](std::span<const double> r_in, std::span<const double> u_in) {
    double sum = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      LocalRows local;
      local_rows(fischer, problem.mu[k], diagonal[k] ? *diagonal[k] : unit, &r_in[3 * k],
                 &u_in[3 * k], local);
      for (double phi : local.phi) sum += phi * phi;
    }
    return 0.5 * sum;
  };

  SolverReport report;
  velocities(r, u);
  report.error = siconos_error(problem, r, u);
  if (report.error <= options.tolerance) {
    report.converged = true;
    return report;
  }
  Eigen::SparseMatrix<double> J(static_cast<Eigen::Index>(size), static_cast<Eigen::Index>(size));
  std::vector<Eigen::Triplet<double>> triplets;
  Eigen::VectorXd rhs(static_cast<Eigen::Index>(size));
  Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> lu;
  bool analysed = false;
  int stalled = 0;  // iterations in a row without decrease of ½‖Φ‖²
  for (int iteration = 1; iteration <= options.max_iterations; ++iteration) {
    report.iterations = iteration;
    triplets.clear();
    double theta = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      LocalRows& local = rows[k];
      local_rows(fischer, problem.mu[k], diagonal[k] ? *diagonal[k] : unit, &r[3 * k], &u[3 * k],
                 local);
      for (int a = 0; a < 3; ++a) {
        rhs[static_cast<Eigen::Index>(3 * k + a)] = -local.phi[a];
        theta += local.phi[a] * local.phi[a];
      }
      // Row block k: D_k at column k, E_k·W_kl at every stored block l.
      for (std::uint32_t b = W.row_offsets[k]; b < W.row_offsets[k + 1]; ++b) {
        const std::size_t l = W.columns[b];
        const BlockSparseMatrix::Block& Wkl = W.blocks[b];
        for (int a = 0; a < 3; ++a)
          for (int c = 0; c < 3; ++c) {
            double value = 0.0;
            for (int m = 0; m < 3; ++m) value += local.E[3 * a + m] * Wkl[3 * m + c];
            if (l == k) value += local.D[3 * a + c];
            if (value != 0.0 || (l == k && a == c))
              triplets.emplace_back(static_cast<int>(3 * k + a), static_cast<int>(3 * l + c),
                                    value);
          }
      }
      if (!diagonal[k])  // no stored diagonal block: D_k alone
        for (int a = 0; a < 3; ++a)
          for (int c = 0; c < 3; ++c)
            triplets.emplace_back(static_cast<int>(3 * k + a), static_cast<int>(3 * k + c),
                                  local.D[3 * a + c]);
    }
    theta *= 0.5;
    J.setFromTriplets(triplets.begin(), triplets.end());
    J.makeCompressed();
    // W is singular where contacts are redundant (a box's four corners on a plane): so is the
    // generalised Jacobian of their active rows. A diagonal shift λ·I (λ from 1e-12 of the
    // largest diagonal entry, ×100 while the factorisation fails) picks one of the equivalent
    // impulse distributions (Levenberg–Marquardt's regularisation).
    double largest = 0.0;
    for (Eigen::Index i = 0; i < J.rows(); ++i)
      largest = std::max(largest, std::abs(J.coeff(i, i)));
    double shift = 1e-12 * std::max(largest, 1e-300);
    bool factorised = false;
    for (int attempt = 0; attempt < 6 && !factorised; ++attempt, shift *= 100.0) {
      Eigen::SparseMatrix<double> shifted = J;
      for (Eigen::Index i = 0; i < shifted.rows(); ++i) shifted.coeffRef(i, i) += shift;
      if (!analysed) {
        lu.analyzePattern(shifted);
        analysed = true;
      }
      lu.factorize(shifted);
      factorised = lu.info() == Eigen::Success;
    }
    if (!factorised) break;
    const Eigen::VectorXd step = lu.solve(rhs);
    // Backtracking on ½‖Φ‖² (Armijo).
    double t = 1.0;
    double theta_trial = theta;
    for (int halving = 0; halving < 30; ++halving) {
      for (std::size_t i = 0; i < size; ++i)
        trial_r[i] = r[i] + t * step[static_cast<Eigen::Index>(i)];
      velocities(trial_r, trial_u);
      theta_trial = merit(trial_r, trial_u);
      if (theta_trial <= (1.0 - 2e-4 * t) * theta) break;
      t *= 0.5;
    }
    std::copy(trial_r.begin(), trial_r.end(), r.begin());
    std::copy(trial_u.begin(), trial_u.end(), u.begin());
    stalled = theta_trial < theta ? 0 : stalled + 1;
    if (stalled >= 3) {
      stalled = 0;
      for (int sweep = 0; sweep < 10; ++sweep)
        for (std::size_t k = 0; k < n; ++k) {
          if (!diagonal[k]) continue;
          double uk[3] = {problem.q[3 * k], problem.q[3 * k + 1], problem.q[3 * k + 2]};
          for (std::uint32_t b = W.row_offsets[k]; b < W.row_offsets[k + 1]; ++b) {
            const BlockSparseMatrix::Block& block = W.blocks[b];
            const double* rj = r.data() + 3 * std::size_t{W.columns[b]};
            for (int a = 0; a < 3; ++a)
              uk[a] += block[3 * a] * rj[0] + block[3 * a + 1] * rj[1] + block[3 * a + 2] * rj[2];
          }
          double dr[3];
          pgs_contact_update(*diagonal[k], problem.mu[k], uk, r.data() + 3 * k, dr);
        }
      velocities(r, u);
    }
    report.error = siconos_error(problem, r, u);
    if (report.error <= options.tolerance) {
      report.converged = true;
      break;
    }
  }
  return report;
}

}  // namespace contactlab::contact_problem
