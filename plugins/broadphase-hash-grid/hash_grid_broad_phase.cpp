#include "hash_grid_broad_phase.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

namespace {

constexpr std::int64_t default_levels = 24;
constexpr double min_cell_size_m = 1e-9;
constexpr double max_cell_size_m = 1e9;

/// Cell coordinates on a proxy's own level stay within ±2^26, so that they fit int32 with room
/// to spare on the levels up to max_finer_lookup finer (see collect_pairs).
constexpr double max_cell_coordinate = 67108864.0;
constexpr int max_finer_lookup = 3;

/// How many table slots ahead of the pair walk the boxes are prefetched: enough slots to cover a
/// memory latency of a few hundred nanoseconds at a few nanoseconds per slot.
constexpr std::size_t prefetch_distance = 32;

/// Mixes three cell coordinates into 64 bits whose low bits are all usable as a table index
/// (a weighted sum with odd constants, then the splitmix64 finaliser).
std::uint64_t cell_hash(std::int32_t x, std::int32_t y, std::int32_t z) {
  std::uint64_t h = std::uint64_t{static_cast<std::uint32_t>(x)} * 0x9e3779b97f4a7c15ull +
                    std::uint64_t{static_cast<std::uint32_t>(y)} * 0xc2b2ae3d27d4eb4full +
                    std::uint64_t{static_cast<std::uint32_t>(z)} * 0x165667b19e3779f9ull;
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return h;
}

void report(ProxyId a, ProxyId b, std::vector<ProxyPair>& out) {
  out.push_back(a < b ? ProxyPair{a, b} : ProxyPair{b, a});
}

/// Calls f(x, y, z) for each cell of the block that starts at `first` and spans `count` cells.
template <class F>
void for_each_cell(const std::array<std::int32_t, 3>& first,
                   const std::array<std::int32_t, 3>& count, F&& f) {
  for (std::int32_t z = first[2]; z < first[2] + count[2]; ++z) {
    for (std::int32_t y = first[1]; y < first[1] + count[1]; ++y) {
      for (std::int32_t x = first[0]; x < first[0] + count[0]; ++x) f(x, y, z);
    }
  }
}

}  // namespace

// --- CellTable ----------------------------------------------------------------------------------

std::size_t HashGridBroadPhase::CellTable::home(std::int32_t x, std::int32_t y,
                                                std::int32_t z) const {
  return static_cast<std::size_t>(cell_hash(x, y, z)) & (slots_.size() - 1);
}

void HashGridBroadPhase::CellTable::add(std::int32_t x, std::int32_t y, std::int32_t z,
                                        ProxyId proxy) {
  if (2 * (used_ + 1) > slots_.size()) rebuild(std::max<std::size_t>(16, 2 * slots_.size()));
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = home(x, y, z);
  while (slots_[i].proxy != vacant) i = (i + 1) & mask;
  slots_[i] = Slot{x, y, z, proxy};
  ++used_;
}

void HashGridBroadPhase::CellTable::erase(std::int32_t x, std::int32_t y, std::int32_t z,
                                          ProxyId proxy) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t hole = home(x, y, z);
  while (slots_[hole].proxy != proxy || !slots_[hole].holds(x, y, z)) hole = (hole + 1) & mask;
  // Backward shift: an entry further along the run moves into the hole unless its home lies
  // cyclically in (hole, its slot], where the move would put it before its home.
  for (std::size_t j = (hole + 1) & mask; slots_[j].proxy != vacant; j = (j + 1) & mask) {
    const std::size_t h = home(slots_[j].x, slots_[j].y, slots_[j].z);
    const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
    if (stays) continue;
    slots_[hole] = slots_[j];
    hole = j;
  }
  slots_[hole] = Slot{};
  --used_;
  if (slots_.size() > 16 && 8 * used_ < slots_.size()) rebuild(slots_.size() / 2);
}

void HashGridBroadPhase::CellTable::rebuild(std::size_t capacity) {
  // Doubling at a load of 1/2 and halving below 1/8 both leave a load of about 1/4, a factor of
  // two from either threshold: rebuilds cost amortised O(1) per entry.
  spare_.assign(capacity, Slot{});
  const std::size_t mask = capacity - 1;
  for (const Slot& slot : slots_) {
    if (slot.proxy == vacant) continue;
    std::size_t i = static_cast<std::size_t>(cell_hash(slot.x, slot.y, slot.z)) & mask;
    while (spare_[i].proxy != vacant) i = (i + 1) & mask;
    spare_[i] = slot;
  }
  slots_.swap(spare_);
}

// --- HashGridBroadPhase -------------------------------------------------------------------------

HashGridBroadPhase::HashGridBroadPhase(const ParameterValues& params) {
  std::int64_t level_count = default_levels;
  if (params.contains("cell_size_m")) cell_size_m_ = params.real("cell_size_m");
  if (params.contains("levels")) level_count = params.integer("levels");
  if (!(cell_size_m_ >= min_cell_size_m && cell_size_m_ <= max_cell_size_m)) {
    throw InputError("hash_grid broad phase: params.cell_size_m is " +
                     std::to_string(cell_size_m_) + "; expected a value in [1e-9, 1e9] m");
  }
  if (level_count < 1 || level_count > max_levels) {
    throw InputError("hash_grid broad phase: params.levels is " + std::to_string(level_count) +
                     "; expected a value in [1, " + std::to_string(max_levels) + "]");
  }
  levels_.resize(static_cast<std::size_t>(level_count));
  // Powers of two scale exactly, so every level computes cell coordinates with the same rounding.
  for (std::size_t k = 0; k < levels_.size(); ++k)
    levels_[k].inverse_cell_size = std::ldexp(1.0 / cell_size_m_, -static_cast<int>(k));
  occupied_levels_.reserve(levels_.size());
}

ParameterSchema HashGridBroadPhase::schema() {
  return {
      real_parameter("cell_size_m", 1.0, min_cell_size_m, max_cell_size_m, "m",
                     "edge of the cells of the finest level (level k has cells of edge "
                     "cell_size_m·2^k); about the size of the smallest boxes, since all boxes "
                     "smaller than a cell share the finest level"),
      integer_parameter("levels", default_levels, 1, max_levels,
                        "number of grid levels; a box larger than a cell of the coarsest level "
                        "(cell_size_m·2^(levels-1)) is tested against every other box, like a "
                        "half-space"),
  };
}

BroadPhaseCapabilities HashGridBroadPhase::capabilities() const {
  BroadPhaseCapabilities capabilities;
  capabilities.incremental = true;
  capabilities.box_distance = true;
  return capabilities;
}

void HashGridBroadPhase::check_live(ProxyId id, const char* operation) const {
  if (id >= proxies_.size() || !proxies_[id].live)
    throw Error(std::string("hash_grid broad phase: ") + operation + "(" + std::to_string(id) +
                "): no such proxy");
}

HashGridBroadPhase::Placement HashGridBroadPhase::place(const Aabb& box,
                                                        std::int32_t current_level) const {
  double extent = 0.0;
  for (int i = 0; i < 3; ++i) {
    if (!std::isfinite(box.min_W[i]) || !std::isfinite(box.max_W[i])) return Placement{};
    extent = std::max(extent, box.max_W[i] - box.min_W[i]);
  }
  // An extent above a cell size by no more than rounding (a box built as centre ± half size
  // whose size is the cell size) counts as fitting: the span check below still keeps the box
  // within two cells per axis, and boxes of the same size all get the same level.
  const double ratio = extent / cell_size_m_ * (1.0 - 0x1p-40);
  if (!(ratio <= std::ldexp(1.0, static_cast<int>(levels_.size()) - 1))) return Placement{};
  // fit: the smallest k (of any sign) with cell_size_m·2^k ≥ extent; frexp splits ratio = m·2^e
  // with m ∈ [0.5, 1). A box goes to level max(0, fit), the finest one its cells contain it on.
  int fit = std::numeric_limits<int>::min() / 2;
  if (ratio > 0.0) {
    int exponent = 0;
    const double mantissa = std::frexp(ratio, &exponent);
    fit = mantissa == 0.5 ? exponent - 1 : exponent;
  }
  int k = std::max(0, fit);
  // Hysteresis: a box stays on its level while it fits there and would not fit cells a quarter
  // the size, so that a box whose extent hovers about a power of two (a spinning box, or one
  // whose extent rounds to the cell size or just above it) does not change level at every step.
  if (current_level != oversize && current_level >= k && current_level <= fit + 1)
    k = current_level;
  // Rounding in the products below may let a box of about one cell's extent touch three cells;
  // one level up it touches at most two. A box too far from the origin for the cell coordinates
  // of its level moves up too, where they are smaller.
  for (; k < static_cast<int>(levels_.size()); ++k) {
    const double inverse = levels_[k].inverse_cell_size;
    Placement placement;
    placement.level = k;
    for (int i = 0; i < 3; ++i) {
      const double first = std::floor(box.min_W[i] * inverse);
      const double last = std::floor(box.max_W[i] * inverse);
      if (last - first > 1.0 ||
          !(std::abs(first) <= max_cell_coordinate && std::abs(last) <= max_cell_coordinate)) {
        placement.level = oversize;
        break;
      }
      placement.first_cell[i] = static_cast<std::int32_t>(first);
      placement.cell_count[i] = static_cast<std::int32_t>(last - first) + 1;
    }
    if (placement.level != oversize) return placement;
  }
  return Placement{};
}

void HashGridBroadPhase::enter(ProxyId id, const Placement& placement) {
  Proxy& proxy = proxies_[id];
  proxy.placement = placement;
  ++rebin_count_;
  std::vector<ProxyId>& members =
      placement.level == oversize ? oversize_ : levels_[placement.level].members;
  proxy.member_index = static_cast<std::uint32_t>(members.size());
  members.push_back(id);
  if (placement.level == oversize) return;

  CellTable& cells = levels_[placement.level].cells;
  for_each_cell(placement.first_cell, placement.cell_count,
                [&](std::int32_t x, std::int32_t y, std::int32_t z) { cells.add(x, y, z, id); });
}

void HashGridBroadPhase::leave(ProxyId id) {
  const Proxy& proxy = proxies_[id];
  const Placement& placement = proxy.placement;
  std::vector<ProxyId>& members =
      placement.level == oversize ? oversize_ : levels_[placement.level].members;
  const ProxyId moved = members.back();
  members[proxy.member_index] = moved;
  proxies_[moved].member_index = proxy.member_index;
  members.pop_back();
  if (placement.level == oversize) return;

  CellTable& cells = levels_[placement.level].cells;
  for_each_cell(placement.first_cell, placement.cell_count,
                [&](std::int32_t x, std::int32_t y, std::int32_t z) { cells.erase(x, y, z, id); });
}

void HashGridBroadPhase::shift(ProxyId id, const Placement& placement) {
  Proxy& proxy = proxies_[id];
  const Placement from = proxy.placement;
  proxy.placement = placement;
  ++rebin_count_;
  auto inside = [](const Placement& block, std::int32_t x, std::int32_t y, std::int32_t z) {
    const std::array<std::int32_t, 3> cell{x, y, z};
    for (int i = 0; i < 3; ++i) {
      const std::int32_t offset = cell[i] - block.first_cell[i];
      if (offset < 0 || offset >= block.cell_count[i]) return false;
    }
    return true;
  };
  CellTable& cells = levels_[placement.level].cells;
  for_each_cell(from.first_cell, from.cell_count,
                [&](std::int32_t x, std::int32_t y, std::int32_t z) {
                  if (!inside(placement, x, y, z)) cells.erase(x, y, z, id);
                });
  for_each_cell(placement.first_cell, placement.cell_count,
                [&](std::int32_t x, std::int32_t y, std::int32_t z) {
                  if (!inside(from, x, y, z)) cells.add(x, y, z, id);
                });
}

void HashGridBroadPhase::insert(ProxyId id, const Aabb& box) {
  if (id > max_id)
    throw Error("hash_grid broad phase: insert(" + std::to_string(id) + "): ids must not exceed " +
                std::to_string(max_id));
  if (id < proxies_.size() && proxies_[id].live)
    throw Error("hash_grid broad phase: insert(" + std::to_string(id) +
                "): the id is already in use");
  if (id >= proxies_.size()) {
    proxies_.resize(static_cast<std::size_t>(id) + 1);
    boxes_.resize(static_cast<std::size_t>(id) + 1);
  }
  proxies_[id].live = true;
  boxes_[id].box = box;
  enter(id, place(box, oversize));
}

void HashGridBroadPhase::remove(ProxyId id) {
  check_live(id, "remove");
  leave(id);
  proxies_[id].live = false;
}

void HashGridBroadPhase::set_box(ProxyId id, const Aabb& box) {
  check_live(id, "set_box");
  boxes_[id].box = box;
  const Placement& current = proxies_[id].placement;
  const Placement placement = place(box, current.level);
  if (placement == current) return;  // the common case under coherent motion
  if (placement.level == current.level && placement.level != oversize) {
    shift(id, placement);  // a step into the next cells: only the cells left and entered change
    return;
  }
  leave(id);
  enter(id, placement);
}

double HashGridBroadPhase::box_distance(ProxyId a, ProxyId b) const {
  check_live(a, "box_distance");
  check_live(b, "box_distance");
  return aabb_distance(boxes_[a].box, boxes_[b].box);
}

void HashGridBroadPhase::report_once(ProxyId a, ProxyId b, double inverse_cell_size, std::int32_t x,
                                     std::int32_t y, std::int32_t z,
                                     std::vector<ProxyPair>& out) const {
  const Aabb& box_a = boxes_[a].box;
  const Aabb& box_b = boxes_[b].box;
  if (!box_a.overlaps(box_b)) return;
  // The lowest corner of the intersection lies in both boxes, so its cell is one both occupy on
  // this level, and it is a single cell: the pair is reported from there only.
  const std::array<std::int32_t, 3> cell{x, y, z};
  for (int i = 0; i < 3; ++i) {
    const double corner = std::max(box_a.min_W[i], box_b.min_W[i]);
    if (std::floor(corner * inverse_cell_size) != static_cast<double>(cell[i])) return;
  }
  report(a, b, out);
}

void HashGridBroadPhase::look_up(const std::vector<ProxyId>& queries, const Level& level,
                                 std::vector<ProxyPair>& out) const {
  const std::vector<CellTable::Slot>& slots = level.cells.slots();
  const std::size_t mask = slots.size() - 1;
  const double inverse = level.inverse_cell_size;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    if (q + prefetch_distance < queries.size())
      __builtin_prefetch(&boxes_[queries[q + prefetch_distance]]);
    const ProxyId a = queries[q];
    const Aabb& box = boxes_[a].box;
    std::array<std::int32_t, 3> first{}, last{};
    for (int i = 0; i < 3; ++i) {
      first[i] = static_cast<std::int32_t>(std::floor(box.min_W[i] * inverse));
      last[i] = static_cast<std::int32_t>(std::floor(box.max_W[i] * inverse));
    }
    for (std::int32_t z = first[2]; z <= last[2]; ++z) {
      for (std::int32_t y = first[1]; y <= last[1]; ++y) {
        for (std::int32_t x = first[0]; x <= last[0]; ++x) {
          for (std::size_t t = level.cells.home(x, y, z); slots[t].proxy != CellTable::vacant;
               t = (t + 1) & mask) {
            if (slots[t].holds(x, y, z)) report_once(a, slots[t].proxy, inverse, x, y, z, out);
          }
        }
      }
    }
  }
}

void HashGridBroadPhase::collect_pairs(std::vector<ProxyPair>& out) {
  // clear() keeps the capacity, so once `out` has grown no call allocates.
  out.clear();
  occupied_levels_.clear();
  for (std::size_t k = 0; k < levels_.size(); ++k)
    if (!levels_[k].members.empty()) occupied_levels_.push_back(static_cast<std::int32_t>(k));

  // Pairs on one level: every two entries of the same cell. From each entry the rest of its run
  // is scanned for entries of the same cell, so each two are met once, from the earlier one.
  for (const std::int32_t k : occupied_levels_) {
    const Level& level = levels_[k];
    const std::vector<CellTable::Slot>& slots = level.cells.slots();
    const std::size_t mask = slots.size() - 1;
    for (std::size_t s = 0; s < slots.size(); ++s) {
      // The table is read in order, the boxes at random: fetch them ahead of need.
      if (s + prefetch_distance < slots.size() &&
          slots[s + prefetch_distance].proxy != CellTable::vacant)
        __builtin_prefetch(&boxes_[slots[s + prefetch_distance].proxy]);
      const CellTable::Slot& entry = slots[s];
      if (entry.proxy == CellTable::vacant) continue;
      for (std::size_t t = (s + 1) & mask; slots[t].proxy != CellTable::vacant;
           t = (t + 1) & mask) {
        if (slots[t].holds(entry.x, entry.y, entry.z))
          report_once(entry.proxy, slots[t].proxy, level.inverse_cell_size, entry.x, entry.y,
                      entry.z, out);
      }
    }
  }

  // Pairs across levels. Every fine box covers at most 2 cells per axis of a coarser level, and
  // every box k levels coarser covers at most 2^k + 1 fine cells per axis: either side can look
  // the other up. The fine side does, unless the coarse level is at most max_finer_lookup levels
  // up (so that its cell coordinates fit the fine level's) and needs fewer lookups.
  for (std::size_t fine = 0; fine < occupied_levels_.size(); ++fine) {
    for (std::size_t coarse = fine + 1; coarse < occupied_levels_.size(); ++coarse) {
      const Level& fine_level = levels_[occupied_levels_[fine]];
      const Level& coarse_level = levels_[occupied_levels_[coarse]];
      const int levels_apart = occupied_levels_[coarse] - occupied_levels_[fine];
      const double cells_per_axis = std::ldexp(1.0, levels_apart) + 1.0;
      const double coarse_lookups = std::pow(cells_per_axis, 3) * coarse_level.members.size();
      if (levels_apart <= max_finer_lookup && coarse_lookups < 8.0 * fine_level.members.size())
        look_up(coarse_level.members, fine_level, out);
      else
        look_up(fine_level.members, coarse_level, out);
    }
  }

  // Oversize proxies against each other and against every proxy on a level.
  for (std::size_t i = 0; i < oversize_.size(); ++i) {
    const ProxyId a = oversize_[i];
    const Aabb& box = boxes_[a].box;
    for (std::size_t j = i + 1; j < oversize_.size(); ++j)
      if (box.overlaps(boxes_[oversize_[j]].box)) report(a, oversize_[j], out);
    for (const std::int32_t k : occupied_levels_) {
      for (const ProxyId b : levels_[k].members)
        if (box.overlaps(boxes_[b].box)) report(a, b, out);
    }
  }
}

}  // namespace contactlab::plugins
