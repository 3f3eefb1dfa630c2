// Brute-force broad phase: tests every pair of boxes. O(n²) per collect_pairs, no temporal
// coherence; it exists as the obviously-correct reference for the other broad phases.
#pragma once

#include <cstdint>
#include <vector>

#include <contactlab/broad_phase.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

class BruteForceBroadPhase final : public BroadPhase {
 public:
  explicit BruteForceBroadPhase(const ParameterValues& params);
  static ParameterSchema schema();

  BroadPhaseCapabilities capabilities() const override;
  /// Throws contactlab::Error when `id` is already live.
  void insert(ProxyId id, const Aabb& box) override;
  /// Throws contactlab::Error when `id` is not live.
  void remove(ProxyId id) override;
  /// Throws contactlab::Error when `id` is not live.
  void set_box(ProxyId id, const Aabb& box) override;
  /// Every pair (a < b) whose closed boxes overlap, in lexicographic order of (a, b).
  void collect_pairs(std::vector<ProxyPair>& out) override;
  double box_distance(ProxyId a, ProxyId b) const override;

 private:
  const Aabb& live_box(ProxyId id, const char* operation) const;

  std::vector<Aabb> boxes_W_;  ///< indexed by id
  std::vector<char> live_;     ///< indexed by id
  std::vector<ProxyId> ids_;   ///< the live ids, ascending (rebuilt lazily)
  bool ids_dirty_ = false;
};

}  // namespace contactlab::plugins
