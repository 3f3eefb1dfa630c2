// The Gauss–Seidel update of one contact of the local frictional contact problem (problem.hpp):
// what the nsgs solver and the pgs time-stepping integrator share.
//
// With the contact's diagonal block W_kk and its current local velocity u (for the current r):
//   normal:     r_N ← max(0, r_N − u_N / W_NN)                      (exact for the normal alone)
//   tangential: r_T ← P_{‖·‖ ≤ μ r_N}(r_T − ρ·u_T),  ρ = 2 / trace(W_TT)
// with u_T first moved by the normal change (W_TN·Δr_N). The tangential step is a projected
// gradient step with one scalar ρ, so that its fixed point is Coulomb's law with maximal
// dissipation (r_T opposite to u_T when sliding) whatever the anisotropy of W_TT; a step of
// W_TT⁻¹ would converge faster on anisotropic blocks but to a point where r_T is opposite to
// W_TT⁻¹·u_T instead. A fixed point of the sweep solves the contact's part of the problem with
// Signorini's condition on u_N (the De Saxcé form's ũ_N = u_N + μ‖u_T‖ is 0 when sliding, the
// same condition).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

namespace contactlab::contact_problem {

/// Updates r (3: N, T1, T2) of one contact with diagonal block W (row-major 3×3), friction μ and
/// local velocity u (3, at the current r); writes the change into dr.
inline void pgs_contact_update(const std::array<double, 9>& W, double mu, const double* u,
                               double* r, double* dr) {
  const double rn_old = r[0], rt1_old = r[1], rt2_old = r[2];
  const double wnn = W[0];
  double rn = wnn > 0.0 ? std::max(0.0, rn_old - u[0] / wnn) : rn_old;
  const double drn = rn - rn_old;
  const double ut1 = u[1] + W[3] * drn;
  const double ut2 = u[2] + W[6] * drn;
  const double trace = W[4] + W[8];
  const double rho = trace > 0.0 ? 2.0 / trace : 0.0;
  double rt1 = rt1_old - rho * ut1;
  double rt2 = rt2_old - rho * ut2;
  const double limit = mu * rn;
  const double norm2 = rt1 * rt1 + rt2 * rt2;
  if (norm2 > limit * limit) {
    const double scale = limit / std::sqrt(norm2);
    rt1 *= scale;
    rt2 *= scale;
  }
  r[0] = rn;
  r[1] = rt1;
  r[2] = rt2;
  dr[0] = drn;
  dr[1] = rt1 - rt1_old;
  dr[2] = rt2 - rt2_old;
}

/// The normal half of pgs_contact_update: r_N only (dr[1], dr[2] untouched).
inline void pgs_normal_update(const std::array<double, 9>& W, const double* u, double* r,
                              double* dr) {
  const double rn = W[0] > 0.0 ? std::max(0.0, r[0] - u[0] / W[0]) : r[0];
  dr[0] = rn - r[0];
  r[0] = rn;
}

/// The tangential half of pgs_contact_update at the current r_N (dr[0] = 0).
inline void pgs_tangential_update(const std::array<double, 9>& W, double mu, const double* u,
                                  double* r, double* dr) {
  const double trace = W[4] + W[8];
  const double rho = trace > 0.0 ? 2.0 / trace : 0.0;
  double rt1 = r[1] - rho * u[1];
  double rt2 = r[2] - rho * u[2];
  const double limit = mu * r[0];
  const double norm2 = rt1 * rt1 + rt2 * rt2;
  if (norm2 > limit * limit) {
    const double scale = limit / std::sqrt(norm2);
    rt1 *= scale;
    rt2 *= scale;
  }
  dr[0] = 0.0;
  dr[1] = rt1 - r[1];
  dr[2] = rt2 - r[2];
  r[1] = rt1;
  r[2] = rt2;
}

}  // namespace contactlab::contact_problem
