// The narrow-phase chain: `collision.narrow_phase: [p1, p2, ...]` gives each ordered pair of shape
// types to the first plugin of the list that supports it. The table of who answers what
// (NarrowPhaseDispatch) is built once, when the scene is built (build_scene checks every pair of
// the scene against it), and kept in the Scene; each run creates its own plugin instances
// (NarrowPhaseChain: their statistics and scratch belong to that run) and dispatches through the
// scene's table.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "contactlab/narrow_phase.hpp"

namespace contactlab::core {

struct PluginChoice;
class PluginRegistry;

/// [type_a × type_b] → index of the chain member that answers the pair, or `none`.
class NarrowPhaseDispatch {
 public:
  static constexpr int none = -1;
  /// No member for any pair.
  NarrowPhaseDispatch() { member_.fill(none); }
  /// The first member of `chain` whose supports(a, b) is true, for every ordered pair.
  explicit NarrowPhaseDispatch(const std::vector<std::shared_ptr<NarrowPhase>>& chain);

  int member(ShapeType a, ShapeType b) const {
    return member_[static_cast<std::size_t>(a) * shape_type_count + static_cast<std::size_t>(b)];
  }

 private:
  std::array<int, shape_type_count * shape_type_count> member_;
};

/// One run's instances of the chain's plugins, dispatched through a table built before.
class NarrowPhaseChain {
 public:
  /// Creates an instance of each choice (in order) and builds the dispatch table from them.
  NarrowPhaseChain(const std::vector<PluginChoice>& choices, PluginRegistry& registry);
  /// Creates an instance of each choice and dispatches through `dispatch` (the table built from
  /// instances of the same choices, e.g. the Scene's).
  NarrowPhaseChain(const std::vector<PluginChoice>& choices, PluginRegistry& registry,
                   const NarrowPhaseDispatch& dispatch);

  const NarrowPhaseDispatch& dispatch() const { return dispatch_; }
  /// The member answering shape types a (as A) and b (as B), or NarrowPhaseDispatch::none.
  int member(ShapeType a, ShapeType b) const { return dispatch_.member(a, b); }
  /// Member `member`'s answer (see NarrowPhase::query); one virtual call, no allocation.
  void query(int member, const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
             NarrowPhaseCache& cache, ContactManifold& out) const {
    members_[static_cast<std::size_t>(member)]->query(a, X_WA, b, X_WB, cache, out);
  }
  /// The counters of each member, in chain order.
  std::vector<NarrowPhaseStatistics> statistics() const;

 private:
  std::vector<std::shared_ptr<NarrowPhase>> members_;
  NarrowPhaseDispatch dispatch_;
};

}  // namespace contactlab::core
