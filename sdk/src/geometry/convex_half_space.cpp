// A convex shape against a half-space in closed form (see convex_half_space.hpp).
#include "contactlab/geometry/convex_half_space.hpp"

namespace contactlab::geometry {

ContactGeometry convex_half_space(const Shape& a, const Pose& X_WA, const Vec3& normal_G,
                                  const Pose& X_WG) {
  const Vec3 n_W = X_WG.R * normal_G.normalized();
  const Vec3 deepest_W = support_W(a, X_WA, -n_W);
  const double height_m = n_W.dot(deepest_W - X_WG.p);  // below the plane when negative
  ContactGeometry out;
  out.distance_m = height_m;
  out.normal_W = -n_W;  // the half-space lies along −n_W as seen from A
  out.point_a_W = deepest_W;
  out.point_b_W = deepest_W - height_m * n_W;
  return out;
}

}  // namespace contactlab::geometry
