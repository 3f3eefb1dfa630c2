// The plugin listing as JSON: what `contactlab plugins --json` prints, and what the Python module's
// contactlab.plugins() returns, from one function so that both say the same.
#pragma once

#include <nlohmann/json.hpp>

#include "contactlab/core/registry.hpp"

namespace contactlab::core {

/// {search_directories: [...], plugins: [{kind, name, version, description, library,
/// library_name, library_version, parameters: [{name, type, default, unit, doc, minimum, maximum,
/// minimum_exclusive, maximum_exclusive, choices}]}], refused_libraries: [{library, reason}]}.
/// Scans the registry's search directories (once).
nlohmann::json plugins_json(PluginRegistry& registry);

}  // namespace contactlab::core
