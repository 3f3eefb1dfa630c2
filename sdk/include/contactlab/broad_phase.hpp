// BroadPhase: from the bounding boxes of all collidable geometries to candidate pairs.
#pragma once

#include <cstdint>
#include <vector>

#include "contactlab/export.hpp"
#include "contactlab/shapes.hpp"

namespace contactlab {

using ProxyId = std::uint32_t;

/// Two proxies whose boxes overlap; always a < b.
struct ProxyPair {
  ProxyId a = 0;
  ProxyId b = 0;
  friend bool operator==(const ProxyPair&, const ProxyPair&) = default;
};

struct BroadPhaseCapabilities {
  bool incremental = false;   ///< exploits temporal coherence between updates
  bool box_distance = false;  ///< can report the distance between non-overlapping boxes
};

/// Keeps one proxy (one box) per collidable geometry across steps, so implementations can exploit
/// temporal coherence. Proxy ids are dense and assigned by the host: 0, 1, 2, ...
class CONTACTLAB_VISIBLE BroadPhase {
 public:
  virtual ~BroadPhase() = default;
  virtual BroadPhaseCapabilities capabilities() const = 0;
  /// Sets the number of proxies; existing ids keep their boxes, new ids start with `box`.
  virtual void resize(std::uint32_t proxy_count, const Aabb& box) = 0;
  /// Moves proxy `id` to `box` (world frame).
  virtual void set_box(ProxyId id, const Aabb& box) = 0;
  /// Replaces the contents of `out` with every pair of proxies whose boxes overlap (closed boxes:
  /// touching counts). `out` is caller-owned so that no allocation happens once it has grown.
  virtual void collect_pairs(std::vector<ProxyPair>& out) = 0;
};

}  // namespace contactlab
