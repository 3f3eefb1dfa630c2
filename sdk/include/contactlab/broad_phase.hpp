// BroadPhase: from the bounding boxes of all collidable geometries to candidate pairs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "contactlab/errors.hpp"
#include "contactlab/export.hpp"
#include "contactlab/shapes.hpp"

namespace contactlab {

using ProxyId = std::uint32_t;

/// Two proxies whose boxes overlap; always a < b.
struct ProxyPair {
  ProxyId a = 0;
  ProxyId b = 0;
  friend bool operator==(const ProxyPair&, const ProxyPair&) = default;
  friend bool operator<(const ProxyPair& x, const ProxyPair& y) {
    return x.a < y.a || (x.a == y.a && x.b < y.b);
  }
};

struct BroadPhaseCapabilities {
  bool incremental = false;   ///< exploits temporal coherence between updates
  bool box_distance = false;  ///< implements box_distance()
};

/// Euclidean distance between two closed boxes; 0 when they overlap or touch.
inline double aabb_distance(const Aabb& a, const Aabb& b) {
  double squared = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double gap = std::max(a.min_W[i] - b.max_W[i], b.min_W[i] - a.max_W[i]);
    if (gap > 0.0) squared += gap * gap;
  }
  return std::sqrt(squared);
}

/// Keeps one proxy (one box) per collidable geometry across steps, so implementations can exploit
/// temporal coherence. Proxy ids are chosen by the host: unique among the live proxies and small
/// (the host reuses the ids it removed), so an implementation may index arrays by them.
///
/// Boxes are closed (touching counts) and may have infinite bounds (a half-space is unbounded
/// along the axes its normal is not aligned with); they never contain NaN.
///
/// Errors (an id inserted twice, an unknown id) throw contactlab::Error naming the id.
class CONTACTLAB_VISIBLE BroadPhase {
 public:
  virtual ~BroadPhase() = default;
  virtual BroadPhaseCapabilities capabilities() const = 0;
  /// Adds proxy `id` with `box` (world frame), without rebuilding what exists.
  virtual void insert(ProxyId id, const Aabb& box) = 0;
  /// Removes proxy `id`; it is absent from the next collect_pairs and its id may be reused.
  virtual void remove(ProxyId id) = 0;
  /// Moves proxy `id` to `box` (world frame).
  virtual void set_box(ProxyId id, const Aabb& box) = 0;
  /// Replaces the contents of `out` with every pair of live proxies whose boxes overlap, each once
  /// with a < b, in no particular order. `out` is caller-owned so that no allocation happens once
  /// it has grown.
  virtual void collect_pairs(std::vector<ProxyPair>& out) = 0;
  /// Distance between the current boxes of two live proxies (0 when they overlap): the cheap
  /// zero-crossing surrogate Modia3D uses for pairs not yet in contact. Only when
  /// capabilities().box_distance; the default throws contactlab::Error.
  virtual double box_distance(ProxyId a, ProxyId b) const;
};

inline double BroadPhase::box_distance(ProxyId /*a*/, ProxyId /*b*/) const {
  throw Error(
      "this broad phase does not report box distances (capabilities().box_distance is false)");
}

}  // namespace contactlab
