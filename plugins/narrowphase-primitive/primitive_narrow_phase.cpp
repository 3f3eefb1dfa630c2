// Closed forms of the primitive narrow phase (see primitive_narrow_phase.hpp for the contract,
// the smoothing rule and the manifold rule), and the plugin class that dispatches to them.
#include "primitive_narrow_phase.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include <contactlab/errors.hpp>
#include <contactlab/geometry/manifold.hpp>

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

// At most 12 candidate points: the contact polygon of two box faces has at most 8 vertices, but
// clip_incident_face may find one twice (a corner of one face on an edge of the other).
constexpr int kMaxCandidates = 12;

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

/// Half extents of a box's core: shrunk by the smoothing radius, never negative. A sharp box (the
/// common case) is its own core: the same numbers without the arithmetic.
[[gnu::always_inline]] inline Vec3 core_half_extents(const Shape& box) {
  if (box.smoothing_radius_m == 0.0) return box.half_extents_m;
  return (box.half_extents_m - Vec3::Constant(box.smoothing_radius_m)).cwiseMax(0.0);
}

/// The signs (±1) of corner `index` (0..7) of a box: bit 0 for x, bit 1 for y, bit 2 for z.
Vec3 corner_signs(int index) {
  return Vec3((index & 1) ? 1.0 : -1.0, (index & 2) ? 1.0 : -1.0, (index & 4) ? 1.0 : -1.0);
}

/// e_k and the mask (1, 1, 1) with 0 at k, from static tables: a vector assembled by a store to
/// a computed index and then read as a whole would wait for the store to commit (the load spans
/// several stores and cannot be forwarded), a stall of a dozen cycles on the hot paths.
constexpr double kUnitAxes[3][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
constexpr double kAllBut[3][3] = {{0.0, 1.0, 1.0}, {1.0, 0.0, 1.0}, {1.0, 1.0, 0.0}};
inline Eigen::Map<const Vec3> unit_axis(int k) {
  return Eigen::Map<const Vec3>(kUnitAxes[k]);
}
inline Eigen::Map<const Vec3> all_but(int k) {
  return Eigen::Map<const Vec3>(kAllBut[k]);
}

/// Two doubles in one SSE register (a GCC/Clang vector type): two quantities computed side by
/// side (two rows of a matrix product, two edge axes of the separating-axis test), each lane
/// rounded as the scalar code would round it.
using Lanes = double __attribute__((vector_size(16)));
using LaneMask = std::int64_t __attribute__((vector_size(16)));  // a comparison's result per lane
[[gnu::always_inline]] inline Lanes abs_lanes(Lanes v) {
  return reinterpret_cast<Lanes>(reinterpret_cast<LaneMask>(v) &
                                 ~reinterpret_cast<LaneMask>(Lanes{-0.0, -0.0}));
}

/// Rv, written out: rows 0 and 1 two at a time in SSE lanes (a column's first two entries are
/// adjacent in memory), row 2 alone; the same products, summed in the same order, as row by row.
[[gnu::always_inline]] inline Vec3 times(const Mat3& R, const Vec3& v) {
  Lanes column[3];
  std::memcpy(column, R.data(), sizeof(Lanes));
  std::memcpy(column + 1, R.data() + 3, sizeof(Lanes));
  std::memcpy(column + 2, R.data() + 6, sizeof(Lanes));
  const Lanes rows01 =
      column[0] * Lanes{v[0], v[0]} + column[1] * Lanes{v[1], v[1]} + column[2] * Lanes{v[2], v[2]};
  return Vec3(rows01[0], rows01[1], R(2, 0) * v[0] + R(2, 1) * v[1] + R(2, 2) * v[2]);
}

/// Largest absolute coordinate of the points [m]: the magnitude against which rounding is judged.
double coordinate_scale(const Vec3& p, const Vec3& q, const Vec3& r, const Vec3& s) {
  return std::max({p.cwiseAbs().maxCoeff(), q.cwiseAbs().maxCoeff(), r.cwiseAbs().maxCoeff(),
                   s.cwiseAbs().maxCoeff()});
}

/// Moves a core contact to the swept shapes (see the header): A's witness point out by r_A along
/// the normal, B's by r_B against it, the distance down by both.
[[gnu::always_inline]] inline void sweep(ContactGeometry& geometry, double radius_a_m,
                                         double radius_b_m) {
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

/// The reduction of every manifold (contactlab/geometry/manifold.hpp, shared with the general
/// manifold builder): the deepest, the farthest touching point from it, then the largest triangles
/// on either side of that diagonal.
int choose_patch_points(const std::array<Vec3, kMaxCandidates>& tangential,
                        const std::array<double, kMaxCandidates>& distance_m, int count,
                        const Vec3& n, int max_points, double length_scale_m,
                        std::array<int, max_manifold_points>& chosen) {
  static_assert(kRelativeTolerance == manifold::kTouchingFraction &&
                kDistinctPointFraction == manifold::kDistinctPointFraction);
  return manifold::choose_patch_points(tangential.data(), distance_m.data(), count, n, max_points,
                                       length_scale_m, chosen);
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

/// The contact polygon of two box faces in the frame of the reference box, whose reference face is
/// normal to `axis`: x and y the vertices' coordinates along axes (axis + 1) % 3 and (axis + 2) % 3
/// (in the face), w along `axis`.
struct FacePolygon {
  std::array<double, kMaxCandidates> x;
  std::array<double, kMaxCandidates> y;
  std::array<double, kMaxCandidates> w;
  int count = 0;
};

/// 1/(2a), or ±1e300 when a is (almost) 0: a slab test with it then gives ±∞-like parameters and
/// never 0·∞ = NaN.
inline double half_inverse(double a) {
  return std::abs(a) > 1e-300 ? 0.5 / a : std::copysign(1e300, a);
}

/// The incident face of a face contact in the reference box's frame R, whose reference face has
/// the outward normal sign·e_axis: the face of the other box (axes R_RI, centre p_RI, half
/// extents h_incident) whose outward normal is most anti-parallel to it. x, y, w: coordinates
/// along axes (axis + 1) % 3, (axis + 2) % 3 and axis. Corners q_k = c + a + b, c − a + b,
/// c − a − b, c + a − b (k = 0..3).
struct IncidentFace {
  double c_x, c_y, c_w;  // centre
  double a_x, a_y, a_w;  // half edge
  double b_x, b_y, b_w;  // the other half edge
  std::array<double, 4> q_x, q_y, q_w;
};

[[gnu::always_inline]] inline void incident_face(int axis, double sign, const Mat3& R_RI,
                                                 const Vec3& p_RI, const Vec3& h_incident,
                                                 IncidentFace& f) {
  int incident_axis = 0;
  for (int j = 1; j < 3; ++j) {
    if (std::abs(R_RI(axis, j)) > std::abs(R_RI(axis, incident_axis))) incident_axis = j;
  }
  const double face_side = sign * R_RI(axis, incident_axis) > 0.0 ? -1.0 : 1.0;
  const int u = (incident_axis + 1) % 3, v = (incident_axis + 2) % 3;
  const int x = (axis + 1) % 3, y = (axis + 2) % 3;
  const double offset = face_side * h_incident[incident_axis];
  f.c_x = p_RI[x] + offset * R_RI(x, incident_axis);
  f.c_y = p_RI[y] + offset * R_RI(y, incident_axis);
  f.c_w = p_RI[axis] + offset * R_RI(axis, incident_axis);
  f.a_x = h_incident[u] * R_RI(x, u);
  f.a_y = h_incident[u] * R_RI(y, u);
  f.a_w = h_incident[u] * R_RI(axis, u);
  f.b_x = h_incident[v] * R_RI(x, v);
  f.b_y = h_incident[v] * R_RI(y, v);
  f.b_w = h_incident[v] * R_RI(axis, v);
  f.q_x = {f.c_x + f.a_x + f.b_x, f.c_x - f.a_x + f.b_x, f.c_x - f.a_x - f.b_x,
           f.c_x + f.a_x - f.b_x};
  f.q_y = {f.c_y + f.a_y + f.b_y, f.c_y - f.a_y + f.b_y, f.c_y - f.a_y - f.b_y,
           f.c_y + f.a_y - f.b_y};
  f.q_w = {f.c_w + f.a_w + f.b_w, f.c_w - f.a_w + f.b_w, f.c_w - f.a_w - f.b_w,
           f.c_w + f.a_w - f.b_w};
}

/// Face contact of two boxes in the reference box's frame R (see IncidentFace). Returns
/// the vertices of the incident face's orthogonal projection onto the reference face
/// clipped to that face (the rectangle |x| ≤ h_x, |y| ≤ h_y), each at its point of the incident
/// face (w). This is the vertex set of Sutherland–Hodgman clipping (Sutherland & Hodgman 1974; as
/// in Box2D's b2ClipPolygons and Bullet's btBoxBoxDetector), found without its branches: each
/// incident edge is clipped to the rectangle by the slab test (Liang & Barsky 1984) — its entry
/// point, which is its start corner when that lies inside, and its exit point when it leaves —
/// and the rectangle's corners that lie inside the incident face are added. The selects and
/// conditional stores keep the branch predictor out of it: which vertices exist is as random as
/// the poses.
[[gnu::always_inline]] inline void clip_incident_face(const Vec3& h_reference, int axis,
                                                      const IncidentFace& f, FacePolygon& polygon) {
  const int x = (axis + 1) % 3, y = (axis + 2) % 3;
  const double h_x = h_reference[x], h_y = h_reference[y];
  const double c_x = f.c_x, c_y = f.c_y, c_w = f.c_w, a_x = f.a_x, a_y = f.a_y, a_w = f.a_w,
               b_x = f.b_x, b_y = f.b_y, b_w = f.b_w;
  const std::array<double, 4>&q_x = f.q_x, &q_y = f.q_y, &q_w = f.q_w;
  // Edge k runs from q_k to q_k+1, along −2a, −2b, +2a, +2b.
  const double d_x[4] = {-2.0 * a_x, -2.0 * b_x, 2.0 * a_x, 2.0 * b_x};
  const double d_y[4] = {-2.0 * a_y, -2.0 * b_y, 2.0 * a_y, 2.0 * b_y};
  const double d_w[4] = {-2.0 * a_w, -2.0 * b_w, 2.0 * a_w, 2.0 * b_w};
  const double ia_x = half_inverse(a_x), ia_y = half_inverse(a_y);
  const double ib_x = half_inverse(b_x), ib_y = half_inverse(b_y);
  const double inverse_x[4] = {-ia_x, -ib_x, ia_x, ib_x};  // 1/d_x
  const double inverse_y[4] = {-ia_y, -ib_y, ia_y, ib_y};  // 1/d_y
  int count = 0;
  auto emit = [&](bool exists, double px, double py, double pw) {
    polygon.x[count] = px;
    polygon.y[count] = py;
    polygon.w[count] = pw;
    count += exists ? 1 : 0;
  };
  for (int k = 0; k < 4; ++k) {
    const double t_x1 = (-h_x - q_x[k]) * inverse_x[k], t_x2 = (h_x - q_x[k]) * inverse_x[k];
    const double t_y1 = (-h_y - q_y[k]) * inverse_y[k], t_y2 = (h_y - q_y[k]) * inverse_y[k];
    const double t_in = std::max(std::max(0.0, std::min(t_x1, t_x2)), std::min(t_y1, t_y2));
    const double t_out = std::min(std::min(1.0, std::max(t_x1, t_x2)), std::max(t_y1, t_y2));
    const bool crosses = t_in <= t_out;
    emit(crosses, q_x[k] + t_in * d_x[k], q_y[k] + t_in * d_y[k], q_w[k] + t_in * d_w[k]);
    emit(crosses && t_out < 1.0, q_x[k] + t_out * d_x[k], q_y[k] + t_out * d_y[k],
         q_w[k] + t_out * d_w[k]);
  }
  // The rectangle's corners inside the incident face: r − c = s·a + t·b with |s|, |t| ≤ 1 (in the
  // projection; a face seen edge-on has det = 0, and its NaN or ∞ coordinates are not inside).
  const double inverse_det = 1.0 / (a_x * b_y - a_y * b_x);
  for (int k = 0; k < 4; ++k) {
    const double r_x = (k & 1) ? h_x : -h_x, r_y = (k & 2) ? h_y : -h_y;
    const double e_x = r_x - c_x, e_y = r_y - c_y;
    const double s = (e_x * b_y - e_y * b_x) * inverse_det;
    const double t = (e_y * a_x - e_x * a_y) * inverse_det;
    emit(std::abs(s) <= 1.0 && std::abs(t) <= 1.0, r_x, r_y, c_w + s * a_w + t * b_w);
  }
  polygon.count = count;
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

namespace {

/// sphere_sphere() written into `out` (the plugin's manifold slot: no ContactGeometry copy).
[[gnu::always_inline]] inline void sphere_sphere_into(double radius_a_m, const Vec3& p_WA,
                                                      double radius_b_m, const Vec3& p_WB,
                                                      ContactGeometry& out) {
  const Vec3 d_W = p_WB - p_WA;
  const double centre_distance_squared_m2 = d_W.squaredNorm();
  double centre_distance_m = 0.0;
  Vec3 normal_W = Vec3::UnitZ();
  if (centre_distance_squared_m2 > kCoincidentSquared_m2) {
    centre_distance_m = std::sqrt(centre_distance_squared_m2);
    normal_W = d_W / centre_distance_m;
  }
  // Concentric spheres: every direction is a deepest one; +z of world is the documented choice.
  out.normal_W = normal_W;
  out.distance_m = centre_distance_m - radius_a_m - radius_b_m;
  out.point_a_W = p_WA + radius_a_m * normal_W;
  out.point_b_W = p_WB - radius_b_m * normal_W;
}

}  // namespace

ContactGeometry sphere_sphere(double radius_a_m, const Vec3& p_WA, double radius_b_m,
                              const Vec3& p_WB) {
  ContactGeometry out;
  sphere_sphere_into(radius_a_m, p_WA, radius_b_m, p_WB, out);
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

namespace {

/// sphere_box written into `out`, for the box's core (half extents h) swept by box_radius_m, in
/// scalar code: this is the whole cost of the query.
inline void sphere_box_into(double radius_m, const Vec3& p_WA, const Vec3& h, double box_radius_m,
                            const Pose& X_WB, ContactGeometry& out) {
  const Mat3& R = X_WB.R;
  // The centre in the box frame B, where the box is the axis-aligned [−h, h].
  const double d_x = p_WA[0] - X_WB.p[0], d_y = p_WA[1] - X_WB.p[1], d_z = p_WA[2] - X_WB.p[2];
  const double c_x = R(0, 0) * d_x + R(1, 0) * d_y + R(2, 0) * d_z;
  const double c_y = R(0, 1) * d_x + R(1, 1) * d_y + R(2, 1) * d_z;
  const double c_z = R(0, 2) * d_x + R(1, 2) * d_y + R(2, 2) * d_z;
  // Closest point of the box = the centre clamped to the box (minsd/maxsd, no branches); when the
  // centre is outside, the segment from it to the centre is normal to the box surface, so the
  // sphere's nearest point lies on that segment.
  const double g_x = c_x - std::min(std::max(c_x, -h[0]), h[0]);
  const double g_y = c_y - std::min(std::max(c_y, -h[1]), h[1]);
  const double g_z = c_z - std::min(std::max(c_z, -h[2]), h[2]);
  const double gap_squared_m2 = g_x * g_x + g_y * g_y + g_z * g_z;

  // A centre within 1e-100 m of the surface goes to the inside branch, which is continuous with
  // this one there and needs no division by the gap.
  if (gap_squared_m2 > kCoincidentSquared_m2) [[likely]] {
    const double gap_m = std::sqrt(gap_squared_m2);
    // From the sphere towards the box: −R·g/|g|.
    const double scale = -1.0 / gap_m;
    const Vec3 n_W = scale * times(R, Vec3(g_x, g_y, g_z));
    out.distance_m = gap_m - radius_m - box_radius_m;
    out.normal_W = n_W;
    out.point_a_W = p_WA + radius_m * n_W;
    // The clamped point p_WA − R·g, written as p_WA + |g|·n, then swept by the box's radius.
    out.point_b_W = p_WA + (gap_m - box_radius_m) * n_W;
    return;
  }

  // Centre inside the closed box (or on its surface): the minimum-translation exit is through the
  // nearest face. Faces are scanned axis 0..2, + before −, and only a strictly smaller depth
  // replaces the current one, which resolves ties deterministically.
  const Vec3 c_B(c_x, c_y, c_z);
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
  Vec3 face_point_B = c_B;  // the centre projected onto the exit face
  face_point_B[exit_axis] = exit_sign * h[exit_axis];

  const Vec3 face_normal_W = exit_sign * R.col(exit_axis);  // outward normal of the exit face
  // The sphere must move along +face normal to separate, so B lies along −face normal from A; this
  // also makes the normal continuous with the outside branch as the centre crosses the face.
  out.distance_m = -(exit_depth_m + radius_m) - box_radius_m;
  out.normal_W = -face_normal_W;
  out.point_b_W = X_WB.transform_point(face_point_B) + box_radius_m * face_normal_W;
  out.point_a_W = p_WA - radius_m * face_normal_W;
}

}  // namespace

ContactGeometry sphere_box(double radius_m, const Vec3& p_WA, const Vec3& half_extents_m,
                           const Pose& X_WB) {
  ContactGeometry out;
  sphere_box_into(radius_m, p_WA, half_extents_m, 0.0, X_WB, out);
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

constexpr double kInfinity = std::numeric_limits<double>::infinity();

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
  double separation_m = -kInfinity;
  // u_A before normalisation (e_i × b_j for an edge pair, exact in A's frame; u_A for a face):
  // what follows the test may start from it while u_A's square root and division are pending.
  Vec3 direction_A = Vec3::UnitX();
};

/// Separation along the unit edge-pair axis u/|u|, u = e_i × b_j, one pair at a time (the same
/// quantities as in separating_axes); −∞ for parallel edges (|u| ≤ 1e-150), whose cross product is
/// no direction.
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
///
/// Cost: the 15 separations are independent of each other (no chain of compare-and-select from
/// one axis to the next), and the nine edge separations c/|u| are compared by the key c|c|/|u|²,
/// which increases with them: one division each and no square root; only the winner's is
/// normalised. Keys of edges within rounding of parallel (|u|² ≤ 1e-300) are −∞; a key also
/// underflows to 0 when |u|² < ~1e-150 (turns below ~1e-75 rad, far below any physical meaning).
/// Six of the nine edges run two at a time in SSE lanes (bit for bit the scalar arithmetic). Out
/// of line: in its own frame the test keeps its values in registers, and its callers theirs.
[[gnu::noinline]] Axis separating_axes(const BoxPairInA& pair, double tolerance_m) {
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

/// NarrowPhaseCache::valid tag of a box–box warm start: data[0] the feature pair of this pair's
/// last separated answer (see PairCandidate::feature), data[1..3] its normal in A's frame.
constexpr std::int32_t kBoxBoxWarmStart = 0x42784266;  // "fBxB"

// Lower bounds tried by separated_closest_points before its pruned exhaustive search.
constexpr int kDistanceSteps = 3;

/// x clamped to the box [−h, h], without branches (minsd/maxsd: the poses of a simulation give
/// the branch predictor nothing to learn).
[[gnu::always_inline]] inline double clamp_branchless(double x, double h) {
  return std::min(std::max(x, -h), h);
}
[[gnu::always_inline]] inline Vec3 clamp_to_box(const Vec3& x, const Vec3& h) {
  return Vec3(clamp_branchless(x[0], h[0]), clamp_branchless(x[1], h[1]),
              clamp_branchless(x[2], h[2]));
}

/// The corner of the box [−h, h] farthest along d (+h where a component is 0).
[[gnu::always_inline]] inline Vec3 support_corner(const Vec3& d, const Vec3& h) {
  return Vec3(d[0] < 0.0 ? -h[0] : h[0], d[1] < 0.0 ? -h[1] : h[1], d[2] < 0.0 ? -h[2] : h[2]);
}

/// The corner of [−h, h] with +h where bit k of `bits` is set, −h elsewhere (as corner_signs),
/// without branches.
[[gnu::always_inline]] inline Vec3 corner_of(int bits, const Vec3& h) {
  static constexpr double kSign[2] = {-1.0, 1.0};
  return Vec3(kSign[bits & 1] * h[0], kSign[(bits >> 1) & 1] * h[1], kSign[(bits >> 2) & 1] * h[2]);
}

/// The bits (for corner_of) of the support corner along d: bit k set where d_k ≥ 0.
[[gnu::always_inline]] inline int support_bits(const Vec3& d) {
  return (d[0] < 0.0 ? 0 : 1) | (d[1] < 0.0 ? 0 : 2) | (d[2] < 0.0 ? 0 : 4);
}

/// Index of the component of v of least magnitude (the lowest index on a tie).
inline int smallest_component(const Vec3& v) {
  const double x = std::abs(v[0]), y = std::abs(v[1]), z = std::abs(v[2]);
  return x <= y ? (x <= z ? 0 : 2) : (y <= z ? 1 : 2);
}

/// Rᵀv, written out: Eigen's packet code for 3-vectors spends more on shuffles than on products.
[[gnu::always_inline]] inline Vec3 transpose_times(const Mat3& R, const Vec3& v) {
  return Vec3(R(0, 0) * v[0] + R(1, 0) * v[1] + R(2, 0) * v[2],
              R(0, 1) * v[0] + R(1, 1) * v[1] + R(2, 1) * v[2],
              R(0, 2) * v[0] + R(1, 2) * v[1] + R(2, 2) * v[2]);
}

/// Separation of the cores along the unit direction n (A's frame; n_B = Rᵀn): n·p − h_a·|n| −
/// h_b·|n_B|, a lower bound of their distance.
[[gnu::always_inline]] inline double separation_along(const BoxPairInA& pair, const Vec3& n,
                                                      const Vec3& n_B) {
  return n[0] * pair.p[0] + n[1] * pair.p[1] + n[2] * pair.p[2] -
         (pair.h_a[0] * std::abs(n[0]) + pair.h_a[1] * std::abs(n[1]) +
          pair.h_a[2] * std::abs(n[2])) -
         (pair.h_b[0] * std::abs(n_B[0]) + pair.h_b[1] * std::abs(n_B[1]) +
          pair.h_b[2] * std::abs(n_B[2]));
}

/// Closest points of A's edge along e_i through middle_a and B's edge along b_j through middle_b
/// (A's frame; each middle has 0 for its own edge's coordinate), when they are interior to both
/// edges. As in closest_segment_points: s on A's edge from the cross products with the exact
/// common perpendicular u = e_i × b_j, and B's point as the projection of A's onto B's line.
[[gnu::always_inline]] inline bool interior_edge_points(const BoxPairInA& pair, int i,
                                                        const Vec3& middle_a, int j,
                                                        const Vec3& middle_b, Vec3& on_a,
                                                        Vec3& on_b) {
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
  on_a = middle_a + s * unit_axis(i);  // middle_a's coordinate i is 0
  const double t = (on_a - middle_b).dot(b);
  if (!(std::abs(t) <= pair.h_b[j])) return false;
  on_b = middle_b + t * b;
  return true;
}

/// A candidate closest pair of separated cores, in A's frame: an upper bound of their distance.
/// `direction` (from A to B, not unit) is the pair's difference taken in the frame where it is
/// exact — a clamp leaves the free coordinates unchanged, so a corner over a face gives exactly
/// that box's axis — or, for two edges, their common perpendicular e_i × b_j, exact in A's frame.
/// `feature` names the pair for the warm start: 0..7 a corner of B (corner_of bits) against A,
/// 8..15 a corner of A against B, 16 + ((3i + j)·8 + bits_a)·8 + bits_b A's edge along e_i through
/// corner bits_a and B's along b_j through corner bits_b (interior closest points).
struct PairCandidate {
  double distance_squared_m2 = kInfinity;
  Vec3 on_a = Vec3::Zero();
  Vec3 on_b = Vec3::Zero();
  Vec3 direction = Vec3::UnitZ();
  int feature = -1;
};

constexpr int kFeatureCornerOfA = 8;
constexpr int kFeatureEdges = 16;
constexpr int kFeatureCount = kFeatureEdges + 9 * 64;

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

/// The candidate named by `feature` (see PairCandidate); nothing for an edge pair whose closest
/// points are no longer interior.
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

/// The unit direction of a candidate and its length (for a corner the direction is the gap, whose
/// length is the candidate's distance).
[[gnu::always_inline]] inline Vec3 unit_direction(const PairCandidate& c) {
  return c.direction / std::sqrt(c.direction.squaredNorm());
}

/// Closest points of separated cores, exact to the rounding of the coordinates (certify_m).
///
/// Every unit direction n bounds the distance from below (the separation along n, between the
/// support corners: A's along n and B's along −n), every pair of points of A and B from above.
/// Starting from n = start_n (unit, from A to B; start_n_B = Rᵀ start_n, start_separation_m the
/// separation along it), each step takes the support corners along n and, as upper bounds, each
/// corner with its closest point on the other box (a clamp in that box's frame) and the support
/// edges most nearly perpendicular to n (when their closest points are interior to both; on the
/// first step only when start_n is the edge-pair axis of the edges start_i, start_j), then goes
/// on along the best pair's direction. When the closest points include a corner (corner against
/// face, edge or corner) the step after the one that finds it closes the bracket; for a face axis
/// whose opposite support corner lies over the face, or the edge-pair axis of two edges whose
/// closest points are interior, the first step does.
///
/// Otherwise the bracket [L, U] along the best direction n prunes the exhaustive search over
/// corners and edge pairs: a feature whose points lie at least e further along −n than the support
/// feature of its box (its excess) is at least L + e from the other box, so only features with
/// excess below U − L are tried — corners against the other box, and pairs of edges whose closest
/// points are interior to both (any other closest pair contains a corner).
///
/// `best` may hold a candidate already (an upper bound); returns the closest pair in it, and its
/// unit direction in `normal`.
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

/// A corner of box C against box F, both seen from F's centre in world axes (no rotation
/// between the boxes is formed): the corner, and the gap from its closest point on F (a clamp in
/// F's frame) to it.
struct CornerAgainstBox {
  Vec3 corner_W;  // C's corner, relative to F's centre
  Vec3 gap_F;     // corner − its closest point on F, in F's frame
  double distance_squared_m2 = kInfinity;
};

/// The corner of C with signs `signs` (±1 per axis of C), C at d_W from F's centre.
[[gnu::always_inline]] inline void corner_against_box(const Mat3& R_WC, const Vec3& h_c,
                                                      const Vec3& signs, const Mat3& R_WF,
                                                      const Vec3& h_f, const Vec3& d_W,
                                                      CornerAgainstBox& out) {
  out.corner_W = d_W + times(R_WC, signs.cwiseProduct(h_c));
  const Vec3 corner_F = transpose_times(R_WF, out.corner_W);
  out.gap_F = corner_F - clamp_to_box(corner_F, h_f);
  out.distance_squared_m2 = out.gap_F.squaredNorm();
}

/// Is the corner and its closest point on F the closest pair of C and F? With g the gap (the
/// corner x minus its clamp q onto F, F's frame) and n = g/|g|, the separation along n is
/// n·x − h_f·|n_F| − (n·x − min over C of n·c); the clamp gives g·q = h_f·|g| exactly, so the first
/// two terms are |g|, the pair's distance, and the separation falls short of it by C's excess
/// along −n, Σ_i 2 h_c,i max(0, s_i (R_WCᵀn)_i) (s the corner's signs): zero exactly when the
/// corner is C's support corner along −n. Certified when that excess is within certify_m, decided
/// from m_C = R_WCᵀ g (the excess times |g|) without the square root or a division, and without
/// the cancellation of the separation's large terms. Also gives the gap in world axes and m_C. A
/// corner touching F (g = 0) has no direction and is not certified.
[[gnu::always_inline]] inline bool certify_corner(const CornerAgainstBox& c, const Mat3& R_WC,
                                                  const Vec3& h_c, const Vec3& signs,
                                                  const Mat3& R_WF, double certify_m, Vec3& gap_W,
                                                  Vec3& m_C) {
  gap_W = times(R_WF, c.gap_F);
  m_C = transpose_times(R_WC, gap_W);
  const double excess =
      2.0 * (h_c[0] * std::max(0.0, signs[0] * m_C[0]) + h_c[1] * std::max(0.0, signs[1] * m_C[1]) +
             h_c[2] * std::max(0.0, signs[2] * m_C[2]));
  return c.distance_squared_m2 > 0.0 &&
         excess * excess <= certify_m * certify_m * c.distance_squared_m2;
}

/// ±1 per axis for the corner bits of corner_of.
[[gnu::always_inline]] inline Vec3 corner_signs_of(int bits) {
  static constexpr double kSign[2] = {-1.0, 1.0};
  return Vec3(kSign[bits & 1], kSign[(bits >> 1) & 1], kSign[(bits >> 2) & 1]);
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
    cache->valid = kBoxBoxWarmStart;
    cache->data[0] = feature;
    // The normal from A to B in A's frame: F's gap when F is A, −R_WAᵀ(gap_W)/|g| when C is A.
    const Vec3 normal_A = corner_of_b ? Vec3(inverse * c.gap_F) : Vec3(-inverse * m_C);
    for (int k = 0; k < 3; ++k) cache->data[1 + k] = normal_A[k];
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

/// Temporal coherence, first step: the corner of the last separated answer (data[0] < 16),
/// certified by certify_corner and answered by answer_certified_corner. A function of its own,
/// apart from the search, so that the common warm query runs through a small frame, without the
/// search's register pressure and spills. False (nothing written) when the cache holds no corner or
/// its corner is not certified.
[[gnu::always_inline]] inline bool box_box_warm_corner(const Shape& a, const Pose& X_WA,
                                                       const Shape& b, const Pose& X_WB,
                                                       ContactManifold& out,
                                                       NarrowPhaseCache& cache) {
  if (cache.valid != kBoxBoxWarmStart || !(cache.data[0] >= 0.0 && cache.data[0] < kFeatureEdges)) {
    return false;
  }
  const BoxBoxScales k = box_box_scales(a, X_WA, b, X_WB);
  const int feature = static_cast<int>(cache.data[0]);
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

/// The data of the box–box paths after the separating-axis test. Each path is a function of its
/// own (not inlined into box_box_search): in one large function the compiler spills the hot
/// overlapping path's values around the code of every other path.
struct BoxBoxContact {
  const Pose& X_WA;
  const Pose& X_WB;
  const BoxPairInA& pair;
  double r_a, r_b, size_m, tolerance_m;

  /// A contact given in A's frame, in world and swept by the radii.
  [[gnu::always_inline]] ContactGeometry to_world(const Vec3& point_a_A, const Vec3& point_b_A,
                                                  const Vec3& n_A, double distance_m) const {
    ContactGeometry g;
    g.point_a_W = times(X_WA.R, point_a_A) + X_WA.p;
    g.point_b_W = times(X_WA.R, point_b_A) + X_WA.p;
    g.normal_W = times(X_WA.R, n_A);
    g.distance_m = distance_m;
    sweep(g, r_a, r_b);
    return g;
  }
};

// Support edge of A along e_i (towards direction d_A) and of B along b_j (towards −d_A), with
// both parallel edges where d has (almost) no component along an axis. Keeps the pair closest.
// With interior_only, only pairs whose closest points lie inside both edges are considered (the
// others are corner pairs, found separately).
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
            segments = closest_segment_points(middle_a - half_a, middle_a + half_a,
                                              middle_b - half_b, middle_b + half_b);
          }
          if (segments.distance_squared_m2 < best_pair.distance_squared_m2) best_pair = segments;
        }
      }
    }
  }
}

/// The unit edge axis e_i × b_j in A's frame.
Vec3 edge_axis(const Mat3& R_AB, int i, int j) {
  return Vec3(Vec3::Unit(i).cross(Vec3(R_AB.col(j)))).normalized();
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
    cache->valid = kBoxBoxWarmStart;
    cache->data[0] = feature;
    for (int k = 0; k < 3; ++k) cache->data[1 + k] = normal[k];
  }
  return true;
}

/// Rounded boxes whose cores are separated but whose swept shapes touch (see box_box_search):
/// true when answered with one point; false when a face realises the distance, for the face patch.
[[gnu::noinline]] bool box_box_touching_rounded(const BoxBoxContact& f, const Axis& best,
                                                ContactManifold& out) {
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

/// Edge–edge contact of overlapping cores along the edge-pair axis `best`.
[[gnu::noinline]] void box_box_edge_contact(const BoxBoxContact& f, const Axis& best,
                                            ContactManifold& out) {
  const BoxPairInA& pair = f.pair;
  const Vec3& h_a = pair.h_a;
  const Vec3& h_b = pair.h_b;
  const Vec3& p_AB = pair.p;
  const Mat3& R_AB = pair.R;
  const Vec3 n_A = sign_of(p_AB.dot(best.u_A)) * best.u_A;  // from A to B
  // Edge–edge: the minimum translation makes the two support edges touch; their closest points
  // (the edges cross in the projection along n) carry the contact, placed symmetrically so that
  // point_b − point_a = distance·n holds exactly.
  // The support edges are unique unless n has (almost) no component across one of them; then
  // closest_support_edges tries both parallel edges.
  // From the unnormalised axis m (n_A = m/|m|), so that the normalisation runs alongside.
  const int i = best.i, j = best.j;
  const Vec3 m_A = sign_of(p_AB.dot(best.direction_A)) * best.direction_A;
  const Vec3 m_B = transpose_times(R_AB, m_A);
  const Vec3 middle_a = support_corner(m_A, h_a).cwiseProduct(all_but(i));
  const Vec3 middle_b_B = -support_corner(m_B, h_b).cwiseProduct(all_but(j));
  Vec3 on_a, on_b;
  // |n_k| > kSupportTieComponent, in squares of m.
  const double tie_m2 = kSupportTieComponent * kSupportTieComponent * m_A.squaredNorm();
  const int k_a = (i + 1) % 3, l_a = (i + 2) % 3, k_b = (j + 1) % 3, l_b = (j + 2) % 3;
  const bool unique_edges = m_A[k_a] * m_A[k_a] > tie_m2 && m_A[l_a] * m_A[l_a] > tie_m2 &&
                            m_B[k_b] * m_B[k_b] > tie_m2 && m_B[l_b] * m_B[l_b] > tie_m2;
  if (!unique_edges ||
      !interior_edge_points(pair, i, middle_a, j, p_AB + times(R_AB, middle_b_B), on_a, on_b)) {
    SegmentClosestPoints closest;
    closest.distance_squared_m2 = std::numeric_limits<double>::infinity();
    closest_support_edges(pair, i, j, n_A, false, closest);
    on_a = closest.point_p;
    on_b = closest.point_q;
  }
  const Vec3 middle_A = 0.5 * (on_a + on_b);
  const double d = best.separation_m;
  out.points[0] = f.to_world(middle_A - 0.5 * d * n_A, middle_A + 0.5 * d * n_A, n_A, d);
  out.count = 1;
  return;
}

/// Face contact of overlapping (or touching) cores along the face axis `best`.
[[gnu::noinline]] void box_box_face_contact(const BoxBoxContact& f, const Axis& best,
                                            int max_points, ContactManifold& out) {
  const Pose& X_WA = f.X_WA;
  const BoxPairInA& pair = f.pair;
  const Vec3& h_a = pair.h_a;
  const Vec3& h_b = pair.h_b;
  const Vec3& p_AB = pair.p;
  const Mat3& R_AB = pair.R;
  const double r_a = f.r_a, r_b = f.r_b, tolerance_m = f.tolerance_m;
  const Pose& X_WB = f.X_WB;
  const double size_m = f.size_m;
  const Vec3 n_A = sign_of(p_AB.dot(best.u_A)) * best.u_A;  // from A to B
  // Face contact: clip the incident face against the reference face (Box2D's b2ClipPolygons and
  // Bullet's btBoxBoxDetector follow the same scheme), in the reference box's frame. Keep the
  // points within r_A + r_B (+ the touching tolerance) of the reference plane, choose at most
  // max_points of them there, and bring only those to world.
  const bool reference_a = best.kind == AxisKind::face_a;
  // The reference face's outward normal is sign·e_axis in the reference box's frame R; the
  // incident box has axes R_RI (columns) and centre p_RI there.
  const int axis = reference_a ? best.i : best.j;
  const double sign = reference_a ? sign_of(p_AB[axis])
                                  : (R_AB.col(axis).dot(n_A) > 0.0 ? -1.0 : 1.0);  // towards A
  const Mat3 R_RI = reference_a ? R_AB : Mat3(R_AB.transpose());
  const Vec3 p_RI = reference_a ? p_AB : Vec3(-pair.p_B);
  const Vec3& h_reference = reference_a ? h_a : h_b;
  const Vec3& h_incident = reference_a ? h_b : h_a;
  const double h_axis = h_reference[axis];
  const int x = (axis + 1) % 3, y = (axis + 2) % 3;
  const Pose& X_WR = reference_a ? X_WA : X_WB;
  const Vec3 face_normal_W = sign * X_WR.R.col(axis);
  const Vec3 normal_W = reference_a ? face_normal_W : Vec3(-face_normal_W);
  // One point of the patch: the incident point at `height` above the reference face, and its foot
  // on the face.
  auto emit = [&](int c, const Vec3& incident_W, double height_m) {
    const Vec3 on_face_W = incident_W - height_m * face_normal_W;
    ContactGeometry& g = out.points[c];
    // A's point first: on the reference face when it is A's, else the incident one.
    g.point_a_W = reference_a ? on_face_W : incident_W;
    g.point_b_W = reference_a ? incident_W : on_face_W;
    g.normal_W = normal_W;
    g.distance_m = height_m;
    sweep(g, r_a, r_b);
  };
  IncidentFace face;
  incident_face(axis, sign, R_RI, p_RI, h_incident, face);
  if (max_points == 1) {
    // Only the deepest point is wanted. The incident face's deepest corner (the first on a tie)
    // has the least height over the face; when it lies over the reference face it is a vertex of
    // the clipped patch, and the deepest one (the same numbers as the clip's): no clipping.
    int deepest = 0;
    for (int k = 1; k < 4; ++k) {
      deepest = sign * face.q_w[k] < sign * face.q_w[deepest] ? k : deepest;
    }
    if (std::abs(face.q_x[deepest]) <= h_reference[x] &&
        std::abs(face.q_y[deepest]) <= h_reference[y]) {
      emit(0,
           Vec3(X_WR.p + face.q_x[deepest] * X_WR.R.col(x) + face.q_y[deepest] * X_WR.R.col(y) +
                face.q_w[deepest] * X_WR.R.col(axis)),
           sign * face.q_w[deepest] - h_axis);
      out.count = 1;
      return;
    }
  }
  FacePolygon polygon;
  clip_incident_face(h_reference, axis, face, polygon);
  const double keep_below_m = r_a + r_b + tolerance_m;
  // The candidates: vertices within keep_below_m of the reference plane, in its tangent plane.
  std::array<Vec3, kMaxCandidates> tangential;
  std::array<double, kMaxCandidates> distance_m;
  std::array<int, kMaxCandidates> vertex;
  std::array<double, kMaxCandidates> heights_m;
  int kept = 0;
  for (int k = 0; k < polygon.count; ++k) {
    heights_m[k] = sign * polygon.w[k] - h_axis;
    if (heights_m[k] > keep_below_m) continue;
    tangential[kept] = polygon.x[k] * unit_axis(x) + polygon.y[k] * unit_axis(y);
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
      out.points[0] = f.to_world(deepest_b_A - d * n_A, deepest_b_A, n_A, d);
    } else {
      const Vec3 deepest_a_A = h_a.cwiseProduct(n_A.unaryExpr(&sign_of));
      out.points[0] = f.to_world(deepest_a_A, deepest_a_A + d * n_A, n_A, d);
    }
    out.count = 1;
    return;
  }
  const Vec3 face_normal = sign * unit_axis(axis);
  const Vec3 n_reference = reference_a ? face_normal : Vec3(-face_normal);  // A to B, in R
  std::array<int, max_manifold_points> chosen;
  out.count =
      choose_patch_points(tangential, distance_m, kept, n_reference, max_points, size_m, chosen);
  for (int c = 0; c < out.count; ++c) {
    const int k = vertex[chosen[c]];
    emit(c,
         Vec3(X_WR.p + polygon.x[k] * X_WR.R.col(x) + polygon.y[k] * X_WR.R.col(y) +
              polygon.w[k] * X_WR.R.col(axis)),
         heights_m[k]);
  }
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
                                             ContactManifold& out, NarrowPhaseCache* cache) {
  const BoxPairInA& pair = contact.pair;
  const Mat3& R_AB = pair.R;
  const double tolerance_m = contact.tolerance_m;
  auto answer_separated = [&](const PairCandidate& closest, const Vec3& normal) {
    return answer_separated_pair(contact, closest, normal, out, cache);
  };
  PairCandidate closest;
  const double feature = cache->data[0];
  if (feature >= kFeatureEdges && feature < kFeatureCount) {
    offer_feature(pair, static_cast<int>(feature), closest);
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
  const Vec3 cached(cache->data[1], cache->data[2], cache->data[3]);
  const double cached_squared = cached.squaredNorm();
  const Vec3 n = cached / std::sqrt(cached_squared);
  const Vec3 n_B = transpose_times(R_AB, n);
  const double separation_m = separation_along(pair, n, n_B);
  if (cached_squared > 0.0 && separation_m > tolerance_m) {
    Vec3 normal;
    separated_closest_points(pair, n, n_B, separation_m, -1, -1, certify_m, closest, normal);
    if (answer_separated(closest, normal)) return true;
  }
  cache->valid = 0;
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
  if (cache != nullptr && cache->valid == kBoxBoxWarmStart &&
      box_box_cached_search(contact, certify_m, out, cache)) {
    return;
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
/// Inlined into query: the dispatch is part of every query's cost.
[[gnu::always_inline]] inline bool solve_in_order(const Shape& a, const Pose& X_WA, const Shape& b,
                                                  const Pose& X_WB, int max_points,
                                                  NarrowPhaseCache* cache, ContactManifold& out) {
  out.count = 1;
  ContactGeometry& first = out.points[0];
  switch (pair_code(a.type, b.type)) {
    case pair_code(ShapeType::sphere, ShapeType::sphere):
      sphere_sphere_into(a.radius_m, X_WA.p, b.radius_m, X_WB.p, first);
      return true;
    case pair_code(ShapeType::sphere, ShapeType::capsule):
      first = sphere_capsule(a, X_WA, b, X_WB);
      return true;
    case pair_code(ShapeType::sphere, ShapeType::box):
      // The sphere against the box's core, then the core swept by the smoothing radius.
      sphere_box_into(a.radius_m, X_WA.p, core_half_extents(b), b.smoothing_radius_m, X_WB, first);
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
  ++queries_;
  // A sphere against a sphere or a box first, before the dispatch: their closed forms cost less
  // than the dispatch's frame (the compiler keeps these paths free of the other pairs' register
  // saves).
  if (a.type == ShapeType::sphere) {
    if (b.type == ShapeType::sphere) {
      manifold.count = 1;
      sphere_sphere_into(a.radius_m, X_WA.p, b.radius_m, X_WB.p, manifold.points[0]);
      return;
    }
    if (b.type == ShapeType::box) {
      manifold.count = 1;
      sphere_box_into(a.radius_m, X_WA.p, core_half_extents(b), b.smoothing_radius_m, X_WB,
                      manifold.points[0]);
      return;
    }
  }
  // Only box–box keeps a warm start in the cache (its last closest feature pair and normal).
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
