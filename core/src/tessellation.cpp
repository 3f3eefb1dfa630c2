// Surfaces of the shapes. Every bounded shape is a core K swept by a sphere of radius r (r is the
// smoothing radius, or the radius of a sphere or capsule around its point or segment core), so
// its surface is {k + r·n : k on ∂K, n an outward normal of K at k}: each vertex below is built as
// exactly such a pair (k, n), which puts it on the true surface to rounding and gives it its true
// outward normal. With r = 0 the same construction gives the sharp shape: the round parts
// collapse to creases (one vertex per face at the crease, each with its face's normal) and the
// triangles that collapse are dropped.
//
//   • Shapes of revolution about z (sphere, cylinder, cone/frustum, capsule) revolve the boundary
//     of core ⊕ disc(r) in the (ρ, z) half-plane: the core's profile polygon with its edges moved
//     out by r and circular arcs of radius r at its corners (the Minkowski sum of a convex body of
//     revolution with a ball is the revolution of its profile's sum with a disc).
//   • A beam is its segment (along x) ⊕ a rounded cylinder of the beam's half width: the same
//     profile revolved about a spine whose point jumps from +x to −x at the straight sides.
//   • A box is a cube-sphere: on each face a grid of normals n ∝ (α, β, ±1) (tan-spaced, so that
//     edges are cut at equal angles) at the core corner of n's octant, with the normals α = 0
//     and β = 0 taken twice, once at each core corner, so that the flat face and the straight
//     parts of the edges lie between them.
//   • An ellipsoid maps a UV sphere u through x = A·u (A: the core's semi-axes), n ∝ A⁻¹u.
//   • A convex hull is drawn by its own boundary triangles (with smoothing: support-mapped).
#include "contactlab/core/tessellation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

#include "contactlab/errors.hpp"

namespace contactlab::core {

namespace {

constexpr double pi = std::numbers::pi;
using Vec2 = Eigen::Vector2d;

/// (cos θ, sin θ), exact on the axes: the seams where surfaces meet (a face and an edge, a beam's
/// straight side and its end) are computed by different pieces, which must agree to the bit.
Vec2 unit_at(double angle) {
  double c = std::cos(angle), s = std::sin(angle);
  if (std::abs(c) < 1e-15) return {0.0, s < 0.0 ? -1.0 : 1.0};
  if (std::abs(s) < 1e-15) return {c < 0.0 ? -1.0 : 1.0, 0.0};
  return {c, s};
}

/// Intervals for an arc of `angle` radians at `segments` per full turn; at least one.
int arc_steps(double angle, int segments) {
  return std::max(1, static_cast<int>(std::ceil(angle * segments / (2.0 * pi) - 1e-9)));
}

/// Collects vertices and triangles, then welds and cleans them (finish()).
class MeshBuilder {
 public:
  std::uint32_t add(const Vec3& position, const Vec3& normal) {
    mesh_.vertices.push_back(position);
    mesh_.normals.push_back(normal);
    return static_cast<std::uint32_t>(mesh_.vertices.size() - 1);
  }
  void triangle(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
    mesh_.triangles.push_back({a, b, c});
  }
  /// A rows × cols grid of vertex(row, col); columns wrap around when `closed`. The quads are
  /// split so that a triangle's corners (row, col), (row, col + 1), (row + 1, col + 1) run
  /// counter-clockwise seen from outside when the column direction × the row direction points
  /// outward.
  template <class Vertex>
  void grid(int rows, int cols, bool closed, Vertex vertex) {
    const std::uint32_t first = static_cast<std::uint32_t>(mesh_.vertices.size());
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const auto [position, normal] = vertex(i, j);
        add(position, normal);
      }
    const auto at = [&](int i, int j) { return first + std::uint32_t(i * cols + j % cols); };
    for (int i = 0; i + 1 < rows; ++i)
      for (int j = 0; j + 1 < (closed ? cols + 1 : cols); ++j) {
        triangle(at(i, j), at(i, j + 1), at(i + 1, j + 1));
        triangle(at(i, j), at(i + 1, j + 1), at(i + 1, j));
      }
  }
  /// Merges vertices equal in position and normal, drops the triangles that collapsed (two
  /// corners at one point: a crease of a sharp shape, a pole, a round part of zero radius) and
  /// the vertices no triangle uses.
  SurfaceMesh finish() {
    std::map<std::array<double, 6>, std::uint32_t> index;
    std::vector<std::uint32_t> merged(mesh_.vertices.size());
    SurfaceMesh out;
    for (std::size_t v = 0; v < mesh_.vertices.size(); ++v) {
      const Vec3& p = mesh_.vertices[v];
      const Vec3& n = mesh_.normals[v];
      const auto [it, added] = index.try_emplace({p.x(), p.y(), p.z(), n.x(), n.y(), n.z()},
                                                 std::uint32_t(index.size()));
      merged[v] = it->second;
      if (added) {
        out.vertices.push_back(p);
        out.normals.push_back(n);
      }
    }
    std::vector<std::uint32_t> used(out.vertices.size(), 0);
    std::vector<std::array<std::uint32_t, 3>> kept;
    for (const auto& t : mesh_.triangles) {
      const std::array<std::uint32_t, 3> m = {merged[t[0]], merged[t[1]], merged[t[2]]};
      const Vec3 &a = out.vertices[m[0]], &b = out.vertices[m[1]], &c = out.vertices[m[2]];
      if (a == b || b == c || c == a) continue;
      kept.push_back(m);
      for (std::uint32_t k : m) used[k] = 1;
    }
    // Compact: renumber the used vertices in order.
    std::vector<std::uint32_t> renumber(out.vertices.size());
    std::uint32_t next = 0;
    for (std::size_t v = 0; v < out.vertices.size(); ++v) {
      renumber[v] = next;
      if (used[v]) {
        out.vertices[next] = out.vertices[v];
        out.normals[next] = out.normals[v];
        ++next;
      }
    }
    out.vertices.resize(next);
    out.normals.resize(next);
    for (auto& t : kept)
      for (auto& k : t) k = renumber[k];
    out.triangles = std::move(kept);
    return out;
  }

 private:
  SurfaceMesh mesh_;
};

/// A point of a profile in the (ρ, z) half-plane with its outward unit normal (n_ρ, n_z).
struct ProfilePoint {
  Vec2 point;
  Vec2 normal;
};

/// The boundary of core ⊕ disc(r) in the half-plane ρ ≥ 0, from the bottom of the axis to its
/// top. `core` is the core's profile: a convex chain from a point on the axis (ρ = 0) to a point
/// on the axis, counter-clockwise (outward to its right; a single point or a segment on the axis
/// will do). Each corner of the chain becomes an arc of radius r from the normal of the edge
/// before it to that of the edge after it (the bottom starts from (0, −1), the top ends at (0, 1));
/// with r = 0 the arc is the corner itself taken twice, once with each edge's normal.
std::vector<ProfilePoint> offset_profile(std::vector<Vec2> core, double r, int segments) {
  core.erase(std::unique(core.begin(), core.end()), core.end());
  std::vector<Vec2> edge_normals;
  for (std::size_t i = 0; i + 1 < core.size(); ++i) {
    const Vec2 d = core[i + 1] - core[i];
    edge_normals.push_back(Vec2(d.y(), -d.x()).normalized());
  }
  std::vector<ProfilePoint> profile;
  for (std::size_t i = 0; i < core.size(); ++i) {
    const Vec2 n_in = i == 0 ? Vec2(0.0, -1.0) : edge_normals[i - 1];
    const Vec2 n_out = i + 1 == core.size() ? Vec2(0.0, 1.0) : edge_normals[i];
    const double from = std::atan2(n_in.y(), n_in.x());
    const double turn = std::max(0.0, std::atan2(n_out.y(), n_out.x()) - from);
    if (turn < 1e-12) {
      profile.push_back({core[i] + r * n_out, n_out});
      continue;
    }
    const int steps = r > 0.0 ? arc_steps(turn, segments) : 1;
    for (int k = 0; k <= steps; ++k) {
      const Vec2 n = k == 0 ? n_in : k == steps ? n_out : unit_at(from + turn * k / steps);
      profile.push_back({core[i] + r * n, n});
    }
  }
  return profile;
}

/// A direction about z, (cos φ, sin φ), and where on the x axis the profile is revolved about
/// there (0 for a shape of revolution; a beam's spine ±(L − W)/2).
struct Azimuth {
  Vec2 direction;
  double spine_x = 0.0;
};

std::vector<Azimuth> full_turn(int segments) {
  std::vector<Azimuth> around;
  for (int j = 0; j < segments; ++j) around.push_back({unit_at(2.0 * pi * j / segments), 0.0});
  return around;
}

/// Point and normal of the profile point p revolved to the azimuth a.
std::pair<Vec3, Vec3> revolved(const ProfilePoint& p, const Azimuth& a) {
  const Vec2& m = a.direction;
  const Vec3 position(a.spine_x + p.point.x() * m.x(), p.point.x() * m.y(), p.point.y());
  return {position, Vec3(p.normal.x() * m.x(), p.normal.x() * m.y(), p.normal.y())};
}

SurfaceMesh revolve(const std::vector<ProfilePoint>& profile, const std::vector<Azimuth>& around) {
  // Columns run counter-clockwise about z, rows up the profile: column × row points outward.
  MeshBuilder builder;
  builder.grid(int(profile.size()), int(around.size()), true,
               [&](int i, int j) { return revolved(profile[i], around[j]); });
  return builder.finish();
}

/// The profile of a cylinder of radius `radius` and half length `half_length` rounded by r.
std::vector<ProfilePoint> cylinder_profile(double radius, double half_length, double r,
                                           int segments) {
  const double a = radius - r, h = half_length - r;
  return offset_profile({{0.0, -h}, {a, -h}, {a, h}, {0.0, h}}, r, segments);
}

/// Beam: its segment of half length L/2 − W/2 along x ⊕ a rounded cylinder of radius W/2 and
/// half length T/2 (core_support's stadium, extruded, swept by r). The profile is revolved
/// about +x's end through the half turn facing +x, then about −x's end; the jumps between them
/// at φ = ±π/2 are the straight sides.
SurfaceMesh beam_mesh(const Shape& shape, int segments) {
  const Vec3& h = shape.half_extents_m;
  const double r = shape.smoothing_radius_m;
  const double spine = h.x() - h.y();
  const int half = std::max(4, (segments + 1) / 2);
  std::vector<Azimuth> around;
  for (int end = 0; end < 2; ++end)
    for (int k = 0; k <= half; ++k)
      around.push_back({unit_at(-0.5 * pi + pi * end + pi * k / half), end == 0 ? spine : -spine});
  return revolve(cylinder_profile(h.y(), h.z(), r, segments), around);
}

/// Box: on each of the six faces (outward axis c, sign s) a grid of normals n ∝ (α, β, s) over
/// the face's tangent axes. Along an axis the samples are (α, core coordinate): α from −1 to 0
/// at the core's −h, then from 0 to 1 at its +h, α = tan of equal angle steps (so that a round
/// edge is cut at equal angles; the grid reaches the neighbouring face at α = ±1, 45°, exactly
/// where that face's grid begins). The vertex is the core corner picked by the samples plus r·n.
SurfaceMesh box_mesh(const Shape& shape, int segments) {
  const double r = shape.smoothing_radius_m;
  const Vec3 core = shape.half_extents_m - Vec3::Constant(r);
  const int quarter = r > 0.0 ? arc_steps(0.25 * pi, segments) : 1;  // steps over 45°
  std::array<std::vector<Vec2>, 3> samples;                          // (α, core coordinate)
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<double> alpha;  // −1 … 0, exact at both ends
    for (int k = 0; k <= quarter; ++k)
      alpha.push_back(k == 0         ? -1.0
                      : k == quarter ? 0.0
                                     : std::tan(-0.25 * pi * (1.0 - double(k) / quarter)));
    for (double a : alpha) samples[axis].push_back({a, -core[axis]});
    for (auto it = alpha.rbegin(); it != alpha.rend(); ++it)
      samples[axis].push_back({-*it, core[axis]});
  }
  MeshBuilder builder;
  for (int c = 0; c < 3; ++c)
    for (double s : {1.0, -1.0}) {
      // Tangent axes with e_a × e_b = s·e_c: the grid's column direction × row direction.
      const int a = s > 0.0 ? (c + 1) % 3 : (c + 2) % 3;
      const int b = s > 0.0 ? (c + 2) % 3 : (c + 1) % 3;
      const auto& sa = samples[a];
      const auto& sb = samples[b];
      builder.grid(int(sb.size()), int(sa.size()), false, [&](int i, int j) {
        Vec3 n, k;
        n[c] = s;
        k[c] = s * core[c];
        n[a] = sa[j].x();
        k[a] = sa[j].y();
        n[b] = sb[i].x();
        k[b] = sb[i].y();
        n.normalize();
        return std::pair<Vec3, Vec3>(k + r * n, n);
      });
    }
  return builder.finish();
}

/// Ellipsoid: the unit sphere's UV grid u mapped to the core ellipsoid x = A·u, whose outward
/// normal there is ∝ A⁻¹u (the gradient of |A⁻¹x|²), then moved out by r along it.
SurfaceMesh ellipsoid_mesh(const Shape& shape, int segments) {
  const double r = shape.smoothing_radius_m;
  const Vec3 a = shape.half_extents_m - Vec3::Constant(r);
  const std::vector<ProfilePoint> profile = offset_profile({{0.0, 0.0}}, 1.0, segments);
  const std::vector<Azimuth> around = full_turn(segments);
  MeshBuilder builder;
  builder.grid(int(profile.size()), int(around.size()), true, [&](int i, int j) {
    const Vec3 u = revolved(profile[i], around[j]).first;
    const Vec3 n = u.cwiseQuotient(a).normalized();
    return std::pair<Vec3, Vec3>(a.cwiseProduct(u) + r * n, n);
  });
  return builder.finish();
}

SurfaceMesh hull_mesh(const ConvexHull& hull) {
  // Each face gets its own three vertices, so that its normal is the face's (finish() merges a
  // face's triangles' shared corners when the host gave them one plane).
  MeshBuilder builder;
  for (std::uint32_t k = 0; k < hull.triangle_count; ++k) {
    const std::uint32_t* t = hull.triangles + 3 * k;
    const Vec3& n = hull.face_normals[k];
    builder.triangle(builder.add(hull.vertices[t[0]], n), builder.add(hull.vertices[t[1]], n),
                     builder.add(hull.vertices[t[2]], n));
  }
  return builder.finish();
}

/// The image of a latitude–longitude grid of directions d under the support mapping: s(d) is on
/// the surface and d an outward normal there, for any convex shape. Flat faces come out as their
/// corners (the triangles between collapse). Used for a hull with a smoothing radius, which the
/// scene does not allow but the Shape can carry.
SurfaceMesh support_mesh(const Shape& shape, int segments) {
  const std::vector<ProfilePoint> profile = offset_profile({{0.0, 0.0}}, 1.0, segments);
  const std::vector<Azimuth> around = full_turn(segments);
  MeshBuilder builder;
  builder.grid(int(profile.size()), int(around.size()), true, [&](int i, int j) {
    const Vec3 d = revolved(profile[i], around[j]).second;
    return std::pair<Vec3, Vec3>(support(shape, d), d);
  });
  return builder.finish();
}

SurfaceMesh plane_patch(const Shape& shape, const TessellationOptions& options) {
  const Vec3 n = shape.normal.normalized();
  const Vec3 u = n.unitOrthogonal();
  const Vec3 v = n.cross(u);
  const Vec3 c = options.half_space_center - n.dot(options.half_space_center) * n;
  const double h = options.half_space_half_size_m;
  SurfaceMesh mesh;
  for (const auto& [a, b] : {std::pair{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}) {
    mesh.vertices.push_back(c + h * (a * u + b * v));
    mesh.normals.push_back(n);
  }
  mesh.triangles = {{0, 1, 2}, {0, 2, 3}};  // u × v = n: counter-clockwise seen from above
  return mesh;
}

}  // namespace

SurfaceMesh tessellate(const Shape& shape, const TessellationOptions& options) {
  const int segments = std::max(options.segments, 8);
  const double r = shape.smoothing_radius_m;
  switch (shape.type) {
    case ShapeType::half_space:
      return plane_patch(shape, options);
    case ShapeType::sphere:
      return revolve(offset_profile({{0.0, 0.0}}, shape.radius_m, segments), full_turn(segments));
    case ShapeType::capsule: {
      const double h = shape.half_length_m;
      return revolve(offset_profile({{0.0, -h}, {0.0, h}}, shape.radius_m, segments),
                     full_turn(segments));
    }
    case ShapeType::cylinder:
      return revolve(cylinder_profile(shape.radius_m, shape.half_length_m, r, segments),
                     full_turn(segments));
    case ShapeType::cone: {
      // The core core_support uses: radii shrunk by r (not below 0), half length by r.
      const double h = shape.half_length_m - r;
      const double base = std::max(0.0, shape.radius_m - r);
      const double top = std::max(0.0, shape.top_radius_m - r);
      return revolve(offset_profile({{0.0, -h}, {base, -h}, {top, h}, {0.0, h}}, r, segments),
                     full_turn(segments));
    }
    case ShapeType::box:
      return box_mesh(shape, segments);
    case ShapeType::beam:
      return beam_mesh(shape, segments);
    case ShapeType::ellipsoid:
      return ellipsoid_mesh(shape, segments);
    case ShapeType::convex_hull:
      if (!shape.hull || shape.hull->triangle_count == 0)
        throw InputError("tessellate: a convex_hull shape without its hull data");
      return r > 0.0 ? support_mesh(shape, segments) : hull_mesh(*shape.hull);
  }
  throw InputError("tessellate: unknown shape type");
}

}  // namespace contactlab::core
