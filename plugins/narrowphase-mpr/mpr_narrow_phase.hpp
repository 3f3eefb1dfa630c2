// MPR narrow phase: signed distance, normal and witness points for every pair of convex shapes by
// Minkowski Portal Refinement (Neumayr 2025 ch. 6, see mpr_algorithm.hpp); pairs with a half-space
// in closed form from the other shape's support point (contactlab/geometry/half_space.hpp).
//
// Parameters (`params:`):
//   tolerance       TC2/TC3 tolerance relative to the size of A ⊖ B (default 1e-12, see schema())
//   max_iterations  iteration limit of each MPR phase (default 120, Neumayr §6.1.4)
//   precision       arithmetic of the algorithm: double (default) | long_double | double_double
//   swept_radii     core (default): MPR on the shapes' cores, radii added to the result |
//                   support: radii inside the support mapping, as Modia3D
//   manifold_points 1 (default) | 2..4: points of a line or face contact (geometry/manifold.hpp)
//   warm_start      true (default): on polytope pairs phase 2 starts from the portal the pair's
//                   last query ended on, kept in its NarrowPhaseCache, and curved pairs start the
//                   Newton finish from their last normal | false: every query starts cold (Modia3D)
//   newton_finish   true (default): Newton steps finish curved pairs | false: portal refinement to
//                   TC2/TC3 only (Neumayr)
#pragma once

#include <array>
#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>
#include <contactlab/narrow_phase.hpp>
#include <contactlab/parameters.hpp>
#include <contactlab/shapes.hpp>
#include <cstdint>

#include "mpr_algorithm.hpp"
#include "mpr_cache.hpp"

namespace contactlab::plugins {

/// Everything MprNarrowPhase counted since creation, beyond the SDK's NarrowPhaseStatistics.
struct MprStatistics {
  NarrowPhaseStatistics totals;
  std::array<std::int64_t, mpr::termination_count> terminations{};  ///< by mpr::Termination
  std::int64_t half_space_queries = 0;                              ///< answered in closed form
  std::int64_t coincident_interior_points = 0;  ///< r0 shifted (also counted as degenerate)
  std::int64_t completions = 0;                 ///< queries that ran the closest-point completion
  std::int64_t full_shape_reruns = 0;  ///< cores intersecting where degenerate: full shapes run
  std::int64_t warm_starts = 0;        ///< queries whose phase 2 started from the cached portal
  std::int32_t max_phase2_iterations = 0;
  std::int32_t max_phase3_iterations = 0;
  std::int32_t max_completion_iterations = 0;
};

class MprNarrowPhase final : public NarrowPhase {
 public:
  explicit MprNarrowPhase(const ParameterValues& params);
  static ParameterSchema schema();

  /// Every pair except half_space–half_space, in both orders.
  bool supports(ShapeType a, ShapeType b) const override;
  /// Throws contactlab::SimulationError only for half_space–half_space (the host asks supports()
  /// first); numerical trouble is answered with the best result found and counted instead.
  void query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
             NarrowPhaseCache& cache, ContactManifold& out) override;
  NarrowPhaseStatistics statistics() const override { return statistics_.totals; }

  const MprStatistics& detailed_statistics() const { return statistics_; }
  /// The MPR result of the latest query that ran MPR (not a half-space pair).
  const mpr::Result& last_result() const { return last_result_; }
  mpr::Precision precision() const { return precision_; }
  int manifold_points() const { return manifold_points_; }
  const mpr::Settings& settings() const { return settings_; }
  bool warm_start() const { return warm_start_; }

 private:
  mpr::Precision precision_ = mpr::Precision::double_precision;
  mpr::Settings settings_;
  int manifold_points_ = 1;
  bool warm_start_ = true;
  MprStatistics statistics_;
  mpr::Result last_result_;
};

}  // namespace contactlab::plugins
