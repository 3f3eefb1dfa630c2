#include "contactlab/core/tessellation.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "contactlab/errors.hpp"

namespace contactlab::core {

namespace {

/// The surface as the image of the unit sphere under the support mapping: a latitude–longitude
/// grid of directions d, each vertex the support point s(d) with d its outward normal. Every
/// vertex lies on the true surface (support() includes the smoothing radius), round parts are
/// sampled at the grid's resolution, and flat faces and sharp edges come out exactly: the
/// directions around a face normal map to the face's corners, so the triangles between them
/// tile the face (others collapse to zero area). Vertex normals are the directions, which are
/// the surface normals on round parts only: a drawing of a faceted shape shades by face.
SurfaceMesh support_mesh(const Shape& shape, int segments) {
  const int around = std::max(segments, 8);
  const int rings = std::max(around / 2, 4);
  SurfaceMesh mesh;
  const auto add = [&](const Vec3& d) {
    mesh.vertices.push_back(support(shape, d));
    mesh.normals.push_back(d);
    return static_cast<std::uint32_t>(mesh.vertices.size() - 1);
  };
  // Offsetting the grid by half a cell keeps its directions off the axes, where the support of a
  // box or a cylinder's cap would be a tie between corners.
  const std::uint32_t north = add(Vec3::UnitZ());
  for (int i = 1; i < rings; ++i) {
    const double theta = std::numbers::pi * i / rings;
    for (int j = 0; j < around; ++j) {
      const double phi = 2.0 * std::numbers::pi * (j + 0.5) / around;
      add(Vec3(std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)));
    }
  }
  const std::uint32_t south = add(-Vec3::UnitZ());
  const auto at = [&](int ring, int j) {  // ring 1 … rings−1
    return static_cast<std::uint32_t>(1 + (ring - 1) * around + (j % around));
  };
  for (int j = 0; j < around; ++j) mesh.triangles.push_back({north, at(1, j), at(1, j + 1)});
  for (int i = 1; i + 1 < rings; ++i)
    for (int j = 0; j < around; ++j) {
      mesh.triangles.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      mesh.triangles.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
  for (int j = 0; j < around; ++j)
    mesh.triangles.push_back({south, at(rings - 1, j + 1), at(rings - 1, j)});
  return mesh;
}

SurfaceMesh hull_mesh(const ConvexHull& hull) {
  // Each face gets its own three vertices, so that its normal is the face's.
  SurfaceMesh mesh;
  for (std::uint32_t k = 0; k < hull.triangle_count; ++k) {
    const std::uint32_t* t = hull.triangles + 3 * k;
    const Vec3 n = hull.face_normals[k];
    for (int c = 0; c < 3; ++c) {
      mesh.vertices.push_back(hull.vertices[t[c]]);
      mesh.normals.push_back(n);
    }
    mesh.triangles.push_back({3 * k, 3 * k + 1, 3 * k + 2});
  }
  return mesh;
}

SurfaceMesh plane_patch(const Shape& shape, const TessellationOptions& options) {
  const Vec3 n = shape.normal.normalized();
  const Vec3 u = n.unitOrthogonal();
  const Vec3 v = n.cross(u);
  const Vec3 c = options.half_space_center - n.dot(options.half_space_center) * n;
  const double h = options.half_space_half_size_m;
  SurfaceMesh mesh;
  for (const auto& [a, b] : {std::pair{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}) {
    mesh.vertices.push_back(c + h * (a * u + b * v));
    mesh.normals.push_back(n);
  }
  mesh.triangles = {{0, 1, 2}, {0, 2, 3}};  // u × v = n: counter-clockwise seen from above
  return mesh;
}

}  // namespace

SurfaceMesh tessellate(const Shape& shape, const TessellationOptions& options) {
  switch (shape.type) {
    case ShapeType::half_space:
      return plane_patch(shape, options);
    case ShapeType::convex_hull:
      if (shape.hull && shape.hull->triangle_count > 0) return hull_mesh(*shape.hull);
      throw InputError("tessellate: a convex_hull shape without its hull data");
    default:
      return support_mesh(shape, options.segments);
  }
}

}  // namespace contactlab::core
