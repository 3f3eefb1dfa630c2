// Unit tests of the hierarchical hash grid broad phase (plugins/broadphase-hash-grid): its pair set
// equals the brute-force broad phase's after every update of seeded random scenes.
#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "broad_phase_oracle.hpp"
#include "hash_grid_broad_phase.hpp"

using namespace contactlab::testing;  // broad_phase_oracle.hpp: box, OracleChecked, scenarios
using contactlab::plugins::HashGridBroadPhase;
using Checked = OracleChecked<HashGridBroadPhase>;

namespace {

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
  no_and_one_proxy(checked, box({-inf, -inf, -inf}, {inf, inf, 0}));
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
  // Extents from 0.02 m to 3 m in cells of 0.25 m: levels 0 to 4 all occupied; sizes drift so
  // that boxes change level now and then.
  MovingBodies scene(0x5117a001, 400, 6.0, 0.01, 1.5, 0.01);
  Checked checked(make_grid(0.25));
  std::size_t pairs = insert_bodies(checked, scene.bodies);
  const std::uint64_t rebins_before = checked.subject().rebin_count();
  std::uniform_real_distribution<double> growth(0.98, 1.02);
  const int steps = 60;
  pairs += move_bodies(checked, scene, steps, [&](Body& body) {
    body.step(6.0);
    body.half = (body.half * growth(scene.rng)).cwiseMin(1.5);
  });
  CHECK(pairs > 3000);
  // Steps of at most 0.01 m per axis against cells of at least 0.25 m: few moves change cells.
  const std::uint64_t rebins = checked.subject().rebin_count() - rebins_before;
  CHECK(rebins < scene.bodies.size() * steps / 4);
}

TEST_CASE("hash_grid: equals brute force when boxes teleport") {
  MovingBodies scene(0x5117a002, 300, 6.0, 0.05, 2.0, 0.05);
  Checked checked(make_grid(1.0));
  CHECK(teleports(checked, scene) > 2500);
}

TEST_CASE("hash_grid: equals brute force after every insert, remove and set_box, ids reused") {
  // 12 levels of 0.5 m: boxes beyond 1024 m and infinite boxes go to the oversize list.
  Checked checked(make_grid(0.5, 12));
  CHECK(insert_remove_reuse(checked, 0x5117a003) > 700000);
}

TEST_CASE("hash_grid: equals brute force while its tables grow and shrink, many boxes per cell") {
  MovingBodies scene(0x5117a00a, 1500, 10.0, 0.1, 0.6, 0.0);
  std::vector<Body>& bodies = scene.bodies;
  // A hundred equal boxes in one cell: a long run of entries with the same key in the table.
  for (int i = 0; i < 100; ++i)
    bodies.push_back(Body{Vec3::Constant(0.25), Vec3::Constant(0.2), Vec3::Zero()});
  Checked checked(make_grid(1.0));
  std::size_t pairs = insert_bodies(checked, bodies);
  std::vector<ProxyId> order(bodies.size());
  for (ProxyId id = 0; id < order.size(); ++id) order[id] = id;
  std::shuffle(order.begin(), order.end(), scene.rng);
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
  MovingBodies scene(0x5117a004, 300, 6.0, 0.05, 1.0, 0.03);
  Checked checked(make_grid(0.5));
  CHECK(bodies_in_plane(checked, scene) > 6000);
}

TEST_CASE("hash_grid: equals brute force on grid-snapped boxes lying on cell boundaries") {
  // Corners on a 0.5 m lattice and extents of 0, 0.5, 1, 2 and 4 m, exactly the cell sizes of
  // levels 0 to 2: faces on cell boundaries, boxes exactly one cell wide, many equal coordinates.
  Checked checked(make_grid(1.0));
  CHECK(lattice_boxes(checked, 0x5117a005) > 40000);
}

TEST_CASE("hash_grid: equals brute force with tiny boxes beside huge ones") {
  // Extents from 2e-6 m to 2e4 m in cells from 1 mm: 24 levels reach 8.4 km, so the largest
  // boxes are oversize.
  Checked checked(make_grid(1e-3));
  CHECK(tiny_beside_huge(checked, 0x5117a006) > 200000);
}

TEST_CASE("hash_grid: equals brute force with infinite boxes, also switching to finite and back") {
  Checked checked(make_grid(0.5));
  CHECK(infinite_boxes_switching(checked, 0x5117a007) > 60000);
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
    pairs += run_steps(checked, 10, [&](int) {
      for (ProxyId id = 0; id < 100; ++id) {
        near[id].step(3.0);
        far[id].centre += far[id].velocity;
        checked.set_box(id, near[id].aabb());
        checked.set_box(100 + id, far[id].aabb());
      }
    });
    CHECK(pairs > 300);
  }
}

TEST_CASE("hash_grid: equals brute force with a few large boxes among many small ones") {
  // 500 boxes on level 0 and a few on levels 1, 2, 3 and 5 (cells of 1 m): the sparse coarse
  // levels look up the cells of level 0 rather than the other way round, except level 5.
  MovingBodies scene(0x5117a00b, 500, 6.0, 0.15, 0.45, 0.02);
  const std::pair<int, double> large[] = {{10, 0.75}, {5, 1.75}, {3, 3.5}, {2, 10.0}};
  for (const auto& [count, half] : large) {
    for (int i = 0; i < count; ++i) {
      Body body = random_bodies(scene.rng, 1, 6.0, half, half, 0.02).front();
      body.half = Vec3::Constant(half);
      scene.bodies.push_back(body);
    }
  }
  Checked checked(make_grid(1.0));
  const std::size_t pairs = insert_bodies(checked, scene.bodies);
  CHECK(pairs + move_bodies(checked, scene, 40) > 25000);
}

TEST_CASE("hash_grid: box_distance is the Euclidean gap between the current boxes") {
  HashGridBroadPhase grid = make_grid(1.0);
  euclidean_gaps(grid);
  grid.set_box(1, box({1, 1, 4}, {2, 2, 5}));
  CHECK(grid.box_distance(0, 1) == Approx(3.0).epsilon(1e-15));
}

TEST_CASE("hash_grid: collect_pairs replaces the contents and does not reallocate once grown") {
  HashGridBroadPhase grid = make_grid(0.5);
  moving_bodies_keep_storage(grid, 0x5117a009, 50);
}
