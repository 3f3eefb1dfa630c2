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
  void resize(std::uint32_t proxy_count, const Aabb& box) override;
  /// Throws contactlab::Error when `id` is not below the proxy count.
  void set_box(ProxyId id, const Aabb& box) override;
  /// Every pair (a < b) whose closed boxes overlap, in lexicographic order of (a, b).
  void collect_pairs(std::vector<ProxyPair>& out) override;

 private:
  std::vector<Aabb> boxes_W_;
};

}  // namespace contactlab::plugins
