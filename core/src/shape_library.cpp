// Mass properties, convex hulls and mesh loading (see shape_library.hpp).
#include "contactlab/core/shape_library.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <numbers>
#include <sstream>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}
#include <tiny_obj_loader.h>

#include "contactlab/errors.hpp"

namespace contactlab::core {

namespace fs = std::filesystem;

namespace {

constexpr double pi = std::numbers::pi;

Mat3 diagonal(double xx, double yy, double zz) {
  return Vec3(xx, yy, zz).asDiagonal();
}

/// Axially symmetric solid along z with radius r(z) linear from r0 at z0 to r1 at z1: volume,
/// centroid height and inertia about the origin by 3-point Gauss–Legendre quadrature, exact here
/// because every integrand is a polynomial of degree ≤ 4.
MassProperties axial_solid(double r0, double z0, double r1, double z1, double density) {
  const double nodes[3] = {-std::sqrt(0.6), 0.0, std::sqrt(0.6)};
  const double weights[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
  const double half = 0.5 * (z1 - z0), mid = 0.5 * (z1 + z0);
  double volume = 0.0, moment_z = 0.0, i_zz = 0.0, i_xx = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double z = mid + half * nodes[k];
    const double t = (z - z0) / (z1 - z0);
    const double r = r0 + (r1 - r0) * t;
    const double w = weights[k] * half;
    const double area = pi * r * r;
    volume += w * area;
    moment_z += w * area * z;
    i_zz += w * 0.5 * pi * r * r * r * r;                    // disc: ½·r²·dm
    i_xx += w * (0.25 * pi * r * r * r * r + area * z * z);  // disc: ¼·r²·dm + z²·dm
  }
  MassProperties mass;
  mass.mass_kg = density * volume;
  const double z_c = moment_z / volume;
  mass.p_BCm = Vec3(0.0, 0.0, z_c);
  const double transverse = density * i_xx - mass.mass_kg * z_c * z_c;
  mass.inertia_Cm_B = diagonal(transverse, transverse, density * i_zz);
  return mass;
}

MassProperties hull_mass_properties(const ConvexHull& hull, double density) {
  // Tetrahedra from an interior point c0 to every outward boundary triangle (exact).
  const Vec3 c0 = hull.centroid;
  double volume = 0.0;
  Vec3 first = Vec3::Zero();
  Mat3 second = Mat3::Zero();  // ∫ x·xᵀ dV about c0
  for (std::uint32_t k = 0; k < hull.triangle_count; ++k) {
    const std::uint32_t* t = hull.triangles + 3 * k;
    const Vec3 a = hull.vertices[t[0]] - c0, b = hull.vertices[t[1]] - c0,
               c = hull.vertices[t[2]] - c0;
    const double det = a.dot(b.cross(c));
    volume += det / 6.0;
    first += det / 24.0 * (a + b + c);
    const Vec3 s = a + b + c;
    second += det / 120.0 *
              (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
  }
  MassProperties mass;
  mass.mass_kg = density * volume;
  const Vec3 com = first / volume;
  mass.p_BCm = c0 + com;
  const Mat3 covariance = density * (second - volume * com * com.transpose());
  mass.inertia_Cm_B = covariance.trace() * Mat3::Identity() - covariance;
  return mass;
}

}  // namespace

MassProperties shape_mass_properties(const Shape& shape, double density) {
  MassProperties mass;
  switch (shape.type) {
    case ShapeType::sphere: {
      const double r = shape.radius_m;
      mass.mass_kg = density * 4.0 / 3.0 * pi * r * r * r;
      mass.inertia_Cm_B = Mat3::Identity() * (0.4 * mass.mass_kg * r * r);
      break;
    }
    case ShapeType::box: {
      const Vec3 size = 2.0 * shape.half_extents_m;
      mass.mass_kg = density * size.prod();
      const Vec3 sq = size.cwiseProduct(size);
      mass.inertia_Cm_B =
          diagonal(sq.y() + sq.z(), sq.x() + sq.z(), sq.x() + sq.y()) * (mass.mass_kg / 12.0);
      break;
    }
    case ShapeType::ellipsoid: {
      const Vec3 a = shape.half_extents_m;
      mass.mass_kg = density * 4.0 / 3.0 * pi * a.prod();
      const Vec3 sq = a.cwiseProduct(a);
      mass.inertia_Cm_B =
          diagonal(sq.y() + sq.z(), sq.x() + sq.z(), sq.x() + sq.y()) * (mass.mass_kg / 5.0);
      break;
    }
    case ShapeType::cylinder:
      return axial_solid(shape.radius_m, -shape.half_length_m, shape.radius_m, shape.half_length_m,
                         density);
    case ShapeType::cone:
      return axial_solid(shape.radius_m, -shape.half_length_m, shape.top_radius_m,
                         shape.half_length_m, density);
    case ShapeType::capsule: {
      // Cylinder of length 2h plus two hemispheres whose flat faces sit at z = ±h.
      const double r = shape.radius_m, h = shape.half_length_m;
      const double m_cylinder = density * pi * r * r * 2.0 * h;
      const double m_half = density * 2.0 / 3.0 * pi * r * r * r;
      const double e = 3.0 * r / 8.0;  // hemisphere centroid from its flat face
      const double i_half_own = 0.4 * m_half * r * r - m_half * e * e;  // about its centroid
      const double transverse = m_cylinder * (3.0 * r * r + 4.0 * h * h) / 12.0 +
                                2.0 * (i_half_own + m_half * (h + e) * (h + e));
      mass.mass_kg = m_cylinder + 2.0 * m_half;
      mass.inertia_Cm_B =
          diagonal(transverse, transverse, 0.5 * m_cylinder * r * r + 2.0 * 0.4 * m_half * r * r);
      break;
    }
    case ShapeType::beam: {
      // Rectangle (L − W) × W plus two half discs of radius W/2, extruded over T along z.
      const double L = 2.0 * shape.half_extents_m.x(), W = 2.0 * shape.half_extents_m.y(),
                   T = 2.0 * shape.half_extents_m.z();
      const double a = L - W, rho = 0.5 * W;
      const double m_box = density * a * W * T;
      const double m_half = density * 0.5 * pi * rho * rho * T;
      const double e = 4.0 * rho / (3.0 * pi);  // half-disc centroid from its diameter
      // Half cylinder about axes through its circle centre: half of the full cylinder's values.
      const double half_xx = m_half * (3.0 * rho * rho + T * T) / 12.0;  // axis x (and y)
      const double half_zz = 0.5 * m_half * rho * rho;
      const double d = 0.5 * a + e;  // half's centroid from the beam centre along x
      const double i_xx = m_box * (W * W + T * T) / 12.0 + 2.0 * half_xx;
      const double i_yy =
          m_box * (a * a + T * T) / 12.0 + 2.0 * (half_xx - m_half * e * e + m_half * d * d);
      const double i_zz =
          m_box * (a * a + W * W) / 12.0 + 2.0 * (half_zz - m_half * e * e + m_half * d * d);
      mass.mass_kg = m_box + 2.0 * m_half;
      mass.inertia_Cm_B = diagonal(i_xx, i_yy, i_zz);
      break;
    }
    case ShapeType::convex_hull:
      return hull_mass_properties(*shape.hull, density);
    case ShapeType::half_space:
      mass.mass_kg = std::numeric_limits<double>::infinity();
      break;
  }
  return mass;
}

std::unique_ptr<HullStorage> build_convex_hull(const std::vector<Vec3>& points) {
  if (points.size() < 4)
    throw InputError("a convex hull needs at least 4 points that span a volume, got " +
                     std::to_string(points.size()));
  std::vector<coordT> coordinates;
  coordinates.reserve(3 * points.size());
  for (const Vec3& p : points) coordinates.insert(coordinates.end(), {p.x(), p.y(), p.z()});

  char* error_text = nullptr;
  std::size_t error_size = 0;
  FILE* error_stream = open_memstream(&error_text, &error_size);
  qhT qh_storage;
  qhT* qh = &qh_storage;
  QHULL_LIB_CHECK
  qh_zero(qh, error_stream);
  char options[] = "qhull Qt";
  const int exit_code = qh_new_qhull(qh, 3, static_cast<int>(points.size()), coordinates.data(),
                                     False, options, nullptr, error_stream);
  auto storage = std::make_unique<HullStorage>();
  storage->input_point_count = points.size();
  if (exit_code == 0) {
    std::vector<int> compact(points.size(), -1);
    vertexT* vertex;
    FORALLvertices {
      const int id = qh_pointid(qh, vertex->point);
      compact[id] = static_cast<int>(storage->vertices.size());
      storage->vertices.push_back(points[id]);
    }
    facetT* facet;
    FORALLfacets {
      std::array<std::uint32_t, 3> triangle{};
      int k = 0;
      vertexT** vertexp;
      FOREACHvertex_(facet->vertices) {
        if (k < 3) triangle[k] = static_cast<std::uint32_t>(compact[qh_pointid(qh, vertex->point)]);
        ++k;
      }
      const Vec3 normal(facet->normal[0], facet->normal[1], facet->normal[2]);
      const Vec3& a = storage->vertices[triangle[0]];
      const Vec3& b = storage->vertices[triangle[1]];
      const Vec3& c = storage->vertices[triangle[2]];
      if ((b - a).cross(c - a).dot(normal) < 0.0) std::swap(triangle[1], triangle[2]);
      storage->triangles.push_back(triangle);
      storage->face_normals.push_back(normal);
      storage->face_offsets.push_back(-facet->offset);  // qhull: n·x + offset = 0 on the plane
    }
  }
  int long_memory = 0, total_memory = 0;
  qh_freeqhull(qh, !qh_ALL);
  qh_memfreeshort(qh, &long_memory, &total_memory);
  std::fclose(error_stream);
  std::string reason = error_text ? std::string(error_text, error_size) : std::string();
  std::free(error_text);
  if (exit_code != 0) {
    // qhull's first lines say why (e.g. "initial simplex is flat").
    std::istringstream lines(reason);
    std::string first, line;
    while (std::getline(lines, line) && first.size() < 300)
      if (!line.empty()) first += (first.empty() ? "" : " ") + line;
    throw InputError(
        "the points do not span a volume (flat, collinear or repeated), so they "
        "have no convex hull: qhull: " +
        first.substr(0, 300));
  }

  // Vertex adjacency from the triangle edges, in compressed rows.
  std::vector<std::vector<std::uint32_t>> adjacency(storage->vertices.size());
  double shortest = std::numeric_limits<double>::infinity();
  for (const auto& t : storage->triangles)
    for (int e = 0; e < 3; ++e) {
      const std::uint32_t i = t[e], j = t[(e + 1) % 3];
      adjacency[i].push_back(j);
      adjacency[j].push_back(i);
      shortest = std::min(shortest, (storage->vertices[i] - storage->vertices[j]).norm());
    }
  storage->neighbor_offsets.push_back(0);
  for (auto& list : adjacency) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    storage->neighbors.insert(storage->neighbors.end(), list.begin(), list.end());
    storage->neighbor_offsets.push_back(static_cast<std::uint32_t>(storage->neighbors.size()));
  }
  storage->shortest_edge_m = shortest;
  // The faces around each vertex, in compressed rows (face k is triangle k).
  storage->vertex_face_offsets.assign(storage->vertices.size() + 1, 0);
  for (const auto& t : storage->triangles)
    for (const std::uint32_t i : t) ++storage->vertex_face_offsets[i + 1];
  for (std::size_t i = 0; i < storage->vertices.size(); ++i)
    storage->vertex_face_offsets[i + 1] += storage->vertex_face_offsets[i];
  storage->vertex_faces.resize(storage->vertex_face_offsets.back());
  {
    std::vector<std::uint32_t> fill(storage->vertex_face_offsets.begin(),
                                    storage->vertex_face_offsets.end() - 1);
    for (std::size_t k = 0; k < storage->triangles.size(); ++k)
      for (const std::uint32_t i : storage->triangles[k])
        storage->vertex_faces[fill[i]++] = static_cast<std::uint32_t>(k);
  }
  storage->interior_point_count = points.size() - storage->vertices.size();

  ConvexHull& hull = storage->hull;
  hull.vertices = storage->vertices.data();
  hull.vertex_count = static_cast<std::uint32_t>(storage->vertices.size());
  hull.neighbor_offsets = storage->neighbor_offsets.data();
  hull.neighbors = storage->neighbors.data();
  hull.face_normals = storage->face_normals.data();
  hull.face_offsets = storage->face_offsets.data();
  hull.face_count = static_cast<std::uint32_t>(storage->face_normals.size());
  static_assert(sizeof(std::array<std::uint32_t, 3>) == 3 * sizeof(std::uint32_t));
  hull.triangles = reinterpret_cast<const std::uint32_t*>(storage->triangles.data());
  hull.triangle_count = static_cast<std::uint32_t>(storage->triangles.size());
  hull.vertex_face_offsets = storage->vertex_face_offsets.data();
  hull.vertex_faces = storage->vertex_faces.data();
  Vec3 mean = Vec3::Zero();
  for (const Vec3& v : storage->vertices) mean += v;
  hull.centroid = mean / static_cast<double>(storage->vertices.size());
  // The volume centroid (not the vertex mean) is the interior point the narrow phases start from.
  hull.centroid = hull_mass_properties(hull, 1.0).p_BCm;
  return storage;
}

namespace {

std::vector<Vec3> load_stl(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<Vec3> vertices;
  if (bytes.size() >= 84) {
    std::uint32_t count = 0;
    std::memcpy(&count, bytes.data() + 80, 4);
    if (bytes.size() == 84 + 50ull * count) {
      for (std::uint32_t t = 0; t < count; ++t)
        for (int v = 0; v < 3; ++v) {
          float xyz[3];
          std::memcpy(xyz, bytes.data() + 84 + 50ull * t + 12 + 12 * v, 12);
          vertices.emplace_back(xyz[0], xyz[1], xyz[2]);
        }
      return vertices;
    }
  }
  // ASCII: "solid … facet normal … outer loop vertex x y z … endloop endfacet … endsolid".
  std::istringstream text(std::string(bytes.begin(), bytes.end()));
  std::string word;
  while (text >> word) {
    if (word != "vertex") continue;
    double x, y, z;
    if (!(text >> x >> y >> z))
      throw InputError("STL file '" + file.string() + "' has a malformed vertex line");
    vertices.emplace_back(x, y, z);
  }
  if (vertices.empty())
    throw InputError("STL file '" + file.string() +
                     "' has no triangles (neither binary STL nor ASCII 'vertex' lines)");
  return vertices;
}

std::vector<Vec3> load_obj(const fs::path& file) {
  tinyobj::ObjReaderConfig config;
  config.triangulate = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(file.string(), config))
    throw InputError("OBJ file '" + file.string() + "' cannot be read: " + reader.Error());
  const auto& raw = reader.GetAttrib().vertices;
  std::vector<Vec3> vertices;
  for (std::size_t i = 0; i + 2 < raw.size(); i += 3)
    vertices.emplace_back(raw[i], raw[i + 1], raw[i + 2]);
  if (vertices.empty()) throw InputError("OBJ file '" + file.string() + "' has no vertices");
  return vertices;
}

}  // namespace

std::vector<Vec3> load_mesh_vertices(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw InputError("cannot open mesh file '" + file.string() + "': no such file");
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".obj") return load_obj(file);
  if (extension == ".stl") return load_stl(file);
  throw InputError("mesh file '" + file.string() + "' has an unknown format '" + extension +
                   "' (supported: .obj, .stl)");
}

}  // namespace contactlab::core
