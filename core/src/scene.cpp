// Building the Scene from a configuration tree: the experiment schema lives here.
// Over 800 lines: the whole experiment schema is read here, one key after another; splitting it by
// section (bodies, collision, contact, integrator) is left to issue 29's restructuring.
#include "contactlab/core/scene.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <numbers>
#include <set>
#include <sstream>

namespace contactlab::core {

namespace fs = std::filesystem;

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

/// `parent: world` (the default) hangs a body from the world frame.
const std::string world_name = "world";

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

std::pair<std::string, std::string> sorted_pair(const std::string& a, const std::string& b) {
  return a < b ? std::make_pair(a, b) : std::make_pair(b, a);
}

/// `orientation: {quaternion_wxyz: [w, x, y, z]}` or `{axis: [x, y, z], angle_deg: a}`.
Mat3 read_orientation(ConfigNode& node) {
  MapReader reader(node);
  Mat3 R = Mat3::Identity();
  const bool has_quaternion = reader.has("quaternion_wxyz");
  const bool has_axis = reader.has("axis") || reader.has("angle_deg");
  if (has_quaternion && has_axis)
    fail_at(node, "give either quaternion_wxyz or axis with angle_deg, not both");
  if (has_quaternion) {
    ConfigNode& q = reader.required("quaternion_wxyz");
    if (!q.is_sequence() || q.size() != 4) fail_at(q, "must be a list of 4 numbers [w, x, y, z]");
    Eigen::Quaterniond quaternion(as_real(q.at(0)), as_real(q.at(1)), as_real(q.at(2)),
                                  as_real(q.at(3)));
    if (quaternion.norm() < 1e-12) fail_at(q, "the quaternion has zero length");
    R = quaternion.normalized().toRotationMatrix();
  } else if (has_axis) {
    Vec3 axis = reader.vec3("axis");
    if (axis.norm() < 1e-12) fail_at(reader.required("axis"), "the rotation axis has zero length");
    const double angle_deg = reader.real("angle_deg");
    R = Eigen::AngleAxisd(angle_deg * std::numbers::pi / 180.0, axis.normalized())
            .toRotationMatrix();
  }
  reader.finish();
  return R;
}

Pose read_pose(ConfigNode& node) {
  MapReader reader(node);
  Pose X;
  X.p = reader.vec3_or("position_m", Vec3::Zero());
  if (ConfigNode* orientation = reader.optional("orientation"))
    X.R = read_orientation(*orientation);
  reader.finish();
  return X;
}

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

/// Reads a plugin choice written as `name` or `{type: name, params: {...}, library: path}` and
/// rewrites the node into the map form with the parameters filled in. `host_keys`, when given,
/// reads the keys the host accepts beside these (e.g. a joint's `can_collide`).
PluginChoice read_plugin_choice(ConfigNode& node, PluginKind kind, PluginRegistry& registry,
                                const fs::path& base_directory,
                                const std::function<void(MapReader&)>& host_keys = {}) {
  if (node.is_scalar()) {
    ConfigNode map(ConfigNode::Kind::map, node.location(), node.path());
    map.set("type", ConfigNode::make_scalar(node.scalar(), node.location(), ""));
    node = std::move(map);
    node.rebase_path(node.path());
  }
  MapReader reader(node);
  PluginChoice choice;
  choice.kind = kind;
  choice.config_path = node.path();
  ConfigNode& type_node = reader.required("type");
  choice.type = as_string(type_node);
  if (ConfigNode* library = reader.optional("library")) {
    fs::path path = as_string(*library);
    if (path.is_relative()) path = base_directory / path;
    // Refused before it is opened, at its key: the experiment's author does not choose what runs.
    if (!registry.trusts(path))
      throw PluginError(library->location().str() + ": " +
                        registry.untrusted_library_message(path) + " (at " +
                        library->display_path() + ")");
    choice.library = path;
  }
  const PluginInfo* info = registry.find(kind, choice.type, choice.library);
  if (info == nullptr) fail_at(type_node, registry.unknown_plugin_message(kind, choice.type));
  choice.info = info;
  if (!reader.has("params")) node.set("params", ConfigNode(ConfigNode::Kind::map, {}, ""));
  ConfigNode& params = reader.required("params");
  choice.params = validate_parameters(
      info->schema, params, std::string(plugin_kind_name(kind)) + " '" + choice.type + "'");
  if (host_keys) host_keys(reader);
  reader.finish();
  return choice;
}

MaterialPalette read_materials(ConfigNode& node) {
  MaterialPalette palette;
  MapReader reader(node);
  if (ConfigNode* solids = reader.optional("solids")) {
    MapReader solids_reader(*solids);
    for (auto& [name, entry] : solids->entries()) {
      solids_reader.has(name);
      MapReader m(entry);
      SolidMaterial material;
      material.density_kg_per_m3 = m.real_in("density_kg_per_m3", 0.0, infinity, true);
      material.youngs_modulus_Pa = m.real_in("youngs_modulus_Pa", 0.0, infinity, true);
      material.poisson_ratio = m.real_in("poisson_ratio", 0.0, 0.5, false, true);
      m.finish();
      palette.solids[name] = material;
    }
    solids_reader.finish();
  }
  if (ConfigNode* pairs = reader.optional("pairs")) {
    if (!pairs->is_sequence()) fail_at(*pairs, "must be a list of pair materials");
    for (std::size_t i = 0; i < pairs->size(); ++i) {
      ConfigNode& entry = pairs->at(i);
      MapReader m(entry);
      ConfigNode& names = m.required("materials");
      if (!names.is_sequence() || names.size() != 2)
        fail_at(names, "must be a list of two solid material names [A, B]");
      std::vector<std::string> known;
      for (const auto& [name, solid] : palette.solids) known.push_back(name);
      for (std::size_t k = 0; k < 2; ++k) {
        const std::string name = as_string(names.at(k));
        if (!palette.solids.count(name)) {
          std::string suggestion = did_you_mean(name, known);
          fail_at(names.at(k),
                  "unknown solid material '" + name + "'" +
                      (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)") +
                      "; known solids: " + join(known, ", "));
        }
      }
      PairMaterial material;
      material.restitution = m.real_in("restitution", 0.0, 1.0);
      material.friction_kinetic = m.real_in_or("friction_kinetic", 0.0, 0.0, infinity);
      material.friction_static =
          m.real_in_or("friction_static", material.friction_kinetic, 0.0, infinity);
      material.rolling_friction = m.real_in_or("rolling_friction", 0.0, 0.0, infinity);
      m.finish();
      if (material.friction_static < material.friction_kinetic)
        fail_at(entry, "friction_static must be ≥ friction_kinetic");
      auto key = sorted_pair(as_string(names.at(0)), as_string(names.at(1)));
      if (palette.pairs.count(key))
        fail_at(entry, "pair material (" + key.first + ", " + key.second + ") is given twice");
      palette.pairs[key] = material;
    }
  }
  reader.finish();
  return palette;
}

/// A geometry's `groups:` or `collides_with:`: a list of group names.
std::vector<std::string> read_group_names(const ConfigNode& list) {
  if (!list.is_sequence()) fail_at(list, "must be a list of collision group names");
  std::vector<std::string> names;
  for (std::size_t k = 0; k < list.size(); ++k) names.push_back(as_string(list.at(k)));
  return names;
}

/// The bit of collision group `name`; `declare` adds unknown names (a geometry's `groups:`),
/// otherwise (`collides_with:`) an unknown name is an error with the known ones.
std::uint64_t group_bit(std::vector<std::string>& groups, const std::string& name,
                        const ConfigNode& node, bool declare) {
  for (std::size_t k = 0; k < groups.size(); ++k)
    if (groups[k] == name) return std::uint64_t{1} << k;
  if (!declare) {
    const std::string suggestion = did_you_mean(name, groups);
    fail_at(node,
            "unknown collision group '" + name + "'" +
                (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)") +
                "; groups are declared by geometries' `groups:`; known: " + join(groups, ", "));
  }
  if (groups.size() == 64) fail_at(node, "more than 64 collision groups");
  groups.push_back(name);
  return std::uint64_t{1} << (groups.size() - 1);
}

}  // namespace

bool collision_admitted(const Scene& scene, std::size_t geometry_a, std::size_t geometry_b) {
  const GeometryModel& a = scene.geometries[geometry_a];
  const GeometryModel& b = scene.geometries[geometry_b];
  if (a.body == b.body) return false;
  const BodyModel& body_a = scene.bodies[a.body];
  const BodyModel& body_b = scene.bodies[b.body];
  if (!body_a.moves() && !body_b.moves()) return false;
  // Two bodies joined by a joint touch only when that joint allows it (can_collide: true).
  if (body_a.parent == static_cast<int>(b.body) && !body_a.joint_can_collide) return false;
  if (body_b.parent == static_cast<int>(a.body) && !body_b.joint_can_collide) return false;
  return (a.groups & b.collides_with) != 0 && (b.groups & a.collides_with) != 0;
}

const PairMaterial* MaterialPalette::find_pair(const std::string& a, const std::string& b) const {
  auto it = pairs.find(sorted_pair(a, b));
  return it == pairs.end() ? nullptr : &it->second;
}

const PairMaterial& MaterialPalette::pair(const std::string& a, const std::string& b) const {
  if (const PairMaterial* found = find_pair(a, b)) return *found;
  throw InputError("missing pair material (" + a + ", " + b + ")");
}

ParameterValues validate_parameters(const ParameterSchema& schema, ConfigNode& params,
                                    const std::string& plugin_description) {
  MapReader reader(params);
  std::map<std::string, ParameterValue> values;
  for (const ParameterSpec& spec : schema) {
    ConfigNode* node = reader.optional(spec.name);
    switch (spec.type) {
      case ParameterType::real: {
        const double fallback = std::get<double>(spec.default_value);
        const double value = node ? as_real(*node) : reader.real_or(spec.name, fallback);
        if (node)
          check_range(*node, value, spec.minimum, spec.maximum, spec.minimum_exclusive,
                      spec.maximum_exclusive, spec.unit);
        values[spec.name] = value;
        break;
      }
      case ParameterType::integer: {
        const auto fallback = std::get<std::int64_t>(spec.default_value);
        const std::int64_t value =
            node ? as_integer(*node) : reader.integer_or(spec.name, fallback);
        if (node)
          check_range(*node, static_cast<double>(value), spec.minimum, spec.maximum,
                      spec.minimum_exclusive, spec.maximum_exclusive, spec.unit);
        values[spec.name] = value;
        break;
      }
      case ParameterType::boolean:
        values[spec.name] = reader.boolean_or(spec.name, std::get<bool>(spec.default_value));
        break;
      case ParameterType::choice:
        values[spec.name] =
            reader.choice_or(spec.name, std::get<std::string>(spec.default_value), spec.choices);
        break;
      case ParameterType::text:
        values[spec.name] = reader.string_or(spec.name, std::get<std::string>(spec.default_value));
        break;
    }
  }
  try {
    reader.finish();
  } catch (const InputError& e) {
    std::vector<std::string> names;
    for (const auto& spec : schema) names.push_back(spec.name);
    throw InputError(std::string(e.what()) + "; " + plugin_description + " accepts " +
                     (names.empty() ? std::string("no parameters") : join(names, ", ")));
  }
  return ParameterValues(std::move(values));
}

namespace {

/// One side of a pair: a geometry's name, or a body's name (all its geometries).
GeometrySet read_geometry_set(const ConfigNode& node, const Scene& scene) {
  GeometrySet set;
  set.name = as_string(node);
  for (std::size_t g = 0; g < scene.geometries.size(); ++g) {
    const GeometryModel& geometry = scene.geometries[g];
    if (geometry.name == set.name || scene.bodies[geometry.body].name == set.name)
      set.geometries.push_back(g);
  }
  if (!set.geometries.empty()) return set;
  std::vector<std::string> names;
  for (const GeometryModel& geometry : scene.geometries) names.push_back(geometry.name);
  for (const BodyModel& body : scene.bodies) names.push_back(body.name);
  bool body_without_geometry = false;
  for (const BodyModel& body : scene.bodies) body_without_geometry |= body.name == set.name;
  if (body_without_geometry) fail_at(node, "body '" + set.name + "' has no geometry");
  std::string message = "unknown geometry or body '" + set.name + "'";
  const std::string suggestion = did_you_mean(set.name, names);
  if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
  fail_at(node, message);
}

/// `[a, b]`: two geometry sets that can touch (at least one admitted geometry pair).
PairSelector read_pair(const ConfigNode& node, const Scene& scene) {
  if (!node.is_sequence() || node.size() != 2)
    fail_at(node, "must be a pair [a, b] of geometry or body names");
  PairSelector pair{read_geometry_set(node.at(0), scene), read_geometry_set(node.at(1), scene)};
  for (std::size_t a : pair.first.geometries)
    for (std::size_t b : pair.second.geometries)
      if (a != b && scene.geometries[a].collidable && scene.geometries[b].collidable &&
          collision_admitted(scene, std::min(a, b), std::max(a, b)))
        return pair;
  fail_at(node, "'" + pair.first.name + "' and '" + pair.second.name +
                    "' can never touch (same body, both fixed, not collidable, or filtered by "
                    "their joint or collision groups)");
}

void read_metrics(ConfigNode& node, Scene& scene) {
  MapReader reader(node);
  if (ConfigNode* pair = reader.optional("restitution_pair"))
    scene.metrics.restitution_pair = read_pair(*pair, scene);
  reader.finish();
}

void read_probes(ConfigNode& node, Scene& scene) {
  if (!node.is_sequence())
    fail_at(node,
            "must be a list of probes ({name, body, quantity, component, at_s} or "
            "{name, contact: [a, b], quantity})");
  using Quantity = ProbeModel::Quantity;
  const std::vector<std::string> body_quantities = {"position", "velocity", "angular_velocity",
                                                    "orientation"};
  const std::vector<std::string> contact_quantities = {"max_normal_force", "max_penetration"};
  std::set<std::string> names;
  for (std::size_t i = 0; i < node.size(); ++i) {
    ConfigNode& entry = node.at(i);
    MapReader reader(entry);
    ProbeModel probe;
    probe.config_path = entry.display_path();
    ConfigNode& name_node = reader.required("name");
    probe.name = as_string(name_node);
    if (probe.name.empty() || !std::all_of(probe.name.begin(), probe.name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        }))
      fail_at(name_node,
              "a probe name is made of letters, digits, '_' and '-' (it becomes a "
              "summary.json key and a compare column), got '" +
                  probe.name + "'");
    if (!names.insert(probe.name).second)
      fail_at(name_node, "a second probe named '" + probe.name + "'");
    const bool has_body = reader.has("body");
    const bool has_contact = reader.has("contact");
    if (has_body == has_contact)
      fail_at(entry, "probe '" + probe.name +
                         "' needs exactly one of 'body' (a body's state at a time) and "
                         "'contact' (an extreme of a pair's contact over the run)");
    ConfigNode& quantity_node = reader.required("quantity");
    const std::string quantity = as_string(quantity_node);
    const auto& allowed = has_body ? body_quantities : contact_quantities;
    const auto found = std::find(allowed.begin(), allowed.end(), quantity);
    if (found == allowed.end()) {
      std::string message = std::string("a ") + (has_body ? "body" : "contact") +
                            " probe's quantity must be one of " + join(allowed, ", ") + ", got '" +
                            quantity + "'";
      const std::string suggestion = did_you_mean(quantity, allowed);
      if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
      const auto& other = has_body ? contact_quantities : body_quantities;
      if (std::find(other.begin(), other.end(), quantity) != other.end())
        message += std::string("; '") + quantity + "' is for " +
                   (has_body ? "'contact: [a, b]'" : "'body:'") + " probes";
      fail_at(quantity_node, message);
    }
    probe.quantity_name = quantity;
    if (has_body) {
      probe.kind = ProbeModel::Kind::body_state;
      ConfigNode& body_node = *reader.optional("body");
      const std::string body = as_string(body_node);
      std::vector<std::string> body_names;
      for (const BodyModel& b : scene.bodies) body_names.push_back(b.name);
      const auto it = std::find(body_names.begin(), body_names.end(), body);
      if (it == body_names.end()) {
        std::string message = "unknown body '" + body + "'";
        const std::string suggestion = did_you_mean(body, body_names);
        if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
        fail_at(body_node, message);
      }
      probe.body = static_cast<std::size_t>(it - body_names.begin());
      static constexpr Quantity body_kinds[] = {Quantity::position, Quantity::velocity,
                                                Quantity::angular_velocity, Quantity::orientation};
      static const char* const units[] = {"m", "m/s", "rad/s", "1"};
      const auto q = static_cast<std::size_t>(found - allowed.begin());
      probe.quantity = body_kinds[q];
      probe.unit = units[q];
      const std::vector<std::string> components =
          probe.quantity == Quantity::orientation ? std::vector<std::string>{"w", "x", "y", "z"}
                                                  : std::vector<std::string>{"x", "y", "z", "norm"};
      ConfigNode& component_node = reader.required("component");
      probe.component_name = as_string(component_node);
      const auto c = std::find(components.begin(), components.end(), probe.component_name);
      if (c == components.end())
        fail_at(component_node, "the component of a " + quantity + " probe must be one of " +
                                    join(components, ", ") + ", got '" + probe.component_name +
                                    "'");
      probe.component = static_cast<int>(c - components.begin());
      // The state at exactly at_s: at_s must be an output time (k · output.interval_s), where
      // the run reports its state anyway (the row of trajectory.csv).
      ConfigNode& at_node = reader.required("at_s");
      probe.at_s = as_real(at_node);
      check_range(at_node, probe.at_s, 0.0, scene.duration_s, false, false, "s");
      const double interval = scene.output_interval_s;
      const double k = std::round(probe.at_s / interval);
      if (probe.at_s != scene.duration_s &&
          std::abs(k * interval - probe.at_s) > 1e-9 * std::max(interval, probe.at_s)) {
        std::ostringstream message;
        message.precision(12);
        message << "at_s = " << probe.at_s
                << " s is not an output time (output.interval_s = " << interval
                << " s); a body probe reads the state the run reports at an output "
                << "time: the nearest are " << std::floor(probe.at_s / interval) * interval
                << " and " << std::ceil(probe.at_s / interval) * interval << " s";
        fail_at(at_node, message.str());
      }
      probe.output_index = static_cast<std::int64_t>(k);
    } else {
      probe.kind = ProbeModel::Kind::contact_extreme;
      probe.pair = read_pair(*reader.optional("contact"), scene);
      const bool force = quantity == "max_normal_force";
      probe.quantity = force ? Quantity::max_normal_force : Quantity::max_penetration;
      probe.unit = force ? "N" : "m";
    }
    reader.finish();
    scene.probes.push_back(std::move(probe));
  }
}

}  // namespace

bool GeometrySet::contains(std::size_t geometry) const {
  return std::binary_search(geometries.begin(), geometries.end(), geometry);
}

bool PairSelector::matches(std::size_t geometry_a, std::size_t geometry_b) const {
  return (first.contains(geometry_a) && second.contains(geometry_b)) ||
         (first.contains(geometry_b) && second.contains(geometry_a));
}

Scene build_scene(ConfigNode config, const fs::path& source_file, PluginRegistry& registry) {
  Scene scene;
  scene.source_file = source_file;
  scene.resolved = std::move(config);
  ConfigNode& root = scene.resolved;
  const fs::path base_directory = source_file.parent_path();
  MapReader top(root);

  scene.name = top.string_or("name", source_file.stem().string());
  if (top.has("description")) as_string(top.required("description"));
  scene.duration_s = top.real_in("duration_s", 0.0, infinity, true);
  scene.gravity_W = top.vec3_or("gravity_m_per_s2", Vec3(0.0, 0.0, -9.81));
  {
    if (!top.has("output")) root.set("output", ConfigNode(ConfigNode::Kind::map, {}, ""));
    MapReader output(top.required("output"));
    scene.output_interval_s = output.real_in_or("interval_s", 1e-3, 0.0, infinity, true);
    scene.record_contacts = output.boolean_or("contacts", true);
    output.finish();
  }

  if (ConfigNode* materials = top.optional("materials"))
    scene.materials = read_materials(*materials);

  // --- plugin choices (defaults filled in so the resolved file shows them) ---
  auto ensure_map = [](ConfigNode& parent, const std::string& key) -> ConfigNode& {
    if (!parent.find(key)) parent.set(key, ConfigNode(ConfigNode::Kind::map, {}, ""));
    return *parent.find(key);
  };
  auto ensure_choice = [](ConfigNode& parent, const std::string& key,
                          const std::string& default_type) -> ConfigNode& {
    if (!parent.find(key))
      parent.set(key, ConfigNode::make_scalar(default_type, {"<default>", 0, 0}, ""));
    return *parent.find(key);
  };
  {
    top.has("collision");
    ConfigNode& collision = ensure_map(root, "collision");
    MapReader reader(collision);
    reader.has("broad_phase");
    reader.has("narrow_phase");
    scene.aabb_margin_m = reader.real_in_or("aabb_margin_m", 0.0, 0.0, infinity, true);
    scene.sweep_boxes = reader.boolean_or("sweep_boxes", false);
    reader.finish();
    scene.broad_phase = read_plugin_choice(ensure_choice(collision, "broad_phase", "brute_force"),
                                           PluginKind::broad_phase, registry, base_directory);
    ConfigNode& narrow = ensure_choice(collision, "narrow_phase", "primitive");
    if (!narrow.is_sequence()) {
      // A single choice is a chain of one.
      ConfigNode chain(ConfigNode::Kind::sequence, narrow.location(), narrow.path());
      chain.push_back(narrow);
      narrow = std::move(chain);
      narrow.rebase_path(narrow.path());
    }
    if (narrow.size() == 0) fail_at(narrow, "the narrow-phase chain is empty");
    for (std::size_t i = 0; i < narrow.size(); ++i)
      scene.narrow_phase.push_back(
          read_plugin_choice(narrow.at(i), PluginKind::narrow_phase, registry, base_directory));
  }
  {
    top.has("contact");
    ConfigNode& contact = ensure_map(root, "contact");
    MapReader reader(contact);
    reader.has("force_law");
    reader.has("friction");
    reader.finish();
    scene.force_law = read_plugin_choice(ensure_choice(contact, "force_law", "hertz"),
                                         PluginKind::force_law, registry, base_directory);
    scene.friction = read_plugin_choice(ensure_choice(contact, "friction", "none"),
                                        PluginKind::friction, registry, base_directory);
  }
  top.has("integrator");
  scene.integrator = read_plugin_choice(ensure_choice(root, "integrator", "rk4"),
                                        PluginKind::integrator, registry, base_directory);

  // --- bodies and geometries ---
  // Pass 1, in the order written: names, parents, joints, joint placements, geometry. Pass 2, in
  // topological order (a parent before its children): mobility, mass properties, initial state.
  ConfigNode& bodies = top.required("bodies");
  if (!bodies.is_sequence() || bodies.size() == 0)
    fail_at(bodies, "must be a non-empty list of bodies");
  std::set<std::string> geometry_names;
  std::map<std::string, std::size_t> body_index;  // name → index as written
  std::vector<std::string> solid_names;
  for (const auto& [name, solid] : scene.materials.solids) solid_names.push_back(name);
  std::vector<const ConfigNode*> geometry_nodes;
  // collides_with may name groups declared by later geometries: resolved after all are read.
  std::vector<std::pair<std::size_t, ConfigNode*>> collides_with_nodes;

  struct WrittenBody {
    BodyModel model;
    std::shared_ptr<Joint> joint;
    ConfigNode* node = nullptr;
    ConfigNode* parent_node = nullptr;  ///< `parent:` (null: the world)
    std::string parent_name;
    bool has_placement = false;
  };
  std::vector<WrittenBody> written(bodies.size());
  std::deque<MapReader> readers;  // kept until pass 2 has read every key

  for (std::size_t b = 0; b < bodies.size(); ++b) {
    ConfigNode& body_node = bodies.at(b);
    MapReader& reader = readers.emplace_back(body_node);
    WrittenBody& entry = written[b];
    BodyModel& body = entry.model;
    entry.node = &body_node;
    ConfigNode& name_node = reader.required("name");
    body.name = as_string(name_node);
    if (body.name == world_name)
      fail_at(name_node, "the body name 'world' is reserved for the world frame (`parent: world`)");
    if (!body_index.emplace(body.name, b).second)
      fail_at(name_node, "body name '" + body.name + "' is used twice");
    if (ConfigNode* parent = reader.optional("parent")) {
      entry.parent_name = as_string(*parent);
      if (entry.parent_name != world_name) entry.parent_node = parent;
    }

    body.joint = read_plugin_choice(ensure_choice(body_node, "joint", "free"), PluginKind::joint,
                                    registry, base_directory, [&](MapReader& joint_reader) {
                                      // A host key of the joint choice, never a plugin parameter.
                                      body.joint_can_collide =
                                          joint_reader.boolean_or("can_collide", false);
                                    });
    reader.has("joint");
    entry.joint = registry.create<Joint>(*body.joint.info, body.joint.params);
    body.nq = entry.joint->nq();
    body.nv = entry.joint->nv();
    if (body.nv < 0 || body.nv > 6 || body.nq < 0 || body.nq < body.nv)
      throw PluginError(
          "joint '" + body.joint.type + "' from '" + body.joint.info->library_path.string() +
          "' reports nq = " + std::to_string(body.nq) + ", nv = " + std::to_string(body.nv) +
          "; a joint has 0 ≤ nv ≤ 6 and nq ≥ nv");
    if (ConfigNode* placement = reader.optional("joint_placement")) {
      body.X_PJ = read_pose(*placement);
      entry.has_placement = true;
    }

    // Geometry.
    if (ConfigNode* geometry_list = reader.optional("geometry")) {
      if (!geometry_list->is_sequence()) fail_at(*geometry_list, "must be a list of geometries");
      for (std::size_t g = 0; g < geometry_list->size(); ++g) {
        ConfigNode& geometry_node = geometry_list->at(g);
        MapReader gr(geometry_node);
        GeometryModel geometry;
        ConfigNode& geometry_name = gr.required("name");
        geometry.name = as_string(geometry_name);
        if (!geometry_names.insert(geometry.name).second)
          fail_at(geometry_name, "geometry name '" + geometry.name + "' is used twice");
        geometry.body = b;  // the index as written; renumbered after the topological sort
        geometry.shape = read_shape(gr.required("shape"), scene, base_directory);
        if (ConfigNode* pose = gr.optional("pose")) geometry.X_BG = read_pose(*pose);
        ConfigNode& material = gr.required("material");
        geometry.material = as_string(material);
        if (!scene.materials.solids.count(geometry.material)) {
          std::string suggestion = did_you_mean(geometry.material, solid_names);
          fail_at(material,
                  "unknown solid material '" + geometry.material + "'" +
                      (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)") +
                      (solid_names.empty() ? "; the palette has no solids (include "
                                             "configs/materials.yaml?)"
                                           : "; known solids: " + join(solid_names, ", ")));
        }
        geometry.collidable = gr.boolean_or("collidable", true);
        if (ConfigNode* radius = gr.optional("contact_radius_m")) {
          geometry.shape.contact_radius_m = as_real(*radius);
          check_range(*radius, geometry.shape.contact_radius_m, 0.0, infinity, true, false, "m");
        }
        if (ConfigNode* flat = gr.optional("flat")) geometry.shape.flat = as_boolean(*flat);
        if (ConfigNode* groups = gr.optional("groups")) {
          geometry.groups = 0;
          for (const std::string& group : read_group_names(*groups))
            geometry.groups |= group_bit(scene.collision_groups, group, *groups, true);
        }
        if (ConfigNode* with = gr.optional("collides_with"))
          collides_with_nodes.emplace_back(scene.geometries.size(), with);
        gr.finish();
        body.geometries.push_back(scene.geometries.size());
        scene.geometries.push_back(geometry);
        geometry_nodes.push_back(&geometry_node);
      }
    }
  }

  // Topological order: every body after its parent; bodies already in such an order keep it.
  std::vector<std::size_t> order;  // written indices
  {
    std::vector<std::string> names;
    for (const WrittenBody& entry : written) names.push_back(entry.model.name);
    std::vector<int> parent_of(written.size(), -1);
    for (std::size_t b = 0; b < written.size(); ++b) {
      const WrittenBody& entry = written[b];
      if (!entry.parent_node) continue;
      auto found = body_index.find(entry.parent_name);
      if (found == body_index.end()) {
        const std::string suggestion = did_you_mean(entry.parent_name, names);
        fail_at(
            *entry.parent_node,
            "body '" + entry.model.name + "' names an unknown parent '" + entry.parent_name + "'" +
                (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)") +
                "; a parent is `world` (the default) or one of the bodies: " + join(names, ", "));
      }
      parent_of[b] = static_cast<int>(found->second);
    }
    enum class Mark { none, on_path, done };
    std::vector<Mark> mark(written.size(), Mark::none);
    for (std::size_t start = 0; start < written.size(); ++start) {
      // Walk up to the first ancestor already placed (or the world), then place the path from
      // the top down.
      std::vector<std::size_t> path;
      int b = static_cast<int>(start);
      while (b >= 0 && mark[static_cast<std::size_t>(b)] != Mark::done) {
        const auto u = static_cast<std::size_t>(b);
        if (mark[u] == Mark::on_path) {
          std::string cycle = names[u];
          for (int k = parent_of[u]; k != b; k = parent_of[static_cast<std::size_t>(k)])
            cycle += " → " + names[static_cast<std::size_t>(k)];
          cycle += " → " + names[u];
          fail_at(*written[u].parent_node,
                  "body '" + names[u] + "' is its own ancestor: the parents form a cycle (" +
                      cycle + "); bodies form a tree whose roots hang from the world");
        }
        mark[u] = Mark::on_path;
        path.push_back(u);
        b = parent_of[u];
      }
      for (auto it = path.rbegin(); it != path.rend(); ++it) {
        mark[*it] = Mark::done;
        order.push_back(*it);
      }
    }
    std::vector<int> new_index(written.size(), -1);
    for (std::size_t i = 0; i < order.size(); ++i) new_index[order[i]] = static_cast<int>(i);
    for (std::size_t i = 0; i < order.size(); ++i) {
      const int parent = parent_of[order[i]];
      written[order[i]].model.parent =
          parent < 0 ? -1 : new_index[static_cast<std::size_t>(parent)];
    }
    for (GeometryModel& geometry : scene.geometries)
      geometry.body = static_cast<std::size_t>(new_index[geometry.body]);
  }

  // Pass 2. The realised world state of each placed body, for its children's relative state.
  std::vector<Pose> X_WB_of(order.size());
  std::vector<Vec3> v_WBo_of(order.size()), w_WB_of(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    WrittenBody& entry = written[order[i]];
    MapReader& reader = readers[order[i]];
    ConfigNode& body_node = *entry.node;
    BodyModel body = std::move(entry.model);
    const Joint& joint = *entry.joint;
    const bool has_parent = body.parent >= 0;
    const auto parent = static_cast<std::size_t>(body.parent);
    body.mobile = body.nv > 0 || (has_parent && scene.bodies[parent].mobile);

    // Mass properties: given, or from geometry and density.
    if (ConfigNode* mass_node = reader.optional("mass")) {
      MapReader mr(*mass_node);
      ConfigNode& m = mr.required("mass_kg");
      body.mass.mass_kg = as_real(m);
      if (!(body.mass.mass_kg > 0.0)) fail_at(m, "mass must be > 0 kg, got " + m.scalar());
      body.mass.p_BCm = mr.vec3_or("center_of_mass_m", Vec3::Zero());
      ConfigNode& inertia = mr.required("inertia_kg_m2");
      if (!inertia.is_sequence() || (inertia.size() != 3 && inertia.size() != 6))
        fail_at(inertia,
                "must be [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] about the "
                "centre of mass, body axes");
      std::vector<double> I;
      for (std::size_t k = 0; k < inertia.size(); ++k) I.push_back(as_real(inertia.at(k)));
      if (I.size() == 3) I.insert(I.end(), {0.0, 0.0, 0.0});
      body.mass.inertia_Cm_B << I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2];
      Eigen::SelfAdjointEigenSolver<Mat3> eigen(body.mass.inertia_Cm_B);
      const Vec3 principal = eigen.eigenvalues();
      if (!(principal.minCoeff() > 0.0)) fail_at(inertia, "the inertia must be positive definite");
      if (principal[0] + principal[1] < principal[2] * (1.0 - 1e-12))
        fail_at(inertia, "the principal moments violate the triangle inequality");
      mr.finish();
    } else if (body.moves()) {
      double total = 0.0;
      Vec3 first_moment = Vec3::Zero();
      for (std::size_t g : body.geometries) {
        const GeometryModel& geometry = scene.geometries[g];
        if (geometry.shape.type == ShapeType::half_space)
          fail_at(*geometry_nodes[g],
                  "a half_space has infinite mass; put it on a body welded to the world (a "
                  "fixed joint whose parents, if any, are fixed too)");
        const double density = scene.materials.solids.at(geometry.material).density_kg_per_m3;
        const MassProperties part = shape_mass_properties(geometry.shape, density);
        total += part.mass_kg;
        first_moment += part.mass_kg * geometry.X_BG.transform_point(part.p_BCm);
      }
      // A massless body is refused when its own joint moves it; one welded to a moving parent
      // (nv = 0) may be a massless frame.
      if (!(total > 0.0) && body.nv > 0)
        fail_at(body_node, "body '" + body.name +
                               "' has zero mass: give it geometry with a material, or a `mass:` "
                               "entry with mass_kg and inertia_kg_m2");
      body.mass.mass_kg = total;
      body.mass.p_BCm = total > 0.0 ? Vec3(first_moment / total) : Vec3::Zero();
      Mat3 inertia = Mat3::Zero();
      for (std::size_t g : body.geometries) {
        const GeometryModel& geometry = scene.geometries[g];
        const double density = scene.materials.solids.at(geometry.material).density_kg_per_m3;
        const MassProperties part = shape_mass_properties(geometry.shape, density);
        const Vec3 d = geometry.X_BG.transform_point(part.p_BCm) - body.mass.p_BCm;
        // Rotate into body axes, then parallel-axis shift to the body's centre of mass.
        inertia += geometry.X_BG.R * part.inertia_Cm_B * geometry.X_BG.R.transpose() +
                   part.mass_kg * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
      }
      body.mass.inertia_Cm_B = inertia;
    }

    // Initial state: `initial` is in world coordinates; the joint's q and v realise it relative
    // to the parent: X_JB = X_PJ⁻¹·X_WP⁻¹·X_WB, and the velocities relative to the parent in J
    // axes. Without `initial` the joint starts at its neutral configuration, at rest relative
    // to its parent.
    const Pose X_WP = has_parent ? X_WB_of[parent] : Pose::identity();
    const Vec3 v_WPo = has_parent ? v_WBo_of[parent] : Vec3::Zero();
    const Vec3 w_WP = has_parent ? w_WB_of[parent] : Vec3::Zero();
    ConfigNode* initial = reader.optional("initial");
    Pose X_WB_given;
    Vec3 v_WCm = Vec3::Zero(), w_WB = Vec3::Zero();
    if (initial) {
      MapReader ir(*initial);
      X_WB_given.p = ir.vec3_or("position_m", Vec3::Zero());
      if (ConfigNode* orientation = ir.optional("orientation"))
        X_WB_given.R = read_orientation(*orientation);
      v_WCm = ir.vec3_or("velocity_m_per_s", Vec3::Zero());
      w_WB = ir.vec3_or("angular_velocity_rad_per_s", Vec3::Zero());
      ir.finish();
    }
    body.q_initial.assign(body.nq, 0.0);
    body.v_initial.assign(body.nv, 0.0);
    joint.neutral_configuration(body.q_initial);
    auto cannot_realise = [&]() {
      fail_at(initial ? *initial : body_node,
              "a " + body.joint.type +
                  " joint cannot realise the initial pose and velocity "
                  "of body '" +
                  body.name + "'" +
                  (has_parent ? " relative to its parent '" + scene.bodies[parent].name + "'"
                              : std::string()));
    };
    if (body.nq == 0 && body.nv == 0) {
      // A joint without coordinates places the body where `initial` says, for good (unless
      // joint_placement says where the joint is); it moves only with its parent.
      if (initial && (v_WCm.norm() > 0.0 || w_WB.norm() > 0.0))
        fail_at(*initial, "body '" + body.name + "' has a " + body.joint.type +
                              " joint and cannot have an initial velocity");
      const Pose X_JB = joint.transform(body.q_initial);
      if (!entry.has_placement) {
        if (initial) body.X_PJ = X_WP.inverse() * X_WB_given * X_JB.inverse();
      } else if (initial &&
                 !joint.from_pose(body.X_PJ.inverse() * X_WP.inverse() * X_WB_given, Vec3::Zero(),
                                  Vec3::Zero(), body.q_initial, body.v_initial)) {
        cannot_realise();
      }
    } else if (initial) {
      const Pose X_WJ = X_WP * body.X_PJ;
      const Vec3 v_WBo = v_WCm - w_WB.cross(X_WB_given.R * body.mass.p_BCm);
      // Velocity of B's origin relative to the parent's frame (and so to J), and B's angular
      // velocity relative to the parent, in J axes.
      const Vec3 v_relative_W = v_WBo - v_WPo - w_WP.cross(X_WB_given.p - X_WP.p);
      const Vec3 w_relative_W = w_WB - w_WP;
      if (!joint.from_pose(X_WJ.inverse() * X_WB_given, X_WJ.R.transpose() * v_relative_W,
                           X_WJ.R.transpose() * w_relative_W, body.q_initial, body.v_initial))
        cannot_realise();
    }
    // The realised world state (from q and v), for the children and for BodyModel.
    {
      const Pose X_WJ = X_WP * body.X_PJ;
      const Pose X_WB = X_WJ * joint.transform(body.q_initial);
      Vec3 v_J = Vec3::Zero(), w_J = Vec3::Zero();
      if (body.nv > 0) {
        std::vector<double> S(6 * static_cast<std::size_t>(body.nv));
        joint.motion_subspace(body.q_initial, S);
        for (int k = 0; k < body.nv; ++k) {
          v_J += Vec3(S[6 * k], S[6 * k + 1], S[6 * k + 2]) * body.v_initial[k];
          w_J += Vec3(S[6 * k + 3], S[6 * k + 4], S[6 * k + 5]) * body.v_initial[k];
        }
      }
      X_WB_of[i] = X_WB;
      w_WB_of[i] = w_WP + X_WJ.R * w_J;
      v_WBo_of[i] = v_WPo + w_WP.cross(X_WB.p - X_WP.p) + X_WJ.R * v_J;
    }
    if (initial) {
      body.X_WB_initial = X_WB_given;
      body.v_WCm_initial = v_WCm;
      body.w_WB_initial = w_WB;
    } else {
      body.X_WB_initial = X_WB_of[i];
      body.w_WB_initial = w_WB_of[i];
      body.v_WCm_initial = v_WBo_of[i] + w_WB_of[i].cross(X_WB_of[i].R * body.mass.p_BCm);
    }
    reader.finish();
    scene.bodies.push_back(std::move(body));
  }

  for (auto& [g, node] : collides_with_nodes) {
    scene.geometries[g].collides_with = 0;
    for (const std::string& group : read_group_names(*node))
      scene.geometries[g].collides_with |= group_bit(scene.collision_groups, group, *node, false);
  }

  // --- pair checks: every pair that can touch needs a narrow phase and a pair material ---
  ConfigNode& narrow_node = *root.find("collision")->find("narrow_phase");
  // The chain's members say what they support; the table built from their answers is the one
  // every run of this scene dispatches through.
  scene.narrow_phase_dispatch = NarrowPhaseChain(scene.narrow_phase, registry).dispatch();
  for (std::size_t i = 0; i < scene.geometries.size(); ++i) {
    for (std::size_t j = i + 1; j < scene.geometries.size(); ++j) {
      const GeometryModel& a = scene.geometries[i];
      const GeometryModel& b = scene.geometries[j];
      if (!a.collidable || !b.collidable || !collision_admitted(scene, i, j)) continue;
      if (scene.narrow_phase_dispatch.member(a.shape.type, b.shape.type) ==
          NarrowPhaseDispatch::none) {
        std::vector<std::string> chain;
        for (const auto& choice : scene.narrow_phase) chain.push_back(choice.type);
        fail_at(narrow_node, std::string("no narrow phase in the chain [") + join(chain, ", ") +
                                 "] supports the shape pair " + shape_type_name(a.shape.type) +
                                 "–" + shape_type_name(b.shape.type) + " (geometries '" + a.name +
                                 "' and '" + b.name + "')");
      }
      if (!scene.materials.find_pair(a.material, b.material))
        fail_at(*geometry_nodes[j], "missing pair material (" + a.material + ", " + b.material +
                                        ") for geometries '" + a.name + "' and '" + b.name +
                                        "'; add it under materials.pairs");
    }
  }
  // --- metrics and probes (they name bodies and geometries) ---
  if (ConfigNode* metrics = top.optional("metrics")) read_metrics(*metrics, scene);
  if (ConfigNode* probes = top.optional("probes")) read_probes(*probes, scene);
  top.finish();
  return scene;
}

}  // namespace contactlab::core
