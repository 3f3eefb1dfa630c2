// A geometry's `shape:` (bodies[].geometry[].shape): `type` (sphere, box, half_space, ellipsoid,
// cylinder, cone, frustum, capsule, beam, convex_hull) and its dimensions, and the optional
// `smoothing_radius_m`. Errors: a missing or unknown type, a length that is not > 0, a zero
// normal, a beam wider than long, a convex_hull without exactly one of points_m and file (or a
// mesh that cannot be read or hulled), a smoothing radius on a shape without edges or above 10%
// of its smallest dimension. A convex_hull of points that are not convex gives a warning.
#include <algorithm>
#include <cmath>

#include "scene_sections.hpp"

namespace contactlab::core::scene_sections {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> shape_types = {"sphere",   "box",        "half_space", "ellipsoid",
                                              "cylinder", "cone",       "frustum",    "capsule",
                                              "beam",     "convex_hull"};

double positive(MapReader& reader, const std::string& key) {
  return reader.real_in(key, 0.0, infinity, true);
}

Vec3 positive_size(MapReader& reader, const std::string& key) {
  ConfigNode& node = reader.required(key);
  const Vec3 size = as_vec3(node);
  if (!(size.minCoeff() > 0.0)) fail_at(node, "every length must be > 0 m");
  return size;
}

/// Points of a convex_hull: `points_m: [[x, y, z], ...]` or `file: mesh.obj|.stl` with `scale`.
std::vector<Vec3> read_hull_points(MapReader& reader, ConfigNode& node,
                                   const fs::path& base_directory, std::string& source) {
  const bool inline_points = reader.has("points_m");
  const bool from_file = reader.has("file");
  if (inline_points == from_file)
    fail_at(node,
            "a convex_hull needs exactly one of points_m (a list of [x, y, z]) or file "
            "(an .obj or .stl mesh)");
  std::vector<Vec3> points;
  if (inline_points) {
    ConfigNode& list = reader.required("points_m");
    if (!list.is_sequence()) fail_at(list, "must be a list of points [x, y, z]");
    for (std::size_t i = 0; i < list.size(); ++i) points.push_back(as_vec3(list.at(i)));
    source = "points_m";
    return points;
  }
  ConfigNode& file_node = reader.required("file");
  fs::path file = as_string(file_node);
  if (file.is_relative()) file = base_directory / file;
  const double scale = reader.real_in_or("scale", 1.0, 0.0, infinity, true);
  try {
    points = load_mesh_vertices(file);
  } catch (const InputError& e) {
    fail_at(file_node, e.what());
  }
  for (Vec3& p : points) p *= scale;
  source = file.string();
  return points;
}

}  // namespace

Shape read_shape(ConfigNode& node, Scene& scene, const fs::path& base_directory) {
  MapReader reader(node);
  if (!reader.has("type"))
    fail_at(node,
            "missing required key 'type' (one of sphere, box, half_space, ellipsoid, "
            "cylinder, cone, frustum, capsule, beam, convex_hull)");
  const std::string type = reader.choice_or("type", "sphere", shape_types);
  Shape shape;
  double smallest_dimension = infinity;  // for the smoothing-radius limit
  if (type == "sphere") {
    shape = Shape::sphere(positive(reader, "radius_m"));
  } else if (type == "box") {
    const Vec3 size = positive_size(reader, "size_m");
    shape = Shape::box(0.5 * size);
    smallest_dimension = size.minCoeff();
  } else if (type == "half_space") {
    const Vec3 normal = reader.vec3_or("normal", Vec3::UnitZ());
    if (normal.norm() < 1e-12) fail_at(reader.required("normal"), "the normal has zero length");
    shape = Shape::half_space(normal);
  } else if (type == "ellipsoid") {
    const Vec3 size = positive_size(reader, "size_m");  // full lengths (diameters)
    shape = Shape::ellipsoid(0.5 * size);
  } else if (type == "cylinder") {
    const double radius = positive(reader, "radius_m"), length = positive(reader, "length_m");
    shape = Shape::cylinder(radius, length);
    smallest_dimension = std::min(2.0 * radius, length);
  } else if (type == "cone" || type == "frustum") {
    const double radius = positive(reader, "radius_m"), length = positive(reader, "length_m");
    const double top = type == "frustum" ? reader.real_in("top_radius_m", 0.0, radius, true)
                                         : reader.real_in_or("top_radius_m", 0.0, 0.0, radius);
    shape = Shape::cone(radius, top, length);
    smallest_dimension = std::min(2.0 * radius, length);
  } else if (type == "capsule") {
    shape = Shape::capsule(positive(reader, "radius_m"), reader.real_in("length_m", 0.0, infinity));
  } else if (type == "beam") {
    const double length = positive(reader, "length_m"), width = positive(reader, "width_m"),
                 thickness = positive(reader, "thickness_m");
    if (width > length)
      fail_at(reader.required("width_m"),
              "a beam's width (the diameter of its round ends) must "
              "not exceed its length");
    shape = Shape::beam(length, width, thickness);
    smallest_dimension = std::min({length, width, thickness});
  } else if (type == "convex_hull") {
    std::string source;
    const std::vector<Vec3> points = read_hull_points(reader, node, base_directory, source);
    std::unique_ptr<HullStorage> storage;
    try {
      storage = build_convex_hull(points);
    } catch (const InputError& e) {
      fail_at(node, std::string(e.what()) + " (from " + source + ")");
    }
    if (storage->interior_point_count > 0)
      scene.warnings.push_back(node.location().str() + ": " + source + " is not convex (" +
                               std::to_string(storage->interior_point_count) + " of " +
                               std::to_string(points.size()) +
                               " points lie inside): using its convex hull");
    shape = Shape::convex_hull(&storage->hull);
    shape.contact_radius_m = 0.5 * storage->shortest_edge_m;  // Neumayr (2025) table 7.1
    scene.hulls.push_back(std::move(storage));
  }
  if (ConfigNode* smoothing = reader.optional("smoothing_radius_m")) {
    const double r = as_real(*smoothing);
    if (std::isinf(smallest_dimension))
      fail_at(*smoothing, "smoothing_radius_m applies to box, cylinder, cone, frustum and beam");
    // Neumayr (2025) §6.2.2: at most 10% of the smallest dimension.
    check_range(*smoothing, r, 0.0, 0.1 * smallest_dimension, false, false, "m");
    shape.smoothing_radius_m = r;
  }
  reader.finish();
  return shape;
}

}  // namespace contactlab::core::scene_sections
