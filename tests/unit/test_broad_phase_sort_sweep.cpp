// Unit tests of the sort-and-sweep broad phase (plugins/broadphase-sort-sweep): its pair set equals
// the brute-force broad phase's after every update of seeded random scenes, and its sweep axis
// follows the principal direction of the box centres.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "broad_phase_oracle.hpp"
#include "sort_sweep_broad_phase.hpp"

using namespace contactlab::testing;  // broad_phase_oracle.hpp: box, OracleChecked, scenarios
using contactlab::plugins::SortSweepBroadPhase;
using Checked = OracleChecked<SortSweepBroadPhase>;

namespace {

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
    boxes.push_back(cube(centre, 0.5));
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
  no_and_one_proxy(checked, box({-inf, -inf, -inf}, {inf, inf, 0}));
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
  MovingBodies scene(0x5e11a004, 400, 6.0, 0.05, 1.2, 0.02);
  Checked checked(make_sweep());
  std::size_t pairs = insert_bodies(checked, scene.bodies);
  const std::uint64_t full_sorts = checked.subject().full_sort_count();
  pairs += move_bodies(checked, scene, 60);
  CHECK(pairs > 2500);
  // The first call sorted 400 fresh entries; afterwards the insertion sort keeps up by itself.
  CHECK(checked.subject().full_sort_count() == full_sorts);
}

TEST_CASE("sort_sweep: equals brute force when some or all boxes teleport") {
  MovingBodies scene(0x5e11a005, 300, 6.0, 0.05, 2.0, 0.05);
  Checked checked(make_sweep());
  CHECK(teleports(checked, scene) > 3500);
  // Everything teleports: the order is random, and the insertion sort hands over to a full sort.
  const std::uint64_t full_sorts = checked.subject().full_sort_count();
  for (ProxyId id = 0; id < scene.bodies.size(); ++id) {
    scene.bodies[id].centre = uniform_vec(scene.rng, -6.0, 6.0);
    checked.set_box(id, scene.bodies[id].aabb());
  }
  checked.check();
  CHECK(checked.subject().full_sort_count() == full_sorts + 1);
}

TEST_CASE("sort_sweep: equals brute force after every insert, remove and set_box, ids reused") {
  // A quarter of the removed ids are inserted again before the next collect_pairs: the entry is
  // taken back.
  Checked checked(make_sweep());
  CHECK(insert_remove_reuse(checked, 0x5e11a006, 25) > 700000);
}

TEST_CASE("sort_sweep: equals brute force with every box in one plane (zero thickness)") {
  MovingBodies scene(0x5e11a007, 300, 6.0, 0.05, 1.0, 0.03);
  Checked checked(make_sweep());
  CHECK(bodies_in_plane(checked, scene) > 5000);
  CHECK(std::abs(checked.subject().axis().z()) < 1e-9);  // no spread across the plane
}

TEST_CASE("sort_sweep: equals brute force on grid-snapped boxes with many equal coordinates") {
  Checked checked(make_sweep());
  CHECK(lattice_boxes(checked, 0x5e11a008) > 40000);
}

TEST_CASE("sort_sweep: equals brute force with tiny boxes beside huge ones") {
  Checked checked(make_sweep());
  CHECK(tiny_beside_huge(checked, 0x5e11a009) > 200000);
}

TEST_CASE("sort_sweep: equals brute force with infinite boxes, also switching to finite and back") {
  Checked checked(make_sweep());
  CHECK(infinite_boxes_switching(checked, 0x5e11a00a) > 60000);
}

TEST_CASE("sort_sweep: box_distance is the Euclidean gap between the current boxes") {
  SortSweepBroadPhase sweep = make_sweep();
  euclidean_gaps(sweep);
  sweep.set_box(1, box({1, 1, 4}, {2, 2, 5}));
  CHECK(sweep.box_distance(0, 1) == Approx(3.0).epsilon(1e-15));
}

TEST_CASE("sort_sweep: collect_pairs replaces the contents and does not reallocate once grown") {
  SortSweepBroadPhase sweep = make_sweep();
  moving_bodies_keep_storage(sweep, 0x5e11a00b, 30);
}
