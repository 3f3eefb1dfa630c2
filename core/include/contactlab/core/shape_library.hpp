// Shape services of the host: mass properties of every shape, convex hulls (qhull) and meshes
// (OBJ via tinyobjloader, STL) that the hull shapes are built from.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "contactlab/shapes.hpp"

namespace contactlab::core {

struct MassProperties {
  double mass_kg = 0.0;
  Vec3 p_BCm = Vec3::Zero();         ///< centre of mass in the body (or geometry) frame [m]
  Mat3 inertia_Cm_B = Mat3::Zero();  ///< inertia about the COM, body (or geometry) axes [kg·m²]
};

/// Mass properties of a shape of uniform density in its geometry frame G: closed forms for the
/// primitives, exact polyhedral integration for hulls; a half-space has infinite mass.
MassProperties shape_mass_properties(const Shape& shape, double density_kg_per_m3);

/// The arrays behind a ConvexHull. Never moved after construction (held by unique_ptr), so the
/// ConvexHull's pointers stay valid.
struct HullStorage {
  std::vector<Vec3> vertices;
  std::vector<std::uint32_t> neighbor_offsets;
  std::vector<std::uint32_t> neighbors;
  std::vector<Vec3> face_normals;
  std::vector<double> face_offsets;
  std::vector<std::array<std::uint32_t, 3>> triangles;  ///< outward-oriented boundary triangles
  std::vector<std::uint32_t> vertex_face_offsets;       ///< faces around each vertex (rows)
  std::vector<std::uint32_t> vertex_faces;
  std::size_t input_point_count = 0;
  std::size_t interior_point_count = 0;  ///< input points strictly inside the hull
  double shortest_edge_m = 0.0;
  ConvexHull hull;
};

/// Builds the convex hull of `points` (G frame) with qhull. Throws InputError for fewer than four
/// points or a degenerate (flat or collinear) set, with qhull's reason.
std::unique_ptr<HullStorage> build_convex_hull(const std::vector<Vec3>& points);

/// The vertices of a mesh file: Wavefront OBJ (tinyobjloader) or STL (binary or ASCII), by
/// extension. Throws InputError for a missing or unreadable file or an unknown format.
std::vector<Vec3> load_mesh_vertices(const std::filesystem::path& file);

}  // namespace contactlab::core
