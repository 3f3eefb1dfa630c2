#include "brute_force_broad_phase.hpp"

#include <string>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

BruteForceBroadPhase::BruteForceBroadPhase(const ParameterValues& /*params*/) {}

ParameterSchema BruteForceBroadPhase::schema() {
  return {};
}

BroadPhaseCapabilities BruteForceBroadPhase::capabilities() const {
  BroadPhaseCapabilities capabilities;
  capabilities.incremental = false;
  capabilities.box_distance = false;
  return capabilities;
}

void BruteForceBroadPhase::resize(std::uint32_t proxy_count, const Aabb& box) {
  // std::vector::resize keeps the boxes of existing ids and gives new ids `box`, as the interface
  // requires.
  boxes_W_.resize(proxy_count, box);
}

void BruteForceBroadPhase::set_box(ProxyId id, const Aabb& box) {
  if (id >= boxes_W_.size()) {
    throw Error("brute_force broad phase: set_box(" + std::to_string(id) +
                ") is out of range; there are " + std::to_string(boxes_W_.size()) + " proxies");
  }
  boxes_W_[id] = box;
}

void BruteForceBroadPhase::collect_pairs(std::vector<ProxyPair>& out) {
  // clear() keeps the capacity, so once `out` has grown no call allocates.
  out.clear();
  const auto count = static_cast<ProxyId>(boxes_W_.size());
  // Aabb::overlaps compares with <=: closed boxes (touching counts), and ±infinity bounds of
  // unbounded shapes compare correctly. The loop order yields a < b in lexicographic order.
  for (ProxyId a = 0; a < count; ++a) {
    for (ProxyId b = a + 1; b < count; ++b) {
      if (boxes_W_[a].overlaps(boxes_W_[b])) out.push_back(ProxyPair{a, b});
    }
  }
}

}  // namespace contactlab::plugins
