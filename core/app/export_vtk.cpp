#include "contactlab/core/export_vtk.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "contactlab/core/experiment.hpp"
#include "contactlab/core/run_files.hpp"
#include "contactlab/core/tessellation.hpp"
#include "contactlab/errors.hpp"

namespace contactlab::core {
namespace fs = std::filesystem;

namespace {

// --- VTK XML, inline binary ------------------------------------------------------------------
// Each array is base64 of its byte count (a UInt64, header_type="UInt64") followed by its
// values, the two in one base64 block: what vtkXMLWriter writes uncompressed in binary mode.
// Float64 throughout, so that the points are the trajectory's doubles transformed, not rounded.

const char* byte_order() {
  return std::endian::native == std::endian::little ? "LittleEndian" : "BigEndian";
}

std::string base64(const unsigned char* data, std::size_t size) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const std::uint32_t v = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    out += alphabet[v & 63];
  }
  if (i < size) {
    const bool two = i + 1 < size;
    const std::uint32_t v = (data[i] << 16) | (two ? data[i + 1] << 8 : 0);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += two ? alphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string encoded(const void* values, std::size_t bytes) {
  std::vector<unsigned char> block(sizeof(std::uint64_t) + bytes);
  const std::uint64_t count = bytes;
  std::memcpy(block.data(), &count, sizeof(count));
  if (bytes) std::memcpy(block.data() + sizeof(count), values, bytes);
  return base64(block.data(), block.size());
}

template <class T>
std::string data_array(const char* type, const std::string& name, int components,
                       const std::vector<T>& values) {
  return "<DataArray type=\"" + std::string(type) + "\" Name=\"" + name +
         "\" NumberOfComponents=\"" + std::to_string(components) + "\" NumberOfTuples=\"" +
         std::to_string(values.size() / components) + "\" format=\"binary\">\n" +
         encoded(values.data(), values.size() * sizeof(T)) + "\n</DataArray>\n";
}

std::string float64_array(const std::string& name, int components,
                          const std::vector<double>& values) {
  return data_array("Float64", name, components, values);
}

/// A string array (field data): the strings' bytes, each followed by a 0.
std::string string_array(const std::string& name, const std::vector<std::string>& strings) {
  std::string bytes;
  for (const std::string& s : strings) bytes += s + '\0';
  return "<Array type=\"String\" Name=\"" + name + "\" NumberOfTuples=\"" +
         std::to_string(strings.size()) + "\" format=\"binary\">\n" +
         encoded(bytes.data(), bytes.size()) + "\n</Array>\n";
}

std::string number_text(double value) {
  char buffer[32];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof(buffer), value).ptr);
}

/// One PolyData file: `field` (FieldData arrays), `piece_counts` (the Piece's attributes),
/// `body` (its PointData, CellData, Points and cells).
std::string polydata_file(const std::string& field, const std::string& piece_counts,
                          const std::string& body) {
  return std::string("<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" ") +
         "byte_order=\"" + byte_order() + "\" header_type=\"UInt64\">\n<PolyData>\n<FieldData>\n" +
         field + "</FieldData>\n<Piece " + piece_counts + ">\n" + body +
         "</Piece>\n</PolyData>\n</VTKFile>\n";
}

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw InputError("export: cannot write '" + file.string() + "'");
}

/// A ParaView collection: one DataSet per time step.
std::string pvd_file(const std::vector<double>& times, const std::vector<std::string>& files) {
  std::string xml = std::string("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" ") +
                    "version=\"0.1\" byte_order=\"" + byte_order() + "\">\n<Collection>\n";
  for (std::size_t i = 0; i < times.size(); ++i)
    xml += "  <DataSet timestep=\"" + number_text(times[i]) + "\" group=\"\" part=\"0\" file=\"" +
           files[i] + "\"/>\n";
  return xml + "</Collection>\n</VTKFile>\n";
}

// --- the run ---------------------------------------------------------------------------------

std::string run_status(const fs::path& directory) {
  std::ifstream in(directory / "summary.json");
  if (!in)
    throw InputError("export: '" + directory.string() +
                     "' is not a run directory (it has no summary.json)");
  try {
    return nlohmann::json::parse(in).value("status", std::string("unknown"));
  } catch (const nlohmann::json::exception& e) {
    throw InputError("export: " + (directory / "summary.json").string() + ": " + e.what());
  }
}

void require_file(const fs::path& directory, const char* name) {
  std::error_code error;
  if (!fs::is_regular_file(directory / name, error))
    throw InputError("export: '" + directory.string() + "' is not a run directory (it has no " +
                     name + ")");
}

/// The experiment's name as a file name: letters, digits, '-', '_' and '.'; others become '_'.
std::string file_stem(const std::string& name) {
  std::string stem;
  for (char c : name)
    stem +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_';
  return stem.empty() || stem[0] == '.' ? "run" + stem : stem;
}

std::string frame_name(const char* kind, std::size_t k) {
  std::string digits = std::to_string(k);
  if (digits.size() < 6) digits.insert(0, 6 - digits.size(), '0');
  return std::string(kind) + "_" + digits + ".vtp";
}

/// Removes the frame files of an earlier export from `folder` (only names this export writes),
/// so that a shorter export leaves none behind.
void remove_old_frames(const fs::path& folder) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    const bool ours = (name.rfind("bodies_", 0) == 0 || name.rfind("contacts_", 0) == 0) &&
                      entry.path().extension() == ".vtp";
    if (ours) fs::remove(entry.path(), error);
  }
}

struct Bounds {
  Vec3 min = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 max = -Vec3::Constant(std::numeric_limits<double>::infinity());
  void add_sphere(const Vec3& c, double r) {
    min = min.cwiseMin(c - Vec3::Constant(r));
    max = max.cwiseMax(c + Vec3::Constant(r));
  }
  bool empty() const { return !(min.x() <= max.x()); }
};

/// 2 → "2nd", 11 → "11th", 23 → "23rd".
std::string ordinal(std::size_t n) {
  const std::size_t tens = n % 100, ones = n % 10;
  const char* suffix = tens >= 11 && tens <= 13 ? "th"
                       : ones == 1              ? "st"
                       : ones == 2              ? "nd"
                       : ones == 3              ? "rd"
                                                : "th";
  return std::to_string(n) + suffix;
}

}  // namespace

VtkExportOutcome export_vtk(const fs::path& directory, PluginRegistry& registry,
                            const VtkExportOptions& options) {
  VtkExportOutcome outcome;
  std::error_code error;
  if (!fs::is_directory(directory, error))
    throw InputError("export: '" + directory.string() + "' is not a directory");
  outcome.status = run_status(directory);
  require_file(directory, "config.resolved.yaml");
  require_file(directory, "trajectory.csv");
  const Scene scene = load_experiment(directory / "config.resolved.yaml", {}, registry);
  const Trajectory trajectory = read_trajectory(directory / "trajectory.csv");
  if (trajectory.frame_count() == 0)
    throw InputError("export: " + (directory / "trajectory.csv").string() +
                     " has no rows (the run stopped before its first output)");
  std::vector<ContactRow> contacts;
  if (fs::is_regular_file(directory / "contacts.csv", error))
    contacts = read_contacts(directory / "contacts.csv");
  else
    outcome.warnings.push_back("export: " + directory.string() +
                               " has no contacts.csv: the contact files are empty");
  if (outcome.status != "complete")
    outcome.warnings.push_back("export: the run is " + outcome.status +
                               " (summary.json): exporting the " +
                               std::to_string(trajectory.frame_count()) + " output times it wrote");
  if (trajectory.incomplete_rows > 0)
    outcome.warnings.push_back("export: dropped the cut-short last row of " +
                               (directory / "trajectory.csv").string());

  // Which trajectory column holds each moving body.
  std::vector<std::size_t> column(scene.bodies.size(), trajectory.bodies.size());
  for (std::size_t b = 0; b < scene.bodies.size(); ++b) {
    if (!scene.bodies[b].moves()) continue;
    column[b] = trajectory.body_index(scene.bodies[b].name);
    if (column[b] == trajectory.bodies.size())
      throw InputError("export: body '" + scene.bodies[b].name +
                       "' of config.resolved.yaml is not in " +
                       (directory / "trajectory.csv").string());
  }
  const auto body_pose = [&](std::size_t b, std::size_t frame) {
    const BodyModel& body = scene.bodies[b];
    return body.moves() ? body_frame_pose(trajectory.state(frame, column[b]), body.mass.p_BCm)
                        : body.X_WB_initial;
  };

  // Output times kept: every N-th and the last.
  outcome.output_times = trajectory.frame_count();
  const std::size_t every = std::max<std::size_t>(options.every, 1);
  std::vector<std::size_t> frames;
  for (std::size_t i = 0; i < outcome.output_times; i += every) frames.push_back(i);
  if (frames.back() != outcome.output_times - 1) frames.push_back(outcome.output_times - 1);
  outcome.frames = frames.size();

  // Surfaces in G; each body's reach about its frame origin bounds where the bodies go.
  TessellationOptions tessellation;
  tessellation.segments = options.segments;
  std::vector<SurfaceMesh> meshes(scene.geometries.size());
  std::vector<double> reach(scene.bodies.size(), 0.0);
  for (std::size_t g = 0; g < scene.geometries.size(); ++g) {
    const GeometryModel& geometry = scene.geometries[g];
    if (geometry.shape.type == ShapeType::half_space) continue;
    meshes[g] = tessellate(geometry.shape, tessellation);
    for (const Vec3& v : meshes[g].vertices)
      reach[geometry.body] =
          std::max(reach[geometry.body], geometry.X_BG.transform_point(v).norm());
  }
  Bounds bounds;
  for (std::size_t b = 0; b < scene.bodies.size(); ++b) {
    if (scene.bodies[b].moves())
      for (std::size_t i = 0; i < outcome.output_times; ++i)
        bounds.add_sphere(body_pose(b, i).p, reach[b]);
    else if (reach[b] > 0.0)
      bounds.add_sphere(scene.bodies[b].X_WB_initial.p, reach[b]);
  }
  if (bounds.empty()) bounds.add_sphere(Vec3::Zero(), 1.0);
  const double extent = std::max((bounds.max - bounds.min).norm(), 1e-3);
  // A half-space is a square patch of its plane centred under the bounds: its half side, 0.6 of
  // the bounds' diagonal, covers their shadow (within half the diagonal of the centre) with room.
  for (std::size_t g = 0; g < scene.geometries.size(); ++g) {
    const GeometryModel& geometry = scene.geometries[g];
    if (geometry.shape.type != ShapeType::half_space) continue;
    const Pose X_WG = body_pose(geometry.body, 0) * geometry.X_BG;
    TessellationOptions patch = tessellation;
    patch.half_space_half_size_m = 0.6 * extent;
    patch.half_space_center = X_WG.inverse().transform_point(0.5 * (bounds.min + bounds.max));
    meshes[g] = tessellate(geometry.shape, patch);
  }

  // What every bodies file shares: the names, the cells and their data.
  std::vector<std::string> body_names, geometry_names;
  std::map<std::string, int> geometry_index;
  for (const BodyModel& body : scene.bodies) body_names.push_back(body.name);
  for (std::size_t g = 0; g < scene.geometries.size(); ++g) {
    geometry_names.push_back(scene.geometries[g].name);
    geometry_index.emplace(scene.geometries[g].name, int(g));
  }
  // Int32 indices: half the bytes of Int64 in every frame; 2^31 corners are far beyond what a
  // scene's surfaces come to, but say so rather than wrap around.
  std::size_t corners = 0;
  for (const SurfaceMesh& mesh : meshes) corners += 3 * mesh.triangles.size();
  if (corners > std::size_t(std::numeric_limits<std::int32_t>::max()))
    throw InputError(
        "export: the surfaces have too many triangles for one file (lower --segments)");
  std::vector<std::int32_t> connectivity, offsets;
  std::vector<std::int32_t> cell_body, cell_geometry;
  std::vector<std::uint8_t> cell_moving;
  std::size_t point_count = 0;
  for (std::size_t g = 0; g < scene.geometries.size(); ++g) {
    for (const auto& t : meshes[g].triangles) {
      for (std::uint32_t k : t) connectivity.push_back(std::int32_t(point_count + k));
      offsets.push_back(std::int32_t(connectivity.size()));
      cell_body.push_back(std::int32_t(scene.geometries[g].body));
      cell_geometry.push_back(std::int32_t(g));
      cell_moving.push_back(scene.bodies[scene.geometries[g].body].moves() ? 1 : 0);
    }
    point_count += meshes[g].vertices.size();
  }
  const std::string names_xml =
      string_array("body_names", body_names) + string_array("geometry_names", geometry_names);
  const std::string bodies_counts = "NumberOfPoints=\"" + std::to_string(point_count) +
                                    "\" NumberOfVerts=\"0\" NumberOfLines=\"0\" "
                                    "NumberOfStrips=\"0\" NumberOfPolys=\"" +
                                    std::to_string(offsets.size()) + "\"";
  const std::string bodies_cells = "<CellData Scalars=\"body_index\">\n" +
                                   data_array("Int32", "body_index", 1, cell_body) +
                                   data_array("Int32", "geometry_index", 1, cell_geometry) +
                                   data_array("UInt8", "moving", 1, cell_moving) + "</CellData>\n";
  const std::string bodies_polys = "<Polys>\n" +
                                   data_array("Int32", "connectivity", 1, connectivity) +
                                   data_array("Int32", "offsets", 1, offsets) + "</Polys>\n";

  // Contact rows by output time: contacts.csv writes the trajectory's times digit for digit.
  std::vector<std::pair<std::size_t, std::size_t>> rows_of(outcome.output_times, {0, 0});
  std::size_t unmatched = 0;
  for (std::size_t r = 0; r < contacts.size();) {
    const double t = contacts[r].time_s;
    std::size_t end = r;
    while (end < contacts.size() && contacts[end].time_s == t) ++end;
    const auto it = std::lower_bound(trajectory.times_s.begin(), trajectory.times_s.end(), t);
    if (it != trajectory.times_s.end() && *it == t)
      rows_of[std::size_t(it - trajectory.times_s.begin())] = {r, end};
    else
      unmatched += end - r;
    r = end;
  }
  if (unmatched > 0)
    outcome.warnings.push_back("export: " + std::to_string(unmatched) +
                               " rows of contacts.csv at no output time of trajectory.csv "
                               "(left out)");

  const fs::path out = options.out.empty() ? directory / "vtk" : options.out;
  const std::string stem = file_stem(scene.name);
  const fs::path folder = out / stem;
  fs::create_directories(folder, error);
  if (error)
    throw InputError("export: cannot create '" + folder.string() + "': " + error.message());
  remove_old_frames(folder);

  std::vector<double> times;
  std::vector<std::string> bodies_files, contacts_files;
  std::vector<double> points, normals;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const std::size_t frame = frames[k];
    const double t = trajectory.times_s[frame];
    times.push_back(t);
    const std::string time_xml = float64_array("TimeValue", 1, {t});

    points.clear();
    normals.clear();
    for (std::size_t g = 0; g < scene.geometries.size(); ++g) {
      const Pose X_WG = body_pose(scene.geometries[g].body, frame) * scene.geometries[g].X_BG;
      for (std::size_t v = 0; v < meshes[g].vertices.size(); ++v) {
        const Vec3 p = X_WG.transform_point(meshes[g].vertices[v]);
        const Vec3 n = X_WG.transform_vector(meshes[g].normals[v]);
        points.insert(points.end(), {p.x(), p.y(), p.z()});
        normals.insert(normals.end(), {n.x(), n.y(), n.z()});
      }
    }
    const std::string bodies_body =
        "<PointData Normals=\"normals\">\n" + float64_array("normals", 3, normals) +
        "</PointData>\n" + bodies_cells + "<Points>\n" + float64_array("Points", 3, points) +
        "</Points>\n" + bodies_polys;
    bodies_files.push_back(stem + "/" + frame_name("bodies", k));
    write_text(out / bodies_files.back(),
               polydata_file(time_xml + names_xml, bodies_counts, bodies_body));

    // Contacts: a point set (one vertex cell per point) with the row's values.
    const auto [first, last] = rows_of[frame];
    const std::size_t n = last - first;
    outcome.contact_points += n;
    std::vector<double> position, normal, force_n, tangential, force, distance;
    std::vector<std::int32_t> geometry_a, geometry_b;
    std::vector<std::int32_t> vert_connectivity, vert_offsets;
    for (std::size_t r = first; r < last; ++r) {
      const ContactRow& c = contacts[r];
      const Vec3 total = c.normal_force_N * c.normal + c.tangential_force_N;
      position.insert(position.end(), {c.point_m.x(), c.point_m.y(), c.point_m.z()});
      normal.insert(normal.end(), {c.normal.x(), c.normal.y(), c.normal.z()});
      force_n.push_back(c.normal_force_N);
      tangential.insert(tangential.end(), {c.tangential_force_N.x(), c.tangential_force_N.y(),
                                           c.tangential_force_N.z()});
      force.insert(force.end(), {total.x(), total.y(), total.z()});
      distance.push_back(c.distance_m);
      const auto a = geometry_index.find(c.geometry_a), b = geometry_index.find(c.geometry_b);
      geometry_a.push_back(a == geometry_index.end() ? -1 : a->second);
      geometry_b.push_back(b == geometry_index.end() ? -1 : b->second);
      vert_connectivity.push_back(std::int32_t(r - first));
      vert_offsets.push_back(std::int32_t(r - first + 1));
    }
    const std::string contacts_counts = "NumberOfPoints=\"" + std::to_string(n) +
                                        "\" NumberOfVerts=\"" + std::to_string(n) +
                                        "\" NumberOfLines=\"0\" NumberOfStrips=\"0\" "
                                        "NumberOfPolys=\"0\"";
    const std::string contacts_body =
        "<PointData Scalars=\"normal_force_N\" Vectors=\"force_N\">\n" +
        float64_array("normal", 3, normal) + float64_array("normal_force_N", 1, force_n) +
        float64_array("tangential_force_N", 3, tangential) + float64_array("force_N", 3, force) +
        float64_array("distance_m", 1, distance) +
        data_array("Int32", "geometry_a", 1, geometry_a) +
        data_array("Int32", "geometry_b", 1, geometry_b) + "</PointData>\n<CellData>\n" +
        "</CellData>\n<Points>\n" + float64_array("Points", 3, position) + "</Points>\n" +
        "<Verts>\n" + data_array("Int32", "connectivity", 1, vert_connectivity) +
        data_array("Int32", "offsets", 1, vert_offsets) + "</Verts>\n";
    contacts_files.push_back(stem + "/" + frame_name("contacts", k));
    write_text(out / contacts_files.back(),
               polydata_file(time_xml + string_array("geometry_names", geometry_names),
                             contacts_counts, contacts_body));
  }
  outcome.bodies_pvd = out / (stem + "_bodies.pvd");
  outcome.contacts_pvd = out / (stem + "_contacts.pvd");
  write_text(outcome.bodies_pvd, pvd_file(times, bodies_files));
  write_text(outcome.contacts_pvd, pvd_file(times, contacts_files));
  return outcome;
}

int export_run(const fs::path& directory, bool vtk, PluginRegistry& registry,
               const VtkExportOptions& options) {
  if (!vtk) throw InputError("export: say which format: --vtk (ParaView's VTK XML files)");
  const VtkExportOutcome outcome = export_vtk(directory, registry, options);
  for (const std::string& warning : outcome.warnings) std::cerr << "warning: " << warning << '\n';
  std::cout << outcome.bodies_pvd.string() << '\n'
            << outcome.contacts_pvd.string() << '\n'
            << "vtk: " << outcome.frames << " time steps";
  if (outcome.frames < outcome.output_times)
    std::cout << " (every " << ordinal(std::max<std::size_t>(options.every, 1)) << " of "
              << outcome.output_times << " output times, and the last)";
  std::cout << ", " << outcome.contact_points << " contact points; open both in ParaView\n";
  return 0;
}

}  // namespace contactlab::core
