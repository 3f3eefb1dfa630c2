// Unit tests of the aabb_tree broad phase's tree on its own (plugins/broadphase-aabb-tree/
// aabb_tree.hpp), without the adapter's proxies and pairs: box queries and the self traversal
// against brute force over the leaves' boxes, after inserts, moves, removes and rebuilds.
#include <algorithm>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "aabb_tree.hpp"

using contactlab::ProxyId;
using contactlab::plugins::aabb_tree::Box;
using contactlab::plugins::aabb_tree::overlaps;
using contactlab::plugins::aabb_tree::same;
using contactlab::plugins::aabb_tree::Tree;
using contactlab::plugins::aabb_tree::tree_box;
using contactlab::plugins::aabb_tree::TreeBox;

namespace {

Box cube(double x, double y, double z, double half) {
  return Box{{x - half, y - half, z - half}, {x + half, y + half, z + half}};
}

/// The tree, the leaves' boxes (indexed by id) and which ids are leaves, driven together.
struct Subject {
  Tree tree;
  std::vector<Box> fat;
  std::vector<bool> in_tree;

  explicit Subject(std::size_t count) : fat(count), in_tree(count, false) {
    tree.reserve_leaves(count);
  }

  /// The leaves overlapping `query`, by brute force over the boxes.
  std::set<ProxyId> expected(const TreeBox& query) const {
    std::set<ProxyId> ids;
    for (ProxyId id = 0; id < fat.size(); ++id)
      if (in_tree[id] && overlaps(tree_box(fat[id]), query)) ids.insert(id);
    return ids;
  }

  std::set<ProxyId> found(const TreeBox& query) {
    std::set<ProxyId> ids;
    tree.query(query, fat, [&](ProxyId id) { CHECK(ids.insert(id).second); });
    return ids;
  }

  /// Every pair of leaves whose boxes overlap, by brute force.
  std::set<std::pair<ProxyId, ProxyId>> expected_pairs() const {
    std::set<std::pair<ProxyId, ProxyId>> pairs;
    for (ProxyId a = 0; a < fat.size(); ++a)
      for (ProxyId b = a + 1; b < fat.size(); ++b)
        if (in_tree[a] && in_tree[b] && overlaps(tree_box(fat[a]), tree_box(fat[b])))
          pairs.emplace(a, b);
    return pairs;
  }

  std::set<std::pair<ProxyId, ProxyId>> found_pairs() {
    std::set<std::pair<ProxyId, ProxyId>> pairs;
    tree.overlapping_leaves([&](ProxyId a, ProxyId b) {
      CHECK(pairs.emplace(std::min(a, b), std::max(a, b)).second);  // each pair once
    });
    return pairs;
  }

  /// The structural checks, and every leaf is one of ours and holds its box.
  void check() const {
    std::size_t leaves = 0;
    for (bool in : in_tree) leaves += in ? 1 : 0;
    const std::size_t checked = tree.check_invariants([&](ProxyId id, const TreeBox* held) {
      REQUIRE(id < fat.size());
      CHECK(in_tree[id]);
      if (held) CHECK(same(*held, tree_box(fat[id])));
    });
    CHECK(checked == leaves);
  }
};

}  // namespace

TEST_CASE(
    "aabb_tree::Tree: queries find exactly the overlapping leaves through inserts, moves "
    "and removes") {
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> place(0.0, 20.0);
  std::uniform_real_distribution<double> size(0.05, 1.5);
  std::uniform_real_distribution<double> step(-0.7, 0.7);
  std::uniform_int_distribution<int> action(0, 9);
  constexpr std::size_t count = 300;
  Subject s(count);
  for (int round = 0; round < 40; ++round) {
    for (ProxyId id = 0; id < count; ++id) {
      const int a = action(rng);
      if (!s.in_tree[id]) {
        if (a < 5) {  // a new leaf
          s.fat[id] = cube(place(rng), place(rng), place(rng), size(rng));
          s.tree.insert(id, s.fat);
          s.in_tree[id] = true;
        }
      } else if (a == 0) {
        s.tree.remove(id);
        s.in_tree[id] = false;
      } else if (a < 6) {  // a short move, or now and then a teleport
        const Box& old = s.fat[id];
        const double half = 0.5 * (old.hi[0] - old.lo[0]);
        const double x = a == 1 ? place(rng) : old.lo[0] + half + step(rng);
        s.fat[id] = cube(x, old.lo[1] + half + step(rng), old.lo[2] + half + step(rng), half);
        s.tree.move(id, s.fat);
      }
    }
    s.check();
    for (int q = 0; q < 20; ++q) {
      const TreeBox query = tree_box(cube(place(rng), place(rng), place(rng), 3.0 * size(rng)));
      REQUIRE(s.found(query) == s.expected(query));
    }
    REQUIRE(s.found_pairs() == s.expected_pairs());
  }
}

TEST_CASE(
    "aabb_tree::Tree: a rebuild holds the leaves it was given, and incremental updates "
    "continue from it") {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> place(-10.0, 10.0);
  constexpr std::size_t count = 200;
  Subject s(count);
  // Identical boxes among them: the build must split them although their centres tie.
  for (ProxyId id = 0; id < count; ++id)
    s.fat[id] = id % 4 == 0 ? cube(1, 1, 1, 0.5) : cube(place(rng), place(rng), place(rng), 0.6);
  s.tree.clear();
  for (ProxyId id = 0; id < count; id += 2) {
    s.tree.add_to_build(id, tree_box(s.fat[id]));
    s.in_tree[id] = true;
  }
  s.tree.build();
  s.check();
  CHECK(s.tree.height() > 0);
  REQUIRE(s.found_pairs() == s.expected_pairs());
  // Then the odd ids join and half of the even ones move.
  for (ProxyId id = 1; id < count; id += 2) {
    s.tree.insert(id, s.fat);
    s.in_tree[id] = true;
  }
  for (ProxyId id = 0; id < count; id += 4) {
    s.fat[id] = cube(place(rng), place(rng), place(rng), 0.6);
    s.tree.move(id, s.fat);
  }
  s.check();
  REQUIRE(s.found_pairs() == s.expected_pairs());
  const TreeBox everything = tree_box(Box{{-20, -20, -20}, {20, 20, 20}});
  CHECK(s.found(everything).size() == count);
}

TEST_CASE("aabb_tree::Tree: an empty tree and a single leaf answer queries") {
  Subject s(2);
  s.check();
  CHECK(s.tree.height() == 0);
  const TreeBox near = tree_box(cube(0, 0, 0, 1));
  CHECK(s.found(near).empty());
  CHECK(s.found_pairs().empty());
  s.fat[1] = cube(0.5, 0, 0, 0.25);
  s.tree.insert(1, s.fat);
  s.in_tree[1] = true;
  s.check();
  CHECK(s.tree.height() == 0);  // a single leaf is the root
  CHECK(s.found(near) == std::set<ProxyId>{1});
  CHECK(s.found(tree_box(cube(5, 5, 5, 1))).empty());
  // A moved leaf is found at its new place only.
  s.fat[1] = cube(5, 5, 5, 0.25);
  s.tree.move(1, s.fat);
  CHECK(s.found(near).empty());
  CHECK(s.found(tree_box(cube(5, 5, 5, 1))) == std::set<ProxyId>{1});
  s.tree.remove(1);
  s.in_tree[1] = false;
  s.check();
  CHECK(s.found(tree_box(cube(5, 5, 5, 1))).empty());
}
