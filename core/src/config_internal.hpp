// Private to core/src: what the parts of the configuration front end share — the dotted paths of
// children, the wording of values in messages, and the conversion of a yaml-cpp tree.
//
//   config_node.cpp       the tree (ConfigNode): children, paths, scalars
//   config_errors.cpp     where and what: SourceLocation, fail_at, "got ...", did_you_mean
//   config_yaml.cpp       YAML text to tree and back; files and `include:`
//   config_override.cpp   `--set dotted.path=value` and dotted paths
//   config_readers.cpp    scalar conversions, range checks, the strict MapReader
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "contactlab/core/config.hpp"

namespace YAML {
class Node;
}

namespace contactlab::core::config_detail {

/// The path of map child `key` of `parent` ("a.b"; "b" below the root).
inline std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

/// The path of sequence element `index` of `parent` ("a[2]").
inline std::string index_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

/// The items with `separator` between them.
std::string join(const std::vector<std::string>& items, const std::string& separator);

/// Compact, exact number text for messages: shortest round-trip form, "inf"/"-inf"/"nan".
std::string format_number(double value);

/// A short description of what a node holds, for "got ..." in messages.
std::string describe(const ConfigNode& node);

/// fail_at for a place that has no node (yet).
[[noreturn]] void fail_at_location(const SourceLocation& location, const std::string& path,
                                   const std::string& message);

/// Converts a yaml-cpp node. `fixed` (when not null) is used as the location of every node
/// (command-line values); otherwise locations come from the YAML marks of `file`.
ConfigNode convert(const YAML::Node& yaml, const SourceLocation& location, const std::string& path,
                   const std::string& file, const SourceLocation* fixed);

}  // namespace contactlab::core::config_detail
