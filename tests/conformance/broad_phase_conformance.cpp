// Broad-phase conformance: every BroadPhase a plugin library declares, created through the plugin
// registry (dlopen, as users get it), must report exactly the pairs of the statically linked
// brute_force reference after every update of seeded random scenes: coherent motion, teleports,
// insertions and removals with reused and sparse ids, all boxes on one plane, equal coordinates,
// tiny beside huge boxes, infinite bounds, boxes that just touch, and 0 and 1 proxies. Every pair
// must be reported once with a < b, collect_pairs must replace the caller's vector, refused calls
// must throw contactlab::Error naming the id and leave the broad phase unchanged, and where
// capabilities().box_distance is set, box_distance must equal aabb_distance.
//
// Each plugin runs with its default parameters and once more for every other value of each
// choice parameter and the other value of each boolean parameter (finite domains, so all of them
// are covered); real and integer parameters stay at their defaults.
//
// Usage: contactlab-conformance-broad-phase [options] [LIBRARY.so ...] (see
// conformance_support.hpp); fixtures/mutant_broad_phases.cpp holds the defects it must catch.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "brute_force_broad_phase.hpp"
#include "conformance_support.hpp"

namespace {

using namespace contactlab;
using Rng = std::mt19937_64;

constexpr double inf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// Random helpers. libstdc++'s distributions are deterministic for a given seed, which is all the
// reproducibility the test needs (it names scenario and update on failure).

double uniform(Rng& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

Vec3 uniform_vec(Rng& rng, double lo, double hi) {
  return Vec3(uniform(rng, lo, hi), uniform(rng, lo, hi), uniform(rng, lo, hi));
}

bool chance(Rng& rng, double probability) {
  return std::bernoulli_distribution(probability)(rng);
}

std::size_t pick(Rng& rng, std::size_t count) {
  return std::uniform_int_distribution<std::size_t>(0, count - 1)(rng);
}

Aabb make_box(const Vec3& min_W, const Vec3& max_W) {
  Aabb box;
  box.min_W = min_W;
  box.max_W = max_W;
  return box;
}

std::string describe(const Aabb& box) {
  char text[200];
  std::snprintf(text, sizeof text, "[%.17g, %.17g, %.17g]-[%.17g, %.17g, %.17g]", box.min_W.x(),
                box.min_W.y(), box.min_W.z(), box.max_W.x(), box.max_W.y(), box.max_W.z());
  return text;
}

/// A box moving with constant velocity, reflected at the walls of [lo, hi] (per axis), so that
/// scenes stay dense. A zero-size, zero-velocity axis with lo == hi stays on its plane.
struct Mover {
  Vec3 min_W = Vec3::Zero();
  Vec3 size = Vec3::Zero();
  Vec3 velocity = Vec3::Zero();  ///< displacement per update

  Aabb box() const { return make_box(min_W, min_W + size); }

  void advance(const Vec3& lo, const Vec3& hi) {
    for (int k = 0; k < 3; ++k) {
      const double top = hi[k] - size[k];
      min_W[k] += velocity[k];
      if (min_W[k] < lo[k]) {
        min_W[k] = 2.0 * lo[k] - min_W[k];
        velocity[k] = -velocity[k];
      } else if (min_W[k] > top) {
        min_W[k] = 2.0 * top - min_W[k];
        velocity[k] = -velocity[k];
      }
      min_W[k] = std::clamp(min_W[k], lo[k], std::max(lo[k], top));
    }
  }
};

Mover random_mover(Rng& rng, double lo, double hi, double min_size, double max_size, double speed) {
  Mover mover;
  mover.size = uniform_vec(rng, min_size, max_size);
  for (int k = 0; k < 3; ++k) mover.min_W[k] = uniform(rng, lo, hi - mover.size[k]);
  mover.velocity = uniform_vec(rng, -speed, speed);
  return mover;
}

// ---------------------------------------------------------------------------------------------
// The harness applies every change to the broad phase under test and to the reference, and
// compares their pair sets on each update.

using conformance::Failure;

class Harness {
 public:
  explicit Harness(BroadPhase& candidate)
      : candidate_(candidate),
        reference_(ParameterValues{}),
        check_distance_(candidate.capabilities().box_distance) {}

  BroadPhase& candidate() { return candidate_; }

  void insert(ProxyId id, const Aabb& box) {
    call("insert", id, [&] { candidate_.insert(id, box); });
    reference_.insert(id, box);
    if (id >= live_.size()) {
      live_.resize(id + 1, 0);
      boxes_.resize(id + 1);
      slot_.resize(id + 1);
    }
    live_[id] = 1;
    boxes_[id] = box;
    slot_[id] = live_ids_.size();
    live_ids_.push_back(id);
    max_live_ = std::max(max_live_, live_ids_.size());
  }

  void remove(ProxyId id) {
    call("remove", id, [&] { candidate_.remove(id); });
    reference_.remove(id);
    live_[id] = 0;
    const ProxyId last = live_ids_.back();
    live_ids_[slot_[id]] = last;
    slot_[last] = slot_[id];
    live_ids_.pop_back();
  }

  void set_box(ProxyId id, const Aabb& box) {
    call("set_box", id, [&] { candidate_.set_box(id, box); });
    reference_.set_box(id, box);
    boxes_[id] = box;
  }

  bool is_live(ProxyId id) const { return id < live_.size() && live_[id]; }
  /// The live ids, in an order that changes on removal.
  const std::vector<ProxyId>& live_ids() const { return live_ids_; }

  /// `call` (on the broad phase under test only) must throw contactlab::Error naming `id`.
  template <class Call>
  void expect_refusal(const std::string& what, ProxyId id, Call&& call) {
    const std::string name = std::to_string(id);
    try {
      call();
    } catch (const Error& e) {
      if (std::string(e.what()).find(name) == std::string::npos)
        fail(what + " threw contactlab::Error without naming the id " + name + ": " + e.what());
      return;
    } catch (const std::exception& e) {
      fail(what + " threw an exception that is not a contactlab::Error: " + e.what());
    }
    fail(what + " did not throw (it must throw contactlab::Error naming the id " + name + ")");
  }

  /// One update: the pair sets must be equal, each pair reported once with a < b.
  void check() {
    ++updates_;
    collect(candidate_pairs_);
    reference_.collect_pairs(expected_);
    std::sort(expected_.begin(), expected_.end());
    max_pairs_ = std::max(max_pairs_, expected_.size());
    compare(candidate_pairs_, "");
    // A second collect without changes must give the same set: catches state consumed by the
    // first call (moved flags, pair caches). Every fifth update keeps the cost low.
    if (updates_ % 5 == 0) {
      collect(again_);
      compare(again_, " (second collect_pairs without changes in between)");
    }
    if (check_distance_) check_box_distances();
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Failure("update " + std::to_string(updates_) + " (" + std::to_string(live_ids_.size()) +
                  " live proxies): " + what);
  }

  int updates() const { return updates_; }
  std::size_t max_live() const { return max_live_; }
  std::size_t max_pairs() const { return max_pairs_; }

 private:
  // A pair no live proxy has: if it survives collect_pairs, `out` was appended to, not replaced.
  static constexpr ProxyPair stale{std::numeric_limits<ProxyId>::max() - 1,
                                   std::numeric_limits<ProxyId>::max()};

  template <class Call>
  void call(const char* operation, ProxyId id, Call&& call) {
    try {
      call();
    } catch (const std::exception& e) {
      fail(std::string(operation) + "(" + std::to_string(id) + ") threw: " + e.what());
    } catch (...) {
      fail(std::string(operation) + "(" + std::to_string(id) + ") threw a non-standard exception");
    }
  }

  void collect(std::vector<ProxyPair>& pairs) {
    pairs.assign(3, stale);
    try {
      candidate_.collect_pairs(pairs);
    } catch (const std::exception& e) {
      fail(std::string("collect_pairs threw: ") + e.what());
    } catch (...) {
      fail("collect_pairs threw a non-standard exception");
    }
    for (const ProxyPair& pair : pairs) {
      if (pair == stale)
        fail("collect_pairs kept the old contents of `out` (it must replace them)");
      if (!(pair.a < pair.b))
        fail("reported the pair (" + std::to_string(pair.a) + ", " + std::to_string(pair.b) +
             ") with a >= b");
      if (!is_live(pair.a) || !is_live(pair.b))
        fail("reported the pair (" + std::to_string(pair.a) + ", " + std::to_string(pair.b) +
             ") of a proxy that is not live");
    }
    std::sort(pairs.begin(), pairs.end());
    const auto twice = std::adjacent_find(pairs.begin(), pairs.end());
    if (twice != pairs.end())
      fail("reported the pair (" + std::to_string(twice->a) + ", " + std::to_string(twice->b) +
           ") more than once");
  }

  std::string describe_pair(const ProxyPair& pair) const {
    return "(" + std::to_string(pair.a) + ", " + std::to_string(pair.b) +
           "): " + describe(boxes_[pair.a]) + " and " + describe(boxes_[pair.b]);
  }

  void compare(const std::vector<ProxyPair>& pairs, const char* context) {
    if (pairs == expected_) return;
    missing_.clear();
    extra_.clear();
    std::set_difference(expected_.begin(), expected_.end(), pairs.begin(), pairs.end(),
                        std::back_inserter(missing_));
    std::set_difference(pairs.begin(), pairs.end(), expected_.begin(), expected_.end(),
                        std::back_inserter(extra_));
    std::string text = std::to_string(pairs.size()) + " pairs reported, brute_force reports " +
                       std::to_string(expected_.size()) + context + ": " +
                       std::to_string(missing_.size()) + " missing, " +
                       std::to_string(extra_.size()) + " extra";
    constexpr std::size_t shown = 8;
    for (std::size_t i = 0; i < std::min(shown, missing_.size()); ++i)
      text += "\n    missing " + describe_pair(missing_[i]);
    for (std::size_t i = 0; i < std::min(shown, extra_.size()); ++i)
      text += "\n    extra   " + describe_pair(extra_[i]);
    fail(text);
  }

  void check_box_distances() {
    // Reported pairs overlap: their distance is exactly 0. Random pairs of live proxies (mostly
    // separated) must match aabb_distance to rounding, in both argument orders.
    const std::size_t overlapping = std::min<std::size_t>(expected_.size(), 8);
    for (std::size_t i = 0; i < overlapping; ++i) check_distance(expected_[i].a, expected_[i].b);
    if (live_ids_.size() < 2) return;
    for (int i = 0; i < 16; ++i) {
      const ProxyId a = live_ids_[pick(distance_rng_, live_ids_.size())];
      const ProxyId b = live_ids_[pick(distance_rng_, live_ids_.size())];
      if (a != b) check_distance(a, b);
    }
  }

  void check_distance(ProxyId a, ProxyId b) {
    const double expected = aabb_distance(boxes_[a], boxes_[b]);
    for (const auto& [first, second] : {std::pair{a, b}, std::pair{b, a}}) {
      double distance = 0.0;
      try {
        distance = candidate_.box_distance(first, second);
      } catch (const std::exception& e) {
        fail("box_distance(" + std::to_string(first) + ", " + std::to_string(second) +
             ") threw although capabilities().box_distance is set: " + e.what());
      }
      // Another formula for the same Euclidean gap differs only by rounding; overlapping boxes
      // are at distance exactly 0.
      if (!(std::abs(distance - expected) <= 1e-12 * expected)) {
        char text[160];
        std::snprintf(text, sizeof text, "box_distance(%u, %u) = %.17g, aabb_distance = %.17g",
                      first, second, distance, expected);
        fail(text + std::string("\n    boxes ") + describe_pair(ProxyPair{a, b}));
      }
    }
  }

  BroadPhase& candidate_;
  plugins::BruteForceBroadPhase reference_;
  const bool check_distance_;
  std::vector<char> live_;         ///< indexed by id
  std::vector<Aabb> boxes_;        ///< indexed by id
  std::vector<std::size_t> slot_;  ///< index of a live id in live_ids_
  std::vector<ProxyId> live_ids_;
  std::vector<ProxyPair> candidate_pairs_, again_, expected_, missing_, extra_;
  Rng distance_rng_{7};
  int updates_ = 0;
  std::size_t max_live_ = 0;
  std::size_t max_pairs_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Scenarios. Each gets a fresh broad phase and its own seed.

void no_proxies(Harness& h, Rng&) {
  h.check();
  h.check();
  h.insert(3, make_box(Vec3(0, 0, 0), Vec3(1, 1, 1)));
  h.remove(3);
  h.check();
}

void one_proxy(Harness& h, Rng& rng) {
  const Vec3 lo = Vec3::Constant(-5.0), hi = Vec3::Constant(5.0);
  Mover mover = random_mover(rng, -5.0, 5.0, 0.5, 2.0, 0.3);
  h.insert(17, mover.box());  // a sparse id
  h.check();
  for (int update = 0; update < 40; ++update) {
    mover.advance(lo, hi);
    Aabb box = mover.box();
    if (update % 10 == 5) box = make_box(Vec3::Constant(-inf), Vec3(inf, inf, 0.0));
    if (update % 10 == 7) box = make_box(uniform_vec(rng, -1e5, 1e5), Vec3::Constant(2e5));
    h.set_box(17, box);
    h.check();
  }
  h.remove(17);
  h.check();
  h.insert(0, mover.box());
  h.check();
}

void coherent_motion(Harness& h, Rng& rng) {
  // About two overlaps per box; a third of the boxes creep (up to 1 mm per update, as bodies
  // resting in contact do), so that pairs change state by tiny moves too.
  constexpr double side = 9.0;
  const Vec3 lo = Vec3::Zero(), hi = Vec3::Constant(side);
  std::vector<Mover> movers;
  for (ProxyId id = 0; id < 250; ++id) {
    movers.push_back(random_mover(rng, 0.0, side, 0.2, 1.6, chance(rng, 0.3) ? 1e-3 : 0.06));
    h.insert(id, movers[id].box());
  }
  h.check();
  for (int update = 0; update < 400; ++update) {
    // Most boxes move each update, some rest; a few grow or shrink (a rotating body's box).
    for (ProxyId id = 0; id < movers.size(); ++id) {
      if (!chance(rng, 0.85)) continue;
      if (chance(rng, 0.03)) movers[id].size *= uniform(rng, 0.9, 1.1);
      movers[id].advance(lo, hi);
      h.set_box(id, movers[id].box());
    }
    h.check();
  }
}

void teleports(Harness& h, Rng& rng) {
  constexpr double side = 10.0;
  const Vec3 lo = Vec3::Zero(), hi = Vec3::Constant(side);
  std::vector<Mover> movers;
  for (ProxyId id = 0; id < 200; ++id) {
    movers.push_back(random_mover(rng, 0.0, side, 0.3, 1.5, 0.05));
    h.insert(id, movers[id].box());
  }
  h.check();
  for (int update = 0; update < 300; ++update) {
    for (ProxyId id = 0; id < movers.size(); ++id) {
      Mover& mover = movers[id];
      if (chance(rng, 0.04)) {
        // Anywhere in the cube (a respawned body) or far outside it (a body thrown away).
        mover.min_W = chance(rng, 0.15) ? uniform_vec(rng, -1e5, 1e5)
                                        : uniform_vec(rng, 0.0, side - mover.size.maxCoeff());
      } else if (mover.min_W.minCoeff() >= 0.0 && mover.min_W.maxCoeff() <= side) {
        mover.advance(lo, hi);
      } else if (chance(rng, 0.1)) {
        mover.min_W = uniform_vec(rng, 0.0, side - mover.size.maxCoeff());  // back home
      }
      h.set_box(id, mover.box());
    }
    h.check();
  }
}

void insertions_and_removals(Harness& h, Rng& rng) {
  // Sparse ids from [0, 1500) with at most ~300 live; removed ids are reused first, most recent
  // first, as the host does. The population swings 0 → 300 → 0 three times.
  constexpr ProxyId id_space = 1500;
  constexpr double side = 10.0;
  const Vec3 lo = Vec3::Zero(), hi = Vec3::Constant(side);
  std::vector<Mover> movers(id_space);
  std::vector<ProxyId> removed;
  auto spawn = [&](ProxyId id) {
    movers[id] = random_mover(rng, 0.0, side, 0.3, 1.5, 0.05);
    h.insert(id, movers[id].box());
  };
  for (int update = 0; update < 600; ++update) {
    const double target = 300.0 * std::abs(std::sin(update * std::numbers::pi / 200.0));
    const std::size_t changes = chance(rng, 0.05) ? 0 : chance(rng, 0.2) ? 1 : 1 + pick(rng, 12);
    for (std::size_t change = 0; change < changes; ++change) {
      if (h.live_ids().size() < target) {
        while (!removed.empty() && h.is_live(removed.back())) removed.pop_back();
        ProxyId id = 0;
        if (!removed.empty() && chance(rng, 0.6)) {
          id = removed.back();
          removed.pop_back();
        } else {
          do id = static_cast<ProxyId>(pick(rng, id_space));
          while (h.is_live(id));
        }
        spawn(id);
      } else if (!h.live_ids().empty()) {
        const ProxyId id = h.live_ids()[pick(rng, h.live_ids().size())];
        h.remove(id);
        removed.push_back(id);
      }
    }
    // Removed and inserted again within one update, somewhere else.
    if (!h.live_ids().empty() && chance(rng, 0.1)) {
      const ProxyId id = h.live_ids()[pick(rng, h.live_ids().size())];
      h.remove(id);
      spawn(id);
    }
    for (const ProxyId id : h.live_ids()) {
      if (!chance(rng, 0.5)) continue;
      movers[id].advance(lo, hi);
      h.set_box(id, movers[id].box());
    }
    h.check();
  }
  while (!h.live_ids().empty()) h.remove(h.live_ids().back());
  h.check();
}

/// All boxes on the plane x_axis = level: zero thickness along `axis`, some also flat along a
/// second axis (segments) or all three (points), some coinciding exactly with another box.
void one_plane(Harness& h, Rng& rng, int axis, double level) {
  constexpr double side = 10.0;
  Vec3 lo = Vec3::Zero(), hi = Vec3::Constant(side);
  lo[axis] = hi[axis] = level;
  std::vector<Mover> movers;
  for (ProxyId id = 0; id < 200; ++id) {
    Mover mover = random_mover(rng, 0.0, side, 0.2, 1.5, 0.05);
    if (id > 0 && chance(rng, 0.05)) mover = movers[pick(rng, id)];  // coincident forever
    mover.min_W[axis] = level;
    mover.size[axis] = 0.0;
    mover.velocity[axis] = 0.0;
    if (chance(rng, 0.1)) mover.size[(axis + 1) % 3] = 0.0;
    if (chance(rng, 0.05)) mover.size.setZero();
    movers.push_back(mover);
    h.insert(id, mover.box());
  }
  h.check();
  for (int update = 0; update < 150; ++update) {
    for (ProxyId id = 0; id < movers.size(); ++id) {
      movers[id].advance(lo, hi);
      h.set_box(id, movers[id].box());
    }
    h.check();
  }
}

void equal_coordinates(Harness& h, Rng& rng) {
  // Corners on a grid of spacing 0.1 m, computed from integer indices: equal indices give equal
  // doubles, so many endpoints tie exactly and boxes touch face to face, edge to edge, corner to
  // corner; sizes of 0 cells give flat boxes. 0.1 is not a binary fraction, so the ties do not
  // come from exactly representable values.
  constexpr double spacing = 0.1;
  constexpr int cells = 40;
  using Index = Eigen::Vector3i;
  struct GridBox {
    Index min, size;
  };
  auto to_box = [&](const GridBox& g) {
    return make_box(g.min.cast<double>() * spacing, (g.min + g.size).cast<double>() * spacing);
  };
  auto random_index = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  std::vector<GridBox> grid;
  for (ProxyId id = 0; id < 200; ++id) {
    GridBox g;
    for (int k = 0; k < 3; ++k) {
      g.size[k] = random_index(0, 10);
      g.min[k] = random_index(0, cells - g.size[k]);
    }
    grid.push_back(g);
    h.insert(id, to_box(g));
  }
  h.check();
  const Aabb common = make_box(Vec3::Constant(1.2), Vec3::Constant(1.9));
  for (int update = 0; update < 300; ++update) {
    if (update % 75 == 74) {
      // Every box the same box for one update.
      for (ProxyId id = 0; id < grid.size(); ++id) h.set_box(id, common);
      h.check();
      continue;
    }
    for (ProxyId id = 0; id < grid.size(); ++id) {
      GridBox& g = grid[id];
      const int k = random_index(0, 2);
      if (chance(rng, 0.05)) g.size[k] = std::clamp(g.size[k] + random_index(-1, 1), 0, 10);
      if (chance(rng, 0.3)) g.min[k] += random_index(0, 1) ? 1 : -1;
      g.min[k] = std::clamp(g.min[k], 0, cells - g.size[k]);
      h.set_box(id, to_box(g));  // also after an update that showed the common box
    }
    h.check();
  }
}

void tiny_beside_huge(Harness& h, Rng& rng) {
  // 1e3 m boxes, 1 m boxes and 1e-6 m boxes in a 4e3 m cube; the tiny ones anywhere, on the faces
  // of huge ones (on an upper face exactly, or 5e-7 m in or out), or in a cluster at the origin.
  constexpr double huge = 1e3, tiny = 1e-6, range = 2e3;
  constexpr ProxyId huge_count = 10, unit_count = 10, tiny_count = 150;
  const Vec3 lo = Vec3::Constant(-range), hi = Vec3::Constant(range);
  std::vector<Mover> movers;
  for (ProxyId id = 0; id < huge_count; ++id)
    movers.push_back(random_mover(rng, -range, range, huge, huge, 1.0));
  for (ProxyId id = 0; id < unit_count; ++id)
    movers.push_back(random_mover(rng, -3.0, 3.0, 1.0, 1.0, 0.05));
  auto place_tiny = [&](Mover& mover) {
    mover.size = Vec3::Constant(tiny);
    mover.velocity = uniform_vec(rng, -1e-7, 1e-7);
    const double where = uniform(rng, 0.0, 1.0);
    if (where < 0.3) {
      mover.min_W = uniform_vec(rng, -range, range - tiny);
    } else if (where < 0.8) {
      const Aabb face_of = movers[pick(rng, huge_count)].box();
      const int k = static_cast<int>(pick(rng, 3));
      for (int m = 0; m < 3; ++m)
        mover.min_W[m] = uniform(rng, face_of.min_W[m], face_of.max_W[m] - tiny);
      const double offset = std::array{0.0, 0.0, 5e-7, -5e-7}[pick(rng, 4)];
      mover.min_W[k] =
          chance(rng, 0.5) ? face_of.max_W[k] + offset : face_of.min_W[k] - tiny - offset;
    } else {
      mover.min_W = uniform_vec(rng, -1e-5, 1e-5);
    }
  };
  for (ProxyId id = 0; id < tiny_count; ++id) {
    movers.emplace_back();
    place_tiny(movers.back());
  }
  for (ProxyId id = 0; id < movers.size(); ++id) h.insert(id, movers[id].box());
  h.check();
  for (int update = 0; update < 300; ++update) {
    for (ProxyId id = 0; id < movers.size(); ++id) {
      if (id >= huge_count + unit_count && chance(rng, 0.1)) {
        place_tiny(movers[id]);
      } else {
        movers[id].advance(lo, hi);
      }
      h.set_box(id, movers[id].box());
    }
    h.check();
  }
}

void infinite_bounds(Harness& h, Rng& rng) {
  // Finite boxes in [-5, 5]³ among unbounded ones: half-spaces (floor, ceiling, wall, octant),
  // all of space, a slab, a rod and a ray. Their finite bounds drift, sometimes snap onto a face
  // of a finite box or onto each other (touching half-spaces); they are removed and re-inserted.
  constexpr ProxyId finite_count = 140;
  constexpr int kinds = 8;
  const Vec3 lo = Vec3::Constant(-5.0), hi = Vec3::Constant(5.0);
  std::vector<Mover> movers;
  for (ProxyId id = 0; id < finite_count; ++id) {
    movers.push_back(random_mover(rng, -5.0, 5.0, 0.2, 1.5, 0.05));
    h.insert(id, movers[id].box());
  }
  std::array<double, kinds> level;
  for (double& l : level) l = uniform(rng, -3.0, 3.0);
  auto unbounded = [&](int kind) {
    const double l = level[kind];
    switch (kind) {
      case 0:  // floor z <= l
        return make_box(Vec3::Constant(-inf), Vec3(inf, inf, l));
      case 1:  // ceiling z >= l
        return make_box(Vec3(-inf, -inf, l), Vec3::Constant(inf));
      case 2:  // wall x >= l
        return make_box(Vec3(l, -inf, -inf), Vec3::Constant(inf));
      case 3:  // octant x, y, z <= l
        return make_box(Vec3::Constant(-inf), Vec3::Constant(l));
      case 4:  // all of space
        return make_box(Vec3::Constant(-inf), Vec3::Constant(inf));
      case 5:  // slab l <= y <= l + 1
        return make_box(Vec3(-inf, l, -inf), Vec3(inf, l + 1.0, inf));
      case 6:  // rod along x
        return make_box(Vec3(-inf, l, l), Vec3(inf, l + 0.5, l + 0.5));
      default:  // ray along +z
        return make_box(Vec3(l, l, l), Vec3(l + 0.5, l + 0.5, inf));
    }
  };
  auto id_of = [](int kind) { return finite_count + static_cast<ProxyId>(kind); };
  for (int kind = 0; kind < kinds; ++kind) h.insert(id_of(kind), unbounded(kind));
  h.check();
  for (int update = 0; update < 300; ++update) {
    for (ProxyId id = 0; id < finite_count; ++id) {
      Mover& mover = movers[id];
      if (chance(rng, 0.8)) mover.advance(lo, hi);
      if (chance(rng, 0.03)) mover.min_W.z() = level[0];  // resting on the floor
      h.set_box(id, mover.box());
    }
    for (int kind = 0; kind < kinds; ++kind) {
      const ProxyId id = id_of(kind);
      if (!h.is_live(id)) {
        if (chance(rng, 0.1)) h.insert(id, unbounded(kind));
        continue;
      }
      if (chance(rng, 0.03)) {
        h.remove(id);
        continue;
      }
      const double what = uniform(rng, 0.0, 1.0);
      if (what < 0.05) {
        const Aabb finite = movers[pick(rng, finite_count)].box();
        const std::size_t k = pick(rng, 3);
        level[kind] = chance(rng, 0.5) ? finite.min_W[k] : finite.max_W[k];
      } else if (what < 0.08) {
        level[kind] = level[pick(rng, kinds)];
      } else {
        level[kind] = std::clamp(level[kind] + uniform(rng, -0.05, 0.05), -6.0, 6.0);
      }
      h.set_box(id, unbounded(kind));
    }
    h.check();
  }
}

void touching(Harness& h, Rng& rng) {
  // Each box is attached to another: along one axis its face lies exactly on the other's face;
  // along the others the intervals overlap or also just touch (edge and corner contact). Some are
  // then moved one ulp apart (no longer a pair) or one ulp into each other.
  constexpr ProxyId count = 150;
  std::vector<Aabb> boxes;
  auto attach = [&](const Aabb& to) {
    Aabb box;
    for (int m = 0; m < 3; ++m) {
      const double size = uniform(rng, 0.2, 1.2);
      const double where = uniform(rng, 0.0, 1.0);
      if (where < 0.15) {
        box.min_W[m] = to.max_W[m];
      } else if (where < 0.3) {
        box.min_W[m] = to.min_W[m] - size;
        box.max_W[m] = to.min_W[m];
        continue;
      } else {
        box.min_W[m] = uniform(rng, to.min_W[m] - size, to.max_W[m]);
      }
      box.max_W[m] = box.min_W[m] + size;
    }
    const int k = static_cast<int>(pick(rng, 3));
    const double size = uniform(rng, 0.2, 1.2);
    const bool above = chance(rng, 0.5);
    double contact = above ? to.max_W[k] : to.min_W[k];
    const double nudge = uniform(rng, 0.0, 1.0);
    if (nudge < 0.15) contact = std::nextafter(contact, above ? inf : -inf);  // one ulp apart
    if (nudge > 0.9) contact = std::nextafter(contact, above ? -inf : inf);   // one ulp inside
    if (above) {
      box.min_W[k] = contact;
      box.max_W[k] = contact + size;
    } else {
      box.min_W[k] = contact - size;
      box.max_W[k] = contact;
    }
    return box;
  };
  boxes.push_back(make_box(Vec3::Zero(), Vec3::Constant(1.0)));
  for (ProxyId id = 1; id < count; ++id) boxes.push_back(attach(boxes[pick(rng, id)]));
  for (ProxyId id = 0; id < count; ++id) h.insert(id, boxes[id]);
  h.check();
  for (int update = 0; update < 200; ++update) {
    for (ProxyId id = 1; id < count; ++id) {
      if (!chance(rng, 0.1)) continue;
      ProxyId to = static_cast<ProxyId>(pick(rng, count));
      if (to == id) to = 0;
      boxes[id] = attach(boxes[to]);
      h.set_box(id, boxes[id]);
    }
    h.check();
  }
}

void refused_calls(Harness& h, Rng& rng) {
  // Ids unlike any other number in the messages, so that "naming the id" is unambiguous.
  constexpr ProxyId live = 4711, never = 4712, removed = 4713;
  for (ProxyId id = 0; id < 20; ++id)
    h.insert(id, random_mover(rng, 0.0, 4.0, 0.5, 1.5, 0.0).box());
  const Aabb box = make_box(Vec3::Constant(1.0), Vec3::Constant(2.0));
  const Aabb elsewhere = make_box(Vec3::Constant(50.0), Vec3::Constant(51.0));
  h.insert(live, box);
  h.insert(removed, box);
  h.remove(removed);
  h.check();
  BroadPhase& candidate = h.candidate();
  h.expect_refusal("insert of a live id", live, [&] { candidate.insert(live, elsewhere); });
  h.expect_refusal("remove of an id never inserted", never, [&] { candidate.remove(never); });
  h.expect_refusal("set_box of an id never inserted", never,
                   [&] { candidate.set_box(never, box); });
  h.expect_refusal("remove of a removed id", removed, [&] { candidate.remove(removed); });
  h.expect_refusal("set_box of a removed id", removed, [&] { candidate.set_box(removed, box); });
  if (candidate.capabilities().box_distance)
    h.expect_refusal("box_distance with an id never inserted", never,
                     [&] { candidate.box_distance(live, never); });
  h.check();  // a refused call leaves the broad phase unchanged
  h.insert(removed, elsewhere);
  h.check();
}

struct Scenario {
  const char* name;
  std::uint64_t seed;
  std::function<void(Harness&, Rng&)> run;
};

const std::vector<Scenario>& scenarios() {
  // The quick, targeted scenarios first: the self-test stops at a broad phase's first failure.
  static const std::vector<Scenario> all = {
      {"0 proxies", 1, no_proxies},
      {"1 proxy", 2, one_proxy},
      {"refused calls", 13, refused_calls},
      {"boxes that just touch", 12, touching},
      {"coherent motion", 3, coherent_motion},
      {"teleports", 4, teleports},
      {"insertions and removals, reused and sparse ids", 5, insertions_and_removals},
      {"all boxes on the plane z = 0", 6, [](Harness& h, Rng& r) { one_plane(h, r, 2, 0.0); }},
      {"all boxes on the plane x = 2.5", 7, [](Harness& h, Rng& r) { one_plane(h, r, 0, 2.5); }},
      {"all boxes on the plane y = -1", 8, [](Harness& h, Rng& r) { one_plane(h, r, 1, -1.0); }},
      {"equal coordinates", 9, equal_coordinates},
      {"tiny (1e-6 m) beside huge (1e3 m) boxes", 10, tiny_beside_huge},
      {"infinite bounds", 11, infinite_bounds},
  };
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<conformance::Check<BroadPhase>> checks;
  for (const Scenario& scenario : scenarios()) {
    std::string id;  // the scenario's name in lower case, words joined by '-'
    for (const char* c = scenario.name; *c; ++c) {
      const bool word = std::isalnum(static_cast<unsigned char>(*c));
      if (word) id += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
      if (!word && !id.empty() && id.back() != '-') id += '-';
    }
    while (!id.empty() && id.back() == '-') id.pop_back();
    checks.push_back({id,
                      std::string(scenario.name) + " (seed " + std::to_string(scenario.seed) + ")",
                      [&scenario](const conformance::Factory<BroadPhase>& make) {
                        const std::shared_ptr<BroadPhase> broad_phase = make();
                        Harness harness(*broad_phase);
                        Rng rng(scenario.seed);
                        scenario.run(harness, rng);
                        return std::to_string(harness.updates()) + " updates, up to " +
                               std::to_string(harness.max_live()) + " proxies and " +
                               std::to_string(harness.max_pairs()) + " pairs";
                      }});
  }
  return conformance::run_suite(argc, argv, checks);
}
