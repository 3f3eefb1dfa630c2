// The closest features of two separated box cores (see box_closest_features.hpp).
#include "box_closest_features.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace contactlab::plugins::primitive {

using geometry::SegmentClosestPoints;

namespace {

// Lower bounds tried by separated_closest_points before its pruned exhaustive search.
constexpr int kDistanceSteps = 3;

/// B's corner `bits` (corner_b in A's frame) and its closest point on A.
[[gnu::always_inline]] inline void offer_corner_of_b(const BoxPairInA& pair, const Vec3& corner_b,
                                                     int bits, PairCandidate& best) {
  const Vec3 on_a = clamp_to_box(corner_b, pair.h_a);
  const Vec3 gap = corner_b - on_a;
  const double d2 = gap.squaredNorm();
  if (d2 < best.distance_squared_m2) best = {d2, on_a, corner_b, gap, bits};
}

/// A's corner `bits` and its closest point on B, found in B's frame.
[[gnu::always_inline]] inline void offer_corner_of_a(const BoxPairInA& pair, const Vec3& corner_a,
                                                     int bits, PairCandidate& best) {
  const Vec3 corner_a_B = transpose_times(pair.R, corner_a) - pair.p_B;
  const Vec3 on_b_B = clamp_to_box(corner_a_B, pair.h_b);
  const Vec3 gap_B = on_b_B - corner_a_B;
  const double d2 = gap_B.squaredNorm();
  if (d2 < best.distance_squared_m2) {
    best = {d2, corner_a, Vec3(pair.p + times(pair.R, on_b_B)), times(pair.R, gap_B),
            kFeatureCornerOfA + bits};
  }
}

/// A's edge along e_i through its corner bits_a and B's along b_j through its corner bits_b, when
/// their closest points are interior to both.
void offer_edges(const BoxPairInA& pair, int i, int bits_a, int j, int bits_b,
                 PairCandidate& best) {
  const Vec3 middle_a = corner_of(bits_a, pair.h_a).cwiseProduct(all_but(i));
  const Vec3 middle_b_B = corner_of(bits_b, pair.h_b).cwiseProduct(all_but(j));
  Vec3 on_a, on_b;
  if (!interior_edge_points(pair, i, middle_a, j, pair.p + times(pair.R, middle_b_B), on_a, on_b)) {
    return;
  }
  const Vec3 gap = on_b - on_a;
  const double d2 = gap.squaredNorm();
  if (d2 < best.distance_squared_m2) {
    const int k = (i + 1) % 3, l = (i + 2) % 3;
    Vec3 axis = pair.R(k, j) * unit_axis(l) - pair.R(l, j) * unit_axis(k);
    if (gap.dot(axis) < 0.0) axis = -axis;
    best = {d2, on_a, on_b, axis,
            kFeatureEdges + ((3 * i + j) * 8 + (bits_a & ~(1 << i))) * 8 + (bits_b & ~(1 << j))};
  }
}

/// The stationary point of |p(s) − q(t)|² when it lies inside both segments (as in
/// geometry::closest_segment_points); false for parallel segments or when it lies outside, where an
/// endpoint is closest.
bool interior_closest_points(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1,
                             SegmentClosestPoints& out) {
  const Vec3 d_p = p1 - p0;
  const Vec3 d_q = q1 - q0;
  const Vec3 n = geometry::segment_cross(d_p, d_q);
  const double n_squared = n.squaredNorm();
  if (!(n_squared > 0.0)) return false;
  const double s = (q0 - p0).cross(d_q).dot(n) / n_squared;
  if (!(s >= 0.0 && s <= 1.0)) return false;
  const Vec3 on_p = p0 + s * d_p;
  const double t = (on_p - q0).dot(d_q) / d_q.squaredNorm();
  if (!(t >= 0.0 && t <= 1.0)) return false;
  const Vec3 on_q = q0 + t * d_q;
  out = {s, t, on_p, on_q, (on_q - on_p).squaredNorm()};
  return true;
}

}  // namespace

void offer_feature(const BoxPairInA& pair, int feature, PairCandidate& best) {
  if (feature < kFeatureCornerOfA) {
    offer_corner_of_b(pair, pair.p + times(pair.R, corner_of(feature, pair.h_b)), feature, best);
  } else if (feature < kFeatureEdges) {
    const int bits = feature - kFeatureCornerOfA;
    offer_corner_of_a(pair, corner_of(bits, pair.h_a), bits, best);
  } else {
    const int code = feature - kFeatureEdges;
    const int axes = code / 64;
    offer_edges(pair, axes / 3, (code / 8) % 8, axes % 3, code % 8, best);
  }
}

// The bracketed search (see the header).
void separated_closest_points(const BoxPairInA& pair, const Vec3& start_n, const Vec3& start_n_B,
                              double start_separation_m, int start_i, int start_j, double certify_m,
                              PairCandidate& best, Vec3& normal) {
  const Vec3& h_a = pair.h_a;
  const Vec3& h_b = pair.h_b;
  const Mat3& R = pair.R;

  double upper_m = std::sqrt(best.distance_squared_m2);
  double lower_m = -kInfinity;
  Vec3 lower_n = start_n, lower_n_B = start_n_B;
  Vec3 n = start_n, n_B = start_n_B;
  for (int step = 0; step < kDistanceSteps; ++step) {
    const int bits_a = support_bits(n);
    const int bits_b = support_bits(-n_B);
    const Vec3 corner_a = corner_of(bits_a, h_a);
    const Vec3 corner_b = pair.p + times(R, corner_of(bits_b, h_b));
    const double separation_m = step == 0 ? start_separation_m : n.dot(corner_b - corner_a);
    if (separation_m > lower_m) {
      lower_m = separation_m;
      lower_n = n;
      lower_n_B = n_B;
      if (upper_m - lower_m <= certify_m) {
        normal = unit_direction(best);
        return;
      }
    }
    if (step + 1 == kDistanceSteps) break;
    offer_corner_of_b(pair, corner_b, bits_b, best);
    offer_corner_of_a(pair, corner_a, bits_a, best);
    if (step > 0) {
      offer_edges(pair, smallest_component(n), bits_a, smallest_component(n_B), bits_b, best);
    } else if (start_i >= 0) {
      offer_edges(pair, start_i, bits_a, start_j, bits_b, best);
    }
    upper_m = std::sqrt(best.distance_squared_m2);
    normal = unit_direction(best);
    if (upper_m - lower_m <= certify_m) return;
    n = normal;
    n_B = transpose_times(R, n);
  }

  // The pruned exhaustive search along lower_n.
  const int support_a = support_bits(lower_n);
  const int support_b = support_bits(-lower_n_B);
  // Excess of flipping one coordinate of a support corner.
  const Vec3 flip_a = 2.0 * h_a.cwiseProduct(lower_n.cwiseAbs());
  const Vec3 flip_b = 2.0 * h_b.cwiseProduct(lower_n_B.cwiseAbs());
  auto slack = [&] { return std::sqrt(best.distance_squared_m2) - lower_m + certify_m; };
  auto excess = [](const Vec3& flip, int flips) {
    return ((flips & 1) ? flip[0] : 0.0) + ((flips & 2) ? flip[1] : 0.0) +
           ((flips & 4) ? flip[2] : 0.0);
  };
  for (int flips = 0; flips < 8; ++flips) {
    if (excess(flip_b, flips) < slack()) {
      const int bits = support_b ^ flips;
      offer_corner_of_b(pair, pair.p + times(R, corner_of(bits, h_b)), bits, best);
    }
    if (excess(flip_a, flips) < slack()) {
      const int bits = support_a ^ flips;
      offer_corner_of_a(pair, corner_of(bits, h_a), bits, best);
    }
  }
  // Edges: A's along e_i through its support corner flipped by flips_a (bit i clear), B's alike.
  for (int i = 0; i < 3; ++i) {
    for (int flips_a = 0; flips_a < 8; ++flips_a) {
      if (flips_a & (1 << i)) continue;
      const double excess_a = excess(flip_a, flips_a);
      if (!(excess_a < slack())) continue;
      for (int j = 0; j < 3; ++j) {
        for (int flips_b = 0; flips_b < 8; ++flips_b) {
          if ((flips_b & (1 << j)) || !(excess_a + excess(flip_b, flips_b) < slack())) continue;
          offer_edges(pair, i, support_a ^ flips_a, j, support_b ^ flips_b, best);
        }
      }
    }
  }
  normal = unit_direction(best);
}

void closest_support_edges(const BoxPairInA& pair, int i, int j, const Vec3& d_A,
                           bool interior_only, SegmentClosestPoints& best_pair) {
  const Vec3& h_a = pair.h_a;
  const Vec3& h_b = pair.h_b;
  const Vec3& p_AB = pair.p;
  const Mat3& R_AB = pair.R;
  const int p = (i + 1) % 3, q = (i + 2) % 3;
  const Vec3 d_B = R_AB.transpose() * d_A;
  const int p_b = (j + 1) % 3, q_b = (j + 2) % 3;
  std::array<double, 2> signs_p, signs_q, signs_p_b, signs_q_b;
  const int count_p = support_signs(d_A[p], signs_p);
  const int count_q = support_signs(d_A[q], signs_q);
  const int count_p_b = support_signs(-d_B[p_b], signs_p_b);
  const int count_q_b = support_signs(-d_B[q_b], signs_q_b);
  for (int ip = 0; ip < count_p; ++ip) {
    for (int iq = 0; iq < count_q; ++iq) {
      Vec3 middle_a = Vec3::Zero();
      middle_a[p] = signs_p[ip] * h_a[p];
      middle_a[q] = signs_q[iq] * h_a[q];
      const Vec3 half_a = h_a[i] * Vec3::Unit(i);
      for (int jp = 0; jp < count_p_b; ++jp) {
        for (int jq = 0; jq < count_q_b; ++jq) {
          const Vec3 middle_b = p_AB + signs_p_b[jp] * h_b[p_b] * R_AB.col(p_b) +
                                signs_q_b[jq] * h_b[q_b] * R_AB.col(q_b);
          const Vec3 half_b = h_b[j] * R_AB.col(j);
          SegmentClosestPoints segments;
          if (interior_only) {
            if (!interior_closest_points(middle_a - half_a, middle_a + half_a, middle_b - half_b,
                                         middle_b + half_b, segments)) {
              continue;
            }
          } else {
            segments = geometry::closest_segment_points(middle_a - half_a, middle_a + half_a,
                                                        middle_b - half_b, middle_b + half_b);
          }
          if (segments.distance_squared_m2 < best_pair.distance_squared_m2) best_pair = segments;
        }
      }
    }
  }
}

bool box_box_touching_rounded(const BoxBoxContact& f, const Axis& best, ContactManifold& out) {
  const BoxPairInA& pair = f.pair;
  const Vec3& h_a = pair.h_a;
  const Vec3& h_b = pair.h_b;
  const Vec3& p_AB = pair.p;
  const Mat3& R_AB = pair.R;
  const double r_a = f.r_a, r_b = f.r_b, tolerance_m = f.tolerance_m;
  // Only rounded boxes whose swept shapes touch come here (separated_closest_points answered the
  // others): the closest points again, by exhaustion, to decide between one point and a patch.
  // The SAT separation is only a lower bound: the exact distance is attained by a corner against
  // the other box, or (when no closest pair contains a corner) by two edges joined along their
  // common perpendicular — then an edge-pair axis with that separation > 0.
  SegmentClosestPoints closest;
  closest.distance_squared_m2 = std::numeric_limits<double>::infinity();
  // The common case first: the best axis is a face normal and the other box's support corner
  // along it projects into that face. The pair (corner, its foot on the face) is then as far
  // apart as the separation along the axis, a lower bound of the distance: it is the distance.
  if (best.kind == AxisKind::face_a) {
    const double sign = sign_of(p_AB[best.i]);
    const Vec3 n_A = sign * Vec3::Unit(best.i);
    const Vec3 signs_b = (-(R_AB.transpose() * n_A)).unaryExpr(&sign_of);
    const Vec3 corner_b_A = p_AB + R_AB * signs_b.cwiseProduct(h_b);
    const int p = (best.i + 1) % 3, q = (best.i + 2) % 3;
    if (std::abs(corner_b_A[p]) <= h_a[p] && std::abs(corner_b_A[q]) <= h_a[q]) {
      Vec3 foot_A = corner_b_A;
      foot_A[best.i] = sign * h_a[best.i];
      closest = {0.0, 0.0, foot_A, corner_b_A, (corner_b_A - foot_A).squaredNorm()};
    }
  } else if (best.kind == AxisKind::face_b) {
    const Vec3 n_A = sign_of(p_AB.dot(best.u_A)) * best.u_A;
    const Vec3 corner_a_A = n_A.unaryExpr(&sign_of).cwiseProduct(h_a);
    const Vec3 corner_a_B = R_AB.transpose() * (corner_a_A - p_AB);
    const int j = best.j, p = (j + 1) % 3, q = (j + 2) % 3;
    if (std::abs(corner_a_B[p]) <= h_b[p] && std::abs(corner_a_B[q]) <= h_b[q]) {
      Vec3 foot_B = corner_a_B;
      foot_B[j] = sign_of(corner_a_B[j]) * h_b[j];
      const Vec3 foot_A = p_AB + R_AB * foot_B;
      closest = {0.0, 0.0, corner_a_A, foot_A, (foot_A - corner_a_A).squaredNorm()};
    }
  }
  const bool face_found = closest.distance_squared_m2 < std::numeric_limits<double>::infinity();
  for (int corner = 0; corner < 8 && !face_found; ++corner) {
    const Vec3 signs = corner_signs(corner);
    // B's corner against A (in A's frame) ...
    const Vec3 corner_b_A = p_AB + R_AB * signs.cwiseProduct(h_b);
    const Vec3 on_a_A = corner_b_A.cwiseMax(-h_a).cwiseMin(h_a);
    const double d2_b = (corner_b_A - on_a_A).squaredNorm();
    if (d2_b < closest.distance_squared_m2) closest = {0.0, 0.0, on_a_A, corner_b_A, d2_b};
    // ... and A's corner against B (in B's frame; the point is brought back to A's frame).
    const Vec3 corner_a_A = signs.cwiseProduct(h_a);
    const Vec3 corner_a_B = R_AB.transpose() * (corner_a_A - p_AB);
    const Vec3 on_b_B = corner_a_B.cwiseMax(-h_b).cwiseMin(h_b);
    const double d2_a = (corner_a_B - on_b_B).squaredNorm();
    if (d2_a < closest.distance_squared_m2) {
      closest = {0.0, 0.0, corner_a_A, Vec3(p_AB + R_AB * on_b_B), d2_a};
    }
  }
  // Two edges whose closest points are interior to both are joined along their common
  // perpendicular, the edge-pair axis, whose separation is then the distance; as the distance
  // bounds every axis' separation from above, only axes within the tolerance of the best can.
  for (int i = 0; i < 3 && !face_found; ++i) {
    for (int j = 0; j < 3; ++j) {
      if (!(edge_separation(pair, i, j) >= best.separation_m - tolerance_m)) continue;
      const Vec3 u_A = edge_axis(R_AB, i, j);
      closest_support_edges(pair, i, j, sign_of(p_AB.dot(u_A)) * u_A, true, closest);
    }
  }
  // From the points as stored in A's frame, so that the normal below is unit to rounding.
  const double distance_m = (closest.point_q - closest.point_p).norm();
  const bool face_realises_distance =
      best.kind != AxisKind::edges && best.separation_m >= distance_m - tolerance_m;
  // The swept shapes are separated, or their contact is not a face contact: one exact point.
  // Otherwise (rounded boxes whose cores face each other within r_A + r_B) the face patch below
  // reports the same deepest distance plus the other points of the patch.
  if (distance_m - r_a - r_b > tolerance_m || !face_realises_distance) {
    if (best.separation_m >= distance_m - tolerance_m) {
      // The best axis realises the distance (a face against a corner, edge or face, or two
      // edges): its direction is exact, while the difference of the closest points carries
      // their rounding divided by the distance. The points are centred on it.
      const Vec3 n_A = sign_of(p_AB.dot(best.u_A)) * best.u_A;
      const Vec3 middle_A = 0.5 * (closest.point_p + closest.point_q);
      out.points[0] = f.to_world(middle_A - 0.5 * distance_m * n_A,
                                 middle_A + 0.5 * distance_m * n_A, n_A, distance_m);
    } else {
      out.points[0] = f.to_world(closest.point_p, closest.point_q,
                                 (closest.point_q - closest.point_p) / distance_m, distance_m);
    }
    out.count = 1;
    return true;
  }
  return false;
}

}  // namespace contactlab::plugins::primitive
