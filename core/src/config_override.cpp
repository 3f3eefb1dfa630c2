// Command-line overrides, `--set dotted.path=value`: the path addresses map keys, list elements by
// index or by their `name:`; the value is YAML. Errors (prefixed "--set <assignment>: ") name the
// segment that failed: an empty name or malformed index, an index out of range (with the valid
// ones), an unknown element name (with the known names and a "did you mean"), a path that goes
// into a single value, a value that is not valid YAML.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <system_error>

#include "config_internal.hpp"

namespace contactlab::core {

using namespace config_detail;

namespace {

[[noreturn]] void override_error(const std::string& assignment, const std::string& message) {
  throw InputError("--set " + assignment + ": " + message);
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::vector<std::string> split_override_path(const std::string& path,
                                             const std::string& assignment) {
  DottedPath split = split_dotted_path(path);
  if (split.error == DottedPath::Error::empty_name)
    override_error(assignment, "empty name in path '" + path +
                                   "' (expected --set dotted.path=value, e.g. "
                                   "--set bodies[0].mass_kg=2)");
  if (split.error == DottedPath::Error::malformed_index)
    override_error(assignment, "malformed index in '" + split.part + "' (expected name[0])");
  return std::move(split.segments);
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  for (const std::string& name : names) quoted.push_back("'" + name + "'");
  return join(quoted, ", ");
}

/// The element of `sequence` addressed by `segment` (an index or the value of a `name:` key).
ConfigNode& sequence_element(ConfigNode& sequence, const std::string& segment,
                             const std::string& assignment) {
  const std::string where = "'" + sequence.display_path() + "'";
  if (all_digits(segment)) {
    std::size_t index = 0;
    const auto result = std::from_chars(segment.data(), segment.data() + segment.size(), index);
    if (result.ec != std::errc{} || index >= sequence.size()) {
      override_error(
          assignment,
          "index " + segment + " is out of range: " + where + " is a list of " +
              std::to_string(sequence.size()) +
              (sequence.size() == 0 ? " (empty)"
                                    : " (indices 0.." + std::to_string(sequence.size() - 1) + ")"));
    }
    return sequence.at(index);
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    ConfigNode& item = sequence.at(i);
    if (!item.is_map()) continue;
    const ConfigNode* name = item.find("name");
    if (name == nullptr || !name->is_scalar()) continue;
    if (name->scalar() == segment) return item;
    names.push_back(name->scalar());
  }
  if (sequence.size() == 0) {
    override_error(assignment,
                   "no element named '" + segment + "': " + where + " is an empty list");
  }
  if (names.empty()) {
    override_error(assignment, "no element named '" + segment + "' in " + where +
                                   " (its elements have no 'name:'; use an index 0.." +
                                   std::to_string(sequence.size() - 1) + ")");
  }
  std::string message = "no element named '" + segment + "' in " + where +
                        " (known names: " + quoted_list(names) + ")";
  const std::string suggestion = did_you_mean(segment, names);
  if (!suggestion.empty()) message += "; did you mean '" + suggestion + "'?";
  override_error(assignment, message);
}

}  // namespace

DottedPath split_dotted_path(const std::string& path) {
  DottedPath result;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    const std::string part =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const std::size_t bracket = part.find('[');
    const std::string key = part.substr(0, bracket);
    if (key.empty()) {
      result.error = DottedPath::Error::empty_name;
      return result;
    }
    result.segments.push_back(key);
    std::size_t position = bracket;
    while (position != std::string::npos && position < part.size()) {
      const std::size_t close = part.find(']', position);
      const std::string index =
          close == std::string::npos ? "" : part.substr(position + 1, close - position - 1);
      if (part[position] != '[' || close == std::string::npos || !all_digits(index)) {
        result.error = DottedPath::Error::malformed_index;
        result.part = part;
        return result;
      }
      result.segments.push_back(index);
      position = close + 1;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return result;
}

void apply_override(ConfigNode& root, const std::string& assignment) {
  const std::size_t equals = assignment.find('=');
  const std::string path = trim(assignment.substr(0, equals));
  if (equals == std::string::npos || path.empty()) {
    throw InputError("invalid override '" + assignment +
                     "': expected --set dotted.path=value (e.g. --set integrator.dt=1e-4)");
  }
  const std::vector<std::string> segments = split_override_path(path, assignment);

  const SourceLocation origin{"--set " + assignment, 0, 0};
  const std::string value_text = assignment.substr(equals + 1);
  YAML::Node yaml;
  try {
    yaml = YAML::Load(value_text);
  } catch (const YAML::Exception& error) {
    override_error(assignment, "the value '" + value_text + "' is not valid YAML: " + error.msg);
  }
  ConfigNode value = convert(yaml, origin, "", origin.file, &origin);

  ConfigNode* current = &root;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::string& segment = segments[i];
    const bool last = i + 1 == segments.size();
    if (current->is_null()) {
      *current = ConfigNode(ConfigNode::Kind::map, current->location(), current->path());
    }
    if (current->is_map()) {
      if (last) {
        current->set(segment, std::move(value));
        break;
      }
      ConfigNode* child = current->find(segment);
      if (child == nullptr) {
        child = &current->set(segment, ConfigNode(ConfigNode::Kind::map, origin, ""));
      }
      current = child;
    } else if (current->is_sequence()) {
      ConfigNode& element = sequence_element(*current, segment, assignment);
      if (last) {
        element = std::move(value);
        break;
      }
      current = &element;
    } else {
      override_error(assignment, "cannot go into '" + segment + "': '" + current->display_path() +
                                     "' is a single value (" + describe(*current) + ", from " +
                                     current->location().str() + "), not a map or a list");
    }
  }
  root.rebase_path("");
}

}  // namespace contactlab::core
