// Growth-search narrow phase after Engelson (2000) §6.4: the penetration depth is the shortest
// displacement of B, among 26 directions (all integer vectors with components in {−1, 0, 1}),
// that separates the pair. The displacement length grows geometrically, c ← (1 + κ)·c, from a
// tiny c⁰ until some direction separates; for each separating direction u the remaining gap d
// (closest points of A and the displaced B) shortens the candidate by u·d, and the direction with
// the largest shortening wins: depth = c − u·d, normal = u. Separated pairs are answered by GJK.
//
// Kept for faithful comparison with the paper, not for speed: its accuracy is limited by κ and
// by the 26 directions (a contact normal between them is rounded to the nearest one).
#pragma once

#include <array>

#include <contactlab/narrow_phase.hpp>
#include <contactlab/parameters.hpp>

#include "gjk_epa_narrow_phase.hpp"

namespace contactlab::plugins {

class GrowthSearchNarrowPhase final : public NarrowPhase {
 public:
  explicit GrowthSearchNarrowPhase(const ParameterValues& params);
  static ParameterSchema schema();

  bool supports(ShapeType a, ShapeType b) const override;
  void query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
             NarrowPhaseCache& cache, ContactManifold& out) override;
  NarrowPhaseStatistics statistics() const override { return statistics_; }

 private:
  double kappa_;             // growth factor κ of the displacement length
  double initial_length_m_;  // c⁰
  int max_growth_steps_;     // bound on the outer loop
  std::array<Vec3, 26> directions_;
  GjkEpaNarrowPhase gjk_;  // distance oracle for separated configurations
  NarrowPhaseStatistics statistics_;
};

}  // namespace contactlab::plugins
