// Incremental sweep and prune (SAP): three sorted endpoint lists kept across steps and repaired by
// insertion sort, with the set of overlapping pairs maintained incrementally.
//
// The idea is Baraff's (PhD thesis, 1992) and I-COLLIDE's (Cohen, Lin, Manocha, Ponamgi, 1995);
// the arrangement follows SOLID 3 (van den Bergen, "Collision Detection in Interactive 3D
// Environments", 2003: one endpoint list per axis; a pair is considered when a lower endpoint
// passes an upper one) and Bullet's btAxisSweep3 (per-proxy endpoint indices for O(1) updates, and
// its "deferred removal" mode, in which pairs leave the set by a check of the set rather than on
// every separating swap). What is particular here:
//
// - set_box only stores the box. collect_pairs writes the moved endpoints in one batch, with the
//   cache misses of many proxies in flight at once, then repairs each list by one insertion-sort
//   pass over contiguous arrays, O(n + swaps): a sequential scan under coherent motion.
// - A swap touches nothing outside the list being sorted: each endpoint carries its proxy's bounds
//   on the other two axes rounded to float, so the lower-over-upper swaps of pairs that merely
//   cross on one axis (nearly all of them in a scene that fills 3-D space) are rejected in place.
//   The few that pass this filter test the two boxes and add the pair if they overlap.
// - Pairs leave the set in one check of the set after the sort (O(pairs)). A pair that starts to
//   overlap has some lower endpoint pass below an upper one of the other, a swap the sort sees, so
//   adding on those swaps and removing by the check leaves the set exact.
// - Endpoint positions are written once per element of the ranges the sort disturbed, not once
//   per swap.
// - Inserts and removals are batched: new endpoints are merged into the lists and dead ones
//   compacted out, one O(n) pass each per collect_pairs however many proxies came or went; the
//   pairs of new proxies come from one sweep along the axis where they are thinnest relative to
//   the scene.
//
// A step costs O(n + pairs + swaps). Swaps count how many endpoints each endpoint passes; in a
// scene that fills a cube uniformly, endpoints along an axis grow denser like n^(2/3), so at a
// fixed speed the swap term grows faster than n. That is inherent to global sorted lists; it stays
// small while the displacement per step is small against the spacing of endpoints along each axis.
//
// Exactness with closed boxes: endpoints are ordered by (value, lower before upper), so two
// intervals overlap (touching included) exactly when each lower endpoint precedes the other's
// upper one, and a lower endpoint arriving at the value of an upper one passes it. Infinite
// bounds sort like any other value; nothing subtracts them.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <contactlab/broad_phase.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// Proxy ids must be below 2^31 − 1 (an endpoint packs the id with one bit for lower/upper) and
/// boxes must satisfy min ≤ max on every axis, as every shape_aabb does.
class SapBroadPhase final : public BroadPhase {
 public:
  explicit SapBroadPhase(const ParameterValues& params);
  static ParameterSchema schema();

  BroadPhaseCapabilities capabilities() const override;
  /// Throws contactlab::Error when `id` is already live or too large. The proxy joins the endpoint
  /// lists at the next collect_pairs.
  void insert(ProxyId id, const Aabb& box) override;
  /// Throws contactlab::Error when `id` is not live. O(1); its endpoints leave the lists and its
  /// pairs the overlap set at the next collect_pairs.
  void remove(ProxyId id) override;
  /// Throws contactlab::Error when `id` is not live. O(1): stores the box; its endpoints are
  /// updated and the lists re-sorted at the next collect_pairs.
  void set_box(ProxyId id, const Aabb& box) override;
  /// Every pair (a < b) whose closed boxes overlap, in no particular order.
  void collect_pairs(std::vector<ProxyPair>& out) override;
  double box_distance(ProxyId a, ProxyId b) const override;

 private:
  /// Lifecycle of an id. `pending`: inserted, not yet in the endpoint lists; `joining`: being
  /// merged in during collect_pairs; `listed`: its six endpoints are in the lists; `moved`:
  /// listed, with a new box whose endpoints the next update stores.
  enum class State : std::uint8_t { free, pending, joining, listed, moved };

  /// The sort key of an endpoint in the list of axis k, with the extents of its proxy on axes
  /// a = k + 1 and b = k + 2 (mod 3) rounded to float, as (lo_a, lo_b, −hi_a, −hi_b): the
  /// filter a swap applies before looking further.
  struct Key {
    double value;
    std::array<float, 4> filter;
  };

  /// Where a proxy's endpoints are in the lists: lower (2·axis) and upper (2·axis + 1). Padded to
  /// 32 bytes so that reading them touches one cache line.
  struct alignas(32) EndpointPositions {
    std::array<std::uint32_t, 6> at;
  };

  /// An endpoint in scratch form (the lists themselves are parallel arrays of keys and refs).
  struct Endpoint {
    Key key;
    std::uint32_t ref;  ///< id << 1 | 1 for an upper endpoint
  };

  /// An entry of the sweep that finds the pairs of new proxies: the filter of the proxy's lower
  /// endpoint in the list swept, stored inline so that the tests read contiguous memory.
  struct Active {
    std::array<float, 4> filter;
    ProxyId id;
  };

  /// Overlapping pairs: a dense array (copied out by collect_pairs) indexed by an open-addressing
  /// hash table with linear probing and backward-shift deletion (no tombstones), so insertion and
  /// removal are O(1) and nothing allocates once the table has grown.
  class PairSet {
   public:
    PairSet();
    void add(ProxyId a, ProxyId b);
    const std::vector<ProxyPair>& pairs() const { return pairs_; }
    /// Keeps the pairs for which `keep(pair)` holds, erasing the others one by one;
    /// `prefetch_for(pair)` is called a few pairs ahead of `keep(pair)`.
    template <typename Keep, typename Prefetch>
    void retain(Keep keep, Prefetch prefetch_for);

   private:
    struct Slot {
      std::uint64_t key;    ///< empty_key when unused
      std::uint32_t index;  ///< into pairs_
    };
    static constexpr std::uint64_t empty_key = ~std::uint64_t{0};
    static std::uint64_t key_of(const ProxyPair& pair);
    std::size_t home(std::uint64_t key) const;
    std::size_t find(std::uint64_t key) const;  ///< the slot holding key, or an empty slot
    void erase_at(std::uint32_t index);
    void rehash(std::size_t capacity);

    std::vector<Slot> slots_;
    std::vector<ProxyPair> pairs_;
    int shift_ = 0;  ///< 64 − log2(slots_.size())
  };

  void check_live(ProxyId id, const char* operation) const {
    if (id >= state_.size() || state_[id] == State::free) [[unlikely]]
      throw_no_such_proxy(id, operation);
  }
  [[noreturn]] static void throw_no_such_proxy(ProxyId id, const char* operation);
  void update();
  bool store_moved_endpoints();  ///< true when some listed proxy moved
  void compact_lists();
  void sort_axis(int axis);
  void store_positions(int axis, std::size_t first, std::size_t last);
  void merge_joining();
  void find_pairs_of_joining();
  int thinnest_axis_of_joining() const;

  std::vector<Aabb> boxes_W_;                 ///< indexed by id
  std::vector<EndpointPositions> positions_;  ///< indexed by id
  std::vector<State> state_;                  ///< indexed by id
  std::vector<char> removed_;     ///< indexed by id: left the lists since the last update
  std::vector<ProxyId> pending_;  ///< inserted since the last update (may hold stale ids)
  std::vector<ProxyId> removed_ids_;
  std::vector<ProxyId> joining_;
  /// Listed proxies given a box since the last update (may hold ids removed since).
  std::vector<ProxyId> moved_ids_;

  // The endpoint lists, one per axis, as parallel arrays.
  std::array<std::vector<Key>, 3> keys_;
  std::array<std::vector<std::uint32_t>, 3> refs_;

  PairSet overlaps_;

  // Scratch of the insertion batch, kept for its capacity.
  std::vector<Endpoint> new_endpoints_;
  std::vector<Active> active_old_;
  std::vector<Active> active_new_;
  std::vector<std::uint32_t> active_slot_;  ///< indexed by id: position in its active list
};

}  // namespace contactlab::plugins
