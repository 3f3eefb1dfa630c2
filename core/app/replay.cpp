#include "contactlab/core/replay.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "contactlab/core/experiment.hpp"
#include "contactlab/core/run_files.hpp"
#include "contactlab/core/tessellation.hpp"
#include "contactlab/errors.hpp"

namespace contactlab::core {
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError("view: cannot read '" + file.string() + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The page's numbers: floats in shortest form (what WebGL draws with; a third of the bytes of
/// full doubles), times as doubles so that frames keep their exact output times.
class JsonNumbers {
 public:
  explicit JsonNumbers(std::string& out) : out_(out) {}
  void add(float value) {
    separate();
    if (!std::isfinite(value)) value = 0.0F;
    char buffer[32];
    out_.append(buffer, std::to_chars(buffer, buffer + sizeof(buffer), value).ptr);
  }
  void add_double(double value) {
    separate();
    char buffer[32];
    out_.append(buffer, std::to_chars(buffer, buffer + sizeof(buffer), value).ptr);
  }
  void add(std::size_t value) {
    separate();
    out_ += std::to_string(value);
  }
  void add(const Vec3& v) {
    for (int k = 0; k < 3; ++k) add(static_cast<float>(v[k]));
  }

 private:
  void separate() {
    if (!first_) out_ += ',';
    first_ = false;
  }
  std::string& out_;
  bool first_ = true;
};

std::string pose_json(const Pose& X) {
  const Eigen::Quaterniond q(X.R);
  nlohmann::json pose = {{"p", {X.p.x(), X.p.y(), X.p.z()}}, {"q", {q.w(), q.x(), q.y(), q.z()}}};
  return pose.dump();
}

struct Bounds {
  Vec3 min = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 max = -Vec3::Constant(std::numeric_limits<double>::infinity());
  void add(const Vec3& p) {
    min = min.cwiseMin(p);
    max = max.cwiseMax(p);
  }
  void add_sphere(const Vec3& c, double r) {
    add(c - Vec3::Constant(r));
    add(c + Vec3::Constant(r));
  }
  bool empty() const { return !(min.x() <= max.x()); }
};

std::string run_status(const fs::path& directory) {
  std::ifstream in(directory / "summary.json");
  if (!in)
    throw InputError("view: '" + directory.string() +
                     "' is not a run directory (it has no summary.json)");
  try {
    const nlohmann::json summary = nlohmann::json::parse(in);
    return summary.value("status", std::string("unknown"));
  } catch (const nlohmann::json::exception& e) {
    throw InputError("view: " + (directory / "summary.json").string() + ": " + e.what());
  }
}

}  // namespace

fs::path find_replay_assets() {
  std::vector<fs::path> places;
  if (const char* given = std::getenv("CONTACTLAB_REPLAY_DIR"); given && *given)
    places.emplace_back(given);
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (!error)
    places.push_back((executable.parent_path() / ".." / CONTACTLAB_DATA_SUBDIR).lexically_normal());
  std::string looked;
  for (const fs::path& place : places) {
    if (fs::is_regular_file(place / "replay.js", error) &&
        fs::is_regular_file(place / "replay.html", error))
      return place;
    looked += (looked.empty() ? "" : ", ") + place.string();
  }
  throw InputError(
      "view: the replay page's script (replay.js, replay.html) is not installed; "
      "looked in " +
      looked +
      " (it is built from core/app/replay by esbuild: run tools/setup.sh, which "
      "installs the npm packages, then build; or set CONTACTLAB_REPLAY_DIR)");
}

ReplayOutcome write_replay(const fs::path& directory, PluginRegistry& registry,
                           const ReplayOptions& options) {
  ReplayOutcome outcome;
  std::error_code error;
  if (!fs::is_directory(directory, error))
    throw InputError("view: '" + directory.string() + "' is not a directory");
  outcome.status = run_status(directory);
  const fs::path assets = find_replay_assets();
  const Scene scene = load_experiment(directory / "config.resolved.yaml", {}, registry);
  const Trajectory trajectory = read_trajectory(directory / "trajectory.csv");
  const std::vector<ContactRow> contacts = read_contacts(directory / "contacts.csv");
  if (trajectory.frame_count() == 0)
    throw InputError("view: " + (directory / "trajectory.csv").string() +
                     " has no rows (the run stopped before its first output)");

  // Which trajectory column holds each moving body; a moving body missing from the file means the
  // file is not this run's.
  std::vector<std::size_t> column(scene.bodies.size(), trajectory.bodies.size());
  std::vector<std::size_t> moving;  // scene indices of the moving bodies, in trajectory order
  for (std::size_t b = 0; b < scene.bodies.size(); ++b) {
    if (!scene.bodies[b].moves()) continue;
    column[b] = trajectory.body_index(scene.bodies[b].name);
    if (column[b] == trajectory.bodies.size())
      throw InputError("view: body '" + scene.bodies[b].name +
                       "' of config.resolved.yaml is not in " +
                       (directory / "trajectory.csv").string());
  }

  // Frames: every stride-th output time and the last.
  outcome.output_times = trajectory.frame_count();
  outcome.stride = std::max<std::size_t>(1, (outcome.output_times + options.max_frames - 1) /
                                                std::max<std::size_t>(options.max_frames, 1));
  std::vector<std::size_t> frames;
  for (std::size_t i = 0; i < outcome.output_times; i += outcome.stride) frames.push_back(i);
  if (frames.back() != outcome.output_times - 1) frames.push_back(outcome.output_times - 1);
  outcome.frames = frames.size();

  // Surfaces, and each body's radius about its frame origin for the scene's bounds.
  std::vector<SurfaceMesh> meshes(scene.geometries.size());
  std::vector<double> body_radius(scene.bodies.size(), 0.0);
  for (std::size_t g = 0; g < scene.geometries.size(); ++g) {
    const GeometryModel& geometry = scene.geometries[g];
    if (geometry.shape.type == ShapeType::half_space) continue;  // sized once the bounds are known
    TessellationOptions tessellation;
    tessellation.segments = options.segments;
    meshes[g] = tessellate(geometry.shape, tessellation);
    for (const Vec3& v : meshes[g].vertices)
      body_radius[geometry.body] =
          std::max(body_radius[geometry.body], geometry.X_BG.transform_point(v).norm());
  }
  Bounds bounds;
  for (std::size_t b = 0; b < scene.bodies.size(); ++b) {
    const BodyModel& body = scene.bodies[b];
    if (body.moves()) {
      for (std::size_t i : frames) {
        const Pose X_WB = body_frame_pose(trajectory.state(i, column[b]), body.mass.p_BCm);
        bounds.add_sphere(X_WB.p, body_radius[b]);
      }
    } else if (body_radius[b] > 0.0) {
      bounds.add_sphere(body.X_WB_initial.p, body_radius[b]);
    }
  }
  if (bounds.empty()) bounds.add_sphere(Vec3::Zero(), 1.0);
  const double extent = std::max((bounds.max - bounds.min).norm(), 1e-3);
  // A half-space is drawn as a patch of its plane under everything that moves.
  for (std::size_t g = 0; g < scene.geometries.size(); ++g) {
    const GeometryModel& geometry = scene.geometries[g];
    if (geometry.shape.type != ShapeType::half_space) continue;
    const Pose X_WG = scene.bodies[geometry.body].X_WB_initial * geometry.X_BG;
    TessellationOptions tessellation;
    tessellation.half_space_half_size_m = 0.6 * extent;
    tessellation.half_space_center =
        X_WG.inverse().transform_point(0.5 * (bounds.min + bounds.max));
    meshes[g] = tessellate(geometry.shape, tessellation);
  }

  // The data: written by hand (not through a json object) because the pose and mesh arrays are
  // most of the page and are best streamed as plain numbers.
  std::string data;
  data.reserve(1 << 20);
  nlohmann::json head = {{"format", "contactlab-replay-1"},
                         {"name", scene.name},
                         {"status", outcome.status},
                         {"duration_s", scene.duration_s}};
  data += head.dump();
  data.pop_back();  // reopen the object
  data += ",\"frames\":{\"count_total\":" + std::to_string(outcome.output_times) +
          ",\"stride\":" + std::to_string(outcome.stride) + ",\"times_s\":[";
  {
    JsonNumbers numbers(data);
    for (std::size_t i : frames) numbers.add_double(trajectory.times_s[i]);
  }
  data += "]},\"bodies\":[";
  std::size_t moving_index = 0;
  for (std::size_t b = 0; b < scene.bodies.size(); ++b) {
    const BodyModel& body = scene.bodies[b];
    if (b) data += ',';
    data += "{\"name\":" + nlohmann::json(body.name).dump() +
            ",\"moving\":" + (body.moves() ? "true" : "false");
    if (body.moves()) {
      data += ",\"trajectory_index\":" + std::to_string(moving_index++);
      moving.push_back(b);
    } else {
      data += ",\"fixed_pose\":" + pose_json(body.X_WB_initial);
    }
    data += '}';
  }
  data += "],\"geometries\":[";
  for (std::size_t g = 0; g < scene.geometries.size(); ++g) {
    const GeometryModel& geometry = scene.geometries[g];
    const SurfaceMesh& mesh = meshes[g];
    if (g) data += ',';
    data += "{\"name\":" + nlohmann::json(geometry.name).dump() +
            ",\"body\":" + std::to_string(geometry.body) + ",\"shape\":\"" +
            shape_type_name(geometry.shape.type) +
            "\",\"material\":" + nlohmann::json(geometry.material).dump() +
            ",\"pose\":" + pose_json(geometry.X_BG) + ",\"positions\":[";
    {
      JsonNumbers numbers(data);
      for (const Vec3& v : mesh.vertices) numbers.add(v);
    }
    data += "],\"normals\":[";
    {
      JsonNumbers numbers(data);
      for (const Vec3& n : mesh.normals) numbers.add(n);
    }
    data += "],\"indices\":[";
    {
      JsonNumbers numbers(data);
      for (const auto& t : mesh.triangles)
        for (std::uint32_t k : t) numbers.add(static_cast<std::size_t>(k));
    }
    data += "]}";
  }
  // Body-frame poses per frame, 7 numbers (p, q as w x y z) per moving body in trajectory order.
  data += "],\"poses\":[";
  {
    JsonNumbers numbers(data);
    for (std::size_t i : frames) {
      for (std::size_t b : moving) {
        const TrajectoryState& state = trajectory.state(i, column[b]);
        const Pose X_WB = body_frame_pose(state, scene.bodies[b].mass.p_BCm);
        numbers.add(X_WB.p);
        const Quaternion& q = state.q_WB;
        for (double c : {q.w, q.x, q.y, q.z}) numbers.add(static_cast<float>(c));
      }
    }
  }
  // Contacts of each kept frame: rows of 10 (point, normal, normal force, tangential force), and
  // offsets so that frame i's rows are frame_offsets[i] .. frame_offsets[i + 1]. contacts.csv's
  // times are trajectory.csv's, written by the same formatter, so they compare exactly.
  data += "],\"contacts\":{\"rows\":[";
  std::vector<std::size_t> offsets = {0};
  double max_normal = 0.0, max_tangential = 0.0;
  {
    JsonNumbers numbers(data);
    std::size_t r = 0;
    for (std::size_t i : frames) {
      const double t = trajectory.times_s[i];
      while (r < contacts.size() && contacts[r].time_s < t) ++r;
      std::size_t count = offsets.back();
      for (; r < contacts.size() && contacts[r].time_s == t; ++r, ++count) {
        const ContactRow& row = contacts[r];
        numbers.add(row.point_m);
        numbers.add(row.normal);
        numbers.add(static_cast<float>(row.normal_force_N));
        numbers.add(row.tangential_force_N);
        max_normal = std::max(max_normal, std::abs(row.normal_force_N));
        max_tangential = std::max(max_tangential, row.tangential_force_N.norm());
      }
      offsets.push_back(count);
    }
  }
  data += "],\"frame_offsets\":[";
  {
    JsonNumbers numbers(data);
    for (std::size_t offset : offsets) numbers.add(offset);
  }
  data += "],\"max_normal_force_N\":" + nlohmann::json(max_normal).dump() +
          ",\"max_tangential_force_N\":" + nlohmann::json(max_tangential).dump() + "}";
  data += ",\"bounds\":{\"min\":" +
          nlohmann::json({bounds.min.x(), bounds.min.y(), bounds.min.z()}).dump() +
          ",\"max\":" + nlohmann::json({bounds.max.x(), bounds.max.y(), bounds.max.z()}).dump() +
          "}}";

  // Inline the data and the script. "</" inside a <script> element would end it early; the data
  // has it only in names (JSON-escaped as "<\/" is the same string), the bundle never.
  std::string script = read_file(assets / "replay.js");
  std::string page = read_file(assets / "replay.html");
  for (std::size_t at = 0; (at = data.find("</", at)) != std::string::npos; at += 3)
    data.replace(at, 2, "<\\/");
  if (script.find("</script") != std::string::npos)
    throw InputError("view: " + (assets / "replay.js").string() +
                     " contains </script and cannot be inlined");
  std::string title = scene.name;
  for (std::size_t at = 0; (at = title.find_first_of("<&", at)) != std::string::npos; ++at)
    title.replace(at, 1, title[at] == '<' ? "&lt;" : "&amp;");
  auto substitute = [&page](const std::string& key, const std::string& value) {
    const std::size_t at = page.find(key);
    if (at == std::string::npos) throw InputError("view: replay.html has no " + key);
    page.replace(at, key.size(), value);
  };
  substitute("@TITLE@", title);
  substitute("@DATA@", data);
  substitute("@SCRIPT@", script);

  outcome.file = directory / "replay.html";
  std::ofstream out(outcome.file, std::ios::binary);
  out << page;
  if (!out) throw InputError("view: cannot write '" + outcome.file.string() + "'");
  outcome.bytes = page.size();
  return outcome;
}

}  // namespace contactlab::core
