// Narrow-phase conformance: every NarrowPhase a plugin library declares, created through the
// plugin registry (dlopen, as users get it), must keep the contract of narrow_phase.hpp and
// contact.hpp on seeded random poses whose answer is known by construction
// (tools/bench/narrow_phase_poses.hpp, the benchmark's: B is placed so that its support point
// along −n lies at A's support point along n plus s·n, so a pose with s > 0 is separated by
// exactly s along n, and one with s < 0 is separated by translating B by −s·n).
//
// The shapes are one of every ShapeType (a pointed cone and a frustum), the box, cylinder,
// frustum and beam once more with a smoothing radius, and three convex hulls from
// core::build_convex_hull: a cube (coplanar triangles), 12 and 64 points on a sphere (scanned and
// climbed supports). Every ordered pair of them that supports() declares is checked, on random
// poses and on face poses (B's vertex over a face of A) where A has faces, separated and
// overlapping, and along closed paths for the warm starts. Two half-spaces are never a pair
// (they sit on fixed bodies, which never meet); a half-space as B is posed as A and swapped.
//
// The contract, and the tolerances (every shape is about 1 m across); the checks marked (each)
// run twice, on the separated poses and on the overlapping ones, as the contract of a distance
// and that of a penetration, so that a plugin known to fail one is still held to the other:
//   - supports(a, b) == supports(b, a) for all 81 ordered type pairs, and some pair is declared;
//   - every declared pair is answered: 1 to 4 finite manifold points, the deepest first, unit
//     normals (|‖n‖ − 1| ≤ 1e-12) and witnesses with p_b − p_a = d·n (1e-9 m) at every point;
//   - separated: d = s (1e-7 m) and n = the construction's n (1e-3 rad: the distance is
//     stationary in n, so an algorithm that converged in distance may lag in n);
//   - overlapping: d ≥ s − 1e-7 m, no deeper than a translation known to separate the pair (the
//     depth is the shortest separating translation);
//   - (each) the deepest witnesses lie on the boundaries: p_a in A's supporting plane along n and
//     p_b in B's along −n (1e-7 m; a half-space's on its plane), so that d is the separation of A
//     and B along n, and each on its shape, not outside it (1e-6 m; the distance outside is
//     computed per ShapeType, a lower bound for the ellipsoid and the hull);
//   - (each) swapping A and B gives the same distance (1e-7 m), the negated normal (1e-3 rad) and
//     witnesses on the boundaries (which makes them the swapped ones wherever they are unique);
//   - (each) translating B by −d·n makes the pair touch: |d| ≤ 1e-6 m after the move;
//   - (each) warm answer = cold answer: the pose asked again from the cache its first query left,
//     and along closed paths of poses, one cache a path: the distance and normal within the
//     tolerances of the swap (a warm start may end elsewhere within the algorithm's tolerance),
//     the witnesses on the boundaries;
//   - no heap allocation per query, cold or warm (after one warm-up pass over the poses);
//   - deterministic: a pose asked twice cold, and on another instance, gives the same bits.
// Where the documentation is silent the suite chose: the tolerances above; that the contract
// holds for every manifold point (contact.hpp states it for ContactGeometry, which each point
// is); that depth means the shortest separating translation; that swapped and warm answers are
// compared in what is unique about them (d and n), their witnesses held to the contract;
// determinism (the README promises same input, same bits); and the half-space exclusion.
//
// Usage: contactlab-conformance-narrow-phase [options] [LIBRARY.so ...] (see
// conformance_support.hpp; --quick asks a third of the poses); fixtures/mutant_narrow_phases.cpp
// holds the defects it must catch.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "conformance_support.hpp"
#include "contactlab/core/shape_library.hpp"
#include "contactlab/narrow_phase.hpp"
#include "narrow_phase_poses.hpp"

namespace {

using namespace contactlab;
using conformance::fail;
using conformance::number;
using conformance::vector_text;

constexpr double kUnitNormalTolerance = 1e-12;
constexpr double kWitnessTolerance_m = 1e-9;
constexpr double kDistanceTolerance_m = 1e-7;
constexpr double kNormalTolerance_rad = 1e-3;
constexpr double kPlaneTolerance_m = 1e-7;
constexpr double kTouchTolerance_m = 1e-6;
constexpr double kOutsideTolerance_m = 1e-6;

struct NamedShape {
  std::string name;
  Shape shape;
};

/// One pose of one ordered pair, with what the construction knows about it.
struct Case {
  const NamedShape* a = nullptr;
  const NamedShape* b = nullptr;
  Pose X_WA, X_WB;
  double s_m = 0.0;  ///< > 0: the exact distance; < 0: the pair separates after −s along n
  Vec3 n_W = Vec3::UnitZ();
  std::string label;  ///< pair, kind and index, for messages
};

/// Closed paths of poses of one pair: step k of every path, path by path.
struct Paths {
  const NamedShape* a = nullptr;
  const NamedShape* b = nullptr;
  std::vector<bench::PosePair> poses;
  std::size_t paths = 0;
};

struct Catalogue {
  std::vector<std::unique_ptr<core::HullStorage>> hulls;
  std::vector<NamedShape> shapes;
  std::vector<Case> cases;    ///< every ordered pair but half-space–half-space
  std::vector<Paths> moving;  ///< the same pairs
};

bool has_faces(const Shape& shape) {
  return shape.type == ShapeType::box || shape.type == ShapeType::cylinder ||
         shape.type == ShapeType::convex_hull || shape.type == ShapeType::half_space;
}

const Catalogue& catalogue() {
  static const Catalogue built = [] {
    Catalogue c;
    std::vector<Vec3> cube;
    for (int i = 0; i < 8; ++i)
      cube.emplace_back(i & 1 ? 0.3 : -0.3, i & 2 ? 0.3 : -0.3, i & 4 ? 0.3 : -0.3);
    c.hulls.push_back(core::build_convex_hull(cube));
    c.hulls.push_back(bench::sphere_point_hull(12, 2001));
    c.hulls.push_back(bench::sphere_point_hull(64, 2002));
    auto smoothed = [](Shape shape, double radius_m) {
      shape.smoothing_radius_m = radius_m;
      return shape;
    };
    const Shape box = Shape::box(Vec3(0.5, 0.35, 0.25));
    const Shape cylinder = Shape::cylinder(0.3, 1.0);
    const Shape frustum = Shape::cone(0.4, 0.2, 1.0);
    const Shape beam = Shape::beam(1.0, 0.3, 0.1);
    c.shapes = {
        {"sphere", Shape::sphere(0.5)},
        {"box", box},
        {"smoothed_box", smoothed(box, 0.02)},
        {"half_space", Shape::half_space(Vec3::UnitZ())},
        {"ellipsoid", Shape::ellipsoid(Vec3(0.5, 0.3, 0.2))},
        {"cylinder", cylinder},
        {"smoothed_cylinder", smoothed(cylinder, 0.02)},
        {"cone", Shape::cone(0.4, 0.0, 1.0)},
        {"frustum", frustum},
        {"smoothed_frustum", smoothed(frustum, 0.02)},
        {"capsule", Shape::capsule(0.2, 0.6)},
        {"beam", beam},
        {"smoothed_beam", smoothed(beam, 0.005)},
        {"hull_cube", Shape::convex_hull(&c.hulls[0]->hull)},
        {"hull12", Shape::convex_hull(&c.hulls[1]->hull)},
        {"hull64", Shape::convex_hull(&c.hulls[2]->hull)},
    };
    std::uint64_t seed = 4241;
    for (const NamedShape& a : c.shapes) {
      for (const NamedShape& b : c.shapes) {
        const bool a_plane = a.shape.type == ShapeType::half_space;
        const bool b_plane = b.shape.type == ShapeType::half_space;
        if (a_plane && b_plane) continue;
        // A half-space as B: posed as A, then A and B (and n) swapped.
        const NamedShape& first = b_plane ? b : a;
        const NamedShape& second = b_plane ? a : b;
        const std::string pair = a.name + "-" + b.name;
        auto add = [&](const char* kind, bool overlapping, bool faces, std::size_t count) {
          bench::PoseSpec spec;
          spec.faces = faces;
          const auto poses =
              bench::make_poses(first.shape, second.shape, overlapping, spec, count, 0, ++seed);
          for (std::size_t i = 0; i < poses.size(); ++i) {
            const bench::PosePair& p = poses[i];
            Case k{&a,
                   &b,
                   p.X_WA,
                   p.X_WB,
                   p.s_m,
                   p.n_W,
                   pair + " " + kind + " pose " + std::to_string(i)};
            if (b_plane) {
              std::swap(k.X_WA, k.X_WB);
              k.n_W = -k.n_W;
            }
            c.cases.push_back(k);
          }
        };
        const std::size_t count = conformance::quick() ? 4 : 12;
        add("separated", false, false, count);
        add("overlapping", true, false, count);
        if (has_faces(first.shape)) {
          add("face separated", false, true, count / 2);
          add("face overlapping", true, true, count / 2);
        }
        Paths paths{&a, &b, {}, conformance::quick() ? 1u : 3u};
        const std::uint64_t path_seed = ++seed;
        paths.poses = bench::make_poses(first.shape, second.shape, (path_seed & 1) != 0,
                                        bench::PoseSpec{}, paths.paths, 8, path_seed);
        if (b_plane)
          for (bench::PosePair& p : paths.poses) std::swap(p.X_WA, p.X_WB);
        c.moving.push_back(std::move(paths));
      }
    }
    return c;
  }();
  return built;
}

// ---------------------------------------------------------------------------------------------
// How far a point lies outside a shape: the witnesses must lie on the shapes' boundaries.

/// Distance from (ρ, z), ρ ≥ 0, to the trapezoid of a frustum's half section: bottom radius
/// `base` at z = −h, top radius `top` at z = +h; 0 inside.
double outside_trapezoid(double rho, double z, double base, double top, double h) {
  const std::array<std::array<double, 2>, 4> corners = {
      {{0.0, -h}, {base, -h}, {top, h}, {0.0, h}}};
  bool inside = true;
  double nearest = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 4; ++i) {
    const auto& p = corners[i];
    const auto& q = corners[(i + 1) % 4];
    const double ex = q[0] - p[0], ez = q[1] - p[1];
    // Counter-clockwise corners: the interior is to the left of each edge.
    if (ex * (z - p[1]) - ez * (rho - p[0]) < 0.0) inside = false;
    const double length2 = ex * ex + ez * ez;
    const double t =
        length2 > 0.0 ? std::clamp(((rho - p[0]) * ex + (z - p[1]) * ez) / length2, 0.0, 1.0) : 0.0;
    nearest = std::min(nearest, std::hypot(rho - p[0] - t * ex, z - p[1] - t * ez));
  }
  return inside ? 0.0 : nearest;
}

/// A lower bound of how far p_W lies outside the posed shape (0 or less: inside or on it): exact
/// for every shape but the ellipsoid and the hull, whose bound is a level-set or face-plane value.
double outside_m(const Shape& shape, const Pose& X_WG, const Vec3& p_W) {
  const Vec3 p = X_WG.R.transpose() * (p_W - X_WG.p);
  const double r = shape.smoothing_radius_m;
  const double rho = std::hypot(p.x(), p.y());
  switch (shape.type) {
    case ShapeType::sphere:
      return p.norm() - shape.radius_m;
    case ShapeType::box:
      return (p.cwiseAbs() - (shape.half_extents_m - Vec3::Constant(r))).cwiseMax(0.0).norm() - r;
    case ShapeType::half_space:
      return shape.normal.dot(p);
    case ShapeType::ellipsoid: {
      const Vec3 a = shape.half_extents_m - Vec3::Constant(r);
      return (p.cwiseQuotient(a).norm() - 1.0) * a.minCoeff() - r;
    }
    case ShapeType::cylinder:
      return std::hypot(std::max(0.0, rho - (shape.radius_m - r)),
                        std::max(0.0, std::abs(p.z()) - (shape.half_length_m - r))) -
             r;
    case ShapeType::cone:
      return outside_trapezoid(rho, p.z(), std::max(0.0, shape.radius_m - r),
                               std::max(0.0, shape.top_radius_m - r), shape.half_length_m - r) -
             r;
    case ShapeType::capsule:
      return std::hypot(rho, std::max(0.0, std::abs(p.z()) - shape.half_length_m)) - shape.radius_m;
    case ShapeType::beam: {
      const Vec3 h = shape.half_extents_m - Vec3::Constant(r);
      const double segment = shape.half_extents_m.x() - shape.half_extents_m.y();
      const double planar = std::hypot(std::max(0.0, std::abs(p.x()) - segment), p.y()) - h.y();
      return std::hypot(std::max(0.0, planar), std::max(0.0, std::abs(p.z()) - h.z())) - r;
    }
    case ShapeType::convex_hull: {
      double worst = -std::numeric_limits<double>::infinity();
      for (std::uint32_t k = 0; k < shape.hull->face_count; ++k)
        worst = std::max(worst, shape.hull->face_normals[k].dot(p) - shape.hull->face_offsets[k]);
      return worst;
    }
  }
  return 0.0;
}

// ---------------------------------------------------------------------------------------------
// Queries and what is compared.

double angle_rad(const Vec3& u, const Vec3& v) {
  return std::atan2(u.cross(v).norm(), u.dot(v));
}

std::string describe(const ContactGeometry& g) {
  return "d = " + number(g.distance_m) + " m, n = " + vector_text(g.normal_W) +
         ", p_a = " + vector_text(g.point_a_W) + ", p_b = " + vector_text(g.point_b_W);
}

std::string describe_pose(const Case& k) {
  const Eigen::Quaterniond q_a(k.X_WA.R), q_b(k.X_WB.R);
  return "\n    X_WA: p = " + vector_text(k.X_WA.p) + ", q_wxyz = (" + number(q_a.w()) + ", " +
         number(q_a.x()) + ", " + number(q_a.y()) + ", " + number(q_a.z()) +
         ")\n    X_WB: p = " + vector_text(k.X_WB.p) + ", q_wxyz = (" + number(q_b.w()) + ", " +
         number(q_b.x()) + ", " + number(q_b.y()) + ", " + number(q_b.z()) + ")";
}

[[noreturn]] void fail_case(const Case& k, const std::string& what) {
  fail(k.label + ": " + what + describe_pose(k));
}

/// One query; a throw or a malformed manifold fails with the case named.
ContactManifold query(NarrowPhase& np, const Case& k, const Pose& X_WB, NarrowPhaseCache& cache,
                      bool swapped = false) {
  ContactManifold out;
  try {
    if (swapped) {
      np.query(k.b->shape, X_WB, k.a->shape, k.X_WA, cache, out);
    } else {
      np.query(k.a->shape, k.X_WA, k.b->shape, X_WB, cache, out);
    }
  } catch (const std::exception& e) {
    fail_case(k, std::string(swapped ? "(A and B swapped) " : "") + "query threw: " + e.what());
  }
  if (out.count < 1 || out.count > max_manifold_points)
    fail_case(k, "manifold count " + std::to_string(out.count) + " (must be 1 to 4)");
  for (int i = 0; i < out.count; ++i) {
    const ContactGeometry& g = out.points[i];
    const bool finite = std::isfinite(g.distance_m) && g.normal_W.allFinite() &&
                        g.point_a_W.allFinite() && g.point_b_W.allFinite();
    if (!finite)
      fail_case(k, "manifold point " + std::to_string(i) + " not finite: " + describe(g));
  }
  return out;
}

ContactManifold cold(NarrowPhase& np, const Case& k, bool swapped = false) {
  NarrowPhaseCache cache;
  return query(np, k, k.X_WB, cache, swapped);
}

using Supported = std::array<bool, shape_type_count * shape_type_count>;

Supported declared_pairs(const NarrowPhase& np) {
  Supported out{};
  for (int a = 0; a < shape_type_count; ++a)
    for (int b = 0; b < shape_type_count; ++b)
      out[a * shape_type_count + b] =
          np.supports(static_cast<ShapeType>(a), static_cast<ShapeType>(b));
  return out;
}

bool declared(const Supported& table, const Case& k) {
  return table[static_cast<int>(k.a->shape.type) * shape_type_count +
               static_cast<int>(k.b->shape.type)];
}

/// Which poses a check runs on: the contract of a separated pair (a distance) and that of an
/// overlapping one (a penetration) are checked apart, so that a plugin known to fail one is still
/// held to the other.
enum class Poses { all, separated, overlapping };

const char* poses_name(Poses poses) {
  return poses == Poses::separated ? "separated" : poses == Poses::overlapping ? "overlapping" : "";
}

bool selected(Poses poses, double s_m) {
  return poses == Poses::all || (poses == Poses::separated) == (s_m > 0.0);
}

/// Runs `check` on every case of a declared pair among `poses`; the summary counts them.
template <class Check>
std::string for_each_case(NarrowPhase& np, Poses poses, Check&& check) {
  const Supported table = declared_pairs(np);
  std::size_t count = 0, pairs = 0;
  const Case* last = nullptr;
  for (const Case& k : catalogue().cases) {
    if (!declared(table, k) || !selected(poses, k.s_m)) continue;
    if (last == nullptr || k.a != last->a || k.b != last->b) ++pairs;
    last = &k;
    check(k);
    ++count;
  }
  return std::to_string(count) + " " + poses_name(poses) + (poses == Poses::all ? "" : " ") +
         "poses of " + std::to_string(pairs) + " ordered shape pairs";
}

/// The deepest point's witnesses are where the contract puts them: p_a on A's supporting plane
/// along n and p_b on B's along −n (so that d is the separation of A and B along n), and each on
/// its shape (not outside it): on the boundaries. With A and B `swapped`, the answer is B's and
/// A's.
void expect_valid_witnesses(const Case& k, const ContactGeometry& g, const std::string& what,
                            bool swapped = false) {
  const Shape& a = swapped ? k.b->shape : k.a->shape;
  const Shape& b = swapped ? k.a->shape : k.b->shape;
  const Pose& X_WA = swapped ? k.X_WB : k.X_WA;
  const Pose& X_WB = swapped ? k.X_WA : k.X_WB;
  auto off_plane = [](const Shape& shape, const Pose& X_WG, const Vec3& point_W, const Vec3& n_W) {
    if (shape.type == ShapeType::half_space) return (X_WG.R * shape.normal).dot(point_W - X_WG.p);
    return n_W.dot(point_W - support_W(shape, X_WG, n_W));
  };
  const double plane_a = off_plane(a, X_WA, g.point_a_W, g.normal_W);
  const double plane_b = off_plane(b, X_WB, g.point_b_W, -g.normal_W);
  const double out_a = outside_m(a, X_WA, g.point_a_W);
  const double out_b = outside_m(b, X_WB, g.point_b_W);
  if (std::abs(plane_a) > kPlaneTolerance_m || std::abs(plane_b) > kPlaneTolerance_m ||
      out_a > kOutsideTolerance_m || out_b > kOutsideTolerance_m)
    fail_case(k, what + describe(g) + "\n    p_a is " + number(plane_a) +
                     " m off A's supporting plane along n and " + number(std::max(0.0, out_a)) +
                     " m outside A; p_b " + number(plane_b) +
                     " m off B's supporting plane along −n and " + number(std::max(0.0, out_b)) +
                     " m outside B" + (swapped ? " (A and B swapped)" : ""));
}

/// Two answers agree in what is unique about them: the distance and the normal.
void expect_same(const Case& k, const ContactGeometry& expected, const ContactGeometry& got,
                 const std::string& what) {
  if (std::abs(got.distance_m - expected.distance_m) > kDistanceTolerance_m ||
      angle_rad(got.normal_W, expected.normal_W) > kNormalTolerance_rad)
    fail_case(k, what + ": " + describe(got) + "\n    expected " + describe(expected));
}

// ---------------------------------------------------------------------------------------------
// The checks.

std::string symmetric_supports(NarrowPhase& np) {
  const Supported table = declared_pairs(np);
  int count = 0;
  for (int a = 0; a < shape_type_count; ++a) {
    for (int b = 0; b < shape_type_count; ++b) {
      const bool ab = table[a * shape_type_count + b], ba = table[b * shape_type_count + a];
      count += ab;
      if (ab != ba)
        fail(std::string("supports(") + shape_type_name(static_cast<ShapeType>(a)) + ", " +
             shape_type_name(static_cast<ShapeType>(b)) + ") is " + (ab ? "true" : "false") +
             " but the swapped order is " + (ba ? "true" : "false"));
    }
  }
  if (count == 0) fail("supports() is false for every shape pair");
  return std::to_string(count) + " of 81 ordered type pairs declared";
}

std::string manifold_points(NarrowPhase& np, Poses poses) {
  return for_each_case(np, poses, [&](const Case& k) {
    const ContactManifold m = cold(np, k);
    for (int i = 0; i < m.count; ++i) {
      const ContactGeometry& g = m.points[i];
      const std::string point = "manifold point " + std::to_string(i) + ": ";
      if (std::abs(g.normal_W.norm() - 1.0) > kUnitNormalTolerance)
        fail_case(k, point + "|n| − 1 = " + number(g.normal_W.norm() - 1.0) + ", " + describe(g));
      const double witness_error = (g.point_b_W - g.point_a_W - g.distance_m * g.normal_W).norm();
      if (witness_error > kWitnessTolerance_m)
        fail_case(k, point + "|p_b − p_a − d·n| = " + number(witness_error) + " m, " + describe(g));
      if (g.distance_m < m.points[0].distance_m)
        fail_case(k, point + "deeper than the first point (" + number(g.distance_m) + " < " +
                         number(m.points[0].distance_m) + " m): the deepest must come first");
    }
  });
}

std::string known_answers(NarrowPhase& np, Poses poses) {
  return for_each_case(np, poses, [&](const Case& k) {
    const ContactGeometry g = cold(np, k).deepest();
    if (k.s_m > 0.0) {
      if (std::abs(g.distance_m - k.s_m) > kDistanceTolerance_m ||
          angle_rad(g.normal_W, k.n_W) > kNormalTolerance_rad)
        fail_case(k, describe(g) + "\n    expected d = " + number(k.s_m) +
                         " m, n = " + vector_text(k.n_W) + " (separated by construction)");
    } else if (g.distance_m < k.s_m - kDistanceTolerance_m) {
      fail_case(k, describe(g) + "\n    deeper than " + number(-k.s_m) +
                       " m, a translation of B along " + vector_text(k.n_W) +
                       " that separates the pair");
    }
  });
}

std::string witnesses_on_boundaries(NarrowPhase& np, Poses poses) {
  return for_each_case(
      np, poses, [&](const Case& k) { expect_valid_witnesses(k, cold(np, k).deepest(), ""); });
}

std::string swapped(NarrowPhase& np, Poses poses) {
  return for_each_case(np, poses, [&](const Case& k) {
    const ContactGeometry g = cold(np, k).deepest();
    const ContactGeometry s = cold(np, k, true).deepest();
    ContactGeometry expected = g;
    expected.normal_W = -g.normal_W;
    std::swap(expected.point_a_W, expected.point_b_W);
    expect_same(k, expected, s, "with A and B swapped");
    expect_valid_witnesses(k, s, "with A and B swapped: ", true);
  });
}

std::string translated_touch(NarrowPhase& np, Poses poses) {
  return for_each_case(np, poses, [&](const Case& k) {
    const ContactGeometry g = cold(np, k).deepest();
    Pose X_WB = k.X_WB;
    X_WB.p -= g.distance_m * g.normal_W;
    NarrowPhaseCache cache;
    const ContactGeometry t = query(np, k, X_WB, cache).deepest();
    if (std::abs(t.distance_m) > kTouchTolerance_m)
      fail_case(k, describe(g) + "\n    B moved by −d·n: " + describe(t) + " (must touch)");
  });
}

std::string warm_equals_cold(NarrowPhase& np, Poses poses) {
  return for_each_case(np, poses, [&](const Case& k) {
    NarrowPhaseCache cache;
    const ContactGeometry first = query(np, k, k.X_WB, cache).deepest();
    const ContactGeometry warm = query(np, k, k.X_WB, cache).deepest();
    expect_same(k, first, warm, "asked again from its cache");
    expect_valid_witnesses(k, warm, "asked again from its cache: ");
  });
}

std::string moving_paths(NarrowPhase& np, Poses poses) {
  const Supported table = declared_pairs(np);
  std::size_t count = 0;
  for (const Paths& paths : catalogue().moving) {
    Case k{paths.a, paths.b, {}, {}, 0.0, Vec3::UnitZ(), {}};
    if (!declared(table, k) || !selected(poses, paths.poses.front().s_m)) continue;
    std::vector<NarrowPhaseCache> caches(paths.paths);
    for (std::size_t i = 0; i < paths.poses.size(); ++i) {
      k.X_WA = paths.poses[i].X_WA;
      k.X_WB = paths.poses[i].X_WB;
      k.label = paths.a->name + "-" + paths.b->name + " path " + std::to_string(i % paths.paths) +
                " step " + std::to_string(i / paths.paths);
      const ContactGeometry warm = query(np, k, k.X_WB, caches[i % paths.paths]).deepest();
      expect_same(k, cold(np, k).deepest(), warm, "warm along its path");
      expect_valid_witnesses(k, warm, "warm along its path: ");
      ++count;
    }
  }
  return std::to_string(count) + " steps of " + poses_name(poses) + " paths";
}

std::string no_allocation(NarrowPhase& np, Poses poses) {
  if (!conformance::allocations_countable())
    return "skipped: this build cannot count allocations (sanitizer)";
  const Supported table = declared_pairs(np);
  std::vector<const Case*> cases;
  for (const Case& k : catalogue().cases)
    if (declared(table, k) && selected(poses, k.s_m)) cases.push_back(&k);
  std::vector<NarrowPhaseCache> caches(cases.size());
  std::vector<ContactManifold> out(cases.size());
  auto pass = [&](bool counted) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Case& k = *cases[i];
      NarrowPhaseCache cold_cache;
      if (counted) conformance::begin_counting_allocations();
      np.query(k.a->shape, k.X_WA, k.b->shape, k.X_WB, cold_cache, out[i]);
      np.query(k.a->shape, k.X_WA, k.b->shape, k.X_WB, caches[i], out[i]);
      if (counted) {
        const long allocations = conformance::end_counting_allocations();
        if (allocations != 0)
          fail_case(k,
                    std::to_string(allocations) + " heap allocations in a cold and a warm query");
      }
    }
  };
  pass(false);
  pass(true);
  return std::to_string(cases.size()) + " poses, cold and warm";
}

std::string deterministic(NarrowPhase& first, NarrowPhase& second, Poses poses) {
  return for_each_case(first, poses, [&](const Case& k) {
    const ContactManifold a = cold(first, k), b = cold(first, k), c = cold(second, k);
    auto same = [](const ContactManifold& x, const ContactManifold& y) {
      return x.count == y.count &&
             std::memcmp(x.points.data(), y.points.data(), sizeof(ContactGeometry) * x.count) == 0;
    };
    if (!same(a, b))
      fail_case(k,
                "asked twice cold: " + describe(a.deepest()) + ", then " + describe(b.deepest()));
    if (!same(a, c))
      fail_case(k,
                "another instance: " + describe(a.deepest()) + ", then " + describe(c.deepest()));
  });
}

using CaseCheck = std::string (*)(NarrowPhase&, Poses);

/// A check of one instance on `poses`.
conformance::Check<NarrowPhase> check(const char* id, Poses poses, const std::string& name,
                                      CaseCheck run) {
  const std::string prefix = poses == Poses::all ? "" : std::string(poses_name(poses)) + "-";
  const std::string label = poses == Poses::all ? "" : std::string(poses_name(poses)) + " poses: ";
  return {prefix + id, label + name, [run, poses](const conformance::Factory<NarrowPhase>& make) {
            return run(*make(), poses);
          }};
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<conformance::Check<NarrowPhase>> checks = {
      {"supports", "supports() is symmetric",
       [](const conformance::Factory<NarrowPhase>& make) { return symmetric_supports(*make()); }},
      check("manifold", Poses::all,
            "every declared pair answered: finite points, unit normals, witness identity 1e-9 m, "
            "deepest first",
            manifold_points),
      check("distance", Poses::separated, "d = s (1e-7 m), n = the construction's (1e-3 rad)",
            known_answers),
      check("depth", Poses::overlapping, "no deeper than a translation known to separate (1e-7 m)",
            known_answers)};
  for (const Poses poses : {Poses::separated, Poses::overlapping}) {
    checks.push_back(check("witnesses", poses,
                           "the deepest witnesses lie on the boundaries: in the supporting planes "
                           "along ±n (1e-7 m), on their shapes (1e-6 m)",
                           witnesses_on_boundaries));
    checks.push_back(check("swap", poses,
                           "swapping A and B: same distance (1e-7 m), negated normal (1e-3 rad), "
                           "witnesses on the boundaries",
                           swapped));
    checks.push_back(
        check("touch", poses, "translating B by −d·n touches (|d| ≤ 1e-6 m)", translated_touch));
    checks.push_back(
        check("warm", poses, "warm answer = cold answer on a pose asked again", warm_equals_cold));
    checks.push_back(
        check("paths", poses, "warm answer = cold answer along closed paths", moving_paths));
  }
  checks.push_back(check("allocation", Poses::all, "no allocation per query", no_allocation));
  checks.push_back({"determinism",
                    "deterministic: the same bits twice cold and on another instance",
                    [](const conformance::Factory<NarrowPhase>& make) {
                      const std::shared_ptr<NarrowPhase> first = make(), second = make();
                      return deterministic(*first, *second, Poses::all);
                    }});
  return conformance::run_suite(argc, argv, checks);
}
