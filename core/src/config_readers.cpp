// Reading values out of the configuration tree: scalar conversions (a finite number, an integer,
// true/false, text, a 3-vector) and range checks with errors located at the node, and MapReader,
// the strict reader of one map: a key nobody asked for is an error ("unknown key 'x'" with a
// "did you mean" or the allowed keys), a required key that is missing names it (or the present
// key that is its near miss), and defaults are filled into the tree so the resolved file shows
// them.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <system_error>

#include "config_internal.hpp"

namespace contactlab::core {

using namespace config_detail;

namespace {

const char* const kDefaultFile = "<default>";

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

/// Number text for the tree (YAML spellings for the non-finite values).
std::string yaml_number(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  return format_number(value);
}

/// Drops a leading '+' (YAML allows it, std::from_chars does not).
std::string_view without_plus(const std::string& text) {
  std::string_view view(text);
  if (view.size() > 1 && view.front() == '+' && view[1] != '+' && view[1] != '-') {
    view.remove_prefix(1);
  }
  return view;
}

const std::string& scalar_or_fail(const ConfigNode& node, const std::string& expected) {
  if (!node.is_scalar()) fail_at(node, "must be " + expected + ", got " + describe(node));
  return node.scalar();
}

std::pair<std::string, ConfigNode>* find_default(
    std::deque<std::pair<std::string, ConfigNode>>& defaults, const std::string& key) {
  for (auto& entry : defaults) {
    if (entry.first == key) return &entry;
  }
  return nullptr;
}

}  // namespace

double as_real(const ConfigNode& node) {
  const std::string& text = scalar_or_fail(node, "a finite number");
  const std::string_view view = without_plus(text);
  double value = 0.0;
  const auto result =
      std::from_chars(view.data(), view.data() + view.size(), value, std::chars_format::general);
  bool ok = result.ptr == view.data() + view.size() && !view.empty();
  if (ok && result.ec == std::errc::result_out_of_range) {
    // Underflow to (sub)normal is fine; overflow gives infinity and is refused below.
    value = std::strtod(std::string(view).c_str(), nullptr);
  } else if (result.ec != std::errc{}) {
    ok = false;
  }
  if (!ok || !std::isfinite(value)) fail_at(node, "must be a finite number, got " + describe(node));
  return value;
}

std::int64_t as_integer(const ConfigNode& node) {
  const std::string& text = scalar_or_fail(node, "an integer");
  const std::string_view view = without_plus(text);
  std::int64_t value = 0;
  const auto result = std::from_chars(view.data(), view.data() + view.size(), value);
  if (result.ec == std::errc::result_out_of_range) {
    fail_at(node, "integer " + describe(node) + " is out of range");
  }
  if (result.ec != std::errc{} || result.ptr != view.data() + view.size() || view.empty()) {
    fail_at(node, "must be an integer, got " + describe(node));
  }
  return value;
}

bool as_boolean(const ConfigNode& node) {
  const std::string& text = scalar_or_fail(node, "true or false");
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  fail_at(node, "must be true or false, got " + describe(node));
}

std::string as_string(const ConfigNode& node) {
  return scalar_or_fail(node, "a text value");
}

Vec3 as_vec3(const ConfigNode& node) {
  if (!node.is_sequence() || node.size() != 3) {
    fail_at(node, "must be a list of 3 numbers [x, y, z], got " + describe(node));
  }
  return Vec3(as_real(node.at(0)), as_real(node.at(1)), as_real(node.at(2)));
}

void check_range(const ConfigNode& node, double value, double minimum, double maximum,
                 bool minimum_exclusive, bool maximum_exclusive, const std::string& unit) {
  // Written so that NaN is out of every range.
  const bool above_minimum = minimum_exclusive ? value > minimum : value >= minimum;
  const bool below_maximum = maximum_exclusive ? value < maximum : value <= maximum;
  if (above_minimum && below_maximum) return;
  std::string message = "value " + format_number(value) + " out of range " +
                        (minimum_exclusive ? "(" : "[") + format_number(minimum) + ", " +
                        format_number(maximum) + (maximum_exclusive ? ")" : "]");
  if (!unit.empty()) message += " " + unit;
  fail_at(node, message);
}

// -------------------------------------------------------------------------------------------------
// MapReader

MapReader::MapReader(ConfigNode& node) : node_(node) {
  if (node_.is_null()) {
    node_ = ConfigNode(ConfigNode::Kind::map, node_.location(), node_.path());
  } else if (!node_.is_map()) {
    fail_at(node_, "must be a map (key: value pairs), got " + describe(node_));
  }
}

bool MapReader::has(const std::string& key) {
  return optional(key) != nullptr;
}

ConfigNode* MapReader::optional(const std::string& key) {
  if (!contains(known_, key)) known_.push_back(key);
  if (ConfigNode* found = node_.find(key)) return found;
  if (auto* pending = find_default(defaults_, key)) return &pending->second;
  return nullptr;
}

ConfigNode& MapReader::required(const std::string& key) {
  if (ConfigNode* found = optional(key)) return *found;
  std::vector<std::string> unread;
  for (const auto& entry : node_.entries()) {
    if (!contains(known_, entry.first)) unread.push_back(entry.first);
  }
  // A present key that is a near miss of the required one is the likelier mistake: point at it.
  const std::string misspelt = did_you_mean(key, unread);
  if (!misspelt.empty())
    fail_at(*node_.find(misspelt), "unknown key '" + misspelt + "' (did you mean '" + key +
                                       "'?); '" + key + "' is required");
  fail_at(node_, "missing required key '" + key + "'");
}

double MapReader::real(const std::string& key) {
  return as_real(required(key));
}

double MapReader::real_or(const std::string& key, double default_value) {
  if (const ConfigNode* found = optional(key)) return as_real(*found);
  defaults_.emplace_back(key,
                         ConfigNode::make_scalar(yaml_number(default_value), {kDefaultFile, 0, 0},
                                                 child_path(node_.path(), key)));
  return default_value;
}

double MapReader::real_in(const std::string& key, double minimum, double maximum,
                          bool minimum_exclusive, bool maximum_exclusive) {
  const ConfigNode& node = required(key);
  const double value = as_real(node);
  check_range(node, value, minimum, maximum, minimum_exclusive, maximum_exclusive);
  return value;
}

double MapReader::real_in_or(const std::string& key, double default_value, double minimum,
                             double maximum, bool minimum_exclusive, bool maximum_exclusive) {
  if (node_.find(key) == nullptr) return real_or(key, default_value);
  return real_in(key, minimum, maximum, minimum_exclusive, maximum_exclusive);
}

std::int64_t MapReader::integer_or(const std::string& key, std::int64_t default_value) {
  if (const ConfigNode* found = optional(key)) return as_integer(*found);
  defaults_.emplace_back(
      key, ConfigNode::make_scalar(std::to_string(default_value), {kDefaultFile, 0, 0},
                                   child_path(node_.path(), key)));
  return default_value;
}

bool MapReader::boolean_or(const std::string& key, bool default_value) {
  if (const ConfigNode* found = optional(key)) return as_boolean(*found);
  defaults_.emplace_back(
      key, ConfigNode::make_scalar(default_value ? "true" : "false", {kDefaultFile, 0, 0},
                                   child_path(node_.path(), key)));
  return default_value;
}

std::string MapReader::string(const std::string& key) {
  return as_string(required(key));
}

std::string MapReader::string_or(const std::string& key, const std::string& default_value) {
  if (const ConfigNode* found = optional(key)) return as_string(*found);
  defaults_.emplace_back(key, ConfigNode::make_scalar(default_value, {kDefaultFile, 0, 0},
                                                      child_path(node_.path(), key)));
  return default_value;
}

std::string MapReader::choice_or(const std::string& key, const std::string& default_value,
                                 const std::vector<std::string>& choices) {
  const std::string value = string_or(key, default_value);
  if (contains(choices, value)) return value;
  std::string message = "must be one of " + join(choices, ", ") + ", got '" + value + "'";
  const std::string suggestion = did_you_mean(value, choices);
  if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
  fail_at(*optional(key), message);
}

Vec3 MapReader::vec3(const std::string& key) {
  return as_vec3(required(key));
}

Vec3 MapReader::vec3_or(const std::string& key, const Vec3& default_value) {
  if (const ConfigNode* found = optional(key)) return as_vec3(*found);
  const SourceLocation location{kDefaultFile, 0, 0};
  ConfigNode list(ConfigNode::Kind::sequence, location, "");
  for (int i = 0; i < 3; ++i) {
    list.push_back(ConfigNode::make_scalar(yaml_number(default_value[i]), location, ""));
  }
  list.rebase_path(child_path(node_.path(), key));
  defaults_.emplace_back(key, std::move(list));
  return default_value;
}

void MapReader::finish() {
  for (const auto& [key, value] : node_.entries()) {
    if (contains(known_, key)) continue;
    const std::string suggestion = did_you_mean(key, known_);
    if (!suggestion.empty()) {
      fail_at(value, "unknown key '" + key + "' (did you mean '" + suggestion + "'?)");
    }
    if (known_.empty()) fail_at(value, "unknown key '" + key + "' (no keys are allowed here)");
    fail_at(value, "unknown key '" + key + "' (allowed keys: " + join(known_, ", ") + ")");
  }
  for (auto& [key, value] : defaults_) {
    if (node_.find(key) == nullptr) node_.set(key, std::move(value));
  }
  defaults_.clear();
}

}  // namespace contactlab::core
