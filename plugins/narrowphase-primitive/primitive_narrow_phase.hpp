// Primitive narrow phase: exact closed forms for the pairs involving a sphere.
//
// Every function follows the ContactGeometry contract: signed distance (> 0 separated, < 0
// penetrating), unit normal from A to B, witness points on the boundaries of A and B with
// point_b_W − point_a_W = distance_m · normal_W. The results are exact up to rounding (no
// iteration), so these functions also serve as ground truth for iterative narrow phases.
#pragma once

#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>
#include <contactlab/narrow_phase.hpp>
#include <contactlab/parameters.hpp>
#include <contactlab/shapes.hpp>

namespace contactlab::plugins {

/// Sphere A (radius_a_m, centre p_WA) and sphere B (radius_b_m, centre p_WB). When the centres
/// coincide (closer than 1e-100 m) the direction is undefined; the normal is then +z of world.
ContactGeometry sphere_sphere(double radius_a_m, const Vec3& p_WA, double radius_b_m,
                              const Vec3& p_WB);

/// Sphere A (radius_m, centre p_WA) and half-space B: the solid {x : n·x ≤ 0} in its frame G at
/// pose X_WG, n = normal_G (normalised here). Distance n_W·(p_WA − p_WG) − r; the normal from the
/// sphere to the half-space is −n_W.
ContactGeometry sphere_half_space(double radius_m, const Vec3& p_WA, const Vec3& normal_G,
                                  const Pose& X_WG);

/// Sphere A (radius_m, centre p_WA) and box B (half_extents_m along the axes of its frame, pose
/// X_WB). Exact also when the centre is inside the box: the sphere then leaves through the nearest
/// face (ties: lowest axis index, + face before −), so the normal from A to B is minus that face's
/// outward normal and distance = −(depth of the centre below that face + r).
ContactGeometry sphere_box(double radius_m, const Vec3& p_WA, const Vec3& half_extents_m,
                           const Pose& X_WB);

/// The same contact seen with A and B exchanged: normal negated, witness points swapped.
ContactGeometry swap_order(const ContactGeometry& geometry);

class PrimitiveNarrowPhase final : public NarrowPhase {
 public:
  explicit PrimitiveNarrowPhase(const ParameterValues& params);
  static ParameterSchema schema();

  /// sphere–sphere, sphere–half_space and sphere–box, in both orders.
  bool supports(ShapeType a, ShapeType b) const override;
  /// Throws contactlab::SimulationError for an unsupported pair (the host asks supports() first).
  void query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
             NarrowPhaseCache& cache, ContactManifold& out) override;
};

}  // namespace contactlab::plugins
