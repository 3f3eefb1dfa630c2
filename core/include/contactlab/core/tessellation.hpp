// Surfaces of the shapes as triangle meshes, for drawing them: the replay page (`contactlab
// view`), the ParaView export (`contactlab export --vtk`) and the Python module draw the same
// triangles. Drawing only: the narrow phases never see these.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "contactlab/shapes.hpp"

namespace contactlab::core {

/// A closed (but for a half-space's patch), outward-oriented triangle mesh in the shape's
/// geometry frame G.
struct SurfaceMesh {
  std::vector<Vec3> vertices;                           ///< [m], in G
  std::vector<Vec3> normals;                            ///< unit outward normal per vertex
  std::vector<std::array<std::uint32_t, 3>> triangles;  ///< counter-clockwise seen from outside
};

struct TessellationOptions {
  /// Segments around a full circle (spheres, ellipsoids, round edges and ends); at least 8.
  int segments = 32;
  /// A half-space is drawn as a square patch of its boundary plane with this half side [m],
  /// centred on `half_space_center` (in G, projected onto the plane).
  double half_space_half_size_m = 1.0;
  Vec3 half_space_center = Vec3::Zero();
};

/// The surface of `shape` (every ShapeType; a smoothing radius rounds edges and corners as the
/// shape's support mapping does). A convex hull's own boundary triangles are used as they are.
SurfaceMesh tessellate(const Shape& shape, const TessellationOptions& options = {});

}  // namespace contactlab::core
