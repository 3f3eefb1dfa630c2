#include "sort_sweep_broad_phase.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <utility>

#include <Eigen/Eigenvalues>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

namespace {

constexpr std::int64_t max_axis_update_interval = 1000000000;
constexpr double max_axis_hysteresis = 100.0;

bool is_finite(const Aabb& box) {
  return box.min_W.allFinite() && box.max_W.allFinite();
}

/// [lo, hi] of the box projected onto u. Each term is u_i times the coordinate that minimises
/// (maximises) it, and a rounded product with a fixed factor is monotone in the coordinate, as is
/// a rounded sum in each addend: so a point shared by two boxes projects, with the same rounding,
/// inside both computed intervals, and boxes that touch always get intervals that touch.
void project(const Aabb& box, const Vec3& u, double& lo, double& hi) {
  lo = 0.0;
  hi = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double at_min = u[i] * box.min_W[i];
    const double at_max = u[i] * box.max_W[i];
    lo += std::min(at_min, at_max);
    hi += std::max(at_min, at_max);
  }
}

void report(ProxyId a, ProxyId b, std::vector<ProxyPair>& out) {
  out.push_back(a < b ? ProxyPair{a, b} : ProxyPair{b, a});
}

}  // namespace

SortSweepBroadPhase::SortSweepBroadPhase(const ParameterValues& params) {
  if (params.contains("axis_update_interval"))
    axis_update_interval_ = params.integer("axis_update_interval");
  if (params.contains("axis_hysteresis")) axis_hysteresis_ = params.real("axis_hysteresis");
  if (axis_update_interval_ < 1 || axis_update_interval_ > max_axis_update_interval) {
    throw InputError("sort_sweep broad phase: params.axis_update_interval is " +
                     std::to_string(axis_update_interval_) + "; expected a value in [1, " +
                     std::to_string(max_axis_update_interval) + "]");
  }
  if (!(axis_hysteresis_ >= 0.0 && axis_hysteresis_ <= max_axis_hysteresis)) {
    throw InputError("sort_sweep broad phase: params.axis_hysteresis is " +
                     std::to_string(axis_hysteresis_) + "; expected a value in [0, " +
                     std::to_string(max_axis_hysteresis) + "]");
  }
}

ParameterSchema SortSweepBroadPhase::schema() {
  return {
      integer_parameter("axis_update_interval", 1, 1, max_axis_update_interval,
                        "the principal axis of the box centres is recomputed every this many "
                        "collect_pairs calls (an O(n) pass); the first call always computes it"),
      real_parameter("axis_hysteresis", 0.1, 0.0, max_axis_hysteresis, "",
                     "a recomputed principal axis replaces the current sweep axis only when the "
                     "variance of the centres along it exceeds the variance along the current "
                     "axis by this fraction, so that nearly isotropic scenes keep their axis and "
                     "their sorted order"),
  };
}

BroadPhaseCapabilities SortSweepBroadPhase::capabilities() const {
  BroadPhaseCapabilities capabilities;
  capabilities.incremental = true;
  capabilities.box_distance = true;
  return capabilities;
}

SortSweepBroadPhase::Proxy& SortSweepBroadPhase::live_proxy(ProxyId id, const char* operation) {
  return const_cast<Proxy&>(std::as_const(*this).live_proxy(id, operation));
}

const SortSweepBroadPhase::Proxy& SortSweepBroadPhase::live_proxy(ProxyId id,
                                                                  const char* operation) const {
  if (id >= proxies_.size() || !proxies_[id].live)
    throw Error(std::string("sort_sweep broad phase: ") + operation + "(" + std::to_string(id) +
                "): no such proxy");
  return proxies_[id];
}

void SortSweepBroadPhase::insert(ProxyId id, const Aabb& box) {
  if (id < proxies_.size() && proxies_[id].live)
    throw Error("sort_sweep broad phase: insert(" + std::to_string(id) +
                "): the id is already in use");
  if (id >= proxies_.size()) proxies_.resize(static_cast<std::size_t>(id) + 1);
  Proxy& proxy = proxies_[id];
  proxy.live = true;
  proxy.box = box;
  // A new entry goes to the end of the sweep (refresh_lists moves it out if the box is infinite);
  // the insertion sort carries it to its place.
  if (proxy.listed == Listed::none) {
    proxy.listed = Listed::sweep;
    sweep_.push_back(Interval{0.0, 0.0, box, id});
  }
}

void SortSweepBroadPhase::remove(ProxyId id) {
  live_proxy(id, "remove").live = false;
}

void SortSweepBroadPhase::set_box(ProxyId id, const Aabb& box) {
  live_proxy(id, "set_box").box = box;
}

double SortSweepBroadPhase::box_distance(ProxyId a, ProxyId b) const {
  return aabb_distance(live_proxy(a, "box_distance").box, live_proxy(b, "box_distance").box);
}

void SortSweepBroadPhase::refresh_lists() {
  std::size_t kept = 0;
  for (const ProxyId id : unbounded_) {
    Proxy& proxy = proxies_[id];
    if (!proxy.live) {
      proxy.listed = Listed::none;
    } else if (is_finite(proxy.box)) {
      proxy.listed = Listed::sweep;
      sweep_.push_back(Interval{0.0, 0.0, proxy.box, id});
    } else {
      unbounded_[kept++] = id;
    }
  }
  unbounded_.resize(kept);

  // Compaction keeps the relative order of the surviving entries, and with it the near-sortedness.
  kept = 0;
  for (std::size_t i = 0; i < sweep_.size(); ++i) {
    const ProxyId id = sweep_[i].id;
    Proxy& proxy = proxies_[id];
    if (!proxy.live) {
      proxy.listed = Listed::none;
    } else if (!is_finite(proxy.box)) {
      proxy.listed = Listed::unbounded;
      unbounded_.push_back(id);
    } else {
      sweep_[kept] = sweep_[i];
      sweep_[kept].box = proxy.box;
      ++kept;
    }
  }
  sweep_.resize(kept);
}

void SortSweepBroadPhase::update_axis() {
  const std::size_t count = sweep_.size();
  if (count < 2) return;
  // Two passes (mean, then scatter about it), so that a scene far from the origin loses no digits.
  Vec3 mean = Vec3::Zero();
  for (const Interval& entry : sweep_) mean += 0.5 * entry.box.min_W + 0.5 * entry.box.max_W;
  mean /= static_cast<double>(count);
  Mat3 scatter = Mat3::Zero();
  for (const Interval& entry : sweep_) {
    const Vec3 offset = 0.5 * entry.box.min_W + 0.5 * entry.box.max_W - mean;
    scatter.noalias() += offset * offset.transpose();
  }
  if (!scatter.allFinite()) return;
  const Eigen::SelfAdjointEigenSolver<Mat3> solver(scatter);
  if (solver.info() != Eigen::Success) return;
  // Eigenvalues come in increasing order: the last is the largest spread, along its eigenvector.
  const double best_spread = solver.eigenvalues()[2];
  const double current_spread = axis_.dot(scatter * axis_);
  if (!(best_spread > (1.0 + axis_hysteresis_) * current_spread)) return;
  Vec3 principal = solver.eigenvectors().col(2).normalized();
  // Of ±principal, the one nearer the current axis keeps the order (nearly) as it is.
  if (principal.dot(axis_) < 0.0) principal = -principal;
  axis_ = principal;
}

void SortSweepBroadPhase::sort_intervals() {
  const std::size_t count = sweep_.size();
  const std::size_t budget = count * static_cast<std::size_t>(std::bit_width(count));
  std::size_t moves = 0;
  for (std::size_t i = 1; i < count; ++i) {
    if (!(sweep_[i].lo < sweep_[i - 1].lo)) continue;
    const Interval moving = sweep_[i];
    std::size_t j = i;
    do {
      sweep_[j] = sweep_[j - 1];
      --j;
    } while (j > 0 && moving.lo < sweep_[j - 1].lo);
    sweep_[j] = moving;
    moves += i - j;
    if (moves > budget) {
      // std::sort (introsort) works in place: no allocation.
      std::sort(sweep_.begin(), sweep_.end(),
                [](const Interval& a, const Interval& b) { return a.lo < b.lo; });
      ++full_sort_count_;
      return;
    }
  }
}

void SortSweepBroadPhase::collect_pairs(std::vector<ProxyPair>& out) {
  // clear() keeps the capacity, so once `out` has grown no call allocates.
  out.clear();
  refresh_lists();
  if (calls_until_axis_update_ == 0) {
    update_axis();
    calls_until_axis_update_ = axis_update_interval_;
  }
  --calls_until_axis_update_;
  for (Interval& entry : sweep_) project(entry.box, axis_, entry.lo, entry.hi);
  sort_intervals();

  // Sorted by lo, an entry can overlap only entries that start before it ends; of two
  // overlapping boxes the one with the smaller lo finds the other.
  const std::size_t count = sweep_.size();
  for (std::size_t i = 0; i < count; ++i) {
    const Interval& a = sweep_[i];
    for (std::size_t j = i + 1; j < count && sweep_[j].lo <= a.hi; ++j)
      if (a.box.overlaps(sweep_[j].box)) report(a.id, sweep_[j].id, out);
  }

  for (std::size_t i = 0; i < unbounded_.size(); ++i) {
    const ProxyId a = unbounded_[i];
    const Aabb& box = proxies_[a].box;
    for (std::size_t j = i + 1; j < unbounded_.size(); ++j)
      if (box.overlaps(proxies_[unbounded_[j]].box)) report(a, unbounded_[j], out);
    for (const Interval& entry : sweep_)
      if (box.overlaps(entry.box)) report(a, entry.id, out);
  }
}

}  // namespace contactlab::plugins
