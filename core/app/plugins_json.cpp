// The plugin listing as JSON (see plugins_json.hpp).
#include "contactlab/core/plugins_json.hpp"

#include <cmath>
#include <string>
#include <type_traits>
#include <variant>

namespace contactlab::core {

namespace {

nlohmann::json value_json(const ParameterValue& value) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

}  // namespace

nlohmann::json plugins_json(PluginRegistry& registry) {
  const auto& plugins = registry.plugins();
  nlohmann::json out;
  out["search_directories"] = nlohmann::json::array();
  for (const auto& d : registry.search_directories())
    out["search_directories"].push_back(d.string());
  out["plugins"] = nlohmann::json::array();
  for (const PluginInfo& info : plugins) {
    nlohmann::json entry{{"kind", plugin_kind_name(info.kind)},
                         {"name", info.name},
                         {"version", info.version},
                         {"description", info.description},
                         {"library", info.library_path.string()},
                         {"library_name", info.library_name},
                         {"library_version", info.library_version},
                         {"parameters", nlohmann::json::array()}};
    for (const ParameterSpec& spec : info.schema) {
      nlohmann::json p{{"name", spec.name},
                       {"type", parameter_type_name(spec.type)},
                       {"default", value_json(spec.default_value)},
                       {"unit", spec.unit},
                       {"doc", spec.doc}};
      if (spec.type == ParameterType::real || spec.type == ParameterType::integer) {
        if (!std::isinf(spec.minimum)) p["minimum"] = spec.minimum;
        if (!std::isinf(spec.maximum)) p["maximum"] = spec.maximum;
        p["minimum_exclusive"] = spec.minimum_exclusive;
        p["maximum_exclusive"] = spec.maximum_exclusive;
      }
      if (!spec.choices.empty()) p["choices"] = spec.choices;
      entry["parameters"].push_back(p);
    }
    out["plugins"].push_back(entry);
  }
  out["refused_libraries"] = nlohmann::json::array();
  for (const auto& problem : registry.problems())
    out["refused_libraries"].push_back(
        {{"library", problem.library_path.string()}, {"reason", problem.reason}});
  return out;
}

}  // namespace contactlab::core
