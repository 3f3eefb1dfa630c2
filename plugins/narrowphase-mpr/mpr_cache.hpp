// The MPR narrow phase's entry in a pair's NarrowPhaseCache (contactlab/contact.hpp): the portal
// (or a curved pair's Newton or face normal) the pair's last query ended on, which the next query
// starts from (mpr::WarmPortal, mpr_algorithm.hpp), in plain fields.
#pragma once

#include <array>
#include <contactlab/contact.hpp>
#include <cstdint>

namespace contactlab::plugins::mpr {

/// The plugin's tag: an entry written for one pair of shape types reads as empty for another, and
/// so does another plugin's (kCacheTag.of(a.type, b.type)).
inline constexpr NarrowPhaseCacheTag kCacheTag{"mpr"};

/// WarmPortal as the cache keeps it (see WarmPortal for the meaning of each field).
struct CacheEntry {
  /// The portal's three support directions in A's frame, as the query used them (x, y, z of
  /// each in turn); a curved pair's Newton or face normal in the first.
  std::array<double, 9> directions;
  std::uint32_t hint_a;  ///< hull vertex of A's last support point (0 for other shapes)
  std::uint32_t hint_b;
  bool cores;
  bool newton;
  std::uint8_t newton_side;  ///< the straight line a Newton finish ended on, 0 on none
  bool newton_separated;
  bool face;
};

}  // namespace contactlab::plugins::mpr
