// The separating-axis test of two box cores (see box_separating_axes.hpp).
#include "box_separating_axes.hpp"

#include <cmath>

namespace contactlab::plugins::primitive {

double edge_separation(const BoxPairInA& pair, int i, int j) {
  const int k = (i + 1) % 3, l = (i + 2) % 3, m = (j + 1) % 3, n = (j + 2) % 3;
  const Mat3& R = pair.R;
  const double u_k = -R(l, j), u_l = R(k, j);
  const double length_squared = u_k * u_k + u_l * u_l;
  if (!(length_squared > 1e-300)) return -kInfinity;
  const double centre_m = pair.p[k] * u_k + pair.p[l] * u_l;
  const double radius_a_m = pair.h_a[k] * std::abs(u_k) + pair.h_a[l] * std::abs(u_l);
  const double radius_b_m = pair.h_b[m] * std::abs(R(k, m) * u_k + R(l, m) * u_l) +
                            pair.h_b[n] * std::abs(R(k, n) * u_k + R(l, n) * u_l);
  return (std::abs(centre_m) - radius_a_m - radius_b_m) / std::sqrt(length_squared);
}

// As in Gottschalk's OBB overlap test, B's half width along A's axis i is Σ_j |R_ij| h_b,j and
// A's along B's axis j is Σ_i |R_ij| h_a,i. Edge axes u = e_i × b_j are exact in A's frame
// (u_k = −R_lj, u_l = R_kj for (i, k, l) cyclic); no ε is added to |R| as in the boolean test,
// because the separations themselves are wanted, and parallel edges are skipped instead. B's
// half width along u uses b_m·u computed from R's entries, not the identity b_m·u = ±R_in of
// Gottschalk's test: the identity holds only as far as R is orthonormal, an error that grows like
// ε/|u| for nearly parallel edges, while the products' rounding stays ε|u| (b_j·u itself is
// exactly 0: its two products cancel exactly).
//
// Cost: the 15 separations are independent of each other (no chain of compare-and-select from
// one axis to the next), and the nine edge separations c/|u| are compared by the key c|c|/|u|²,
// which increases with them: one division each and no square root; only the winner's is
// normalised. Keys of edges within rounding of parallel (|u|² ≤ 1e-300) are −∞; a key also
// underflows to 0 when |u|² < ~1e-150 (turns below ~1e-75 rad, far below any physical meaning).
// Six of the nine edges run two at a time in SSE lanes (bit for bit the scalar arithmetic). Out
// of line (its own translation unit): in its own frame the test keeps its values in registers,
// and its callers theirs.
Axis separating_axes(const BoxPairInA& pair, double tolerance_m) {
  const Mat3& R = pair.R;
  const double R00 = R(0, 0), R01 = R(0, 1), R02 = R(0, 2);
  const double R10 = R(1, 0), R11 = R(1, 1), R12 = R(1, 2);
  const double R20 = R(2, 0), R21 = R(2, 1), R22 = R(2, 2);
  const double A00 = std::abs(R00), A01 = std::abs(R01), A02 = std::abs(R02);
  const double A10 = std::abs(R10), A11 = std::abs(R11), A12 = std::abs(R12);
  const double A20 = std::abs(R20), A21 = std::abs(R21), A22 = std::abs(R22);
  const double ha0 = pair.h_a[0], ha1 = pair.h_a[1], ha2 = pair.h_a[2];
  const double hb0 = pair.h_b[0], hb1 = pair.h_b[1], hb2 = pair.h_b[2];
  const double p0 = pair.p[0], p1 = pair.p[1], p2 = pair.p[2];
  // Faces: all six independent (no chain of compare-and-select: they run in parallel), then the
  // largest of A's, the largest of B's (first on ties), and B's only when larger by tolerance_m.
  const double pb0 = pair.p_B[0], pb1 = pair.p_B[1], pb2 = pair.p_B[2];
  const double fa0 = std::abs(p0) - ha0 - (A00 * hb0 + A01 * hb1 + A02 * hb2);
  const double fa1 = std::abs(p1) - ha1 - (A10 * hb0 + A11 * hb1 + A12 * hb2);
  const double fa2 = std::abs(p2) - ha2 - (A20 * hb0 + A21 * hb1 + A22 * hb2);
  const double fb0 = std::abs(pb0) - hb0 - (A00 * ha0 + A10 * ha1 + A20 * ha2);
  const double fb1 = std::abs(pb1) - hb1 - (A01 * ha0 + A11 * ha1 + A21 * ha2);
  const double fb2 = std::abs(pb2) - hb2 - (A02 * ha0 + A12 * ha1 + A22 * ha2);
  // Argmax by selects (maxsd, cmov), no branches; the first wins ties.
  int index_a = 0;
  double best_a = fa0;
  index_a = fa1 > best_a ? 1 : index_a;
  best_a = std::max(best_a, fa1);
  index_a = fa2 > best_a ? 2 : index_a;
  best_a = std::max(best_a, fa2);
  int index_b = 3;
  double best_b = fb0;
  index_b = fb1 > best_b ? 4 : index_b;
  best_b = std::max(best_b, fb1);
  index_b = fb2 > best_b ? 5 : index_b;
  best_b = std::max(best_b, fb2);
  const bool face_b_wins = best_b > best_a + tolerance_m;
  const double best = face_b_wins ? best_b : best_a;
  const int index = face_b_wins ? index_b : index_a;
  // Edge (i, j), (i, k, l) and (j, m, n) cyclic: c = |p_l R_kj − p_k R_lj| − h_k A_lj − h_l A_kj −
  // hb_m X_ij − hb_n X_in, with X_ij = |(b_j × b_j+1)_i|; |u|² = R_kj² + R_lj². Key c|c|/|u|²,
  // increasing in c/|u|; −∞ when parallel.
  double scaled[9], length_squared[9], num[9];
  // A's edges 0 and 1 with B's edge j side by side, in the two lanes of one SSE register (lane 0
  // edge (0, j), lane 1 edge (1, j)): the same operations lane by lane as one edge at a time, so
  // the same roundings, in half the instructions. Lane 0 has (k, l) = (1, 2), lane 1 (2, 0).
  const Lanes pk = {p1, p2}, pl = {p2, p0}, hk = {ha1, ha2}, hl = {ha2, ha0};
  const Lanes Rk[3] = {{R10, R20}, {R11, R21}, {R12, R22}};      // R_kj
  const Lanes Rl[3] = {{R20, R00}, {R21, R01}, {R22, R02}};      // R_lj
  const Lanes X[3] = {abs_lanes(Rk[0] * Rl[1] - Rl[0] * Rk[1]),  // X_0j, X_1j
                      abs_lanes(Rk[1] * Rl[2] - Rl[1] * Rk[2]),
                      abs_lanes(Rk[2] * Rl[0] - Rl[2] * Rk[0])};
  const double hb[3] = {hb0, hb1, hb2};
  for (int j = 0; j < 3; ++j) {
    const int m = (j + 1) % 3, n = (j + 2) % 3;
    const Lanes l2 = Rk[j] * Rk[j] + Rl[j] * Rl[j];
    const Lanes c = abs_lanes(pl * Rk[j] - pk * Rl[j]) -
                    (hk * abs_lanes(Rl[j]) + hl * abs_lanes(Rk[j])) -
                    (Lanes{hb[m], hb[m]} * X[j] + Lanes{hb[n], hb[n]} * X[n]);
    const LaneMask direction = l2 > Lanes{1e-300, 1e-300};
    const Lanes key = direction ? c * abs_lanes(c) : Lanes{-1.0, -1.0};
    const Lanes key_length_squared = direction ? l2 : Lanes{0.0, 0.0};
    scaled[j] = c[0];
    scaled[3 + j] = c[1];
    num[j] = key[0];
    num[3 + j] = key[1];
    length_squared[j] = key_length_squared[0];
    length_squared[3 + j] = key_length_squared[1];
  }
  // A's edge 2 (k, l) = (0, 1), one at a time.
  const double X20 = std::abs(R00 * R11 - R10 * R01), X21 = std::abs(R01 * R12 - R11 * R02),
               X22 = std::abs(R02 * R10 - R12 * R00);
#define CONTACTLAB_EDGE(I, J, Rkj, Rlj, Akj, Alj, pk, pl, hk, hl, Xij, Xin, hbm, hbn)            \
  {                                                                                              \
    const int e = 3 * I + J;                                                                     \
    const double l2 = Rkj * Rkj + Rlj * Rlj;                                                     \
    scaled[e] = std::abs(pl * Rkj - pk * Rlj) - (hk * Alj + hl * Akj) - (hbm * Xij + hbn * Xin); \
    const bool direction = l2 > 1e-300;                                                          \
    num[e] = direction ? scaled[e] * std::abs(scaled[e]) : -1.0;                                 \
    length_squared[e] = direction ? l2 : 0.0;                                                    \
  }
  CONTACTLAB_EDGE(2, 0, R00, R10, A00, A10, p0, p1, ha0, ha1, X20, X22, hb1, hb2)
  CONTACTLAB_EDGE(2, 1, R01, R11, A01, A11, p0, p1, ha0, ha1, X21, X20, hb2, hb0)
  CONTACTLAB_EDGE(2, 2, R02, R12, A02, A12, p0, p1, ha0, ha1, X22, X21, hb0, hb1)
#undef CONTACTLAB_EDGE
  // Tournament of depth 4 by integer selects: b beats a when num_b/|u_b|² > num_a/|u_a|², i.e.
  // num_b·|u_a|² > num_a·|u_b|² (|u|² ≥ 0; an edge without direction has num −1 and |u|² 0, and
  // never beats one with a direction). Ties keep the lower index.
  auto winner = [&](int a, int b) {
    return num[b] * length_squared[a] > num[a] * length_squared[b] ? b : a;
  };
  const int w01 = winner(0, 1), w23 = winner(2, 3), w45 = winner(4, 5), w67 = winner(6, 7);
  int best_edge = winner(winner(winner(w01, w23), winner(w45, w67)), 8);
  const double best_scaled = scaled[best_edge];
  const double best_length_squared = length_squared[best_edge];
  if (!(best_length_squared > 0.0)) best_edge = -1;
  Axis axis;
  axis.separation_m = best;
  if (index < 3) {
    axis.kind = AxisKind::face_a;
    axis.i = index;
    axis.u_A = unit_axis(index);
  } else {
    axis.kind = AxisKind::face_b;
    axis.j = index - 3;
    axis.u_A = R.col(axis.j);
  }
  axis.direction_A = axis.u_A;
  // The best edge wins when c/|u| > best + tolerance_m, decided from squares as the tournament
  // (c·|c| > t·|t|·|u|², t = best + tolerance_m): the square root is not on this path.
  const double threshold = best + tolerance_m;
  if (best_edge >= 0 &&
      best_scaled * std::abs(best_scaled) > threshold * std::abs(threshold) * best_length_squared) {
    axis.kind = AxisKind::edges;
    axis.i = best_edge / 3;
    axis.j = best_edge % 3;
    const int k = (axis.i + 1) % 3, l = (axis.i + 2) % 3;
    axis.direction_A = R(k, axis.j) * unit_axis(l) - R(l, axis.j) * unit_axis(k);
    const double inverse_length = 1.0 / std::sqrt(best_length_squared);
    axis.separation_m = best_scaled * inverse_length;
    axis.u_A = inverse_length * axis.direction_A;
  }
  return axis;
}

}  // namespace contactlab::plugins::primitive
