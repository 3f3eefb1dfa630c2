// The aabb_tree broad phase as the host sees it: proxies (exact and fat boxes, live and dirty
// flags), the unbounded proxies kept out of the tree, and the persistent set of candidate pairs
// that collect_pairs brings up to date; the tree itself is aabb_tree.hpp.
#include "aabb_tree_broad_phase.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

namespace {

using aabb_tree::Box;
using aabb_tree::contains;
using aabb_tree::fits_tree;
using aabb_tree::overlaps;
using aabb_tree::reserve_geometrically;
using aabb_tree::same;
using aabb_tree::tree_box;
using aabb_tree::TreeBox;

constexpr double infinity = std::numeric_limits<double>::infinity();

/// A hint to load the cache line of `address` (where the compiler offers one).
inline void prefetch(const void* address) {
#if defined(__GNUC__)
  __builtin_prefetch(address);
#else
  (void)address;
#endif
}

/// How many pairs ahead update_pairs() asks for the boxes it will test.
constexpr std::size_t prefetch_distance = 12;

/// Bits 0..9 of v moved to bits 0, 3, 6, ..., 27 (one axis of a 30-bit Morton code).
inline std::uint64_t spread_bits(std::uint32_t v) {
  std::uint64_t x = v & 0x3ffu;
  x = (x | (x << 16)) & 0x30000ffu;
  x = (x | (x << 8)) & 0x300f00fu;
  x = (x | (x << 4)) & 0x30c30c3u;
  x = (x | (x << 2)) & 0x9249249u;
  return x;
}

Box to_box(const Aabb& aabb) {
  Box box;
  for (int i = 0; i < 3; ++i) {
    box.lo[i] = aabb.min_W[i];
    box.hi[i] = aabb.max_W[i];
  }
  return box;
}

Aabb to_aabb(const Box& box) {
  Aabb aabb;
  for (int i = 0; i < 3; ++i) {
    aabb.min_W[i] = box.lo[i];
    aabb.max_W[i] = box.hi[i];
  }
  return aabb;
}

double real_or(const ParameterValues& params, const char* name, double fallback) {
  const double value = params.contains(name) ? params.real(name) : fallback;
  if (!(value >= 0.0) || !std::isfinite(value)) {
    throw InputError(std::string("aabb_tree broad phase: params.") + name + " is " +
                     std::to_string(value) + "; expected a finite value >= 0");
  }
  return value;
}

constexpr double default_fat_margin_m = 0.0;
constexpr double default_fat_margin_relative = 0.1;

}  // namespace

AabbTreeBroadPhase::AabbTreeBroadPhase(const ParameterValues& params)
    : fat_margin_m_(real_or(params, "fat_margin_m", default_fat_margin_m)),
      fat_margin_relative_(real_or(params, "fat_margin_relative", default_fat_margin_relative)) {}

ParameterSchema AabbTreeBroadPhase::schema() {
  ParameterSpec absolute = real_parameter(
      "fat_margin_m", default_fat_margin_m, 0.0, infinity, "m",
      "absolute part of the margin by which each proxy's box is enlarged in the tree; a proxy "
      "moves in the tree only when its box leaves the enlarged one. The margin is fat_margin_m + "
      "fat_margin_relative x (longest finite edge of the box)");
  absolute.maximum_exclusive = true;
  ParameterSpec relative = real_parameter(
      "fat_margin_relative", default_fat_margin_relative, 0.0, infinity, "",
      "part of the margin proportional to the longest finite edge of the proxy's box (0.1: a "
      "unit box gets Box2D's 0.1 m); larger margins mean fewer tree updates for moving proxies "
      "but more candidate pairs to filter");
  relative.maximum_exclusive = true;
  return {absolute, relative};
}

BroadPhaseCapabilities AabbTreeBroadPhase::capabilities() const {
  BroadPhaseCapabilities capabilities;
  capabilities.incremental = true;
  capabilities.box_distance = true;
  return capabilities;
}

// ---------------------------------------------------------------------------------------------
// Proxies

const Box& AabbTreeBroadPhase::live_exact(ProxyId id, const char* operation) const {
  if (id >= flags_.size() || (flags_[id] & live_flag) == 0)
    throw Error(std::string("aabb_tree broad phase: ") + operation + "(" + std::to_string(id) +
                "): no such proxy");
  return exact_[id];
}

Box AabbTreeBroadPhase::fatten(const Box& box) const {
  double longest = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double edge = box.hi[i] - box.lo[i];
    if (std::isfinite(edge)) longest = std::max(longest, edge);
  }
  const double margin = fat_margin_m_ + fat_margin_relative_ * longest;
  Box fat;
  for (int i = 0; i < 3; ++i) {  // an infinite bound stays infinite
    fat.lo[i] = box.lo[i] - margin;
    fat.hi[i] = box.hi[i] + margin;
  }
  return fat;
}

void AabbTreeBroadPhase::mark_dirty(ProxyId id) {
  if (flags_[id] & dirty_flag) return;
  flags_[id] |= dirty_flag;
  dirty_ids_.push_back(id);
}

void AabbTreeBroadPhase::attach(ProxyId id) {
  if (fits_tree(fat_[id])) {
    tree_.insert(id, fat_);
    flags_[id] |= in_tree_flag;
  } else {
    unbounded_slot_[id] = static_cast<std::int32_t>(unbounded_.size());
    unbounded_.push_back(id);
    flags_[id] |= unbounded_flag;
  }
}

void AabbTreeBroadPhase::detach(ProxyId id) {
  if (flags_[id] & unbounded_flag) {
    const ProxyId last = unbounded_.back();
    unbounded_[unbounded_slot_[id]] = last;
    unbounded_slot_[last] = unbounded_slot_[id];
    unbounded_.pop_back();
  } else if (flags_[id] & in_tree_flag) {
    tree_.remove(id);
  }
  flags_[id] &= static_cast<std::uint8_t>(~(unbounded_flag | in_tree_flag));
  unbounded_slot_[id] = no_slot;
}

void AabbTreeBroadPhase::insert(ProxyId id, const Aabb& box) {
  if (id >= static_cast<ProxyId>(std::numeric_limits<std::int32_t>::max()))
    throw Error("aabb_tree broad phase: insert(" + std::to_string(id) +
                "): ids must be below 2^31 - 1");
  if (id < flags_.size() && (flags_[id] & live_flag))
    throw Error("aabb_tree broad phase: insert(" + std::to_string(id) +
                "): the id is already in use");
  if (id >= flags_.size()) {
    const std::size_t size = static_cast<std::size_t>(id) + 1;
    exact_.resize(size);
    fat_.resize(size);
    unbounded_slot_.resize(size, no_slot);
    tree_.reserve_leaves(size);
    flags_.resize(size, 0);
    // At most one entry per id: set_box and collect_pairs never grow these.
    reserve_geometrically(dirty_ids_, size);
    reserve_geometrically(order_, size);
  }
  exact_[id] = to_box(box);
  fat_[id] = fatten(exact_[id]);
  flags_[id] |= live_flag;
  mark_dirty(id);  // enters the tree in the next collect_pairs
  ++live_count_;
}

void AabbTreeBroadPhase::remove(ProxyId id) {
  live_exact(id, "remove");
  flags_[id] &= static_cast<std::uint8_t>(~live_flag);
  mark_dirty(id);  // leaves the tree, and its pairs are dropped, in the next collect_pairs
  --live_count_;
}

void AabbTreeBroadPhase::set_box(ProxyId id, const Aabb& box) {
  live_exact(id, "set_box");
  exact_[id] = to_box(box);
  if (contains(fat_[id], exact_[id])) return;  // the common case: nothing moves in the tree
  fat_[id] = fatten(exact_[id]);
  mark_dirty(id);  // moves in the tree in the next collect_pairs
}

double AabbTreeBroadPhase::box_distance(ProxyId a, ProxyId b) const {
  return aabb_distance(to_aabb(live_exact(a, "box_distance")),
                       to_aabb(live_exact(b, "box_distance")));
}

// ---------------------------------------------------------------------------------------------
// Tree rebuild

void AabbTreeBroadPhase::rebuild_tree() {
  tree_.clear();
  unbounded_.clear();
  for (ProxyId id = 0; id < flags_.size(); ++id) {
    flags_[id] &= static_cast<std::uint8_t>(~(in_tree_flag | unbounded_flag));
    if ((flags_[id] & live_flag) == 0) continue;
    if (!fits_tree(fat_[id])) {
      attach(id);  // into the unbounded list
      continue;
    }
    flags_[id] |= in_tree_flag;
    tree_.add_to_build(id, tree_box(fat_[id]));
  }
  tree_.build();
}

int AabbTreeBroadPhase::tree_height() const {
  return tree_.height();
}

// ---------------------------------------------------------------------------------------------
// Pairs

void AabbTreeBroadPhase::add_pair(ProxyId a, ProxyId b, std::vector<ProxyPair>& out) {
  const ProxyPair pair = a < b ? ProxyPair{a, b} : ProxyPair{b, a};
  pairs_.push_back(pair);
  if (overlaps(exact_[a], exact_[b])) out.push_back(pair);
}

void AabbTreeBroadPhase::rebuild_pairs(std::vector<ProxyPair>& out) {
  pairs_.clear();
  tree_.overlapping_leaves([&](ProxyId a, ProxyId b) { add_pair(a, b, out); });
  for (std::size_t i = 0; i < unbounded_.size(); ++i) {
    const ProxyId u = unbounded_[i];
    tree_.query(tree_box(fat_[u]), fat_, [&](ProxyId other) { add_pair(u, other, out); });
    for (std::size_t j = i + 1; j < unbounded_.size(); ++j)
      if (overlaps(fat_[u], fat_[unbounded_[j]])) add_pair(u, unbounded_[j], out);
  }
}

void AabbTreeBroadPhase::update_pairs(std::vector<ProxyPair>& out) {
  // A pair of two clean proxies keeps its fat boxes, hence its place in pairs_; it is reported
  // when the exact boxes overlap now. The pairs of dirty proxies are dropped and found again by
  // querying the tree with each dirty proxy's new fat box.
  const std::uint8_t* flags = flags_.data();
  const Box* exact = exact_.data();
  const ProxyPair* pairs = pairs_.data();
  const std::size_t count = pairs_.size();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < count; ++i) {
    // The boxes of a pair are at random places in exact_; asking for them a few pairs ahead
    // overlaps the cache misses (about 40 % less time per step at 10^5 proxies).
    if (i + prefetch_distance < count) {
      prefetch(&exact[pairs[i + prefetch_distance].a]);
      prefetch(&exact[pairs[i + prefetch_distance].b]);
    }
    const ProxyPair pair = pairs[i];
    if ((flags[pair.a] | flags[pair.b]) & dirty_flag) continue;
    pairs_[kept++] = pair;
    if (overlaps(exact[pair.a], exact[pair.b])) out.push_back(pair);
  }
  pairs_.erase(pairs_.begin() + static_cast<std::ptrdiff_t>(kept), pairs_.end());
  for (const ProxyId id : dirty_ids_) {
    if ((flags[id] & live_flag) == 0) continue;
    // When both proxies of a pair are dirty, both queries find it: the one from the smaller id
    // adds it.
    const auto visit = [&](ProxyId other) {
      if (other == id || ((flags[other] & dirty_flag) && other < id)) return;
      add_pair(id, other, out);
    };
    tree_.query(tree_box(fat_[id]), fat_, visit);
    for (const ProxyId other : unbounded_)
      if (overlaps(fat_[other], fat_[id])) visit(other);
  }
}

void AabbTreeBroadPhase::sort_dirty() {
  // Morton order of the fat-box centres on a 1024^3 grid over their bounding box; proxies that
  // stay out of the tree come last.
  double lo[3] = {infinity, infinity, infinity};
  double hi[3] = {-infinity, -infinity, -infinity};
  for (const ProxyId id : dirty_ids_) {
    const Box& f = fat_[id];
    if (!fits_tree(f)) continue;
    for (int i = 0; i < 3; ++i) {
      const double centre = 0.5 * (f.lo[i] + f.hi[i]);
      lo[i] = std::min(lo[i], centre);
      hi[i] = std::max(hi[i], centre);
    }
  }
  double scale[3];
  for (int i = 0; i < 3; ++i) scale[i] = hi[i] > lo[i] ? 1023.0 / (hi[i] - lo[i]) : 0.0;
  order_.clear();
  for (const ProxyId id : dirty_ids_) {
    const Box& f = fat_[id];
    std::uint64_t code = std::uint64_t{1} << 30;
    if (fits_tree(f)) {
      code = 0;
      for (int i = 0; i < 3; ++i) {
        const double cell = (0.5 * (f.lo[i] + f.hi[i]) - lo[i]) * scale[i];
        code |= spread_bits(static_cast<std::uint32_t>(cell)) << i;
      }
    }
    order_.push_back(code << 32 | id);
  }
  std::sort(order_.begin(), order_.end());
  for (std::size_t i = 0; i < order_.size(); ++i)
    dirty_ids_[i] = static_cast<ProxyId>(order_[i] & 0xffffffffu);
}

void AabbTreeBroadPhase::collect_pairs(std::vector<ProxyPair>& out) {
  out.clear();  // keeps the capacity
  // The tree catches up with the inserts, removals and escapes from fat boxes since the last
  // call. With more than 3/4 of the proxies dirty it is rebuilt: measured at 10^4 and 10^5
  // proxies, a rebuild costs about as much as reinserting half of them and half as much as
  // reinserting all. Otherwise the dirty proxies move one by one, in spatial order: consecutive
  // reinsertions and queries then walk mostly the same nodes, still in cache, whereas in the
  // host's order nearly every node visited is a cache miss once the tree outgrows the cache.
  if (4 * dirty_ids_.size() > 3 * live_count_) {
    rebuild_tree();
    rebuild_pairs(out);
  } else {
    sort_dirty();
    for (const ProxyId id : dirty_ids_) {
      if ((flags_[id] & (live_flag | in_tree_flag)) == (live_flag | in_tree_flag) &&
          fits_tree(fat_[id])) {
        tree_.move(id, fat_);
      } else {
        detach(id);
        if (flags_[id] & live_flag) attach(id);
      }
    }
    update_pairs(out);
  }
  for (const ProxyId id : dirty_ids_) flags_[id] &= static_cast<std::uint8_t>(~dirty_flag);
  dirty_ids_.clear();
}

// ---------------------------------------------------------------------------------------------
// Invariants (tests)

void AabbTreeBroadPhase::check_invariants() const {
  const auto fail = [](const std::string& what) {
    throw Error("aabb_tree broad phase: invariant violated: " + what);
  };
  if (!dirty_ids_.empty()) fail("updates are pending (call collect_pairs first)");
  const std::size_t leaves = tree_.check_invariants([&](ProxyId id, const TreeBox* held) {
    const std::string name = "leaf of proxy " + std::to_string(id);
    if (id >= flags_.size() || (flags_[id] & live_flag) == 0) fail(name + ": not live");
    if ((flags_[id] & (unbounded_flag | in_tree_flag)) != in_tree_flag)
      fail(name + ": the proxy is not marked as in the tree");
    if (held && !same(*held, tree_box(fat_[id]))) fail(name + ": box is not the fat box");
    if (!contains(fat_[id], exact_[id])) fail(name + ": fat box misses the exact box");
  });
  std::size_t live = 0;
  std::size_t in_tree = 0;
  for (ProxyId id = 0; id < flags_.size(); ++id) {
    if ((flags_[id] & live_flag) == 0) {
      if (flags_[id] & (unbounded_flag | in_tree_flag)) fail("a dead proxy is in the tree");
      continue;
    }
    ++live;
    if (flags_[id] & in_tree_flag) {
      ++in_tree;
    } else if (unbounded_slot_[id] < 0 ||
               static_cast<std::size_t>(unbounded_slot_[id]) >= unbounded_.size() ||
               unbounded_[unbounded_slot_[id]] != id) {
      fail("unbounded proxy " + std::to_string(id) + " is not where its slot says");
    } else if (fits_tree(fat_[id])) {
      fail("unbounded proxy " + std::to_string(id) + " fits the tree");
    }
  }
  if (live != live_count_) fail("the live count is wrong");
  if (leaves != in_tree) fail("the tree's leaves are not the live proxies that fit the tree");
  if (live - in_tree != unbounded_.size()) fail("the unbounded list has extra entries");
}

}  // namespace contactlab::plugins
