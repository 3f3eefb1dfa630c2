// Unit tests of the geometry library's half-space closed forms
// (contactlab/geometry/half_space.hpp): the support-point form for any shape against the primitive
// closed forms' deepest points, and the support point as the lowest point of the shape's surface.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include <catch2/catch.hpp>
#include <contactlab/geometry/half_space.hpp>
#include <contactlab/shapes.hpp>

#include "narrow_phase_test_support.hpp"

using contactlab::ContactGeometry;
using contactlab::ContactManifold;
using contactlab::ConvexHull;
using contactlab::Pose;
using contactlab::Shape;
using contactlab::Vec3;
using namespace contactlab::testing;
namespace geometry = contactlab::geometry;

namespace {

/// A regular octahedron hull of half size h (vertices scanned: no faces needed for support()).
struct OctahedronHull {
  std::array<Vec3, 6> vertices;
  ConvexHull hull;
  explicit OctahedronHull(double h) {
    for (int k = 0; k < 3; ++k) {
      vertices[2 * k] = h * Vec3::Unit(k);
      vertices[2 * k + 1] = -h * Vec3::Unit(k);
    }
    hull.vertices = vertices.data();
    hull.vertex_count = 6;
  }
};

/// A half-space whose normal is not unit (normalised by every closed form).
Shape random_half_space(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> length(0.5, 3.0);
  return Shape::half_space(length(rng) * random_unit(rng));
}

}  // namespace

TEST_CASE(
    "geometry: support_half_space gives the primitive closed forms' deepest distance and normal of "
    "spheres, capsules, boxes and cylinders, sharp and smoothed, within 1e-12 m on 2,000 seeded "
    "poses each") {
  std::mt19937_64 rng(2029);
  Shape smoothed_box = Shape::box(Vec3(0.5, 0.3, 0.2));
  smoothed_box.smoothing_radius_m = 0.02;
  Shape smoothed_cylinder = Shape::cylinder(0.3, 0.8);
  smoothed_cylinder.smoothing_radius_m = 0.03;
  const Shape shapes[] = {
      Shape::sphere(0.4), Shape::capsule(0.2, 0.9),  Shape::box(Vec3(0.5, 0.3, 0.2)),
      smoothed_box,       Shape::cylinder(0.3, 0.8), smoothed_cylinder};
  for (const Shape& shape : shapes) {
    for (int i = 0; i < 2000; ++i) {
      const Pose X_WA = random_pose(rng, 2.0);
      const Pose X_WH = random_pose(rng, 2.0);
      const Shape plane = random_half_space(rng);
      const ContactGeometry g = geometry::support_half_space(shape, X_WA, plane, X_WH);
      ContactManifold m;
      switch (shape.type) {
        case contactlab::ShapeType::sphere:
          m.points[0] = geometry::sphere_half_space(shape.radius_m, X_WA.p, plane.normal, X_WH);
          break;
        case contactlab::ShapeType::capsule:
          geometry::capsule_half_space(shape, X_WA, plane, X_WH, 4, m);
          break;
        case contactlab::ShapeType::box:
          geometry::box_half_space(shape, X_WA, plane, X_WH, 4, m);
          break;
        default:
          geometry::cylinder_half_space(shape, X_WA, plane, X_WH, 4, m);
          break;
      }
      INFO(contactlab::shape_type_name(shape.type)
           << " smoothing " << shape.smoothing_radius_m << " sample " << i);
      check_contract(g, 1e-12);
      check_contract(m.points[0], 1e-12);
      CHECK(std::abs(g.distance_m - m.points[0].distance_m) <= 1e-12);
      CHECK((g.normal_W - m.points[0].normal_W).norm() <= 1e-15);
      const Vec3 n_W = X_WH.R * plane.normal.normalized();
      CHECK(g.normal_W == -n_W);
      // B's witness point lies on the boundary plane.
      CHECK(std::abs(n_W.dot(g.point_b_W - X_WH.p)) <= 1e-12);
    }
  }
}

TEST_CASE(
    "geometry: support_half_space's point is no higher above the plane than any of 200 sampled "
    "surface points of every convex shape type, within 1e-12 m on 500 seeded poses each") {
  std::mt19937_64 rng(2031);
  const OctahedronHull octahedron(0.6);
  Shape smoothed_beam = Shape::beam(1.0, 0.3, 0.1);
  smoothed_beam.smoothing_radius_m = 0.01;
  const Shape shapes[] = {Shape::sphere(0.4),
                          Shape::box(Vec3(0.5, 0.3, 0.2)),
                          Shape::ellipsoid(Vec3(0.5, 0.3, 0.2)),
                          Shape::cylinder(0.3, 0.8),
                          Shape::cone(0.4, 0.1, 0.7),
                          Shape::capsule(0.2, 0.9),
                          smoothed_beam,
                          Shape::convex_hull(&octahedron.hull)};
  for (const Shape& shape : shapes) {
    for (int i = 0; i < 500; ++i) {
      const Pose X_WA = random_pose(rng, 2.0);
      const Pose X_WH = random_pose(rng, 2.0);
      const Shape plane = random_half_space(rng);
      const ContactGeometry g = geometry::support_half_space(shape, X_WA, plane, X_WH);
      INFO(contactlab::shape_type_name(shape.type) << " sample " << i);
      check_contract(g, 1e-12);
      const Vec3 n_W = X_WH.R * plane.normal.normalized();
      // The answer's point of A is the shape's support point along −n: a surface point whose
      // height is the signed distance.
      CHECK(std::abs(n_W.dot(g.point_a_W - X_WH.p) - g.distance_m) <= 1e-12);
      double lowest_m = std::numeric_limits<double>::infinity();
      for (int k = 0; k < 200; ++k) {
        const Vec3 surface_W = contactlab::support_W(shape, X_WA, random_unit(rng));
        lowest_m = std::min(lowest_m, n_W.dot(surface_W - X_WH.p));
      }
      CHECK(g.distance_m <= lowest_m + 1e-12);
    }
  }
}
