// Unit tests of the primitive narrow phase (plugins/narrowphase-primitive): every result is
// compared with a closed form computed independently here.
#include <algorithm>
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "primitive_narrow_phase.hpp"

using contactlab::ContactGeometry;
using contactlab::NarrowPhaseCache;
using contactlab::Pose;
using contactlab::Shape;
using contactlab::ShapeType;
using contactlab::Vec3;
using contactlab::plugins::PrimitiveNarrowPhase;

namespace {

constexpr int kSamples = 10000;

Pose random_pose(std::mt19937_64& rng, double position_range_m) {
  std::normal_distribution<double> gaussian(0.0, 1.0);
  std::uniform_real_distribution<double> position(-position_range_m, position_range_m);
  // Normalised 4-D Gaussian: uniform over rotations.
  Eigen::Quaterniond q(gaussian(rng), gaussian(rng), gaussian(rng), gaussian(rng));
  q.normalize();
  Pose X;
  X.R = q.toRotationMatrix();
  X.p = Vec3(position(rng), position(rng), position(rng));
  return X;
}

Pose pose_at(const Vec3& p) {
  Pose X;
  X.p = p;
  return X;
}

ContactGeometry run_query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB) {
  PrimitiveNarrowPhase narrow_phase{contactlab::ParameterValues{}};
  NarrowPhaseCache cache;
  contactlab::ContactManifold out;
  narrow_phase.query(a, X_WA, b, X_WB, cache, out);
  REQUIRE(out.count == 1);
  return out.points[0];
}

/// The ContactGeometry invariants: unit normal and point_b − point_a = distance·normal.
void check_contract(const ContactGeometry& g, double tolerance) {
  CHECK(std::abs(g.normal_W.norm() - 1.0) <= tolerance);
  CHECK((g.point_b_W - g.point_a_W - g.distance_m * g.normal_W).norm() <= tolerance);
}

/// Independent sphere–box closed form in the box frame: distance outside from the per-axis excess
/// over the half extents; inside, the smallest slack to a face.
struct BoxReference {
  double distance_m;
  Vec3 normal_B;  // from the sphere to the box
  bool centre_inside;
};

BoxReference box_reference(const Vec3& c_B, const Vec3& h, double r) {
  Vec3 excess = Vec3::Zero();
  for (int i = 0; i < 3; ++i) {
    const double over = std::abs(c_B[i]) - h[i];
    if (over > 0.0) excess[i] = over * (c_B[i] > 0.0 ? 1.0 : -1.0);
  }
  const double outside_m = std::sqrt(excess.squaredNorm());
  if (outside_m > 0.0) return {outside_m - r, -excess / outside_m, false};
  int axis = 0;
  double slack = h[0] - std::abs(c_B[0]);
  for (int i = 1; i < 3; ++i) {
    if (h[i] - std::abs(c_B[i]) < slack) {
      slack = h[i] - std::abs(c_B[i]);
      axis = i;
    }
  }
  Vec3 n_B = Vec3::Zero();
  n_B[axis] = c_B[axis] >= 0.0 ? -1.0 : 1.0;
  return {-(slack + r), n_B, true};
}

}  // namespace

TEST_CASE("primitive: supports exactly the pairs with a sphere, in both orders, empty schema") {
  PrimitiveNarrowPhase narrow_phase{contactlab::ParameterValues{}};
  CHECK(PrimitiveNarrowPhase::schema().empty());
  const ShapeType types[] = {ShapeType::sphere, ShapeType::box, ShapeType::half_space};
  for (ShapeType a : types) {
    for (ShapeType b : types) {
      const bool expected = a == ShapeType::sphere || b == ShapeType::sphere;
      CHECK(narrow_phase.supports(a, b) == expected);
    }
  }
}

TEST_CASE("primitive: unsupported pairs throw SimulationError naming the pair") {
  const Shape box = Shape::box(Vec3(1, 1, 1));
  const Shape floor = Shape::half_space(Vec3::UnitZ());
  CHECK_THROWS_AS(run_query(box, Pose{}, box, Pose{}), contactlab::SimulationError);
  CHECK_THROWS_WITH(run_query(box, Pose{}, floor, Pose{}), Catch::Contains("box–half_space"));
}

TEST_CASE(
    "primitive: sphere–box distance equals the exact closed form within 1e-12 on 10,000 "
    "seeded poses (separated, shallow, deep, centre inside), normal within 1e-9") {
  std::mt19937_64 rng(0xC0FFEE);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_real_distribution<double> symmetric(-1.0, 1.0);
  int separated = 0, shallow = 0, deep = 0, inside = 0;
  for (int i = 0; i < kSamples; ++i) {
    const double r = 0.05 + 0.95 * unit(rng);
    const Vec3 h(0.1 + 1.9 * unit(rng), 0.1 + 1.9 * unit(rng), 0.1 + 1.9 * unit(rng));
    // The centre in the box frame, drawn per category.
    Vec3 c_B;
    const int category = i % 4;
    if (category <= 1) {
      // Outside: per axis inside the slab, above or below it; at least one axis outside.
      const double max_offset = category == 0 ? 3.0 * r : 0.55 * r;  // separated / shallow
      const int forced = static_cast<int>(3.0 * unit(rng)) % 3;
      for (int k = 0; k < 3; ++k) {
        const int region = k == forced ? 1 + static_cast<int>(2.0 * unit(rng)) % 2
                                       : static_cast<int>(3.0 * unit(rng)) % 3;
        const double offset = max_offset * unit(rng);
        c_B[k] =
            region == 0 ? h[k] * symmetric(rng) : (region == 1 ? h[k] + offset : -h[k] - offset);
      }
    } else if (category == 2) {
      c_B = h.cwiseProduct(Vec3(symmetric(rng), symmetric(rng), symmetric(rng)));
    } else {
      // Just below one face.
      c_B = h.cwiseProduct(Vec3(symmetric(rng), symmetric(rng), symmetric(rng)));
      const int axis = static_cast<int>(3.0 * unit(rng)) % 3;
      c_B[axis] = (unit(rng) < 0.5 ? 1.0 : -1.0) * (h[axis] - 0.1 * h.minCoeff() * unit(rng));
    }
    const Pose X_WB = random_pose(rng, 5.0);
    const Vec3 c_W = X_WB.transform_point(c_B);
    const BoxReference expected = box_reference(c_B, h, r);
    if (expected.centre_inside) {
      ++inside;
    } else if (expected.distance_m > 0.0) {
      ++separated;
    } else if (expected.distance_m > -r) {
      ++shallow;
    }
    if (expected.distance_m < -r) ++deep;

    const ContactGeometry g = contactlab::plugins::sphere_box(r, c_W, h, X_WB);
    INFO("sample " << i << " c_B = " << c_B.transpose() << " h = " << h.transpose()
                   << " r = " << r);
    REQUIRE(std::abs(g.distance_m - expected.distance_m) <= 1e-12);
    REQUIRE((g.normal_W - X_WB.R * expected.normal_B).norm() <= 1e-9);
    check_contract(g, 1e-12);
    // Witness on the sphere, and on the box boundary (in the box frame: inside, one face active).
    CHECK(std::abs((g.point_a_W - c_W).norm() - r) <= 1e-12);
    const Vec3 point_b_B = X_WB.R.transpose() * (g.point_b_W - X_WB.p);
    CHECK(std::abs((point_b_B.cwiseAbs() - h).maxCoeff()) <= 1e-12);
  }
  CHECK(separated >= 2000);
  CHECK(shallow >= 2000);
  CHECK(inside >= 4000);
  CHECK(deep >= 4000);
}

TEST_CASE("primitive: sphere–sphere equals the closed form within 1e-12 on 10,000 seeded poses") {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> gaussian(0.0, 1.0);
  int separated = 0, shallow = 0, deep = 0;
  for (int i = 0; i < kSamples; ++i) {
    const double r_a = 0.05 + unit(rng);
    const double r_b = 0.05 + unit(rng);
    const Vec3 c_a = 5.0 * Vec3(gaussian(rng), gaussian(rng), gaussian(rng));
    const Vec3 direction = Vec3(gaussian(rng), gaussian(rng), gaussian(rng)).normalized();
    // Centre distance from 1e-3 m (almost concentric) to well separated.
    const double centre_distance = (1e-3 + 2.0 * unit(rng)) * (r_a + r_b);
    const Vec3 c_b = c_a + centre_distance * direction;
    const Vec3 delta = c_b - c_a;
    const double length =
        std::sqrt(delta.x() * delta.x() + delta.y() * delta.y() + delta.z() * delta.z());
    const double expected = length - (r_a + r_b);
    if (expected > 0.0) {
      ++separated;
    } else if (expected > -std::min(r_a, r_b)) {
      ++shallow;
    } else {
      ++deep;
    }
    const ContactGeometry g = contactlab::plugins::sphere_sphere(r_a, c_a, r_b, c_b);
    REQUIRE(std::abs(g.distance_m - expected) <= 1e-12);
    REQUIRE((g.normal_W - delta / length).norm() <= 1e-12);
    check_contract(g, 1e-12);
    CHECK(std::abs((g.point_a_W - c_a).norm() - r_a) <= 1e-12);
    CHECK(std::abs((g.point_b_W - c_b).norm() - r_b) <= 1e-12);
  }
  CHECK(separated >= 3000);
  CHECK(shallow >= 1000);
  CHECK(deep >= 1000);
}

TEST_CASE("primitive: concentric spheres use +z of world as the normal, distance −(r_A + r_B)") {
  const Vec3 c(0.3, -0.2, 1.5);
  const ContactGeometry g =
      run_query(Shape::sphere(0.5), pose_at(c), Shape::sphere(0.25), pose_at(c));
  CHECK(g.distance_m == -0.75);
  CHECK(g.normal_W == Vec3::UnitZ());
  CHECK(g.point_a_W == c + 0.5 * Vec3::UnitZ());
  CHECK(g.point_b_W == c - 0.25 * Vec3::UnitZ());
  check_contract(g, 1e-15);
}

TEST_CASE(
    "primitive: sphere–half-space equals n_W·(c − p_WG) − r within 1e-12 on 10,000 seeded "
    "poses, normal +n_W from the half-space to the sphere") {
  std::mt19937_64 rng(777);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> gaussian(0.0, 1.0);
  for (int i = 0; i < kSamples; ++i) {
    const double r = 0.05 + unit(rng);
    const Vec3 n_G = Vec3(gaussian(rng), gaussian(rng), gaussian(rng)).normalized();
    const Pose X_WG = random_pose(rng, 5.0);
    const Vec3 n_W = X_WG.R * n_G;
    // Height of the centre above the plane from −2r (deep) to +2r (separated).
    const Vec3 tangent = n_W.unitOrthogonal();
    const Vec3 c_W = X_WG.p + (4.0 * unit(rng) - 2.0) * r * n_W + 3.0 * gaussian(rng) * tangent;
    const double expected = n_W.dot(c_W - X_WG.p) - r;

    const Shape floor = Shape::half_space(n_G);
    const Pose X_WS = pose_at(c_W);
    const ContactGeometry floor_first = run_query(floor, X_WG, Shape::sphere(r), X_WS);
    REQUIRE(std::abs(floor_first.distance_m - expected) <= 1e-12);
    REQUIRE((floor_first.normal_W - n_W).norm() <= 1e-12);
    check_contract(floor_first, 1e-12);
    // point_a on the plane, point_b on the sphere.
    CHECK(std::abs(n_W.dot(floor_first.point_a_W - X_WG.p)) <= 1e-12);
    CHECK(std::abs((floor_first.point_b_W - c_W).norm() - r) <= 1e-12);

    const ContactGeometry sphere_first = run_query(Shape::sphere(r), X_WS, floor, X_WG);
    REQUIRE(std::abs(sphere_first.distance_m - expected) <= 1e-12);
    REQUIRE((sphere_first.normal_W + n_W).norm() <= 1e-12);
    check_contract(sphere_first, 1e-12);
  }
}

TEST_CASE(
    "primitive: swapping A and B negates the normal and swaps the witness points "
    "(within 1e-14) on 10,000 seeded poses of every supported pair") {
  std::mt19937_64 rng(4242);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const Shape others[] = {Shape::sphere(0.7), Shape::box(Vec3(0.4, 1.1, 0.6)),
                          Shape::half_space(Vec3(0.2, -0.3, 1.0))};
  for (int i = 0; i < kSamples; ++i) {
    const Shape sphere = Shape::sphere(0.1 + unit(rng));
    const Shape& other = others[i % 3];
    const Pose X_WS = random_pose(rng, 1.5);
    const Pose X_WO = random_pose(rng, 1.5);
    const ContactGeometry ab = run_query(sphere, X_WS, other, X_WO);
    const ContactGeometry ba = run_query(other, X_WO, sphere, X_WS);
    REQUIRE(std::abs(ab.distance_m - ba.distance_m) <= 1e-14);
    REQUIRE((ab.normal_W + ba.normal_W).norm() <= 1e-14);
    REQUIRE((ab.point_a_W - ba.point_b_W).norm() <= 1e-14);
    REQUIRE((ab.point_b_W - ba.point_a_W).norm() <= 1e-14);
  }
}

TEST_CASE("primitive: sphere–box inside ties resolve to the lowest axis, + face before −") {
  const Pose X_WB = pose_at(Vec3(1, 2, 3));
  SECTION("sphere at the centre of a cube exits through +x") {
    const Shape cube = Shape::box(Vec3(1, 1, 1));
    const ContactGeometry g = run_query(Shape::sphere(0.5), X_WB, cube, X_WB);
    CHECK(g.distance_m == -1.5);
    CHECK(g.normal_W == -Vec3::UnitX());  // from the sphere to the box
    CHECK(g.point_b_W == Vec3(2, 2, 3));
    CHECK(g.point_a_W == Vec3(0.5, 2, 3));
    const ContactGeometry swapped = run_query(cube, X_WB, Shape::sphere(0.5), X_WB);
    CHECK(swapped.normal_W == Vec3::UnitX());  // from the box to the sphere: the face normal
  }
  SECTION("tie between +y and −z picks +y") {
    const Shape box = Shape::box(Vec3(2, 1, 1));
    const ContactGeometry g = run_query(Shape::sphere(0.1), pose_at(Vec3(1, 2.5, 2.5)), box, X_WB);
    CHECK(g.distance_m == Approx(-0.6).margin(1e-15));
    CHECK(g.normal_W == -Vec3::UnitY());
  }
  SECTION("tie between +y and −y picks +y") {
    const Shape box = Shape::box(Vec3(3, 1, 2));
    const ContactGeometry g = run_query(Shape::sphere(0.2), X_WB, box, X_WB);
    CHECK(g.distance_m == Approx(-1.2).margin(1e-15));
    CHECK(g.normal_W == -Vec3::UnitY());
  }
}

TEST_CASE(
    "primitive: sphere–box is continuous (within 1e-12) as the centre crosses a face, and "
    "exactly 0 when touching") {
  const Shape box = Shape::box(Vec3(1, 0.5, 0.25));
  const Shape sphere = Shape::sphere(0.3);
  // Binary-exact numbers, so that "touching" is exact: 1.25 − 1 = 0.25.
  const ContactGeometry touching =
      run_query(Shape::sphere(0.25), pose_at(Vec3(1.25, 0.125, 0.125)), box, Pose{});
  CHECK(touching.distance_m == 0.0);
  CHECK(touching.normal_W == -Vec3::UnitX());
  const ContactGeometry on_face = run_query(sphere, pose_at(Vec3(1.0, 0.1, 0.1)), box, Pose{});
  CHECK(on_face.distance_m == -0.3);
  CHECK(on_face.normal_W == -Vec3::UnitX());
  const ContactGeometry above = run_query(sphere, pose_at(Vec3(1.0 + 1e-9, 0.1, 0.1)), box, Pose{});
  const ContactGeometry below = run_query(sphere, pose_at(Vec3(1.0 - 1e-9, 0.1, 0.1)), box, Pose{});
  CHECK(above.distance_m == Approx(-0.3 + 1e-9).margin(1e-12));
  CHECK(below.distance_m == Approx(-0.3 - 1e-9).margin(1e-12));
  CHECK((above.normal_W - below.normal_W).norm() <= 1e-12);
  CHECK((above.point_b_W - below.point_b_W).norm() <= 1e-8);
}

TEST_CASE("primitive: query leaves the warm-start cache untouched") {
  PrimitiveNarrowPhase narrow_phase{contactlab::ParameterValues{}};
  NarrowPhaseCache cache;
  contactlab::ContactManifold out;
  narrow_phase.query(Shape::sphere(1), Pose{}, Shape::box(Vec3(1, 1, 1)), pose_at(Vec3(3, 0, 0)),
                     cache, out);
  CHECK(cache.valid == 0);
  CHECK(std::all_of(cache.data.begin(), cache.data.end(), [](double x) { return x == 0.0; }));
  CHECK(out.count == 1);
  CHECK(out.points[0].distance_m == 1.0);
}
