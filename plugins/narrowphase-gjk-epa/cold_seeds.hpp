// A cold start's seeds for EPA between a hull and a hull or a box: the points of M next to the
// first support (ColdSeeds).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "minkowski_difference.hpp"

namespace contactlab::plugins::gjk_epa {

// A cold start between a hull and a hull or a box: EPA's seeds are the points of M next to the
// first support p0 (one vertex of A or of B moved to a neighbour) highest along p0's direction,
// the centre difference, near which the contact lies: the ring of M's vertices around the contact
// that EPA would otherwise find one support at a time (on cold hull256 pairs, less than half the
// iterations). Any vertex pair is a point of M, so the seeds keep EPA exact wherever the contact is
// (see WarmStart::vertex_pairs). Computed only when EPA runs (fill()).
struct ColdSeeds {
  // 4 seeds, 6 with a hull of kJumpFrom vertices or more: more seeds pay on large hulls only
  // (tools/bench/narrow_phase_history.md, gjk_epa).
  static constexpr int kSeeds = 6;

  ColdSeeds(const Shape& a, const Shape& b, const Pose& X_AB, const CoreDifference& difference,
            const SupportPoint& p0, const Vec3& d_A)
      : a_(a),
        b_(b),
        X_AB_(X_AB),
        difference_(difference),
        p0_a_(p0.a),
        p0_b_(p0.b),
        d_A_(d_A),
        p0_vertex_a_(p0.vertex_a),
        p0_vertex_b_(p0.vertex_b) {}

  // Writes up to kSeeds points into `out`, highest along d_A first; returns their number.
  int fill(SupportPoint* out) const {
    const Vec3 centre_A = interior_point(a_) - X_AB_.transform_point(interior_point(b_));
    const std::uint32_t vertices_a = named_vertices(a_);
    const std::uint32_t vertices_b = named_vertices(b_);
    SupportPoint p0;
    p0.a = p0_a_;
    p0.b = p0_b_;
    p0.vertex_a = p0_vertex_a_;
    p0.vertex_b = p0_vertex_b_;
    const std::uint32_t vertex_a = difference_.vertex_a(p0);
    const std::uint32_t vertex_b = difference_.vertex_b(p0);
    const int limit = std::max(vertices_a, vertices_b) >= kJumpFrom ? kSeeds : 4;
    // The candidates' heights and vertex pairs only (a point is built for the kept ones at the
    // end: moving whole points through the insertion cost as much as the rest of fill()).
    std::array<double, kSeeds> height{};
    std::array<std::uint32_t, kSeeds> moved{};  // the neighbour's vertex index
    std::array<bool, kSeeds> on_b{};            // a neighbour of B's vertex, else of A's
    int count = 0;
    const auto offer = [&](const Vec3& w, std::uint32_t vertex, bool b_side) {
      const double h = d_A_.dot(w);
      int k = count < limit ? count++ : limit;
      if (k == limit) {
        if (!(h > height[limit - 1])) return;
        k = limit - 1;
      }
      while (k > 0 && height[k - 1] < h) {
        height[k] = height[k - 1];
        moved[k] = moved[k - 1];
        on_b[k] = on_b[k - 1];
        --k;
      }
      height[k] = h;
      moved[k] = vertex;
      on_b[k] = b_side;
    };
    // The points of M next to p0: one vertex of A, or of B (in A's frame as
    // CoreDifference::support computes it), moved to a neighbour.
    const auto a_point = [&](std::uint32_t i) { return named_vertex(a_, i); };
    const auto b_point = [&](std::uint32_t j) -> Vec3 {
      return X_AB_.R * named_vertex(b_, j) + X_AB_.p;
    };
    if (vertex_a < vertices_a) {
      for_each_neighbour(a_, vertex_a, [&](std::uint32_t i) {
        if (i >= vertices_a) return;
        offer(Vec3(a_point(i) - p0.b), i, false);
      });
    }
    if (vertex_b < vertices_b) {
      for_each_neighbour(b_, vertex_b, [&](std::uint32_t j) {
        if (j >= vertices_b) return;
        offer(Vec3(p0.a - b_point(j)), j, true);
      });
    }
    for (int k = 0; k < count; ++k) {
      SupportPoint& q = out[k];
      if (on_b[k]) {
        q.a = p0.a;
        q.b = b_point(moved[k]);
        q.vertex_a = p0.vertex_a;
        q.vertex_b = moved[k];
      } else {
        q.a = a_point(moved[k]);
        q.b = p0.b;
        q.vertex_a = moved[k];
        q.vertex_b = p0.vertex_b;
      }
      q.w = q.a - q.b;
      q.d = q.w - centre_A;  // a direction q is about the support point for (warm directions)
    }
    return count;
  }

 private:
  const Shape& a_;
  const Shape& b_;
  const Pose& X_AB_;
  const CoreDifference& difference_;
  Vec3 p0_a_;  // the first support's points of A and B, its direction, its hull vertices
  Vec3 p0_b_;
  Vec3 d_A_;
  std::uint32_t p0_vertex_a_;
  std::uint32_t p0_vertex_b_;
};

}  // namespace contactlab::plugins::gjk_epa
