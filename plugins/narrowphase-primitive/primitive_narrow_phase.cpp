// The primitive narrow phase's adapter: dispatch on the pair's shape types to the closed forms
// (sphere_pairs, capsule_pairs, box_box, contactlab/geometry/half_space.hpp), a pair given in the
// other order solved with A and B exchanged and exchanged back, and the box–box warm start in the
// pair's cache (the only pair that keeps one).
#include "primitive_narrow_phase.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include <contactlab/errors.hpp>
#include <contactlab/geometry/half_space.hpp>
#include <contactlab/geometry/swap.hpp>

#include "primitive_common.hpp"

namespace contactlab::plugins {

namespace {

constexpr int pair_code(ShapeType a, ShapeType b) {
  return static_cast<int>(a) * shape_type_count + static_cast<int>(b);
}

/// The supported pairs in the order the closed forms take them; the host may ask either order.
constexpr std::array<std::pair<ShapeType, ShapeType>, 9> kSupportedPairs{{
    {ShapeType::sphere, ShapeType::sphere},
    {ShapeType::sphere, ShapeType::capsule},
    {ShapeType::sphere, ShapeType::box},
    {ShapeType::sphere, ShapeType::half_space},
    {ShapeType::capsule, ShapeType::capsule},
    {ShapeType::capsule, ShapeType::half_space},
    {ShapeType::box, ShapeType::box},
    {ShapeType::box, ShapeType::half_space},
    {ShapeType::cylinder, ShapeType::half_space},
}};

/// Solves a pair given in the order of kSupportedPairs; false when (a, b) is not in that list.
/// Inlined into query: the dispatch is part of every query's cost.
[[gnu::always_inline]] inline bool solve_in_order(const Shape& a, const Pose& X_WA, const Shape& b,
                                                  const Pose& X_WB, int max_points,
                                                  NarrowPhaseCache* cache, ContactManifold& out) {
  out.count = 1;
  ContactGeometry& first = out.points[0];
  switch (pair_code(a.type, b.type)) {
    case pair_code(ShapeType::sphere, ShapeType::sphere):
      primitive::sphere_sphere_into(a.radius_m, X_WA.p, b.radius_m, X_WB.p, first);
      return true;
    case pair_code(ShapeType::sphere, ShapeType::capsule):
      first = sphere_capsule(a, X_WA, b, X_WB);
      return true;
    case pair_code(ShapeType::sphere, ShapeType::box):
      // The sphere against the box's core, then the core swept by the smoothing radius.
      primitive::sphere_box_into(a.radius_m, X_WA.p, primitive::core_half_extents(b),
                                 b.smoothing_radius_m, X_WB, first);
      return true;
    case pair_code(ShapeType::sphere, ShapeType::half_space):
      first = geometry::sphere_half_space(a.radius_m, X_WA.p, b.normal, X_WB);
      return true;
    case pair_code(ShapeType::capsule, ShapeType::capsule):
      first = capsule_capsule(a, X_WA, b, X_WB);
      return true;
    case pair_code(ShapeType::capsule, ShapeType::half_space):
      geometry::capsule_half_space(a, X_WA, b, X_WB, max_points, out);
      return true;
    case pair_code(ShapeType::box, ShapeType::box):
      box_box(a, X_WA, b, X_WB, max_points, out, cache);
      return true;
    case pair_code(ShapeType::box, ShapeType::half_space):
      geometry::box_half_space(a, X_WA, b, X_WB, max_points, out);
      return true;
    case pair_code(ShapeType::cylinder, ShapeType::half_space):
      geometry::cylinder_half_space(a, X_WA, b, X_WB, max_points, out);
      return true;
    default:
      return false;
  }
}

}  // namespace

PrimitiveNarrowPhase::PrimitiveNarrowPhase(const ParameterValues& params) {
  if (params.contains("manifold_points")) {
    const std::int64_t points = params.integer("manifold_points");
    if (points < 1 || points > max_manifold_points) {
      throw Error("primitive narrow phase: manifold_points must be 1.." +
                  std::to_string(max_manifold_points) + ", got " + std::to_string(points));
    }
    max_points_ = static_cast<int>(points);
  }
}

ParameterSchema PrimitiveNarrowPhase::schema() {
  return {integer_parameter(
      "manifold_points", max_manifold_points, 1, max_manifold_points,
      "Contact points kept for a flat contact (box on half-space or box face on face, cylinder "
      "cap, capsule side): the deepest, then the spread of the patch; 1 keeps only the deepest")};
}

bool PrimitiveNarrowPhase::supports(ShapeType a, ShapeType b) const {
  return std::any_of(kSupportedPairs.begin(), kSupportedPairs.end(), [&](const auto& pair) {
    return (pair.first == a && pair.second == b) || (pair.first == b && pair.second == a);
  });
}

void PrimitiveNarrowPhase::query(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                                 NarrowPhaseCache& cache, ContactManifold& manifold) {
  ++queries_;
  // A sphere against a sphere or a box first, before the dispatch: their closed forms cost less
  // than the dispatch's frame (the compiler keeps these paths free of the other pairs' register
  // saves).
  if (a.type == ShapeType::sphere) {
    if (b.type == ShapeType::sphere) {
      manifold.count = 1;
      primitive::sphere_sphere_into(a.radius_m, X_WA.p, b.radius_m, X_WB.p, manifold.points[0]);
      return;
    }
    if (b.type == ShapeType::box) {
      manifold.count = 1;
      primitive::sphere_box_into(a.radius_m, X_WA.p, primitive::core_half_extents(b),
                                 b.smoothing_radius_m, X_WB, manifold.points[0]);
      return;
    }
  }
  // Only box–box keeps a warm start in the cache (BoxBoxWarmStart: its last closest feature pair
  // and normal).
  if (solve_in_order(a, X_WA, b, X_WB, max_points_, &cache, manifold)) return;
  // B–A order: solve with the roles exchanged, then exchange them back.
  if (solve_in_order(b, X_WB, a, X_WA, max_points_, &cache, manifold)) {
    geometry::swap_roles(manifold);
    return;
  }
  throw SimulationError(std::string("primitive narrow phase: unsupported pair ") +
                        shape_type_name(a.type) + "–" + shape_type_name(b.type) +
                        "; it handles sphere–{sphere, capsule, box, half_space}, "
                        "capsule–{capsule, half_space}, box–{box, half_space} and "
                        "cylinder–half_space, in either order");
}

}  // namespace contactlab::plugins
