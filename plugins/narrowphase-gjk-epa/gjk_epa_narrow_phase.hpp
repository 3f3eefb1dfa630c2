// GJK/EPA narrow phase: signed distance, normal and witness points for any pair of the convex
// shapes of contactlab/shapes.hpp, and closed forms for pairs with a half-space.
//
// Every shape is a core (shape shrunk by its swept radius: a point for a sphere, a segment for a
// capsule) swept by a ball. GJK (Gilbert, Johnson & Keerthi 1988) with the signed-volumes
// sub-distance algorithm of Montanari, Petrinic & Barbieri (2017) measures the distance between
// the cores; the swept radii are then subtracted, which is exact whatever the sign of the result,
// so spheres, capsules and smoothed shapes need no iteration on curved surfaces. When the cores
// overlap or touch, EPA (van den Bergen 2001) expands a polytope inside the cores' Minkowski
// difference to find their penetration depth; the swept radii are added to it, which is exact
// too: for cores K and a ball of radius R, depth(K ⊕ B_R) = depth(K) + R.
//
// Where M is curved (ellipsoid, cylinder, cone and beam cores), GJK and EPA converge linearly:
// GJK hands over after a few iterations, and EPA once its depth bounds agree to 1e-4 of the
// size, to Newton steps on the support function h(m) = m·s_M(m) over unit directions m, with the
// supports' closed-form curvatures as its Hessian. A separated answer stands when the distance
// bounds −h(m) and |s_M(m)| agree to the tolerance (else GJK resumes); a penetration when the
// Newton step predicts a decrease of h below the tolerance (else EPA goes on, to 1e-11 of the
// size: minima on kinks of the support, such as a cylinder's side line).
//
// Near contact (core gap below 1e-6 of the problem's size), and after an EPA run that stopped
// short of the tolerance (curved cores), the signed distance is measured once more with B moved
// away along the best normal: the signed distance to a convex set grows at unit rate along its
// normal, so the far, well-conditioned GJK distance minus the shift is the answer, and the
// normal comes out of that GJK run instead of from rounding noise.
//
// Results follow the ContactGeometry contract: signed distance (> 0 separated, < 0 penetrating),
// unit normal from A to B, witness points on the boundaries of A and B with
// point_b_W − point_a_W = distance_m · normal_W.
#pragma once

#include <memory>

#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>
#include <contactlab/narrow_phase.hpp>
#include <contactlab/parameters.hpp>
#include <contactlab/shapes.hpp>

namespace contactlab::plugins {

class GjkEpaNarrowPhase final : public NarrowPhase {
 public:
  /// Reads `tolerance` (relative) and `max_iterations` (per GJK and per EPA run). Preallocates
  /// every buffer query() uses, so that query() never allocates.
  explicit GjkEpaNarrowPhase(const ParameterValues& params);
  ~GjkEpaNarrowPhase() override;
  GjkEpaNarrowPhase(const GjkEpaNarrowPhase&) = delete;
  GjkEpaNarrowPhase& operator=(const GjkEpaNarrowPhase&) = delete;

  static ParameterSchema schema();

  /// Every pair except half_space–half_space.
  bool supports(ShapeType a, ShapeType b) const override;
  /// One contact point per pair, or with `manifold_points` > 1 the points of a line or face
  /// contact (contactlab/geometry/manifold.hpp). `cache` keeps, in A's frame, the support
  /// directions of the final simplex (or the polished direction after Newton steps on separated
  /// curved cores), or after EPA those of the contact face plus the direction opposite its normal
  /// (polytope cores) or of EPA's initial tetrahedron (curved cores), and restarts GJK from them;
  /// between a hull and a hull or a box, after EPA, it keeps vertex pairs instead (hull vertices,
  /// box corners): the contact face's corners, the polytope's point lowest along the face normal
  /// and four vertices of the faces nearest to the origin, which seed EPA's next polytope (no
  /// supports for any of them). It also keeps the hull vertices the last supports ended at, where
  /// the next hill climbs start. Throws
  /// contactlab::SimulationError only for an unsupported pair; numerical trouble ends in a
  /// best-so-far answer counted in statistics().
  void query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
             NarrowPhaseCache& cache, ContactManifold& out) override;
  NarrowPhaseStatistics statistics() const override { return statistics_; }

  /// Preallocated memory of the EPA polytope (defined in the .cpp).
  struct Workspace;

 private:
  double tolerance_;         // relative accuracy of distances and depths
  int max_iterations_;       // per GJK run and per EPA run
  int manifold_points_ = 1;  // contact points per pair (contactlab/geometry/manifold.hpp)
  std::unique_ptr<Workspace> workspace_;
  NarrowPhaseStatistics statistics_;
};

}  // namespace contactlab::plugins
