// Collision shapes, described in their own geometry frame G, and their support mappings.
//
// Every shape but the half-space is convex and bounded. Axial shapes (cylinder, cone/frustum,
// capsule) have their axis along G's z and are centred on G's origin; a beam lies along G's x.
// A shape may carry a smoothing radius r (Neumayr 2025 §6.2.2): the shape is shrunk by r and
// then swept by a sphere of radius r, which rounds its edges and corners without changing its
// outer dimensions.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "contactlab/math.hpp"

namespace contactlab {

enum class ShapeType : std::int32_t {
  sphere = 0,       ///< radius_m
  box = 1,          ///< half_extents_m along x, y, z
  half_space = 2,   ///< solid {x : normal·x ≤ 0}; boundary plane through G's origin
  ellipsoid = 3,    ///< half_extents_m are the semi-axes along x, y, z
  cylinder = 4,     ///< radius_m, half_length_m along z
  cone = 5,         ///< base radius_m at z = −half_length_m, top_radius_m at z = +half_length_m
                    ///< (a frustum when top_radius_m > 0)
  capsule = 6,      ///< radius_m, half_length_m of the axis segment (between the cap centres)
  beam = 7,         ///< stadium along x: half_extents_m = (half length incl. round ends,
                    ///< half width = end radius, half thickness along z)
  convex_hull = 8,  ///< hull (vertices in G)
};
inline constexpr int shape_type_count = 9;

inline const char* shape_type_name(ShapeType type) {
  switch (type) {
    case ShapeType::sphere:
      return "sphere";
    case ShapeType::box:
      return "box";
    case ShapeType::half_space:
      return "half_space";
    case ShapeType::ellipsoid:
      return "ellipsoid";
    case ShapeType::cylinder:
      return "cylinder";
    case ShapeType::cone:
      return "cone";
    case ShapeType::capsule:
      return "capsule";
    case ShapeType::beam:
      return "beam";
    case ShapeType::convex_hull:
      return "convex_hull";
  }
  return "unknown";
}

/// Vertex and face data of a convex polyhedron, owned by the host for the whole run.
struct ConvexHull {
  const Vec3* vertices = nullptr;  ///< hull vertices in G [m] (no interior points)
  std::uint32_t vertex_count = 0;
  /// Vertex adjacency in compressed rows: the neighbours of vertex i are
  /// neighbors[neighbor_offsets[i] .. neighbor_offsets[i + 1]) (for hill-climbing supports).
  const std::uint32_t* neighbor_offsets = nullptr;
  const std::uint32_t* neighbors = nullptr;
  /// Faces as planes n·x ≤ d (unit outward normals in G, offsets in m).
  const Vec3* face_normals = nullptr;
  const double* face_offsets = nullptr;
  std::uint32_t face_count = 0;
  /// Boundary triangles, three vertex indices each, counter-clockwise seen from outside.
  const std::uint32_t* triangles = nullptr;
  std::uint32_t triangle_count = 0;
  Vec3 centroid = Vec3::Zero();  ///< volume centroid in G (an interior point) [m]
  /// The faces around each vertex in compressed rows: those of vertex i are
  /// vertex_faces[vertex_face_offsets[i] .. vertex_face_offsets[i + 1]), indices into
  /// face_normals, face_offsets and triangles (face k is triangle k). The faces around a support
  /// vertex are the candidates for the face a contact lies on, so a narrow phase finds that face
  /// without a scan of all faces. Null when the host did not build them.
  const std::uint32_t* vertex_face_offsets = nullptr;
  const std::uint32_t* vertex_faces = nullptr;
};

/// Hulls with at least this many vertices (and an adjacency) are climbed; smaller ones scanned.
inline constexpr std::uint32_t kHullClimbFrom = 32;

/// Steepest-ascent climb along the vertex adjacency of `hull` from vertex `start` (a valid index;
/// the hull has an adjacency) to a vertex maximising d·x (see hull_support_vertex). Each move
/// strictly increases d·x, so the climb cannot cycle.
inline std::uint32_t hull_climb_vertex(const ConvexHull& hull, const Vec3& d, std::uint32_t start) {
  const Vec3* const vertices = hull.vertices;
  const std::uint32_t* const offsets = hull.neighbor_offsets;
  const std::uint32_t* const neighbors = hull.neighbors;
  std::uint32_t best = start;
  double best_dot = d.dot(vertices[best]);
  for (bool moved = true; moved;) {
    moved = false;
    const std::uint32_t end = offsets[best + 1];
    for (std::uint32_t k = offsets[best]; k < end; ++k) {
      const std::uint32_t j = neighbors[k];
      const double value = d.dot(vertices[j]);
      if (value > best_dot) {
        best_dot = value;
        best = j;
        moved = true;
      }
    }
  }
  return best;
}

/// Index of a vertex of `hull` maximising d·x. Small hulls are scanned; larger ones are climbed
/// along the vertex adjacency (as Bullet's and Jolt's hull supports do): on a convex polytope a
/// vertex whose neighbours are all no better is a global maximum of the linear function, so the
/// climb is exact and visits O(√n) vertices instead of n. `start` is where the climb begins: the
/// vertex of a previous support in a nearby direction makes it a step or two (temporal coherence);
/// the scan ignores it.
inline std::uint32_t hull_support_vertex(const ConvexHull& hull, const Vec3& d,
                                         std::uint32_t start = 0) {
  const bool scan = hull.vertex_count < kHullClimbFrom || hull.neighbor_offsets == nullptr;
  if (!scan) return hull_climb_vertex(hull, d, start < hull.vertex_count ? start : 0);
  std::uint32_t best = 0;
  double best_dot = d.dot(hull.vertices[0]);
  for (std::uint32_t i = 1; i < hull.vertex_count; ++i) {
    const double value = d.dot(hull.vertices[i]);
    if (value > best_dot) {
      best_dot = value;
      best = i;
    }
  }
  return best;
}

/// The corner of the box [−h, h] maximising d·x, without branches (copysign): the signs of
/// successive search directions are as good as random, and mispredicted branches on them cost
/// more than the rest of a support query. A zero component of d is a tie between two corners;
/// either is right (the sign of the zero decides).
inline Vec3 box_corner(const Vec3& h, const Vec3& d) {
  return Vec3(std::copysign(h.x(), d.x()), std::copysign(h.y(), d.y()),
              std::copysign(h.z(), d.z()));
}

/// A shape is a plain value: the fields that matter depend on `type`.
struct Shape {
  ShapeType type = ShapeType::sphere;
  double radius_m = 0.0;               ///< sphere, cylinder, capsule; cone base radius [m]
  double top_radius_m = 0.0;           ///< cone top radius (0: a pointed cone) [m]
  double half_length_m = 0.0;          ///< cylinder, cone, capsule: half length along z [m]
  Vec3 half_extents_m = Vec3::Zero();  ///< box half sizes; ellipsoid semi-axes; beam (see above)
  Vec3 normal = Vec3::UnitZ();         ///< half-space outward unit normal in G (solid below)
  double smoothing_radius_m = 0.0;     ///< edge/corner rounding radius r ≥ 0 [m]
  /// Contact radius r_c for curvature-dependent force laws [m] (Neumayr 2025 table 7.1, or the
  /// user's `contact_radius_m`), and whether the shape counts as flat in the R_geo rule.
  double contact_radius_m = std::numeric_limits<double>::infinity();
  bool flat = false;
  const ConvexHull* hull = nullptr;  ///< convex_hull only; host-owned

  static Shape sphere(double radius_m) {
    Shape s;
    s.type = ShapeType::sphere;
    s.radius_m = radius_m;
    s.contact_radius_m = radius_m;
    return s;
  }
  static Shape box(const Vec3& half_extents_m) {
    Shape s;
    s.type = ShapeType::box;
    s.half_extents_m = half_extents_m;
    s.contact_radius_m = half_extents_m.minCoeff();
    s.flat = true;
    return s;
  }
  static Shape half_space(const Vec3& outward_normal) {
    Shape s;
    s.type = ShapeType::half_space;
    s.normal = outward_normal.normalized();
    s.flat = true;
    return s;
  }
  static Shape ellipsoid(const Vec3& semi_axes_m) {
    Shape s;
    s.type = ShapeType::ellipsoid;
    s.half_extents_m = semi_axes_m;
    s.contact_radius_m = semi_axes_m.minCoeff();
    return s;
  }
  static Shape cylinder(double radius_m, double length_m) {
    Shape s;
    s.type = ShapeType::cylinder;
    s.radius_m = radius_m;
    s.half_length_m = 0.5 * length_m;
    s.contact_radius_m = std::min(radius_m, 0.5 * length_m);
    return s;
  }
  static Shape cone(double base_radius_m, double top_radius_m, double length_m) {
    Shape s;
    s.type = ShapeType::cone;
    s.radius_m = base_radius_m;
    s.top_radius_m = top_radius_m;
    s.half_length_m = 0.5 * length_m;
    s.contact_radius_m = 0.5 * (base_radius_m + top_radius_m);
    return s;
  }
  static Shape capsule(double radius_m, double segment_length_m) {
    Shape s;
    s.type = ShapeType::capsule;
    s.radius_m = radius_m;
    s.half_length_m = 0.5 * segment_length_m;
    s.contact_radius_m = radius_m;
    return s;
  }
  static Shape beam(double length_m, double width_m, double thickness_m) {
    Shape s;
    s.type = ShapeType::beam;
    s.half_extents_m = 0.5 * Vec3(length_m, width_m, thickness_m);
    s.contact_radius_m = 0.5 * std::min({length_m, width_m, thickness_m});
    s.flat = true;
    return s;
  }
  static Shape convex_hull(const ConvexHull* hull) {
    Shape s;
    s.type = ShapeType::convex_hull;
    s.hull = hull;
    return s;
  }
};

/// Support point of the shape's core (the shape shrunk by its smoothing radius) in direction d
/// (G frame, any length > 0): a point of the core maximising d·x. Not for half-spaces.
inline Vec3 core_support(const Shape& shape, const Vec3& d) {
  const double r = shape.smoothing_radius_m;
  auto sign = [](double v) { return v < 0.0 ? -1.0 : 1.0; };
  switch (shape.type) {
    case ShapeType::sphere:
      return Vec3::Zero();  // a sphere is its own smoothing
    case ShapeType::box: {
      const Vec3 h = shape.half_extents_m - Vec3::Constant(r);
      return Vec3(sign(d.x()) * h.x(), sign(d.y()) * h.y(), sign(d.z()) * h.z());
    }
    case ShapeType::ellipsoid: {
      // argmax over the ellipsoid x = A·u, |u| = 1 of d·x is A²d/|Ad|, A = diag(semi-axes).
      const Vec3 a = shape.half_extents_m - Vec3::Constant(r);
      const Vec3 ad = a.cwiseProduct(d);
      const double norm = ad.norm();
      return norm > 0.0 ? Vec3(a.cwiseProduct(ad) / norm) : Vec3(a.x(), 0.0, 0.0);
    }
    case ShapeType::cylinder: {
      const double radius = shape.radius_m - r;
      const double radial = std::hypot(d.x(), d.y());
      const Vec3 rim = radial > 0.0 ? Vec3(radius * d.x() / radial, radius * d.y() / radial, 0.0)
                                    : Vec3(radius, 0.0, 0.0);
      return rim + Vec3(0.0, 0.0, sign(d.z()) * (shape.half_length_m - r));
    }
    case ShapeType::cone: {
      // A frustum is the convex hull of its two rims: the support is on one of them.
      const double h = shape.half_length_m - r;
      const double radial = std::hypot(d.x(), d.y());
      const Vec3 u = radial > 0.0 ? Vec3(d.x() / radial, d.y() / radial, 0.0) : Vec3::UnitX();
      const double base_radius = std::max(0.0, shape.radius_m - r);
      const double top_radius = std::max(0.0, shape.top_radius_m - r);
      const Vec3 base = base_radius * u + Vec3(0.0, 0.0, -h);
      const Vec3 top = top_radius * u + Vec3(0.0, 0.0, h);
      return d.dot(top) > d.dot(base) ? top : base;
    }
    case ShapeType::capsule:
      return Vec3(0.0, 0.0, sign(d.z()) * shape.half_length_m);
    case ShapeType::beam: {
      // Stadium in x–y (segment of half length L/2 − W/2 swept by a disc of radius W/2),
      // extruded over the thickness along z.
      const Vec3 h = shape.half_extents_m - Vec3::Constant(r);
      const double end_radius = h.y();
      const double segment = shape.half_extents_m.x() - shape.half_extents_m.y();
      const double planar = std::hypot(d.x(), d.y());
      Vec3 p(sign(d.x()) * segment, 0.0, sign(d.z()) * h.z());
      if (planar > 0.0) p += Vec3(end_radius * d.x() / planar, end_radius * d.y() / planar, 0.0);
      return p;
    }
    case ShapeType::convex_hull:
      return shape.hull->vertices[hull_support_vertex(*shape.hull, d)];
    case ShapeType::half_space:
      break;
  }
  return Vec3::Zero();
}

/// A rim's term of add_core_support_derivative: the rim ρ·(d_x, d_y, 0)/|(d_x, d_y)| of a core
/// at the direction d (its frame) has the derivative (ρ/|.|³)·q qᵀ, q = (d_y, −d_x, 0); q may be
/// given in any frame, that of u1 and u2 (a caller working in another body's frame rotates q
/// once instead of u1 and u2).
inline void add_rim_support_derivative(double radius, const Vec3& d, const Vec3& q, const Vec3& u1,
                                       const Vec3& u2, double& q11, double& q12, double& q22) {
  const double radial2 = d.x() * d.x() + d.y() * d.y();
  if (!(radial2 > 0.0) || !(radius > 0.0)) return;
  const double k = radius / (radial2 * std::sqrt(radial2));
  const double c1 = q.x() * u1.x() + q.y() * u1.y() + q.z() * u1.z();
  const double c2 = q.x() * u2.x() + q.y() * u2.y() + q.z() * u2.z();
  q11 += k * c1 * c1;
  q12 += k * c1 * c2;
  q22 += k * c2 * c2;
}

/// Adds to (q11, q12, q22) the quadratic form uᵢ·J·uⱼ of the derivative J = ∂s/∂d of the core
/// support s(d) (core_support) at the direction d (G frame, any length > 0: J scales as 1/|d|),
/// for the vectors u1, u2 (G frame). J is the Hessian of the support function, the curvature of
/// the smooth parts of the core: symmetric positive semi-definite, zero for polytopes, points and
/// segments. At a kink of s (a cylinder's side line, a cone's switch between rims) it is the
/// derivative of the branch core_support took. For Newton iterations on support functions.
inline void add_core_support_derivative(const Shape& shape, const Vec3& d, const Vec3& u1,
                                        const Vec3& u2, double& q11, double& q12, double& q22) {
  const double r = shape.smoothing_radius_m;
  auto rim = [&](double radius) {
    add_rim_support_derivative(radius, d, Vec3(d.y(), -d.x(), 0.0), u1, u2, q11, q12, q22);
  };
  switch (shape.type) {
    case ShapeType::ellipsoid: {
      // s = A²d/|Ad|: ds/dd = (A² − (A²d)(A²d)ᵀ/|Ad|²)/|Ad|.
      const Vec3 a = shape.half_extents_m - Vec3::Constant(r);
      const Vec3 a2 = a.cwiseProduct(a);
      const Vec3 a2d = a2.cwiseProduct(d);
      const double ad2 = a2d.dot(d);
      if (!(ad2 > 0.0)) return;
      const double inverse = 1.0 / std::sqrt(ad2);
      const double c1 = a2d.dot(u1);
      const double c2 = a2d.dot(u2);
      q11 += (a2.dot(u1.cwiseProduct(u1)) - c1 * c1 / ad2) * inverse;
      q12 += (a2.dot(u1.cwiseProduct(u2)) - c1 * c2 / ad2) * inverse;
      q22 += (a2.dot(u2.cwiseProduct(u2)) - c2 * c2 / ad2) * inverse;
      return;
    }
    case ShapeType::cylinder:
      rim(shape.radius_m - r);
      return;
    case ShapeType::cone: {
      const double h = shape.half_length_m - r;
      const double radial = std::sqrt(d.x() * d.x() + d.y() * d.y());
      const double base_radius = std::max(0.0, shape.radius_m - r);
      const double top_radius = std::max(0.0, shape.top_radius_m - r);
      // The rim core_support picks: the top when d·top > d·base.
      const bool top = top_radius * radial + h * d.z() > base_radius * radial - h * d.z();
      rim(top ? top_radius : base_radius);
      return;
    }
    case ShapeType::beam:
      rim(shape.half_extents_m.y() - r);
      return;
    default:
      return;
  }
}

/// Radius swept around the core: the sphere's and capsule's radius, else the smoothing radius.
inline double sweep_radius(const Shape& shape) {
  if (shape.type == ShapeType::sphere || shape.type == ShapeType::capsule) return shape.radius_m;
  return shape.smoothing_radius_m;
}

/// Support point of the whole shape in direction d (G frame, d ≠ 0): core support plus the swept
/// radius along d.
inline Vec3 support(const Shape& shape, const Vec3& d) {
  const double radius = sweep_radius(shape);
  Vec3 p = core_support(shape, d);
  if (radius > 0.0) p += radius * d / d.norm();
  return p;
}

/// Support point of a posed shape in a world direction d_W: X_WG·support(R_WGᵀ·d_W).
inline Vec3 support_W(const Shape& shape, const Pose& X_WG, const Vec3& d_W) {
  return X_WG.transform_point(support(shape, X_WG.R.transpose() * d_W));
}

/// An interior point of the shape in G (its centre; a hull's centroid), used by MPR to start.
inline Vec3 interior_point(const Shape& shape) {
  return shape.type == ShapeType::convex_hull ? shape.hull->centroid : Vec3::Zero();
}

/// Axis-aligned bounding box in world coordinates [m]. Unbounded shapes use ±infinity.
struct Aabb {
  Vec3 min_W = Vec3::Zero();
  Vec3 max_W = Vec3::Zero();
  bool overlaps(const Aabb& other) const {
    return (min_W.array() <= other.max_W.array()).all() &&
           (other.min_W.array() <= max_W.array()).all();
  }
};

/// The tight AABB of a posed shape from six support queries (Neumayr 2025 L285–294); a
/// half-space is unbounded except along an axis its normal is aligned with.
inline Aabb shape_aabb(const Shape& shape, const Pose& X_WG) {
  Aabb box;
  if (shape.type == ShapeType::half_space) {
    const Vec3 n_W = X_WG.R * shape.normal;
    for (int i = 0; i < 3; ++i) {
      box.min_W[i] = -std::numeric_limits<double>::infinity();
      box.max_W[i] = std::numeric_limits<double>::infinity();
      const bool aligned = std::abs(std::abs(n_W[i]) - 1.0) < 1e-12;
      if (aligned && n_W[i] > 0) box.max_W[i] = X_WG.p[i];
      if (aligned && n_W[i] < 0) box.min_W[i] = X_WG.p[i];
    }
    return box;
  }
  if (shape.type == ShapeType::sphere) {
    box.min_W = X_WG.p - Vec3::Constant(shape.radius_m);
    box.max_W = X_WG.p + Vec3::Constant(shape.radius_m);
    return box;
  }
  if (shape.type == ShapeType::box && shape.smoothing_radius_m == 0.0) {
    const Vec3 h = X_WG.R.cwiseAbs() * shape.half_extents_m;  // half widths of a rotated box
    box.min_W = X_WG.p - h;
    box.max_W = X_WG.p + h;
    return box;
  }
  for (int i = 0; i < 3; ++i) {
    // Row i of R_WG is world axis i seen in G.
    const Vec3 axis_G = X_WG.R.row(i).transpose();
    box.max_W[i] = X_WG.p[i] + axis_G.dot(support(shape, axis_G));
    box.min_W[i] = X_WG.p[i] + axis_G.dot(support(shape, -axis_G));
  }
  return box;
}

}  // namespace contactlab
