// Unit tests of the hierarchical hash grid broad phase (plugins/broadphase-hash-grid): its pair set
// equals the brute-force broad phase's after every update of seeded random scenes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "broad_phase_oracle.hpp"
#include "hash_grid_broad_phase.hpp"

using contactlab::Aabb;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::ProxyId;
using contactlab::ProxyPair;
using contactlab::Vec3;
using contactlab::plugins::BruteForceBroadPhase;
using namespace contactlab::testing;  // box, Body, random_bodies, ... (broad_phase_oracle.hpp)
using Checked = contactlab::testing::OracleChecked<contactlab::plugins::HashGridBroadPhase>;
using contactlab::plugins::HashGridBroadPhase;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

HashGridBroadPhase make_grid(double cell_size_m, std::int64_t levels = 24) {
  return HashGridBroadPhase(ParameterValues::defaults(
      HashGridBroadPhase::schema(),
      {{"cell_size_m", ParameterValue{cell_size_m}}, {"levels", ParameterValue{levels}}}));
}

}  // namespace

TEST_CASE("hash_grid: declares cell_size_m and levels, is incremental, reports box distances") {
  const auto schema = HashGridBroadPhase::schema();
  REQUIRE(schema.size() == 2);
  CHECK(schema[0].name == "cell_size_m");
  CHECK(schema[0].unit == "m");
  CHECK(schema[1].name == "levels");
  const HashGridBroadPhase grid{ParameterValues{}};
  CHECK(grid.capabilities().incremental);
  CHECK(grid.capabilities().box_distance);
}

TEST_CASE("hash_grid: out-of-range parameters and unknown, duplicate or too large ids throw") {
  CHECK_THROWS_AS(make_grid(0.0), contactlab::InputError);
  CHECK_THROWS_AS(make_grid(inf), contactlab::InputError);
  CHECK_THROWS_AS(make_grid(1.0, 0), contactlab::InputError);
  CHECK_THROWS_AS(make_grid(1.0, HashGridBroadPhase::max_levels + 1), contactlab::InputError);

  HashGridBroadPhase grid = make_grid(1.0);
  grid.insert(0, box({0, 0, 0}, {1, 1, 1}));
  CHECK_THROWS_AS(grid.insert(0, Aabb{}), contactlab::Error);
  CHECK_THROWS_AS(grid.set_box(1, Aabb{}), contactlab::Error);
  CHECK_THROWS_AS(grid.remove(3), contactlab::Error);
  CHECK_THROWS_AS(grid.box_distance(0, 7), contactlab::Error);
  CHECK_THROWS_AS(grid.insert(HashGridBroadPhase::max_id + 1, Aabb{}), contactlab::Error);
  CHECK_THROWS_WITH(grid.remove(5), Catch::Contains("remove(5)"));
  grid.remove(0);
  CHECK_THROWS_AS(grid.set_box(0, Aabb{}), contactlab::Error);
  CHECK_THROWS_AS(grid.remove(0), contactlab::Error);
}

TEST_CASE("hash_grid: no proxy and one proxy give no pairs") {
  Checked checked(make_grid(1.0));
  CHECK(checked.check() == 0);
  checked.insert(4, box({0, 0, 0}, {1, 1, 1}));
  CHECK(checked.check() == 0);
  checked.set_box(4, box({-inf, -inf, -inf}, {inf, inf, 0}));
  CHECK(checked.check() == 0);
  checked.remove(4);
  CHECK(checked.check() == 0);
  checked.insert(4, box({2, 2, 2}, {2, 2, 2}));
  checked.insert(9, box({2, 2, 2}, {3, 3, 3}));
  CHECK(checked.check() == 1);
}

TEST_CASE(
    "hash_grid: closed boxes touch across cell and level boundaries, a 1e-12 m gap does not") {
  // Cells of 1 m: [0,1]³ lives on level 0 and covers cells 0 and 1 on each axis.
  const Aabb unit = box({0, 0, 0}, {1, 1, 1});
  Checked checked(make_grid(1.0));
  checked.insert(0, unit);
  checked.insert(1, box({1, 1, 1}, {2, 2, 2}));              // corner contact, same level
  checked.insert(2, box({-4, -4, 1}, {0, 0, 5}));            // edge contact from level 2
  checked.insert(3, box({0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}));  // a point inside
  checked.insert(4, box({1 + 1e-12, 0, 0}, {1.5, 1, 1}));    // gap along x only
  checked.insert(5, box({-1e-3, -1e-3, -1e-3}, {0, 0, 0}));  // tiny, touching the corner
  checked.insert(6, box({-1000, -1000, -1000}, {0, 0, 0}));  // huge, touching the corner
  checked.check();
  std::vector<ProxyPair> pairs;
  checked.subject().collect_pairs(pairs);
  std::sort(pairs.begin(), pairs.end());
  const std::vector<ProxyPair> expected = {{0, 1}, {0, 2}, {0, 3}, {0, 5}, {0, 6}, {1, 4}, {5, 6}};
  CHECK(pairs == expected);
}

TEST_CASE("hash_grid: set_box re-bins a proxy only when its cells or its level change") {
  HashGridBroadPhase grid = make_grid(1.0);
  grid.insert(0, box({0.1, 0.1, 0.1}, {0.4, 0.4, 0.4}));
  grid.insert(1, box({0.5, 0.5, 0.5}, {0.9, 0.9, 0.9}));
  const std::uint64_t after_insert = grid.rebin_count();
  CHECK(after_insert == 2);
  grid.set_box(0, box({0.2, 0.2, 0.2}, {0.55, 0.55, 0.55}));  // same cell (0,0,0), now overlaps
  CHECK(grid.rebin_count() == after_insert);
  std::vector<ProxyPair> pairs;
  grid.collect_pairs(pairs);
  CHECK(pairs == std::vector<ProxyPair>{{0, 1}});
  grid.set_box(0, box({0.8, 0.2, 0.2}, {1.1, 0.5, 0.5}));  // now also in cell (1,0,0)
  CHECK(grid.rebin_count() == after_insert + 1);
  grid.set_box(0, box({0.2, 0.2, 0.2}, {1.7, 0.5, 0.5}));  // extent 1.5: up to level 1
  CHECK(grid.rebin_count() == after_insert + 2);
  grid.set_box(0, box({0.2, 0.2, 0.2}, {1.8, 0.5, 0.5}));  // same level, same cells
  CHECK(grid.rebin_count() == after_insert + 2);
  grid.collect_pairs(pairs);
  CHECK(pairs == std::vector<ProxyPair>{{0, 1}});
}

TEST_CASE("hash_grid: a box keeps its level while its extent hovers about a cell size") {
  HashGridBroadPhase grid = make_grid(1.0);
  grid.insert(0, box({0.1, 0.1, 0.1}, {1.11, 0.5, 0.5}));  // extent 1.01: level 1, cell 0
  std::uint64_t rebins = grid.rebin_count();
  // Extents 0.99 and 1.01 in turn, as a spinning box's: the box would fit level 0 now and then,
  // but stays on level 1, in the same cell.
  for (int i = 0; i < 10; ++i) {
    grid.set_box(0, box({0.1, 0.1, 0.1}, {1.09, 0.5, 0.5}));
    grid.set_box(0, box({0.1, 0.1, 0.1}, {1.11, 0.5, 0.5}));
  }
  CHECK(grid.rebin_count() == rebins);
  grid.set_box(0, box({0.1, 0.1, 0.1}, {0.7, 0.5, 0.5}));  // extent 0.6: still level 1
  CHECK(grid.rebin_count() == rebins);
  grid.set_box(0, box({0.1, 0.1, 0.1}, {0.4, 0.4, 0.4}));  // extent 0.3 fits 0.5 m: level 0
  CHECK(grid.rebin_count() == rebins + 1);

  // An extent above the cell size by a rounding error counts as the cell size: the box stays on
  // level 0, in the same cells.
  grid.insert(1, box({0.25, 0.25, 0.25}, {1.25, 1.25, 1.25}));
  rebins = grid.rebin_count();
  grid.set_box(1, box({0.25, 0.25, 0.25}, {1.25 + 0x1p-50, 1.25, 1.25}));
  CHECK(grid.rebin_count() == rebins);
  std::vector<ProxyPair> pairs;
  grid.collect_pairs(pairs);
  CHECK(pairs == std::vector<ProxyPair>{{0, 1}});
}

TEST_CASE("hash_grid: equals brute force at every step of coherent motion across levels") {
  std::mt19937_64 rng(0x5117a001);
  // Extents from 0.02 m to 3 m in cells of 0.25 m: levels 0 to 4 all occupied; sizes drift so
  // that boxes change level now and then.
  std::vector<Body> bodies = random_bodies(rng, 400, 6.0, 0.01, 1.5, 0.01);
  Checked checked(make_grid(0.25));
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.insert(id, bodies[id].aabb());
  std::size_t pairs = checked.check();
  const std::uint64_t rebins_before = checked.subject().rebin_count();
  std::uniform_real_distribution<double> growth(0.98, 1.02);
  const int steps = 60;
  for (int step = 0; step < steps; ++step) {
    for (ProxyId id = 0; id < bodies.size(); ++id) {
      Body& body = bodies[id];
      body.step(6.0);
      body.half = (body.half * growth(rng)).cwiseMin(1.5);
      checked.set_box(id, body.aabb());
    }
    pairs += checked.check();
  }
  CHECK(pairs > 3000);
  // Steps of at most 0.01 m per axis against cells of at least 0.25 m: few moves change cells.
  const std::uint64_t rebins = checked.subject().rebin_count() - rebins_before;
  CHECK(rebins < bodies.size() * steps / 4);
}

TEST_CASE("hash_grid: equals brute force when boxes teleport") {
  std::mt19937_64 rng(0x5117a002);
  std::vector<Body> bodies = random_bodies(rng, 300, 6.0, 0.05, 2.0, 0.05);
  Checked checked(make_grid(1.0));
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.insert(id, bodies[id].aabb());
  std::size_t pairs = checked.check();
  std::uniform_int_distribution<int> percent(0, 99);
  for (int step = 0; step < 30; ++step) {
    for (ProxyId id = 0; id < bodies.size(); ++id) {
      Body& body = bodies[id];
      if (percent(rng) < 10)
        body.centre = uniform_vec(rng, -6.0, 6.0);
      else
        body.step(6.0);
      checked.set_box(id, body.aabb());
    }
    pairs += checked.check();
  }
  CHECK(pairs > 2500);
}

TEST_CASE("hash_grid: equals brute force after every insert, remove and set_box, ids reused") {
  std::mt19937_64 rng(0x5117a003);
  // 12 levels of 0.5 m: boxes beyond 1024 m and infinite boxes go to the oversize list.
  Checked checked(make_grid(0.5, 12));
  std::vector<char> live(150, 0);
  std::uniform_int_distribution<ProxyId> pick(0, 149);
  std::uniform_int_distribution<int> percent(0, 99);
  auto random_box = [&]() {
    const int kind = percent(rng);
    const Vec3 c = uniform_vec(rng, -5.0, 5.0);
    if (kind < 5) return box({-inf, -inf, -inf}, {inf, inf, c.z()});
    if (kind < 10) return box(c - Vec3::Constant(3000.0), c + Vec3::Constant(3000.0));
    if (kind < 20) return box(c, c);
    const Vec3 h = log_uniform(rng, 0.05, 3.0) * uniform_vec(rng, 0.3, 1.0);
    return box(c - h, c + h);
  };
  std::size_t pairs = 0;
  for (int operation = 0; operation < 2000; ++operation) {
    const ProxyId id = pick(rng);
    if (!live[id]) {
      checked.insert(id, random_box());
      live[id] = 1;
    } else if (percent(rng) < 40) {
      checked.remove(id);
      live[id] = 0;
    } else {
      checked.set_box(id, random_box());
    }
    pairs += checked.check();
  }
  CHECK(pairs > 700000);
}

TEST_CASE("hash_grid: equals brute force while its tables grow and shrink, many boxes per cell") {
  std::mt19937_64 rng(0x5117a00a);
  std::vector<Body> bodies = random_bodies(rng, 1500, 10.0, 0.1, 0.6, 0.0);
  // A hundred equal boxes in one cell: a long run of entries with the same key in the table.
  for (int i = 0; i < 100; ++i)
    bodies.push_back(Body{Vec3::Constant(0.25), Vec3::Constant(0.2), Vec3::Zero()});
  Checked checked(make_grid(1.0));
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.insert(id, bodies[id].aabb());
  std::size_t pairs = checked.check();
  std::vector<ProxyId> order(bodies.size());
  for (ProxyId id = 0; id < order.size(); ++id) order[id] = id;
  std::shuffle(order.begin(), order.end(), rng);
  // Remove all but ten, checking as the tables shrink, then insert them again (ids reused).
  for (std::size_t i = 0; i + 10 < order.size(); ++i) {
    checked.remove(order[i]);
    if (i % 50 == 0) pairs += checked.check();
  }
  pairs += checked.check();
  for (std::size_t i = 0; i + 10 < order.size(); ++i) {
    checked.insert(order[i], bodies[order[i]].aabb());
    if (i % 100 == 0) pairs += checked.check();
  }
  pairs += checked.check();
  CHECK(pairs > 50000);
}

TEST_CASE("hash_grid: equals brute force with every box in one plane (zero thickness)") {
  std::mt19937_64 rng(0x5117a004);
  std::vector<Body> bodies = random_bodies(rng, 300, 6.0, 0.05, 1.0, 0.03);
  Checked checked(make_grid(0.5));
  for (Body& body : bodies) {
    body.centre.z() = 1.0;  // on a cell boundary
    body.half.z() = 0.0;
    body.velocity.z() = 0.0;
  }
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.insert(id, bodies[id].aabb());
  std::size_t pairs = checked.check();
  for (int step = 0; step < 30; ++step) {
    for (ProxyId id = 0; id < bodies.size(); ++id) {
      bodies[id].step(6.0);
      checked.set_box(id, bodies[id].aabb());
    }
    pairs += checked.check();
  }
  CHECK(pairs > 6000);
}

TEST_CASE("hash_grid: equals brute force on grid-snapped boxes lying on cell boundaries") {
  std::mt19937_64 rng(0x5117a005);
  // Corners on a 0.5 m lattice and extents of 0, 0.5, 1, 2 and 4 m, exactly the cell sizes of
  // levels 0 to 2: faces on cell boundaries, boxes exactly one cell wide, many equal coordinates.
  std::uniform_int_distribution<int> lattice(-12, 12);
  std::uniform_int_distribution<int> size_index(0, 4);
  const double sizes[] = {0.0, 0.5, 1.0, 2.0, 4.0};
  auto snapped_box = [&]() {
    const Vec3 corner(0.5 * lattice(rng), 0.5 * lattice(rng), 0.5 * lattice(rng));
    const Vec3 extent(sizes[size_index(rng)], sizes[size_index(rng)], sizes[size_index(rng)]);
    return box(corner, corner + extent);
  };
  Checked checked(make_grid(1.0));
  for (ProxyId id = 0; id < 250; ++id) checked.insert(id, snapped_box());
  std::size_t pairs = checked.check();
  std::uniform_int_distribution<ProxyId> pick(0, 249);
  for (int step = 0; step < 200; ++step) {
    for (int moved = 0; moved < 10; ++moved) checked.set_box(pick(rng), snapped_box());
    pairs += checked.check();
  }
  CHECK(pairs > 40000);
}

TEST_CASE("hash_grid: equals brute force with tiny boxes beside huge ones") {
  std::mt19937_64 rng(0x5117a006);
  // Extents from 2e-6 m to 2e4 m in cells from 1 mm: 24 levels reach 8.4 km, so the largest
  // boxes are oversize.
  std::vector<Body> bodies = random_bodies(rng, 300, 50.0, 1e-6, 1e4, 0.5);
  Checked checked(make_grid(1e-3));
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.insert(id, bodies[id].aabb());
  std::size_t pairs = checked.check();
  for (int step = 0; step < 30; ++step) {
    for (ProxyId id = 0; id < bodies.size(); ++id) {
      bodies[id].step(50.0);
      checked.set_box(id, bodies[id].aabb());
    }
    pairs += checked.check();
  }
  CHECK(pairs > 200000);
}

TEST_CASE("hash_grid: equals brute force with infinite boxes, also switching to finite and back") {
  std::mt19937_64 rng(0x5117a007);
  std::vector<Body> bodies = random_bodies(rng, 200, 5.0, 0.05, 1.0, 0.05);
  const std::vector<Aabb> unbounded = {
      box({-inf, -inf, -inf}, {inf, inf, 0}),    // floor z ≤ 0
      box({-inf, -inf, 2}, {inf, inf, inf}),     // ceiling z ≥ 2
      box({-inf, -inf, -inf}, {inf, inf, inf}),  // everything
      box({-1, -inf, -inf}, {1, inf, inf}),      // slab |x| ≤ 1
      box({3, -inf, -1}, {inf, inf, 1}),         // infinite along two axes and one direction
      box({4, 4, 4}, {inf, 4.5, 4.5}),           // a ray-like box
  };
  Checked checked(make_grid(0.5));
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.insert(id, bodies[id].aabb());
  for (std::size_t i = 0; i < unbounded.size(); ++i)
    checked.insert(static_cast<ProxyId>(1000 + i), unbounded[i]);
  std::size_t pairs = checked.check();
  std::uniform_int_distribution<std::size_t> pick_unbounded(0, unbounded.size() - 1);
  std::vector<char> is_unbounded(bodies.size(), 0);
  std::uniform_int_distribution<int> percent(0, 99);
  for (int step = 0; step < 30; ++step) {
    for (ProxyId id = 0; id < bodies.size(); ++id) {
      bodies[id].step(5.0);
      if (percent(rng) < 3) is_unbounded[id] = !is_unbounded[id];
      checked.set_box(id, is_unbounded[id] ? unbounded[pick_unbounded(rng)] : bodies[id].aabb());
    }
    pairs += checked.check();
  }
  CHECK(pairs > 60000);
}

TEST_CASE("hash_grid: equals brute force far from the origin, on coarser levels or oversize") {
  // Cells of 1 mm at 1e12 m are beyond 2^26 cells on every one of 24 levels: oversize. Cells of
  // 1 m at 3e8 m fit from level 3 on (8 m cells), where even the smallest boxes go.
  struct Case {
    double cell_size_m;
    Vec3 offset;
  };
  for (const Case& c : {Case{1e-3, Vec3(1e12, -1e12, 3e11)}, Case{1.0, Vec3(3e8, -2e8, 1e8)}}) {
    std::mt19937_64 rng(0x5117a008);
    std::vector<Body> near = random_bodies(rng, 100, 3.0, 0.1, 1.0, 0.05);
    std::vector<Body> far = random_bodies(rng, 100, 3.0, 0.1, 1.0, 0.05);
    for (Body& body : far) body.centre += c.offset;
    Checked checked(make_grid(c.cell_size_m));
    for (ProxyId id = 0; id < 100; ++id) {
      checked.insert(id, near[id].aabb());
      checked.insert(100 + id, far[id].aabb());
    }
    std::size_t pairs = checked.check();
    for (int step = 0; step < 10; ++step) {
      for (ProxyId id = 0; id < 100; ++id) {
        near[id].step(3.0);
        far[id].centre += far[id].velocity;
        checked.set_box(id, near[id].aabb());
        checked.set_box(100 + id, far[id].aabb());
      }
      pairs += checked.check();
    }
    CHECK(pairs > 300);
  }
}

TEST_CASE("hash_grid: equals brute force with a few large boxes among many small ones") {
  // 500 boxes on level 0 and a few on levels 1, 2, 3 and 5 (cells of 1 m): the sparse coarse
  // levels look up the cells of level 0 rather than the other way round, except level 5.
  std::mt19937_64 rng(0x5117a00b);
  std::vector<Body> bodies = random_bodies(rng, 500, 6.0, 0.15, 0.45, 0.02);
  const std::pair<int, double> large[] = {{10, 0.75}, {5, 1.75}, {3, 3.5}, {2, 10.0}};
  for (const auto& [count, half] : large) {
    for (int i = 0; i < count; ++i) {
      Body body = random_bodies(rng, 1, 6.0, half, half, 0.02).front();
      body.half = Vec3::Constant(half);
      bodies.push_back(body);
    }
  }
  Checked checked(make_grid(1.0));
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.insert(id, bodies[id].aabb());
  std::size_t pairs = checked.check();
  for (int step = 0; step < 40; ++step) {
    for (ProxyId id = 0; id < bodies.size(); ++id) {
      bodies[id].step(6.0);
      checked.set_box(id, bodies[id].aabb());
    }
    pairs += checked.check();
  }
  CHECK(pairs > 25000);
}

TEST_CASE("hash_grid: box_distance is the Euclidean gap between the current boxes") {
  HashGridBroadPhase grid = make_grid(1.0);
  grid.insert(0, box({0, 0, 0}, {1, 1, 1}));
  grid.insert(1, box({4, 5, 1}, {6, 6, 2}));
  grid.insert(2, box({0.5, 0.5, 0.5}, {3, 3, 3}));
  CHECK(grid.box_distance(0, 1) == Approx(5.0).epsilon(1e-15));  // gaps 3 and 4
  CHECK(grid.box_distance(1, 0) == Approx(5.0).epsilon(1e-15));
  CHECK(grid.box_distance(0, 2) == 0.0);
  grid.set_box(1, box({1, 1, 4}, {2, 2, 5}));
  CHECK(grid.box_distance(0, 1) == Approx(3.0).epsilon(1e-15));
}

TEST_CASE("hash_grid: collect_pairs replaces the contents and does not reallocate once grown") {
  std::mt19937_64 rng(0x5117a009);
  std::vector<Body> bodies = random_bodies(rng, 200, 4.0, 0.1, 1.0, 0.02);
  HashGridBroadPhase grid = make_grid(0.5);
  for (ProxyId id = 0; id < bodies.size(); ++id) grid.insert(id, bodies[id].aabb());
  std::vector<ProxyPair> pairs = {{7, 8}, {9, 10}};
  grid.collect_pairs(pairs);
  REQUIRE(pairs.size() > 50);
  pairs.reserve(4 * pairs.size());  // room for the pair count to fluctuate as the boxes move
  const ProxyPair* storage = pairs.data();
  const std::size_t capacity = pairs.capacity();
  for (int step = 0; step < 20; ++step) {
    for (ProxyId id = 0; id < bodies.size(); ++id) {
      bodies[id].step(4.0);
      grid.set_box(id, bodies[id].aabb());
    }
    grid.collect_pairs(pairs);
    CHECK(pairs.data() == storage);
    CHECK(pairs.capacity() == capacity);
  }
}
