// Unit tests of the geometry library's branchless hull supports
// (contactlab/geometry/branchless_hull_support.hpp) against the SDK's hull_support_vertex and
// hull_climb_vertex (contactlab/shapes.hpp): the climb's vertex is the SDK climb's for every start,
// the scan's a maximiser with its documented choice among ties.
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>
#include <contactlab/core/shape_library.hpp>
#include <contactlab/geometry/branchless_hull_support.hpp>
#include <contactlab/shapes.hpp>

#include "narrow_phase_test_support.hpp"

using contactlab::ConvexHull;
using contactlab::Vec3;
using contactlab::geometry::branchless_hull_climb;
using contactlab::geometry::branchless_hull_scan;

namespace {

/// Hulls of random points on and inside an ellipsoid, and of a 3×3×3 lattice (a cube whose faces
/// hold many vertices: axis-aligned directions tie).
std::vector<std::unique_ptr<contactlab::core::HullStorage>> test_hulls(std::mt19937_64& rng) {
  std::vector<std::unique_ptr<contactlab::core::HullStorage>> hulls;
  for (const int count : {12, 40, 300}) {
    std::vector<Vec3> points;
    for (int i = 0; i < count; ++i) {
      points.push_back(Vec3(1.0, 0.6, 0.3).cwiseProduct(contactlab::testing::random_unit(rng)));
    }
    hulls.push_back(contactlab::core::build_convex_hull(points));
  }
  std::vector<Vec3> lattice;
  for (int x = -1; x <= 1; ++x)
    for (int y = -1; y <= 1; ++y)
      for (int z = -1; z <= 1; ++z) lattice.push_back(Vec3(x, y, z));
  hulls.push_back(contactlab::core::build_convex_hull(lattice));
  return hulls;
}

/// Random directions and the axis-aligned and diagonal ones, where vertices tie.
std::vector<Vec3> test_directions(std::mt19937_64& rng) {
  std::vector<Vec3> directions;
  for (int i = 0; i < 200; ++i) directions.push_back(contactlab::testing::random_unit(rng));
  for (int k = 0; k < 3; ++k) {
    directions.push_back(Vec3::Unit(k));
    directions.push_back(-Vec3::Unit(k));
  }
  directions.push_back(Vec3(1.0, 1.0, 0.0));
  directions.push_back(Vec3(-1.0, 1.0, 1.0));
  return directions;
}

}  // namespace

TEST_CASE(
    "branchless_hull_climb: the same vertex as the SDK's hull_climb_vertex from every start "
    "vertex, ties included (exact)") {
  std::mt19937_64 rng(29);
  const auto hulls = test_hulls(rng);
  const auto directions = test_directions(rng);
  for (const auto& storage : hulls) {
    const ConvexHull& hull = storage->hull;
    REQUIRE(hull.neighbor_offsets != nullptr);
    for (const Vec3& d : directions) {
      for (std::uint32_t start = 0; start < hull.vertex_count; ++start) {
        INFO("hull of " << hull.vertex_count << " vertices, d " << d.transpose() << ", start "
                        << start);
        REQUIRE(branchless_hull_climb(hull, d, start, d.dot(hull.vertices[start])) ==
                contactlab::hull_climb_vertex(hull, d, start));
      }
    }
  }
}

TEST_CASE(
    "branchless_hull_scan: a vertex maximising d·x, the SDK scan's where the maximum is unique, "
    "and "
    "of tied vertices the first odd-numbered one before any even-numbered one but 0 (exact)") {
  std::mt19937_64 rng(30);
  const auto hulls = test_hulls(rng);
  const auto directions = test_directions(rng);
  int unique_maxima = 0, ties = 0;
  for (const auto& storage : hulls) {
    ConvexHull hull = storage->hull;
    hull.neighbor_offsets = nullptr;  // the SDK then scans whatever the size
    for (const Vec3& d : directions) {
      double best = d.dot(hull.vertices[0]);
      for (std::uint32_t i = 1; i < hull.vertex_count; ++i)
        best = std::max(best, d.dot(hull.vertices[i]));
      std::vector<std::uint32_t> maximisers;
      for (std::uint32_t i = 0; i < hull.vertex_count; ++i)
        if (d.dot(hull.vertices[i]) == best) maximisers.push_back(i);
      const std::uint32_t scanned = branchless_hull_scan(hull, d);
      INFO("hull of " << hull.vertex_count << " vertices, d " << d.transpose());
      REQUIRE(d.dot(hull.vertices[scanned]) == best);
      if (maximisers.size() == 1) {
        ++unique_maxima;
        REQUIRE(scanned == contactlab::hull_support_vertex(hull, d));
        continue;
      }
      ++ties;
      // The first maximiser of the odd-numbered vertices, and 0 counts in both chains.
      std::uint32_t expected = maximisers.front();
      if (expected != 0) {
        for (const std::uint32_t i : maximisers) {
          if (i % 2 == 1) {
            expected = i;
            break;
          }
        }
      }
      REQUIRE(scanned == expected);
    }
  }
  CHECK(unique_maxima > 0);
  CHECK(ties > 0);  // the lattice's axis directions
}
