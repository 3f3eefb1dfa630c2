// aabb_tree broad phase: a dynamic bounding-volume tree over fattened boxes, with a persistent
// set of candidate pairs that only the proxies which left their fat box update. This class is the
// adapter (proxies, unbounded boxes, pairs); the tree is aabb_tree.hpp, usable without it.
//
// The ideas, from the libraries and papers that established them:
//  - Fat leaves (Box2D b2DynamicTree, Bullet btDbvt): a leaf holds its proxy's box enlarged by a
//    margin, so a proxy whose new box still fits in its fat box changes nothing in the tree; only
//    proxies that leave their fat box are removed and reinserted.
//  - Insertion by the surface-area heuristic: the sibling of a new leaf minimises the area of the
//    new parent plus the area added to every ancestor, found by a branch-and-bound descent
//    (Bittner, Hapala, Havran, "Fast Insertion-Based Optimization of Bounding Volume
//    Hierarchies", CGF 2013; E. Catto, "Dynamic Bounding Volume Hierarchies", GDC 2019 and
//    Box2D v3). A moved leaf is reinserted from its lowest former ancestor that still contains
//    it, not from the root.
//  - Tree rotations (Kopta, Ize, Spjut, Brunvand, Davis, Kensler, "Fast, Effective BVH Updates
//    for Animated Scenes", I3D 2012; Box2D v3): on the way up from an insertion each ancestor
//    swaps a child with a grandchild when that reduces the area of the changed child; this keeps
//    the tree shallow even for sorted input.
//  - Incremental pairs (Box2D's move buffer and pair set): the set of pairs whose fat boxes
//    overlap persists across updates. A pair can only enter or leave that set when one of its
//    proxies got a new fat box (or was inserted or removed), so collect_pairs drops the pairs of
//    those "dirty" proxies and queries the tree once for each of them; every other pair is kept
//    as it is. The reported pairs are the persistent pairs whose exact boxes overlap now, so the
//    result is exact although the tree only knows fat boxes.
//  - Deferred, sorted updates: insert, remove and set_box only record what changed; collect_pairs
//    applies it, the dirty proxies in Morton order of their boxes, so that consecutive
//    reinsertions and queries walk mostly the same, still cached, nodes.
//  - Rebuild when most proxies are dirty (the first call, a teleport of everything): the tree is
//    built top-down with the binned surface-area heuristic (Wald, IEEE RT 2007), and the pair set
//    by one tree–tree self traversal (Bullet's btDbvt::collideTT, FCL's
//    DynamicAABBTreeCollisionManager), which visits each overlapping node pair once.
//  - Child boxes in the parent (as in Jolt's broad-phase quadtree and most ray-tracing BVHs): a
//    node stores the boxes of its two children, so one cache line decides which children a
//    query descends into, and leaves need no node of their own. The boxes are rounded outwards
//    to float, which keeps a node at 64 bytes; the tree only culls, and every reported pair is
//    decided on the exact double boxes.
//
// Unbounded boxes (any bound ±infinity, as of half-spaces, or beyond ±1e38 m, outside float
// range) are kept out of the tree: the area of an infinite box is infinite and differences of
// areas become inf − inf = NaN, which would poison the heuristic. They live in a short list;
// each is a query box for the tree (the overlap test handles infinite bounds correctly, and a
// floor only visits the part of the tree near it) and is tested against the others directly.
//
// Costs per collect_pairs: O(P) for the P candidate pairs, plus O(log n) per dirty proxy for its
// reinsertion and query (n proxies). Under coherent motion P and the number of dirty proxies are
// proportional to n, so an update is linear in n. No allocation once the buffers have grown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <contactlab/broad_phase.hpp>
#include <contactlab/parameters.hpp>

#include "aabb_tree.hpp"

namespace contactlab::plugins {

class AabbTreeBroadPhase final : public BroadPhase {
 public:
  explicit AabbTreeBroadPhase(const ParameterValues& params);
  static ParameterSchema schema();

  BroadPhaseCapabilities capabilities() const override;
  /// Throws contactlab::Error when `id` is already live (or above 2^31 − 2).
  void insert(ProxyId id, const Aabb& box) override;
  /// Throws contactlab::Error when `id` is not live.
  void remove(ProxyId id) override;
  /// Throws contactlab::Error when `id` is not live.
  void set_box(ProxyId id, const Aabb& box) override;
  /// Every pair (a < b) whose closed boxes overlap, in no particular order.
  void collect_pairs(std::vector<ProxyPair>& out) override;
  double box_distance(ProxyId a, ProxyId b) const override;

  /// Height of the tree as of the last collect_pairs (which applies the updates since the one
  /// before): 0 for an empty tree or a single leaf, the number of edges on the longest
  /// root-to-leaf path otherwise. Unbounded proxies are not in the tree.
  int tree_height() const;
  /// Checks the structure of the tree and the bookkeeping of the proxies and throws
  /// contactlab::Error naming the first violation: parent and child links agree, every box a
  /// node holds for an internal child is the union of that child's boxes and for a leaf is its
  /// proxy's fat box rounded outwards, heights are consistent, every fat box contains its
  /// proxy's exact box, and every live proxy is in the tree or the unbounded list exactly once.
  /// Valid right after collect_pairs (it throws while updates are pending). For tests; O(n).
  void check_invariants() const;

 private:
  using Box = aabb_tree::Box;
  using TreeBox = aabb_tree::TreeBox;

  static constexpr std::int32_t no_slot = -1;  ///< unbounded_slot_ of a proxy not in unbounded_

  // Per-proxy flags (flags_).
  static constexpr std::uint8_t live_flag = 1;  ///< the id names a live proxy
  /// Inserted, removed or given a new fat box since the last collect_pairs, which brings the
  /// tree up to date; listed in dirty_ids_.
  static constexpr std::uint8_t dirty_flag = 2;
  static constexpr std::uint8_t in_tree_flag = 4;    ///< a leaf of the tree
  static constexpr std::uint8_t unbounded_flag = 8;  ///< in unbounded_

  const Box& live_exact(ProxyId id, const char* operation) const;
  Box fatten(const Box& box) const;
  void mark_dirty(ProxyId id);
  /// Puts a live proxy into the tree, or into unbounded_ when its fat box does not fit the tree.
  void attach(ProxyId id);
  /// Takes a proxy out of the tree or unbounded_, wherever it is.
  void detach(ProxyId id);

  /// Adds a candidate pair to pairs_, and to `out` if the exact boxes overlap.
  void add_pair(ProxyId a, ProxyId b, std::vector<ProxyPair>& out);
  /// pairs_ from scratch (after rebuild_tree).
  void rebuild_pairs(std::vector<ProxyPair>& out);
  /// pairs_ updated for the dirty proxies (after they moved in the tree).
  void update_pairs(std::vector<ProxyPair>& out);
  /// Puts dirty_ids_ in Morton order of the fat-box centres.
  void sort_dirty();
  /// Rebuilds the tree from scratch over every live proxy (and the unbounded list).
  void rebuild_tree();

  double fat_margin_m_;
  double fat_margin_relative_;

  aabb_tree::Tree tree_;

  // Proxies, indexed by id.
  std::vector<Box> exact_;                    ///< the box given by the host
  std::vector<Box> fat_;                      ///< the fat box
  std::vector<std::int32_t> unbounded_slot_;  ///< the index in unbounded_ (no_slot: not there)
  std::vector<std::uint8_t> flags_;
  std::vector<ProxyId> unbounded_;    ///< live proxies outside the tree
  std::vector<ProxyId> dirty_ids_;    ///< ids with dirty_flag set
  std::vector<std::uint64_t> order_;  ///< sort_dirty(): Morton code << 32 | id
  std::size_t live_count_ = 0;

  /// Every pair of live proxies whose fat boxes overlap (as the tree stores them, or exactly for
  /// an unbounded proxy), as of the last collect_pairs: a superset of the overlapping pairs.
  std::vector<ProxyPair> pairs_;
};

}  // namespace contactlab::plugins
