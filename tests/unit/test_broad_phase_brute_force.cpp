// Unit tests of the brute-force broad phase (plugins/broadphase-brute-force).
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "broad_phase_oracle.hpp"
#include "brute_force_broad_phase.hpp"

using namespace contactlab::testing;  // box, inf, euclidean_gaps (broad_phase_oracle.hpp)

namespace {

BruteForceBroadPhase make_broad_phase(const std::vector<Aabb>& boxes) {
  BruteForceBroadPhase broad_phase{ParameterValues{}};
  for (std::uint32_t i = 0; i < boxes.size(); ++i) broad_phase.insert(i, boxes[i]);
  return broad_phase;
}

std::vector<ProxyPair> pairs_of(BruteForceBroadPhase& broad_phase) {
  std::vector<ProxyPair> pairs;
  broad_phase.collect_pairs(pairs);
  return pairs;
}

}  // namespace

TEST_CASE("brute_force: declares no parameters, is not incremental and reports box distances") {
  CHECK(BruteForceBroadPhase::schema().empty());
  BruteForceBroadPhase broad_phase{ParameterValues{}};
  CHECK_FALSE(broad_phase.capabilities().incremental);
  CHECK(broad_phase.capabilities().box_distance);
}

TEST_CASE("brute_force: reports overlapping pairs with a < b in lexicographic order") {
  // 0 and 2 overlap, 1 is far away, 3 overlaps 0 and 2.
  auto broad_phase =
      make_broad_phase({box({0, 0, 0}, {1, 1, 1}), box({5, 5, 5}, {6, 6, 6}),
                        box({0.5, 0.5, 0.5}, {2, 2, 2}), box({-1, -1, -1}, {0.7, 0.7, 0.7})});
  const std::vector<ProxyPair> expected = {{0, 2}, {0, 3}, {2, 3}};
  CHECK(pairs_of(broad_phase) == expected);
}

TEST_CASE(
    "brute_force: closed boxes — touching faces, edges and corners count, a 1e-12 m gap not") {
  const Aabb unit = box({0, 0, 0}, {1, 1, 1});
  SECTION("face contact") {
    auto broad_phase = make_broad_phase({unit, box({1, 0.2, 0.2}, {2, 0.8, 0.8})});
    CHECK(pairs_of(broad_phase) == std::vector<ProxyPair>{{0, 1}});
  }
  SECTION("corner contact") {
    auto broad_phase = make_broad_phase({unit, box({1, 1, 1}, {2, 2, 2})});
    CHECK(pairs_of(broad_phase) == std::vector<ProxyPair>{{0, 1}});
  }
  SECTION("degenerate (point) box on a face") {
    auto broad_phase = make_broad_phase({unit, box({0.5, 0.5, 1}, {0.5, 0.5, 1})});
    CHECK(pairs_of(broad_phase) == std::vector<ProxyPair>{{0, 1}});
  }
  SECTION("gap of 1e-12 m along one axis only") {
    auto broad_phase = make_broad_phase({unit, box({1 + 1e-12, 0, 0}, {2, 1, 1})});
    CHECK(pairs_of(broad_phase).empty());
  }
}

TEST_CASE("brute_force: infinite boxes of unbounded shapes overlap exactly what they should") {
  // A floor half-space z ≤ 0, an all-space box, a box resting on the floor, a box above it.
  auto broad_phase = make_broad_phase({box({-inf, -inf, -inf}, {inf, inf, 0}),
                                       box({-inf, -inf, -inf}, {inf, inf, inf}),
                                       box({3, 4, 0}, {4, 5, 1}), box({3, 4, 1e-9}, {4, 5, 1})});
  const std::vector<ProxyPair> expected = {{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}};
  CHECK(pairs_of(broad_phase) == expected);
}

TEST_CASE("brute_force: two floors (infinite in x and y) overlap each other") {
  auto broad_phase = make_broad_phase(
      {box({-inf, -inf, -inf}, {inf, inf, 0}), box({-inf, -inf, -2}, {inf, inf, 5})});
  CHECK(pairs_of(broad_phase) == std::vector<ProxyPair>{{0, 1}});
}

TEST_CASE("brute_force: insert and remove change the pair set, removed ids can be reused") {
  auto broad_phase = make_broad_phase({box({0, 0, 0}, {1, 1, 1}), box({5, 5, 5}, {6, 6, 6})});
  broad_phase.insert(7, box({0.5, 0.5, 0.5}, {0.6, 0.6, 0.6}));  // sparse id, overlaps 0
  CHECK(pairs_of(broad_phase) == std::vector<ProxyPair>{{0, 7}});
  broad_phase.remove(0);
  CHECK(pairs_of(broad_phase).empty());
  broad_phase.insert(0, box({5.5, 5.5, 5.5}, {7, 7, 7}));  // reused id, now overlaps 1
  CHECK(pairs_of(broad_phase) == std::vector<ProxyPair>{{0, 1}});
}

TEST_CASE("brute_force: unknown or duplicate ids throw contactlab::Error") {
  auto broad_phase = make_broad_phase({box({0, 0, 0}, {1, 1, 1})});
  CHECK_THROWS_AS(broad_phase.set_box(1, Aabb{}), contactlab::Error);
  CHECK_THROWS_AS(broad_phase.remove(3), contactlab::Error);
  CHECK_THROWS_AS(broad_phase.insert(0, Aabb{}), contactlab::Error);
  broad_phase.remove(0);
  CHECK_THROWS_AS(broad_phase.set_box(0, Aabb{}), contactlab::Error);
}

TEST_CASE("brute_force: box_distance is the Euclidean gap between boxes, 0 when they overlap") {
  BruteForceBroadPhase broad_phase{ParameterValues{}};
  CHECK(broad_phase.capabilities().box_distance);
  euclidean_gaps(broad_phase);
}

TEST_CASE("brute_force: collect_pairs replaces the contents and does not reallocate once grown") {
  auto broad_phase = make_broad_phase(
      {box({0, 0, 0}, {1, 1, 1}), box({0, 0, 0}, {1, 1, 1}), box({0, 0, 0}, {1, 1, 1})});
  std::vector<ProxyPair> pairs = {{7, 8}, {9, 10}, {11, 12}, {13, 14}};
  broad_phase.collect_pairs(pairs);
  const std::vector<ProxyPair> expected = {{0, 1}, {0, 2}, {1, 2}};
  CHECK(pairs == expected);
  const ProxyPair* storage = pairs.data();
  const std::size_t capacity = pairs.capacity();
  for (int i = 0; i < 10; ++i) broad_phase.collect_pairs(pairs);
  CHECK(pairs == expected);
  CHECK(pairs.data() == storage);
  CHECK(pairs.capacity() == capacity);
}

TEST_CASE("brute_force: equals an independent per-axis interval test on 300 seeded random boxes") {
  std::mt19937_64 rng(20250101);
  std::uniform_real_distribution<double> centre(-10.0, 10.0);
  std::uniform_real_distribution<double> half(0.0, 1.5);
  std::vector<Aabb> boxes;
  for (int i = 0; i < 300; ++i) {
    const Vec3 c(centre(rng), centre(rng), centre(rng));
    const Vec3 h(half(rng), half(rng), half(rng));
    boxes.push_back(box(c - h, c + h));
  }
  // A few snapped to a grid so that exact touching occurs.
  for (int i = 0; i < 40; ++i) {
    const Vec3 c(std::round(centre(rng)), std::round(centre(rng)), std::round(centre(rng)));
    boxes.push_back(box(c, c + Vec3(1, 1, 1)));
  }
  std::vector<ProxyPair> expected;
  for (std::uint32_t a = 0; a < boxes.size(); ++a) {
    for (std::uint32_t b = a + 1; b < boxes.size(); ++b) {
      bool overlap = true;
      for (int k = 0; k < 3; ++k) {
        overlap = overlap && !(boxes[a].max_W[k] < boxes[b].min_W[k]) &&
                  !(boxes[b].max_W[k] < boxes[a].min_W[k]);
      }
      if (overlap) expected.push_back({a, b});
    }
  }
  auto broad_phase = make_broad_phase(boxes);
  const std::vector<ProxyPair> pairs = pairs_of(broad_phase);
  REQUIRE(expected.size() > 50);
  CHECK(pairs == expected);
}
