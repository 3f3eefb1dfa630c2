// The experiment's `metrics:` (`restitution_pair: [a, b]`) and `probes:` (`{name, body, quantity,
// component, at_s}` or `{name, contact: [a, b], quantity}`) sections; they name bodies and
// geometries, so they are read last. Errors: an unknown geometry or body (with "did you mean"),
// a body without geometry, a pair that can never touch, a probe name that is not a plain word or
// is given twice, neither or both of body and contact, an unknown quantity or component, an at_s
// that is not an output time (with the nearest ones).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

#include "scene_sections.hpp"

namespace contactlab::core {

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

}  // namespace

namespace scene_sections {

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

}  // namespace scene_sections

bool GeometrySet::contains(std::size_t geometry) const {
  return std::binary_search(geometries.begin(), geometries.end(), geometry);
}

bool PairSelector::matches(std::size_t geometry_a, std::size_t geometry_b) const {
  return (first.contains(geometry_a) && second.contains(geometry_b)) ||
         (first.contains(geometry_b) && second.contains(geometry_a));
}

}  // namespace contactlab::core
