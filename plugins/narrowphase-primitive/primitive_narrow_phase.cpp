// Closed forms of the primitive narrow phase (see primitive_narrow_phase.hpp for the contract,
// the smoothing rule and the manifold rule), and the plugin class that dispatches to them.
#include "primitive_narrow_phase.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

namespace {

// Below this squared centre distance (1e-100 m) the direction between two points is taken as
// undefined: far below any physical length, and far above the range where the squared norm
// underflows and Δ/|Δ| would lose its unit length.
constexpr double kCoincidentSquared_m2 = 1e-200;

// Relative size (of the coordinates or of the shapes) below which a length is rounding noise:
// two closest points nearer than this are coincident (their difference has no direction), a
// manifold point whose distance is below this touches, and of two box axes whose separations
// differ by less than this the face axis is preferred.
constexpr double kRelativeTolerance = 1e-12;

// Two manifold points nearer than this fraction of the shapes' size are one point (the clipped
// polygon repeats a vertex that lies on a clipping plane).
constexpr double kDistinctPointFraction = 1e-9;

// A unit-vector component this small counts as zero when choosing the support edge of a box: both
// parallel edges are then tried.
constexpr double kSupportTieComponent = 1e-12;

// At most 8 candidate points: a rectangle clipped by the 4 side planes of another one.
constexpr int kMaxCandidates = 8;

constexpr double sign_of(double value) {
  return value < 0.0 ? -1.0 : 1.0;
}

double clamp01(double value) {
  return std::clamp(value, 0.0, 1.0);
}

/// a·b − c·d with one rounding (Kahan's algorithm with fused multiply–adds; Jeannerod, Louvet &
/// Muller 2013): no cancellation error when the two products nearly agree.
double difference_of_products(double a, double b, double c, double d) {
  const double cd = c * d;
  const double cd_error = std::fma(-c, d, cd);
  return std::fma(a, b, -cd) + cd_error;
}

/// u × v with every component from difference_of_products.
Vec3 compensated_cross(const Vec3& u, const Vec3& v) {
  return Vec3(difference_of_products(u.y(), v.z(), u.z(), v.y()),
              difference_of_products(u.z(), v.x(), u.x(), v.z()),
              difference_of_products(u.x(), v.y(), u.y(), v.x()));
}

/// d_p × d_q for two segment directions; when they are nearly parallel (sin(angle) ≤ 1e-6) the
/// plain cross product has relative error ε/sin, so it is recomputed with compensated differences
/// of products, which keep it accurate to a few ε.
Vec3 segment_cross(const Vec3& d_p, const Vec3& d_q) {
  const Vec3 n = d_p.cross(d_q);
  return n.squaredNorm() <= 1e-12 * d_p.squaredNorm() * d_q.squaredNorm()
             ? compensated_cross(d_p, d_q)
             : n;
}

/// Half extents of a box's core: shrunk by the smoothing radius, never negative.
Vec3 core_half_extents(const Shape& box) {
  return (box.half_extents_m - Vec3::Constant(box.smoothing_radius_m)).cwiseMax(0.0);
}

/// The signs (±1) of corner `index` (0..7) of a box: bit 0 for x, bit 1 for y, bit 2 for z.
Vec3 corner_signs(int index) {
  return Vec3((index & 1) ? 1.0 : -1.0, (index & 2) ? 1.0 : -1.0, (index & 4) ? 1.0 : -1.0);
}

/// Largest absolute coordinate of the points [m]: the magnitude against which rounding is judged.
double coordinate_scale(const Vec3& p, const Vec3& q, const Vec3& r, const Vec3& s) {
  return std::max({p.cwiseAbs().maxCoeff(), q.cwiseAbs().maxCoeff(), r.cwiseAbs().maxCoeff(),
                   s.cwiseAbs().maxCoeff()});
}

/// Moves a core contact to the swept shapes (see the header): A's witness point out by r_A along
/// the normal, B's by r_B against it, the distance down by both.
void sweep(ContactGeometry& geometry, double radius_a_m, double radius_b_m) {
  geometry.distance_m -= radius_a_m + radius_b_m;
  geometry.point_a_W += radius_a_m * geometry.normal_W;
  geometry.point_b_W -= radius_b_m * geometry.normal_W;
}

/// Contact of two swept points (sphere, capsule): core points core_a_W and core_b_W swept by
/// radius_a_m and radius_b_m. When the cores are closer than coincident_m, their difference is
/// rounding noise: fallback_normal_W (unit, A to B) is used, both core points are taken at their
/// midpoint, and the distance is −(r_A + r_B).
ContactGeometry swept_points(const Vec3& core_a_W, double radius_a_m, const Vec3& core_b_W,
                             double radius_b_m, const Vec3& fallback_normal_W,
                             double coincident_m) {
  const Vec3 d_W = core_b_W - core_a_W;
  const double gap_squared_m2 = d_W.squaredNorm();
  ContactGeometry out;
  if (gap_squared_m2 > kCoincidentSquared_m2 && gap_squared_m2 > coincident_m * coincident_m) {
    const double gap_m = std::sqrt(gap_squared_m2);
    out.normal_W = d_W / gap_m;
    out.distance_m = gap_m;
    out.point_a_W = core_a_W;
    out.point_b_W = core_b_W;
  } else {
    const Vec3 midpoint_W = 0.5 * (core_a_W + core_b_W);
    out.normal_W = fallback_normal_W;
    out.distance_m = 0.0;
    out.point_a_W = midpoint_W;
    out.point_b_W = midpoint_W;
  }
  sweep(out, radius_a_m, radius_b_m);
  return out;
}

/// Candidate points of one contact patch, all with the pair's normal, before reduction.
struct PatchCandidates {
  std::array<ContactGeometry, kMaxCandidates> points{};
  int count = 0;
  void add(const Vec3& point_a_W, const Vec3& point_b_W, const Vec3& normal_W, double distance_m) {
    if (count == kMaxCandidates) return;
    ContactGeometry& g = points[count++];
    g.point_a_W = point_a_W;
    g.point_b_W = point_b_W;
    g.normal_W = normal_W;
    g.distance_m = distance_m;
  }
};

/// Chooses at most max_points of `count` candidate points (count ≤ kMaxCandidates), given their
/// positions in the tangent plane of the normal n and their signed distances: the deepest first,
/// then — among the candidates that touch or penetrate — the one farthest from it, then the two
/// spanning the largest triangles with that diagonal on either side (larger first). This keeps the
/// deepest point and the spread of the patch (the area-maximising reduction of Gregorius, "Robust
/// contact creation for physics simulations", GDC 2015). Writes the chosen indices in order and
/// returns how many. Any frame will do, as long as the positions and n share it.
int choose_patch_points(const std::array<Vec3, kMaxCandidates>& tangential,
                        const std::array<double, kMaxCandidates>& distance_m, int count,
                        const Vec3& n, int max_points, double length_scale_m,
                        std::array<int, max_manifold_points>& chosen) {
  int deepest = 0;
  for (int i = 1; i < count; ++i) {
    if (distance_m[i] < distance_m[deepest]) deepest = i;
  }
  chosen[0] = deepest;
  if (max_points <= 1) return 1;

  const double touching_m = kRelativeTolerance * length_scale_m;
  const double distinct_m = kDistinctPointFraction * length_scale_m;
  auto eligible = [&](int i) { return i != deepest && distance_m[i] <= touching_m; };
  // Does candidate i (score `value`) beat the current choice `best` (score best_value; −1 when
  // none, best_value then being the threshold)? Scores within a relative 1e-9 tie, and the deeper
  // point wins: the choice then does not hinge on rounding (e.g. on the order of A and B).
  auto beats = [&](double value, int i, double best_value, int best) {
    if (best < 0) return value > best_value;
    const double margin = 1e-9 * std::max(std::abs(value), std::abs(best_value));
    if (value != best_value && std::abs(value - best_value) > margin) return value > best_value;
    return distance_m[i] < distance_m[best];
  };
  const Vec3& t0 = tangential[deepest];

  int farthest = -1;
  double farthest_squared_m2 = distinct_m * distinct_m;
  for (int i = 0; i < count; ++i) {
    if (!eligible(i)) continue;
    const double d2 = (tangential[i] - t0).squaredNorm();
    if (beats(d2, i, farthest_squared_m2, farthest)) {
      farthest_squared_m2 = d2;
      farthest = i;
    }
  }
  if (farthest < 0) return 1;
  chosen[1] = farthest;
  if (max_points == 2) return 2;

  // Signed doubled areas of the triangles (deepest, farthest, i) about the normal.
  const Vec3 diagonal = tangential[farthest] - t0;
  const double min_area_m2 = distinct_m * std::sqrt(farthest_squared_m2);
  int left = -1, right = -1;
  double left_area = min_area_m2, right_area = min_area_m2;
  for (int i = 0; i < count; ++i) {
    if (!eligible(i) || i == farthest) continue;
    const double area = diagonal.cross(tangential[i] - t0).dot(n);
    if (area > 0.0 && beats(area, i, left_area, left)) {
      left_area = area;
      left = i;
    } else if (area < 0.0 && beats(-area, i, right_area, right)) {
      right_area = -area;
      right = i;
    }
  }
  if (right >= 0 && (left < 0 || beats(right_area, right, left_area, left))) std::swap(left, right);
  int chosen_count = 2;
  for (const int i : {left, right}) {
    if (i >= 0 && chosen_count < max_points) chosen[chosen_count++] = i;
  }
  return chosen_count;
}

/// Keeps at most max_points of the candidates in `out`, chosen by choose_patch_points; distances
/// are compared in the tangent plane of the first candidate's normal (the pair's normal).
void reduce_patch(const PatchCandidates& candidates, int max_points, double length_scale_m,
                  ContactManifold& out) {
  const Vec3& n_W = candidates.points[0].normal_W;
  // Each candidate's position (the middle of its witness points) in the tangent plane.
  std::array<Vec3, kMaxCandidates> tangential_W;
  std::array<double, kMaxCandidates> distance_m;
  for (int i = 0; i < candidates.count; ++i) {
    const Vec3 middle_W = 0.5 * (candidates.points[i].point_a_W + candidates.points[i].point_b_W);
    tangential_W[i] = middle_W - n_W.dot(middle_W) * n_W;
    distance_m[i] = candidates.points[i].distance_m;
  }
  std::array<int, max_manifold_points> chosen;
  out.count = choose_patch_points(tangential_W, distance_m, candidates.count, n_W, max_points,
                                  length_scale_m, chosen);
  for (int k = 0; k < out.count; ++k) out.points[k] = candidates.points[chosen[k]];
}

/// One Sutherland–Hodgman step (Sutherland & Hodgman 1974): the part of the convex polygon `in`
/// where side·x[axis] ≤ limit, into `out`. Returns the new vertex count (≤ 8).
int clip_polygon(const std::array<Vec3, kMaxCandidates>& in, int count, int axis, double side,
                 double limit, std::array<Vec3, kMaxCandidates>& out) {
  int kept = 0;
  if (count == 0) return 0;
  double f_from = side * in[0][axis] - limit;
  for (int i = 0; i < count; ++i) {
    const Vec3& from = in[i];
    const Vec3& to = in[i + 1 == count ? 0 : i + 1];
    const double f_to = side * to[axis] - limit;
    if (f_from <= 0.0 && kept < kMaxCandidates) out[kept++] = from;
    if (((f_from < 0.0 && f_to > 0.0) || (f_from > 0.0 && f_to < 0.0)) && kept < kMaxCandidates) {
      out[kept++] = from + (f_from / (f_from - f_to)) * (to - from);
    }
    f_from = f_to;
  }
  return kept;
}

/// Face contact of two boxes in the reference box's frame R: the reference face is the face of
/// the reference box with outward normal m = sign·e_axis. The incident face is the face of the
/// other box (axes R_RI, centre p_RI, half extents h_incident) whose outward normal is most
/// anti-parallel to m; its corners are clipped to the side planes of the reference face. Returns
/// the clipped polygon (in R) and each vertex's signed distance above the reference face plane.
int clip_incident_face(const Vec3& h_reference, int axis, double sign, const Mat3& R_RI,
                       const Vec3& p_RI, const Vec3& h_incident,
                       std::array<Vec3, kMaxCandidates>& polygon_R,
                       std::array<double, kMaxCandidates>& heights_m) {
  int incident_axis = 0;
  for (int j = 1; j < 3; ++j) {
    if (std::abs(R_RI(axis, j)) > std::abs(R_RI(axis, incident_axis))) incident_axis = j;
  }
  const double face_side = sign * R_RI(axis, incident_axis) > 0.0 ? -1.0 : 1.0;
  const Vec3 centre_R = p_RI + face_side * h_incident[incident_axis] * R_RI.col(incident_axis);
  const int u = (incident_axis + 1) % 3, v = (incident_axis + 2) % 3;
  const Vec3 half_u = h_incident[u] * R_RI.col(u);
  const Vec3 half_v = h_incident[v] * R_RI.col(v);
  std::array<Vec3, kMaxCandidates> scratch;
  polygon_R[0] = centre_R + half_u + half_v;
  polygon_R[1] = centre_R - half_u + half_v;
  polygon_R[2] = centre_R - half_u - half_v;
  polygon_R[3] = centre_R + half_u - half_v;
  int count = 4;
  for (const int side_axis : {(axis + 1) % 3, (axis + 2) % 3}) {
    count = clip_polygon(polygon_R, count, side_axis, 1.0, h_reference[side_axis], scratch);
    count = clip_polygon(scratch, count, side_axis, -1.0, h_reference[side_axis], polygon_R);
  }
  for (int i = 0; i < count; ++i) heights_m[i] = sign * polygon_R[i][axis] - h_reference[axis];
  return count;
}

/// The signs a support feature may take along an axis whose component of the direction is
/// `component`: its sign, or both when it is (almost) zero. Returns how many.
int support_signs(double component, std::array<double, 2>& signs) {
  signs = {sign_of(component), -sign_of(component)};
  return std::abs(component) <= kSupportTieComponent ? 2 : 1;
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// Spheres (unchanged closed forms).

ContactGeometry sphere_sphere(double radius_a_m, const Vec3& p_WA, double radius_b_m,
                              const Vec3& p_WB) {
  const Vec3 d_W = p_WB - p_WA;
  const double centre_distance_squared_m2 = d_W.squaredNorm();
  ContactGeometry out;
  double centre_distance_m = 0.0;
  if (centre_distance_squared_m2 > kCoincidentSquared_m2) {
    centre_distance_m = std::sqrt(centre_distance_squared_m2);
    out.normal_W = d_W / centre_distance_m;
  } else {
    // Concentric spheres: every direction is a deepest one; +z of world is the documented choice.
    out.normal_W = Vec3::UnitZ();
  }
  out.distance_m = centre_distance_m - radius_a_m - radius_b_m;
  out.point_a_W = p_WA + radius_a_m * out.normal_W;
  out.point_b_W = p_WB - radius_b_m * out.normal_W;
  return out;
}

ContactGeometry sphere_half_space(double radius_m, const Vec3& p_WA, const Vec3& normal_G,
                                  const Pose& X_WG) {
  // Normalised again so that a hand-built Shape with a non-unit normal still gives a true distance.
  const Vec3 n_W = X_WG.R * normal_G.normalized();
  // Height of the sphere centre above the boundary plane (negative below it).
  const double height_m = n_W.dot(p_WA - X_WG.p);
  ContactGeometry out;
  out.distance_m = height_m - radius_m;
  // The half-space lies along −n_W as seen from the sphere.
  out.normal_W = -n_W;
  out.point_a_W = p_WA - radius_m * n_W;  // lowest point of the sphere
  out.point_b_W = p_WA - height_m * n_W;  // centre projected onto the boundary plane
  return out;
}

ContactGeometry sphere_box(double radius_m, const Vec3& p_WA, const Vec3& half_extents_m,
                           const Pose& X_WB) {
  // Work in the box frame B, where the box is the axis-aligned [−h, h].
  const Vec3 c_B = X_WB.R.transpose() * (p_WA - X_WB.p);
  const Vec3& h = half_extents_m;
  // Closest point of the box = the centre clamped to the box; when the centre is outside, the
  // segment from it to the centre is normal to the box surface, so the sphere's nearest point
  // lies on that segment.
  const Vec3 closest_B = c_B.cwiseMax(-h).cwiseMin(h);
  const Vec3 box_to_centre_B = c_B - closest_B;
  const double gap_squared_m2 = box_to_centre_B.squaredNorm();

  ContactGeometry out;
  // A centre within 1e-100 m of the surface goes to the inside branch, which is continuous with
  // this one there and needs no division by the gap.
  if (gap_squared_m2 > kCoincidentSquared_m2) {
    const double gap_m = std::sqrt(gap_squared_m2);
    const Vec3 n_B = -box_to_centre_B / gap_m;  // from the sphere towards the box
    out.distance_m = gap_m - radius_m;
    out.normal_W = X_WB.R * n_B;
    out.point_b_W = X_WB.transform_point(closest_B);
    out.point_a_W = p_WA + radius_m * out.normal_W;
    return out;
  }

  // Centre inside the closed box (or on its surface): the minimum-translation exit is through the
  // nearest face. Faces are scanned axis 0..2, + before −, and only a strictly smaller depth
  // replaces the current one, which resolves ties deterministically.
  int exit_axis = 0;
  double exit_sign = 1.0;
  double exit_depth_m = h[0] - c_B[0];
  for (int axis = 0; axis < 3; ++axis) {
    for (const double sign : {1.0, -1.0}) {
      const double depth_m = h[axis] - sign * c_B[axis];
      if (depth_m < exit_depth_m) {
        exit_depth_m = depth_m;
        exit_axis = axis;
        exit_sign = sign;
      }
    }
  }
  Vec3 face_normal_B = Vec3::Zero();  // outward normal of the exit face
  face_normal_B[exit_axis] = exit_sign;
  Vec3 face_point_B = c_B;  // the centre projected onto the exit face
  face_point_B[exit_axis] = exit_sign * h[exit_axis];

  const Vec3 face_normal_W = X_WB.R * face_normal_B;
  // The sphere must move along +face normal to separate, so B lies along −face normal from A; this
  // also makes the normal continuous with the outside branch as the centre crosses the face.
  out.distance_m = -(exit_depth_m + radius_m);
  out.normal_W = -face_normal_W;
  out.point_b_W = X_WB.transform_point(face_point_B);
  out.point_a_W = p_WA - radius_m * face_normal_W;
  return out;
}

// ------------------------------------------------------------------------------------------------
// Segments and capsules.

SegmentClosestPoints closest_segment_points(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                            const Vec3& q1) {
  const Vec3 d_p = p1 - p0;
  const Vec3 d_q = q1 - q0;
  const Vec3 w = q0 - p0;
  const double length_p_squared = d_p.squaredNorm();
  const double length_q_squared = d_q.squaredNorm();

  SegmentClosestPoints best;
  best.distance_squared_m2 = std::numeric_limits<double>::infinity();
  auto consider = [&](double s, double t) {
    const Vec3 on_p = p0 + s * d_p;
    const Vec3 on_q = q0 + t * d_q;
    const double d2 = (on_q - on_p).squaredNorm();
    if (d2 < best.distance_squared_m2) best = {s, t, on_p, on_q, d2};
  };

  // Interior stationary point of |p(s) − q(t)|²: there p(s) − q(t) is parallel to n = d_p × d_q.
  // Crossing p0 + s·d_p − q0 − t·d_q = λn with d_q and dotting with n isolates s. For nearly
  // parallel segments s is ill-conditioned, but only along the valley where the distance barely
  // changes; t is therefore not taken from its own formula but as the projection of p(s) onto q's
  // line, which removes the error across the valley, leaving a distance error of order ε·|q0 − p0|.
  const Vec3 n = segment_cross(d_p, d_q);
  const double n_squared = n.squaredNorm();
  if (n_squared > 0.0) {
    const double s = clamp01(w.cross(d_q).dot(n) / n_squared);
    consider(s, clamp01((p0 + s * d_p - q0).dot(d_q) / length_q_squared));
  }
  // Otherwise the minimum of the convex function lies on the boundary of [0, 1]²: an endpoint of
  // one segment against the other segment (Ericson 2005, Real-Time Collision Detection §5.1.9).
  consider(0.0, length_q_squared > 0.0 ? clamp01(-w.dot(d_q) / length_q_squared) : 0.0);
  consider(1.0, length_q_squared > 0.0 ? clamp01((p1 - q0).dot(d_q) / length_q_squared) : 0.0);
  consider(length_p_squared > 0.0 ? clamp01(w.dot(d_p) / length_p_squared) : 0.0, 0.0);
  consider(length_p_squared > 0.0 ? clamp01((q1 - p0).dot(d_p) / length_p_squared) : 0.0, 1.0);

  // Parallel segments (sin² of the angle ≤ 1e-12) with overlapping projections: every point of
  // the overlap is as close; its midpoint is the natural contact point. Taken only when its
  // distance equals the minimum within rounding, so the result stays exact.
  if (length_p_squared > 0.0 && length_q_squared > 0.0 &&
      n_squared <= 1e-12 * length_p_squared * length_q_squared) {
    const double s_q0 = w.dot(d_p) / length_p_squared;
    const double s_q1 = (q1 - p0).dot(d_p) / length_p_squared;
    const double low = std::max(0.0, std::min(s_q0, s_q1));
    const double high = std::min(1.0, std::max(s_q0, s_q1));
    if (low < high) {
      const double s = 0.5 * (low + high);
      const Vec3 on_p = p0 + s * d_p;
      const double t = clamp01((on_p - q0).dot(d_q) / length_q_squared);
      const Vec3 on_q = q0 + t * d_q;
      const double d2 = (on_q - on_p).squaredNorm();
      const double rounding_m = 16.0 * std::numeric_limits<double>::epsilon() *
                                (coordinate_scale(p0, p1, q0, q1) + std::sqrt(length_p_squared) +
                                 std::sqrt(length_q_squared));
      if (std::sqrt(d2) <= std::sqrt(best.distance_squared_m2) + rounding_m) {
        best = {s, t, on_p, on_q, d2};
      }
    }
  }
  return best;
}

ContactGeometry sphere_capsule(const Shape& sphere, const Pose& X_WA, const Shape& capsule,
                               const Pose& X_WB) {
  const Vec3 half_axis_W = capsule.half_length_m * X_WB.R.col(2);
  const Vec3 end0_W = X_WB.p - half_axis_W;
  const Vec3 end1_W = X_WB.p + half_axis_W;
  const Vec3 axis_W = end1_W - end0_W;
  const double axis_squared_m2 = axis_W.squaredNorm();
  const double t =
      axis_squared_m2 > 0.0 ? clamp01((X_WA.p - end0_W).dot(axis_W) / axis_squared_m2) : 0.0;
  const Vec3 closest_W = end0_W + t * axis_W;
  const double coincident_m =
      kRelativeTolerance * coordinate_scale(X_WA.p, end0_W, end1_W, closest_W);
  return swept_points(X_WA.p, sphere.radius_m, closest_W, capsule.radius_m, -X_WB.R.col(0),
                      coincident_m);
}

ContactGeometry capsule_capsule(const Shape& a, const Pose& X_WA, const Shape& b,
                                const Pose& X_WB) {
  const Vec3 half_axis_a_W = a.half_length_m * X_WA.R.col(2);
  const Vec3 half_axis_b_W = b.half_length_m * X_WB.R.col(2);
  const Vec3 a0_W = X_WA.p - half_axis_a_W, a1_W = X_WA.p + half_axis_a_W;
  const Vec3 b0_W = X_WB.p - half_axis_b_W, b1_W = X_WB.p + half_axis_b_W;
  const SegmentClosestPoints closest = closest_segment_points(a0_W, a1_W, b0_W, b1_W);

  // Intersecting segments: the Minkowski difference of the cores is a flat parallelogram (or a
  // segment) through the origin, left fastest along its normal z_A × z_B (or any direction
  // perpendicular to collinear segments: A's +x axis).
  Vec3 fallback_W = X_WA.R.col(0);
  const Vec3 cross_W = X_WA.R.col(2).cross(X_WB.R.col(2));
  if (cross_W.squaredNorm() > 1e-20) {
    fallback_W = cross_W.normalized();
    if (fallback_W.dot(X_WB.p - X_WA.p) < 0.0) fallback_W = -fallback_W;
  }
  const double coincident_m = kRelativeTolerance * coordinate_scale(a0_W, a1_W, b0_W, b1_W);
  return swept_points(closest.point_p, a.radius_m, closest.point_q, b.radius_m, fallback_W,
                      coincident_m);
}

void capsule_half_space(const Shape& capsule, const Pose& X_WA, const Shape& half_space,
                        const Pose& X_WB, int max_points, ContactManifold& out) {
  const Vec3 n_W = X_WB.R * half_space.normal.normalized();
  const Vec3 half_axis_W = capsule.half_length_m * X_WA.R.col(2);
  PatchCandidates candidates;
  for (const Vec3& end_W : {Vec3(X_WA.p - half_axis_W), Vec3(X_WA.p + half_axis_W)}) {
    const double height_m = n_W.dot(end_W - X_WB.p);
    // Lowest point of the end sphere, and its projection onto the boundary plane.
    candidates.add(end_W - capsule.radius_m * n_W, end_W - height_m * n_W, -n_W,
                   height_m - capsule.radius_m);
  }
  reduce_patch(candidates, max_points, capsule.half_length_m + capsule.radius_m, out);
}

// ------------------------------------------------------------------------------------------------
// Boxes and cylinders against half-spaces.

void box_half_space(const Shape& box, const Pose& X_WA, const Shape& half_space, const Pose& X_WB,
                    int max_points, ContactManifold& out) {
  const Vec3 n_W = X_WB.R * half_space.normal.normalized();
  const Vec3 h = core_half_extents(box);
  const double r = box.smoothing_radius_m;
  PatchCandidates candidates;
  for (int corner = 0; corner < 8; ++corner) {
    const Vec3 corner_W = X_WA.transform_point(corner_signs(corner).cwiseProduct(h));
    const double height_m = n_W.dot(corner_W - X_WB.p);
    candidates.add(corner_W - r * n_W, corner_W - height_m * n_W, -n_W, height_m - r);
  }
  reduce_patch(candidates, max_points, box.half_extents_m.maxCoeff(), out);
}

void cylinder_half_space(const Shape& cylinder, const Pose& X_WA, const Shape& half_space,
                         const Pose& X_WB, int max_points, ContactManifold& out) {
  const Vec3 n_W = X_WB.R * half_space.normal.normalized();
  const double r = cylinder.smoothing_radius_m;
  const double radius_m = std::max(0.0, cylinder.radius_m - r);
  const double half_length_m = std::max(0.0, cylinder.half_length_m - r);
  // Direction into the half-space, in the cylinder's frame. The support of a cylinder along d is
  // the rim point of the cap on d's side of the axis, in the direction of d's radial part.
  const Vec3 d_A = -(X_WA.R.transpose() * n_W);
  const double radial = std::hypot(d_A.x(), d_A.y());
  const Vec3 u_A = radial > 0.0 ? Vec3(d_A.x() / radial, d_A.y() / radial, 0.0) : Vec3::UnitX();
  const Vec3 v_A(-u_A.y(), u_A.x(), 0.0);
  const Vec3 cap_A(0.0, 0.0, sign_of(d_A.z()) * half_length_m);

  PatchCandidates candidates;
  auto add_rim_point = [&](const Vec3& point_A) {
    const Vec3 point_W = X_WA.transform_point(point_A);
    const double height_m = n_W.dot(point_W - X_WB.p);
    candidates.add(point_W - r * n_W, point_W - height_m * n_W, -n_W, height_m - r);
  };
  add_rim_point(cap_A + radius_m * u_A);  // the support point: the deepest
  add_rim_point(cap_A + radius_m * v_A);
  add_rim_point(cap_A - radius_m * v_A);
  add_rim_point(cap_A - radius_m * u_A);
  add_rim_point(-cap_A + radius_m * u_A);  // the other cap, below the axis as well
  reduce_patch(candidates, max_points, std::max(cylinder.radius_m, cylinder.half_length_m), out);
}

// ------------------------------------------------------------------------------------------------
// Box–box.

namespace {

/// The stationary point of |p(s) − q(t)|² when it lies inside both segments (as in
/// closest_segment_points); false for parallel segments or when it lies outside, where an
/// endpoint is closest.
bool interior_closest_points(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1,
                             SegmentClosestPoints& out) {
  const Vec3 d_p = p1 - p0;
  const Vec3 d_q = q1 - q0;
  const Vec3 n = segment_cross(d_p, d_q);
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

/// Two box cores seen from A's frame, where A is the axis-aligned [−h_a, h_a]: B's axes are the
/// columns of R (= R_AB) and its centre is p (= p_AB). p_B = Rᵀp, so a point x of A's frame lies
/// at Rᵀx − p_B in B's frame.
struct BoxPairInA {
  Vec3 h_a;
  Vec3 h_b;
  Mat3 R;
  Vec3 p;
  Vec3 p_B;
};

enum class AxisKind { face_a, face_b, edges };

/// A candidate axis of the separating-axis test: unit direction u_A in A's frame (either sign)
/// and the separation of the cores along it (negative: overlap of their projections).
struct Axis {
  AxisKind kind = AxisKind::face_a;
  int i = 0, j = 0;
  Vec3 u_A = Vec3::UnitX();
  double separation_m = -std::numeric_limits<double>::infinity();
};

/// Separation along the unit edge-pair axis u/|u|, u = e_i × b_j, one pair at a time (the same
/// quantities as in separating_axes); −∞ for parallel edges (|u| ≤ 1e-150), whose cross product is
/// no direction.
double edge_separation(const BoxPairInA& pair, int i, int j) {
  const int k = (i + 1) % 3, l = (i + 2) % 3, m = (j + 1) % 3, n = (j + 2) % 3;
  const Mat3& R = pair.R;
  const double u_k = -R(l, j), u_l = R(k, j);
  const double length_squared = u_k * u_k + u_l * u_l;
  if (!(length_squared > 1e-300)) return -std::numeric_limits<double>::infinity();
  const double centre_m = pair.p[k] * u_k + pair.p[l] * u_l;
  const double radius_a_m = pair.h_a[k] * std::abs(u_k) + pair.h_a[l] * std::abs(u_l);
  const double radius_b_m = pair.h_b[m] * std::abs(R(k, m) * u_k + R(l, m) * u_l) +
                            pair.h_b[n] * std::abs(R(k, n) * u_k + R(l, n) * u_l);
  return (std::abs(centre_m) - radius_a_m - radius_b_m) / std::sqrt(length_squared);
}

/// The separating-axis test in A's frame over the 15 axes (Gottschalk, Lin & Manocha 1996): faces
/// of A, faces of B, edge pairs e_i × b_j (parallel edges skipped: their cross product is no
/// direction). Returns the axis of largest separation. Ties prefer A's faces, then B's faces,
/// then edges: a later kind must beat the best by tolerance_m, because faces give stable patches.
///
/// As in Gottschalk's OBB overlap test, B's half width along A's axis i is Σ_j |R_ij| h_b,j and
/// A's along B's axis j is Σ_i |R_ij| h_a,i. Edge axes u = e_i × b_j are exact in A's frame
/// (u_k = −R_lj, u_l = R_kj for (i, k, l) cyclic); no ε is added to |R| as in the boolean test,
/// because the separations themselves are wanted, and parallel edges are skipped instead. B's
/// half width along u uses b_m·u computed from R's entries, not the identity b_m·u = ±R_in of
/// Gottschalk's test: the identity holds only as far as R is orthonormal, an error that grows like
/// ε/|u| for nearly parallel edges, while the products' rounding stays ε|u| (b_j·u itself is
/// exactly 0: its two products cancel exactly).
Axis separating_axes(const BoxPairInA& pair, double tolerance_m) {
  const Vec3& h_a = pair.h_a;
  const Vec3& h_b = pair.h_b;
  const Mat3& R = pair.R;
  Axis best;
  for (int i = 0; i < 3; ++i) {
    const double s =
        std::abs(pair.p[i]) - h_a[i] -
        (std::abs(R(i, 0)) * h_b[0] + std::abs(R(i, 1)) * h_b[1] + std::abs(R(i, 2)) * h_b[2]);
    if (s > best.separation_m) {
      best.i = i;
      best.separation_m = s;
    }
  }
  for (int j = 0; j < 3; ++j) {
    const double s =
        std::abs(pair.p_B[j]) - h_b[j] -
        (std::abs(R(0, j)) * h_a[0] + std::abs(R(1, j)) * h_a[1] + std::abs(R(2, j)) * h_a[2]);
    if (s > best.separation_m + tolerance_m) {
      best.kind = AxisKind::face_b;
      best.j = j;
      best.separation_m = s;
    }
  }
  // Edge pairs, B's column j at a time. With u = e_i × b_j: p·u = (b_j × p)_i; A's half width
  // h_a,k |b_j,l| + h_a,l |b_j,k|; b_m·u = (b_j × b_m)_i, from the cross products of B's columns
  // (each as exact as its entries allow, see above); |u|² = b_j,k² + b_j,l².
  const Vec3 b[3] = {R.col(0), R.col(1), R.col(2)};
  const Vec3 cross[3] = {b[0].cross(b[1]), b[1].cross(b[2]), b[2].cross(b[0])};  // b_j × b_j+1
  std::array<std::array<double, 3>, 3> separation_m;                             // [j][i]
  for (int j = 0; j < 3; ++j) {
    const int m = (j + 1) % 3, n = (j + 2) % 3;
    const Vec3 abs_b = b[j].cwiseAbs();
    const Vec3 centre = b[j].cross(pair.p).cwiseAbs();
    const Vec3 radius_a(h_a[1] * abs_b[2] + h_a[2] * abs_b[1],
                        h_a[2] * abs_b[0] + h_a[0] * abs_b[2],
                        h_a[0] * abs_b[1] + h_a[1] * abs_b[0]);
    // b_m·u = (b_j × b_m)_i = cross[j]_i, b_n·u = (b_j × b_n)_i = −cross[n]_i.
    const Vec3 radius_b = h_b[m] * cross[j].cwiseAbs() + h_b[n] * cross[n].cwiseAbs();
    const Vec3 squared = b[j].cwiseProduct(b[j]);
    const Vec3 length_squared(squared[1] + squared[2], squared[2] + squared[0],
                              squared[0] + squared[1]);
    const Vec3 scaled = centre - radius_a - radius_b;
    for (int i = 0; i < 3; ++i) {
      separation_m[j][i] = length_squared[i] > 1e-300 ? scaled[i] / std::sqrt(length_squared[i])
                                                      : -std::numeric_limits<double>::infinity();
    }
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      if (separation_m[j][i] > best.separation_m + tolerance_m) {
        best.kind = AxisKind::edges;
        best.i = i;
        best.j = j;
        best.separation_m = separation_m[j][i];
      }
    }
  }
  switch (best.kind) {
    case AxisKind::face_a:
      best.j = 0;
      best.u_A = Vec3::Unit(best.i);
      break;
    case AxisKind::face_b:
      best.i = 0;
      best.u_A = R.col(best.j);
      break;
    case AxisKind::edges:
      best.u_A = Vec3::Unit(best.i).cross(Vec3(R.col(best.j))).normalized();
      break;
  }
  return best;
}

/// Closest points of two separated cores, in A's frame, and the unit normal from A to B.
struct BoxClosestPoints {
  Vec3 point_a = Vec3::Zero();
  Vec3 point_b = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();
  double distance_m = 0.0;
};

/// NarrowPhaseCache::valid tag of a box–box warm start (data[0..2]: the last separated normal in
/// A's frame).
constexpr std::int32_t kBoxBoxWarmStart = 0x426f7842;  // "BxoB"

// Lower bounds tried by separated_closest_points before its pruned exhaustive search.
constexpr int kDistanceSteps = 3;

/// x clamped to the box [−h, h].
inline Vec3 clamp_to_box(const Vec3& x, const Vec3& h) {
  return Vec3(std::clamp(x[0], -h[0], h[0]), std::clamp(x[1], -h[1], h[1]),
              std::clamp(x[2], -h[2], h[2]));
}

/// The corner of the box [−h, h] farthest along d (+h where a component is 0).
inline Vec3 support_corner(const Vec3& d, const Vec3& h) {
  return Vec3(d[0] < 0.0 ? -h[0] : h[0], d[1] < 0.0 ? -h[1] : h[1], d[2] < 0.0 ? -h[2] : h[2]);
}

/// Index of the component of v of least magnitude (the lowest index on a tie).
inline int smallest_component(const Vec3& v) {
  const double x = std::abs(v[0]), y = std::abs(v[1]), z = std::abs(v[2]);
  return x <= y ? (x <= z ? 0 : 2) : (y <= z ? 1 : 2);
}

/// Rᵀv, written out: Eigen's packet code for 3-vectors spends more on shuffles than on products.
inline Vec3 transpose_times(const Mat3& R, const Vec3& v) {
  return Vec3(R(0, 0) * v[0] + R(1, 0) * v[1] + R(2, 0) * v[2],
              R(0, 1) * v[0] + R(1, 1) * v[1] + R(2, 1) * v[2],
              R(0, 2) * v[0] + R(1, 2) * v[1] + R(2, 2) * v[2]);
}

/// Rv, written out.
inline Vec3 times(const Mat3& R, const Vec3& v) {
  return Vec3(R(0, 0) * v[0] + R(0, 1) * v[1] + R(0, 2) * v[2],
              R(1, 0) * v[0] + R(1, 1) * v[1] + R(1, 2) * v[2],
              R(2, 0) * v[0] + R(2, 1) * v[1] + R(2, 2) * v[2]);
}

/// Closest points of A's edge along e_i through middle_a and B's edge along b_j through middle_b
/// (A's frame; each middle has 0 for its own edge's coordinate), when they are interior to both
/// edges. As in closest_segment_points: s on A's edge from the cross products with the exact
/// common perpendicular u = e_i × b_j, and B's point as the projection of A's onto B's line.
bool interior_edge_points(const BoxPairInA& pair, int i, const Vec3& middle_a, int j,
                          const Vec3& middle_b, Vec3& on_a, Vec3& on_b) {
  const int k = (i + 1) % 3, l = (i + 2) % 3;
  const Vec3 b = pair.R.col(j);
  const double u_k = -b[l], u_l = b[k];
  const double length_squared = u_k * u_k + u_l * u_l;
  if (!(length_squared > 1e-300)) return false;  // parallel: an endpoint is closest
  const Vec3 w = middle_a - middle_b;
  // −((w × b)·u) / |u|², with only u's components k and l nonzero.
  const double s =
      -((w[l] * b[i] - w[i] * b[l]) * u_k + (w[i] * b[k] - w[k] * b[i]) * u_l) / length_squared;
  if (!(std::abs(s) <= pair.h_a[i])) return false;
  on_a = middle_a;
  on_a[i] = s;
  const double t = (on_a - middle_b).dot(b);
  if (!(std::abs(t) <= pair.h_b[j])) return false;
  on_b = middle_b + t * b;
  return true;
}

/// Closest points of separated cores, exact to the rounding of the coordinates (certify_m).
///
/// Every unit direction n bounds the distance from below (the separation along n, between the
/// support corners: A's along n and B's along −n), every pair of points of A and B from above.
/// Starting from n = start_n (unit, from A to B), each step takes the support corners along n and,
/// as upper bounds, each corner with its closest point on the other box (a clamp in that box's
/// frame) and the support edges most nearly perpendicular to n (when their closest points are
/// interior to both; on the first step only when start_n is the edge-pair axis of the edges
/// start_i, start_j), then goes on along the best pair's direction. When the closest points
/// include a corner (corner against face, edge or corner) the step after the one that finds it
/// closes the bracket; for a face axis whose opposite support corner lies over the face, or the
/// edge-pair axis of two edges whose closest points are interior, the first step does.
///
/// Otherwise the bracket [L, U] along the best direction n prunes the exhaustive search over
/// corners and edge pairs: a feature whose points lie at least e further along −n than the support
/// feature of its box (its excess) is at least L + e from the other box, so only features with
/// excess below U − L are tried — corners against the other box, and pairs of edges whose closest
/// points are interior to both (any other closest pair contains a corner).
///
/// The normal is the difference of the closest pair taken in the frame where it is exact: a clamp
/// leaves the free coordinates unchanged, so a face normal stays exactly that box's axis, and the
/// edge-pair axis e_i × b_j is exact in A's frame. start_n_B = Rᵀ start_n and start_separation_m,
/// the separation along start_n, are the caller's (it has them from its own test).
void separated_closest_points(const BoxPairInA& pair, const Vec3& start_n, const Vec3& start_n_B,
                              double start_separation_m, int start_i, int start_j, double certify_m,
                              BoxClosestPoints& out) {
  const Vec3& h_a = pair.h_a;
  const Vec3& h_b = pair.h_b;
  const Mat3& R = pair.R;

  double upper_squared_m2 = std::numeric_limits<double>::infinity();
  double upper_m = std::numeric_limits<double>::infinity();
  Vec3 upper_a = Vec3::Zero(), upper_b = Vec3::Zero(), upper_direction = start_n;
  // B's corner (in A's frame) and its closest point on A.
  auto offer_corner_of_b = [&](const Vec3& corner_b) {
    const Vec3 on_a = clamp_to_box(corner_b, h_a);
    const Vec3 gap = corner_b - on_a;
    const double d2 = gap.squaredNorm();
    if (d2 < upper_squared_m2) {
      upper_squared_m2 = d2;
      upper_a = on_a;
      upper_b = corner_b;
      upper_direction = gap;
    }
  };
  // A's corner and its closest point on B, found in B's frame.
  auto offer_corner_of_a = [&](const Vec3& corner_a) {
    const Vec3 corner_a_B = transpose_times(R, corner_a) - pair.p_B;
    const Vec3 on_b_B = clamp_to_box(corner_a_B, h_b);
    const Vec3 gap_B = on_b_B - corner_a_B;
    const double d2 = gap_B.squaredNorm();
    if (d2 < upper_squared_m2) {
      upper_squared_m2 = d2;
      upper_a = corner_a;
      upper_b = pair.p + times(R, on_b_B);
      upper_direction = times(R, gap_B);
    }
  };
  // A's edge along e_i through corner_a and B's along b_j through corner_b_B (B's frame).
  auto offer_edges = [&](int i, const Vec3& corner_a, int j, const Vec3& corner_b_B) {
    Vec3 middle_a = corner_a, middle_b_B = corner_b_B;
    middle_a[i] = 0.0;
    middle_b_B[j] = 0.0;
    Vec3 on_a, on_b;
    if (!interior_edge_points(pair, i, middle_a, j, pair.p + times(R, middle_b_B), on_a, on_b)) {
      return;
    }
    const Vec3 gap = on_b - on_a;
    const double d2 = gap.squaredNorm();
    if (d2 < upper_squared_m2) {
      upper_squared_m2 = d2;
      upper_a = on_a;
      upper_b = on_b;
      const Vec3 axis = Vec3::Unit(i).cross(Vec3(R.col(j)));
      upper_direction = gap.dot(axis) < 0.0 ? Vec3(-axis) : axis;
    }
  };

  double lower_m = -std::numeric_limits<double>::infinity();
  Vec3 lower_n = start_n;
  // The closest pair found, centred on its own direction (so that point_b − point_a =
  // distance·normal; the points move by rounding only). Not on the direction of the lower bound:
  // near a flat optimum (nearly parallel edges) the two agree in distance to second order while
  // their directions may differ to first.
  auto finish = [&] {
    const Vec3 normal = upper_direction / std::sqrt(upper_direction.squaredNorm());
    const Vec3 middle = 0.5 * (upper_a + upper_b);
    out.normal = normal;
    out.distance_m = upper_m;
    out.point_a = middle - 0.5 * upper_m * normal;
    out.point_b = middle + 0.5 * upper_m * normal;
  };

  Vec3 n = start_n;
  for (int step = 0; step < kDistanceSteps; ++step) {
    const Vec3 n_B = step == 0 ? start_n_B : transpose_times(R, n);
    const Vec3 corner_a = support_corner(n, h_a);
    const Vec3 corner_b_B = -support_corner(n_B, h_b);
    const Vec3 corner_b = pair.p + times(R, corner_b_B);
    const double separation_m = step == 0 ? start_separation_m : n.dot(corner_b - corner_a);
    if (separation_m > lower_m) {
      lower_m = separation_m;
      lower_n = n;
      if (upper_m - lower_m <= certify_m) return finish();
    }
    if (step + 1 == kDistanceSteps) break;
    offer_corner_of_b(corner_b);
    offer_corner_of_a(corner_a);
    if (step > 0) {
      offer_edges(smallest_component(n), corner_a, smallest_component(n_B), corner_b_B);
    } else if (start_i >= 0) {
      offer_edges(start_i, corner_a, start_j, corner_b_B);
    }
    upper_m = std::sqrt(upper_squared_m2);
    if (upper_m - lower_m <= certify_m) return finish();
    n = upper_direction / std::sqrt(upper_direction.squaredNorm());
  }

  // The pruned exhaustive search along lower_n.
  const Vec3 n_B = transpose_times(R, lower_n);
  const Vec3 support_a = support_corner(lower_n, h_a);
  const Vec3 support_b_B = -support_corner(n_B, h_b);
  // Excess of flipping one coordinate of a support corner.
  const Vec3 flip_a = 2.0 * h_a.cwiseProduct(lower_n.cwiseAbs());
  const Vec3 flip_b = 2.0 * h_b.cwiseProduct(n_B.cwiseAbs());
  auto slack = [&] { return std::sqrt(upper_squared_m2) - lower_m + certify_m; };
  auto flipped = [](const Vec3& corner, int flips) {
    return Vec3((flips & 1) ? -corner[0] : corner[0], (flips & 2) ? -corner[1] : corner[1],
                (flips & 4) ? -corner[2] : corner[2]);
  };
  auto excess = [](const Vec3& flip, int flips) {
    return ((flips & 1) ? flip[0] : 0.0) + ((flips & 2) ? flip[1] : 0.0) +
           ((flips & 4) ? flip[2] : 0.0);
  };
  for (int flips = 0; flips < 8; ++flips) {
    if (excess(flip_b, flips) < slack()) {
      offer_corner_of_b(pair.p + times(R, flipped(support_b_B, flips)));
    }
    if (excess(flip_a, flips) < slack()) offer_corner_of_a(flipped(support_a, flips));
  }
  // Edges: A's along e_i through its support corner flipped by flips_a (bit i clear), B's alike.
  for (int i = 0; i < 3; ++i) {
    for (int flips_a = 0; flips_a < 8; ++flips_a) {
      if (flips_a & (1 << i)) continue;
      const double excess_a = excess(flip_a, flips_a);
      if (!(excess_a < slack())) continue;
      const Vec3 corner_a = flipped(support_a, flips_a);
      for (int j = 0; j < 3; ++j) {
        for (int flips_b = 0; flips_b < 8; ++flips_b) {
          if ((flips_b & (1 << j)) || !(excess_a + excess(flip_b, flips_b) < slack())) continue;
          offer_edges(i, corner_a, j, flipped(support_b_B, flips_b));
        }
      }
    }
  }
  upper_m = std::sqrt(upper_squared_m2);
  finish();
}

}  // namespace

void box_box(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB, int max_points,
             ContactManifold& out, NarrowPhaseCache* cache) {
  BoxPairInA pair;
  pair.h_a = core_half_extents(a);
  pair.h_b = core_half_extents(b);
  // Everything in A's frame: B's axes are the columns of R_AB, its centre is p_AB.
  pair.R = X_WA.R.transpose() * X_WB.R;
  pair.p = X_WA.R.transpose() * (X_WB.p - X_WA.p);
  pair.p_B = pair.R.transpose() * pair.p;
  const Vec3& h_a = pair.h_a;
  const Vec3& h_b = pair.h_b;
  const Mat3& R_AB = pair.R;
  const Vec3& p_AB = pair.p;
  const double r_a = a.smoothing_radius_m;
  const double r_b = b.smoothing_radius_m;
  const double size_m = a.half_extents_m.maxCoeff() + b.half_extents_m.maxCoeff();
  const double tolerance_m = kRelativeTolerance * size_m;

  auto to_world = [&](const Vec3& point_a_A, const Vec3& point_b_A, const Vec3& n_A,
                      double distance_m) {
    ContactGeometry g;
    g.point_a_W = X_WA.transform_point(point_a_A);
    g.point_b_W = X_WA.transform_point(point_b_A);
    g.normal_W = X_WA.R * n_A;
    g.distance_m = distance_m;
    sweep(g, r_a, r_b);
    return g;
  };

  // Separated cores: exact closest points (separated_closest_points, to 64 ε of the coordinates'
  // magnitude). Rounded boxes whose swept shapes touch through a face go on below instead, for
  // the face patch rather than one point.
  const double certify_m =
      64.0 * std::numeric_limits<double>::epsilon() * (size_m + p_AB.cwiseAbs().maxCoeff());
  auto try_separated = [&](const Vec3& start_n, const Vec3& start_n_B, double separation_m,
                           int start_i, int start_j) {
    BoxClosestPoints closest;
    separated_closest_points(pair, start_n, start_n_B, separation_m, start_i, start_j, certify_m,
                             closest);
    if (!(closest.distance_m - r_a - r_b > tolerance_m)) return false;
    out.points[0] = to_world(closest.point_a, closest.point_b, closest.normal, closest.distance_m);
    out.count = 1;
    if (cache != nullptr) {
      cache->valid = kBoxBoxWarmStart;
      for (int k = 0; k < 3; ++k) cache->data[k] = closest.normal[k];
    }
    return true;
  };
  // The last separated normal of this pair first, when it still separates the cores.
  if (cache != nullptr && cache->valid == kBoxBoxWarmStart) {
    const Vec3 n(cache->data[0], cache->data[1], cache->data[2]);
    const Vec3 n_B = transpose_times(R_AB, n);
    const double separation_m = n.dot(p_AB) - h_a.dot(n.cwiseAbs()) - h_b.dot(n_B.cwiseAbs());
    if (separation_m > tolerance_m && try_separated(n, n_B, separation_m, -1, -1)) return;
    cache->valid = 0;
  }
  // First without the separating-axis test, from the direction between the centres when the boxes
  // are separated along it (else they probably overlap, and the test below is needed anyway).
  // The separation along n is n·p − h_a·|n| − h_b·|Rᵀn|, and n·p is the centre distance.
  const double centre_distance_m = p_AB.norm();
  if (centre_distance_m > 0.0) {
    const Vec3 n = p_AB / centre_distance_m;
    const Vec3 n_B = transpose_times(R_AB, n);
    const double separation_m = centre_distance_m - h_a.dot(n.cwiseAbs()) - h_b.dot(n_B.cwiseAbs());
    if (separation_m > tolerance_m && try_separated(n, n_B, separation_m, -1, -1)) return;
  }

  const Axis best = separating_axes(pair, tolerance_m);
  if (best.separation_m > tolerance_m) {
    const Vec3 n = sign_of(p_AB.dot(best.u_A)) * best.u_A;
    if (try_separated(n, transpose_times(R_AB, n), best.separation_m,
                      best.kind == AxisKind::edges ? best.i : -1, best.j)) {
      return;
    }
  }

  // Support edge of A along e_i (towards direction d_A) and of B along b_j (towards −d_A), with
  // both parallel edges where d has (almost) no component along an axis. Keeps the pair closest.
  // With interior_only, only pairs whose closest points lie inside both edges are considered (the
  // others are corner pairs, found separately).
  auto closest_support_edges = [&](int i, int j, const Vec3& d_A, bool interior_only,
                                   SegmentClosestPoints& best_pair) {
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
            SegmentClosestPoints pair;
            if (interior_only) {
              if (!interior_closest_points(middle_a - half_a, middle_a + half_a, middle_b - half_b,
                                           middle_b + half_b, pair)) {
                continue;
              }
            } else {
              pair = closest_segment_points(middle_a - half_a, middle_a + half_a, middle_b - half_b,
                                            middle_b + half_b);
            }
            if (pair.distance_squared_m2 < best_pair.distance_squared_m2) best_pair = pair;
          }
        }
      }
    }
  };

  // The unit edge axis e_i × b_j in A's frame.
  auto edge_axis = [&](int i, int j) {
    return Vec3(Vec3::Unit(i).cross(Vec3(R_AB.col(j)))).normalized();
  };

  if (best.separation_m > tolerance_m) {
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
        const Vec3 u_A = edge_axis(i, j);
        closest_support_edges(i, j, sign_of(p_AB.dot(u_A)) * u_A, true, closest);
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
        out.points[0] = to_world(middle_A - 0.5 * distance_m * n_A,
                                 middle_A + 0.5 * distance_m * n_A, n_A, distance_m);
      } else {
        out.points[0] = to_world(closest.point_p, closest.point_q,
                                 (closest.point_q - closest.point_p) / distance_m, distance_m);
      }
      out.count = 1;
      return;
    }
  }

  const Vec3 n_A = sign_of(p_AB.dot(best.u_A)) * best.u_A;  // from A to B
  if (best.kind == AxisKind::edges) {
    // Edge–edge: the minimum translation makes the two support edges touch; their closest points
    // (the edges cross in the projection along n) carry the contact, placed symmetrically so that
    // point_b − point_a = distance·n holds exactly.
    // The support edges are unique unless n has (almost) no component across one of them; then
    // closest_support_edges tries both parallel edges.
    const int i = best.i, j = best.j;
    const Vec3 n_B = transpose_times(R_AB, n_A);
    Vec3 middle_a = support_corner(n_A, h_a);
    Vec3 middle_b_B = -support_corner(n_B, h_b);
    middle_a[i] = 0.0;
    middle_b_B[j] = 0.0;
    Vec3 on_a, on_b;
    const bool unique_edges = std::abs(n_A[(i + 1) % 3]) > kSupportTieComponent &&
                              std::abs(n_A[(i + 2) % 3]) > kSupportTieComponent &&
                              std::abs(n_B[(j + 1) % 3]) > kSupportTieComponent &&
                              std::abs(n_B[(j + 2) % 3]) > kSupportTieComponent;
    if (!unique_edges ||
        !interior_edge_points(pair, i, middle_a, j, p_AB + times(R_AB, middle_b_B), on_a, on_b)) {
      SegmentClosestPoints closest;
      closest.distance_squared_m2 = std::numeric_limits<double>::infinity();
      closest_support_edges(i, j, n_A, false, closest);
      on_a = closest.point_p;
      on_b = closest.point_q;
    }
    const Vec3 middle_A = 0.5 * (on_a + on_b);
    const double d = best.separation_m;
    out.points[0] = to_world(middle_A - 0.5 * d * n_A, middle_A + 0.5 * d * n_A, n_A, d);
    out.count = 1;
    return;
  }

  // Face contact: clip the incident face against the reference face (Box2D's b2ClipPolygons and
  // Bullet's btBoxBoxDetector follow the same scheme), in the reference box's frame. Keep the
  // points within r_A + r_B (+ the touching tolerance) of the reference plane, choose at most
  // max_points of them there, and bring only those to world.
  const bool reference_a = best.kind == AxisKind::face_a;
  std::array<Vec3, kMaxCandidates> polygon;
  std::array<double, kMaxCandidates> heights_m;
  int count = 0;
  int axis = 0;
  Vec3 face_normal = Vec3::Zero();  // reference face's outward normal, in its box's frame
  Vec3 n_reference = Vec3::Zero();  // the pair's normal (A to B), in the reference box's frame
  if (reference_a) {
    axis = best.i;
    const double sign = sign_of(p_AB[axis]);
    count = clip_incident_face(h_a, axis, sign, R_AB, p_AB, h_b, polygon, heights_m);
    face_normal[axis] = sign;
    n_reference = n_A;
  } else {
    // Reference face on B, seen from B's frame: A's axes are the rows of R_AB.
    axis = best.j;
    const Mat3 R_BA = R_AB.transpose();
    const Vec3 m_B = -(R_BA * n_A);  // B's outward face normal, towards A
    const double sign = m_B[axis] < 0.0 ? -1.0 : 1.0;
    count = clip_incident_face(h_b, axis, sign, R_BA, -pair.p_B, h_a, polygon, heights_m);
    face_normal[axis] = sign;
    n_reference = -face_normal;
  }
  const double keep_below_m = r_a + r_b + tolerance_m;
  std::array<Vec3, kMaxCandidates> tangential;
  std::array<double, kMaxCandidates> distance_m;
  std::array<int, kMaxCandidates> vertex;
  int kept = 0;
  for (int k = 0; k < count; ++k) {
    if (heights_m[k] > keep_below_m) continue;
    tangential[kept] = polygon[k];
    tangential[kept][axis] = 0.0;
    distance_m[kept] = heights_m[k] - r_a - r_b;
    vertex[kept++] = k;
  }
  if (kept == 0) {
    // Only reachable through rounding in degenerate configurations (the support vertex of the
    // incident box lies on a side plane of the reference face): the incident box's deepest corner
    // and its projection onto the reference plane.
    const double d = best.separation_m;
    if (reference_a) {
      const Vec3 deepest_b_A =
          p_AB + R_AB * (-(R_AB.transpose() * n_A)).unaryExpr(&sign_of).cwiseProduct(h_b);
      out.points[0] = to_world(deepest_b_A - d * n_A, deepest_b_A, n_A, d);
    } else {
      const Vec3 deepest_a_A = h_a.cwiseProduct(n_A.unaryExpr(&sign_of));
      out.points[0] = to_world(deepest_a_A, deepest_a_A + d * n_A, n_A, d);
    }
    out.count = 1;
    return;
  }
  std::array<int, max_manifold_points> chosen;
  out.count =
      choose_patch_points(tangential, distance_m, kept, n_reference, max_points, size_m, chosen);
  const Pose& X_WR = reference_a ? X_WA : X_WB;
  const Vec3 face_normal_W = face_normal[axis] * X_WR.R.col(axis);
  const Vec3 normal_W = reference_a ? face_normal_W : Vec3(-face_normal_W);
  for (int c = 0; c < out.count; ++c) {
    const int k = vertex[chosen[c]];
    const Vec3 incident_W = X_WR.transform_point(polygon[k]);
    const Vec3 on_face_W = incident_W - heights_m[k] * face_normal_W;
    ContactGeometry& g = out.points[c];
    // A's point first: on the reference face when it is A's, else the incident one.
    g.point_a_W = reference_a ? on_face_W : incident_W;
    g.point_b_W = reference_a ? incident_W : on_face_W;
    g.normal_W = normal_W;
    g.distance_m = heights_m[k];
    sweep(g, r_a, r_b);
  }
}

// ------------------------------------------------------------------------------------------------

ContactGeometry swap_order(const ContactGeometry& geometry) {
  ContactGeometry out;
  out.distance_m = geometry.distance_m;
  out.normal_W = -geometry.normal_W;
  out.point_a_W = geometry.point_b_W;
  out.point_b_W = geometry.point_a_W;
  return out;
}

void swap_order(ContactManifold& manifold) {
  for (int i = 0; i < manifold.count; ++i) manifold.points[i] = swap_order(manifold.points[i]);
}

namespace {

constexpr int pair_code(ShapeType a, ShapeType b) {
  return static_cast<int>(a) * shape_type_count + static_cast<int>(b);
}

/// The supported pairs in the order the closed forms take them; the host may ask either order.
constexpr std::array<std::pair<ShapeType, ShapeType>, 9> kSupportedPairs{{
    {ShapeType::sphere, ShapeType::sphere},
    {ShapeType::sphere, ShapeType::capsule},
    {ShapeType::sphere, ShapeType::box},
    {ShapeType::sphere, ShapeType::half_space},
    {ShapeType::capsule, ShapeType::capsule},
    {ShapeType::capsule, ShapeType::half_space},
    {ShapeType::box, ShapeType::box},
    {ShapeType::box, ShapeType::half_space},
    {ShapeType::cylinder, ShapeType::half_space},
}};

/// Solves a pair given in the order of kSupportedPairs; false when (a, b) is not in that list.
bool solve_in_order(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                    int max_points, NarrowPhaseCache* cache, ContactManifold& out) {
  out.count = 1;
  ContactGeometry& first = out.points[0];
  switch (pair_code(a.type, b.type)) {
    case pair_code(ShapeType::sphere, ShapeType::sphere):
      first = sphere_sphere(a.radius_m, X_WA.p, b.radius_m, X_WB.p);
      return true;
    case pair_code(ShapeType::sphere, ShapeType::capsule):
      first = sphere_capsule(a, X_WA, b, X_WB);
      return true;
    case pair_code(ShapeType::sphere, ShapeType::box):
      // The sphere against the box's core, then the core swept by the smoothing radius.
      first = sphere_box(a.radius_m, X_WA.p, core_half_extents(b), X_WB);
      sweep(first, 0.0, b.smoothing_radius_m);
      return true;
    case pair_code(ShapeType::sphere, ShapeType::half_space):
      first = sphere_half_space(a.radius_m, X_WA.p, b.normal, X_WB);
      return true;
    case pair_code(ShapeType::capsule, ShapeType::capsule):
      first = capsule_capsule(a, X_WA, b, X_WB);
      return true;
    case pair_code(ShapeType::capsule, ShapeType::half_space):
      capsule_half_space(a, X_WA, b, X_WB, max_points, out);
      return true;
    case pair_code(ShapeType::box, ShapeType::box):
      box_box(a, X_WA, b, X_WB, max_points, out, cache);
      return true;
    case pair_code(ShapeType::box, ShapeType::half_space):
      box_half_space(a, X_WA, b, X_WB, max_points, out);
      return true;
    case pair_code(ShapeType::cylinder, ShapeType::half_space):
      cylinder_half_space(a, X_WA, b, X_WB, max_points, out);
      return true;
    default:
      return false;
  }
}

}  // namespace

PrimitiveNarrowPhase::PrimitiveNarrowPhase(const ParameterValues& params) {
  if (params.contains("manifold_points")) {
    const std::int64_t points = params.integer("manifold_points");
    if (points < 1 || points > max_manifold_points) {
      throw Error("primitive narrow phase: manifold_points must be 1.." +
                  std::to_string(max_manifold_points) + ", got " + std::to_string(points));
    }
    max_points_ = static_cast<int>(points);
  }
}

ParameterSchema PrimitiveNarrowPhase::schema() {
  return {integer_parameter(
      "manifold_points", max_manifold_points, 1, max_manifold_points,
      "Contact points kept for a flat contact (box on half-space or box face on face, cylinder "
      "cap, capsule side): the deepest, then the spread of the patch; 1 keeps only the deepest")};
}

bool PrimitiveNarrowPhase::supports(ShapeType a, ShapeType b) const {
  return std::any_of(kSupportedPairs.begin(), kSupportedPairs.end(), [&](const auto& pair) {
    return (pair.first == a && pair.second == b) || (pair.first == b && pair.second == a);
  });
}

void PrimitiveNarrowPhase::query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                                 NarrowPhaseCache& cache, ContactManifold& manifold) {
  // Only box–box keeps a warm start in the cache (its last separating normal).
  if (solve_in_order(a, X_WA, b, X_WB, max_points_, &cache, manifold)) return;
  // B–A order: solve with the roles exchanged, then exchange them back.
  if (solve_in_order(b, X_WB, a, X_WA, max_points_, &cache, manifold)) {
    swap_order(manifold);
    return;
  }
  throw SimulationError(std::string("primitive narrow phase: unsupported pair ") +
                        shape_type_name(a.type) + "–" + shape_type_name(b.type) +
                        "; it handles sphere–{sphere, capsule, box, half_space}, "
                        "capsule–{capsule, half_space}, box–{box, half_space} and "
                        "cylinder–half_space, in either order");
}

}  // namespace contactlab::plugins
