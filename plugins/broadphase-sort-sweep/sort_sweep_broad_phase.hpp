// Sort-and-sweep broad phase along the principal axis of the box centres: the second
// object-culling method of SiLVIA ("coordinate sorting", Lennerz, Schömer, Warken, "A Framework
// for Collision Detection and Response", Saarland University, c. 1999, §2.1), with the sweep axis
// chosen as MuJoCo's mj_broadphase chooses it (the eigenvector of the largest eigenvalue of the
// covariance of the centres). MuJoCo sorts from scratch at every step; here the order is kept
// from step to step, as in the sweep and prune of Baraff (PhD thesis, Cornell, 1992) and Cohen et
// al. (I-COLLIDE, 1995), so that an insertion sort repairs it in O(n + swaps).
//
// Each collect_pairs projects every finite box onto the unit axis u, giving the interval
// [lo, hi] = [c·u − r, c·u + r] with r = Σ|u_i|·h_i (c the centre, h the half extents): the
// exact projection of the box. It is computed from the extreme corners, lo = Σ u_i·(u_i ≥ 0 ?
// min_i : max_i) and hi likewise, because that form is monotone in every coordinate under
// rounding: two closed boxes that share a point get intervals that share its projection, so
// touching boxes are never lost to rounding. The intervals are kept sorted by lo in an array that
// persists across calls; coherent motion leaves it nearly sorted, and an insertion sort with a
// budget of about n·log2(n) moves repairs it (teleports or an axis change beyond the budget fall
// back to a full sort). The sweep then tests each interval against the ones that start before it
// ends, with the exact closed 3-D box test.
//
// Boxes with an infinite bound (half-spaces) are kept out of the sweep and tested against every
// other box.
#pragma once

#include <cstdint>
#include <vector>

#include <contactlab/broad_phase.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

class SortSweepBroadPhase final : public BroadPhase {
 public:
  /// Reads `axis_update_interval` and `axis_hysteresis` (defaults when absent); throws
  /// contactlab::InputError when they are out of range.
  explicit SortSweepBroadPhase(const ParameterValues& params);
  static ParameterSchema schema();

  BroadPhaseCapabilities capabilities() const override;
  /// Throws contactlab::Error when `id` is already live.
  void insert(ProxyId id, const Aabb& box) override;
  /// Throws contactlab::Error when `id` is not live.
  void remove(ProxyId id) override;
  /// Throws contactlab::Error when `id` is not live.
  void set_box(ProxyId id, const Aabb& box) override;
  void collect_pairs(std::vector<ProxyPair>& out) override;
  double box_distance(ProxyId a, ProxyId b) const override;

  /// The unit sweep axis of the last collect_pairs (+x before the first).
  const Vec3& axis() const { return axis_; }
  /// How many collect_pairs calls sorted from scratch because the insertion sort ran over its
  /// budget; under coherent motion it stays put.
  std::uint64_t full_sort_count() const { return full_sort_count_; }

 private:
  /// Which list holds the proxy's entry; a removed proxy keeps its entry until collect_pairs
  /// drops it, and an id inserted again before then takes the entry back.
  enum class Listed : std::uint8_t { none, sweep, unbounded };

  struct Proxy {
    Aabb box;
    bool live = false;
    Listed listed = Listed::none;
  };

  /// One finite box of the sweep: its projection [lo, hi] onto the axis and a copy of the box, so
  /// that the sweep reads memory in order.
  struct Interval {
    double lo = 0.0;
    double hi = 0.0;
    Aabb box;
    ProxyId id = 0;
  };

  Proxy& live_proxy(ProxyId id, const char* operation);
  const Proxy& live_proxy(ProxyId id, const char* operation) const;
  /// Moves entries between the sweep and the unbounded list as their boxes demand, drops removed
  /// proxies and copies the current boxes into the sweep entries.
  void refresh_lists();
  /// Replaces the axis by the principal direction of the finite box centres when the spread of
  /// the centres along that direction beats the spread along the current axis by the hysteresis.
  void update_axis();
  /// Restores the order by lo: insertion sort, or std::sort once the insertion sort has moved
  /// more entries than a full sort would cost.
  void sort_intervals();

  std::int64_t axis_update_interval_ = 1;
  double axis_hysteresis_ = 0.1;
  std::int64_t calls_until_axis_update_ = 0;
  Vec3 axis_ = Vec3::UnitX();
  std::vector<Proxy> proxies_;      ///< indexed by id
  std::vector<Interval> sweep_;     ///< finite boxes, sorted by lo after each collect_pairs
  std::vector<ProxyId> unbounded_;  ///< boxes with an infinite bound
  std::uint64_t full_sort_count_ = 0;
};

}  // namespace contactlab::plugins
