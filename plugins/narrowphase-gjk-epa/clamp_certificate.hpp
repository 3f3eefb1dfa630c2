// The clamp certificate: between cores with a box or a cylinder, the closest point of M by
// clamping into the clampable core(s) (Solver-free, a few supports).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <optional>

#include "certificate.hpp"
#include "cold_start.hpp"

namespace contactlab::plugins::gjk_epa {

// Cores with a box or a cylinder among them (clampable: their nearest point to any point has a
// closed form), the other core's closest feature a point (a vertex over a box's face, edge or
// corner, how a box rests on a box or a hull; a vertex or a rim point over a cylinder's cap or
// side or at its rim): clamping that point to the clampable core gives that core's nearest point
// c, and the support point s of M along n = (point − c)/|point − c| bounds the distance from below
// by −n·s.w (the plane n·x = n·s.w separates the origin from M) while the pair (c, point) bounds
// it from above by |point − c|. When they agree to GJK's stopping rule the pair is the answer,
// written into `out` as a point of M (out.a on A, out.b on B). Else s's point on the other core
// is the next candidate, for up to kClampSteps clamps; two edges closest to each other are left to
// GJK. With two clampable cores the steps clamp into A and into B in turn. Starts from the support
// point `from`; `scale` is the problem's size (as Solver::solve's).
// Where a face of M holds the closest point (a vertex over a face), GJK needs four or five
// supports to find three of its corners; the clamp takes one or two (measurements:
// tools/bench/narrow_phase_history.md, gjk_epa).
constexpr int kClampSteps = 3;
inline bool clamp_certificate(CoreDifference& difference, const SupportPoint& from, double scale,
                              double tolerance, QueryCounters& counters, SupportPoint& out) {
  const double separated2 = kSeparatedFraction * kSeparatedFraction * scale * scale;
  const bool clamp_a = difference.a_clampable();  // B's point clamped to A's core
  const bool clamp_b = difference.b_clampable();  // A's point clamped to B's core
  Vec3 a = from.a, b = from.b;                    // the start's vertices, then the last support's
  std::uint32_t vertex_a = from.vertex_a, vertex_b = from.vertex_b;  // (of a hull among them)
  for (int step = 0; step < kClampSteps; ++step) {
    // The pair as a point v = a − b of M: A's nearest point to b, or a and B's nearest point to
    // a; with two clampable cores A's at even steps, B's at odd ones (a vertex over A's face
    // takes one step, a vertex over B's face two).
    if (clamp_a && (!clamp_b || step % 2 == 0)) {
      a = difference.nearest_on_a(b);
    } else {
      b = difference.nearest_on_b(a);
    }
    const Vec3 v = a - b;
    const double vv = v.squaredNorm();
    if (!(vv > separated2)) return false;  // touching or overlapping: GJK and EPA decide
    SupportPoint& s = out;                 // M's support along −v (out is rewritten on success)
    difference.support_into(-v, s);
    ++counters.iterations;
    if (gjk_converged(vv - v.dot(s.w), vv, tolerance, scale)) {  // GJK's rule, support along −v
      out.a = a;
      out.b = b;
      out.w = v;
      out.d = -v;
      out.vertex_a = vertex_a;
      out.vertex_b = vertex_b;
      return true;
    }
    a = s.a;
    b = s.b;
    vertex_a = s.vertex_a;
    vertex_b = s.vertex_b;
  }
  return false;
}

// The clamp certificate (clamp_certificate()) from the point start.points[0] of M, when a box or a
// cylinder is among the cores. True when it ends the query at start.points[0].
inline bool clamp_step(CoreDifference& difference, ColdStart& start, double sweep, double tolerance,
                       QueryCounters& counters) {
  if (!difference.a_clampable() && !difference.b_clampable()) return false;
  const SupportPoint& p = start.points[0];
  const double scale = std::sqrt(std::max(sweep * sweep, p.w.squaredNorm()));  // Solver::solve
  if (!clamp_certificate(difference, p, scale, tolerance, counters, start.points[1])) return false;
  start.points[0] = start.points[1];
  return true;
}

// The clamp certificate's entry point (certificate.hpp).
struct ClampCertificate {
  std::optional<Certified> try_certify(const PairInputs& in, ColdStart& start) const {
    if (!clamp_step(in.difference, start, in.sweep, in.tolerance, in.counters)) return std::nullopt;
    return certified_at(start);
  }
};

}  // namespace contactlab::plugins::gjk_epa
