#include "growth_search_narrow_phase.hpp"

#include <cmath>
#include <limits>

namespace contactlab::plugins {

GrowthSearchNarrowPhase::GrowthSearchNarrowPhase(const ParameterValues& params)
    : kappa_(params.real("kappa")),
      initial_length_m_(params.real("initial_length_m")),
      max_growth_steps_(static_cast<int>(params.integer("max_growth_steps"))),
      gjk_(ParameterValues::defaults(GjkEpaNarrowPhase::schema())) {
  // Engelson (2000) §6.4: the 26 non-zero integer vectors with components in {−1, 0, 1}.
  std::size_t m = 0;
  for (int x = -1; x <= 1; ++x)
    for (int y = -1; y <= 1; ++y)
      for (int z = -1; z <= 1; ++z)
        if (x != 0 || y != 0 || z != 0) directions_[m++] = Vec3(x, y, z).normalized();
}

ParameterSchema GrowthSearchNarrowPhase::schema() {
  ParameterSpec kappa = real_parameter(
      "kappa", 0.2, 0.0, 1.0, "",
      "growth factor κ of the displacement length, c ← (1 + κ)c (Engelson recommends 0.1–0.4)");
  kappa.minimum_exclusive = true;
  ParameterSpec initial = real_parameter("initial_length_m", 1e-7, 0.0, 1.0, "m",
                                         "first displacement length c⁰, below any depth of "
                                         "interest");
  initial.minimum_exclusive = true;
  return {kappa, initial,
          integer_parameter("max_growth_steps", 400, 1, 100000,
                            "bound on the growth steps; the best answer so far is returned and "
                            "counted when it is reached")};
}

bool GrowthSearchNarrowPhase::supports(ShapeType a, ShapeType b) const {
  return gjk_.supports(a, b);
}

void GrowthSearchNarrowPhase::query(const Shape& a, const Pose& X_WA, const Shape& b,
                                    const Pose& X_WB, NarrowPhaseCache& cache,
                                    ContactManifold& out) {
  ++statistics_.queries;
  gjk_.query(a, X_WA, b, X_WB, cache, out);
  out.count = 1;
  if (out.points[0].distance_m >= 0.0) return;  // separated or touching: GJK's answer is exact

  NarrowPhaseCache scratch;  // displaced configurations get no warm start
  ContactManifold displaced;
  double length_m = initial_length_m_;
  int steps = 0;
  for (; steps < max_growth_steps_; ++steps, length_m *= 1.0 + kappa_) {
    double best_projection = -std::numeric_limits<double>::infinity();
    const Vec3* best_direction = nullptr;
    ContactGeometry best;
    for (const Vec3& u : directions_) {
      Pose X_WB_moved = X_WB;
      X_WB_moved.p += length_m * u;
      scratch = NarrowPhaseCache{};
      gjk_.query(a, X_WA, b, X_WB_moved, scratch, displaced);
      ++statistics_.total_iterations;
      const ContactGeometry& g = displaced.points[0];
      if (!(g.distance_m > 0.0)) continue;
      // The separating candidate is too long by the gap left along it: p = u·d (Engelson §6.4).
      const double projection = u.dot(g.point_b_W - g.point_a_W);
      if (projection > best_projection) {
        best_projection = projection;
        best_direction = &u;
        best = g;
      }
    }
    if (best_direction != nullptr) {
      const double depth_m = length_m - best_projection;
      ContactGeometry& result = out.points[0];
      result.distance_m = -depth_m;
      result.normal_W = *best_direction;
      result.point_a_W = best.point_a_W;
      result.point_b_W = best.point_a_W - depth_m * *best_direction;
      statistics_.max_iterations_used =
          std::max<std::int64_t>(statistics_.max_iterations_used, steps + 1);
      return;
    }
  }
  // Never separated within the bound: keep GJK/EPA's answer and say so.
  ++statistics_.iteration_limit_hits;
  statistics_.max_iterations_used = std::max<std::int64_t>(statistics_.max_iterations_used, steps);
}

}  // namespace contactlab::plugins
