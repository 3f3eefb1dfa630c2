#include "sap_broad_phase.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include <contactlab/errors.hpp>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace contactlab::plugins {

namespace {

/// The ref of an endpoint that left the lists; compacted away at the next update. It would be the
/// upper endpoint of id 2^31 − 1, which insert refuses.
constexpr std::uint32_t dead_ref = ~std::uint32_t{0};
constexpr ProxyId id_limit = dead_ref >> 1;

constexpr std::uint32_t lower_ref(ProxyId id) {
  return id << 1;
}
constexpr std::uint32_t upper_ref(ProxyId id) {
  return id << 1 | 1u;
}
constexpr ProxyId id_of(std::uint32_t ref) {
  return ref >> 1;
}
constexpr bool is_upper(std::uint32_t ref) {
  return (ref & 1u) != 0;
}

/// The order of the endpoint lists: by value, and at equal values lower endpoints before upper
/// ones, so that touching intervals count as overlapping. Endpoints of the same kind at equal
/// values are unordered (the sort leaves them where they are); either order means the same.
inline bool precedes(double value_a, std::uint32_t ref_a, double value_b, std::uint32_t ref_b) {
  return value_a < value_b || (value_a == value_b && (ref_a & 1u) < (ref_b & 1u));
}

/// Closed-box overlap on all three axes, with & rather than && so that it compiles branch-free.
inline bool overlap(const Aabb& a, const Aabb& b) {
  return (a.min_W[0] <= b.max_W[0]) & (b.min_W[0] <= a.max_W[0]) & (a.min_W[1] <= b.max_W[1]) &
         (b.min_W[1] <= a.max_W[1]) & (a.min_W[2] <= b.max_W[2]) & (b.min_W[2] <= a.max_W[2]);
}

/// x rounded to float. Rounding is monotonic, so a ≤ b implies to_float(a) ≤ to_float(b): tests
/// on rounded bounds never reject boxes whose exact bounds overlap. Values beyond the float range
/// go to ±infinity explicitly, as converting them is undefined behaviour.
inline float to_float(double x) {
  constexpr double largest = std::numeric_limits<float>::max();
  if (x > largest) [[unlikely]]
    return std::numeric_limits<float>::infinity();
  if (x < -largest) [[unlikely]]
    return -std::numeric_limits<float>::infinity();
  return static_cast<float>(x);
}

/// A box rounded to float: lower bounds and negated upper bounds.
struct FloatBox {
  std::array<float, 3> lo;
  std::array<float, 3> negated_hi;
};

inline FloatBox float_box(const Aabb& box) {
  FloatBox f;
  for (int k = 0; k < 3; ++k) {
    f.lo[k] = to_float(box.min_W[k]);
    f.negated_hi[k] = -to_float(box.max_W[k]);
  }
  return f;
}

/// The filter carried by an endpoint of the list of `axis`: for the other two axes a and b,
/// (lo_a, lo_b, −hi_a, −hi_b). Negating the upper bounds turns the four interval tests of two
/// boxes into one comparison of four lanes (see `may_overlap`).
inline std::array<float, 4> filter_of(const FloatBox& f, int axis) {
  const int a = (axis + 1) % 3;
  const int b = (axis + 2) % 3;
  return {f.lo[a], f.lo[b], f.negated_hi[a], f.negated_hi[b]};
}

/// What the filter of another endpoint is compared with: (hi_a, hi_b, −lo_a, −lo_b).
inline std::array<float, 4> bound_of(const std::array<float, 4>& filter) {
  return {-filter[2], -filter[3], -filter[0], -filter[1]};
}

/// Whether two boxes may overlap on the two filter axes: every lane of one's filter at or below the
/// other's bound (lo_a ≤ hi'_a, lo_b ≤ hi'_b, −hi_a ≤ −lo'_a, −hi_b ≤ −lo'_b). Conservative (see
/// to_float).
inline bool may_overlap(const std::array<float, 4>& filter, const std::array<float, 4>& bound) {
#if defined(__SSE2__)
  return _mm_movemask_ps(_mm_cmple_ps(_mm_loadu_ps(filter.data()), _mm_loadu_ps(bound.data()))) ==
         0xF;
#else
  return (filter[0] <= bound[0]) & (filter[1] <= bound[1]) & (filter[2] <= bound[2]) &
         (filter[3] <= bound[3]);
#endif
}

/// Hints that *p will be read (or written) soon. The updates below walk arrays of ids and touch
/// per-proxy data at random; issuing those cache misses a few iterations ahead lets them overlap
/// instead of being paid one after another.
inline void prefetch(const void* p) {
#if defined(__GNUC__)
  __builtin_prefetch(p, 0);
#else
  static_cast<void>(p);
#endif
}

inline void prefetch_for_write(const void* p) {
#if defined(__GNUC__)
  __builtin_prefetch(p, 1);
#else
  static_cast<void>(p);
#endif
}

/// How many iterations ahead the prefetches run: enough misses in flight to hide memory latency,
/// few enough not to evict what is still needed.
constexpr std::size_t prefetch_distance = 8;

/// How many endpoints ahead the sort prefetches the list it scans.
constexpr std::size_t stream_ahead = 64;

}  // namespace

// ---- PairSet ----------------------------------------------------------------------------------

SapBroadPhase::PairSet::PairSet() {
  rehash(64);
}

std::uint64_t SapBroadPhase::PairSet::key_of(const ProxyPair& pair) {
  return std::uint64_t{pair.a} << 32 | pair.b;
}

std::size_t SapBroadPhase::PairSet::home(std::uint64_t key) const {
  // Fibonacci hashing: the high bits of the product mix both ids.
  return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
}

std::size_t SapBroadPhase::PairSet::find(std::uint64_t key) const {
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = home(key);
  while (slots_[slot].key != key && slots_[slot].key != empty_key) slot = (slot + 1) & mask;
  return slot;
}

void SapBroadPhase::PairSet::rehash(std::size_t capacity) {
  slots_.assign(capacity, Slot{empty_key, 0});
  shift_ = 64 - std::countr_zero(capacity);
  for (std::uint32_t index = 0; index < pairs_.size(); ++index) {
    const std::uint64_t key = key_of(pairs_[index]);
    slots_[find(key)] = Slot{key, index};
  }
}

void SapBroadPhase::PairSet::add(ProxyId a, ProxyId b) {
  // Load factor at most 1/2 keeps linear-probing runs short.
  if (2 * (pairs_.size() + 1) > slots_.size()) rehash(2 * slots_.size());
  const ProxyPair pair{a, b};
  const std::uint64_t key = key_of(pair);
  const std::size_t slot = find(key);
  if (slots_[slot].key == key) return;
  slots_[slot] = Slot{key, static_cast<std::uint32_t>(pairs_.size())};
  pairs_.push_back(pair);
}

void SapBroadPhase::PairSet::erase_at(std::uint32_t index) {
  std::size_t hole = find(key_of(pairs_[index]));
  // The dense array stays dense: its last pair fills the gap and its slot learns the new index.
  const std::size_t last = pairs_.size() - 1;
  if (index != last) {
    pairs_[index] = pairs_[last];
    slots_[find(key_of(pairs_[index]))].index = index;
  }
  pairs_.pop_back();
  // Backward-shift deletion (Knuth, TAOCP vol. 3, algorithm 6.4R): pull later entries of the
  // probe run into the hole unless that would move them before their home slot.
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = (hole + 1) & mask; slots_[slot].key != empty_key;
       slot = (slot + 1) & mask) {
    const std::size_t distance_from_home = (slot - home(slots_[slot].key)) & mask;
    if (distance_from_home >= ((slot - hole) & mask)) {
      slots_[hole] = slots_[slot];
      hole = slot;
    }
  }
  slots_[hole].key = empty_key;
}

template <typename Keep, typename Prefetch>
void SapBroadPhase::PairSet::retain(Keep keep, Prefetch prefetch_for) {
  // erase_at moves the last pair into the gap, which is then examined in its turn.
  for (std::uint32_t index = 0; index < pairs_.size();) {
    if (index + prefetch_distance < pairs_.size()) prefetch_for(pairs_[index + prefetch_distance]);
    if (keep(pairs_[index]))
      ++index;
    else
      erase_at(index);
  }
}

// ---- SapBroadPhase ----------------------------------------------------------------------------

SapBroadPhase::SapBroadPhase(const ParameterValues& /*params*/) {}

ParameterSchema SapBroadPhase::schema() {
  return {};
}

BroadPhaseCapabilities SapBroadPhase::capabilities() const {
  BroadPhaseCapabilities capabilities;
  capabilities.incremental = true;
  capabilities.box_distance = true;
  return capabilities;
}

void SapBroadPhase::throw_no_such_proxy(ProxyId id, const char* operation) {
  throw Error(std::string("sap broad phase: ") + operation + "(" + std::to_string(id) +
              "): no such proxy");
}

void SapBroadPhase::insert(ProxyId id, const Aabb& box) {
  if (id >= id_limit)
    throw Error("sap broad phase: insert(" + std::to_string(id) + "): ids must be below " +
                std::to_string(id_limit));
  if (id < state_.size() && state_[id] != State::free)
    throw Error("sap broad phase: insert(" + std::to_string(id) + "): the id is already in use");
  if (id >= state_.size()) {
    const std::size_t size = std::size_t{id} + 1;
    boxes_W_.resize(size);
    positions_.resize(size);
    state_.resize(size, State::free);
    removed_.resize(size, 0);
    active_slot_.resize(size);
    // Each id enters moved_ids_ at most once per update: with this capacity set_box never
    // allocates. (resize grows capacities geometrically, so this is amortised O(1) too.)
    moved_ids_.reserve(state_.capacity());
  }
  boxes_W_[id] = box;
  state_[id] = State::pending;
  pending_.push_back(id);
}

void SapBroadPhase::remove(ProxyId id) {
  check_live(id, "remove");
  if (state_[id] == State::listed || state_[id] == State::moved) {
    // Mark the endpoints dead where they lie; the next update drops them and the proxy's pairs
    // in one pass each, however many proxies left.
    for (int axis = 0; axis < 3; ++axis) {
      refs_[axis][positions_[id].at[2 * axis]] = dead_ref;
      refs_[axis][positions_[id].at[2 * axis + 1]] = dead_ref;
    }
    removed_[id] = 1;
    removed_ids_.push_back(id);
  }
  state_[id] = State::free;
}

void SapBroadPhase::set_box(ProxyId id, const Aabb& box) {
  check_live(id, "set_box");
  boxes_W_[id] = box;
  // The endpoints are rewritten in one batch at the next update, where their cache misses can be
  // overlapped; a proxy still pending joins with this box anyway.
  if (state_[id] == State::listed) {
    state_[id] = State::moved;
    moved_ids_.push_back(id);
  }
}

double SapBroadPhase::box_distance(ProxyId a, ProxyId b) const {
  check_live(a, "box_distance");
  check_live(b, "box_distance");
  return aabb_distance(boxes_W_[a], boxes_W_[b]);
}

void SapBroadPhase::collect_pairs(std::vector<ProxyPair>& out) {
  update();
  // assign() reuses the capacity of `out` but would grow it to the exact size; the headroom keeps
  // a pair count that creeps upwards from reallocating it again and again.
  const std::vector<ProxyPair>& pairs = overlaps_.pairs();
  if (out.capacity() < pairs.size()) out.reserve(pairs.size() + pairs.size() / 2);
  out.assign(pairs.begin(), pairs.end());
}

void SapBroadPhase::update() {
  const bool moved = store_moved_endpoints();
  const bool removed_any = !removed_ids_.empty();
  if (removed_any) compact_lists();
  if (moved) {
    for (int axis = 0; axis < 3; ++axis) sort_axis(axis);
  }
  if (removed_any || moved) {
    // The sort added the pairs that started to overlap; one pass over the set drops those of
    // removed proxies and those that stopped overlapping. It must precede the joining of new
    // proxies, which may reuse the ids of removed ones.
    overlaps_.retain(
        [this, moved](const ProxyPair& pair) {
          return !removed_[pair.a] && !removed_[pair.b] &&
                 (!moved || overlap(boxes_W_[pair.a], boxes_W_[pair.b]));
        },
        [this](const ProxyPair& pair) {
          prefetch(&boxes_W_[pair.a]);
          prefetch(&boxes_W_[pair.b]);
        });
    for (const ProxyId id : removed_ids_) removed_[id] = 0;
    removed_ids_.clear();
  }
  // An id may appear twice in pending_ (removed and inserted again before this update) or be
  // stale (removed again); each live one joins once.
  joining_.clear();
  for (const ProxyId id : pending_) {
    if (state_[id] != State::pending) continue;
    state_[id] = State::joining;
    joining_.push_back(id);
  }
  pending_.clear();
  if (joining_.empty()) return;
  merge_joining();
  find_pairs_of_joining();
  for (const ProxyId id : joining_) state_[id] = State::listed;
}

bool SapBroadPhase::store_moved_endpoints() {
  bool moved = false;
  const std::size_t count = moved_ids_.size();
  for (std::size_t i = 0; i < count; ++i) {
    // Two stages of prefetching: the proxy's box and endpoint positions, then, once those have
    // arrived, the six endpoints they point to. (Every id here was listed when it moved and the
    // lists have not changed since, so its positions are in range even if it has been removed.)
    if (i + 2 * prefetch_distance < count) {
      const ProxyId ahead = moved_ids_[i + 2 * prefetch_distance];
      prefetch(&positions_[ahead]);
      prefetch(&boxes_W_[ahead]);
    }
    if (i + prefetch_distance < count) {
      const std::array<std::uint32_t, 6>& ahead = positions_[moved_ids_[i + prefetch_distance]].at;
      for (int axis = 0; axis < 3; ++axis) {
        prefetch_for_write(&keys_[axis][ahead[2 * axis]]);
        prefetch_for_write(&keys_[axis][ahead[2 * axis + 1]]);
      }
    }
    // Ids removed (and perhaps inserted again) since they moved are skipped.
    const ProxyId id = moved_ids_[i];
    if (state_[id] != State::moved) continue;
    state_[id] = State::listed;
    moved = true;
    const Aabb& box = boxes_W_[id];
    const std::array<std::uint32_t, 6>& position = positions_[id].at;
    const FloatBox rounded = float_box(box);
    for (int axis = 0; axis < 3; ++axis) {
      const std::array<float, 4> filter = filter_of(rounded, axis);
      keys_[axis][position[2 * axis]] = Key{box.min_W[axis], filter};
      keys_[axis][position[2 * axis + 1]] = Key{box.max_W[axis], filter};
    }
  }
  moved_ids_.clear();
  return moved;
}

void SapBroadPhase::compact_lists() {
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<Key>& keys = keys_[axis];
    std::vector<std::uint32_t>& refs = refs_[axis];
    std::size_t kept = 0;
    for (std::size_t i = 0; i < refs.size(); ++i) {
      const std::uint32_t ref = refs[i];
      if (ref == dead_ref) continue;
      if (kept != i) {
        keys[kept] = keys[i];
        refs[kept] = ref;
        positions_[id_of(ref)].at[2 * axis + (ref & 1u)] = static_cast<std::uint32_t>(kept);
      }
      ++kept;
    }
    keys.resize(kept);
    refs.resize(kept);
  }
}

void SapBroadPhase::store_positions(int axis, std::size_t first, std::size_t last) {
  const std::uint32_t* const refs = refs_[axis].data();
  const std::size_t count = refs_[axis].size();
  for (std::size_t i = first; i <= last; ++i) {
    if (i + prefetch_distance < count)
      prefetch_for_write(&positions_[id_of(refs[i + prefetch_distance])]);
    positions_[id_of(refs[i])].at[2 * axis + (refs[i] & 1u)] = static_cast<std::uint32_t>(i);
  }
}

void SapBroadPhase::sort_axis(int axis) {
  Key* const keys = keys_[axis].data();
  std::uint32_t* const refs = refs_[axis].data();
  const std::size_t count = keys_[axis].size();
  // The union of the ranges the moves disturbed, written back to positions_ once it stops growing
  // (moves come in increasing order of their starting index, so a range that the next move does
  // not reach is final).
  bool disturbed = false;
  std::size_t disturbed_first = 0;
  std::size_t disturbed_last = 0;
  for (std::size_t i = 1; i < count; ++i) {
    // The scan streams through the list; prefetching it well ahead measurably beats leaving it to
    // the hardware prefetcher (every other key and every sixteenth ref may start a cache line).
    if (i + stream_ahead < count) {
      if ((i & 1) == 0) prefetch(keys + i + stream_ahead);
      if ((i & 15) == 0) prefetch(refs + i + stream_ahead);
    }
    // Under coherent motion nearly every endpoint is still in order: one compare, no other load.
    if (keys[i].value > keys[i - 1].value) continue;
    const std::uint32_t ref = refs[i];
    const Key moving = keys[i];
    if (!precedes(moving.value, ref, keys[i - 1].value, refs[i - 1])) continue;
    // A lower endpoint passing below an upper one of another proxy may start an overlap of the two
    // (an upper passing below a lower one can only end one, which the check of the set after the
    // sort handles). The float extents on the other two axes reject nearly all such candidates
    // without a memory access outside this list.
    // The loop conditions are `precedes` specialised to the kind of the moving endpoint: an
    // upper one passes greater values only, a lower one also upper endpoints of equal value.
    std::size_t j = i;
    if (is_upper(ref)) {
      do {
        keys[j] = keys[j - 1];
        refs[j] = refs[j - 1];
        --j;
      } while (j > 0 && moving.value < keys[j - 1].value);
    } else {
      const std::array<float, 4> bound = bound_of(moving.filter);
      do {
        const Key passed = keys[j - 1];
        const std::uint32_t passed_ref = refs[j - 1];
        keys[j] = passed;
        refs[j] = passed_ref;
        if (is_upper(passed_ref) & may_overlap(passed.filter, bound)) [[unlikely]] {
          const ProxyId a = std::min(id_of(ref), id_of(passed_ref));
          const ProxyId b = std::max(id_of(ref), id_of(passed_ref));
          if (a != b && overlap(boxes_W_[a], boxes_W_[b])) overlaps_.add(a, b);
        }
        --j;
      } while (j > 0 && (moving.value < keys[j - 1].value ||
                         (moving.value == keys[j - 1].value && is_upper(refs[j - 1]))));
    }
    keys[j] = moving;
    refs[j] = ref;
    if (disturbed && j <= disturbed_last + 1) {
      disturbed_first = std::min(disturbed_first, j);
      disturbed_last = i;
    } else {
      if (disturbed) store_positions(axis, disturbed_first, disturbed_last);
      disturbed = true;
      disturbed_first = j;
      disturbed_last = i;
    }
  }
  if (disturbed) store_positions(axis, disturbed_first, disturbed_last);
}

void SapBroadPhase::merge_joining() {
  for (int axis = 0; axis < 3; ++axis) {
    new_endpoints_.clear();
    for (const ProxyId id : joining_) {
      const Aabb& box = boxes_W_[id];
      const std::array<float, 4> filter = filter_of(float_box(box), axis);
      new_endpoints_.push_back(Endpoint{Key{box.min_W[axis], filter}, lower_ref(id)});
      new_endpoints_.push_back(Endpoint{Key{box.max_W[axis], filter}, upper_ref(id)});
    }
    std::sort(new_endpoints_.begin(), new_endpoints_.end(),
              [](const Endpoint& x, const Endpoint& y) {
                return precedes(x.key.value, x.ref, y.key.value, y.ref);
              });
    // Merge from the back, in place: the old endpoints below the lowest new one do not move.
    std::vector<Key>& keys = keys_[axis];
    std::vector<std::uint32_t>& refs = refs_[axis];
    const std::size_t old_count = keys.size();
    const std::size_t total = old_count + new_endpoints_.size();
    keys.resize(total);
    refs.resize(total);
    std::size_t old_left = old_count;
    std::size_t new_left = new_endpoints_.size();
    std::size_t write = total;
    while (new_left > 0) {
      --write;
      const Endpoint& candidate = new_endpoints_[new_left - 1];
      if (old_left > 0 && precedes(candidate.key.value, candidate.ref, keys[old_left - 1].value,
                                   refs[old_left - 1])) {
        --old_left;
        keys[write] = keys[old_left];
        refs[write] = refs[old_left];
      } else {
        --new_left;
        keys[write] = candidate.key;
        refs[write] = candidate.ref;
      }
    }
    store_positions(axis, old_left, total - 1);
  }
}

int SapBroadPhase::thinnest_axis_of_joining() const {
  // The sweep's cost is the number of proxies open at each lower endpoint of a new proxy, which
  // grows with the boxes' extent relative to the extent of the scene along the sweep axis. The new
  // boxes serve as the sample (all of them when the scene is first filled).
  int best_axis = 0;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int axis = 0; axis < 3; ++axis) {
    const std::vector<Key>& keys = keys_[axis];
    std::size_t first = 0;
    std::size_t last = keys.size();
    while (first < last && !std::isfinite(keys[first].value)) ++first;
    while (last > first && !std::isfinite(keys[last - 1].value)) --last;
    const double span = first < last ? keys[last - 1].value - keys[first].value : 0.0;
    double cost = 0.0;
    for (const ProxyId id : joining_) {
      const double lo = boxes_W_[id].min_W[axis];
      const double hi = boxes_W_[id].max_W[axis];
      // An infinite or scene-wide extent opens the proxy against everything on this axis.
      cost += (span > 0.0 && std::isfinite(lo) && std::isfinite(hi))
                  ? std::min(1.0, (hi - lo) / span)
                  : 1.0;
    }
    if (cost < best_cost) {
      best_cost = cost;
      best_axis = axis;
    }
  }
  return best_axis;
}

void SapBroadPhase::find_pairs_of_joining() {
  // One sweep along an axis with two open lists: the old proxies (already paired among
  // themselves, so only tested against new ones) and the new ones (tested against both). Each
  // pair is found once, at the later of its two lower endpoints. The open entries are the float
  // filters the keys carry, so that the sweep reads the list alone; only the pairs that pass them
  // look at the boxes.
  const int axis = thinnest_axis_of_joining();
  const Key* const keys = keys_[axis].data();
  const std::uint32_t* const refs = refs_[axis].data();
  const std::size_t count = keys_[axis].size();
  active_old_.clear();
  active_new_.clear();
  std::size_t new_lower_left = joining_.size();
  const auto test_against = [this](const Active& entry, const std::vector<Active>& open) {
    const std::array<float, 4> bound = bound_of(entry.filter);
    for (const Active& other : open) {
      if (may_overlap(other.filter, bound)) [[unlikely]] {
        const ProxyId a = std::min(entry.id, other.id);
        const ProxyId b = std::max(entry.id, other.id);
        if (overlap(boxes_W_[a], boxes_W_[b])) overlaps_.add(a, b);
      }
    }
  };
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t ref = refs[i];
    const ProxyId id = id_of(ref);
    const bool fresh = state_[id] == State::joining;
    std::vector<Active>& open = fresh ? active_new_ : active_old_;
    if (is_upper(ref)) {
      // Close: the last entry fills the gap.
      const std::uint32_t slot = active_slot_[id];
      open[slot] = open.back();
      active_slot_[open[slot].id] = slot;
      open.pop_back();
      if (new_lower_left == 0 && active_new_.empty()) break;  // no new proxy is open or ahead
      continue;
    }
    const Active entry{keys[i].filter, id};
    test_against(entry, active_new_);
    if (fresh) {
      test_against(entry, active_old_);
      --new_lower_left;
    }
    active_slot_[id] = static_cast<std::uint32_t>(open.size());
    open.push_back(entry);
  }
}

}  // namespace contactlab::plugins
