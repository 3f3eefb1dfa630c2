// The box–box pair of the primitive narrow phase: the outline of box_box() (see box_box.hpp), its
// warm start from the pair's cache, and the answers of the corner certificates.
//
// Outline: the warm corner (the cached corner pair, certified) → the cold corners along the
// centre direction (certified) → the cached edge pair or normal → the bracketed search from the
// centre direction (box_closest_features) → the separating-axis test (box_separating_axes) and
// what follows it: the closest points of separated cores, else the contact of overlapping ones
// (box_manifold).
#include "box_box.hpp"

#include <cmath>
#include <limits>

#include "box_closest_features.hpp"
#include "box_manifold.hpp"
#include "box_pair.hpp"
#include "box_separating_axes.hpp"

namespace contactlab::plugins {

namespace {

using namespace primitive;

/// The warm start of a separated answer, into the pair's cache.
[[gnu::always_inline]] inline void write_warm_start(NarrowPhaseCache& cache, int feature,
                                                    const Vec3& normal_A) {
  BoxBoxWarmStart& warm = cache_entry<BoxBoxWarmStart>(cache, kBoxBoxCacheTag);
  warm.feature = feature;
  warm.normal_A = {normal_A[0], normal_A[1], normal_A[2]};
}

/// A certified corner pair: B's corner against A (corner_of_b, c.corner_W from A's centre) or
/// A's corner against B (from B's centre). One point: the corner and its closest point on the
/// other box, whose difference is distance·normal to rounding; false (nothing written) when the
/// swept shapes are not separated by more than tolerance_m. The cache keeps the corner; a corner
/// of A whose closest point is a corner of B (clamped on every axis) is kept as that corner of B,
/// so that corner–corner pairs always take the same branch.
[[gnu::always_inline]] inline bool answer_certified_corner(
    bool corner_of_b, const CornerAgainstBox& c, const Vec3& gap_W, const Vec3& m_C, int bits,
    const Pose& X_WA, const Pose& X_WB, double r_a, double r_b, double tolerance_m,
    ContactManifold& out, NarrowPhaseCache* cache) {
  const double distance_m = std::sqrt(c.distance_squared_m2);
  if (!(distance_m - r_a - r_b > tolerance_m)) return false;
  const double inverse = 1.0 / distance_m;
  ContactGeometry& g = out.points[0];
  out.count = 1;
  const Vec3 on_c_W = (corner_of_b ? X_WA.p : X_WB.p) + c.corner_W;
  const Vec3 on_f_W = on_c_W - gap_W;
  const Vec3 normal_W = inverse * gap_W;  // from F to C
  g.distance_m = distance_m;
  g.normal_W = corner_of_b ? normal_W : Vec3(-normal_W);
  g.point_a_W = corner_of_b ? on_f_W : on_c_W;
  g.point_b_W = corner_of_b ? on_c_W : on_f_W;
  if (r_a != 0.0 || r_b != 0.0) sweep(g, r_a, r_b);
  if (cache != nullptr) {
    int feature = corner_of_b ? bits : kFeatureCornerOfA + bits;
    if (!corner_of_b && c.gap_F[0] != 0.0 && c.gap_F[1] != 0.0 && c.gap_F[2] != 0.0) {
      feature = support_bits(c.gap_F);
    }
    // The normal from A to B in A's frame: F's gap when F is A, −R_WAᵀ(gap_W)/|g| when C is A.
    const Vec3 normal_A = corner_of_b ? Vec3(inverse * c.gap_F) : Vec3(-inverse * m_C);
    write_warm_start(*cache, feature, normal_A);
  }
  return true;
}

/// The quantities every box–box path shares: the cores' half extents, the smoothing radii, the
/// touching tolerance and the certificate's margin (see box_box).
struct BoxBoxScales {
  Vec3 h_a, h_b;
  double r_a, r_b, size_m, tolerance_m, certify_m;
  Vec3 d_W;  // B's centre from A's, world axes
};

[[gnu::always_inline]] inline BoxBoxScales box_box_scales(const Shape& a, const Pose& X_WA,
                                                          const Shape& b, const Pose& X_WB) {
  BoxBoxScales k;
  k.h_a = core_half_extents(a);
  k.h_b = core_half_extents(b);
  k.r_a = a.smoothing_radius_m;
  k.r_b = b.smoothing_radius_m;
  k.size_m = a.half_extents_m.maxCoeff() + b.half_extents_m.maxCoeff();
  k.tolerance_m = kRelativeTolerance * k.size_m;
  k.d_W = X_WB.p - X_WA.p;
  // Separated cores: exact closest points, to 64 ε of the coordinates' magnitude relative to A
  // (the size of the boxes and of their offset). Rounded boxes whose swept shapes touch through a
  // face go on below instead, for the face patch rather than one point.
  k.certify_m =
      64.0 * std::numeric_limits<double>::epsilon() * (k.size_m + k.d_W.cwiseAbs().maxCoeff());
  return k;
}

/// Temporal coherence, first step: the corner of the last separated answer (feature < 16),
/// certified by certify_corner and answered by answer_certified_corner. A function of its own,
/// apart from the search, so that the common warm query runs through a small frame, without the
/// search's register pressure and spills. False (nothing written) when the cache holds no corner or
/// its corner is not certified.
[[gnu::always_inline]] inline bool box_box_warm_corner(const Shape& a, const Pose& X_WA,
                                                       const Shape& b, const Pose& X_WB,
                                                       ContactManifold& out,
                                                       NarrowPhaseCache& cache) {
  const BoxBoxWarmStart* warm = cached_entry<BoxBoxWarmStart>(cache, kBoxBoxCacheTag);
  if (warm == nullptr || !(warm->feature >= 0 && warm->feature < kFeatureEdges)) return false;
  const BoxBoxScales k = box_box_scales(a, X_WA, b, X_WB);
  const int feature = warm->feature;
  const bool corner_of_b = feature < kFeatureCornerOfA;
  const int bits = feature & 7;
  const Mat3& R_WC = corner_of_b ? X_WB.R : X_WA.R;
  const Mat3& R_WF = corner_of_b ? X_WA.R : X_WB.R;
  const Vec3& h_c = corner_of_b ? k.h_b : k.h_a;
  const Vec3& h_f = corner_of_b ? k.h_a : k.h_b;
  const Vec3 d_FC_W = corner_of_b ? k.d_W : Vec3(-k.d_W);
  const Vec3 signs = corner_signs_of(bits);
  CornerAgainstBox c;
  corner_against_box(R_WC, h_c, signs, R_WF, h_f, d_FC_W, c);
  Vec3 gap_W, m_C;
  return certify_corner(c, R_WC, h_c, signs, R_WF, k.certify_m, gap_W, m_C) &&
         answer_certified_corner(corner_of_b, c, gap_W, m_C, bits, X_WA, X_WB, k.r_a, k.r_b,
                                 k.tolerance_m, out, &cache);
}

// The points are centred on the pair's own direction (so that point_b − point_a =
// distance·normal; they move by rounding only). A corner against a corner is kept as B's corner
// (box_box_warm_corner then takes one branch for it).
[[gnu::noinline]] bool answer_separated_pair(const BoxBoxContact& f, const PairCandidate& closest,
                                             const Vec3& normal, ContactManifold& out,
                                             NarrowPhaseCache* cache) {
  const Mat3& R_AB = f.pair.R;
  const Vec3& h_b = f.pair.h_b;
  const double r_a = f.r_a, r_b = f.r_b, tolerance_m = f.tolerance_m;
  const double distance_m = std::sqrt(closest.distance_squared_m2);
  if (!(distance_m - r_a - r_b > tolerance_m)) return false;
  const Vec3 middle = 0.5 * (closest.on_a + closest.on_b);
  const Vec3 half = (0.5 * distance_m) * normal;
  out.points[0] = f.to_world(middle - half, middle + half, normal, distance_m);
  out.count = 1;
  if (cache != nullptr) {
    int feature = closest.feature;
    if (feature >= kFeatureCornerOfA && feature < kFeatureEdges) {
      const Vec3 on_b_B = transpose_times(R_AB, closest.on_b) - f.pair.p_B;
      if (std::abs(on_b_B[0]) >= h_b[0] && std::abs(on_b_B[1]) >= h_b[1] &&
          std::abs(on_b_B[2]) >= h_b[2]) {
        feature = support_bits(on_b_B);
      }
    }
    write_warm_start(*cache, feature, normal);
  }
  return true;
}

/// What follows the separating-axis test (axis `best`): the closest points of separated cores
/// (from that axis), else the contact of overlapping or touching ones.
[[gnu::noinline]] void box_box_from_axis(const BoxBoxContact& f, const Axis& best, double certify_m,
                                         int max_points, ContactManifold& out,
                                         NarrowPhaseCache* cache) {
  if (best.separation_m > f.tolerance_m) {
    const Vec3 n = sign_of(f.pair.p.dot(best.u_A)) * best.u_A;
    PairCandidate closest;
    Vec3 normal;
    separated_closest_points(f.pair, n, transpose_times(f.pair.R, n), best.separation_m,
                             best.kind == AxisKind::edges ? best.i : -1, best.j, certify_m, closest,
                             normal);
    if (answer_separated_pair(f, closest, normal, out, cache)) return;
    if (box_box_touching_rounded(f, best, out)) return;
  }
  if (best.kind == AxisKind::edges) {
    box_box_edge_contact(f, best, out);
  } else {
    box_box_face_contact(f, best, max_points, out);
  }
}

/// The cold first step of separated cores (see box_box_search): the support corners along the
/// centre direction n (A's along n, B's along −n), each against the other box; the closer pair
/// when certified. False (nothing written) otherwise.
[[gnu::noinline]] bool box_box_centre_corners(const Shape& a, const Pose& X_WA, const Shape& b,
                                              const Pose& X_WB, const BoxPairInA& pair,
                                              const Vec3& d_W, const Vec3& centre_n_A,
                                              const Vec3& centre_n_B, double tolerance_m,
                                              double certify_m, ContactManifold& out,
                                              NarrowPhaseCache* cache) {
  const Vec3& h_a = pair.h_a;
  const Vec3& h_b = pair.h_b;
  const Vec3 signs_a = centre_n_A.unaryExpr(&sign_of);
  const Vec3 signs_b = -centre_n_B.unaryExpr(&sign_of);
  CornerAgainstBox corner_b, corner_a;
  corner_against_box(X_WB.R, h_b, signs_b, X_WA.R, h_a, d_W, corner_b);
  corner_against_box(X_WA.R, h_a, signs_a, X_WB.R, h_b, Vec3(-d_W), corner_a);
  const bool corner_of_b = corner_b.distance_squared_m2 <= corner_a.distance_squared_m2;
  const CornerAgainstBox& c = corner_of_b ? corner_b : corner_a;
  const Mat3& R_WC = corner_of_b ? X_WB.R : X_WA.R;
  const Mat3& R_WF = corner_of_b ? X_WA.R : X_WB.R;
  const Vec3& h_c = corner_of_b ? h_b : h_a;
  const Vec3& signs = corner_of_b ? signs_b : signs_a;
  Vec3 gap_W, m_C;
  return certify_corner(c, R_WC, h_c, signs, R_WF, certify_m, gap_W, m_C) &&
         answer_certified_corner(corner_of_b, c, gap_W, m_C, support_bits(signs), X_WA, X_WB,
                                 a.smoothing_radius_m, b.smoothing_radius_m, tolerance_m, out,
                                 cache);
}

/// The warm start when the cache's corner was not certified (box_box_warm_corner): the cached edge
/// pair under the same certificate, then the cached normal as the start of the search. False when
/// neither answers (the cache is then cleared).
[[gnu::noinline]] bool box_box_cached_search(const BoxBoxContact& contact, double certify_m,
                                             const BoxBoxWarmStart& warm, ContactManifold& out,
                                             NarrowPhaseCache* cache) {
  const BoxPairInA& pair = contact.pair;
  const Mat3& R_AB = pair.R;
  const double tolerance_m = contact.tolerance_m;
  auto answer_separated = [&](const PairCandidate& closest, const Vec3& normal) {
    return answer_separated_pair(contact, closest, normal, out, cache);
  };
  PairCandidate closest;
  if (warm.feature >= kFeatureEdges && warm.feature < kFeatureCount) {
    offer_feature(pair, warm.feature, closest);
  }
  if (closest.distance_squared_m2 < kInfinity) {
    const Vec3 n = unit_direction(closest);
    const double separation_m = separation_along(pair, n, transpose_times(R_AB, n));
    if (std::sqrt(closest.distance_squared_m2) - separation_m <= certify_m &&
        answer_separated(closest, n)) {
      return true;
    }
  }
  // Else the last normal starts the search, when it still separates the cores (the feature
  // pair, if still a pair, is an upper bound already). Normalised again: a separation is a
  // lower bound only along a unit direction, and the cache is the host's memory.
  const Vec3 cached(warm.normal_A[0], warm.normal_A[1], warm.normal_A[2]);
  const double cached_squared = cached.squaredNorm();
  const Vec3 n = cached / std::sqrt(cached_squared);
  const Vec3 n_B = transpose_times(R_AB, n);
  const double separation_m = separation_along(pair, n, n_B);
  if (cached_squared > 0.0 && separation_m > tolerance_m) {
    Vec3 normal;
    separated_closest_points(pair, n, n_B, separation_m, -1, -1, certify_m, closest, normal);
    if (answer_separated(closest, normal)) return true;
  }
  cache->tag = 0;  // empty: the next query starts cold
  return false;
}

/// Everything but the warm corner: cold corners, cached edge pairs and normals, the search for
/// separated cores, and the separating-axis test with what follows it. Each step that is not
/// always taken is a function of its own, so that this frame stays small: the common overlapping
/// query runs through the prologue, the test and the contact without spilling their values.
[[gnu::noinline]] void box_box_search(const Shape& a, const Pose& X_WA, const Shape& b,
                                      const Pose& X_WB, int max_points, ContactManifold& out,
                                      NarrowPhaseCache* cache) {
  // As in box_box_scales (the values must agree with the warm corner's). Everything in A's frame:
  // B's axes are the columns of R_AB, its centre is p_AB.
  BoxPairInA pair;
  pair.h_a = core_half_extents(a);
  pair.h_b = core_half_extents(b);
  const double size_m = a.half_extents_m.maxCoeff() + b.half_extents_m.maxCoeff();
  const double tolerance_m = kRelativeTolerance * size_m;
  const Vec3 d_W = X_WB.p - X_WA.p;
  const double certify_m =
      64.0 * std::numeric_limits<double>::epsilon() * (size_m + d_W.cwiseAbs().maxCoeff());

  // Cold, first step: the direction n between the centres. When the cores are separated along it
  // (else they probably overlap, and the separating-axis test below is needed anyway), the support
  // corners along it — A's along n, B's along −n — each against the other box give the closer
  // candidate pair, certified as above: the closest pair whenever it contains one of these
  // corners. The separation along n is |d| − h_a·|R_WAᵀn| − h_b·|R_WBᵀn|.
  // B's centre in A's frame and A's in B's (negated): also the pair's frame data below.
  pair.p = transpose_times(X_WA.R, d_W);
  pair.p_B = transpose_times(X_WB.R, d_W);
  // |d|·(separation along d/|d|), decided without the square root when it is not positive (the
  // usual overlapping case).
  const double centre_distance_squared_m2 = d_W.squaredNorm();
  const double scaled_separation_m2 = centre_distance_squared_m2 - pair.h_a.dot(pair.p.cwiseAbs()) -
                                      pair.h_b.dot(pair.p_B.cwiseAbs());
  Vec3 centre_n_A = Vec3::Zero(), centre_n_B = Vec3::Zero();
  double centre_separation_m = -kInfinity;
  if (scaled_separation_m2 > 0.0) {
    const double inverse = 1.0 / std::sqrt(centre_distance_squared_m2);
    centre_n_A = inverse * pair.p;
    centre_n_B = inverse * pair.p_B;
    centre_separation_m = inverse * scaled_separation_m2;
  }
  if (centre_separation_m > tolerance_m &&
      box_box_centre_corners(a, X_WA, b, X_WB, pair, d_W, centre_n_A, centre_n_B, tolerance_m,
                             certify_m, out, cache)) {
    return;
  }

  for (int j = 0; j < 3; ++j) pair.R.col(j) = transpose_times(X_WA.R, X_WB.R.col(j));
  const BoxBoxContact contact{X_WA,   X_WB,       pair, a.smoothing_radius_m, b.smoothing_radius_m,
                              size_m, tolerance_m};
  if (cache != nullptr) {
    const BoxBoxWarmStart* warm = cached_entry<BoxBoxWarmStart>(*cache, kBoxBoxCacheTag);
    if (warm != nullptr && box_box_cached_search(contact, certify_m, *warm, out, cache)) return;
  }

  // The search from the centre direction, when its corners were not the closest pair.
  if (centre_separation_m > tolerance_m) {
    PairCandidate closest;
    Vec3 normal;
    separated_closest_points(pair, centre_n_A, centre_n_B, centre_separation_m, -1, -1, certify_m,
                             closest, normal);
    if (answer_separated_pair(contact, closest, normal, out, cache)) return;
  }

  box_box_from_axis(contact, separating_axes(pair, tolerance_m), certify_m, max_points, out, cache);
}

}  // namespace

void box_box(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB, int max_points,
             ContactManifold& out, NarrowPhaseCache* cache) {
  if (cache != nullptr && box_box_warm_corner(a, X_WA, b, X_WB, out, *cache)) return;
  box_box_search(a, X_WA, b, X_WB, max_points, out, cache);
}

}  // namespace contactlab::plugins
