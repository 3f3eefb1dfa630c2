// The general contact-manifold builder (contactlab/geometry/manifold.hpp): supporting features of
// every shape, clipping, and the manifolds mpr and gjk_epa build with it, against hand-computed and
// closed-form values.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <contactlab/errors.hpp>
#include <contactlab/geometry/manifold.hpp>
#include <contactlab/geometry/swap.hpp>

#include "gjk_epa_narrow_phase.hpp"
#include "mpr_narrow_phase.hpp"
#include "narrow_phase_test_support.hpp"
#include "primitive_narrow_phase.hpp"

#include "support/allocation_counter.hpp"
#include "support/skip.hpp"

using contactlab::ContactManifold;
using contactlab::ConvexHull;
using contactlab::Mat3;
using contactlab::NarrowPhase;
using contactlab::NarrowPhaseCache;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::Pose;
using contactlab::Shape;
using contactlab::Vec3;
using contactlab::geometry::Feature;
using contactlab::geometry::supporting_feature;
using contactlab::plugins::GjkEpaNarrowPhase;
using contactlab::plugins::MprNarrowPhase;
using contactlab::plugins::PrimitiveNarrowPhase;
using namespace contactlab::testing;

namespace {

constexpr double kPi = std::numbers::pi;

Mat3 rotation_about(const Vec3& axis, double angle_rad) {
  return Eigen::AngleAxisd(angle_rad, axis.normalized()).toRotationMatrix();
}

/// True when `feature` has a vertex within tol of p.
bool has_vertex(const Feature& feature, const Vec3& p, double tol) {
  for (int i = 0; i < feature.count; ++i)
    if ((feature.vertices[i] - p).norm() <= tol) return true;
  return false;
}

/// True when the manifold has a point whose A witness is within tol of p.
bool has_point_a(const ContactManifold& m, const Vec3& p, double tol) {
  for (int i = 0; i < m.count; ++i)
    if ((m.points[i].point_a_W - p).norm() <= tol) return true;
  return false;
}

std::unique_ptr<NarrowPhase> make(const std::string& name, std::int64_t points) {
  const std::map<std::string, ParameterValue> overrides{{"manifold_points", points}};
  if (name == "mpr")
    return std::make_unique<MprNarrowPhase>(
        ParameterValues::defaults(MprNarrowPhase::schema(), overrides));
  if (name == "gjk_epa")
    return std::make_unique<GjkEpaNarrowPhase>(
        ParameterValues::defaults(GjkEpaNarrowPhase::schema(), overrides));
  return std::make_unique<PrimitiveNarrowPhase>(
      ParameterValues::defaults(PrimitiveNarrowPhase::schema(), overrides));
}

ContactManifold query(NarrowPhase& np, const Shape& a, const Pose& X_WA, const Shape& b,
                      const Pose& X_WB) {
  NarrowPhaseCache cache;
  ContactManifold out;
  np.query(a, X_WA, b, X_WB, cache, out);
  return out;
}

/// Every point: the contract, the pair's normal, and the deepest first.
void check_manifold(const ContactManifold& m, double tol) {
  for (int i = 0; i < m.count; ++i) {
    check_contract(m.points[i], tol);
    CHECK((m.points[i].normal_W - m.points[0].normal_W).norm() <= tol);
    CHECK(m.points[0].distance_m <= m.points[i].distance_m + tol);
  }
}

/// A cube hull of half size h with its 6 faces (no adjacency: scanned).
struct CubeHull {
  std::array<Vec3, 8> vertices;
  std::array<Vec3, 6> normals;
  std::array<double, 6> offsets;
  ConvexHull hull;
  explicit CubeHull(double h) {
    for (int i = 0; i < 8; ++i)
      vertices[i] = h * Vec3((i & 1) ? 1 : -1, (i & 2) ? 1 : -1, (i & 4) ? 1 : -1);
    for (int k = 0; k < 3; ++k) {
      normals[2 * k] = Vec3::Unit(k);
      normals[2 * k + 1] = -Vec3::Unit(k);
      offsets[2 * k] = offsets[2 * k + 1] = h;
    }
    hull.vertices = vertices.data();
    hull.vertex_count = 8;
    hull.face_normals = normals.data();
    hull.face_offsets = offsets.data();
    hull.face_count = 6;
  }
};

}  // namespace

TEST_CASE("manifold: supporting features of box, cylinder, cone, capsule, beam, hull, 1e-12 m",
          "[manifold]") {
  const double tol = 1e-12;
  Feature f;
  SECTION("box: face within 0.02 of its normal, edge, corner, smoothing shrinks the core") {
    Shape box = Shape::box(Vec3(0.5, 0.4, 0.3));
    supporting_feature(box, Vec3(0.01, -0.01, 1.0).normalized(), f);
    REQUIRE(f.count == 4);
    for (const double x : {-0.5, 0.5})
      for (const double y : {-0.4, 0.4}) CHECK(has_vertex(f, Vec3(x, y, 0.3), tol));
    // Cyclic order: consecutive corners share an edge (differ in one coordinate).
    for (int i = 0; i < 4; ++i) {
      const Vec3 e = (f.vertices[(i + 1) % 4] - f.vertices[i]).cwiseAbs();
      CHECK(((e.array() > tol).count()) == 1);
    }
    supporting_feature(box, Vec3(0.7, -0.7, 0.01).normalized(), f);
    REQUIRE(f.count == 2);
    CHECK(has_vertex(f, Vec3(0.5, -0.4, 0.3), tol));
    CHECK(has_vertex(f, Vec3(0.5, -0.4, -0.3), tol));
    supporting_feature(box, Vec3(0.5, 0.6, -0.62).normalized(), f);
    REQUIRE(f.count == 1);
    CHECK((f.vertices[0] - Vec3(0.5, 0.4, -0.3)).norm() <= tol);
    // Beyond the tolerance (sin = 0.05 > 0.02) a face is no longer a face.
    supporting_feature(box, Vec3(0.05, 0.0, 1.0).normalized(), f);
    CHECK(f.count == 2);
    box.smoothing_radius_m = 0.05;
    supporting_feature(box, Vec3::UnitX(), f);
    REQUIRE(f.count == 4);
    CHECK(f.radius_m == 0.05);
    CHECK(has_vertex(f, Vec3(0.45, 0.35, 0.25), tol));
  }
  SECTION("cylinder: cap rim of 4 points from the support direction, side line, rim point") {
    const Shape cylinder = Shape::cylinder(0.3, 1.0);
    supporting_feature(cylinder, Vec3(0.01, 0.0, -1.0).normalized(), f);
    REQUIRE(f.count == 4);
    CHECK((f.vertices[0] - Vec3(0.3, 0, -0.5)).norm() <= tol);
    for (int i = 0; i < 4; ++i) {
      CHECK(f.vertices[i].z() == Approx(-0.5).margin(tol));
      CHECK(std::hypot(f.vertices[i].x(), f.vertices[i].y()) == Approx(0.3).margin(tol));
      // A square inscribed in the rim: sides 0.3·√2.
      CHECK((f.vertices[(i + 1) % 4] - f.vertices[i]).norm() ==
            Approx(0.3 * std::sqrt(2.0)).margin(tol));
    }
    supporting_feature(cylinder, Vec3(0.0, -1.0, 0.015).normalized(), f);
    REQUIRE(f.count == 2);
    CHECK(has_vertex(f, Vec3(0, -0.3, 0.5), tol));
    CHECK(has_vertex(f, Vec3(0, -0.3, -0.5), tol));
    supporting_feature(cylinder, Vec3(0.0, -1.0, 0.3).normalized(), f);
    REQUIRE(f.count == 1);
    CHECK((f.vertices[0] - Vec3(0, -0.3, 0.5)).norm() <= tol);
  }
  SECTION("cone: side line from the base rim to the apex along the side normal, base rim, apex") {
    const double R = 0.2, h = 0.5;
    const Shape cone = Shape::cone(R, 0.0, 2 * h);
    const double l = std::hypot(2 * h, R);
    // Outward side normal in the x–z plane: (2h, 0, R)/l.
    supporting_feature(cone, Vec3(2 * h / l, 0, R / l), f);
    REQUIRE(f.count == 2);
    CHECK(has_vertex(f, Vec3(R, 0, -h), tol));
    CHECK(has_vertex(f, Vec3(0, 0, h), tol));
    supporting_feature(cone, Vec3(0, 0, -1), f);
    REQUIRE(f.count == 4);
    for (int i = 0; i < 4; ++i) CHECK(f.vertices[i].z() == Approx(-h).margin(tol));
    supporting_feature(cone, Vec3(0, 0, 1), f);
    REQUIRE(f.count == 1);
    CHECK((f.vertices[0] - Vec3(0, 0, h)).norm() <= tol);
    const Shape frustum = Shape::cone(R, 0.15, 2 * h);
    supporting_feature(frustum, Vec3(0, 0, 1), f);
    REQUIRE(f.count == 4);
    CHECK(std::hypot(f.vertices[3].x(), f.vertices[3].y()) == Approx(0.15).margin(tol));
    const double lf = std::hypot(2 * h, R - 0.15);
    supporting_feature(frustum, Vec3(0, 2 * h / lf, (R - 0.15) / lf), f);
    REQUIRE(f.count == 2);
    CHECK(has_vertex(f, Vec3(0, R, -h), tol));
    CHECK(has_vertex(f, Vec3(0, 0.15, h), tol));
  }
  SECTION("capsule: the axis segment with its radius when across, else an end") {
    const Shape capsule = Shape::capsule(0.1, 1.0);
    supporting_feature(capsule, Vec3(1, 0, 0.01).normalized(), f);
    REQUIRE(f.count == 2);
    CHECK(f.radius_m == 0.1);
    CHECK(has_vertex(f, Vec3(0, 0, 0.5), tol));
    CHECK(has_vertex(f, Vec3(0, 0, -0.5), tol));
    supporting_feature(capsule, Vec3(1, 0, -0.5).normalized(), f);
    REQUIRE(f.count == 1);
    CHECK((f.vertices[0] - Vec3(0, 0, -0.5)).norm() <= tol);
  }
  SECTION(
      "beam: flat face (the ±45° rectangle, sliding near the tolerance), long side, round "
      "end, edge") {
    // Length 1, width 0.4, thickness 0.2: straight part ±0.3, end radius 0.2, half thickness 0.1.
    const Shape beam = Shape::beam(1.0, 0.4, 0.2);
    const double c = 0.2 / std::sqrt(2.0);
    // Tilt just below 0.01 (half the tolerance): the fixed rectangle on the round ends at ±45°.
    supporting_feature(beam, Vec3(0.01, 0, -1).normalized(), f);
    REQUIRE(f.count == 4);
    for (const double x : {-0.3 - c, 0.3 + c})
      for (const double y : {-c, c}) CHECK(has_vertex(f, Vec3(x, y, -0.1), tol));
    // Tilted towards 45° (sliding, tilt 0.01414): the 45° points are the exact supports already.
    supporting_feature(beam, Vec3(0.01, 0.01, 1).normalized(), f);
    CHECK((f.vertices[0] - Vec3(0.3 + c, c, 0.1)).norm() <= tol);
    CHECK((f.vertices[2] + f.vertices[0] - Vec3(0, 0, 0.2)).norm() <= tol);
    supporting_feature(beam, Vec3(0, 1, 0), f);
    REQUIRE(f.count == 4);
    CHECK(has_vertex(f, Vec3(0.3, 0.2, 0.1), tol));
    CHECK(has_vertex(f, Vec3(-0.3, 0.2, -0.1), tol));
    supporting_feature(beam, Vec3(-1, 0, 0), f);
    REQUIRE(f.count == 2);
    CHECK(has_vertex(f, Vec3(-0.5, 0, 0.1), tol));
    CHECK(has_vertex(f, Vec3(-0.5, 0, -0.1), tol));
    supporting_feature(beam, Vec3(0, -1, 1).normalized(), f);
    REQUIRE(f.count == 2);
    CHECK(has_vertex(f, Vec3(0.3, -0.2, 0.1), tol));
    CHECK(has_vertex(f, Vec3(-0.3, -0.2, 0.1), tol));
    // The edge starts from the exact support point: u at 60° from −x, on the round end.
    const Vec3 d = Vec3(-0.5 * 0.03, std::sqrt(0.75) * 0.03, -1).normalized();
    supporting_feature(beam, d, f);
    REQUIRE(f.count == 2);
    CHECK((f.vertices[0] - Vec3(-0.3 - 0.1, 0.2 * std::sqrt(0.75), -0.1)).norm() <= tol);
    CHECK((f.vertices[1] - Vec3(0.3, 0.2, -0.1)).norm() <= tol);
  }
  SECTION("hull: the face nearest the direction in cyclic order, else the support vertex") {
    const CubeHull cube(0.5);
    const Shape hull = Shape::convex_hull(&cube.hull);
    supporting_feature(hull, Vec3(0.01, 0.0, -1.0).normalized(), f);
    REQUIRE(f.count == 4);
    for (int i = 0; i < 4; ++i) {
      CHECK(f.vertices[i].z() == Approx(-0.5).margin(tol));
      CHECK((f.vertices[(i + 1) % 4] - f.vertices[i]).norm() == Approx(1.0).margin(tol));
    }
    supporting_feature(hull, Vec3(1, 1, 1).normalized(), f);
    REQUIRE(f.count == 1);
    CHECK((f.vertices[0] - Vec3(0.5, 0.5, 0.5)).norm() <= tol);
  }
  SECTION("sphere and ellipsoid: a point") {
    supporting_feature(Shape::sphere(0.2), Vec3::UnitZ(), f);
    CHECK(f.count == 1);
    CHECK(f.radius_m == 0.2);
    supporting_feature(Shape::ellipsoid(Vec3(0.1, 0.2, 0.3)), Vec3::UnitZ(), f);
    REQUIRE(f.count == 1);
    CHECK((f.vertices[0] - Vec3(0, 0, 0.3)).norm() <= tol);
  }
}

TEST_CASE("manifold: clipping of hand-computed polygons and segments within 1e-12 m",
          "[manifold]") {
  using contactlab::geometry::detail::clip_to_prism;
  std::array<Vec3, contactlab::geometry::kMaxClipPoints> out;
  Feature square, diamond, segment;
  square.count = 4;
  square.vertices[0] = Vec3(1, 1, 0);
  square.vertices[1] = Vec3(-1, 1, 0);
  square.vertices[2] = Vec3(-1, -1, 0);
  square.vertices[3] = Vec3(1, -1, 0);
  const double s = std::sqrt(2.0);
  diamond.count = 4;  // |x| + |y| ≤ √2, in another plane (z = 0.3) and the other sense
  diamond.vertices[0] = Vec3(s, 0, 0.3);
  diamond.vertices[1] = Vec3(0, -s, 0.3);
  diamond.vertices[2] = Vec3(-s, 0, 0.3);
  diamond.vertices[3] = Vec3(0, s, 0.3);
  SECTION("square against a diamond: the regular octagon (1, √2 − 1) and its images") {
    const int count = clip_to_prism(square, diamond, Vec3::UnitZ(), out);
    REQUIRE(count == 8);
    for (int i = 0; i < count; ++i) {
      const Vec3& p = out[i];
      CHECK(p.z() == Approx(0.0).margin(1e-12));  // on the subject's plane
      const double a = std::max(std::abs(p.x()), std::abs(p.y()));
      const double b = std::min(std::abs(p.x()), std::abs(p.y()));
      CHECK(a == Approx(1.0).margin(1e-12));
      CHECK(b == Approx(s - 1.0).margin(1e-12));
    }
  }
  SECTION("a segment across the square: cut at x = ±1") {
    segment.count = 2;
    segment.vertices[0] = Vec3(-2, 0.5, 0.2);
    segment.vertices[1] = Vec3(2, 0.5, 0.2);
    REQUIRE(clip_to_prism(segment, square, Vec3::UnitZ(), out) == 2);
    CHECK((out[0] - Vec3(-1, 0.5, 0.2)).norm() <= 1e-12);
    CHECK((out[1] - Vec3(1, 0.5, 0.2)).norm() <= 1e-12);
    segment.vertices[0] = Vec3(-2, 1.5, 0.2);
    segment.vertices[1] = Vec3(2, 1.5, 0.2);
    CHECK(clip_to_prism(segment, square, Vec3::UnitZ(), out) == 0);
  }
  SECTION("an oblique prism: the square clipped along n = (1, 0, 1)/√2 shifts by the height") {
    // A unit square at z = 1 projected along n onto z = 0 moves by −1 in x: clipped against the
    // square at z = 0 it keeps x in [−1, 1] + 1 = [0, 2] ∩ [−1, 1] → x ∈ [0, 1].
    Feature high = square;
    for (int i = 0; i < 4; ++i) high.vertices[i].z() = 1.0;
    const int count = clip_to_prism(high, square, Vec3(1, 0, 1).normalized(), out);
    REQUIRE(count == 4);
    for (int i = 0; i < count; ++i) {
      CHECK(out[i].x() >= -1e-12);
      CHECK(out[i].x() <= 1.0 + 1e-12);
      CHECK(out[i].z() == Approx(1.0).margin(1e-12));
    }
  }
}

/// The grounds the lying-shape tests rest on, each with its top at z = 0.
struct Ground {
  Shape shape;
  Pose pose;
  const char* label;
};
std::array<Ground, 2> grounds() {
  return {Ground{Shape::half_space(Vec3::UnitZ()), Pose{}, "half-space"},
          Ground{Shape::box(Vec3(2.5, 1.5, 0.05)), pose_at(Vec3(0, 0, -0.05)), "box"}};
}

/// Calls f(narrow phase, its name, ground) for mpr and gjk_epa, 4 manifold points, on each ground.
template <class F>
void for_each_narrow_phase_and_ground(F&& f) {
  for (const char* name : {"mpr", "gjk_epa"}) {
    const auto np = make(name, 4);
    for (const Ground& ground : grounds()) {
      INFO(name << " on a " << ground.label);
      f(*np, std::string(name), ground);
    }
  }
}

TEST_CASE(
    "manifold: a cylinder, capsule and cone lying on a half-space or a box give the two ends of "
    "the contact line with the exact depth, mpr and gjk_epa, within 1e-9 m",
    "[manifold]") {
  const double depth = 0.01, tol = 1e-9;
  for_each_narrow_phase_and_ground(
      [&](NarrowPhase& np, const std::string& name, const Ground& ground) {
        const Shape& base = ground.shape;
        const Pose& X_base = ground.pose;
        SECTION(std::string("cylinder ") + name + " " + ground.label) {
          // Axis along y (turned about x), rolled by 0.4 rad about its own axis (no effect).
          const Shape cylinder = Shape::cylinder(0.3, 1.0);
          const Pose X =
              make_pose(rotation_about(Vec3::UnitX(), kPi / 2) * rotation_about(Vec3::UnitZ(), 0.4),
                        Vec3(0.2, 0.1, 0.3 - depth));
          for (const bool swapped : {false, true}) {
            ContactManifold m = swapped ? query(np, base, X_base, cylinder, X)
                                        : query(np, cylinder, X, base, X_base);
            if (swapped) contactlab::geometry::swap_roles(m);
            REQUIRE(m.count == 2);
            check_manifold(m, tol);
            for (int i = 0; i < 2; ++i) CHECK(m.points[i].distance_m == Approx(-depth).margin(tol));
            CHECK(has_point_a(m, Vec3(0.2, 0.6, -depth), tol));
            CHECK(has_point_a(m, Vec3(0.2, -0.4, -depth), tol));
          }
        }
        SECTION(std::string("capsule ") + name + " " + ground.label) {
          const Shape capsule = Shape::capsule(0.2, 1.0);
          const Pose X = make_pose(rotation_about(Vec3::UnitY(), kPi / 2), Vec3(0, 0, 0.2 - depth));
          const ContactManifold m = query(np, capsule, X, base, X_base);
          REQUIRE(m.count == 2);
          check_manifold(m, tol);
          for (int i = 0; i < 2; ++i) CHECK(m.points[i].distance_m == Approx(-depth).margin(tol));
          CHECK(has_point_a(m, Vec3(0.5, 0, -depth), tol));
          CHECK(has_point_a(m, Vec3(-0.5, 0, -depth), tol));
        }
        SECTION(std::string("cone ") + name + " " + ground.label) {
          // The side line (from the base rim (R, 0, −h) to the apex) laid along world x at z = −δ:
          // the side's outward normal m = (2h, 0, R)/l turned to −z.
          const double R = 0.2, h = 0.5, l = std::hypot(2 * h, R);
          const Shape cone = Shape::cone(R, 0.0, 2 * h);
          const Vec3 g_G = Vec3(-R, 0, 2 * h) / l, m_G = Vec3(2 * h, 0, R) / l;
          Mat3 B_G, B_W;
          B_G << g_G, m_G, g_G.cross(m_G);
          B_W << Vec3::UnitX(), -Vec3::UnitZ(), Vec3::UnitX().cross(-Vec3::UnitZ());
          const Mat3 R_WG = B_W * B_G.transpose();
          const Vec3 apex_offset = R_WG * Vec3(0, 0, h);
          const Pose X = make_pose(R_WG, Vec3(0.1, 0.2, -depth) - apex_offset);
          const Vec3 apex_W = X.transform_point(Vec3(0, 0, h));
          const Vec3 rim_W = X.transform_point(Vec3(R, 0, -h));
          REQUIRE(apex_W.z() == Approx(-depth).margin(1e-15));
          REQUIRE(rim_W.z() == Approx(-depth).margin(1e-15));
          const ContactManifold m = query(np, cone, X, base, X_base);
          REQUIRE(m.count == 2);
          check_manifold(m, tol);
          for (int i = 0; i < 2; ++i) CHECK(m.points[i].distance_m == Approx(-depth).margin(tol));
          CHECK(has_point_a(m, apex_W, tol));
          CHECK(has_point_a(m, rim_W, tol));
          CHECK((m.points[0].point_a_W - m.points[1].point_a_W).norm() == Approx(l).margin(tol));
        }
      });
}

TEST_CASE(
    "manifold: a beam's flat face is the fixed ±45° rectangle below half the tolerance (8 tilt "
    "directions, 1e-12 m), its points move continuously across half the tolerance and the "
    "tolerance (jumps below 1e-12 of the size) to the exact support point there",
    "[manifold]") {
  using contactlab::geometry::kBeamFaceFixedFraction;
  using contactlab::geometry::kDefaultSinTolerance;
  // Length 1, width 0.4, thickness 0.2: straight part ±0.3, end radius 0.2, half thickness 0.1.
  const Shape beam = Shape::beam(1.0, 0.4, 0.2);
  const double seg = 0.3, R = 0.2, t = 0.1, c = R / std::sqrt(2.0), size = 0.5;
  const double sin_tol = kDefaultSinTolerance, fixed = kBeamFaceFixedFraction * sin_tol;
  const double cos_tol = std::sqrt(1.0 - sin_tol * sin_tol);  // as supporting_feature's
  // Directions of the tilt: the axes (where the support jumps along the straight edges or sits
  // on a tip) and in between.
  const std::array<double, 8> angles{0.0, 0.3, kPi / 2, 2.0, kPi, 3.6, 3 * kPi / 2, 5.9};
  // d with radial part s·(cos φ, sin φ) and z component z (not renormalised: the tests sit on
  // the thresholds).
  auto direction = [](double s, double phi, double z) {
    return Vec3(s * std::cos(phi), s * std::sin(phi), z);
  };
  auto feature = [&](const Vec3& d) {
    Feature f;
    supporting_feature(beam, d, f);
    return f;
  };
  // Largest distance between the i-th vertices of two features of equal count.
  auto jump = [](const Feature& a, const Feature& b) {
    REQUIRE(a.count == b.count);
    double worst = 0.0;
    for (int i = 0; i < a.count; ++i)
      worst = std::max(worst, (a.vertices[i] - b.vertices[i]).norm());
    return worst;
  };
  for (const double phi : angles) {
    INFO("tilt direction " << phi << " rad");
    for (const double sz : {-1.0, 1.0}) {
      for (const double s : {0.0, 1e-9, 0.3 * fixed, 0.999 * fixed, fixed}) {
        const Feature f = feature(direction(s, phi, sz * std::sqrt(1.0 - s * s)));
        REQUIRE(f.count == 4);
        for (const double x : {-seg - c, seg + c})
          for (const double y : {-c, c}) CHECK(has_vertex(f, Vec3(x, y, sz * t), 1e-12));
        // Cyclic order: consecutive vertices share an x or a y.
        for (int i = 0; i < 4; ++i) {
          const Vec3 e = (f.vertices[(i + 1) % 4] - f.vertices[i]).cwiseAbs();
          CHECK(std::min(e.x(), e.y()) <= 1e-15);
        }
      }
    }
    // Across half the tolerance: the points start to slide without a jump.
    const double below = fixed * (1.0 - 1e-13), above = fixed * (1.0 + 1e-13);
    const Feature a = feature(direction(below, phi, -std::sqrt(1.0 - below * below)));
    const Feature b = feature(direction(above, phi, -std::sqrt(1.0 - above * above)));
    CHECK(jump(a, b) <= 1e-12 * size);
    // Within the sliding band: steps of a thousandth of it move the points by at most R times
    // the blend's step (each half size moves by less than R times it).
    const double step = (sin_tol - fixed) * 0.999999 / 1000.0;
    double worst_step = 0.0;
    Feature previous = feature(direction(fixed, phi, -std::sqrt(1.0 - fixed * fixed)));
    for (int k = 1; k <= 1000; ++k) {
      const double s = fixed + k * step;
      const Feature next = feature(direction(s, phi, -std::sqrt(1.0 - s * s)));
      worst_step = std::max(worst_step, jump(previous, next));
      previous = next;
    }
    CHECK(worst_step <= R * step / (sin_tol - fixed) + 1e-15);
    // At the tolerance: the face's vertex in the tilt's quadrant is the stadium's exact support
    // point along u, and the feature just beyond (an edge or the round end's point) starts there.
    const Vec3 at = direction(sin_tol, phi, -cos_tol);
    const Feature face = feature(at);
    REQUIRE(face.count == 4);
    const double ux = std::cos(phi), uy = std::sin(phi);
    const Vec3 support((ux < 0.0 ? -seg : seg) + R * ux, R * uy, -t);
    CHECK(has_vertex(face, support, 1e-12 * size));
    // Every vertex lies on the stadium's outline (a round end, or a straight edge's end).
    for (int i = 0; i < 4; ++i) {
      const Vec3& p = face.vertices[i];
      CHECK(std::hypot(std::abs(p.x()) - seg, p.y()) == Approx(R).margin(1e-12));
    }
    const double z_beyond = std::nextafter(-cos_tol, 0.0);
    const Feature beyond = feature(direction(std::sqrt(1.0 - z_beyond * z_beyond), phi, z_beyond));
    REQUIRE(beyond.count <= 2);
    CHECK(has_vertex(face, beyond.vertices[0], 1e-12 * size));
  }
  // Sliding is continuous across the axes too (the mirror images of u change sign there).
  for (const double phi : {0.0, kPi / 2, kPi, 3 * kPi / 2}) {
    const double s = fixed + 0.6 * (sin_tol - fixed);
    const Feature a = feature(direction(s, phi - 1e-13, std::sqrt(1.0 - s * s)));
    const Feature b = feature(direction(s, phi + 1e-13, std::sqrt(1.0 - s * s)));
    CHECK(jump(a, b) <= 1e-12 * size);
  }
  // Near the long axis at the tolerance the two vertices of the lower end meet at its tip (the
  // known limit: one point drops out).
  const Feature tip = feature(direction(sin_tol, 0.0, -cos_tol));
  CHECK((tip.vertices[0] - Vec3(seg + R, 0, -t)).norm() <= 1e-12);
  CHECK((tip.vertices[3] - Vec3(seg + R, 0, -t)).norm() <= 1e-12);
}

TEST_CASE(
    "manifold: a beam lying flat on a half-space or a box gives the 4 points of its ±45° "
    "rectangle at the same depth, mpr and gjk_epa, within 1e-9 m",
    "[manifold]") {
  const double depth = 0.01, tol = 1e-9;
  const Shape beam = Shape::beam(1.0, 0.4, 0.2);
  const double c = 0.2 / std::sqrt(2.0);
  // Turned by 0.4 rad about z, lying on its face at z = −δ.
  const Pose X = make_pose(rotation_about(Vec3::UnitZ(), 0.4), Vec3(0.2, 0.1, 0.1 - depth));
  for_each_narrow_phase_and_ground([&](NarrowPhase& np, const std::string&, const Ground& ground) {
    const ContactManifold m = query(np, beam, X, ground.shape, ground.pose);
    REQUIRE(m.count == 4);
    check_manifold(m, tol);
    for (int i = 0; i < 4; ++i) CHECK(m.points[i].distance_m == Approx(-depth).margin(tol));
    for (const double x : {-0.3 - c, 0.3 + c})
      for (const double y : {-c, c})
        CHECK(has_point_a(m, X.transform_point(Vec3(x, y, -0.1)), tol));
  });
}

TEST_CASE(
    "manifold: a cylinder standing on its cap gives 4 rim points 90° apart at the exact depth, a "
    "tilted one and a separated one a single point, within 1e-9 m",
    "[manifold]") {
  const Shape cylinder = Shape::cylinder(0.3, 1.0);
  const Shape floor = Shape::half_space(Vec3::UnitZ());
  for (const char* name : {"mpr", "gjk_epa"}) {
    INFO(name);
    const auto np = make(name, 4);
    const Pose standing = make_pose(rotation_about(Vec3::UnitZ(), 0.3), Vec3(1, 1, 0.49));
    const ContactManifold m = query(*np, cylinder, standing, floor, Pose{});
    REQUIRE(m.count == 4);
    check_manifold(m, 1e-9);
    for (int k = 0; k < 4; ++k) {
      CHECK(m.points[k].distance_m == Approx(-0.01).margin(1e-9));
      CHECK(std::hypot(m.points[k].point_a_W.x() - 1, m.points[k].point_a_W.y() - 1) ==
            Approx(0.3).margin(1e-9));
      // Opposite points 0.6 apart, neighbours 0.3·√2.
      int opposite = 0;
      for (int l = 0; l < 4; ++l) {
        const double d = (m.points[k].point_a_W - m.points[l].point_a_W).norm();
        if (l == k) continue;
        if (std::abs(d - 0.6) <= 1e-9) {
          ++opposite;
        } else {
          CHECK(d == Approx(0.3 * std::sqrt(2.0)).margin(1e-9));
        }
      }
      CHECK(opposite == 1);
    }
    // Tilted by 0.3 rad (far beyond the 0.02 tolerance): the lowest rim point alone.
    const double lowest = 0.5 * std::cos(0.3) + 0.3 * std::sin(0.3);
    const Pose tilted = make_pose(rotation_about(Vec3::UnitX(), 0.3), Vec3(0, 0, lowest - 0.01));
    const ContactManifold t = query(*np, cylinder, tilted, floor, Pose{});
    REQUIRE(t.count == 1);
    CHECK(t.points[0].distance_m == Approx(-0.01).margin(1e-9));
    // Separated by 1 mm: one point.
    const ContactManifold s =
        query(*np, cylinder, make_pose(Mat3::Identity(), Vec3(0, 0, 0.501)), floor, Pose{});
    CHECK(s.count == 1);
    CHECK(s.points[0].distance_m == Approx(0.001).margin(1e-9));
  }
}

TEST_CASE(
    "manifold: a lying cylinder tilted by 5 mrad keeps its raised end while it penetrates, with "
    "depth δ − L·sin(5e-3) at that end, within 1e-9 m",
    "[manifold]") {
  const Shape cylinder = Shape::cylinder(0.3, 1.0);
  const Shape floor = Shape::half_space(Vec3::UnitZ());
  const double tilt = 5e-3, depth = 0.01;
  // Axis along x, the +x end raised by sin(tilt).
  const Mat3 R = rotation_about(Vec3::UnitY(), -tilt) * rotation_about(Vec3::UnitY(), kPi / 2);
  // The lowest point of the lower end: its rim point along −z without the axis component.
  const Vec3 low_end = R * Vec3(0, 0, -0.5) + 0.3 * Vec3(std::sin(tilt), 0, -std::cos(tilt));
  const Pose X = make_pose(R, Vec3(0, 0, -depth) - low_end);
  for (const char* name : {"mpr", "gjk_epa"}) {
    const auto np = make(name, 4);
    const ContactManifold m = query(*np, cylinder, X, floor, Pose{});
    INFO(name);
    REQUIRE(m.count == 2);
    check_manifold(m, 1e-9);
    CHECK(m.points[0].distance_m == Approx(-depth).margin(1e-9));
    CHECK(m.points[1].distance_m == Approx(-depth + std::sin(tilt)).margin(1e-9));
  }
}

TEST_CASE(
    "manifold: a box on a box through mpr and gjk_epa gives primitive's manifold (points within "
    "1e-7 m, depths within 1e-9 m, plus the normal's deviation times the size) on 200 seeded "
    "poses each",
    "[manifold]") {
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const Shape lower = Shape::box(Vec3(1.0, 0.8, 0.2));
  const Shape upper = Shape::box(Vec3(0.4, 0.3, 0.25));
  const auto primitive = make("primitive", 4);
  int four = 0, edge_axis = 0, off_normal = 0;
  for (const char* name : {"mpr", "gjk_epa"}) {
    const auto np = make(name, 4);
    for (int i = 0; i < 200; ++i) {
      // Turned about z at random, tilted by up to 5 mrad, sunk by up to 10 mm, shifted so that
      // the upper box sometimes overhangs the lower one.
      const Mat3 R = rotation_about(random_unit(rng), 5e-3 * unit(rng)) *
                     rotation_about(Vec3::UnitZ(), 2 * kPi * unit(rng));
      const Vec3 p(1.6 * unit(rng) - 0.8, 1.2 * unit(rng) - 0.6, 0.45 - 0.01 * unit(rng));
      const Pose X_upper = make_pose(R, p);
      const ContactManifold expected = query(*primitive, lower, Pose{}, upper, X_upper);
      const ContactManifold m = query(*np, lower, Pose{}, upper, X_upper);
      INFO(name << " sample " << i);
      // Where the upper box overhangs, an edge–edge axis (lower's edge under the tilted face) may
      // tie with the face axis to rounding; primitive then reports that edge's single point, and
      // the builder the clipped faces along the same normal. Only the deepest point is compared.
      const Vec3& n = expected.points[0].normal_W;
      const bool face_axis = std::abs(std::abs(n.z()) - 1.0) <= 1e-12 ||
                             std::abs(std::abs(n.dot(R.col(2))) - 1.0) <= 1e-12;
      if (!face_axis) {
        ++edge_axis;
        CHECK(m.points[0].distance_m == Approx(expected.points[0].distance_m).margin(1e-9));
        continue;
      }
      // MPR's normal may miss the minimum-translation one in deep overlap (by 4e-3 rad here):
      // the builder measures along it, so points and depths may then differ by that angle times
      // the size (1 m), twice for a witness point.
      const double angle = (m.points[0].normal_W - n).norm();
      if (angle > 1e-9) ++off_normal;
      const double depth_tol = 1e-9 + angle, point_tol = 1e-7 + 2.0 * angle;
      REQUIRE(m.count == expected.count);
      check_manifold(m, 1e-9);
      CHECK(m.points[0].distance_m == Approx(expected.points[0].distance_m).margin(depth_tol));
      for (int k = 0; k < expected.count; ++k) {
        bool found = false;
        for (int l = 0; l < m.count && !found; ++l) {
          found = (m.points[l].point_a_W - expected.points[k].point_a_W).norm() <= point_tol &&
                  (m.points[l].point_b_W - expected.points[k].point_b_W).norm() <= point_tol &&
                  std::abs(m.points[l].distance_m - expected.points[k].distance_m) <= depth_tol;
        }
        CHECK(found);
      }
      four += expected.count == 4 ? 1 : 0;
    }
  }
  std::printf(
      "box on box: %d of 400 with 4 points, %d on an edge axis, %d with the narrow phase's normal "
      "off primitive's by more than 1e-9\n",
      four, edge_axis, off_normal);
  CHECK(four >= 200);
  CHECK(edge_axis <= 120);
  CHECK(off_normal <= 10);
}

TEST_CASE("manifold: manifold_points 1 (the default) leaves mpr's and gjk_epa's point alone",
          "[manifold]") {
  const Shape cylinder = Shape::cylinder(0.3, 1.0);
  const Shape floor = Shape::half_space(Vec3::UnitZ());
  const Pose X = make_pose(rotation_about(Vec3::UnitX(), kPi / 2), Vec3(0, 0, 0.29));
  for (const char* name : {"mpr", "gjk_epa"}) {
    const auto np = make(name, 1);
    CHECK(query(*np, cylinder, X, floor, Pose{}).count == 1);
  }
  const auto mpr_default =
      std::make_unique<MprNarrowPhase>(ParameterValues::defaults(MprNarrowPhase::schema(), {}));
  CHECK(mpr_default->manifold_points() == 1);
  CHECK_THROWS_AS(make("mpr", 5), contactlab::Error);
  CHECK_THROWS_AS(make("gjk_epa", 0), contactlab::Error);
}

TEST_CASE("manifold: building a manifold allocates nothing (mpr and gjk_epa, 4 points)",
          "[manifold]") {
  if (!contactlab::testing::allocation_counting_available())
    CONTACTLAB_SKIP("this build cannot count heap allocations (neither glibc nor a sanitizer)");
  const Shape cylinder = Shape::cylinder(0.3, 1.0);
  const Shape cone = Shape::cone(0.2, 0.1, 1.0);
  const Shape ground = Shape::box(Vec3(2.5, 1.5, 0.05));
  const CubeHull cube(0.5);
  const Shape hull = Shape::convex_hull(&cube.hull);
  const Shape floor = Shape::half_space(Vec3::UnitZ());
  const Pose X_ground = pose_at(Vec3(0, 0, -0.05));
  const Pose lying = make_pose(rotation_about(Vec3::UnitX(), kPi / 2), Vec3(0, 0, 0.29));
  const Pose standing = pose_at(Vec3(0, 0, 0.49));
  for (const char* name : {"mpr", "gjk_epa"}) {
    const auto np = make(name, 4);
    NarrowPhaseCache cache;
    ContactManifold out;
    np->query(cylinder, lying, ground, X_ground, cache, out);  // warm up
    int points = 0;
    const long allocations = contactlab::testing::allocations_during([&] {
      for (int i = 0; i < 10; ++i) {
        np->query(cylinder, lying, ground, X_ground, cache, out);
        points += out.count;
        np->query(cylinder, standing, floor, Pose{}, cache, out);
        points += out.count;
        np->query(cone, standing, ground, X_ground, cache, out);
        points += out.count;
        np->query(hull, standing, ground, X_ground, cache, out);
        points += out.count;
      }
    });
    INFO(name);
    CHECK(allocations == 0);
    CHECK(points >= 10 * (2 + 4 + 4 + 4));
  }
}
