// Collision shapes, described in their own geometry frame G.
#pragma once

#include <cstdint>
#include <limits>

#include "contactlab/math.hpp"

namespace contactlab {

enum class ShapeType : std::int32_t {
  sphere = 0,      ///< centred at G's origin; radius_m
  box = 1,         ///< centred at G's origin, edges along G's axes; half_extents_m
  half_space = 2,  ///< solid {x : normal·x ≤ 0} in G; boundary plane through G's origin
};
inline constexpr int shape_type_count = 3;

inline const char* shape_type_name(ShapeType type) {
  switch (type) {
    case ShapeType::sphere:
      return "sphere";
    case ShapeType::box:
      return "box";
    case ShapeType::half_space:
      return "half_space";
  }
  return "unknown";
}

/// A shape is a plain value: the fields that matter depend on `type`.
struct Shape {
  ShapeType type = ShapeType::sphere;
  double radius_m = 0.0;               ///< sphere radius [m]
  Vec3 half_extents_m = Vec3::Zero();  ///< box half sizes along G's x, y, z [m]
  Vec3 normal = Vec3::UnitZ();         ///< half-space outward unit normal in G (solid below)
  /// Radius of curvature used by curvature-dependent force laws (Hertz) [m]: the sphere radius,
  /// +∞ for flat shapes (box faces, half-space), or the user's `contact_radius_m` override.
  double contact_radius_m = std::numeric_limits<double>::infinity();

  static Shape sphere(double radius_m) {
    Shape s;
    s.type = ShapeType::sphere;
    s.radius_m = radius_m;
    s.contact_radius_m = radius_m;
    return s;
  }
  static Shape box(const Vec3& half_extents_m) {
    Shape s;
    s.type = ShapeType::box;
    s.half_extents_m = half_extents_m;
    return s;
  }
  static Shape half_space(const Vec3& outward_normal) {
    Shape s;
    s.type = ShapeType::half_space;
    s.normal = outward_normal.normalized();
    return s;
  }
};

/// Axis-aligned bounding box in world coordinates [m]. Unbounded shapes use ±infinity.
struct Aabb {
  Vec3 min_W = Vec3::Zero();
  Vec3 max_W = Vec3::Zero();
  bool overlaps(const Aabb& other) const {
    return (min_W.array() <= other.max_W.array()).all() &&
           (other.min_W.array() <= max_W.array()).all();
  }
};

}  // namespace contactlab
