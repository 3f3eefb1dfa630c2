// NarrowPhase: signed distance, normal and witness points for one pair of shapes.
#pragma once

#include <cstdint>

#include "contactlab/contact.hpp"
#include "contactlab/export.hpp"
#include "contactlab/shapes.hpp"

namespace contactlab {

struct NarrowPhaseStatistics {
  std::int64_t queries = 0;
  std::int64_t iteration_limit_hits = 0;  ///< results returned as best-so-far at max_iterations
  std::int64_t degenerate_cases = 0;      ///< degenerate simplices/portals handled by a fallback
  std::int64_t total_iterations = 0;      ///< summed over queries (mean = total / queries)
  std::int64_t max_iterations_used = 0;
};

class CONTACTLAB_VISIBLE NarrowPhase {
 public:
  virtual ~NarrowPhase() = default;
  /// True when query() answers for a shape of type `a` as A and type `b` as B. The host asks for
  /// both orders; an implementation that supports one order should support the other.
  virtual bool supports(ShapeType a, ShapeType b) const = 0;
  /// Signed distance between shape A at pose X_WA and shape B at pose X_WB (see ContactGeometry
  /// for signs and frames), as a manifold whose first point is the deepest. `cache` is the pair's
  /// warm-start memory. Must not allocate.
  virtual void query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                     NarrowPhaseCache& cache, ContactManifold& out) = 0;
  /// Counters of unusual outcomes since creation (e.g. iteration limit hit, degenerate portal),
  /// reported in summary.json. Implementations without any return an empty statistics object.
  virtual NarrowPhaseStatistics statistics() const { return {}; }
};

}  // namespace contactlab
