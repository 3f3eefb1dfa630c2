// Shapes: support mappings, bounding boxes, mass properties against closed forms, hulls (qhull)
// and mesh loading.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>

#include "contactlab/core/shape_library.hpp"

using namespace contactlab;
using namespace contactlab::core;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;
constexpr double pi = std::numbers::pi;

namespace {

std::vector<Vec3> random_directions(int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<Vec3> out;
  while (static_cast<int>(out.size()) < count) {
    Vec3 d(normal(rng), normal(rng), normal(rng));
    if (d.norm() > 1e-6) out.push_back(d.normalized());
  }
  return out;
}

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("contactlab_shape_tests_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

void check_mass(const MassProperties& m, double mass, const Vec3& com, const Vec3& inertia,
                double tolerance) {
  CHECK(m.mass_kg == Approx(mass).epsilon(tolerance));
  CHECK((m.p_BCm - com).norm() <= tolerance * (1.0 + com.norm()));
  for (int i = 0; i < 3; ++i) CHECK(m.inertia_Cm_B(i, i) == Approx(inertia[i]).epsilon(tolerance));
  const Mat3 off = m.inertia_Cm_B - Mat3(m.inertia_Cm_B.diagonal().asDiagonal());
  CHECK(off.norm() <= tolerance * m.inertia_Cm_B.norm());
}

std::vector<Shape> all_bounded_shapes() {
  Shape smoothed_box = Shape::box(Vec3(0.3, 0.2, 0.1));
  smoothed_box.smoothing_radius_m = 0.015;
  return {Shape::sphere(0.4),
          Shape::box(Vec3(0.3, 0.2, 0.1)),
          smoothed_box,
          Shape::ellipsoid(Vec3(0.3, 0.2, 0.5)),
          Shape::cylinder(0.2, 0.7),
          Shape::cone(0.3, 0.0, 0.6),
          Shape::cone(0.3, 0.1, 0.6),
          Shape::capsule(0.15, 0.5),
          Shape::beam(1.0, 0.4, 0.2)};
}

}  // namespace

TEST_CASE(
    "shapes: the support point maximises d·x over the shape's own support points, "
    "within 1e-12") {
  const auto directions = random_directions(400, 7);
  for (const Shape& shape : all_bounded_shapes()) {
    INFO(shape_type_name(shape.type));
    for (const Vec3& d : directions) {
      const Vec3 s = support(shape, d);
      // Every other support point is a point of the shape, so none may score higher along d.
      for (const Vec3& e : directions) CHECK(d.dot(support(shape, e)) <= d.dot(s) + 1e-12);
    }
  }
}

TEST_CASE("shapes: support points lie on the closed-form surfaces within 1e-12") {
  const auto directions = random_directions(200, 11);
  for (const Vec3& d : directions) {
    const Vec3 e = support(Shape::ellipsoid(Vec3(0.3, 0.2, 0.5)), d);
    CHECK((e.array() / Eigen::Array3d(0.3, 0.2, 0.5)).matrix().norm() ==
          Approx(1.0).epsilon(1e-12));
    const Vec3 c = support(Shape::cylinder(0.2, 0.7), d);
    CHECK(std::hypot(c.x(), c.y()) == Approx(0.2).epsilon(1e-12));
    CHECK(std::abs(c.z()) == Approx(0.35).epsilon(1e-12));
    const Vec3 k = support(Shape::capsule(0.15, 0.5), d);
    const Vec3 axis_point(0.0, 0.0, std::clamp(k.z(), -0.25, 0.25));
    CHECK((k - axis_point).norm() == Approx(0.15).epsilon(1e-12));
  }
}

TEST_CASE(
    "shapes: the core support derivative matches central differences of core_support within "
    "1e-6 relative, at any direction length") {
  // Central differences of s(d) along u (step 1e-6 of |d|) away from the kinks (a cylinder's or
  // beam's side line, a cone's switch between rims, a disc's axis), where s is smooth.
  Shape smoothed_cylinder = Shape::cylinder(0.2, 0.7);
  smoothed_cylinder.smoothing_radius_m = 0.02;
  const std::vector<Shape> shapes = {Shape::ellipsoid(Vec3(0.3, 0.2, 0.5)),
                                     Shape::cylinder(0.2, 0.7),
                                     smoothed_cylinder,
                                     Shape::cone(0.3, 0.1, 0.6),
                                     Shape::beam(1.0, 0.4, 0.2),
                                     Shape::box(Vec3(0.3, 0.2, 0.1))};
  const auto directions = random_directions(300, 17);
  int compared = 0;
  for (const Shape& shape : shapes) {
    INFO(shape_type_name(shape.type));
    for (std::size_t k = 0; k + 2 < directions.size(); k += 3) {
      const double length = 0.25 + static_cast<double>(k % 7);  // J scales as 1/|d|
      const Vec3 d = length * directions[k];
      if (std::abs(directions[k].z()) < 0.05 || std::abs(directions[k].z()) > 0.95) continue;
      if (std::abs(directions[k].x()) < 0.05) continue;  // the beam's switch between its ends
      const Vec3& u1 = directions[k + 1];
      const Vec3& u2 = directions[k + 2];
      const double step = 1e-6 * length;
      const auto difference = [&](const Vec3& u) {
        return Vec3((core_support(shape, d + step * u) - core_support(shape, d - step * u)) /
                    (2.0 * step));
      };
      const Vec3 j1 = difference(u1), j2 = difference(u2);
      if (shape.type == ShapeType::cone &&
          (core_support(shape, d + step * u1) - core_support(shape, d - step * u1)).norm() > 0.1) {
        continue;  // d sits on the switch between the rims
      }
      double q11 = 0.0, q12 = 0.0, q22 = 0.0;
      add_core_support_derivative(shape, d, u1, u2, q11, q12, q22);
      const double scale = 1.0 / length;
      CHECK(std::abs(q11 - u1.dot(j1)) <= 1e-6 * scale);
      CHECK(std::abs(q12 - u1.dot(j2)) <= 1e-6 * scale);
      CHECK(std::abs(q12 - u2.dot(j1)) <= 1e-6 * scale);
      CHECK(std::abs(q22 - u2.dot(j2)) <= 1e-6 * scale);
      CHECK(q11 >= -1e-15);
      CHECK(q11 * q22 - q12 * q12 >= -1e-12 * scale * scale);
      ++compared;
    }
  }
  CHECK(compared > 300);
}

TEST_CASE("shapes: a smoothing radius keeps the outer size and rounds the corners") {
  Shape box = Shape::box(Vec3(0.3, 0.2, 0.1));
  box.smoothing_radius_m = 0.02;
  const Aabb aabb = shape_aabb(box, Pose{});
  CHECK((aabb.max_W - Vec3(0.3, 0.2, 0.1)).norm() <= 1e-15);
  // Along the diagonal the rounded corner is r·(√3 − 1) closer than the sharp one.
  const Vec3 d = Vec3(1, 1, 1).normalized();
  const double sharp = d.dot(Vec3(0.3, 0.2, 0.1));
  CHECK(d.dot(support(box, d)) == Approx(sharp - 0.02 * (std::sqrt(3.0) - 1.0)).epsilon(1e-12));
}

TEST_CASE("shapes: the AABB from supports is tight and contains the shape at any pose") {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const auto directions = random_directions(300, 5);
  for (const Shape& shape : all_bounded_shapes()) {
    for (int trial = 0; trial < 20; ++trial) {
      Pose X;
      X.R = Eigen::Quaterniond(unit(rng), unit(rng), unit(rng), unit(rng))
                .normalized()
                .toRotationMatrix();
      X.p = Vec3(unit(rng), unit(rng), unit(rng));
      const Aabb box = shape_aabb(shape, X);
      for (const Vec3& d : directions) {
        const Vec3 p = support_W(shape, X, d);
        CHECK((p.array() >= box.min_W.array() - 1e-12).all());
        CHECK((p.array() <= box.max_W.array() + 1e-12).all());
      }
      for (int i = 0; i < 3; ++i) {
        CHECK(support_W(shape, X, Vec3::Unit(i))[i] == Approx(box.max_W[i]).margin(1e-12));
        CHECK(support_W(shape, X, -Vec3::Unit(i))[i] == Approx(box.min_W[i]).margin(1e-12));
      }
    }
  }
}

TEST_CASE("mass properties: primitives match their closed forms within 1e-12") {
  const double rho = 1234.0;
  SECTION("cylinder") {
    const double r = 0.2, L = 0.7, m = rho * pi * r * r * L;
    check_mass(shape_mass_properties(Shape::cylinder(r, L), rho), m, Vec3::Zero(),
               Vec3(m * (3 * r * r + L * L) / 12, m * (3 * r * r + L * L) / 12, 0.5 * m * r * r),
               1e-12);
  }
  SECTION("pointed cone: COM at a quarter height, I_zz = 3/10·m·R², I_xx = m(3R²/20 + 3L²/80)") {
    const double r = 0.3, L = 0.6, m = rho * pi * r * r * L / 3.0;
    const double transverse = m * (3 * r * r / 20 + 3 * L * L / 80);
    check_mass(shape_mass_properties(Shape::cone(r, 0.0, L), rho), m, Vec3(0, 0, -L / 2 + L / 4),
               Vec3(transverse, transverse, 0.3 * m * r * r), 1e-12);
  }
  SECTION("frustum with equal radii is a cylinder") {
    const MassProperties a = shape_mass_properties(Shape::cone(0.25, 0.25, 0.5), rho);
    const MassProperties b = shape_mass_properties(Shape::cylinder(0.25, 0.5), rho);
    check_mass(a, b.mass_kg, b.p_BCm, b.inertia_Cm_B.diagonal(), 1e-12);
  }
  SECTION("ellipsoid") {
    const Vec3 a(0.3, 0.2, 0.5);
    const double m = rho * 4.0 / 3.0 * pi * a.prod();
    check_mass(shape_mass_properties(Shape::ellipsoid(a), rho), m, Vec3::Zero(),
               m / 5 * Vec3(0.04 + 0.25, 0.09 + 0.25, 0.09 + 0.04), 1e-12);
  }
  SECTION("capsule of zero length is a sphere") {
    const MassProperties a = shape_mass_properties(Shape::capsule(0.3, 0.0), rho);
    const MassProperties b = shape_mass_properties(Shape::sphere(0.3), rho);
    check_mass(a, b.mass_kg, b.p_BCm, b.inertia_Cm_B.diagonal(), 1e-12);
  }
  SECTION("capsule: cylinder plus two hemispheres (textbook form)") {
    const double r = 0.15, h = 0.5, m_c = rho * pi * r * r * h,
                 m_s = rho * 4.0 / 3.0 * pi * r * r * r;
    const double i_zz = m_c * r * r / 2 + m_s * 2 * r * r / 5;
    const double i_xx =
        m_c * (h * h / 12 + r * r / 4) + m_s * (2 * r * r / 5 + h * h / 4 + 3 * h * r / 8);
    check_mass(shape_mass_properties(Shape::capsule(r, h), rho), m_c + m_s, Vec3::Zero(),
               Vec3(i_xx, i_xx, i_zz), 1e-12);
  }
}

TEST_CASE("mass properties: a hull of a box's corners equals the box within 1e-12") {
  std::vector<Vec3> corners;
  for (int i = 0; i < 8; ++i)
    corners.emplace_back((i & 1) ? 0.3 : -0.3, (i & 2) ? 0.2 : -0.2, (i & 4) ? 0.1 : -0.1);
  corners.emplace_back(0.01, 0.02, 0.03);  // an interior point is dropped
  const auto hull = build_convex_hull(corners);
  CHECK(hull->hull.vertex_count == 8);
  CHECK(hull->interior_point_count == 1);
  const MassProperties box = shape_mass_properties(Shape::box(Vec3(0.3, 0.2, 0.1)), 500.0);
  check_mass(shape_mass_properties(Shape::convex_hull(&hull->hull), 500.0), box.mass_kg,
             Vec3::Zero(), box.inertia_Cm_B.diagonal(), 1e-12);
  CHECK(hull->hull.face_count == 12);  // triangulated
  for (std::uint32_t f = 0; f < hull->hull.face_count; ++f)
    for (std::uint32_t v = 0; v < hull->hull.vertex_count; ++v)
      CHECK(hull->hull.face_normals[f].dot(hull->hull.vertices[v]) <=
            hull->hull.face_offsets[f] + 1e-12);
}

TEST_CASE("mass properties: the beam equals a box plus a cylinder split at its ends within 1e-6") {
  // Independent check: the hull of a finely tessellated stadium prism (error O(1/n²)).
  const double L = 1.0, W = 0.4, T = 0.2;
  std::vector<Vec3> points;
  const int n = 4000;
  for (int k = 0; k <= n; ++k) {
    const double a = -pi / 2 + pi * k / n;
    for (double z : {-T / 2, T / 2}) {
      points.emplace_back(L / 2 - W / 2 + W / 2 * std::cos(a), W / 2 * std::sin(a), z);
      points.emplace_back(-(L / 2 - W / 2) - W / 2 * std::cos(a), W / 2 * std::sin(a), z);
    }
  }
  const auto hull = build_convex_hull(points);
  const MassProperties reference = shape_mass_properties(Shape::convex_hull(&hull->hull), 700.0);
  check_mass(shape_mass_properties(Shape::beam(L, W, T), 700.0), reference.mass_kg, reference.p_BCm,
             reference.inertia_Cm_B.diagonal(), 1e-6);
}

TEST_CASE("hulls: degenerate point sets are refused with a clear reason") {
  CHECK_THROWS_WITH(build_convex_hull({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}),
                    Contains("at least 4 points"));
  CHECK_THROWS_WITH(build_convex_hull({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(1, 1, 0),
                                       Vec3(0.5, 0.5, 0)}),
                    Contains("do not span a volume"));
}

TEST_CASE("meshes: OBJ and STL (ASCII and binary) load their vertices, bad files are named") {
  const fs::path obj = scratch("tetra.obj");
  std::ofstream(obj) << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n";
  CHECK(load_mesh_vertices(obj).size() == 4);

  const fs::path ascii = scratch("tri.stl");
  std::ofstream(ascii) << "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                          "vertex 0 1 0\nendloop\nendfacet\nendsolid t\n";
  CHECK(load_mesh_vertices(ascii).size() == 3);

  const fs::path binary = scratch("tri_binary.stl");
  {
    std::ofstream out(binary, std::ios::binary);
    char header[80] = {};
    out.write(header, 80);
    const std::uint32_t count = 1;
    out.write(reinterpret_cast<const char*>(&count), 4);
    const float data[12] = {0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0};
    out.write(reinterpret_cast<const char*>(data), sizeof(data));
    const std::uint16_t attribute = 0;
    out.write(reinterpret_cast<const char*>(&attribute), 2);
  }
  const auto vertices = load_mesh_vertices(binary);
  REQUIRE(vertices.size() == 3);
  CHECK(vertices[1].x() == 2.0);
  CHECK(vertices[2].y() == 3.0);

  CHECK_THROWS_WITH(load_mesh_vertices(scratch("missing.obj")),
                    Contains("missing.obj") && Contains("no such file"));
  const fs::path unknown = scratch("shape.ply");
  std::ofstream(unknown) << "ply\n";
  CHECK_THROWS_WITH(load_mesh_vertices(unknown), Contains("unknown format '.ply'"));
}

TEST_CASE(
    "hulls: the hill-climbing support equals a full scan on 20,000 random directions, from "
    "vertex 0 and from a random start vertex") {
  // Hulls large enough to be climbed: points on a sphere (every point a vertex), on a flattened
  // ellipsoid, and a cylinder's two rims (coplanar caps: along ±z all rim vertices tie).
  std::mt19937_64 rng(41);
  std::normal_distribution<double> normal;
  std::vector<std::vector<Vec3>> clouds(3);
  for (int i = 0; i < 256; ++i) {
    const Vec3 u = Vec3(normal(rng), normal(rng), normal(rng)).normalized();
    clouds[0].push_back(u);
    clouds[1].push_back(Vec3(2.0 * u.x(), 1.0 * u.y(), 0.05 * u.z()));
  }
  for (int i = 0; i < 64; ++i) {
    const double angle = 2.0 * std::numbers::pi * i / 64.0;
    for (const double z : {-0.5, 0.5})
      clouds[2].push_back(Vec3(std::cos(angle), std::sin(angle), z));
  }
  for (const auto& cloud : clouds) {
    const auto storage = build_convex_hull(cloud);
    const ConvexHull& hull = storage->hull;
    REQUIRE(hull.vertex_count >= 32);  // the climbing path is taken
    int worse = 0;
    for (int k = 0; k < 20000; ++k) {
      Vec3 d(normal(rng), normal(rng), normal(rng));
      if (k % 100 == 0) d = Vec3::Unit(k / 100 % 3) * (k % 200 == 0 ? 1.0 : -1.0);  // exact ties
      double scan = -std::numeric_limits<double>::infinity();
      for (std::uint32_t i = 0; i < hull.vertex_count; ++i)
        scan = std::max(scan, d.dot(hull.vertices[i]));
      if (d.dot(hull.vertices[hull_support_vertex(hull, d)]) != scan) ++worse;
      const auto start = static_cast<std::uint32_t>(rng() % (hull.vertex_count + 2));  // 2 invalid
      if (d.dot(hull.vertices[hull_support_vertex(hull, d, start)]) != scan) ++worse;
    }
    CHECK(worse == 0);
  }
}
