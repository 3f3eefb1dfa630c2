// The TC1 shortcut of two spheres on their cores: the cores are the centres, so phase 1 ends at
// once, and the answer is written out without the pair's frame and the solver's set-up.
// Included only by mpr_algorithm.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <contactlab/contact.hpp>
#include <contactlab/math.hpp>
#include <contactlab/shapes.hpp>
#include <limits>

#include "mpr_algorithm.hpp"
#include "mpr_arithmetic.hpp"
#include "mpr_tolerances.hpp"

namespace contactlab::plugins::mpr {

/// Cores mode, two spheres: the cores are the centres, so A ⊖ B's core is the single point
/// r0 = c_A − c_B and phase 1 ends at once with r1 = r0 on the origin ray (TC1): what the general
/// path computes, written out in the world frame without the pair's frame and the solver set-up.
/// False (nothing written) when the centres coincide to rounding (the guarded general path).
template <class T>
bool sphere_cores_tc1(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                      Result& result) {
  using std::sqrt;
  const Vector3<T> c_A = Vector3<T>::from(X_WA.p), c_B = Vector3<T>::from(X_WB.p);
  const Vector3<T> r0 = c_A - c_B;
  const T r0_norm = sqrt(dot(r0, r0));
  const double coordinates = std::max(X_WA.p.cwiseAbs().maxCoeff(), X_WB.p.cwiseAbs().maxCoeff());
  const double noise = kSupportRoundingUlps * std::numeric_limits<double>::epsilon() *
                       (coordinates + to_double(r0_norm));
  if (!(r0_norm > T(noise)) || !(r0_norm < T(std::numeric_limits<double>::infinity()))) {
    return false;
  }
  const Vector3<T> e = -r0 / r0_norm;  // from A towards B
  // As finish_on_ray and the radii step of the general path: the core points re-centred on their
  // midpoint, then moved by their radii along the normal.
  const T distance = r0_norm - T(a.radius_m) - T(b.radius_m);
  const Vector3<T> middle = (c_A + c_B) * T(0.5);
  const Vector3<T> half_gap = e * T(r0_norm * T(0.5));
  ContactGeometry& g = result.geometry;
  g.distance_m = to_double(distance);
  g.normal_W = e.to_vec3();
  g.point_a_W = (middle - half_gap + e * T(a.radius_m)).to_vec3();
  g.point_b_W = (middle + half_gap - e * T(b.radius_m)).to_vec3();
  result.termination = Termination::tc1;
  return true;
}

}  // namespace contactlab::plugins::mpr
