// The contact of two overlapping box cores: edge–edge point and the face patch (see
// box_manifold.hpp).
#include "box_manifold.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <contactlab/geometry/manifold.hpp>

#include "box_closest_features.hpp"

namespace contactlab::plugins::primitive {

namespace {

// The face patch's points are reduced by the geometry library's rule, whose touching threshold
// is this plugin's rounding tolerance.
static_assert(kRelativeTolerance == geometry::kTouchingFraction);

// At most 12 candidate points: the contact polygon of two box faces has at most 8 vertices, but
// clip_incident_face may find one twice (a corner of one face on an edge of the other).
constexpr int kMaxCandidates = 12;

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

}  // namespace

void box_box_edge_contact(const BoxBoxContact& f, const Axis& best, ContactManifold& out) {
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
    geometry::SegmentClosestPoints closest;
    closest.distance_squared_m2 = std::numeric_limits<double>::infinity();
    closest_support_edges(pair, i, j, n_A, false, closest);
    on_a = closest.point_p;
    on_b = closest.point_q;
  }
  const Vec3 middle_A = 0.5 * (on_a + on_b);
  const double d = best.separation_m;
  out.points[0] = f.to_world(middle_A - 0.5 * d * n_A, middle_A + 0.5 * d * n_A, n_A, d);
  out.count = 1;
}

void box_box_face_contact(const BoxBoxContact& f, const Axis& best, int max_points,
                          ContactManifold& out) {
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
  out.count = geometry::choose_patch_points(tangential.data(), distance_m.data(), kept, n_reference,
                                            max_points, size_m, chosen);
  for (int c = 0; c < out.count; ++c) {
    const int k = vertex[chosen[c]];
    emit(c,
         Vec3(X_WR.p + polygon.x[k] * X_WR.R.col(x) + polygon.y[k] * X_WR.R.col(y) +
              polygon.w[k] * X_WR.R.col(axis)),
         heights_m[k]);
  }
}

}  // namespace contactlab::plugins::primitive
