// The surfaces the replay page and exports draw: closed, outward, and enclosing the shape's
// volume (core::shape_mass_properties at unit density) as the sampling refines.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <utility>

#include "contactlab/core/shape_library.hpp"
#include "contactlab/core/tessellation.hpp"

using namespace contactlab;
using contactlab::core::SurfaceMesh;

namespace {

double enclosed_volume(const SurfaceMesh& mesh) {  // divergence theorem over the triangles
  double six_v = 0.0;
  for (const auto& t : mesh.triangles)
    six_v += mesh.vertices[t[0]].dot(mesh.vertices[t[1]].cross(mesh.vertices[t[2]]));
  return six_v / 6.0;
}

/// Every directed edge appears once and its reverse once: closed and consistently oriented.
bool closed_and_oriented(const SurfaceMesh& mesh) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> edges;
  for (const auto& t : mesh.triangles)
    for (int k = 0; k < 3; ++k) ++edges[{t[k], t[(k + 1) % 3]}];
  for (const auto& [edge, count] : edges) {
    const auto reverse = edges.find({edge.second, edge.first});
    if (count != 1 || reverse == edges.end() || reverse->second != 1) return false;
  }
  return true;
}

std::vector<std::pair<const char*, Shape>> shapes() {
  Shape rounded_box = Shape::box(Vec3(0.2, 0.1, 0.05));
  rounded_box.smoothing_radius_m = 0.01;
  Shape rounded_cylinder = Shape::cylinder(0.1, 0.3);
  rounded_cylinder.smoothing_radius_m = 0.01;
  return {{"sphere", Shape::sphere(0.1)},
          {"box", Shape::box(Vec3(0.2, 0.1, 0.05))},
          {"rounded box", rounded_box},
          {"ellipsoid", Shape::ellipsoid(Vec3(0.2, 0.1, 0.05))},
          {"cylinder", Shape::cylinder(0.1, 0.3)},
          {"rounded cylinder", rounded_cylinder},
          {"cone", Shape::cone(0.1, 0.0, 0.3)},
          {"frustum", Shape::cone(0.1, 0.05, 0.3)},
          {"capsule", Shape::capsule(0.05, 0.2)},
          {"beam", Shape::beam(0.4, 0.1, 0.04)}};
}

}  // namespace

TEST_CASE(
    "tessellate: every convex shape's surface is closed and outward, and its volume is the "
    "shape's within 1 % at 64 segments and closer at 128") {
  for (const auto& [name, shape] : shapes()) {
    INFO(name);
    const double exact = core::shape_mass_properties(shape, 1.0).mass_kg;
    core::TessellationOptions coarse, fine;
    coarse.segments = 64;
    fine.segments = 128;
    const SurfaceMesh a = core::tessellate(shape, coarse);
    const SurfaceMesh b = core::tessellate(shape, fine);
    CHECK(closed_and_oriented(a));
    const double error_a = std::abs(enclosed_volume(a) - exact) / exact;
    const double error_b = std::abs(enclosed_volume(b) - exact) / exact;
    CHECK(enclosed_volume(a) > 0.0);
    CHECK(error_a < 0.01);
    CHECK(error_b <= error_a + 1e-12);
  }
}

TEST_CASE(
    "tessellate: a convex hull is drawn by its own faces, enclosing its volume within "
    "1e-12 relative") {
  const std::vector<Vec3> points = {{0.07, 0, 0}, {-0.05, 0.06, 0}, {-0.05, -0.06, 0},
                                    {0, 0, 0.1},  {0, 0, -0.06},    {0.03, 0.04, 0.05}};
  const auto hull = core::build_convex_hull(points);
  const Shape shape = Shape::convex_hull(&hull->hull);
  const SurfaceMesh mesh = core::tessellate(shape);
  const double exact = core::shape_mass_properties(shape, 1.0).mass_kg;
  CHECK(std::abs(enclosed_volume(mesh) - exact) < 1e-12 * exact);
  CHECK(mesh.triangles.size() == hull->triangles.size());
}

TEST_CASE(
    "tessellate: a half-space is a square patch of its plane of the asked size, facing "
    "along its normal") {
  core::TessellationOptions options;
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
