// The MPR solver's tolerances and switches, each with the reason for its value.
// Included only by mpr_algorithm.cpp, in the unnamed namespace of the solver's parts (see
// mpr_solver.hpp).
#pragma once

namespace contactlab::plugins::mpr {
namespace {

/// Scale of Neumayr's ε = 100·eps(T) (L471) for the degeneracy tests.
constexpr double kEpsilonFactor = 100.0;
/// The SDK computes support points in double, so every point carries a rounding error of a few
/// ulps of the coordinates; termination tests are never asked to resolve less than this many.
constexpr double kSupportRoundingUlps = 16.0;
/// Coincident interior points: r0 is moved this fraction of the way to a boundary point. Any value
/// in (0, 1) keeps r0 interior (a convex combination weighted on an interior point).
constexpr double kInteriorShiftFraction = 1.0 / 1024.0;
/// The Newton finish takes over from the refinement once its TC3 value is below this fraction of
/// the size of A ⊖ B (Newton's quadratic convergence then reaches 1e-12 in two or three steps);
/// when it gives up, it is tried again once the value is below kNewtonRetry of that, since a start
/// closer to the answer is more often in Newton's basin (near a kink of the support mapping).
constexpr double kNewtonSwitch = 1e-2;
constexpr double kNewtonRetry = 1e-2;
constexpr int kNewtonAttempts = 2;
/// Newton steps before it gives up (each one support point and one derivative).
constexpr int kNewtonSteps = 8;
/// Support evaluations of the separated Newton (steps and the shorter trials of its trust region)
/// before it gives up, and the smallest trust radius it tries.
constexpr int kSeparatedNewtonEvaluations = 16;
constexpr double kSeparatedNewtonMinRadius = 1e-3;
/// Newton gives up when the model's 2×2 Hessian has det ≤ this · trace² (a flat direction).
constexpr double kNewtonConditioning = 1e-10;
/// Largest Newton step in the chart n = u + w (|w| = tan of the angle to the ray): 45°.
constexpr double kNewtonTrustRadius = 1.0;
/// The straight-line Newton is tried when the Newton finish gives up with its normal within this
/// cosine of normal to a straight line of a boundary (|n·a| < kSideLineAngle, a the line's
/// direction: a cylinder's axis, a box's or a hull's edge).
constexpr double kSideLineAngle = 0.05;
/// A flat face's certificate (Solver::face_certificate) is tried at the first portal and where the
/// refinement would hand over to the Newton finish or to the closest-point completion, when the
/// portal normal is within this cosine of the face's normal (about 26°), once per face and query.
constexpr double kFaceCosine = 0.9;
/// The same before a separated pair's completion (Newton on the support function, then the
/// closest-point iteration), which costs far more than a failed certificate: about 60°.
constexpr double kSeparatedFaceCosine = 0.5;
/// A refinement ending whose normal is within this of a face's (1 − cosine) is cached as that
/// face (Solver::cache_face_ending).
constexpr double kFaceEndingSlack = 1e-9;

}  // namespace
}  // namespace contactlab::plugins::mpr
