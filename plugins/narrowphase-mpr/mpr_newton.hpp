// The Newton refinement of curved pairs (not in the thesis; see mpr_algorithm.hpp): where the
// portal refinement converges only linearly (Remark 6.1), Newton steps on the support function
// of A ⊖ B find the origin ray's exit point (newton_finish), or, next to a straight line of a
// boundary, the kink along it (newton_side_line), and complete a separated pair's distance
// (newton_separated); a pair's next query starts them from the normal this one ended on
// (warm_newton). Their Hessians are the shapes' support derivatives (the SDK's
// add_core_support_derivative). Called by run_portal (mpr_portal.hpp).
// Included only by mpr_algorithm.cpp, in the unnamed namespace of the solver's parts (see
// mpr_solver.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <contactlab/math.hpp>
#include <contactlab/shapes.hpp>
#include <cstdint>
#include <limits>

#include "mpr_solver.hpp"

namespace contactlab::plugins::mpr {
namespace {

/// The Newton step −Q⁻¹g of the 2×2 model Q = [q11 q12; q12 q22] (determinant `det` ≠ 0) with
/// the gradient (g1, g2), both in the basis (t1, t2), as a vector, shortened to
/// kNewtonTrustRadius.
[[gnu::always_inline]] inline Vec3 newton_step_2d(double q11, double q12, double q22, double det,
                                                  double g1, double g2, const Vec3& t1,
                                                  const Vec3& t2) {
  double a = -(q22 * g1 - q12 * g2) / det;
  double b = -(q11 * g2 - q12 * g1) / det;
  const double length = std::sqrt(a * a + b * b);
  if (length > kNewtonTrustRadius) {
    a *= kNewtonTrustRadius / length;
    b *= kNewtonTrustRadius / length;
  }
  return a * t1 + b * t2;
}

/// The Newton finish, then (where it gives up next to a straight line of a shape's boundary: a
/// cylinder's side line, a box's or a hull's edge) the 1-D Newton along that line's kink. `line`:
/// the line the pair's last query ended on (warm start, WarmPortal::newton_side), tried first.
template <class T, bool kBoxes>
inline bool Solver<T, kBoxes>::newton(const Vec3& start, std::uint8_t line) {
  if (line != 0 && newton_side_line(start, line)) return true;
  if (newton_finish(start)) return true;
  const Vec3 e = start.normalized();
  for (std::uint8_t candidate = 1; candidate <= kStraightLines; ++candidate) {
    if (candidate == line || !has_straight_line(candidate)) continue;
    StraightLine edge;
    if (find_straight_line(candidate, e, edge) && std::abs(e.dot(edge.axis)) < kSideLineAngle &&
        newton_side_line(start, candidate, &edge)) {
      return true;
    }
  }
  return false;
}

template <class T, bool kBoxes>
inline bool Solver<T, kBoxes>::has_straight_line(std::uint8_t line) const {
  if (line == 0 || line > kStraightLines) return false;
  const bool on_b = ((line - 1) & 1) != 0;
  const int k = (line - 1) / 2;
  const Shape& shape = on_b ? pair_.b : pair_.a;
  if (k == 3) {
    return shape.type == ShapeType::convex_hull && shape.hull != nullptr &&
           shape.hull->neighbor_offsets != nullptr && shape.hull->neighbors != nullptr;
  }
  const bool box = on_b ? box_b_ : box_a_;
  const bool cylinder = on_b ? cylinder_b_ : cylinder_a_;
  // A beam's flat sides run along x (between its round ends) and its round ends along z.
  const bool beam = shape.type == ShapeType::beam;
  return box || (cylinder && k == 2) || (beam && k != 1);
}

/// One straight line near the unit normal e (A's frame): its axis in A's frame and, on a hull,
/// its two vertices (the support vertex along e and the neighbour whose edge is the most nearly
/// normal to e). False when a hull has no edge there (a single vertex, degenerate edges).
template <class T, bool kBoxes>
struct Solver<T, kBoxes>::StraightLine {
  Vec3 axis = Vec3::UnitZ();
  std::uint32_t first = 0, second = 0;  ///< a hull edge's vertices
};

template <class T, bool kBoxes>
inline bool Solver<T, kBoxes>::find_straight_line(std::uint8_t line, const Vec3& e,
                                                  StraightLine& out) const {
  const bool on_b = ((line - 1) & 1) != 0;
  const int k = (line - 1) / 2;
  const Mat3& R = pair_.R_AB;
  if (k < 3) {
    out.axis = on_b ? Vec3(R.col(k)) : Vec3::Unit(k);
    return true;
  }
  const ConvexHull& hull = *(on_b ? pair_.b : pair_.a).hull;
  const Vec3 d = on_b ? Vec3(-(R.transpose() * e)) : e;  // X's outward direction, X's frame
  const std::uint32_t i = hull_support_vertex(hull, d, on_b ? hint_b_ : hint_a_);
  double best = std::numeric_limits<double>::infinity();
  for (std::uint32_t n = hull.neighbor_offsets[i]; n < hull.neighbor_offsets[i + 1]; ++n) {
    const std::uint32_t j = hull.neighbors[n];
    const Vec3 edge = hull.vertices[j] - hull.vertices[i];
    const double length = edge.norm();
    if (!(length > 0.0)) continue;
    const double cosine = std::abs(d.dot(edge)) / (length * d.norm());
    if (cosine < best) {
      best = cosine;
      out.first = i;
      out.second = j;
      out.axis = edge / length;
    }
  }
  if (!(best < 1.0)) return false;
  if (on_b) out.axis = R * out.axis;
  return true;
}

/// A Newton ending at direction n with witnesses a, b and a support point p of A ⊖ B along n
/// (the depth is its support value), `off_squared` its termination value [m²]; recorded for the
/// pair's next query with the straight line it ended on (`side`, WarmPortal::newton_side).
template <class T, bool kBoxes>
inline void Solver<T, kBoxes>::finish_newton(const V& a, const V& b, const V& p, const Vec3& n,
                                             const T& off_squared, std::uint8_t side) {
  const V e = V::from(n) / T(n.norm());
  result_.termination = Termination::newton;
  result_.result_tolerance = result_.last_tolerance = relative_tolerance(off_squared);
  set_geometry(a, b, T(-dot(p, e)), e);
  finish_newton_cache(n, side);
}

/// Newton finish (see mpr_algorithm.hpp): Newton steps on g(w) = h(u + w) − (u + w)·r0 over w ⊥ u
/// from the direction `start` (A frame, start·u > 0). In the basis (t1, t2) of the plane normal to
/// the ray, g's gradient is the offset of the support point s(n) from the ray, (tᵢ·(s − r0)), and
/// its Hessian tᵢ·J(n)·tⱼ, J the derivative of the support mapping of A ⊖ B at n = u + w: J_A(n) +
/// R_AB·J_B(−R_ABᵀn)·R_ABᵀ. True when the support point lies on the ray within the TC threshold and
/// the pair penetrates there (the result is written, as TC3 writes it: depth along the normal as
/// its support value, the support point's own witnesses); false when Newton gives up or the support
/// plane leaves the origin outside (a separated pair: the refinement and its closest-point
/// completion answer it).
template <class T, bool kBoxes>
bool Solver<T, kBoxes>::newton_finish(const Vec3& start) {
  const Vec3 u = ray_.to_vec3();
  const double along = start.dot(u);
  if (!(along > 0.0)) return false;
  Vec3 t1, t2;
  complete_basis(u, t1, t2);
  const V t1_T = V::from(t1), t2_T = V::from(t2);
  const Mat3& R = pair_.R_AB;
  const Vec3 t1_B = R.transpose() * t1, t2_B = R.transpose() * t2;
  Vec3 w = start / along - u;
  w -= w.dot(u) * u;  // in the plane normal to the ray
  const T threshold_squared = tc_threshold_ * tc_threshold_;
  T previous_squared{};
  for (int step = 1; step <= kNewtonSteps; ++step) {
    const Vec3 n = u + w;
    const S s = support(V::from(n));
    ++result_.newton_iterations;
    const V offset = s.p - r0_;
    const T g1 = dot(offset, t1_T), g2 = dot(offset, t2_T);
    const T off_squared = g1 * g1 + g2 * g2;
    // A support plane that leaves the origin outside proves the pair separated: the exit point is
    // not the answer (the refinement's closest-point completion is).
    if (dot(s.p, V::from(n)) < T(0.0)) return false;
    if (off_squared <= threshold_squared) {
      finish_newton(s.a, s.b, s.p, n, off_squared, 0);
      return true;
    }
    // A step that does not halve the offset: a kink of the support mapping (its branches' models
    // disagree) or a start outside Newton's basin; the refinement is the safe way on.
    if (step > 1 && !(off_squared < T(0.25) * previous_squared)) return false;
    previous_squared = off_squared;
    double q11 = 0.0, q12 = 0.0, q22 = 0.0;
    add_core_support_derivative(pair_.a, n, t1, t2, q11, q12, q22);
    add_core_support_derivative(pair_.b, -(R.transpose() * n), t1_B, t2_B, q11, q12, q22);
    const double trace = q11 + q22;
    const double det = q11 * q22 - q12 * q12;
    if (!(trace > 0.0) || !(det > kNewtonConditioning * trace * trace)) return false;
    w += newton_step_2d(q11, q12, q22, det, to_double(g1), to_double(g2), t1, t2);
    if (!w.allFinite()) return false;
  }
  return false;
}

/// Straight-line Newton (see mpr_algorithm.hpp). Where the origin ray leaves A ⊖ B through the
/// strip swept by a straight segment of X's boundary with direction a (a cylinder's side line, a
/// box's or a hull's edge: `straight_line`, see has_straight_line), X's support at the answer's
/// normal n (n ⊥ a) is the whole segment, g has a kink along the line L = {w : (u + w)·a = 0}, and
/// its minimum lies on L: a 1-D Newton along ℓ = u × a, L's direction, on which either end gives
/// the same gradient ℓ·(s − r0) and the same curvature ℓ·J·ℓ. It ends when that gradient is within
/// the TC threshold and the ray passes between the two ends' support points (their offsets from the
/// ray across L bracket zero): the exit point lies on the segment joining them. Same contract as
/// newton_finish.
template <class T, bool kBoxes>
bool Solver<T, kBoxes>::newton_side_line(const Vec3& start, std::uint8_t straight_line,
                                         const StraightLine* found) {
  if (straight_line == 0 || straight_line > kStraightLines || !has_straight_line(straight_line)) {
    return false;
  }
  const bool on_b = ((straight_line - 1) & 1) != 0;
  const int k = (straight_line - 1) / 2;
  const Mat3& R = pair_.R_AB;
  const double start_norm = start.norm();
  if (!(start_norm > 0.0)) return false;
  StraightLine edge;
  if (found != nullptr) {
    edge = *found;
  } else if (!find_straight_line(straight_line, start / start_norm, edge)) {
    return false;
  }
  const Vec3& axis = edge.axis;  // in A's frame
  const ConvexHull* hull = k == 3 ? (on_b ? pair_.b : pair_.a).hull : nullptr;
  const Vec3 u = ray_.to_vec3();
  Vec3 line = u.cross(axis);
  const double across_length = line.norm();  // |P_u a|: the axis's part normal to the ray
  if (!(across_length > kSideLineAngle)) return false;  // the ray runs along the axis
  line /= across_length;
  const Vec3 across = (axis - axis.dot(u) * u) / across_length;  // L's normal in the plane
  const double start_along = start.dot(u);
  if (!(start_along > 0.0)) return false;
  Vec3 w = start / start_along - u;
  // Onto L: (u + w)·a = 0, i.e. w·across = −(u·a)/|P_u a|, keeping the component along ℓ.
  w = w.dot(line) * line - (axis.dot(u) / across_length) * across;
  const Vec3 line_B = R.transpose() * line;
  const V line_T = V::from(line), across_T = V::from(across);
  const V axis_T = V::from(axis), t_T = V::from(Vec3(pair_.p_AB));
  const T threshold_squared = tc_threshold_ * tc_threshold_;
  T previous{};
  for (int step = 1; step <= kNewtonSteps; ++step) {
    const Vec3 n = u + w;
    const S s = support(V::from(n));
    ++result_.newton_iterations;
    if (dot(s.p, V::from(n)) < T(0.0)) return false;  // separated (see newton_finish)
    // The segment's other end: a hull edge's other vertex (the support must stay on the edge),
    // else X's point mirrored through its mid-plane normal to axis k.
    S other = s;
    if (hull != nullptr) {
      const std::uint32_t at = on_b ? hint_b_ : hint_a_;  // the vertex of this support
      if (at != edge.first && at != edge.second) return false;
      const Vec3& v = hull->vertices[at == edge.first ? edge.second : edge.first];
      if (on_b) {
        other.b = V::from(Vec3(R * v + pair_.p_AB));
      } else {
        other.a = V::from(v);
      }
    } else if (on_b) {
      const T height = dot(s.b - t_T, axis_T);
      other.b = s.b - axis_T * T(2.0 * height);
    } else {
      const T height = k == 0 ? s.a.x : k == 1 ? s.a.y : s.a.z;
      other.a = s.a - axis_T * T(2.0 * height);
    }
    other.p = other.a - other.b;
    const T gradient = dot(s.p - r0_, line_T);
    if (gradient * gradient <= threshold_squared) {
      const T offset = dot(s.p - r0_, across_T);
      const T other_offset = dot(other.p - r0_, across_T);
      if (offset * other_offset > T(0.0)) return false;  // the ray misses the segment
      const T denominator = other_offset - offset;
      const T lambda = denominator != T(0.0) ? T(other_offset / denominator) : T(0.5);
      finish_newton(other.a + (s.a - other.a) * lambda, other.b + (s.b - other.b) * lambda, s.p, n,
                    gradient * gradient, straight_line);
      return true;
    }
    const T magnitude = gradient < T(0.0) ? T(-gradient) : gradient;
    if (step > 1 && !(magnitude < T(0.5) * previous)) return false;
    previous = magnitude;
    double q = 0.0, q12 = 0.0, q22 = 0.0;
    add_core_support_derivative(pair_.a, n, line, line, q, q12, q22);
    double q_b = 0.0;
    add_core_support_derivative(pair_.b, -(R.transpose() * n), line_B, line_B, q_b, q12, q22);
    q += q_b;
    if (!(q > 0.0)) return false;
    const double step_length =
        std::clamp(-to_double(gradient) / q, -kNewtonTrustRadius, kNewtonTrustRadius);
    w += step_length * line;
    if (!w.allFinite()) return false;
  }
  return false;
}

/// Separated curved pair (see mpr_algorithm.hpp): Newton steps on h(m) = m̂·s(m̂) from the direction
/// `start`, in the chart m̂ + a·t1 + b·t2 of the tangent plane, where h has the gradient
/// (t1·s, t2·s) and the Hessian J − h·I. The upper bound |s| of the best support point and the
/// lower bound −h of the best direction must agree to the TC threshold; the answer is that support
/// point (the cores' closest point within the tolerance) with its direction as the normal, the
/// swept radii taken off. False when the bounds do not close within kNewtonSteps, when no lower
/// bound is positive (not separated after all) or the model is not positive definite; the
/// closest-point iteration then answers.
template <class T, bool kBoxes>
bool Solver<T, kBoxes>::newton_separated(const Vec3& start) {
  const double start_length = start.norm();
  if (!(start_length > 0.0)) return false;
  Vec3 m = start / start_length;
  const Mat3& R = pair_.R_AB;
  T lower = T(-std::numeric_limits<double>::infinity());
  T upper = T(std::numeric_limits<double>::infinity());
  S closest;
  Vec3 closest_direction = m;  // the direction `closest` is the support point of
  // The iterate m with its support point s and support value h; a trial direction replaces it
  // only when it raises the lower bound −h (backtracking: from a start far from the answer, full
  // Newton steps on the support function overshoot and cycle).
  S s;
  T h{};
  Vec3 step_A = Vec3::Zero();  // the Newton step from m, tangent to the sphere
  // Trust radius of the step (in the chart m + w): halved after a trial that made no progress,
  // doubled (up to kNewtonTrustRadius) after one that did, so that a step that overshot once is
  // not tried at full length again. Newton's own steps near the answer are far shorter.
  double radius = kNewtonTrustRadius;
  double tried = 0.0;  // length of the last trial step
  bool have_iterate = false;
  for (int evaluation = 1; evaluation <= kSeparatedNewtonEvaluations; ++evaluation) {
    Vec3 trial = m;
    if (have_iterate) {
      const double length = step_A.norm();
      tried = std::min(length, radius);
      trial = (m + (tried / length) * step_A).normalized();
    }
    if (!trial.allFinite()) return false;
    const S s_trial = support(V::from(trial));
    ++result_.newton_iterations;
    const T h_trial = dot(s_trial.p, V::from(trial));
    if (T(-h_trial) > lower) lower = -h_trial;
    const T length = norm(s_trial.p);
    if (length < upper) {
      upper = length;
      closest = s_trial;
      closest_direction = trial;
    }
    if (upper - lower <= tc_threshold_) {
      if (!(lower > T(0.0))) return false;
      const V normal = -closest.p / upper;  // from A towards B
      const T radius_a = T(radius_a_), radius_b = T(radius_b_);
      result_.termination = Termination::newton_closest_point;
      result_.result_tolerance = result_.last_tolerance =
          relative_tolerance(T((upper - lower) * (upper - lower)));
      set_geometry(closest.a + normal * radius_a, closest.b - normal * radius_b,
                   T(upper - radius_a - radius_b), normal);
      radii_applied_ = true;
      if (warm_ != nullptr) {
        // The direction of the closest support point: from it the next query at this pose meets
        // the same bounds at its first step.
        finish_newton_cache(closest_direction, 0);
        warm_->newton_separated = true;
      }
      return true;
    }
    if (have_iterate && !(T(-h_trial) > T(-h))) {
      // No progress: a shorter step from the same iterate, down to kSeparatedNewtonMinRadius.
      radius = 0.5 * tried;
      if (radius < kSeparatedNewtonMinRadius) return false;
      continue;
    }
    if (have_iterate) radius = std::min(kNewtonTrustRadius, 2.0 * tried);
    m = trial;
    s = s_trial;
    h = h_trial;
    have_iterate = true;
    if (evaluation >= 2 && !(lower > T(0.0))) return false;
    Vec3 t1, t2;
    complete_basis(m, t1, t2);
    double q11 = 0.0, q12 = 0.0, q22 = 0.0;
    add_core_support_derivative(pair_.a, m, t1, t2, q11, q12, q22);
    add_core_support_derivative(pair_.b, -(R.transpose() * m), R.transpose() * t1,
                                R.transpose() * t2, q11, q12, q22);
    const double h_double = to_double(h);
    q11 -= h_double;
    q22 -= h_double;
    const double det = q11 * q22 - q12 * q12;
    if (!(q11 > 0.0 && q22 > 0.0 && det > 0.0) || !std::isfinite(det)) return false;
    step_A = newton_step_2d(q11, q12, q22, det, to_double(dot(s.p, V::from(t1))),
                            to_double(dot(s.p, V::from(t2))), t1, t2);
  }
  return false;
}

template <class T, bool kBoxes>
bool Solver<T, kBoxes>::warm_newton(const Vec3& c_A, const Vec3& c_B, const T& r0_norm,
                                    const V& e1) {
  if (!(r0_norm > T(0.0))) return false;
  ray_ = e1;
  // The size as the cold start measures it, from the ray's own support point.
  ray_support_ = support(ray_);
  have_ray_support_ = true;
  length_ = std::max(r0_norm, norm(ray_support_.p - r0_));
  if (!(length_ < T(std::numeric_limits<double>::infinity()))) return false;
  set_thresholds(c_A, c_B);
  return r0_norm > ray_threshold_;
}

}  // namespace
}  // namespace contactlab::plugins::mpr
