// GJK/EPA's tolerances: fractions of the problem's size (the largest support point or swept
// radius seen) that decide when GJK's answer stands, when EPA or Newton steps take over, and
// which cores are polytopes.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <contactlab/shapes.hpp>

namespace contactlab::plugins::gjk_epa {

constexpr double kMachineEpsilon = std::numeric_limits<double>::epsilon();

// Fractions of the problem's size (the largest support point or swept radius seen).
//
// Above kSeparatedFraction, GJK's answer stands: its closest-point direction v/|v| is accurate to
// about ε·size/|v| ≤ 2e-10. Between kEnclosingFraction and kSeparatedFraction the direction may
// be rounding noise (the "kissing contact" failures of FCL #493/#495) and GJK's descent on curved
// cores slows to a crawl, so the gap is measured again with B moved away by kShiftFraction·size
// along that direction (refine()). Below kEnclosingFraction the origin is treated as on or in the
// Minkowski difference and EPA takes over, whose normals come from polytope faces and stay well
// conditioned at any gap; its distance is exact when the nearest feature is a face and otherwise
// off by less than kEnclosingFraction·size.
constexpr double kSeparatedFraction = 1e-6;
constexpr double kEnclosingFraction = 1e-12;
constexpr double kShiftFraction = 1e-3;

// Extents of the Minkowski difference below this fraction of the problem's size count as flat:
// EPA then needs no polytope, the depth along the flat direction is exact to this fraction.
constexpr double kFlatFraction = 1e-12;

// EPA on a curved core (ellipsoid, cylinder, cone, beam) approximates a smooth boundary by
// facets: the gap between its depth bounds shrinks by a roughly constant factor per few
// iterations (1e-9 of the size hit the 128-iteration limit on 5 % of deep ellipsoid
// penetrations). On smooth parts of M it hands over to Newton steps on the support function
// (kEpaHandoffFraction below); it runs to this fraction of the size only where those cannot
// finish, a minimum on a kink of the support (a cylinder's side line or cap rim), where the
// polytope resolves the one curved direction quickly. Polytope cores (point, segment, box,
// hull) end exactly when a support repeats and keep the user's tolerance.
constexpr double kCurvedEpaFraction = 1e-11;
// On such a kink the bounds agree while the nearest face's normal is still off the contact
// normal: the support height along it exceeded the face's distance by up to 1.3e-9 of the size
// (a box's corner or a hull's vertex at a cylinder's rim), so moving B by the depth along that
// normal left the shapes overlapping. Beyond this fraction the answer is the lowest support
// height EPA met and its direction instead, which overlaps by exactly that height (Solver::solve;
// refine()'s shifted GJK was no closer on rim-to-rim cylinders).
constexpr double kFaceNormalFraction = 1e-10;

// Newton polishing of the support function on curved cores (Solver::polish_separated and
// Solver::polish_penetration). GJK and EPA
// converge linearly on smooth parts of M, where a second-order method on the support function
// h(m) = m·s_M(m) over unit directions m converges quadratically. GJK on curved cores hands
// over after kGjkHandoffIterations iterations; EPA on curved cores once its depth bounds agree
// to kEpaHandoffFraction of the size (once more at kEpaRetryFraction). kPolishIterations Newton
// steps at most, each with one support and the supports' closed-form derivatives; a step longer
// than kPolishTrustRadius (radians) is shortened.
constexpr int kGjkHandoffIterations = 3;
// GJK on curved cores hands over sooner, with the support it has just taken, once that support's
// height along −v̂ is within this fraction of |v| (the distance bounds agree to it, the lower one
// at least 0.15·|v| > 0), and so does a cold start's one point (Solver::solve): Newton's
// backtracking steps from there cost less than GJK's iterations on curved cores (the value chosen
// by measurement: tools/bench/narrow_phase_history.md, gjk_epa).
constexpr double kGjkHandoffGap = 0.85;
constexpr double kEpaHandoffFraction = 1e-4;
constexpr double kEpaRetryFraction = 1e-6;
constexpr int kPolishIterations = 8;
constexpr double kPolishTrustRadius = 0.25;
// The separated polish backtracks: a trial that does not raise the distance's lower bound halves
// the step, down to kPolishMinRadius (radians), within kPolishSeparatedEvaluations supports.
constexpr int kPolishSeparatedEvaluations = 16;
constexpr double kPolishMinRadius = 1e-3;
// Separated curved cores: when a Newton step fails, the flat faces near the direction (a box's
// face, a cylinder's or frustum's cap within 60° of the direction, Solver::face_certificate) are
// tried as the closest features, where the support function has a kink Newton cannot step across.
constexpr double kCapCosine = 0.5;

// Cores that are polytopes: EPA on them terminates exactly.
inline bool polytope_core(ShapeType type) {
  return type == ShapeType::sphere || type == ShapeType::capsule || type == ShapeType::box ||
         type == ShapeType::convex_hull;
}

}  // namespace contactlab::plugins::gjk_epa
