// Primitive narrow phase: exact closed forms for pairs of spheres, capsules, boxes, cylinders and
// half-spaces (the list is in PrimitiveNarrowPhase::supports). The closed forms live by pair:
// sphere_pairs.hpp (sphere–sphere, sphere–box, sphere–capsule), capsule_pairs.hpp
// (capsule–capsule), box_box.hpp (box–box, its warm start and its files box_*), and the geometry
// library's contactlab/geometry/half_space.hpp (sphere, capsule, box and cylinder against a
// half-space); PrimitiveNarrowPhase (primitive_narrow_phase.cpp) dispatches on the pair.
//
// Every function follows the ContactGeometry contract: signed distance (> 0 separated, < 0
// penetrating), unit normal from A to B, witness points on the boundaries of A and B with
// point_b_W − point_a_W = distance_m · normal_W. The deepest point of every result is exact up to
// rounding (no iteration), so these functions also serve as ground truth for iterative narrow
// phases. Penetration is the minimum translation distance.
//
// Smoothing radius r (shapes.hpp: the shape is its core, shrunk by r, swept by a sphere of radius
// r). For convex A and B the support function of the Minkowski difference of the swept shapes is
// the core's plus r_A + r_B in every direction, so the signed distance of the swept shapes is
// exactly the core signed distance − r_A − r_B — when the cores are separated and when they
// penetrate — with the same normal, and the witness points move by r_A along +n and r_B along −n.
// Every function here that takes a Shape honours its smoothing radius this way (a core half size
// smaller than r is taken as 0); a sphere's and a capsule's radius already are their sweep.
//
// Manifolds: the extra points of a flat contact (box corners on a half-space, the clipped polygon
// of two box faces, the rim of a cylinder cap, the two ends of a capsule) are reported when they
// touch or penetrate (own distance ≤ 1e-12 of the shapes' size, so that rounding does not drop a
// touching corner). Each carries its own signed distance with the pair's normal and satisfies the
// contract. At most `max_points` (1..4) are kept: the deepest, the one farthest from it, then the
// ones spanning the largest triangles on either side of that diagonal. With a smoothing radius,
// every point is a core point moved by the radius along the normal: on the rounded surface when
// the normal lies in the core's normal cone there (always for the deepest point, and for parallel
// faces); otherwise up to r·(1 − cos α) inside it, α the angle between the normal and that cone.
#pragma once

#include <cstdint>

#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>
#include <contactlab/narrow_phase.hpp>
#include <contactlab/parameters.hpp>
#include <contactlab/shapes.hpp>

#include "box_box.hpp"
#include "capsule_pairs.hpp"
#include "sphere_pairs.hpp"

namespace contactlab::plugins {

class PrimitiveNarrowPhase final : public NarrowPhase {
 public:
  /// Reads `manifold_points` (1..4); when absent (a default ParameterValues) it is 4.
  explicit PrimitiveNarrowPhase(const ParameterValues& params);
  static ParameterSchema schema();

  /// Exactly these pairs, in both orders: sphere–sphere, sphere–capsule, sphere–box,
  /// sphere–half_space, capsule–capsule, capsule–half_space, box–box, box–half_space,
  /// cylinder–half_space.
  bool supports(ShapeType a, ShapeType b) const override;
  /// Throws contactlab::SimulationError for an unsupported pair (the host asks supports() first).
  void query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
             NarrowPhaseCache& cache, ContactManifold& out) override;
  /// The queries answered (closed forms: no iterations, limits or degenerate fallbacks), so that a
  /// chain's statistics say which plugin answered how many pairs.
  NarrowPhaseStatistics statistics() const override {
    NarrowPhaseStatistics out;
    out.queries = queries_;
    return out;
  }

 private:
  int max_points_ = max_manifold_points;
  std::int64_t queries_ = 0;
};

}  // namespace contactlab::plugins
