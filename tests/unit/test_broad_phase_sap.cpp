// Unit tests of the incremental sweep-and-prune broad phase (plugins/broadphase-sap), checked
// against the brute-force broad phase after every update.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "broad_phase_oracle.hpp"
#include "sap_broad_phase.hpp"

using namespace contactlab::testing;  // broad_phase_oracle.hpp: box, OracleChecked, scenarios
using contactlab::plugins::SapBroadPhase;
/// Applies every operation to the sweep and prune and to the brute-force reference and compares
/// their pair sets; counts how often the pair set changed between checks, so that a scenario can
/// require that it really exercised the incremental updates.
using Mirror = OracleChecked<SapBroadPhase>;

namespace {

SapBroadPhase make_sap() {
  return SapBroadPhase{ParameterValues{}};
}

}  // namespace

TEST_CASE("sap: declares no parameters, is incremental and reports box distances") {
  CHECK(SapBroadPhase::schema().empty());
  SapBroadPhase broad_phase = make_sap();
  CHECK(broad_phase.capabilities().incremental);
  CHECK(broad_phase.capabilities().box_distance);
}

TEST_CASE("sap: no proxies and one proxy yield no pairs") {
  Mirror mirror(make_sap());
  no_and_one_proxy(mirror, box({-inf, -inf, -inf}, {inf, inf, inf}));
}

TEST_CASE("sap: closed boxes — touching faces and corners count, a 1e-12 m gap not") {
  Mirror mirror(make_sap());
  mirror.insert(0, box({0, 0, 0}, {1, 1, 1}));
  mirror.insert(1, box({1, 0.2, 0.2}, {2, 0.8, 0.8}));  // face contact with 0
  mirror.insert(2, box({1, 1, 1}, {2, 2, 2}));          // corner contact with 0
  mirror.insert(3, box({0.5, 0.5, 1}, {0.5, 0.5, 1}));  // a point on the top face of 0
  mirror.insert(4, box({-1, 0, 0}, {-1e-12, 1, 1}));    // 1e-12 m short of 0
  mirror.check();
  CHECK(mirror.pairs() == std::vector<ProxyPair>{{0, 1}, {0, 2}, {0, 3}});
  // Moving into and out of touching, from both sides, through the incremental path.
  mirror.set_box(4, box({-1, 0, 0}, {0, 1, 1}));
  mirror.check();
  mirror.set_box(4, box({1, 0, 0}, {2, 1, 1}));  // jumps over 0, lands touching it on the far side
  mirror.check();
  mirror.set_box(4, box({1 + 1e-12, 0, 0}, {2, 1, 1}));
  mirror.check();
  mirror.set_box(3, box({0.5, 0.5, 1 + 1e-12}, {0.5, 0.5, 1 + 1e-12}));
  mirror.check();
  mirror.set_box(3, box({0.5, 0.5, 1}, {0.5, 0.5, 1}));
  mirror.check();
}

TEST_CASE("sap: infinite boxes of half-spaces overlap exactly what they should while boxes move") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> step(-0.3, 0.3);
  Mirror mirror(make_sap());
  mirror.insert(0, box({-inf, -inf, -inf}, {inf, inf, 0}));    // floor z ≤ 0
  mirror.insert(1, box({-inf, -inf, -inf}, {inf, inf, inf}));  // all space
  mirror.insert(2, box({2, -inf, -inf}, {inf, inf, inf}));     // wall x ≥ 2
  mirror.insert(3, box({-inf, -inf, -2}, {inf, inf, 5}));      // a second floor slab
  std::vector<Vec3> centres;
  for (ProxyId id = 4; id < 40; ++id) {
    centres.emplace_back(step(rng) * 10, step(rng) * 10, step(rng) * 10);
    mirror.insert(id, cube(centres.back(), 0.5));
  }
  mirror.check();
  run_steps(mirror, 100, [&](int t) {
    for (ProxyId id = 4; id < 40; ++id) {
      Vec3& c = centres[id - 4];
      c += Vec3(step(rng), step(rng), step(rng));
      mirror.set_box(id, cube(c, 0.5));
    }
    // The floor rises and falls through the boxes; the wall moves between finite and infinite.
    mirror.set_box(0, box({-inf, -inf, -inf}, {inf, inf, std::sin(0.1 * t)}));
    mirror.set_box(2, box({t % 10 == 9 ? -inf : 2.0 - 0.05 * t, -inf, -inf}, {inf, inf, inf}));
  });
  CHECK(mirror.changes() > 50);
}

TEST_CASE("sap: equals brute force after every step of coherent motion of 400 boxes") {
  std::mt19937_64 rng(20250101);
  std::uniform_real_distribution<double> position(0.0, 9.0);
  std::uniform_real_distribution<double> half(0.1, 0.8);
  std::uniform_real_distribution<double> speed(-0.05, 0.05);
  Mirror mirror(make_sap());
  std::vector<Vec3> centres, halves, velocities;
  for (ProxyId id = 0; id < 400; ++id) {
    centres.emplace_back(position(rng), position(rng), position(rng));
    halves.emplace_back(half(rng), half(rng), half(rng));
    velocities.emplace_back(speed(rng), speed(rng), speed(rng));
    mirror.insert(id, around(centres[id], halves[id]));
  }
  mirror.check();
  run_steps(mirror, 150, [&](int) {
    for (ProxyId id = 0; id < 400; ++id) {
      centres[id] += velocities[id];
      for (int k = 0; k < 3; ++k) {
        if (centres[id][k] < 0.0 || centres[id][k] > 9.0) velocities[id][k] = -velocities[id][k];
      }
      mirror.set_box(id, around(centres[id], halves[id]));
    }
  });
  CHECK(mirror.changes() == 150);
  CHECK(mirror.total_pairs() > 150 * 400);  // more than one overlap per box on average
}

TEST_CASE("sap: equals brute force when boxes teleport and several set_box calls precede a check") {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> position(0.0, 6.0);
  std::uniform_real_distribution<double> half(0.05, 1.0);
  std::uniform_int_distribution<ProxyId> pick(0, 199);
  Mirror mirror(make_sap());
  const auto random_box = [&] {
    return around(Vec3(position(rng), position(rng), position(rng)),
                  Vec3(half(rng), half(rng), half(rng)));
  };
  for (ProxyId id = 0; id < 200; ++id) mirror.insert(id, random_box());
  mirror.check();
  // Some boxes move twice or more before the pairs are collected; only the last box counts.
  run_steps(mirror, 100, [&](int) {
    for (int i = 0; i < 120; ++i) mirror.set_box(pick(rng), random_box());
  });
  CHECK(mirror.changes() == 100);
}

TEST_CASE("sap: interleaved insert, remove and id reuse between and within updates") {
  std::mt19937_64 rng(4242);
  std::uniform_real_distribution<double> position(0.0, 5.0);
  std::uniform_real_distribution<double> half(0.1, 0.9);
  std::uniform_int_distribution<ProxyId> pick(0, 149);
  std::uniform_int_distribution<int> action(0, 9);
  Mirror mirror(make_sap());
  std::vector<char> live(150, 0);
  const auto random_box = [&] {
    return around(Vec3(position(rng), position(rng), position(rng)),
                  Vec3(half(rng), half(rng), half(rng)));
  };
  int inserts = 0, removes = 0, reinserted_before_update = 0;
  std::vector<char> removed_this_step(150, 0);
  run_steps(mirror, 200, [&](int t) {
    std::fill(removed_this_step.begin(), removed_this_step.end(), 0);
    const int operations = t % 7 == 0 ? 60 : 8;  // occasional bursts exercise batched merging
    for (int i = 0; i < operations; ++i) {
      const ProxyId id = pick(rng);
      const int a = action(rng);
      if (!live[id]) {
        if (removed_this_step[id]) ++reinserted_before_update;
        mirror.insert(id, random_box());
        live[id] = 1;
        ++inserts;
      } else if (a < 3) {
        mirror.remove(id);
        live[id] = 0;
        removed_this_step[id] = 1;
        ++removes;
      } else {
        // A small move: of a proxy already in the lists or of one inserted since the last update.
        Aabb b = mirror.boxes().at(id);
        const Vec3 shift(0.2 * (half(rng) - 0.5), 0.2 * (half(rng) - 0.5), 0.0);
        b.min_W += shift;
        b.max_W += shift;
        mirror.set_box(id, b);
      }
    }
  });
  CHECK(inserts > 300);
  CHECK(removes > 150);
  CHECK(reinserted_before_update > 10);
  CHECK(mirror.total_pairs() > 200 * 20);
}

TEST_CASE("sap: remove of a proxy inserted since the last update, and sparse ids") {
  Mirror mirror(make_sap());
  mirror.insert(0, box({0, 0, 0}, {1, 1, 1}));
  mirror.insert(1000, box({0.5, 0.5, 0.5}, {2, 2, 2}));
  mirror.check();
  mirror.insert(7, box({0, 0, 0}, {3, 3, 3}));
  mirror.set_box(7, box({0, 0, 0}, {0.7, 0.7, 0.7}));
  mirror.remove(7);
  mirror.insert(7, box({1.5, 1.5, 1.5}, {3, 3, 3}));  // reused before any update: overlaps 1000
  mirror.remove(0);
  mirror.insert(0, box({5, 5, 5}, {6, 6, 6}));  // reused: now alone
  mirror.check();
  CHECK(mirror.pairs() == std::vector<ProxyPair>{{7, 1000}});
  mirror.insert(2, box({0, 0, 0}, {1, 1, 1}));
  mirror.remove(2);
  mirror.check();
  CHECK(mirror.pairs() == std::vector<ProxyPair>{{7, 1000}});
}

TEST_CASE("sap: all boxes in one plane (zero thickness) moving within it") {
  std::mt19937_64 rng(31);
  Mirror mirror(make_sap());
  CHECK(jiggling_in_plane(mirror, rng, {250, 8.0, 0.1, 0.6, 0.08, 80}) > 80 * 250);
  CHECK(mirror.changes() > 60);
}

TEST_CASE("sap: boxes snapped to a grid, so that many endpoints tie, moving by whole cells") {
  // Corners within [0, 5]³ (they stay crowded there), a third of the boxes resting each step, new
  // widths every ten steps.
  std::mt19937_64 rng(555);
  Mirror mirror(make_sap());
  const std::size_t pairs = grid_walk(mirror, rng, {200, 5, 120, true, 10}, [](ProxyId id, int t) {
    return id % 3 == static_cast<ProxyId>(t % 3);
  });
  CHECK(mirror.changes() == 120);
  CHECK(pairs > 120 * 200);
}

TEST_CASE("sap: tiny boxes beside huge ones") {
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> position(-50.0, 50.0);
  std::uniform_real_distribution<double> speed(-0.5, 0.5);
  Mirror mirror(make_sap());
  std::vector<Vec3> centres, halves;
  for (ProxyId id = 0; id < 150; ++id) {
    centres.emplace_back(position(rng), position(rng), position(rng));
    // Every fifth box is huge (half width 30 m), the others between 1e-6 m and 1 m.
    const double h = id % 5 == 0 ? 30.0 : std::pow(10.0, -6.0 + 6.0 * (position(rng) + 50) / 100);
    halves.emplace_back(h, h, h);
    mirror.insert(id, around(centres[id], halves[id]));
  }
  mirror.check();
  run_steps(mirror, 100, [&](int) {
    for (ProxyId id = 0; id < 150; ++id) {
      centres[id] += Vec3(speed(rng), speed(rng), speed(rng));
      mirror.set_box(id, around(centres[id], halves[id]));
    }
  });
  CHECK(mirror.changes() > 50);
  CHECK(mirror.total_pairs() > 100 * 150);
}

TEST_CASE("sap: coordinates beyond the float range, and boxes touching there") {
  // The swap filter works on floats; bounds near and past their range must still pair exactly.
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Mirror mirror(make_sap());
  const double scales[] = {1e30, 3e38, 1e39, 1e300};
  for (ProxyId id = 0; id < 120; ++id) {
    const double s = scales[id % 4];
    const Vec3 c(s * unit(rng), s * unit(rng), s * unit(rng));
    mirror.insert(id, around(c, Vec3::Constant(0.3 * s)));
  }
  // Two boxes touching at a huge coordinate, and a box from a finite origin to +2e38 (whose
  // float image is finite) against one from 3e38 to 1e39 (whose upper bound is not).
  mirror.insert(200, box({1e300, 0, 0}, {2e300, 1, 1}));
  mirror.insert(201, box({2e300, 0.5, 0.5}, {3e300, 2, 2}));
  mirror.insert(202, box({0, 0, 0}, {2e38, 2e38, 2e38}));
  mirror.insert(203, box({3e38, 1e38, 1e38}, {1e39, 1e39, 1e39}));
  mirror.check();
  run_steps(mirror, 40, [&](int t) {
    for (ProxyId id = 0; id < 120; ++id) {
      Aabb b = mirror.boxes().at(id);
      const Vec3 shift = 0.05 * scales[id % 4] * Vec3(unit(rng) - 0.5, unit(rng) - 0.5, 0.0);
      b.min_W += shift;
      b.max_W += shift;
      mirror.set_box(id, b);
    }
    mirror.set_box(203, box({3e38 - t * 3e37, 1e38, 1e38}, {1e39, 1e39, 1e39}));
  });
  CHECK(mirror.changes() > 20);
}

TEST_CASE("sap: filling an empty scene in one batch equals brute force") {
  // 2000 boxes inserted before the first update: the pairs come from the merge sweep alone.
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> position(0.0, 14.0);
  Mirror mirror(make_sap());
  for (ProxyId id = 0; id < 2000; ++id)
    mirror.insert(id, cube(Vec3(position(rng), position(rng), position(rng)), 0.5));
  mirror.check();
  CHECK(mirror.pairs().size() > 2000);
}

TEST_CASE("sap: unknown or duplicate ids throw contactlab::Error") {
  SapBroadPhase broad_phase = make_sap();
  broad_phase.insert(0, box({0, 0, 0}, {1, 1, 1}));
  CHECK_THROWS_AS(broad_phase.insert(0, Aabb{}), contactlab::Error);  // pending
  std::vector<ProxyPair> pairs;
  broad_phase.collect_pairs(pairs);
  CHECK_THROWS_WITH(broad_phase.insert(0, Aabb{}), Catch::Contains("insert(0)"));  // listed
  CHECK_THROWS_WITH(broad_phase.set_box(1, Aabb{}), Catch::Contains("set_box(1)"));
  CHECK_THROWS_WITH(broad_phase.remove(3), Catch::Contains("remove(3)"));
  CHECK_THROWS_WITH(broad_phase.box_distance(0, 9), Catch::Contains("box_distance(9)"));
  CHECK_THROWS_AS(broad_phase.insert(0x7FFFFFFFu, Aabb{}), contactlab::Error);
  broad_phase.remove(0);
  CHECK_THROWS_AS(broad_phase.set_box(0, Aabb{}), contactlab::Error);
  CHECK_THROWS_AS(broad_phase.remove(0), contactlab::Error);
}

TEST_CASE("sap: box_distance is the Euclidean gap between the current boxes") {
  SapBroadPhase broad_phase = make_sap();
  euclidean_gaps(broad_phase);  // of boxes pending, not yet listed
  std::vector<ProxyPair> pairs;
  broad_phase.collect_pairs(pairs);
  broad_phase.set_box(1, box({0.5, 0.5, 0.5}, {3, 3, 3}));
  CHECK(broad_phase.box_distance(1, 0) == 0.0);
}

TEST_CASE("sap: collect_pairs replaces the contents and does not reallocate once grown") {
  SapBroadPhase broad_phase = make_sap();
  // 100 unit cubes in a 4 m cube jiggling by up to 0.02 m per axis for 20 steps.
  jiggling_cubes_keep_storage(broad_phase, 3, {100, 4.0, 0.02, 20}, 100, 2);
}
