// Minkowski Portal Refinement as improved by Neumayr (2025) §6.1, templated on the arithmetic: the
// entry points of mpr_algorithm.hpp and the solver's instantiations. The outline of a query:
//   signed_distance   two spheres on their cores: the TC1 shortcut (mpr_sphere_cores.hpp); else
//                     the pair in A's frame, whether its warm start applies, and the solver for
//                     two boxes or for any pair (mpr_solver.hpp), the answer mapped to the world;
//   solve             the solver on the cores, then on the full shapes where the cores intersect
//                     where their difference is degenerate;
//   Solver::run       phases 1–3 (mpr_portal.hpp), handing over to the face certificate
//                     (mpr_face_certificate.hpp), the Newton refinement (mpr_newton.hpp) and the
//                     closest-point completion (mpr_completion.hpp); the swept radii added.
// This file alone includes the solver's headers (see mpr_solver.hpp).
#include "mpr_algorithm.hpp"

#include <type_traits>

#include "mpr_portal.hpp"
#include "mpr_solver.hpp"
#include "mpr_sphere_cores.hpp"

namespace contactlab::plugins::mpr {

const char* termination_name(Termination termination) {
  switch (termination) {
    case Termination::tc1:
      return "tc1";
    case Termination::tc2:
      return "tc2";
    case Termination::tc3_inside:
      return "tc3_inside";
    case Termination::tc3_penetrating_outside:
      return "tc3_penetrating_outside";
    case Termination::tc3_closest_point:
      return "tc3_closest_point";
    case Termination::iteration_limit:
      return "iteration_limit";
    case Termination::degenerate_portal:
      return "degenerate_portal";
    case Termination::degenerate_start:
      return "degenerate_start";
    case Termination::cores_closest_point:
      return "cores_closest_point";
    case Termination::separated_closest_point:
      return "separated_closest_point";
    case Termination::newton:
      return "newton";
    case Termination::newton_closest_point:
      return "newton_closest_point";
    case Termination::face:
      return "face";
  }
  return "unknown";
}

/// The solver's run on the pair (the cores first where a radius is swept, the full shapes when the
/// cores intersect where their difference is degenerate), in A's frame.
template <class Scalar, bool kBoxes>
[[gnu::always_inline]] inline void solve(const PosedPair& pair, const Settings& settings,
                                         bool swept, WarmPortal* warm, Result& result) {
  if (settings.on_cores && swept) {
    Solver<Scalar, kBoxes> solver(pair, settings, true, warm, result);
    solver.run();
    if (solver.needs_full_shapes()) {
      const Result cores = result;
      Solver<Scalar, kBoxes> full(pair, settings, false, nullptr, result);  // full shapes: curved
      full.run();
      result.full_shape_rerun = true;
      result.phase2_iterations += cores.phase2_iterations;
      result.phase3_iterations += cores.phase3_iterations;
      result.completion_iterations += cores.completion_iterations;
      result.iteration_limit_hit = result.iteration_limit_hit || cores.iteration_limit_hit;
    }
  } else {
    Solver<Scalar, kBoxes> solver(pair, settings, false, warm, result);
    solver.run();
  }
}

template <class Scalar>
void signed_distance(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                     const Settings& settings, WarmPortal* warm, Result& result) {
  if (settings.on_cores && a.type == ShapeType::sphere && b.type == ShapeType::sphere) {
    result = Result{};
    if (sphere_cores_tc1<Scalar>(a, X_WA, b, X_WB, result)) return;
  }
  const Mat3 R_AW = X_WA.R.transpose();
  const PosedPair pair{a, b, R_AW * X_WB.R, R_AW * (X_WB.p - X_WA.p), R_AW.col(2)};
  // Portal warm starts only where A ⊖ B, as this run sees it, is a polytope: there the answer is
  // the face the origin ray leaves through whatever the start portal. On a curved difference the
  // refinement's answer moves with the start portal by about the TC tolerance times the support's
  // gradient (1e-8–1e-7 of the size measured on cylinders, cones and ellipsoids), so curved pairs
  // warm-start only the Newton finish, whose answer is the ray's exit point to the tolerance
  // whatever its start.
  const bool swept = sweep_radius(a) > 0.0 || sweep_radius(b) > 0.0;
  if (warm != nullptr && !((settings.on_cores || !swept) &&
                           (settings.newton_finish || (polytope_core(a) && polytope_core(b))))) {
    warm->valid = false;
    warm = nullptr;
  }
  if constexpr (std::is_same_v<Scalar, double>) {
    if (a.type == ShapeType::box && b.type == ShapeType::box) {
      solve<Scalar, true>(pair, settings, swept, warm, result);
    } else {
      solve<Scalar, false>(pair, settings, swept, warm, result);
    }
  } else {
    solve<Scalar, false>(pair, settings, swept, warm, result);
  }
  // From the frame of A to the world.
  ContactGeometry& g = result.geometry;
  g.normal_W = X_WA.R * g.normal_W;
  g.point_a_W = X_WA.transform_point(g.point_a_W);
  g.point_b_W = X_WA.transform_point(g.point_b_W);
}

template <class Scalar>
Result signed_distance(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                       const Settings& settings, WarmPortal* warm) {
  Result result;
  signed_distance<Scalar>(a, X_WA, b, X_WB, settings, warm, result);
  return result;
}

template Result signed_distance<double>(const Shape&, const Pose&, const Shape&, const Pose&,
                                        const Settings&, WarmPortal*);
template Result signed_distance<long double>(const Shape&, const Pose&, const Shape&, const Pose&,
                                             const Settings&, WarmPortal*);
template Result signed_distance<DoubleDouble>(const Shape&, const Pose&, const Shape&, const Pose&,
                                              const Settings&, WarmPortal*);

void signed_distance(Precision precision, const Shape& a, const Pose& X_WA, const Shape& b,
                     const Pose& X_WB, const Settings& settings, WarmPortal* warm, Result& result) {
  switch (precision) {
    case Precision::long_double:
      return signed_distance<long double>(a, X_WA, b, X_WB, settings, warm, result);
    case Precision::double_double:
      return signed_distance<DoubleDouble>(a, X_WA, b, X_WB, settings, warm, result);
    case Precision::double_precision:
      break;
  }
  signed_distance<double>(a, X_WA, b, X_WB, settings, warm, result);
}

Result signed_distance(Precision precision, const Shape& a, const Pose& X_WA, const Shape& b,
                       const Pose& X_WB, const Settings& settings, WarmPortal* warm) {
  Result result;
  signed_distance(precision, a, X_WA, b, X_WB, settings, warm, result);
  return result;
}

}  // namespace contactlab::plugins::mpr
