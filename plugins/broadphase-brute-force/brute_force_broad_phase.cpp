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
  capabilities.box_distance = true;
  return capabilities;
}

void BruteForceBroadPhase::insert(ProxyId id, const Aabb& box) {
  if (id < live_.size() && live_[id])
    throw Error("brute_force broad phase: insert(" + std::to_string(id) +
                "): the id is already in use");
  if (id >= live_.size()) {
    live_.resize(id + 1, 0);
    boxes_W_.resize(id + 1);
  }
  live_[id] = 1;
  boxes_W_[id] = box;
  ids_dirty_ = true;
}

void BruteForceBroadPhase::remove(ProxyId id) {
  live_box(id, "remove");
  live_[id] = 0;
  ids_dirty_ = true;
}

const Aabb& BruteForceBroadPhase::live_box(ProxyId id, const char* operation) const {
  if (id >= live_.size() || !live_[id])
    throw Error(std::string("brute_force broad phase: ") + operation + "(" + std::to_string(id) +
                "): no such proxy");
  return boxes_W_[id];
}

void BruteForceBroadPhase::set_box(ProxyId id, const Aabb& box) {
  live_box(id, "set_box");
  boxes_W_[id] = box;
}

double BruteForceBroadPhase::box_distance(ProxyId a, ProxyId b) const {
  return aabb_distance(live_box(a, "box_distance"), live_box(b, "box_distance"));
}

void BruteForceBroadPhase::collect_pairs(std::vector<ProxyPair>& out) {
  // clear() keeps the capacity, so once `out` has grown no call allocates.
  out.clear();
  if (ids_dirty_) {
    ids_.clear();
    for (ProxyId id = 0; id < live_.size(); ++id)
      if (live_[id]) ids_.push_back(id);
    ids_dirty_ = false;
  }
  // Aabb::overlaps compares with <=: closed boxes (touching counts), and ±infinity bounds of
  // unbounded shapes compare correctly. Ascending ids yield a < b in lexicographic order.
  const std::size_t count = ids_.size();
  for (std::size_t i = 0; i < count; ++i) {
    const Aabb& box_a = boxes_W_[ids_[i]];
    for (std::size_t j = i + 1; j < count; ++j) {
      if (box_a.overlaps(boxes_W_[ids_[j]])) out.push_back(ProxyPair{ids_[i], ids_[j]});
    }
  }
}

}  // namespace contactlab::plugins
