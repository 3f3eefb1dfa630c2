// The surfaces the replay page and the ParaView export draw (core::tessellate): every vertex on
// the shape's true surface with its outward normal (checked through the support function, the
// shape's own definition), closed and consistently oriented, enclosing the shape's volume as the
// sampling refines (closed forms; Steiner's formula for the smoothed shapes).
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <numbers>
#include <numeric>
#include <utility>

#include "contactlab/core/shape_library.hpp"
#include "contactlab/core/tessellation.hpp"

using namespace contactlab;
using contactlab::core::SurfaceMesh;
using contactlab::core::TessellationOptions;
constexpr double pi = std::numbers::pi;

namespace {

double enclosed_volume(const SurfaceMesh& mesh) {  // divergence theorem over the triangles
  double six_v = 0.0;
  for (const auto& t : mesh.triangles)
    six_v += mesh.vertices[t[0]].dot(mesh.vertices[t[1]].cross(mesh.vertices[t[2]]));
  return six_v / 6.0;
}

/// The support function h(d) = max over the shape of d·x.
double support_value(const Shape& shape, const Vec3& d) {
  return d.dot(support(shape, d));
}

/// Size of a shape: its largest extent from G's origin along the axes.
double shape_size(const Shape& shape) {
  double size = 0.0;
  for (int i = 0; i < 3; ++i)
    for (double s : {1.0, -1.0})
      size = std::max(size, std::abs(support_value(shape, s * Vec3::Unit(i))));
  return size;
}

/// Directions spread over the sphere (Fibonacci lattice), the axes and the octants' diagonals.
std::vector<Vec3> probe_directions() {
  std::vector<Vec3> out;
  const int n = 600;
  for (int k = 0; k < n; ++k) {
    const double z = 1.0 - (2.0 * k + 1.0) / n, rho = std::sqrt(1.0 - z * z);
    const double phi = k * pi * (3.0 - std::sqrt(5.0));
    out.emplace_back(rho * std::cos(phi), rho * std::sin(phi), z);
  }
  for (int i = 0; i < 3; ++i) {
    out.push_back(Vec3::Unit(i));
    out.push_back(-Vec3::Unit(i));
  }
  for (double x : {-1.0, 1.0})
    for (double y : {-1.0, 1.0})
      for (double z : {-1.0, 1.0}) out.push_back(Vec3(x, y, z).normalized());
  return out;
}

/// Vertices merged when closer than `tolerance` (a crease has one vertex per face at one point):
/// the mesh's topology by position. Union-find over neighbours in a sort along x.
std::vector<std::uint32_t> weld_by_position(const SurfaceMesh& mesh, double tolerance) {
  const std::size_t n = mesh.vertices.size();
  std::vector<std::uint32_t> parent(n), order(n);
  std::iota(parent.begin(), parent.end(), 0u);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return mesh.vertices[a].x() < mesh.vertices[b].x();
  });
  const auto root = [&](std::uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const Vec3& a = mesh.vertices[order[i]];
      const Vec3& b = mesh.vertices[order[j]];
      if (b.x() - a.x() > tolerance) break;
      if ((a - b).norm() <= tolerance) parent[root(order[j])] = root(order[i]);
    }
  std::vector<std::uint32_t> id(n);
  for (std::size_t v = 0; v < n; ++v) id[v] = root(std::uint32_t(v));
  return id;
}

/// Closed and consistently oriented, by position: no triangle has two corners at one point, and
/// every directed edge appears once and its reverse once (so every edge is shared by exactly two
/// triangles, in opposite directions).
bool closed_and_oriented(const SurfaceMesh& mesh, double tolerance) {
  const std::vector<std::uint32_t> id = weld_by_position(mesh, tolerance);
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> edges;
  for (const auto& t : mesh.triangles) {
    const std::uint32_t a = id[t[0]], b = id[t[1]], c = id[t[2]];
    if (a == b || b == c || c == a) return false;
    ++edges[{a, b}];
    ++edges[{b, c}];
    ++edges[{c, a}];
  }
  for (const auto& [edge, count] : edges) {
    const auto reverse = edges.find({edge.second, edge.first});
    if (count != 1 || reverse == edges.end() || reverse->second != 1) return false;
  }
  return true;
}

// Volumes of the smoothed shapes, core K ⊕ ball(r): Steiner's formula
// V = V(K) + S(K)·r + M(K)·r² + (4/3)π·r³, with S the core's area and M its integrated mean
// curvature (a smooth part: ∫H dA; an edge of length l where the normals turn by ψ: l·ψ/2).
double rounded_box_volume(const Vec3& half_extents, double r) {
  const Vec3 c = 2.0 * (half_extents - Vec3::Constant(r));
  return c.prod() + 2.0 * r * (c.x() * c.y() + c.y() * c.z() + c.z() * c.x()) +
         pi * r * r * c.sum() + 4.0 / 3.0 * pi * r * r * r;
}

/// Core frustum of radii a0 (bottom), a1 (top) and height H; a cylinder when a0 = a1.
double rounded_frustum_volume(double a0, double a1, double H, double r) {
  const double slant = std::hypot(H, a0 - a1);
  const double n_z = (a0 - a1) / slant;  // the side's outward normal is (H, a0 − a1)/slant
  const double volume = pi * H / 3.0 * (a0 * a0 + a0 * a1 + a1 * a1);
  const double area = pi * (a0 * a0 + a1 * a1 + (a0 + a1) * slant);
  // The side's ∫H dA is πH; the rims turn the normal by acos(∓n_z) (a pointed top adds nothing).
  const double mean_curvature = pi * H + pi * a0 * std::acos(-n_z) + pi * a1 * std::acos(n_z);
  return volume + area * r + mean_curvature * r * r + 4.0 / 3.0 * pi * r * r * r;
}

double rounded_cone_volume(const Shape& cone) {
  const double r = cone.smoothing_radius_m;
  return rounded_frustum_volume(std::max(0.0, cone.radius_m - r),
                                std::max(0.0, cone.top_radius_m - r),
                                2.0 * (cone.half_length_m - r), r);
}

/// A beam is its segment (2·(L − W)/2 along x) ⊕ a rounded cylinder: V(K ⊕ segment) = V(K) +
/// length · area of K's shadow along the segment (here a rounded rectangle W × T, corners r).
double rounded_beam_volume(const Shape& beam) {
  const Vec3& h = beam.half_extents_m;
  const double r = beam.smoothing_radius_m;
  const double disc = rounded_frustum_volume(h.y() - r, h.y() - r, 2.0 * (h.z() - r), r);
  const double shadow = 4.0 * h.y() * h.z() - (4.0 - pi) * r * r;
  return disc + 2.0 * (h.x() - h.y()) * shadow;
}

/// A hull ⊕ ball(r): M sums l·ψ/2 over the edges between its triangles.
double rounded_hull_volume(const core::HullStorage& hull, double r) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> face_of_edge;
  double area = 0.0, mean_curvature = 0.0;
  for (std::size_t k = 0; k < hull.triangles.size(); ++k) {
    const auto& t = hull.triangles[k];
    const Vec3 &a = hull.vertices[t[0]], &b = hull.vertices[t[1]], &c = hull.vertices[t[2]];
    area += 0.5 * (b - a).cross(c - a).norm();
    for (int e = 0; e < 3; ++e) face_of_edge[{t[e], t[(e + 1) % 3]}] = k;
  }
  for (const auto& [edge, k] : face_of_edge) {
    if (edge.first > edge.second) continue;  // each edge once
    const std::size_t other = face_of_edge.at({edge.second, edge.first});
    const double turn =
        std::acos(std::clamp(hull.face_normals[k].dot(hull.face_normals[other]), -1.0, 1.0));
    mean_curvature += 0.5 * turn * (hull.vertices[edge.first] - hull.vertices[edge.second]).norm();
  }
  const Shape shape = Shape::convex_hull(&hull.hull);
  return core::shape_mass_properties(shape, 1.0).mass_kg + area * r + mean_curvature * r * r +
         4.0 / 3.0 * pi * r * r * r;
}

const core::HullStorage& test_hull() {
  static const auto hull = core::build_convex_hull({{0.07, 0, 0},
                                                    {-0.05, 0.06, 0},
                                                    {-0.05, -0.06, 0},
                                                    {0, 0, 0.1},
                                                    {0, 0, -0.06},
                                                    {0.03, 0.04, 0.05}});
  return *hull;
}

struct Case {
  const char* name;
  Shape shape;
  double volume;  ///< exact; NaN: no closed form (not checked)
};

Shape smoothed(Shape shape, double r) {
  shape.smoothing_radius_m = r;
  return shape;
}

std::vector<Case> cases() {
  const auto exact = [](const Shape& s) { return core::shape_mass_properties(s, 1.0).mass_kg; };
  const Vec3 box_half(0.2, 0.1, 0.05);
  std::vector<Case> out = {
      {"sphere", Shape::sphere(0.1), 0.0},
      {"box", Shape::box(box_half), 0.0},
      {"ellipsoid", Shape::ellipsoid(Vec3(0.2, 0.1, 0.05)), 0.0},
      {"cylinder", Shape::cylinder(0.1, 0.3), 0.0},
      {"cone", Shape::cone(0.1, 0.0, 0.3), 0.0},
      {"frustum", Shape::cone(0.1, 0.05, 0.3), 0.0},
      {"capsule", Shape::capsule(0.05, 0.2), 0.0},
      {"capsule of no length", Shape::capsule(0.05, 0.0), 0.0},
      {"beam", Shape::beam(0.4, 0.1, 0.04), 0.0},
      {"beam as long as wide", Shape::beam(0.1, 0.1, 0.04), 0.0},
      {"hull", Shape::convex_hull(&test_hull().hull), 0.0},
  };
  for (Case& c : out) c.volume = exact(c.shape);
  const Shape rounded_box = smoothed(Shape::box(box_half), 0.01);
  const Shape flat_rounded_box = smoothed(Shape::box(Vec3(0.1, 0.08, 0.02)), 0.02);
  const Shape rounded_cylinder = smoothed(Shape::cylinder(0.1, 0.3), 0.01);
  const Shape rounded_cone = smoothed(Shape::cone(0.1, 0.0, 0.3), 0.01);
  const Shape rounded_frustum = smoothed(Shape::cone(0.1, 0.05, 0.3), 0.01);
  const Shape pointed_core_frustum = smoothed(Shape::cone(0.1, 0.005, 0.3), 0.01);
  const Shape rounded_beam = smoothed(Shape::beam(0.4, 0.1, 0.04), 0.004);
  const Shape rounded_hull = smoothed(Shape::convex_hull(&test_hull().hull), 0.005);
  out.push_back({"rounded box", rounded_box, rounded_box_volume(box_half, 0.01)});
  out.push_back({"box rounded through its thickness", flat_rounded_box,
                 rounded_box_volume(Vec3(0.1, 0.08, 0.02), 0.02)});
  out.push_back(
      {"rounded cylinder", rounded_cylinder, rounded_frustum_volume(0.09, 0.09, 0.28, 0.01)});
  out.push_back({"rounded cone", rounded_cone, rounded_cone_volume(rounded_cone)});
  out.push_back({"rounded frustum", rounded_frustum, rounded_cone_volume(rounded_frustum)});
  out.push_back({"rounded frustum with a pointed core", pointed_core_frustum,
                 rounded_cone_volume(pointed_core_frustum)});
  out.push_back({"rounded beam", rounded_beam, rounded_beam_volume(rounded_beam)});
  out.push_back({"rounded hull", rounded_hull, rounded_hull_volume(test_hull(), 0.005)});
  out.push_back(
      {"rounded ellipsoid", smoothed(Shape::ellipsoid(Vec3(0.2, 0.1, 0.05)), 0.01), std::nan("")});
  return out;
}

}  // namespace

TEST_CASE(
    "tessellate: every vertex of every shape lies on its true surface within 1e-12 of the "
    "shape's size, its normal a unit outward normal there (support function)") {
  const std::vector<Vec3> directions = probe_directions();
  for (const Case& c : cases()) {
    for (int segments : {8, 13, 32, 64}) {
      INFO(c.name << " at " << segments << " segments");
      TessellationOptions options;
      options.segments = segments;
      const SurfaceMesh mesh = core::tessellate(c.shape, options);
      const double tolerance = 1e-12 * shape_size(c.shape);
      std::vector<double> h(directions.size());
      for (std::size_t k = 0; k < directions.size(); ++k)
        h[k] = support_value(c.shape, directions[k]);
      REQUIRE(mesh.normals.size() == mesh.vertices.size());
      REQUIRE(!mesh.triangles.empty());
      double worst_plane = 0.0, worst_outside = 0.0, worst_norm = 0.0;
      for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
        const Vec3& x = mesh.vertices[v];
        const Vec3& n = mesh.normals[v];
        worst_norm = std::max(worst_norm, std::abs(n.norm() - 1.0));
        // On the supporting plane of its normal: x is a boundary point and n outward there …
        worst_plane = std::max(worst_plane, std::abs(n.dot(x) - support_value(c.shape, n)));
        // … and inside the shape (behind every supporting plane).
        for (std::size_t k = 0; k < directions.size(); ++k)
          worst_outside = std::max(worst_outside, directions[k].dot(x) - h[k]);
      }
      CHECK(worst_norm < 1e-14);
      CHECK(worst_plane < tolerance);
      CHECK(worst_outside < tolerance);
    }
  }
}

TEST_CASE(
    "tessellate: every shape's surface is closed and consistently oriented (each edge shared "
    "by two triangles in opposite directions, creases welded within 1e-12 of the size), its "
    "triangles facing along their vertices' normals") {
  for (const Case& c : cases()) {
    for (int segments : {8, 13, 32, 64}) {
      INFO(c.name << " at " << segments << " segments");
      TessellationOptions options;
      options.segments = segments;
      const SurfaceMesh mesh = core::tessellate(c.shape, options);
      CHECK(closed_and_oriented(mesh, 1e-12 * shape_size(c.shape)));
      int against = 0;
      for (const auto& t : mesh.triangles) {
        const Vec3 face = (mesh.vertices[t[1]] - mesh.vertices[t[0]])
                              .cross(mesh.vertices[t[2]] - mesh.vertices[t[0]]);
        for (auto k : t) against += face.dot(mesh.normals[k]) <= 0.0 ? 1 : 0;
      }
      CHECK(against == 0);
    }
  }
}

TEST_CASE(
    "tessellate: the enclosed volume is the shape's within 1 % at 64 segments and closer at "
    "128 (exact within 1e-12 for the sharp box and the hull)") {
  for (const Case& c : cases()) {
    if (std::isnan(c.volume)) continue;
    INFO(c.name);
    TessellationOptions coarse, fine;
    coarse.segments = 64;
    fine.segments = 128;
    const double error_64 = std::abs(enclosed_volume(core::tessellate(c.shape, coarse)) - c.volume);
    const double error_128 = std::abs(enclosed_volume(core::tessellate(c.shape, fine)) - c.volume);
    CHECK(error_64 < 0.01 * c.volume);
    if (error_64 > 1e-12 * c.volume) CHECK(error_128 < error_64);
    const std::string name = c.name;
    if (name == "box" || name == "hull") CHECK(error_64 < 1e-12 * c.volume);
  }
}

TEST_CASE("tessellate: a sharp box is its 12 triangles with one vertex per face corner") {
  const SurfaceMesh mesh = core::tessellate(Shape::box(Vec3(0.3, 0.2, 0.1)));
  CHECK(mesh.triangles.size() == 12);
  CHECK(mesh.vertices.size() == 24);
}

TEST_CASE("tessellate: fewer than 8 segments are taken as 8") {
  TessellationOptions three, eight;
  three.segments = 3;
  eight.segments = 8;
  const Shape sphere = Shape::sphere(0.1);
  CHECK(core::tessellate(sphere, three).vertices == core::tessellate(sphere, eight).vertices);
}

TEST_CASE(
    "tessellate: a convex hull is drawn by its own faces, enclosing its volume within "
    "1e-12 relative") {
  const auto& hull = test_hull();
  const Shape shape = Shape::convex_hull(&hull.hull);
  const SurfaceMesh mesh = core::tessellate(shape);
  const double exact = core::shape_mass_properties(shape, 1.0).mass_kg;
  CHECK(std::abs(enclosed_volume(mesh) - exact) < 1e-12 * exact);
  CHECK(mesh.triangles.size() == hull.triangles.size());
}

TEST_CASE(
    "tessellate: a half-space is a square patch of its plane of the asked size, facing "
    "along its normal") {
  TessellationOptions options;
  options.half_space_half_size_m = 2.0;
  options.half_space_center = Vec3(1.0, 0.5, 3.0);
  const SurfaceMesh mesh = core::tessellate(Shape::half_space(Vec3::UnitZ()), options);
  REQUIRE(mesh.vertices.size() == 4);
  for (const Vec3& v : mesh.vertices) {
    CHECK(std::abs(v.z()) < 1e-15);
    CHECK(std::abs(std::abs(v.x() - 1.0) - 2.0) < 1e-12);
    CHECK(std::abs(std::abs(v.y() - 0.5) - 2.0) < 1e-12);
  }
  for (const auto& t : mesh.triangles) {
    const Vec3 n = (mesh.vertices[t[1]] - mesh.vertices[t[0]])
                       .cross(mesh.vertices[t[2]] - mesh.vertices[t[0]]);
    CHECK(n.z() > 0.0);
  }
}
