// The form every plugin key of the experiment takes (collision.broad_phase,
// collision.narrow_phase[i], contact.force_law, contact.friction, integrator, bodies[].joint):
// `name`, or `{type: name, params: {...}, library: path}`; the parameters are validated against
// the plugin's schema. Also the two sections that hold plugin choices only: `contact: {force_law,
// friction}` and `integrator:`. Errors: an unknown plugin (the registry lists the known ones), a
// `library:` outside the trusted search path (refused before it is opened), and in `params:` an
// unknown key (with the parameters the plugin accepts), a wrong type or a value out of range.
#include "scene_sections.hpp"

namespace contactlab::core {

namespace fs = std::filesystem;

namespace scene_sections {

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

PluginChoice read_plugin_choice(ConfigNode& node, PluginKind kind, PluginRegistry& registry,
                                const fs::path& base_directory,
                                const std::function<void(MapReader&)>& host_keys) {
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

ConfigNode& ensure_map(ConfigNode& parent, const std::string& key) {
  if (!parent.find(key)) parent.set(key, ConfigNode(ConfigNode::Kind::map, {}, ""));
  return *parent.find(key);
}

ConfigNode& ensure_choice(ConfigNode& parent, const std::string& key,
                          const std::string& default_type) {
  if (!parent.find(key))
    parent.set(key, ConfigNode::make_scalar(default_type, {"<default>", 0, 0}, ""));
  return *parent.find(key);
}

void read_contact(MapReader& top, Scene& scene, PluginRegistry& registry,
                  const fs::path& base_directory) {
  if (scene.time_stepping) {
    // The integrator solves rigid contact itself: a penalty law would have no role. `contact:`
    // may be absent or empty; a law given anyway is an error naming both.
    if (ConfigNode* contact = top.optional("contact")) {
      MapReader reader(*contact);
      for (const char* key : {"force_law", "friction"})
        if (ConfigNode* law = reader.optional(key))
          fail_at(*law, std::string("contact.") + key + " has no role with integrator '" +
                            scene.integrator.type + "' (" + scene.integrator.config_path +
                            "), which solves rigid contact by time stepping with the pair "
                            "materials' friction and restitution; remove contact." +
                            key + ", or choose an ODE integrator (e.g. rk4) for a penalty law");
      reader.finish();
    }
    return;
  }
  top.has("contact");
  ConfigNode& contact = ensure_map(top.node(), "contact");
  MapReader reader(contact);
  reader.has("force_law");
  reader.has("friction");
  reader.finish();
  scene.force_law = read_plugin_choice(ensure_choice(contact, "force_law", "hertz"),
                                       PluginKind::force_law, registry, base_directory);
  scene.friction = read_plugin_choice(ensure_choice(contact, "friction", "none"),
                                      PluginKind::friction, registry, base_directory);
}

void read_integrator(MapReader& top, Scene& scene, PluginRegistry& registry,
                     const fs::path& base_directory) {
  top.has("integrator");
  scene.integrator = read_plugin_choice(ensure_choice(top.node(), "integrator", "rk4"),
                                        PluginKind::integrator, registry, base_directory);
  // What the integrator is decides what `contact:` may say: ask an instance.
  scene.time_stepping =
      registry.create<Integrator>(*scene.integrator.info, scene.integrator.params)
          ->capabilities()
          .needs_mechanics_view;
}

}  // namespace scene_sections

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
    throw InputError(
        std::string(e.what()) + "; " + plugin_description + " accepts " +
        (names.empty() ? std::string("no parameters") : scene_sections::join(names, ", ")));
  }
  return ParameterValues(std::move(values));
}

}  // namespace contactlab::core
