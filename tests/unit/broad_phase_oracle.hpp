// Test support shared by the broad-phase unit tests: a broad phase run in lockstep with the
// brute-force oracle, seeded random boxes moving coherently inside a cube, and the scenarios that
// several broad phases are put through alike (each plugin's TEST_CASE keeps its own name, seed and
// thresholds and calls the scenario here).
#pragma once

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

#include "brute_force_broad_phase.hpp"

namespace contactlab::testing {

// Visible in a test file through `using namespace contactlab::testing;`.
using contactlab::Aabb;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::ProxyId;
using contactlab::ProxyPair;
using contactlab::Vec3;
using contactlab::plugins::BruteForceBroadPhase;

inline constexpr double inf = std::numeric_limits<double>::infinity();

inline Aabb box(const Vec3& min_W, const Vec3& max_W) {
  Aabb b;
  b.min_W = min_W;
  b.max_W = max_W;
  return b;
}

inline Aabb around(const Vec3& centre, const Vec3& half) {
  return box(centre - half, centre + half);
}

inline Aabb cube(const Vec3& centre, double half) {
  return around(centre, Vec3::Constant(half));
}

/// The pairs of a broad phase in lexicographic order.
inline std::vector<ProxyPair> sorted_pairs(BroadPhase& broad_phase) {
  std::vector<ProxyPair> pairs;
  broad_phase.collect_pairs(pairs);
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

/// The pairs one list has and the other lacks (a duplicate counts as extra), for the failure text.
inline std::string difference(const std::vector<ProxyPair>& got,
                              const std::vector<ProxyPair>& expected) {
  std::vector<ProxyPair> missing, extra;
  std::set_difference(expected.begin(), expected.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), expected.begin(), expected.end(),
                      std::back_inserter(extra));
  std::ostringstream text;
  text << missing.size() << " pairs missing, " << extra.size() << " extra or repeated:";
  for (std::size_t i = 0; i < std::min<std::size_t>(missing.size(), 6); ++i)
    text << " -(" << missing[i].a << "," << missing[i].b << ")";
  for (std::size_t i = 0; i < std::min<std::size_t>(extra.size(), 6); ++i)
    text << " +(" << extra[i].a << "," << extra[i].b << ")";
  return text.str();
}

/// Applies every operation to the broad phase under test and to the brute-force oracle; check()
/// compares the pairs (and, for a broad phase that has check_invariants(), its invariants).
template <class BroadPhaseT>
class OracleChecked {
 public:
  explicit OracleChecked(BroadPhaseT subject) : subject_(std::move(subject)) {}

  void insert(ProxyId id, const Aabb& b) {
    subject_.insert(id, b);
    oracle_.insert(id, b);
    boxes_[id] = b;
  }
  void remove(ProxyId id) {
    subject_.remove(id);
    oracle_.remove(id);
    boxes_.erase(id);
  }
  void set_box(ProxyId id, const Aabb& b) {
    subject_.set_box(id, b);
    oracle_.set_box(id, b);
    boxes_[id] = b;
  }

  /// Requires equal pair sets; returns how many pairs there are.
  std::size_t check() {
    subject_.collect_pairs(pairs_);
    if constexpr (requires(const BroadPhaseT& s) { s.check_invariants(); })
      REQUIRE_NOTHROW(subject_.check_invariants());
    expected_.swap(previous_);
    oracle_.collect_pairs(expected_);  // lexicographic order
    if (checks_++ > 0 && expected_ != previous_) ++changes_;
    total_pairs_ += expected_.size();
    std::sort(pairs_.begin(), pairs_.end());
    const bool equal = pairs_ == expected_;
    if (!equal) UNSCOPED_INFO(difference(pairs_, expected_));  // only then: it costs
    REQUIRE(equal);
    return pairs_.size();
  }

  BroadPhaseT& subject() { return subject_; }
  /// The pairs of the last check(), in lexicographic order.
  const std::vector<ProxyPair>& pairs() const { return expected_; }
  /// The sum of the pair counts of all checks so far.
  std::size_t total_pairs() const { return total_pairs_; }
  /// How many checks (after the first) found other pairs than the check before.
  int changes() const { return changes_; }
  /// The current box of every live proxy.
  const std::map<ProxyId, Aabb>& boxes() const { return boxes_; }

 private:
  BroadPhaseT subject_;
  BruteForceBroadPhase oracle_{ParameterValues{}};
  std::vector<ProxyPair> pairs_, expected_, previous_;
  std::map<ProxyId, Aabb> boxes_;
  int checks_ = 0;
  int changes_ = 0;
  std::size_t total_pairs_ = 0;
};

/// `steps` times: `update(step)` changes boxes, then check(); returns the sum of the pair counts.
template <class BroadPhaseT, class Update>
std::size_t run_steps(OracleChecked<BroadPhaseT>& checked, int steps, Update update) {
  std::size_t pairs = 0;
  for (int step = 0; step < steps; ++step) {
    INFO("step " << step);
    update(step);
    pairs += checked.check();
  }
  return pairs;
}

/// A box moving with constant velocity inside a cube, bouncing off its walls.
struct Body {
  Vec3 centre;
  Vec3 half;
  Vec3 velocity;
  Aabb aabb() const { return box(centre - half, centre + half); }
  void step(double region) {
    centre += velocity;
    for (int i = 0; i < 3; ++i) {
      if (std::abs(centre[i]) > region) velocity[i] = -velocity[i];
    }
  }
};

inline Vec3 uniform_vec(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  const double x = u(rng), y = u(rng), z = u(rng);
  return Vec3(x, y, z);
}

inline double log_uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng));
}

/// Bodies of log-uniform half sizes in [half_lo, half_hi] with centres in a cube of half edge
/// `region`, moving by at most `speed` per step along each axis.
inline std::vector<Body> random_bodies(std::mt19937_64& rng, int count, double region,
                                       double half_lo, double half_hi, double speed) {
  std::vector<Body> bodies;
  for (int i = 0; i < count; ++i) {
    Body body;
    body.centre = uniform_vec(rng, -region, region);
    const double h = log_uniform(rng, half_lo, half_hi);
    body.half = h * uniform_vec(rng, 0.5, 1.0);
    body.velocity = uniform_vec(rng, -speed, speed);
    bodies.push_back(body);
  }
  return bodies;
}

/// random_bodies from a seeded generator, which stays available for the scenario's later draws.
struct MovingBodies {
  MovingBodies(std::uint64_t seed, int count, double region, double half_lo, double half_hi,
               double speed)
      : rng(seed),
        region(region),
        bodies(random_bodies(rng, count, region, half_lo, half_hi, speed)) {}

  std::mt19937_64 rng;
  double region;
  std::vector<Body> bodies;
};

/// Inserts bodies[id] as proxy id; returns the pair count.
template <class BroadPhaseT>
std::size_t insert_bodies(OracleChecked<BroadPhaseT>& checked, const std::vector<Body>& bodies) {
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.insert(id, bodies[id].aabb());
  return checked.check();
}

/// `steps` steps of `move(body)` for every body (by default a step of its motion), each followed
/// by check(); returns the sum of the pair counts.
template <class BroadPhaseT, class Move>
std::size_t move_bodies(OracleChecked<BroadPhaseT>& checked, MovingBodies& scene, int steps,
                        Move move) {
  return run_steps(checked, steps, [&](int) {
    for (ProxyId id = 0; id < scene.bodies.size(); ++id) {
      move(scene.bodies[id]);
      checked.set_box(id, scene.bodies[id].aabb());
    }
  });
}
template <class BroadPhaseT>
std::size_t move_bodies(OracleChecked<BroadPhaseT>& checked, MovingBodies& scene, int steps) {
  return move_bodies(checked, scene, steps, [&](Body& body) { body.step(scene.region); });
}

// ---- Scenarios shared by several broad phases -------------------------------------------------

/// 0 and 1 proxies give no pairs, also when the one box is `unbounded`; then two give one.
template <class BroadPhaseT>
void no_and_one_proxy(OracleChecked<BroadPhaseT>& checked, const Aabb& unbounded) {
  CHECK(checked.check() == 0);
  checked.insert(4, box({0, 0, 0}, {1, 1, 1}));
  CHECK(checked.check() == 0);
  checked.set_box(4, unbounded);
  CHECK(checked.check() == 0);
  checked.remove(4);
  CHECK(checked.check() == 0);
  checked.insert(4, box({2, 2, 2}, {2, 2, 2}));
  checked.insert(9, box({2, 2, 2}, {3, 3, 3}));
  CHECK(checked.check() == 1);
}

/// 30 steps in which every body teleports with probability 10 % and moves on otherwise; returns
/// the sum of the pair counts.
template <class BroadPhaseT>
std::size_t teleports(OracleChecked<BroadPhaseT>& checked, MovingBodies& scene) {
  std::size_t pairs = insert_bodies(checked, scene.bodies);
  std::uniform_int_distribution<int> percent(0, 99);
  return pairs + move_bodies(checked, scene, 30, [&](Body& body) {
           if (percent(scene.rng) < 10)
             body.centre = uniform_vec(scene.rng, -scene.region, scene.region);
           else
             body.step(scene.region);
         });
}

/// 2000 random inserts, removes and set_box calls on ids 0 to 149 (floors, boxes of 6 km, points
/// and boxes of 0.05 m to 3 m), checked after each; with probability `reinsert_percent` % a
/// removed id is inserted again before the check. Returns the sum of the pair counts.
template <class BroadPhaseT>
std::size_t insert_remove_reuse(OracleChecked<BroadPhaseT>& checked, std::uint64_t seed,
                                int reinsert_percent = 0) {
  std::mt19937_64 rng(seed);
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
      // Removed and inserted again before the next collect_pairs.
      if (reinsert_percent > 0 && percent(rng) < reinsert_percent) {
        checked.insert(id, random_box());
        live[id] = 1;
      }
    } else {
      checked.set_box(id, random_box());
    }
    pairs += checked.check();
  }
  return pairs;
}

/// The bodies flattened into the plane z = 1 (zero thickness), moving within it for 30 steps;
/// returns the sum of the pair counts.
template <class BroadPhaseT>
std::size_t bodies_in_plane(OracleChecked<BroadPhaseT>& checked, MovingBodies& scene) {
  for (Body& body : scene.bodies) {
    body.centre.z() = 1.0;  // on a cell boundary
    body.half.z() = 0.0;
    body.velocity.z() = 0.0;
  }
  const std::size_t pairs = insert_bodies(checked, scene.bodies);
  return pairs + move_bodies(checked, scene, 30);
}

/// How boxes of zero thickness in the plane z = 2 jiggle: `count` boxes with centres uniform in
/// [0, side]² and half sizes uniform in [half_lo, half_hi], moved by up to `jiggle` per axis and
/// step.
struct PlaneJiggle {
  int count;
  double side, half_lo, half_hi, jiggle;
  int steps;
};

/// Boxes in one plane jiggling within it (see PlaneJiggle); returns the sum of the pair counts.
template <class BroadPhaseT>
std::size_t jiggling_in_plane(OracleChecked<BroadPhaseT>& checked, std::mt19937_64& rng,
                              const PlaneJiggle& scene) {
  std::uniform_real_distribution<double> place(0.0, scene.side);
  std::uniform_real_distribution<double> half(scene.half_lo, scene.half_hi);
  std::uniform_real_distribution<double> jiggle(-scene.jiggle, scene.jiggle);
  std::vector<Vec3> centre, h;
  for (ProxyId i = 0; i < static_cast<ProxyId>(scene.count); ++i) {
    centre.emplace_back(place(rng), place(rng), 2.0);
    h.emplace_back(half(rng), half(rng), 0.0);
    checked.insert(i, around(centre[i], h[i]));
  }
  std::size_t pairs = checked.check();
  return pairs + run_steps(checked, scene.steps, [&](int) {
           for (ProxyId i = 0; i < centre.size(); ++i) {
             centre[i] += Vec3(jiggle(rng), jiggle(rng), 0.0);
             checked.set_box(i, around(centre[i], h[i]));
           }
         });
}

/// 250 boxes with corners on a 0.5 m lattice and extents of 0, 0.5, 1, 2 and 4 m, so that faces
/// coincide and many coordinates are equal; 200 steps in which 10 of them jump to new boxes.
/// Returns the sum of the pair counts.
template <class BroadPhaseT>
std::size_t lattice_boxes(OracleChecked<BroadPhaseT>& checked, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> lattice(-12, 12);
  std::uniform_int_distribution<int> size_index(0, 4);
  const double sizes[] = {0.0, 0.5, 1.0, 2.0, 4.0};
  auto snapped_box = [&]() {
    const Vec3 corner(0.5 * lattice(rng), 0.5 * lattice(rng), 0.5 * lattice(rng));
    const Vec3 extent(sizes[size_index(rng)], sizes[size_index(rng)], sizes[size_index(rng)]);
    return box(corner, corner + extent);
  };
  for (ProxyId id = 0; id < 250; ++id) checked.insert(id, snapped_box());
  std::size_t pairs = checked.check();
  std::uniform_int_distribution<ProxyId> pick(0, 249);
  return pairs + run_steps(checked, 200, [&](int) {
           for (int moved = 0; moved < 10; ++moved) checked.set_box(pick(rng), snapped_box());
         });
}

/// How boxes snapped to a grid of unit cells walk by whole cells: `count` boxes with integer
/// corners in [0, cells]³ and widths of 0, 1 or 2; every step each box that does not rest moves by
/// -1, 0 or 1 cell per axis, kept within [0, cells] when `crowded`, and every `resize_every`
/// steps (0: never) takes new widths.
struct GridWalk {
  int count;
  int cells;
  int steps;
  bool crowded;
  int resize_every;
};

/// Boxes snapped to a grid walking by whole cells (see GridWalk); `rests(id, step)` says which
/// box rests in a step. Returns the sum of the pair counts.
template <class BroadPhaseT, class Rests>
std::size_t grid_walk(OracleChecked<BroadPhaseT>& checked, std::mt19937_64& rng,
                      const GridWalk& walk, Rests rests) {
  std::uniform_int_distribution<int> cell(0, walk.cells);
  std::uniform_int_distribution<int> width(0, 2);  // 0: a point box on a grid node
  std::uniform_int_distribution<int> step_of(-1, 1);
  std::vector<Vec3> corner, size;
  for (ProxyId id = 0; id < static_cast<ProxyId>(walk.count); ++id) {
    corner.emplace_back(cell(rng), cell(rng), cell(rng));
    size.emplace_back(width(rng), width(rng), width(rng));
    checked.insert(id, box(corner[id], corner[id] + size[id]));
  }
  std::size_t pairs = checked.check();
  return pairs + run_steps(checked, walk.steps, [&](int step) {
           for (ProxyId id = 0; id < corner.size(); ++id) {
             if (rests(id, step)) continue;
             corner[id] += Vec3(step_of(rng), step_of(rng), step_of(rng));
             if (walk.crowded) corner[id] = corner[id].cwiseMax(0.0).cwiseMin(double(walk.cells));
             if (walk.resize_every > 0 && step % walk.resize_every == 0)
               size[id] = Vec3(width(rng), width(rng), width(rng));
             checked.set_box(id, box(corner[id], corner[id] + size[id]));
           }
         });
}

/// 300 bodies of 2e-6 m to 2e4 m in a cube of 100 m, 30 steps; returns the sum of the pair counts.
template <class BroadPhaseT>
std::size_t tiny_beside_huge(OracleChecked<BroadPhaseT>& checked, std::uint64_t seed) {
  MovingBodies scene(seed, 300, 50.0, 1e-6, 1e4, 0.5);
  const std::size_t pairs = insert_bodies(checked, scene.bodies);
  return pairs + move_bodies(checked, scene, 30);
}

/// 200 moving bodies and six unbounded boxes (floor, ceiling, all space, slab, two-axis infinite,
/// ray); for 30 steps each body switches between its box and an unbounded one with probability
/// 3 %. Then all switch back and every proxy is removed, which must leave no pair. Returns the sum
/// of the pair counts of the 31 checks with the unbounded boxes.
template <class BroadPhaseT>
std::size_t infinite_boxes_switching(OracleChecked<BroadPhaseT>& checked, std::uint64_t seed) {
  MovingBodies scene(seed, 200, 5.0, 0.05, 1.0, 0.05);
  std::vector<Body>& bodies = scene.bodies;
  const std::vector<Aabb> unbounded = {
      box({-inf, -inf, -inf}, {inf, inf, 0}),    // floor z ≤ 0
      box({-inf, -inf, 2}, {inf, inf, inf}),     // ceiling z ≥ 2
      box({-inf, -inf, -inf}, {inf, inf, inf}),  // everything
      box({-1, -inf, -inf}, {1, inf, inf}),      // slab |x| ≤ 1
      box({3, -inf, -1}, {inf, inf, 1}),         // infinite along two axes and one direction
      box({4, 4, 4}, {inf, 4.5, 4.5}),           // a ray-like box
  };
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.insert(id, bodies[id].aabb());
  for (std::size_t i = 0; i < unbounded.size(); ++i)
    checked.insert(static_cast<ProxyId>(1000 + i), unbounded[i]);
  std::size_t pairs = checked.check();
  std::uniform_int_distribution<std::size_t> pick_unbounded(0, unbounded.size() - 1);
  std::vector<char> is_unbounded(bodies.size(), 0);
  std::uniform_int_distribution<int> percent(0, 99);
  pairs += run_steps(checked, 30, [&](int) {
    for (ProxyId id = 0; id < bodies.size(); ++id) {
      bodies[id].step(5.0);
      if (percent(scene.rng) < 3) is_unbounded[id] = !is_unbounded[id];
      checked.set_box(id,
                      is_unbounded[id] ? unbounded[pick_unbounded(scene.rng)] : bodies[id].aabb());
    }
  });
  // Every proxy switched back to a finite box, then all of them removed: nothing is left over.
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.set_box(id, bodies[id].aabb());
  checked.check();
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.remove(id);
  for (std::size_t i = 0; i < unbounded.size(); ++i) checked.remove(static_cast<ProxyId>(1000 + i));
  CHECK(checked.check() == 0);
  return pairs;
}

/// Proxies 0 to 2 inserted into `broad_phase`; box_distance is the Euclidean gap between them (in
/// either order), 0 for overlapping boxes.
template <class BroadPhaseT>
void euclidean_gaps(BroadPhaseT& broad_phase) {
  broad_phase.insert(0, box({0, 0, 0}, {1, 1, 1}));
  broad_phase.insert(1, box({4, 5, 1}, {6, 6, 2}));
  broad_phase.insert(2, box({0.5, 0.5, 0.5}, {3, 3, 3}));
  CHECK(broad_phase.box_distance(0, 1) == Approx(5.0).epsilon(1e-15));  // gaps 3 and 4
  CHECK(broad_phase.box_distance(1, 0) == Approx(5.0).epsilon(1e-15));
  CHECK(broad_phase.box_distance(0, 2) == 0.0);
}

/// With proxies 0 to count - 1 in `broad_phase`: collect_pairs replaces stale contents (more
/// than `min_pairs` pairs, none naming an id from count on); once the vector has room for
/// `room` times as many pairs, the following `steps` calls, each after `move(step)`, reuse its
/// storage. Returns the pairs of the last call.
template <class BroadPhaseT, class Move>
std::vector<ProxyPair> collect_pairs_keeps_storage(BroadPhaseT& broad_phase, ProxyId count,
                                                   std::size_t min_pairs, std::size_t room,
                                                   int steps, Move move) {
  std::vector<ProxyPair> pairs = {{count, count + 1}, {count + 2, count + 3}};  // stale contents
  broad_phase.collect_pairs(pairs);
  REQUIRE(pairs.size() > min_pairs);
  CHECK(std::none_of(pairs.begin(), pairs.end(), [&](const ProxyPair& p) { return p.b >= count; }));
  pairs.reserve(room * pairs.size());  // room for the pair count to fluctuate as the boxes move
  const ProxyPair* storage = pairs.data();
  const std::size_t capacity = pairs.capacity();
  for (int step = 0; step < steps; ++step) {
    move(step);
    broad_phase.collect_pairs(pairs);
    CHECK(pairs.data() == storage);
    CHECK(pairs.capacity() == capacity);
  }
  return pairs;
}

/// How unit cubes jiggle: `count` of them with centres uniform in [0, side]³, moved by up to
/// `jiggle` per axis and step for `steps` steps.
struct JigglingCubes {
  int count;
  double side, jiggle;
  int steps;
};

/// collect_pairs_keeps_storage for jiggling unit cubes (see JigglingCubes); the pairs of the last
/// call are then those of the brute-force broad phase.
template <class BroadPhaseT>
void jiggling_cubes_keep_storage(BroadPhaseT& broad_phase, std::uint64_t seed,
                                 const JigglingCubes& cubes, std::size_t min_pairs,
                                 std::size_t room) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> place(0.0, cubes.side);
  std::uniform_real_distribution<double> jiggle(-cubes.jiggle, cubes.jiggle);
  std::vector<Vec3> centre;
  for (ProxyId id = 0; id < static_cast<ProxyId>(cubes.count); ++id) {
    centre.emplace_back(place(rng), place(rng), place(rng));
    broad_phase.insert(id, cube(centre.back(), 0.5));
  }
  const ProxyId count = static_cast<ProxyId>(cubes.count);
  std::vector<ProxyPair> pairs =
      collect_pairs_keeps_storage(broad_phase, count, min_pairs, room, cubes.steps, [&](int) {
        for (ProxyId id = 0; id < count; ++id) {
          centre[id] += Vec3(jiggle(rng), jiggle(rng), jiggle(rng));
          broad_phase.set_box(id, cube(centre[id], 0.5));
        }
      });
  BruteForceBroadPhase reference{ParameterValues{}};
  for (ProxyId id = 0; id < count; ++id) reference.insert(id, cube(centre[id], 0.5));
  std::sort(pairs.begin(), pairs.end());
  CHECK(pairs == sorted_pairs(reference));
}

/// collect_pairs_keeps_storage for 200 bodies moving for 20 steps.
template <class BroadPhaseT>
void moving_bodies_keep_storage(BroadPhaseT& broad_phase, std::uint64_t seed,
                                std::size_t min_pairs) {
  MovingBodies scene(seed, 200, 4.0, 0.1, 1.0, 0.02);
  for (ProxyId id = 0; id < scene.bodies.size(); ++id)
    broad_phase.insert(id, scene.bodies[id].aabb());
  collect_pairs_keeps_storage(broad_phase, 200, min_pairs, 4, 20, [&](int) {
    for (ProxyId id = 0; id < scene.bodies.size(); ++id) {
      scene.bodies[id].step(4.0);
      broad_phase.set_box(id, scene.bodies[id].aabb());
    }
  });
}

}  // namespace contactlab::testing
