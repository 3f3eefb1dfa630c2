// The flat face certificate of curved pairs (not in the thesis): where a box's face or a
// cylinder's or frustum's cap meets a point of the other shape, A ⊖ B has a flat face whose
// support points the refinement reaches only linearly and Newton not at all; one support along
// the face's normal certifies the answer exactly (Termination::face). Tried by run_portal
// (mpr_portal.hpp) at the first portal and before a hand-over to Newton or to the closest-point
// completion, and first of all when the pair's last query ended on a face (WarmPortal::face).
// Included only by mpr_algorithm.cpp, in the unnamed namespace of the solver's parts (see
// mpr_solver.hpp).
#pragma once

#include <cmath>
#include <contactlab/math.hpp>
#include <cstdint>

#include "mpr_solver.hpp"

namespace contactlab::plugins::mpr {
namespace {

/// Flat faces of the cores whose support set has a closed form: a box's six faces, a
/// cylinder's or a frustum's two caps. face_certificate(on_b, axis, negative): the face of A (or
/// B) normal to its frame's axis `axis`, on the negative side when `negative`. With M = A ⊖ B and
/// e the direction of A ⊖ B whose support set is that face minus the other shape's support point
/// s (e the face's outward normal for A, minus it for B), the plane e·x = h, h = e·s.p, supports
/// A ⊖ B. The face's flat piece of A ⊖ B is the face translated by the other shape's point. When
/// the origin's foot on that plane, h·e, lies in that piece (and, if h ≥ 0, the origin ray's
/// exit point does too), the answer is exact: separated (h < 0), the foot is the point of
/// A ⊖ B nearest to the origin, at distance −h; penetrating, the origin ray leaves A ⊖ B
/// through that face, the limit the refinement converges to, and the depth is h along e, the
/// witnesses at the foot as finish_tc3 takes them. On a curved pair the refinement converges to
/// a face only linearly (its support points slide along the other shape's curve), the Newton
/// finish cannot (a face is a kink of the support function): a cylinder's cap on another
/// cylinder's rim took 18 refinement iterations, 30 when separated. One support each.
template <class T, bool kBoxes>
bool Solver<T, kBoxes>::face_certificate(bool on_b, int axis, bool negative) {
  const Mat3& R = pair_.R_AB;
  const Vec3 e = face_direction(on_b, axis, negative);
  const V e_T = V::from(e);
  const S s = core_support(e_T);
  const T h = dot(s.p, e_T);  // the support value of A ⊖ B along e
  const V foot = e_T * h;
  // Whether the point x of the plane e·x = h lies in the face's piece of A ⊖ B: the face's point
  // x + s.b (A's face) or s.a − x (B's, in B's frame) inside the face, tested across its normal.
  const double cap_radius = core_cap_radius(on_b ? pair_.b : pair_.a, negative);
  const double cap_radius_squared = cap_radius * cap_radius;
  const auto in_face = [&](const V& x) {
    const Vec3& core = on_b ? core_b_ : core_a_;
    const Vec3 p =
        on_b ? Vec3(R.transpose() * ((s.a - x).to_vec3() - pair_.p_AB)) : (x + s.b).to_vec3();
    if (on_b ? box_b_ : box_a_) {
      const int i = (axis + 1) % 3, j = (axis + 2) % 3;
      return std::abs(p[i]) <= core[i] && std::abs(p[j]) <= core[j];
    }
    return p.x() * p.x() + p.y() * p.y() <= cap_radius_squared;  // a cylinder's or frustum's cap
  };
  if (!(h < T(0.0))) {
    // Penetrating (or touching): the origin ray r0 + t·ray must leave through the face.
    const T along = dot(ray_, e_T);
    if (!(along > T(0.0))) return false;
    const T t = (h - dot(r0_, e_T)) / along;
    if (!in_face(r0_ + ray_ * t)) return false;
  }
  if (!in_face(foot)) return false;
  result_.termination = Termination::face;
  result_.result_tolerance = result_.last_tolerance = 0.0;
  if (on_b) {
    set_geometry(s.a, s.a - foot, T(-h), e_T);
  } else {
    set_geometry(foot + s.b, s.b, T(-h), e_T);
  }
  cache_face(e);
  return true;
}

/// The certificate of A's and of B's face nearest to the portal normal n4, when within
/// min_cosine of it and not tried yet in this query. True when one answered. Out of line: the
/// refinement loop keeps its registers.
template <class T, bool kBoxes>
bool Solver<T, kBoxes>::try_faces(const V& n4, double min_cosine) {
  const Vec3 e = n4.to_vec3().normalized();
  for (const bool on_b : {false, true}) {
    int axis;
    bool negative;
    if (!nearest_face(on_b, e, axis, negative, min_cosine)) continue;
    const std::uint16_t bit = std::uint16_t(1u << ((on_b ? 6 : 0) + 2 * axis + (negative ? 1 : 0)));
    if ((faces_tried_ & bit) != 0) continue;
    faces_tried_ |= bit;
    if (face_certificate(on_b, axis, negative)) return true;
  }
  return false;
}

/// The face of A (of B when on_b) whose direction of A ⊖ B (face_direction) is nearest to the
/// unit direction e (A's frame): a box's face or a cylinder's or frustum's cap, in `axis` and
/// `negative`. False for other shapes or when the cosine between them is below `min_cosine`.
template <class T, bool kBoxes>
inline bool Solver<T, kBoxes>::nearest_face(bool on_b, const Vec3& e, int& axis, bool& negative,
                                            double min_cosine) const {
  const bool box = on_b ? box_b_ : box_a_;
  if (!box && !capped(on_b ? pair_.b : pair_.a)) return false;
  // The face's outward normal in its shape's frame is e for A, −R_ABᵀe for B.
  const Vec3 d = on_b ? Vec3(-(pair_.R_AB.transpose() * e)) : e;
  axis = 2;
  if (box) d.cwiseAbs().maxCoeff(&axis);
  negative = d[axis] < 0.0;
  return std::abs(d[axis]) >= min_cosine;
}

/// The direction e of A ⊖ B (A's frame) along which A's support set is A's face (on_b false)
/// or B's is B's face: the face's outward normal for A, its opposite for B.
template <class T, bool kBoxes>
inline Vec3 Solver<T, kBoxes>::face_direction(bool on_b, int axis, bool negative) const {
  const double sign = negative ? -1.0 : 1.0;
  return on_b ? Vec3(-sign * pair_.R_AB.col(axis)) : Vec3(sign * Vec3::Unit(axis));
}

/// Caches the normal e of a flat face the query ended on: the pair's next query tries that
/// face's certificate first (run_portal).
template <class T, bool kBoxes>
inline void Solver<T, kBoxes>::cache_face(const Vec3& e) {
  if (warm_ == nullptr) return;
  finish_newton_cache(e, 0);
  warm_->face = true;
}

/// A refinement ending (TC2, TC3) on a curved pair whose portal normal n4 is a face's normal to
/// within rounding: that face is cached as face_certificate's ending caches it.
template <class T, bool kBoxes>
inline void Solver<T, kBoxes>::cache_face_ending(const V& n4) {
  if (!faces_ || warm_ == nullptr) return;
  const Vec3 e = n4.to_vec3().normalized();
  for (const bool on_b : {false, true}) {
    int axis;
    bool negative;
    if (nearest_face(on_b, e, axis, negative, 1.0 - kFaceEndingSlack)) {
      cache_face(face_direction(on_b, axis, negative));
      return;
    }
  }
}

}  // namespace
}  // namespace contactlab::plugins::mpr
