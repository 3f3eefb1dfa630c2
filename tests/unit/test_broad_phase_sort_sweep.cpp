// Unit tests of the sort-and-sweep broad phase (plugins/broadphase-sort-sweep): its pair set equals
// the brute-force broad phase's after every update of seeded random scenes, and its sweep axis
// follows the principal direction of the box centres.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "broad_phase_oracle.hpp"
#include "sort_sweep_broad_phase.hpp"

using contactlab::Aabb;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::ProxyId;
using contactlab::ProxyPair;
using contactlab::Vec3;
using contactlab::plugins::BruteForceBroadPhase;
using namespace contactlab::testing;  // box, Body, random_bodies, ... (broad_phase_oracle.hpp)
using Checked = contactlab::testing::OracleChecked<contactlab::plugins::SortSweepBroadPhase>;
using contactlab::plugins::SortSweepBroadPhase;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

SortSweepBroadPhase make_sweep(std::int64_t axis_update_interval = 1,
                               double axis_hysteresis = 0.1) {
  return SortSweepBroadPhase(
      ParameterValues::defaults(SortSweepBroadPhase::schema(),
                                {{"axis_update_interval", ParameterValue{axis_update_interval}},
                                 {"axis_hysteresis", ParameterValue{axis_hysteresis}}}));
}

/// Unit boxes with centres spread along `direction` (±length) plus a little noise across it.
std::vector<Aabb> boxes_along(std::mt19937_64& rng, const Vec3& direction, int count,
                              double length) {
  std::uniform_real_distribution<double> along(-length, length);
  std::vector<Aabb> boxes;
  for (int i = 0; i < count; ++i) {
    const Vec3 centre = along(rng) * direction.normalized() + uniform_vec(rng, -1.0, 1.0);
    boxes.push_back(box(centre - Vec3::Constant(0.5), centre + Vec3::Constant(0.5)));
  }
  return boxes;
}

}  // namespace

TEST_CASE("sort_sweep: declares its axis parameters, is incremental, reports box distances") {
  const auto schema = SortSweepBroadPhase::schema();
  REQUIRE(schema.size() == 2);
  CHECK(schema[0].name == "axis_update_interval");
  CHECK(schema[1].name == "axis_hysteresis");
  const SortSweepBroadPhase sweep{ParameterValues{}};
  CHECK(sweep.capabilities().incremental);
  CHECK(sweep.capabilities().box_distance);
  CHECK(sweep.axis() == Vec3::UnitX());
}

TEST_CASE("sort_sweep: out-of-range parameters and unknown or duplicate ids throw") {
  CHECK_THROWS_AS(make_sweep(0), contactlab::InputError);
  CHECK_THROWS_AS(make_sweep(1, -0.5), contactlab::InputError);
  CHECK_THROWS_AS(make_sweep(1, std::nan("")), contactlab::InputError);

  SortSweepBroadPhase sweep = make_sweep();
  sweep.insert(0, box({0, 0, 0}, {1, 1, 1}));
  CHECK_THROWS_AS(sweep.insert(0, Aabb{}), contactlab::Error);
  CHECK_THROWS_AS(sweep.set_box(1, Aabb{}), contactlab::Error);
  CHECK_THROWS_AS(sweep.remove(3), contactlab::Error);
  CHECK_THROWS_AS(sweep.box_distance(0, 7), contactlab::Error);
  CHECK_THROWS_WITH(sweep.set_box(5, Aabb{}), Catch::Contains("set_box(5)"));
  sweep.remove(0);
  CHECK_THROWS_AS(sweep.set_box(0, Aabb{}), contactlab::Error);
  CHECK_THROWS_AS(sweep.remove(0), contactlab::Error);
}

TEST_CASE("sort_sweep: no proxy and one proxy give no pairs") {
  Checked checked(make_sweep());
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

TEST_CASE("sort_sweep: boxes touching at corners along an oblique axis are all found") {
  // Unit cubes [k, k+1]³ on the diagonal: the sweep axis becomes (1,1,1)/√3, not exactly
  // representable, and each cube touches the next at one corner only.
  for (const double gap : {0.0, 1e-12}) {
    Checked checked(make_sweep());
    for (ProxyId k = 0; k < 40; ++k) {
      const double low = k * (1.0 + gap);
      checked.insert(k, box(Vec3::Constant(low), Vec3::Constant(low + 1.0)));
    }
    const std::size_t pairs = checked.check();
    CHECK(pairs == (gap == 0.0 ? 39u : 0u));
    CHECK(std::abs(checked.subject().axis().dot(Vec3::Ones().normalized())) > 1.0 - 1e-12);
  }
}

TEST_CASE("sort_sweep: the axis follows the principal direction of the box centres") {
  std::mt19937_64 rng(0x5e11a001);
  const Vec3 diagonal = Vec3(1, 1, 0).normalized();
  Checked checked(make_sweep());
  const std::vector<Aabb> first = boxes_along(rng, diagonal, 300, 40.0);
  for (ProxyId id = 0; id < first.size(); ++id) checked.insert(id, first[id]);
  checked.check();
  CHECK(std::abs(checked.subject().axis().dot(diagonal)) > 0.999);
  CHECK(checked.subject().axis().norm() == Approx(1.0).epsilon(1e-14));

  // The same boxes spread along z instead: the axis turns to it at the next collect_pairs.
  const std::vector<Aabb> second = boxes_along(rng, Vec3::UnitZ(), 300, 40.0);
  for (ProxyId id = 0; id < second.size(); ++id) checked.set_box(id, second[id]);
  checked.check();
  CHECK(std::abs(checked.subject().axis().z()) > 0.999);
}

TEST_CASE("sort_sweep: the hysteresis keeps the axis unless the new spread is enough larger") {
  // Along x first; then along (1,1,0)/√2, where the variance along x is half the largest one.
  for (const double hysteresis : {0.5, 1.5}) {
    std::mt19937_64 rng(0x5e11a002);
    Checked checked(make_sweep(1, hysteresis));
    const std::vector<Aabb> along_x = boxes_along(rng, Vec3::UnitX(), 300, 40.0);
    for (ProxyId id = 0; id < along_x.size(); ++id) checked.insert(id, along_x[id]);
    checked.check();
    REQUIRE(std::abs(checked.subject().axis().x()) > 0.999);
    const Vec3 diagonal = Vec3(1, 1, 0).normalized();
    const std::vector<Aabb> along_diagonal = boxes_along(rng, diagonal, 300, 40.0);
    for (ProxyId id = 0; id < along_diagonal.size(); ++id) checked.set_box(id, along_diagonal[id]);
    checked.check();
    if (hysteresis == 0.5)
      CHECK(std::abs(checked.subject().axis().dot(diagonal)) > 0.999);  // 2 > 1 + 0.5
    else
      CHECK(std::abs(checked.subject().axis().x()) > 0.999);  // 2 < 1 + 1.5
  }
}

TEST_CASE("sort_sweep: axis_update_interval recomputes the axis every that many calls only") {
  std::mt19937_64 rng(0x5e11a003);
  Checked checked(make_sweep(3));
  const std::vector<Aabb> along_x = boxes_along(rng, Vec3::UnitX(), 200, 40.0);
  const std::vector<Aabb> along_y = boxes_along(rng, Vec3::UnitY(), 200, 40.0);
  for (ProxyId id = 0; id < along_x.size(); ++id) checked.insert(id, along_x[id]);
  checked.check();  // call 1 computes the axis
  for (ProxyId id = 0; id < along_y.size(); ++id) checked.set_box(id, along_y[id]);
  checked.check();  // call 2
  CHECK(std::abs(checked.subject().axis().x()) > 0.999);
  checked.check();  // call 3
  CHECK(std::abs(checked.subject().axis().x()) > 0.999);
  checked.check();  // call 4 recomputes it
  CHECK(std::abs(checked.subject().axis().y()) > 0.999);
}

TEST_CASE("sort_sweep: equals brute force at every step of coherent motion, without full sorts") {
  std::mt19937_64 rng(0x5e11a004);
  std::vector<Body> bodies = random_bodies(rng, 400, 6.0, 0.05, 1.2, 0.02);
  Checked checked(make_sweep());
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.insert(id, bodies[id].aabb());
  std::size_t pairs = checked.check();
  const std::uint64_t full_sorts = checked.subject().full_sort_count();
  for (int step = 0; step < 60; ++step) {
    for (ProxyId id = 0; id < bodies.size(); ++id) {
      bodies[id].step(6.0);
      checked.set_box(id, bodies[id].aabb());
    }
    pairs += checked.check();
  }
  CHECK(pairs > 2500);
  // The first call sorted 400 fresh entries; afterwards the insertion sort keeps up by itself.
  CHECK(checked.subject().full_sort_count() == full_sorts);
}

TEST_CASE("sort_sweep: equals brute force when some or all boxes teleport") {
  std::mt19937_64 rng(0x5e11a005);
  std::vector<Body> bodies = random_bodies(rng, 300, 6.0, 0.05, 2.0, 0.05);
  Checked checked(make_sweep());
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
  CHECK(pairs > 3500);
  // Everything teleports: the order is random, and the insertion sort hands over to a full sort.
  const std::uint64_t full_sorts = checked.subject().full_sort_count();
  for (ProxyId id = 0; id < bodies.size(); ++id) {
    bodies[id].centre = uniform_vec(rng, -6.0, 6.0);
    checked.set_box(id, bodies[id].aabb());
  }
  checked.check();
  CHECK(checked.subject().full_sort_count() == full_sorts + 1);
}

TEST_CASE("sort_sweep: equals brute force after every insert, remove and set_box, ids reused") {
  std::mt19937_64 rng(0x5e11a006);
  Checked checked(make_sweep());
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
      // Removed and inserted again before the next collect_pairs: the entry is taken back.
      if (percent(rng) < 25) {
        checked.insert(id, random_box());
        live[id] = 1;
      }
    } else {
      checked.set_box(id, random_box());
    }
    pairs += checked.check();
  }
  CHECK(pairs > 700000);
}

TEST_CASE("sort_sweep: equals brute force with every box in one plane (zero thickness)") {
  std::mt19937_64 rng(0x5e11a007);
  std::vector<Body> bodies = random_bodies(rng, 300, 6.0, 0.05, 1.0, 0.03);
  Checked checked(make_sweep());
  for (Body& body : bodies) {
    body.centre.z() = 1.0;
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
  CHECK(pairs > 5000);
  CHECK(std::abs(checked.subject().axis().z()) < 1e-9);  // no spread across the plane
}

TEST_CASE("sort_sweep: equals brute force on grid-snapped boxes with many equal coordinates") {
  std::mt19937_64 rng(0x5e11a008);
  std::uniform_int_distribution<int> lattice(-12, 12);
  std::uniform_int_distribution<int> size_index(0, 4);
  const double sizes[] = {0.0, 0.5, 1.0, 2.0, 4.0};
  auto snapped_box = [&]() {
    const Vec3 corner(0.5 * lattice(rng), 0.5 * lattice(rng), 0.5 * lattice(rng));
    const Vec3 extent(sizes[size_index(rng)], sizes[size_index(rng)], sizes[size_index(rng)]);
    return box(corner, corner + extent);
  };
  Checked checked(make_sweep());
  for (ProxyId id = 0; id < 250; ++id) checked.insert(id, snapped_box());
  std::size_t pairs = checked.check();
  std::uniform_int_distribution<ProxyId> pick(0, 249);
  for (int step = 0; step < 200; ++step) {
    for (int moved = 0; moved < 10; ++moved) checked.set_box(pick(rng), snapped_box());
    pairs += checked.check();
  }
  CHECK(pairs > 40000);
}

TEST_CASE("sort_sweep: equals brute force with tiny boxes beside huge ones") {
  std::mt19937_64 rng(0x5e11a009);
  std::vector<Body> bodies = random_bodies(rng, 300, 50.0, 1e-6, 1e4, 0.5);
  Checked checked(make_sweep());
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

TEST_CASE("sort_sweep: equals brute force with infinite boxes, also switching to finite and back") {
  std::mt19937_64 rng(0x5e11a00a);
  std::vector<Body> bodies = random_bodies(rng, 200, 5.0, 0.05, 1.0, 0.05);
  const std::vector<Aabb> unbounded = {
      box({-inf, -inf, -inf}, {inf, inf, 0}),    // floor z ≤ 0
      box({-inf, -inf, 2}, {inf, inf, inf}),     // ceiling z ≥ 2
      box({-inf, -inf, -inf}, {inf, inf, inf}),  // everything
      box({-1, -inf, -inf}, {1, inf, inf}),      // slab |x| ≤ 1
      box({3, -inf, -1}, {inf, inf, 1}),         // infinite along two axes and one direction
      box({4, 4, 4}, {inf, 4.5, 4.5}),           // a ray-like box
  };
  Checked checked(make_sweep());
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
  // Every proxy switched back to a finite box, then all of them removed: nothing is left over.
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.set_box(id, bodies[id].aabb());
  checked.check();
  for (ProxyId id = 0; id < bodies.size(); ++id) checked.remove(id);
  for (std::size_t i = 0; i < unbounded.size(); ++i) checked.remove(static_cast<ProxyId>(1000 + i));
  CHECK(checked.check() == 0);
}

TEST_CASE("sort_sweep: box_distance is the Euclidean gap between the current boxes") {
  SortSweepBroadPhase sweep = make_sweep();
  sweep.insert(0, box({0, 0, 0}, {1, 1, 1}));
  sweep.insert(1, box({4, 5, 1}, {6, 6, 2}));
  sweep.insert(2, box({0.5, 0.5, 0.5}, {3, 3, 3}));
  CHECK(sweep.box_distance(0, 1) == Approx(5.0).epsilon(1e-15));  // gaps 3 and 4
  CHECK(sweep.box_distance(1, 0) == Approx(5.0).epsilon(1e-15));
  CHECK(sweep.box_distance(0, 2) == 0.0);
  sweep.set_box(1, box({1, 1, 4}, {2, 2, 5}));
  CHECK(sweep.box_distance(0, 1) == Approx(3.0).epsilon(1e-15));
}

TEST_CASE("sort_sweep: collect_pairs replaces the contents and does not reallocate once grown") {
  std::mt19937_64 rng(0x5e11a00b);
  std::vector<Body> bodies = random_bodies(rng, 200, 4.0, 0.1, 1.0, 0.02);
  SortSweepBroadPhase sweep = make_sweep();
  for (ProxyId id = 0; id < bodies.size(); ++id) sweep.insert(id, bodies[id].aabb());
  std::vector<ProxyPair> pairs = {{7, 8}, {9, 10}};
  sweep.collect_pairs(pairs);
  REQUIRE(pairs.size() > 30);
  pairs.reserve(4 * pairs.size());  // room for the pair count to fluctuate as the boxes move
  const ProxyPair* storage = pairs.data();
  const std::size_t capacity = pairs.capacity();
  for (int step = 0; step < 20; ++step) {
    for (ProxyId id = 0; id < bodies.size(); ++id) {
      bodies[id].step(4.0);
      sweep.set_box(id, bodies[id].aabb());
    }
    sweep.collect_pairs(pairs);
    CHECK(pairs.data() == storage);
    CHECK(pairs.capacity() == capacity);
  }
}
