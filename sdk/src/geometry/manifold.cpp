// Contact manifolds: supporting features, clipping and the patch's points (see manifold.hpp).
#include "contactlab/geometry/manifold.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace contactlab::geometry {

double shape_size(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::sphere:
      return shape.radius_m;
    case ShapeType::box:
    case ShapeType::ellipsoid:
    case ShapeType::beam:
      return shape.half_extents_m.maxCoeff();
    case ShapeType::cylinder:
    case ShapeType::cone:
      return std::max(shape.radius_m, shape.half_length_m);
    case ShapeType::capsule:
      return shape.half_length_m + shape.radius_m;
    case ShapeType::convex_hull: {
      double size = 0.0;
      for (std::uint32_t i = 0; i < shape.hull->vertex_count; ++i)
        size = std::max(size, (shape.hull->vertices[i] - shape.hull->centroid).norm());
      return size + shape.smoothing_radius_m;
    }
    case ShapeType::half_space:
      break;
  }
  return 0.0;
}

namespace detail {

Vec3 unit_radial(const Vec3& d) {
  const double radial = std::hypot(d.x(), d.y());
  return radial > 0.0 ? Vec3(d.x() / radial, d.y() / radial, 0.0) : Vec3::UnitX();
}

/// The rim of radius `radius` at height z as the square u, v, −u, −v (v = u turned by 90°).
void rim_polygon(const Vec3& u, double radius, double z, Feature& out) {
  const Vec3 ru = radius * u, rv(-ru.y(), ru.x(), 0.0), lift(0.0, 0.0, z);
  out.vertices[0] = lift + ru;
  out.vertices[1] = lift + rv;
  out.vertices[2] = lift - ru;
  out.vertices[3] = lift - rv;
  out.count = kRimVertices;
}

void point_feature(const Vec3& p, Feature& out) {
  out.vertices[0] = p;
  out.count = 1;
}

void segment_feature(const Vec3& p, const Vec3& q, Feature& out) {
  out.vertices[0] = p;
  out.vertices[1] = q;
  out.count = 2;
}

/// Box core with half sizes h: face, edge or corner.
void box_feature(const Vec3& h, const Vec3& d, double sin_tol, double cos_tol, Feature& out) {
  const Vec3 s(d.x() < 0.0 ? -1.0 : 1.0, d.y() < 0.0 ? -1.0 : 1.0, d.z() < 0.0 ? -1.0 : 1.0);
  const Vec3 a = d.cwiseAbs();
  int k = 0;
  a.maxCoeff(&k);
  if (a[k] >= cos_tol) {
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    const double signs[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
    for (int c = 0; c < 4; ++c) {
      Vec3 p;
      p[k] = s[k] * h[k];
      p[i] = signs[c][0] * h[i];
      p[j] = signs[c][1] * h[j];
      out.vertices[c] = p;
    }
    out.count = 4;
    return;
  }
  int m = 0;
  a.minCoeff(&m);
  const Vec3 corner = s.cwiseProduct(h);
  if (a[m] <= sin_tol) {
    Vec3 other = corner;
    other[m] = -corner[m];
    segment_feature(corner, other, out);
    return;
  }
  point_feature(corner, out);
}

/// Cone or frustum (a cylinder when both radii agree) with half length h, radii base and top.
void axial_feature(double base, double top, double h, const Vec3& d, double sin_tol, double cos_tol,
                   Feature& out) {
  const Vec3 u = unit_radial(d);
  if (d.z() <= -cos_tol) {
    if (base > 0.0) return rim_polygon(u, base, -h, out);
    return point_feature(Vec3(0.0, 0.0, -h), out);
  }
  if (d.z() >= cos_tol) {
    if (top > 0.0) return rim_polygon(u, top, h, out);
    return point_feature(Vec3(0.0, 0.0, h), out);
  }
  // The side's outward normal in the (radial, z) plane: (2h, base − top), normalised.
  const double rho = std::hypot(d.x(), d.y());
  const double length = std::hypot(2.0 * h, base - top);
  if (length > 0.0) {
    const double m_rho = 2.0 * h / length, m_z = (base - top) / length;
    const double dot = rho * m_rho + d.z() * m_z;
    const double cross = rho * m_z - d.z() * m_rho;
    if (dot > 0.0 && std::abs(cross) <= sin_tol) {
      return segment_feature(base * u + Vec3(0.0, 0.0, -h), top * u + Vec3(0.0, 0.0, h), out);
    }
  }
  const Vec3 b = base * u + Vec3(0.0, 0.0, -h);
  const Vec3 t = top * u + Vec3(0.0, 0.0, h);
  point_feature(d.dot(t) > d.dot(b) ? t : b, out);
}

/// The 4 vertices of a beam's flat face at height z (the stadium: the segment ±seg along x swept
/// by the end radius R), in cyclic order, for a direction d (unit) within sin_tol of the face's
/// normal; tilt = |(d.x, d.y)|, the sine of the angle between them.
/// - tilt ≤ kBeamFaceFixedFraction·sin_tol: the fixed rectangle (±(seg + R/√2), ±R/√2, z), the
///   points of the two round ends at ±45°. A beam resting flat has its 4 points at fixed places in
///   its frame, symmetric about its centre: the contact force is smooth there (no turning points)
///   and equal forces on the 4 points have no moment.
/// - Beyond, up to sin_tol: each vertex slides, linearly in the tilt, to the exact support point
///   of the stadium along its own direction, i.e. along the tilt direction u = (d.x, d.y)/tilt
///   mirrored into the vertex's quadrant (σx·|u.x|, σy·|u.y|): (σx·(seg + R·|u.x|), σy·R·|u.y|, z).
///   At sin_tol the vertex in u's quadrant is the stadium's exact support point along u, where
///   the edge and end features beyond the tolerance start (beam_feature). The vertices stay on
///   the axes' mirror images of one another (a rectangle) and move continuously with d: the
///   feature is continuous in d wherever it is a face.
/// Known limits: while the vertices slide (tilt above half the tolerance), a point's place depends
/// on the orientation, so the contact force there is not exactly energy-conserving (it is on the
/// fixed rectangle); and close to the long axis (u near ±x) the two vertices of the lower round
/// end come together at its tip, so one point drops out (3 distinct points).
void beam_face_vertices(double seg, double R, double z, const Vec3& d, double sin_tol,
                        Feature& out) {
  const double corner = R / std::numbers::sqrt2;
  double rx = corner, ry = corner;  // the rectangle's half sizes about the round ends' centres
  const double tilt = std::hypot(d.x(), d.y());
  const double fixed = kBeamFaceFixedFraction * sin_tol;
  if (tilt > fixed) {
    const double blend = std::min(1.0, (tilt - fixed) / (sin_tol - fixed));
    rx += blend * (R * std::abs(d.x()) / tilt - corner);
    ry += blend * (R * std::abs(d.y()) / tilt - corner);
  }
  out.vertices[0] = Vec3(seg + rx, ry, z);
  out.vertices[1] = Vec3(-seg - rx, ry, z);
  out.vertices[2] = Vec3(-seg - rx, -ry, z);
  out.vertices[3] = Vec3(seg + rx, -ry, z);
  out.count = 4;
}

/// Beam core: a stadium in x–y (segment ±seg along x swept by end radius R) of half thickness t.
void beam_feature(double seg, double R, double t, const Vec3& d, double sin_tol, double cos_tol,
                  Feature& out) {
  const double sx = d.x() < 0.0 ? -1.0 : 1.0, sy = d.y() < 0.0 ? -1.0 : 1.0;
  const double sz = d.z() < 0.0 ? -1.0 : 1.0;
  const Vec3 u = unit_radial(d);
  const Vec3 rim(sx * seg + R * u.x(), R * u.y(), 0.0);  // exact support point of the stadium
  if (std::abs(d.z()) >= cos_tol) return beam_face_vertices(seg, R, sz * t, d, sin_tol, out);
  if (std::abs(d.z()) <= sin_tol) {
    if (std::abs(d.x()) <= sin_tol && seg > 0.0) {
      // The flat long side y = ±R.
      out.vertices[0] = Vec3(seg, sy * R, t);
      out.vertices[1] = Vec3(-seg, sy * R, t);
      out.vertices[2] = Vec3(-seg, sy * R, -t);
      out.vertices[3] = Vec3(seg, sy * R, -t);
      out.count = 4;
      return;
    }
    return segment_feature(rim + Vec3(0.0, 0.0, t), rim - Vec3(0.0, 0.0, t), out);
  }
  if (std::abs(d.x()) <= sin_tol && seg > 0.0) {
    // The straight edge y = sy·R of the face, from the exact support point (where the face's
    // sliding vertex ends at the tolerance) to the edge's far end.
    return segment_feature(rim + Vec3(0.0, 0.0, sz * t), Vec3(-sx * seg, sy * R, sz * t), out);
  }
  point_feature(rim + Vec3(0.0, 0.0, sz * t), out);
}

/// Hull: the face whose normal is nearest d (within the tolerance), else an edge from the support
/// vertex nearly perpendicular to d (with an adjacency), else the support vertex.
void hull_feature(const ConvexHull& hull, const Vec3& d, double sin_tol, double cos_tol,
                  Feature& out) {
  std::uint32_t best_face = 0;
  double best_dot = -2.0;
  for (std::uint32_t f = 0; f < hull.face_count; ++f) {
    const double dot = hull.face_normals[f].dot(d);
    if (dot > best_dot) {
      best_dot = dot;
      best_face = f;
    }
  }
  const std::uint32_t support = hull_support_vertex(hull, d);
  if (best_dot >= cos_tol) {
    const Vec3& n = hull.face_normals[best_face];
    const double offset = hull.face_offsets[best_face];
    double scale = 0.0;
    for (std::uint32_t i = 0; i < hull.vertex_count; ++i)
      scale = std::max(scale, hull.vertices[i].cwiseAbs().maxCoeff());
    const double on_face = 1e-9 * std::max(scale, 1e-300);
    int count = 0;
    bool overflow = false;
    for (std::uint32_t i = 0; i < hull.vertex_count && !overflow; ++i) {
      if (n.dot(hull.vertices[i]) < offset - on_face) continue;
      if (count == kMaxFeatureVertices) {
        overflow = true;
      } else {
        out.vertices[count++] = hull.vertices[i];
      }
    }
    if (!overflow && count >= 3) {
      // Cyclic order: by angle about the vertices' mean in the face plane (insertion sort).
      Vec3 centre = Vec3::Zero();
      for (int i = 0; i < count; ++i) centre += out.vertices[i];
      centre /= count;
      const Vec3 e1 = (std::abs(n.x()) < 0.6 ? Vec3::UnitX() : Vec3::UnitY()).cross(n).normalized();
      const Vec3 e2 = n.cross(e1);
      std::array<double, kMaxFeatureVertices> angle;
      for (int i = 0; i < count; ++i) {
        const Vec3 r = out.vertices[i] - centre;
        angle[i] = std::atan2(r.dot(e2), r.dot(e1));
      }
      for (int i = 1; i < count; ++i) {
        for (int j = i; j > 0 && angle[j] < angle[j - 1]; --j) {
          std::swap(angle[j], angle[j - 1]);
          std::swap(out.vertices[j], out.vertices[j - 1]);
        }
      }
      out.count = count;
      return;
    }
  }
  const Vec3& v = hull.vertices[support];
  if (hull.neighbor_offsets != nullptr && hull.neighbors != nullptr) {
    // The neighbour whose edge drops least along d: an edge nearly perpendicular to d.
    double best = -2.0;
    std::uint32_t partner = support;
    for (std::uint32_t k = hull.neighbor_offsets[support]; k < hull.neighbor_offsets[support + 1];
         ++k) {
      const Vec3 e = hull.vertices[hull.neighbors[k]] - v;
      const double length = e.norm();
      if (!(length > 0.0)) continue;
      const double slope = e.dot(d) / length;
      if (slope > best) {
        best = slope;
        partner = hull.neighbors[k];
      }
    }
    if (partner != support && best >= -sin_tol)
      return segment_feature(v, hull.vertices[partner], out);
  }
  point_feature(v, out);
}

}  // namespace detail

void supporting_feature(const Shape& shape, const Vec3& d_G, Feature& out, double sin_tolerance) {
  const double sin_tol = sin_tolerance;
  const double cos_tol = std::sqrt(std::max(0.0, 1.0 - sin_tol * sin_tol));
  const double r = shape.smoothing_radius_m;
  out.radius_m = sweep_radius(shape);
  out.count = 0;
  switch (shape.type) {
    case ShapeType::sphere:
    case ShapeType::ellipsoid:
      return detail::point_feature(core_support(shape, d_G), out);
    case ShapeType::box:
      return detail::box_feature((shape.half_extents_m - Vec3::Constant(r)).cwiseMax(0.0), d_G,
                                 sin_tol, cos_tol, out);
    case ShapeType::cylinder: {
      const double radius = std::max(0.0, shape.radius_m - r);
      return detail::axial_feature(radius, radius, shape.half_length_m - r, d_G, sin_tol, cos_tol,
                                   out);
    }
    case ShapeType::cone:
      return detail::axial_feature(std::max(0.0, shape.radius_m - r),
                                   std::max(0.0, shape.top_radius_m - r), shape.half_length_m - r,
                                   d_G, sin_tol, cos_tol, out);
    case ShapeType::capsule:
      if (std::abs(d_G.z()) <= sin_tol && shape.half_length_m > 0.0) {
        return detail::segment_feature(Vec3(0.0, 0.0, -shape.half_length_m),
                                       Vec3(0.0, 0.0, shape.half_length_m), out);
      }
      return detail::point_feature(core_support(shape, d_G), out);
    case ShapeType::beam: {
      const Vec3 h = shape.half_extents_m - Vec3::Constant(r);
      return detail::beam_feature(shape.half_extents_m.x() - shape.half_extents_m.y(), h.y(), h.z(),
                                  d_G, sin_tol, cos_tol, out);
    }
    case ShapeType::convex_hull:
      return detail::hull_feature(*shape.hull, d_G, sin_tol, cos_tol, out);
    case ShapeType::half_space:
      break;
  }
}

void supporting_feature_W(const Shape& shape, const Pose& X_WG, const Vec3& d_W, Feature& out,
                          double sin_tolerance) {
  supporting_feature(shape, X_WG.R.transpose() * d_W, out, sin_tolerance);
  for (int i = 0; i < out.count; ++i) out.vertices[i] = X_WG.transform_point(out.vertices[i]);
}

int choose_patch_points(const Vec3* tangential, const double* distance_m, int count, const Vec3& n,
                        int max_points, double length_scale_m,
                        std::array<int, max_manifold_points>& chosen, double margin_m) {
  int deepest = 0;
  for (int i = 1; i < count; ++i) {
    if (distance_m[i] < distance_m[deepest]) deepest = i;
  }
  chosen[0] = deepest;
  if (max_points <= 1) return 1;

  const double touching_m = kTouchingFraction * length_scale_m + margin_m;
  const double distinct_m = kDistinctPointFraction * length_scale_m;
  auto eligible = [&](int i) { return i != deepest && distance_m[i] <= touching_m; };
  // Does candidate i (score `value`) beat the current choice `best` (score best_value; −1 when
  // none, best_value then being the threshold)?
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

namespace detail {

/// Unit normal of a polygon feature (Newell's method; any sense), or zero when degenerate.
Vec3 polygon_normal(const Feature& f) {
  Vec3 m = Vec3::Zero();
  for (int i = 0; i < f.count; ++i) {
    const Vec3& p = f.vertices[i];
    const Vec3& q = f.vertices[(i + 1) % f.count];
    m += (p - q).cross(p + q);
  }
  const double length = m.norm();
  return length > 0.0 ? Vec3(m / length) : Vec3::Zero();
}

int clip_to_prism(const Feature& subject, const Feature& clip, const Vec3& n,
                  std::array<Vec3, kMaxClipPoints>& out) {
  Vec3 centre = Vec3::Zero();
  for (int i = 0; i < clip.count; ++i) centre += clip.vertices[i];
  centre /= clip.count;
  if (subject.count == 2) {
    const Vec3& p = subject.vertices[0];
    const Vec3 e = subject.vertices[1] - p;
    double t0 = 0.0, t1 = 1.0;
    for (int i = 0; i < clip.count; ++i) {
      const Vec3& a = clip.vertices[i];
      Vec3 c = (clip.vertices[(i + 1) % clip.count] - a).cross(n);
      if (c.dot(centre - a) > 0.0) c = -c;  // outward: inside is c·(x − a) ≤ 0
      const double start = c.dot(p - a), rate = c.dot(e);
      if (rate == 0.0) {
        if (start > 0.0) return 0;
        continue;
      }
      const double t = -start / rate;
      if (rate > 0.0) {
        t1 = std::min(t1, t);
      } else {
        t0 = std::max(t0, t);
      }
      if (t0 > t1) return 0;
    }
    out[0] = p + t0 * e;
    out[1] = p + t1 * e;
    return 2;
  }
  std::array<Vec3, kMaxClipPoints> buffer;
  int count = subject.count;
  for (int i = 0; i < count; ++i) out[i] = subject.vertices[i];
  for (int i = 0; i < clip.count && count > 0; ++i) {
    const Vec3& a = clip.vertices[i];
    Vec3 c = (clip.vertices[(i + 1) % clip.count] - a).cross(n);
    if (!(c.squaredNorm() > 0.0)) continue;  // a repeated vertex
    if (c.dot(centre - a) > 0.0) c = -c;
    int kept = 0;
    for (int j = 0; j < count; ++j) {
      const Vec3& from = out[(j + count - 1) % count];
      const Vec3& to = out[j];
      const double h_from = c.dot(from - a), h_to = c.dot(to - a);
      if ((h_from <= 0.0) != (h_to <= 0.0) && kept < kMaxClipPoints) {
        buffer[kept++] = from + (h_from / (h_from - h_to)) * (to - from);
      }
      if (h_to <= 0.0 && kept < kMaxClipPoints) buffer[kept++] = to;
    }
    count = kept;
    for (int j = 0; j < count; ++j) out[j] = buffer[j];
  }
  return count;
}

/// Adds a point p_a of A (core) whose partner lies on the plane (q, m) of B along n; false when n
/// runs along that plane.
bool add_on_a(Candidates& c, const Vec3& p_a, const Vec3& q, const Vec3& m, const Vec3& n) {
  const double along = n.dot(m);
  if (!(std::abs(along) > 1e-6)) return false;
  const double s = (q - p_a).dot(m) / along;
  c.point_a[c.count] = p_a;
  c.point_b[c.count] = p_a + s * n;
  c.distance[c.count] = s;
  ++c.count;
  return true;
}

/// Adds a point p_b of B (core) whose partner lies on the plane (q, m) of A along n.
bool add_on_b(Candidates& c, const Vec3& p_b, const Vec3& q, const Vec3& m, const Vec3& n) {
  const double along = n.dot(m);
  if (!(std::abs(along) > 1e-6)) return false;
  const double s = (p_b - q).dot(m) / along;
  c.point_a[c.count] = p_b - s * n;
  c.point_b[c.count] = p_b;
  c.distance[c.count] = s;
  ++c.count;
  return true;
}

/// The plane of a segment feature facing n: through its first vertex, normal n without its
/// component along the segment. Zero when n runs along the segment.
Vec3 segment_plane_normal(const Feature& f, const Vec3& n) {
  const Vec3 e = (f.vertices[1] - f.vertices[0]).normalized();
  const Vec3 m = n - n.dot(e) * e;
  const double length = m.norm();
  return length > 0.0 ? Vec3(m / length) : Vec3::Zero();
}

/// The candidates of two features (cores, world frame) with normal n from A to B; false when they
/// make no patch (a point, crossing segments, a degenerate plane).
bool clip_features(const Feature& fa, const Feature& fb, const Vec3& n, double sin_tol,
                   Candidates& c) {
  c.count = 0;
  if (fa.count < 2 || fb.count < 2) return false;
  std::array<Vec3, kMaxClipPoints> clipped;
  if (fb.count >= 3) {
    const Vec3 m = polygon_normal(fb);
    const int count = clip_to_prism(fa, fb, n, clipped);
    for (int i = 0; i < count; ++i)
      if (!add_on_a(c, clipped[i], fb.vertices[0], m, n)) return false;
    return c.count > 0;
  }
  if (fa.count >= 3) {
    const Vec3 m = polygon_normal(fa);
    const int count = clip_to_prism(fb, fa, n, clipped);
    for (int i = 0; i < count; ++i)
      if (!add_on_b(c, clipped[i], fa.vertices[0], m, n)) return false;
    return c.count > 0;
  }
  // Two segments: a patch only when they are parallel (within the tolerance); A's segment is
  // clipped to the slab between the planes through B's ends, across B's direction in the contact
  // plane.
  const Vec3 ea = fa.vertices[1] - fa.vertices[0];
  Vec3 eb = fb.vertices[1] - fb.vertices[0];
  if (!(ea.norm() > 0.0 && eb.norm() > 0.0)) return false;
  if (ea.normalized().cross(eb.normalized()).norm() > sin_tol) return false;
  eb -= n.dot(eb) * n;
  const double eb2 = eb.squaredNorm();
  if (!(eb2 > 0.0)) return false;
  double t0 = 0.0, t1 = 1.0;
  const double start = eb.dot(fa.vertices[0] - fb.vertices[0]), rate = eb.dot(ea);
  if (rate == 0.0) return false;
  // eb·(x − b0) must lie in [0, eb2].
  double ta = -start / rate, tb = (eb2 - start) / rate;
  if (ta > tb) std::swap(ta, tb);
  t0 = std::max(t0, ta);
  t1 = std::min(t1, tb);
  if (t0 > t1) return false;
  const Vec3 m = segment_plane_normal(fb, n);
  for (const double t : {t0, t1})
    if (!add_on_a(c, fa.vertices[0] + t * ea, fb.vertices[0], m, n)) return false;
  return true;
}

}  // namespace detail

void build_manifold(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                    int max_points, ContactManifold& manifold, double sin_tolerance) {
  if (max_points <= 1 || manifold.count < 1) return;
  const ContactGeometry deepest = manifold.points[0];
  const double size_m = std::max(shape_size(a), shape_size(b));
  if (deepest.distance_m > kTouchingFraction * size_m) return;
  const Vec3 n = deepest.normal_W;

  detail::Candidates c;
  double radius_a = 0.0, radius_b = 0.0;
  if (b.type == ShapeType::half_space || a.type == ShapeType::half_space) {
    const bool b_plane = b.type == ShapeType::half_space;
    const Shape& solid = b_plane ? a : b;
    const Pose& X_WS = b_plane ? X_WA : X_WB;
    const Pose& X_WH = b_plane ? X_WB : X_WA;
    const Vec3 m = X_WH.R * (b_plane ? b.normal : a.normal).normalized();
    Feature f;
    supporting_feature_W(solid, X_WS, b_plane ? n : Vec3(-n), f, sin_tolerance);
    if (f.count < 2) return;
    (b_plane ? radius_a : radius_b) = f.radius_m;
    for (int i = 0; i < f.count; ++i) {
      const bool ok = b_plane ? detail::add_on_a(c, f.vertices[i], X_WH.p, m, n)
                              : detail::add_on_b(c, f.vertices[i], X_WH.p, m, n);
      if (!ok) return;
    }
  } else {
    Feature fa, fb;
    supporting_feature_W(a, X_WA, n, fa, sin_tolerance);
    supporting_feature_W(b, X_WB, -n, fb, sin_tolerance);
    radius_a = fa.radius_m;
    radius_b = fb.radius_m;
    if (!detail::clip_features(fa, fb, n, sin_tolerance, c)) return;
  }
  if (c.count < 2) return;

  std::array<Vec3, kMaxClipPoints> tangential;
  for (int i = 0; i < c.count; ++i) {
    c.distance[i] -= radius_a + radius_b;
    const Vec3 middle = 0.5 * (c.point_a[i] + c.point_b[i]);
    tangential[i] = middle - n.dot(middle) * n;
  }
  std::array<int, max_manifold_points> chosen;
  const int count = choose_patch_points(tangential.data(), c.distance.data(), c.count, n,
                                        std::min(max_points, max_manifold_points), size_m, chosen);
  if (count < 2) return;
  // The patch's deepest point may be shallower than the narrow phase's distance when that normal
  // is not the minimum-translation one (MPR in deep overlap): the overlap of the projections on n
  // then exceeds every point's depth along n, by at most the normal's error times the shapes'
  // size, which the features' angular tolerance bounds. A larger gap means the features do not
  // explain the narrow phase's answer: the single point stays.
  if (c.distance[chosen[0]] > deepest.distance_m + sin_tolerance * size_m) return;
  for (int k = 0; k < count; ++k) {
    const int i = chosen[k];
    ContactGeometry& g = manifold.points[k];
    g.normal_W = n;
    g.distance_m = c.distance[i];
    g.point_a_W = c.point_a[i] + radius_a * n;
    g.point_b_W = c.point_b[i] - radius_b * n;
  }
  manifold.count = count;
}

}  // namespace contactlab::geometry
