// Broad-phase benchmark: CPU milliseconds per update for every broad-phase plugin, side by side
// in the same run with Bullet (btDbvtBroadphase, bt32BitAxisSweep3) and FCL
// (DynamicAABBTreeCollisionManager, SaPCollisionManager), on one seeded scene: N unit cubes in a
// cube sized for about 3 overlaps per box, each moving with a small constant random velocity,
// reflected at the walls. One update is what the simulation does: every proxy gets its new box,
// then the overlapping pairs are collected. Plugins are loaded through the registry, so every
// broad-phase library in the plugin folder takes part without changes here.
//
// Per N and contestant: one instance gets the first frame and one pair query (setup, untimed in
// the update column), then `repetitions` blocks of `steps` timed updates, the contestants
// interleaved block by block, all seeing the same boxes at every update. The table gives the
// median CPU time per update over all blocks, the mean pairs per update, the ratio to the fastest
// peer, operator-new calls per update and the setup time; then the log-log slope of the time per
// update over N (1 = linear). Every contestant must report the same pair count at every update as
// the first one; a `warning:` line names any that does not.
//
// Usage: build/bin/bench_broad_phase [--n=1000,10000,100000] [--steps=100] [--repetitions=3]
//                                    [--overlaps=3] [--speed=0.02] [--seed=1] [--budget=60]
//                                    [--skip=name,...] [--quick]
//   --skip    contestants left out of the run (names as in the table; an unknown name is an error
//             that lists the known ones)
//   --budget  seconds of timed updates per contestant, N and repetition; a contestant that has
//             used them up stops early (FCL's SaP needs seconds per update at N = 100,000)
//   --quick   is --n=1000,10000 --steps=30 --repetitions=1 (a smoke run of about a minute)
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <time.h>

#include "contactlab/core/registry.hpp"

#ifdef CONTACTLAB_BENCH_HAVE_BULLET
#include <LinearMath/btAabbUtil2.h>
#include <btBulletCollisionCommon.h>
#endif
#ifdef CONTACTLAB_BENCH_HAVE_FCL
#include <fcl/broadphase/broadphase_SaP.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/config.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/narrowphase/collision_object.h>
#endif

// Every operator new in the process is counted, so that the table can show whether a contestant
// allocates during its updates (the BroadPhase contract says it must not once warmed up). The
// benchmark is single-threaded. Bullet allocates through btAlignedAlloc (malloc): not counted.
namespace {
std::size_t new_calls = 0;
}  // namespace

void* operator new(std::size_t size) {
  ++new_calls;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace {

using namespace contactlab;

// ---------------------------------------------------------------------------------------------
// The scene, regenerated from the seed for every contestant so that all see the same boxes.

/// N unit cubes whose centres move with constant velocity inside [0.5, side - 0.5]³, reflected
/// at the walls. Two unit cubes overlap when their centres are within 1 along every axis, with
/// probability (2 / (side - 1))³ for uniform centres away from the walls; side - 1 =
/// (8 N / overlaps)^(1/3) gives `overlaps` overlaps per box (a little fewer near the walls).
class Motion {
 public:
  Motion(std::size_t n, double overlaps, double speed, std::uint64_t seed)
      : side_(1.0 + std::cbrt(8.0 * static_cast<double>(n) / overlaps)) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> position(0.5, side_ - 0.5), velocity(-speed, speed);
    centres_.resize(n);
    velocities_.resize(n);
    boxes_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      centres_[i] = Vec3(position(rng), position(rng), position(rng));
      velocities_[i] = Vec3(velocity(rng), velocity(rng), velocity(rng));
    }
    update_boxes();
  }

  double side() const { return side_; }
  const std::vector<Vec3>& centres() const { return centres_; }
  const std::vector<Aabb>& boxes() const { return boxes_; }

  void advance() {
    const double lo = 0.5, hi = side_ - 0.5;
    for (std::size_t i = 0; i < centres_.size(); ++i) {
      for (int k = 0; k < 3; ++k) {
        double& c = centres_[i][k];
        c += velocities_[i][k];
        if (c < lo || c > hi) {
          c = c < lo ? 2.0 * lo - c : 2.0 * hi - c;
          velocities_[i][k] = -velocities_[i][k];
        }
      }
    }
    update_boxes();
  }

 private:
  // centre ± 0.5, the box FCL computes for a unit fcl::Box translated to the centre: all
  // contestants see bit-identical boxes.
  void update_boxes() {
    for (std::size_t i = 0; i < centres_.size(); ++i) {
      boxes_[i].min_W = centres_[i] - Vec3::Constant(0.5);
      boxes_[i].max_W = centres_[i] + Vec3::Constant(0.5);
    }
  }

  double side_;
  std::vector<Vec3> centres_, velocities_;
  std::vector<Aabb> boxes_;
};

// ---------------------------------------------------------------------------------------------
// Contestants.

class Contestant {
 public:
  virtual ~Contestant() = default;
  /// Untimed: one proxy per box of the first frame, then one pair query.
  virtual void insert_all(const Motion& motion) = 0;
  /// Timed: every proxy moved to its new box, then the pairs; returns how many pairs overlap.
  virtual std::size_t update(const Motion& motion) = 0;
};

class PluginContestant final : public Contestant {
 public:
  explicit PluginContestant(std::shared_ptr<BroadPhase> broad_phase)
      : broad_phase_(std::move(broad_phase)) {}

  void insert_all(const Motion& motion) override {
    const auto& boxes = motion.boxes();
    for (ProxyId id = 0; id < boxes.size(); ++id) broad_phase_->insert(id, boxes[id]);
    broad_phase_->collect_pairs(pairs_);
  }

  std::size_t update(const Motion& motion) override {
    const auto& boxes = motion.boxes();
    for (ProxyId id = 0; id < boxes.size(); ++id) broad_phase_->set_box(id, boxes[id]);
    broad_phase_->collect_pairs(pairs_);
    return pairs_.size();
  }

 private:
  std::shared_ptr<BroadPhase> broad_phase_;
  std::vector<ProxyPair> pairs_;
};

#ifdef CONTACTLAB_BENCH_HAVE_BULLET
btVector3 to_bullet(const Vec3& v) {
  return btVector3(v.x(), v.y(), v.z());
}

/// A Bullet broad phase driven as btCollisionWorld drives it: setAabb per proxy, then
/// calculateOverlappingPairs. Its pair cache is a superset of the overlapping pairs (btDbvt keeps
/// pairs of its enlarged leaves and removes stale ones a few per frame; the axis sweep works on
/// boxes quantised outwards), so the update ends by testing each cached pair's current boxes,
/// the work a user needing the exact pairs does.
class BulletContestant final : public Contestant {
 public:
  /// `owns_proxies`: the broad phase frees its proxies when deleted (the axis sweep's handles are
  /// slots of one array; removing them one by one would cost O(n) each).
  BulletContestant(std::unique_ptr<btBroadphaseInterface> broadphase, bool owns_proxies)
      : broadphase_(std::move(broadphase)), owns_proxies_(owns_proxies) {}
  ~BulletContestant() override {
    if (owns_proxies_) return;
    for (btBroadphaseProxy* proxy : proxies_) broadphase_->destroyProxy(proxy, &dispatcher_);
  }

  void insert_all(const Motion& motion) override {
    for (const Aabb& box : motion.boxes())
      proxies_.push_back(broadphase_->createProxy(
          to_bullet(box.min_W), to_bullet(box.max_W), BOX_SHAPE_PROXYTYPE, nullptr,
          btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter, &dispatcher_));
    broadphase_->calculateOverlappingPairs(&dispatcher_);
  }

  std::size_t update(const Motion& motion) override {
    const auto& boxes = motion.boxes();
    for (std::size_t i = 0; i < boxes.size(); ++i)
      broadphase_->setAabb(proxies_[i], to_bullet(boxes[i].min_W), to_bullet(boxes[i].max_W),
                           &dispatcher_);
    broadphase_->calculateOverlappingPairs(&dispatcher_);
    const btBroadphasePairArray& pairs =
        broadphase_->getOverlappingPairCache()->getOverlappingPairArray();
    std::size_t count = 0;
    for (int i = 0; i < pairs.size(); ++i) {
      const btBroadphaseProxy* a = pairs[i].m_pProxy0;
      const btBroadphaseProxy* b = pairs[i].m_pProxy1;
      count += TestAabbAgainstAabb2(a->m_aabbMin, a->m_aabbMax, b->m_aabbMin, b->m_aabbMax);
    }
    return count;
  }

 private:
  btDefaultCollisionConfiguration configuration_;
  btCollisionDispatcher dispatcher_{&configuration_};
  std::unique_ptr<btBroadphaseInterface> broadphase_;
  bool owns_proxies_;
  std::vector<btBroadphaseProxy*> proxies_;
};
#endif

#ifdef CONTACTLAB_BENCH_HAVE_FCL
/// An FCL manager driven as FCL's users drive it: each object's transform set and its AABB
/// recomputed, update(), then collide() with a callback that only counts. The callback returns
/// false (do not stop) and runs no narrow phase, so FCL does AABB tests only.
class FclContestant final : public Contestant {
 public:
  explicit FclContestant(std::unique_ptr<fcl::BroadPhaseCollisionManager<double>> manager)
      : manager_(std::move(manager)) {}

  void insert_all(const Motion& motion) override {
    const auto cube = std::make_shared<fcl::Box<double>>(1.0, 1.0, 1.0);
    std::vector<fcl::CollisionObject<double>*> objects;
    for (const Vec3& centre : motion.centres()) {
      objects_.push_back(std::make_unique<fcl::CollisionObject<double>>(cube));
      objects_.back()->setTranslation(centre);
      objects_.back()->computeAABB();
      objects.push_back(objects_.back().get());
    }
    manager_->registerObjects(objects);
    manager_->setup();
    std::size_t count = 0;
    manager_->collide(&count, &count_pair);
  }

  std::size_t update(const Motion& motion) override {
    const auto& centres = motion.centres();
    for (std::size_t i = 0; i < centres.size(); ++i) {
      objects_[i]->setTranslation(centres[i]);
      objects_[i]->computeAABB();
    }
    manager_->update();
    std::size_t count = 0;
    manager_->collide(&count, &count_pair);
    return count;
  }

 private:
  static bool count_pair(fcl::CollisionObject<double>*, fcl::CollisionObject<double>*,
                         void* count) {
    ++*static_cast<std::size_t*>(count);
    return false;
  }

  // Declared first, destroyed last: the manager holds pointers to the objects.
  std::vector<std::unique_ptr<fcl::CollisionObject<double>>> objects_;
  std::unique_ptr<fcl::BroadPhaseCollisionManager<double>> manager_;
};
#endif

struct Entry {
  std::string name;
  std::string origin;  ///< library file or peer library and version
  bool peer = false;
  std::size_t max_n = SIZE_MAX;  ///< skipped above this N
  bool counts_new = true;        ///< allocates through operator new (Bullet: btAlignedAlloc)
  std::function<std::unique_ptr<Contestant>(const Motion&)> make;
};

std::vector<Entry> entries(core::PluginRegistry& registry) {
  std::vector<Entry> all;
  // Every broad phase the registry finds, once per name (the search tier that wins, as a run
  // would resolve it).
  std::set<std::string> names;
  for (const core::PluginInfo& info : registry.plugins())
    if (info.kind == PluginKind::broad_phase) names.insert(info.name);
  for (const std::string& name : names) {
    const core::PluginInfo* info = registry.find(PluginKind::broad_phase, name);
    Entry entry;
    entry.name = name;
    entry.origin = info->library_path.filename().string();
    // Every pair tested: O(n²), about a second per update at N = 100,000.
    if (name == "brute_force") entry.max_n = 10000;
    entry.make = [&registry, info](const Motion&) -> std::unique_ptr<Contestant> {
      return std::make_unique<PluginContestant>(
          registry.create<BroadPhase>(*info, ParameterValues::defaults(info->schema)));
    };
    all.push_back(std::move(entry));
  }
#ifdef CONTACTLAB_BENCH_HAVE_BULLET
  const std::string bullet = "Bullet " + std::to_string(BT_BULLET_VERSION / 100) + "." +
                             std::to_string(BT_BULLET_VERSION % 100) + ", double precision";
  all.push_back({"btDbvtBroadphase", bullet, true, SIZE_MAX, false, [](const Motion&) {
                   return std::make_unique<BulletContestant>(std::make_unique<btDbvtBroadphase>(),
                                                             false);
                 }});
  // World bounds must contain the scene (the sweep quantises to them); the ray-cast accelerator
  // (a second, btDbvt broad phase updated with every setAabb) is disabled: no rays are cast.
  all.push_back({"bt32BitAxisSweep3", bullet, true, SIZE_MAX, false, [](const Motion& motion) {
                   const double n = static_cast<double>(motion.boxes().size());
                   return std::make_unique<BulletContestant>(
                       std::make_unique<bt32BitAxisSweep3>(
                           btVector3(-1, -1, -1), to_bullet(Vec3::Constant(motion.side() + 1.0)),
                           static_cast<unsigned>(n + 2), nullptr, true),
                       true);
                 }});
#endif
#ifdef CONTACTLAB_BENCH_HAVE_FCL
  const std::string fcl = std::string("FCL ") + FCL_VERSION;
  all.push_back({"fcl_DynamicAABBTree", fcl, true, SIZE_MAX, true, [](const Motion&) {
                   return std::make_unique<FclContestant>(
                       std::make_unique<fcl::DynamicAABBTreeCollisionManager<double>>());
                 }});
  all.push_back({"fcl_SaP", fcl, true, SIZE_MAX, true, [](const Motion&) {
                   return std::make_unique<FclContestant>(
                       std::make_unique<fcl::SaPCollisionManager<double>>());
                 }});
#endif
  return all;
}

// ---------------------------------------------------------------------------------------------
// Measurement and report.

constexpr std::size_t not_timed = SIZE_MAX;

struct Result {
  std::vector<double> update_ms;   ///< every timed update of every repetition
  std::vector<std::size_t> pairs;  ///< per update of all repetitions; not_timed where cut
  double setup_ms = 0.0;           ///< insertion of the first frame and the first pair query
  std::size_t new_calls = 0;       ///< operator new during the timed updates, all repetitions
  int fewest_updates = INT_MAX;    ///< timed updates of the repetition the budget cut shortest
};

// CPU time of this thread: on a machine shared with other work, time spent descheduled is not the
// contestant's (the narrow-phase benchmark reports CPU time too).
double thread_cpu_ms() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) * 1e-6;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::string thousands(double value, int decimals) {
  char digits[64];
  std::snprintf(digits, sizeof digits, "%.*f", decimals, value);
  const std::string text = digits;
  const std::size_t point = std::min(text.find('.'), text.size());
  std::string grouped;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i > 0 && i < point && (point - i) % 3 == 0) grouped += ',';
    grouped += text[i];
  }
  return grouped;
}

std::string milliseconds(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, ms < 1.0 ? "%.3f" : ms < 100.0 ? "%.2f" : "%.0f", ms);
  return text;
}

std::vector<std::size_t> parse_list(const std::string& text) {
  std::vector<std::size_t> values;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    values.push_back(static_cast<std::size_t>(std::stod(text.substr(start, comma - start))));
    start = comma + 1;
  }
  return values;
}

std::vector<std::string> parse_names(const std::string& text) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) names.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

int usage(const char* program) {
  std::fprintf(
      stderr,
      "usage: %s [--n=1000,10000,100000] [--steps=100] [--repetitions=3] "
      "[--overlaps=3] [--speed=0.02] [--seed=1] [--budget=60] [--skip=name,...] [--quick]\n",
      program);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes = {1000, 10000, 100000};
  int steps = 100, repetitions = 3;
  double overlaps = 3.0, speed = 0.02, budget_s = 60.0;
  std::uint64_t seed = 1;
  std::vector<std::string> skip;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const std::size_t equals = argument.find('=');
    const std::string key = argument.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : argument.substr(equals + 1);
    try {
      if (key == "--quick") {
        sizes = {1000, 10000};
        steps = 30;
        repetitions = 1;
      } else if (key == "--n") {
        sizes = parse_list(value);
      } else if (key == "--steps") {
        steps = std::stoi(value);
      } else if (key == "--repetitions") {
        repetitions = std::stoi(value);
      } else if (key == "--overlaps") {
        overlaps = std::stod(value);
      } else if (key == "--speed") {
        speed = std::stod(value);
      } else if (key == "--budget") {
        budget_s = std::stod(value);
      } else if (key == "--seed") {
        seed = std::stoull(value);
      } else if (key == "--skip") {
        for (std::string& name : parse_names(value)) skip.push_back(std::move(name));
      } else {
        return usage(argv[0]);
      }
    } catch (const std::exception&) {
      return usage(argv[0]);
    }
  }
  if (sizes.empty() || steps < 1 || repetitions < 1 || !(overlaps > 0.0)) return usage(argv[0]);

  core::PluginRegistry registry;
  for (const auto& problem : registry.problems())
    std::printf("note: %s was not loaded: %s\n", problem.library_path.c_str(),
                problem.reason.c_str());
  std::vector<Entry> all = entries(registry);
  for (const std::string& name : skip) {
    const auto found = std::find_if(all.begin(), all.end(),
                                    [&](const Entry& entry) { return entry.name == name; });
    if (found == all.end()) {
      std::string known;
      for (const Entry& entry : all) known += (known.empty() ? "" : ", ") + entry.name;
      std::fprintf(stderr, "error: --skip names an unknown contestant '%s' (known: %s)\n",
                   name.c_str(), known.c_str());
      return 2;
    }
    std::printf("note: %s skipped (--skip)\n", name.c_str());
    all.erase(found);
  }
#ifndef CONTACTLAB_BENCH_HAVE_BULLET
  std::printf(
      "note: Bullet (double precision, libbullet-dev) was not found at build time: "
      "btDbvtBroadphase and bt32BitAxisSweep3 skipped\n");
#endif
#ifndef CONTACTLAB_BENCH_HAVE_FCL
  std::printf("note: FCL (libfcl-dev) was not found at build time: its managers skipped\n");
#endif

  std::printf(
      "# bench_broad_phase: %d block%s of %d timed updates after the setup (first frame and one "
      "pair query), seed %llu\n\n",
      repetitions, repetitions == 1 ? "" : "s", steps, static_cast<unsigned long long>(seed));
  std::printf(
      "Scene: N unit cubes, centres uniform in a cube of side 1 + (8N/%g)^(1/3) m "
      "(about %g overlaps per box away from the walls), each moving by a constant random "
      "velocity of up to %g m per update and axis, reflected at the walls.\n",
      overlaps, overlaps, speed);
  std::printf("Contestants:");
  for (const Entry& entry : all)
    std::printf(" %s (%s)%s", entry.name.c_str(), entry.origin.c_str(),
                &entry == &all.back() ? ".\n" : ",");
  std::fflush(stdout);

  std::vector<std::vector<double>> medians(all.size(), std::vector<double>(sizes.size(), NAN));
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    const std::size_t n = sizes[s];
    std::vector<Result> results(all.size());
    std::vector<std::unique_ptr<Contestant>> contestants(all.size());
    Motion motion(n, overlaps, speed, seed);
    // Each repetition is a block of `steps` updates continuing the motion; every contestant runs
    // it from the same state. Rotating the order spreads slow drifts of the machine's speed over
    // all contestants. Each contestant is set up once per N (bt32BitAxisSweep3 inserts a proxy in
    // O(n)).
    for (int repetition = 0; repetition < repetitions; ++repetition) {
      for (std::size_t turn = 0; turn < all.size(); ++turn) {
        const std::size_t c = (turn + repetition) % all.size();
        if (n > all[c].max_n) continue;
        Result& result = results[c];
        Motion block = motion;
        if (!contestants[c]) {
          const double start = thread_cpu_ms();
          contestants[c] = all[c].make(block);
          contestants[c]->insert_all(block);
          result.setup_ms = thread_cpu_ms() - start;
          result.pairs.assign(static_cast<std::size_t>(repetitions * steps), not_timed);
        }
        double spent_ms = 0.0;
        int step = 0;
        for (; step < steps && spent_ms <= budget_s * 1e3; ++step) {
          block.advance();
          const std::size_t calls_before = new_calls;
          const double start = thread_cpu_ms();
          const std::size_t pairs = contestants[c]->update(block);
          const double stop = thread_cpu_ms();
          result.new_calls += new_calls - calls_before;
          result.update_ms.push_back(stop - start);
          spent_ms += stop - start;
          result.pairs[static_cast<std::size_t>(repetition * steps + step)] = pairs;
        }
        result.fewest_updates = std::min(result.fewest_updates, step);
      }
      for (int step = 0; step < steps; ++step) motion.advance();
    }
    contestants.clear();
    const double side = motion.side();

    std::printf("\n## N = %s (cube side %.1f m)\n\n", thousands(static_cast<double>(n), 0).c_str(),
                side);
    // Lines under the table: skipped contestants, pair counts that differ from the first
    // contestant's, updates cut by the budget.
    std::vector<std::string> notes;
    char line[400];
    const Result* reference = nullptr;
    const Entry* reference_entry = nullptr;
    for (std::size_t c = 0; c < all.size(); ++c) {
      const Result& result = results[c];
      if (n > all[c].max_n) {
        std::snprintf(line, sizeof line, "skipped: %s above N = %s (O(n²))", all[c].name.c_str(),
                      thousands(static_cast<double>(all[c].max_n), 0).c_str());
        notes.push_back(line);
      }
      if (result.update_ms.empty()) continue;
      if (result.fewest_updates < steps) {
        std::snprintf(line, sizeof line,
                      "note: %s timed only %d of %d updates in a repetition (--budget=%g s)",
                      all[c].name.c_str(), result.fewest_updates, steps, budget_s);
        notes.push_back(line);
      }
      if (!reference) {
        reference = &result;
        reference_entry = &all[c];
        continue;
      }
      std::size_t compared = 0, differ = 0, first = 0;
      for (std::size_t u = 0; u < result.pairs.size(); ++u) {
        if (result.pairs[u] == not_timed || reference->pairs[u] == not_timed) continue;
        ++compared;
        if (result.pairs[u] != reference->pairs[u] && differ++ == 0) first = u;
      }
      if (differ) {
        std::snprintf(line, sizeof line,
                      "warning: %s reports %zu pairs at update %zu where %s reports %zu (%zu of "
                      "%zu updates differ)",
                      all[c].name.c_str(), result.pairs[first], first + 1,
                      reference_entry->name.c_str(), reference->pairs[first], differ, compared);
        notes.push_back(line);
      }
    }
    double fastest_peer = INFINITY;
    for (std::size_t c = 0; c < all.size(); ++c) {
      if (results[c].update_ms.empty()) continue;
      medians[c][s] = median(results[c].update_ms);
      if (all[c].peer) fastest_peer = std::min(fastest_peer, medians[c][s]);
    }
    std::printf(
        "| contestant | CPU ms/update (median) | pairs/update | × fastest peer | new/update | "
        "setup ms |\n|:---|---:|---:|---:|---:|---:|\n");
    for (std::size_t c = 0; c < all.size(); ++c) {
      const Result& result = results[c];
      if (result.update_ms.empty()) continue;
      double pairs = 0.0;
      for (const std::size_t p : result.pairs)
        if (p != not_timed) pairs += static_cast<double>(p);
      const double updates = static_cast<double>(result.update_ms.size());
      const double ms = medians[c][s];
      std::printf("| %s | %s | %s | %s | %s | %s |\n", all[c].name.c_str(),
                  milliseconds(ms).c_str(), thousands(pairs / updates, 1).c_str(),
                  std::isfinite(fastest_peer) ? thousands(ms / fastest_peer, 2).c_str() : "—",
                  all[c].counts_new
                      ? thousands(static_cast<double>(result.new_calls) / updates, 1).c_str()
                      : "—",
                  milliseconds(result.setup_ms).c_str());
    }
    if (!notes.empty()) std::printf("\n");
    for (const std::string& note : notes) std::printf("%s\n", note.c_str());
    std::fflush(stdout);
  }

  // Growth: least-squares slope of log(ms per update) over log(N), where measured.
  std::printf("\n## ms per update over N; exponent = log-log slope (1 = linear)\n\n| contestant |");
  for (const std::size_t n : sizes)
    std::printf(" N = %s |", thousands(static_cast<double>(n), 0).c_str());
  std::printf(" exponent |\n|:---|");
  for (std::size_t s = 0; s <= sizes.size(); ++s) std::printf("---:|");
  std::printf("\n");
  for (std::size_t c = 0; c < all.size(); ++c) {
    std::printf("| %s |", all[c].name.c_str());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int points = 0;
    for (std::size_t s = 0; s < sizes.size(); ++s) {
      const double ms = medians[c][s];
      std::printf(" %s |", std::isnan(ms) ? "—" : milliseconds(ms).c_str());
      if (std::isnan(ms)) continue;
      const double x = std::log(static_cast<double>(sizes[s])), y = std::log(ms);
      sx += x, sy += y, sxx += x * x, sxy += x * y, ++points;
    }
    const double denominator = points * sxx - sx * sx;
    if (points >= 2 && denominator > 0.0)
      std::printf(" %.2f |\n", (points * sxy - sx * sy) / denominator);
    else
      std::printf(" — |\n");
  }
  return 0;
}
