// Unit tests of the dynamic AABB tree broad phase (plugins/broadphase-aabb-tree), checked against
// BruteForceBroadPhase after every update.
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include <catch2/catch.hpp>

#include "aabb_tree_broad_phase.hpp"
#include "broad_phase_oracle.hpp"

using namespace contactlab::testing;  // broad_phase_oracle.hpp: box, OracleChecked, scenarios
using contactlab::plugins::AabbTreeBroadPhase;
/// The tree and the brute-force oracle driven by the same operations; check() compares their pair
/// sets and checks the tree's invariants.
using Checked = OracleChecked<AabbTreeBroadPhase>;

namespace {

AabbTreeBroadPhase make_tree(const std::map<std::string, ParameterValue>& overrides = {}) {
  return AabbTreeBroadPhase{ParameterValues::defaults(AabbTreeBroadPhase::schema(), overrides)};
}

/// `steps` steps of coherent motion of `count` cubes of half-width 0.5 in a cube of side `side`:
/// constant random velocities of up to `speed` per step, reflected at the walls, and every step
/// a few teleports to random places. Compared after every step.
void run_coherent_scene(Checked& checked, std::mt19937_64& rng, int count, double side,
                        double speed, int steps, int teleports_per_step) {
  std::uniform_real_distribution<double> place(0.0, side);
  std::uniform_real_distribution<double> velocity(-speed, speed);
  std::vector<Vec3> centre(count), v(count);
  for (int i = 0; i < count; ++i) {
    centre[i] = Vec3(place(rng), place(rng), place(rng));
    v[i] = Vec3(velocity(rng), velocity(rng), velocity(rng));
    checked.insert(static_cast<ProxyId>(i), cube(centre[i], 0.5));
  }
  checked.check();
  std::uniform_int_distribution<int> pick(0, count - 1);
  run_steps(checked, steps, [&](int) {
    for (int i = 0; i < count; ++i) {
      centre[i] += v[i];
      for (int k = 0; k < 3; ++k)
        if (centre[i][k] < 0.0 || centre[i][k] > side) v[i][k] = -v[i][k];
    }
    for (int t = 0; t < teleports_per_step; ++t)
      centre[pick(rng)] = Vec3(place(rng), place(rng), place(rng));
    for (int i = 0; i < count; ++i) checked.set_box(static_cast<ProxyId>(i), cube(centre[i], 0.5));
  });
}

}  // namespace

TEST_CASE("aabb_tree: declares its margins, is incremental and reports box distances") {
  const auto schema = AabbTreeBroadPhase::schema();
  REQUIRE(schema.size() == 2);
  CHECK(schema[0].name == "fat_margin_m");
  CHECK(schema[0].unit == "m");
  CHECK(std::get<double>(schema[0].default_value) == 0.0);
  CHECK(schema[1].name == "fat_margin_relative");
  CHECK(std::get<double>(schema[1].default_value) == 0.1);
  for (const auto& spec : schema) {
    CHECK(spec.minimum == 0.0);
    CHECK(spec.maximum == inf);
  }
  AabbTreeBroadPhase tree = make_tree();
  CHECK(tree.capabilities().incremental);
  CHECK(tree.capabilities().box_distance);
  // Constructed directly with no values, the defaults apply; negative margins are refused.
  CHECK_NOTHROW(AabbTreeBroadPhase{ParameterValues{}});
  CHECK_THROWS_AS(make_tree({{"fat_margin_m", -1.0}}), contactlab::InputError);
}

TEST_CASE("aabb_tree: reports overlapping pairs with a < b") {
  AabbTreeBroadPhase tree = make_tree();
  tree.insert(0, box({0, 0, 0}, {1, 1, 1}));
  tree.insert(1, box({5, 5, 5}, {6, 6, 6}));
  tree.insert(2, box({0.5, 0.5, 0.5}, {2, 2, 2}));
  tree.insert(3, box({-1, -1, -1}, {0.7, 0.7, 0.7}));
  const std::vector<ProxyPair> expected = {{0, 2}, {0, 3}, {2, 3}};
  CHECK(sorted_pairs(tree) == expected);
  CHECK(sorted_pairs(tree) == expected);  // again, from the persistent pair set
}

TEST_CASE("aabb_tree: closed boxes — touching faces and corners count, a 1e-12 m gap not") {
  // A margin of 0.5 m: the fat boxes overlap in every section, only the exact boxes decide.
  AabbTreeBroadPhase tree = make_tree({{"fat_margin_m", 0.5}});
  tree.insert(0, box({0, 0, 0}, {1, 1, 1}));
  tree.insert(1, box({1, 0.2, 0.2}, {2, 0.8, 0.8}));            // face contact
  tree.insert(2, box({1, 1, 1}, {2, 2, 2}));                    // corner contact with 0
  tree.insert(3, box({0.5, 0.5, -1e-12}, {0.5, 0.5, -1e-12}));  // point 1e-12 m below 0
  tree.insert(4, box({-1, 0, 0}, {-1e-12, 1, 1}));              // 1e-12 m gap along x only
  const std::vector<ProxyPair> expected = {{0, 1}, {0, 2}};
  CHECK(sorted_pairs(tree) == expected);
  tree.set_box(3, box({0.5, 0.5, 0}, {0.5, 0.5, 0}));  // now a point on the face of 0
  const std::vector<ProxyPair> with_point = {{0, 1}, {0, 2}, {0, 3}};
  CHECK(sorted_pairs(tree) == with_point);
}

TEST_CASE("aabb_tree: a pair vanishes when the exact boxes separate inside their fat boxes") {
  AabbTreeBroadPhase tree = make_tree({{"fat_margin_m", 1.0}});
  tree.insert(0, box({0, 0, 0}, {1, 1, 1}));
  tree.insert(1, box({0.9, 0, 0}, {1.9, 1, 1}));
  CHECK(sorted_pairs(tree) == std::vector<ProxyPair>{{0, 1}});
  tree.set_box(1, box({1.4, 0, 0}, {2.4, 1, 1}));  // still inside its fat box
  CHECK(sorted_pairs(tree).empty());
  tree.set_box(0, box({0.5, 0, 0}, {1.5, 1, 1}));  // touches 1 again
  CHECK(sorted_pairs(tree) == std::vector<ProxyPair>{{0, 1}});
  tree.check_invariants();
}

TEST_CASE("aabb_tree: infinite boxes of unbounded shapes overlap exactly what they should") {
  AabbTreeBroadPhase tree = make_tree();
  tree.insert(0, box({-inf, -inf, -inf}, {inf, inf, 0}));    // floor z <= 0
  tree.insert(1, box({-inf, -inf, -inf}, {inf, inf, inf}));  // everything
  tree.insert(2, box({3, 4, 0}, {4, 5, 1}));                 // resting on the floor
  tree.insert(3, box({3, 4, 1e-9}, {4, 5, 1}));              // 1e-9 m above it
  tree.insert(4, box({-inf, -2, -inf}, {inf, -1, inf}));     // a slab -2 <= y <= -1
  const std::vector<ProxyPair> expected = {{0, 1}, {0, 2}, {0, 4}, {1, 2}, {1, 3}, {1, 4}, {2, 3}};
  CHECK(sorted_pairs(tree) == expected);
  tree.check_invariants();
  // A finite box becomes a half-space and back; a half-space moves.
  tree.set_box(3, box({-inf, 4.5, -inf}, {inf, inf, inf}));  // y >= 4.5
  const std::vector<ProxyPair> unbounded = {{0, 1}, {0, 2}, {0, 3}, {0, 4},
                                            {1, 2}, {1, 3}, {1, 4}, {2, 3}};
  CHECK(sorted_pairs(tree) == unbounded);
  tree.check_invariants();
  tree.set_box(3, box({3, 4, 1e-9}, {4, 5, 1}));
  tree.set_box(0, box({-inf, -inf, -inf}, {inf, inf, -1e-9}));  // the floor drops 1e-9 m below 2
  const std::vector<ProxyPair> dropped = {{0, 1}, {0, 4}, {1, 2}, {1, 3}, {1, 4}, {2, 3}};
  CHECK(sorted_pairs(tree) == dropped);
  tree.check_invariants();
  tree.remove(1);
  const std::vector<ProxyPair> removed = {{0, 4}, {2, 3}};
  CHECK(sorted_pairs(tree) == removed);
  tree.check_invariants();
}

TEST_CASE("aabb_tree: zero and one proxies give no pairs") {
  AabbTreeBroadPhase tree = make_tree();
  std::vector<ProxyPair> pairs = {{1, 2}};
  tree.collect_pairs(pairs);
  CHECK(pairs.empty());
  CHECK(tree.tree_height() == 0);
  tree.insert(0, box({0, 0, 0}, {1, 1, 1}));
  tree.collect_pairs(pairs);
  CHECK(pairs.empty());
  CHECK(tree.tree_height() == 0);  // a single leaf
  tree.set_box(0, box({10, 0, 0}, {11, 1, 1}));
  tree.collect_pairs(pairs);
  CHECK(pairs.empty());
  tree.remove(0);
  tree.collect_pairs(pairs);
  CHECK(pairs.empty());
  tree.insert(0, box({-inf, -inf, -inf}, {inf, inf, 0}));  // a single unbounded proxy
  tree.collect_pairs(pairs);
  CHECK(pairs.empty());
  tree.check_invariants();
}

TEST_CASE("aabb_tree: unknown or duplicate ids throw contactlab::Error naming the id") {
  AabbTreeBroadPhase tree = make_tree();
  tree.insert(0, box({0, 0, 0}, {1, 1, 1}));
  CHECK_THROWS_WITH(tree.insert(0, Aabb{}), Catch::Contains("insert(0)"));
  CHECK_THROWS_AS(tree.insert(0, Aabb{}), contactlab::Error);
  CHECK_THROWS_WITH(tree.set_box(7, Aabb{}), Catch::Contains("set_box(7)"));
  CHECK_THROWS_WITH(tree.remove(3), Catch::Contains("remove(3)"));
  CHECK_THROWS_WITH(tree.box_distance(0, 9), Catch::Contains("box_distance(9)"));
  // Leaves store ids as negative 32-bit references: ids must stay below 2^31 - 1.
  CHECK_THROWS_WITH(tree.insert(2147483647u, Aabb{}), Catch::Contains("insert(2147483647)"));
  tree.remove(0);
  CHECK_THROWS_AS(tree.set_box(0, Aabb{}), contactlab::Error);
  CHECK_THROWS_AS(tree.remove(0), contactlab::Error);
  CHECK_NOTHROW(tree.insert(0, Aabb{}));  // a removed id may be reused
  CHECK(sorted_pairs(tree).empty());
  tree.check_invariants();
}

TEST_CASE("aabb_tree: box_distance is the Euclidean gap between the exact boxes") {
  AabbTreeBroadPhase tree = make_tree({{"fat_margin_m", 1.0}});
  tree.insert(3, box({-inf, -inf, -inf}, {inf, inf, -2}));
  euclidean_gaps(tree);
  CHECK(tree.box_distance(0, 3) == 2.0);
  tree.set_box(1, box({4.2, 5, 1}, {6, 6, 2}));  // inside the fat box: the exact box counts
  CHECK(tree.box_distance(0, 1) == Approx(std::hypot(3.2, 4.0)).epsilon(1e-15));
}

TEST_CASE("aabb_tree: collect_pairs replaces the contents and does not reallocate once grown") {
  AabbTreeBroadPhase tree = make_tree();
  // 300 unit cubes in an 8 m cube jiggling by up to 0.02 m per axis for 50 steps.
  jiggling_cubes_keep_storage(tree, 7, {300, 8.0, 0.02, 50}, 100, 4);
}

TEST_CASE("aabb_tree: equals brute force after every step of coherent motion with teleports") {
  std::mt19937_64 rng(20250101);
  Checked checked(make_tree());
  // 600 unit cubes in a 12 m cube: about 3 overlaps per cube; 0.05 m per step.
  run_coherent_scene(checked, rng, 600, 12.0, 0.05, 60, 3);
  CHECK(checked.total_pairs() > 20000);
}

TEST_CASE("aabb_tree: equals brute force with no fat margin (every move reinserts)") {
  std::mt19937_64 rng(99);
  Checked checked(make_tree({{"fat_margin_relative", 0.0}}));
  run_coherent_scene(checked, rng, 300, 9.0, 0.05, 30, 1);
  CHECK(checked.total_pairs() > 30 * 300);
}

TEST_CASE("aabb_tree: equals brute force when most proxies teleport at once") {
  // Every other step 95 % of the proxies teleport (more than 3/4 dirty: the tree is rebuilt and
  // the pairs found by the self traversal), in between 60 % (moved one by one).
  std::mt19937_64 rng(4242);
  std::uniform_real_distribution<double> place(0.0, 10.0);
  std::uniform_real_distribution<double> half(0.05, 1.0);
  std::bernoulli_distribution most(0.95);
  std::bernoulli_distribution many(0.6);
  Checked checked(make_tree());
  const auto random_box = [&] {
    const Vec3 c(place(rng), place(rng), place(rng));
    const Vec3 h(half(rng), half(rng), half(rng));
    return box(c - h, c + h);
  };
  for (ProxyId i = 0; i < 400; ++i) checked.insert(i, random_box());
  checked.check();
  run_steps(checked, 20, [&](int step) {
    for (ProxyId i = 0; i < 400; ++i)
      if (step % 2 ? most(rng) : many(rng)) checked.set_box(i, random_box());
  });
  CHECK(checked.total_pairs() > 20 * 400);
}

TEST_CASE("aabb_tree: equals brute force with inserts and removes interleaved and ids reused") {
  std::mt19937_64 rng(31337);
  std::uniform_real_distribution<double> place(0.0, 10.0);
  std::uniform_real_distribution<double> half(0.1, 1.2);
  std::uniform_real_distribution<double> jiggle(-0.08, 0.08);
  std::uniform_int_distribution<ProxyId> id_of(0, 199);
  std::uniform_int_distribution<int> action(0, 9);
  Checked checked(make_tree());
  const auto random_box = [&] {
    const Vec3 c(place(rng), place(rng), place(rng));
    const Vec3 h(half(rng), half(rng), half(rng));
    return box(c - h, c + h);
  };
  run_steps(checked, 80, [&](int) {
    for (int op = 0; op < 60; ++op) {
      const ProxyId id = id_of(rng);
      const bool live = checked.boxes().count(id) != 0;
      const int a = action(rng);
      if (!live) {
        checked.insert(id, random_box());
      } else if (a == 0) {
        checked.remove(id);
        if (action(rng) < 3) checked.insert(id, random_box());  // reused before the next collect
      } else {
        Aabb b = checked.boxes().at(id);
        const Vec3 d(jiggle(rng), jiggle(rng), jiggle(rng));
        b.min_W += d;
        b.max_W += d;
        checked.set_box(id, a == 1 ? random_box() : b);
      }
    }
  });
  CHECK(checked.total_pairs() > 80 * 100);
}

TEST_CASE("aabb_tree: equals brute force with all boxes in one plane (zero thickness)") {
  std::mt19937_64 rng(5);
  for (const double margin : {0.0, 0.1}) {
    Checked checked(make_tree({{"fat_margin_relative", margin}}));
    CHECK(jiggling_in_plane(checked, rng, {300, 12.0, 0.1, 0.8, 0.1, 20}) > 20 * 300);
  }
}

TEST_CASE("aabb_tree: equals brute force with boxes snapped to a grid (equal coordinates)") {
  // Integer corners and unit or double widths: faces, edges and corners touch exactly, and many
  // boxes coincide; motion is by whole cells, of a fifth of the boxes per step.
  std::mt19937_64 rng(12);
  std::bernoulli_distribution moves(0.2);
  Checked checked(make_tree({{"fat_margin_m", 0.5}}));
  const std::size_t pairs =
      grid_walk(checked, rng, {250, 7, 30, false, 0}, [&](ProxyId, int) { return !moves(rng); });
  CHECK(pairs > 30 * 250);
}

TEST_CASE("aabb_tree: equals brute force with tiny boxes beside huge ones") {
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> place(-50.0, 50.0);
  std::uniform_real_distribution<double> jiggle(-1e-4, 1e-4);
  Checked checked(make_tree());
  // Three huge boxes (100 m, and a 1000 m plate 1e-3 m thick) and 300 boxes of 1e-3 m.
  checked.insert(0, box({-50, -50, -50}, {0, 50, 50}));
  checked.insert(1, box({-500, -500, -1e-3}, {500, 500, 0}));
  checked.insert(2, box({-20, -20, -20}, {60, 20, 20}));
  std::vector<Vec3> centre;
  for (ProxyId i = 3; i < 303; ++i) {
    // Half of them within 2e-3 m of the plate, so that they touch it on and off.
    const double z = i % 2 ? std::uniform_real_distribution<double>(-2e-3, 2e-3)(rng) : place(rng);
    centre.emplace_back(place(rng), place(rng), z);
    checked.insert(i, cube(centre.back(), 5e-4));
  }
  // A cluster of tiny boxes overlapping one another.
  for (ProxyId i = 303; i < 343; ++i) {
    centre.emplace_back(Vec3(10, 10, 10) + Vec3(jiggle(rng), jiggle(rng), jiggle(rng)) * 10.0);
    checked.insert(i, cube(centre.back(), 5e-4));
  }
  checked.check();
  run_steps(checked, 30, [&](int step) {
    for (ProxyId i = 3; i < 343; ++i) {
      centre[i - 3] += Vec3(jiggle(rng), jiggle(rng), jiggle(rng));
      checked.set_box(i, cube(centre[i - 3], 5e-4));
    }
    const Vec3 shift(0.5 * step, 0, 0);  // the 100 m box drifts by half a metre per step
    checked.set_box(0, box(Vec3(-50, -50, -50) + shift, Vec3(0, 50, 50) + shift));
  });
  CHECK(checked.total_pairs() > 30 * 300);
}

TEST_CASE("aabb_tree: equals brute force with half-spaces and slabs among moving boxes") {
  std::mt19937_64 rng(8080);
  std::uniform_real_distribution<double> place(-5.0, 5.0);
  std::uniform_real_distribution<double> jiggle(-0.1, 0.1);
  std::bernoulli_distribution flip(0.05);
  Checked checked(make_tree());
  // Unbounded proxies: floor, ceiling, a wall, all space, a slab; later some boxes become
  // half-spaces and back.
  checked.insert(0, box({-inf, -inf, -inf}, {inf, inf, -4}));
  checked.insert(1, box({-inf, -inf, 4}, {inf, inf, inf}));
  checked.insert(2, box({-inf, -inf, -inf}, {-4, inf, inf}));
  checked.insert(3, box({-inf, -inf, -inf}, {inf, inf, inf}));
  checked.insert(4, box({-inf, -1, -inf}, {inf, 1, inf}));
  std::vector<Vec3> centre;
  for (ProxyId i = 5; i < 305; ++i) {
    centre.emplace_back(place(rng), place(rng), place(rng));
    checked.insert(i, cube(centre.back(), 0.4));
  }
  checked.check();
  std::vector<bool> is_half_space(305, false);
  run_steps(checked, 40, [&](int step) {
    for (ProxyId i = 5; i < 305; ++i) {
      centre[i - 5] += Vec3(jiggle(rng), jiggle(rng), jiggle(rng));
      if (flip(rng)) is_half_space[i] = !is_half_space[i];
      const Vec3& c = centre[i - 5];
      checked.set_box(i,
                      is_half_space[i] ? box({-inf, -inf, -inf}, {inf, c.y(), inf}) : cube(c, 0.4));
    }
    const double z = -4.0 + 0.05 * step;  // the floor rises
    checked.set_box(0, box({-inf, -inf, -inf}, {inf, inf, z}));
  });
  CHECK(checked.total_pairs() > 40 * 300);
}

TEST_CASE("aabb_tree: sorted insertion keeps the tree balanced (rotations work)") {
  // One proxy per collect_pairs, so that every one goes through the incremental insertion (a
  // collect_pairs with more than 3/4 of the proxies new rebuilds the tree top-down instead).
  const auto insert_one_by_one = [](AabbTreeBroadPhase& tree, const std::vector<Aabb>& boxes) {
    std::vector<ProxyPair> pairs;
    for (ProxyId i = 0; i < boxes.size(); ++i) {
      tree.insert(i, boxes[i]);
      tree.collect_pairs(pairs);
    }
    tree.check_invariants();
  };
  // Balanced within a factor 2 of the optimum, plus a small constant.
  const auto bound = [](std::size_t n) { return 2.0 * std::ceil(std::log2(double(n))) + 2.0; };
  SECTION("unit boxes along a line, in order") {
    std::vector<Aabb> boxes;
    for (int i = 0; i < 4096; ++i) boxes.push_back(cube(Vec3(1.5 * i, 0, 0), 0.5));
    AabbTreeBroadPhase tree = make_tree();
    insert_one_by_one(tree, boxes);
    CHECK(tree.tree_height() <= bound(boxes.size()));
  }
  SECTION("a 16 x 16 x 16 grid of unit boxes in lexicographic order") {
    std::vector<Aabb> boxes;
    for (int x = 0; x < 16; ++x)
      for (int y = 0; y < 16; ++y)
        for (int z = 0; z < 16; ++z) boxes.push_back(cube(Vec3(2.0 * x, 2.0 * y, 2.0 * z), 0.5));
    AabbTreeBroadPhase tree = make_tree();
    insert_one_by_one(tree, boxes);
    CHECK(tree.tree_height() <= bound(boxes.size()));
  }
  SECTION("identical boxes") {
    const std::vector<Aabb> boxes(512, box({0, 0, 0}, {1, 1, 1}));
    AabbTreeBroadPhase tree = make_tree();
    insert_one_by_one(tree, boxes);
    CHECK(tree.tree_height() <= bound(boxes.size()));
  }
  SECTION("points on a line with no margin (zero areas everywhere)") {
    std::vector<Aabb> boxes;
    for (int i = 0; i < 2048; ++i) boxes.push_back(box({double(i), 0, 0}, {double(i), 0, 0}));
    AabbTreeBroadPhase tree = make_tree({{"fat_margin_relative", 0.0}});
    insert_one_by_one(tree, boxes);
    CHECK(tree.tree_height() <= bound(boxes.size()));
  }
  SECTION("and it stays balanced when the boxes then move in order, a quarter per step") {
    AabbTreeBroadPhase tree = make_tree({{"fat_margin_relative", 0.0}});
    const ProxyId n = 2048;
    for (ProxyId i = 0; i < n; ++i) tree.insert(i, cube(Vec3(1.5 * i, 0, 0), 0.5));
    std::vector<ProxyPair> pairs;
    tree.collect_pairs(pairs);
    for (int step = 1; step <= 20; ++step) {
      for (ProxyId i = step % 4; i < n; i += 4)
        tree.set_box(i, cube(Vec3(1.5 * i + 0.1 * step, 0.3 * step, 0), 0.5));
      tree.collect_pairs(pairs);
    }
    tree.check_invariants();
    CHECK(tree.tree_height() <= bound(n));
  }
}

TEST_CASE("aabb_tree: the top-down build stays shallow for badly spread input") {
  // Points at x = 2^k across the whole float range: each binned split of the top-down build can
  // only cut a few binades off the top, so without its fall-back to median splits below depth 48
  // the tree would be about 70 levels deep.
  AabbTreeBroadPhase tree = make_tree({{"fat_margin_relative", 0.0}});
  ProxyId id = 0;
  for (int k = -149; k <= 126; ++k) {
    const double x = std::ldexp(1.0, k);
    tree.insert(id++, box({x, 0, 0}, {x, 0, 0}));
  }
  std::vector<ProxyPair> pairs;
  tree.collect_pairs(pairs);
  tree.check_invariants();
  CHECK(tree.tree_height() <= 48 + std::ceil(std::log2(double(id))));
  CHECK(pairs.empty());
}
