// NarrowPhase: signed distance, normal and witness points for one pair of shapes.
#pragma once

#include "contactlab/contact.hpp"
#include "contactlab/export.hpp"
#include "contactlab/shapes.hpp"

namespace contactlab {

class CONTACTLAB_VISIBLE NarrowPhase {
 public:
  virtual ~NarrowPhase() = default;
  /// True when query() answers for a shape of type `a` as A and type `b` as B. The host asks for
  /// both orders; an implementation that supports one order should support the other.
  virtual bool supports(ShapeType a, ShapeType b) const = 0;
  /// Signed distance between shape A at pose X_WA and shape B at pose X_WB (see ContactGeometry
  /// for signs and frames). `cache` is the pair's warm-start memory. Must not allocate.
  virtual void query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                     NarrowPhaseCache& cache, ContactGeometry& out) = 0;
};

}  // namespace contactlab
