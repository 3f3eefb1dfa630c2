// Comparison files: the variants section, its expansion into named variants, each variant's
// configuration and their validation (see compare.hpp).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>

#include "contactlab/core/compare.hpp"
#include "contactlab/core/scene.hpp"

namespace contactlab::core {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaximumVariants = 100000;
constexpr std::size_t kMaximumLabel = 48;  ///< characters of one path's part of a variant name

[[noreturn]] void fail_at_location(const SourceLocation& location, const std::string& path,
                                   const std::string& message) {
  fail_at(ConfigNode(ConfigNode::Kind::null, location, path), message);
}

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
}

/// "bodies[1].initial.position_m" and "bodies.1.initial.position_m" give the same segments.
std::vector<std::string> split_path(const VariantAxis& axis) {
  const std::string where = "variants." + axis.path;
  DottedPath split = split_dotted_path(axis.path);
  if (split.error == DottedPath::Error::empty_name)
    fail_at_location(axis.key_location, where,
                     "empty name in the dotted path '" + axis.path +
                         "' (expected e.g. contact.force_law.type or bodies.ball.mass.mass_kg)");
  if (split.error == DottedPath::Error::malformed_index)
    fail_at_location(axis.key_location, where,
                     "malformed index in '" + split.part + "' (expected name[0])");
  return std::move(split.segments);
}

std::string describe(const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::null:
      return "an empty value";
    case ConfigNode::Kind::scalar:
      return "'" + node.scalar() + "'";
    case ConfigNode::Kind::sequence:
      return "a list of " + std::to_string(node.size());
    case ConfigNode::Kind::map:
      return "a map";
  }
  return "a value";
}

bool needs_quotes(const std::string& text) {
  if (text.empty()) return true;
  if (text.front() == ' ' || text.back() == ' ') return true;
  return text.find_first_of(",[]{}:#'\"\n") != std::string::npos;
}

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

/// The value in YAML flow style: `hertz`, `[0, 0, -1]`, `{type: linear, params: {k: 1}}`.
std::string flow_text(const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::null:
      return "null";
    case ConfigNode::Kind::scalar:
      return needs_quotes(node.scalar()) ? quoted(node.scalar()) : node.scalar();
    case ConfigNode::Kind::sequence: {
      std::string out = "[";
      for (std::size_t i = 0; i < node.size(); ++i) out += (i ? ", " : "") + flow_text(node.at(i));
      return out + "]";
    }
    case ConfigNode::Kind::map: {
      std::string out = "{";
      bool first = true;
      for (const auto& [key, value] : node.entries()) {
        out +=
            (first ? "" : ", ") + (needs_quotes(key) ? quoted(key) : key) + ": " + flow_text(value);
        first = false;
      }
      return out + "}";
    }
  }
  return "";
}

/// A short label of a value for names: scalars as written (paths by their file name), list items
/// joined by '_', map values (keys left out) joined by '-'.
std::string label(const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::null:
      return "null";
    case ConfigNode::Kind::scalar: {
      // A file path contributes its file name (a plugin `library:`, a mesh).
      const std::string& text = node.scalar();
      const std::size_t slash = text.find_last_of('/');
      return slash == std::string::npos || slash + 1 == text.size() ? text : text.substr(slash + 1);
    }
    case ConfigNode::Kind::sequence: {
      std::string out;
      for (std::size_t i = 0; i < node.size(); ++i) out += (i ? "_" : "") + label(node.at(i));
      return out;
    }
    case ConfigNode::Kind::map: {
      std::string out;
      for (const auto& entry : node.entries())
        out += (out.empty() ? "" : "-") + label(entry.second);
      return out;
    }
  }
  return "";
}

std::uint64_t fnv1a(const std::string& text, std::uint64_t hash = 1469598103934665603ull) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string hex(std::uint64_t value, int digits) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return std::string(buffer + 16 - digits);
}

/// Keeps [A-Za-z0-9._+=-]; any other run of characters becomes one '_'.
std::string filesystem_safe(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    const bool keep =
        std::isalnum(c) != 0 || c == '.' || c == '_' || c == '+' || c == '-' || c == '=';
    if (keep) {
      out += static_cast<char>(c);
    } else if (out.empty() || out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  while (!out.empty() && out.front() == '_') out.erase(out.begin());
  return out;
}

std::string name_part(const ConfigNode& value) {
  const std::string full = label(value);
  std::string part = filesystem_safe(full);
  if (part.empty()) part = "empty";
  if (part.size() > kMaximumLabel)
    part = part.substr(0, kMaximumLabel - 7) + "~" + hex(fnv1a(full), 6);
  return part;
}

/// Unique, filesystem-safe names from the values; "__" separates the paths' parts. A name that
/// would repeat an earlier one (two values with the same label) gets "-2", "-3", ...
void name_variants(std::vector<Variant>& variants, const std::vector<VariantAxis>& axes) {
  static const std::set<std::string> reserved = {"comparison.csv", "comparison.md",
                                                 "comparison.json", ".", ".."};
  std::set<std::string> used;
  for (Variant& variant : variants) {
    std::string name;
    for (const VariantSetting& setting : variant.settings)
      name += (name.empty() ? "" : "__") + name_part(axes[setting.axis].values[setting.value]);
    if (name.front() == '-' || name.front() == '.') name = "v" + name;  // not an option, not hidden
    if (reserved.count(name)) name += "-run";
    std::string unique = name;
    for (int k = 2; used.count(unique); ++k) unique = name + "-" + std::to_string(k);
    used.insert(unique);
    variant.name = unique;
  }
}

/// The element of `sequence` addressed by `segment` (index or `name:`), or a located error.
ConfigNode& sequence_element(ConfigNode& sequence, const std::string& segment,
                             const VariantAxis& axis) {
  const std::string where = "variants." + axis.path;
  const std::string list = "'" + sequence.display_path() + "'";
  if (all_digits(segment)) {
    std::size_t index = 0;
    const auto result = std::from_chars(segment.data(), segment.data() + segment.size(), index);
    if (result.ec != std::errc{} || index >= sequence.size())
      fail_at_location(axis.key_location, where,
                       "index " + segment + " is out of range: " + list + " is a list of " +
                           std::to_string(sequence.size()));
    return sequence.at(index);
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    ConfigNode& item = sequence.at(i);
    const ConfigNode* name = item.is_map() ? item.find("name") : nullptr;
    if (name == nullptr || !name->is_scalar()) continue;
    if (name->scalar() == segment) return item;
    names.push_back(name->scalar());
  }
  std::string message = "no element named '" + segment + "' in " + list;
  if (names.empty()) {
    message += " (its elements have no 'name:'; use an index)";
  } else {
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "'" : ", '") + n + "'";
    message += " (known names: " + known + ")";
    const std::string suggestion = did_you_mean(segment, names);
    if (!suggestion.empty()) message += "; did you mean '" + suggestion + "'?";
  }
  fail_at_location(axis.key_location, where, message);
}

/// Sets `value` at the axis' path in `root`, creating missing map keys.
void set_at_path(ConfigNode& root, const VariantAxis& axis, const ConfigNode& value) {
  const std::vector<std::string> segments = split_path(axis);
  ConfigNode* current = &root;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::string& segment = segments[i];
    const bool last = i + 1 == segments.size();
    if (current->is_null())
      *current = ConfigNode(ConfigNode::Kind::map, axis.key_location, current->path());
    if (current->is_map()) {
      if (last) {
        current->set(segment, value);
        return;
      }
      ConfigNode* child = current->find(segment);
      if (child == nullptr)
        child = &current->set(segment, ConfigNode(ConfigNode::Kind::map, axis.key_location, ""));
      current = child;
    } else if (current->is_sequence()) {
      ConfigNode& element = sequence_element(*current, segment, axis);
      if (last) {
        const std::string path = element.path();
        element = value;
        element.rebase_path(path);
        return;
      }
      current = &element;
    } else {
      fail_at_location(axis.key_location, "variants." + axis.path,
                       "cannot go into '" + segment + "': '" + current->display_path() +
                           "' is a single value (" + describe(*current) + ", from " +
                           current->location().str() + "), not a map or a list");
    }
  }
}

std::string settings_text(const ComparisonSpec& spec, const Variant& variant) {
  std::string out;
  for (const VariantSetting& setting : variant.settings)
    out += (out.empty() ? "" : ", ") + spec.axes[setting.axis].path + " = " + setting.text;
  return out;
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  auto number = [&](const std::string& part, int& out) {
    if (!all_digits(part)) return false;
    const auto result = std::from_chars(part.data(), part.data() + part.size(), out);
    return result.ec == std::errc{} && result.ptr == part.data() + part.size();
  };
  Shard shard;
  if (slash == std::string::npos || !number(text.substr(0, slash), shard.index) ||
      !number(text.substr(slash + 1), shard.count))
    throw InputError("--shard " + text + ": expected i/N with whole numbers, e.g. --shard 2/8");
  if (shard.count < 1) throw InputError("--shard " + text + ": N must be at least 1");
  if (shard.index < 1 || shard.index > shard.count)
    throw InputError("--shard " + text + ": i must be between 1 and N = " +
                     std::to_string(shard.count) + " (shards are numbered from 1)");
  return shard;
}

const std::vector<std::string>& default_comparison_columns() {
  static const std::vector<std::string> columns = {
      "wall_time_s",           "time_reached_s", "steps",    "rejected_steps",    "rhs_evaluations",
      "narrow_phase_queries",  "events",         "impulses", "max_penetration_m", "energy_drift_J",
      "energy_max_deviation_J"};
  return columns;
}

ComparisonSpec load_comparison(const fs::path& file, const std::vector<std::string>& overrides) {
  ComparisonSpec spec;
  spec.file = file;
  spec.overrides = overrides;
  ConfigNode root = load_config_file(file);
  for (const std::string& assignment : overrides) apply_override(root, assignment);
  if (!root.is_map())
    fail_at(root, "a comparison file must be a map: an experiment plus 'variants:'");
  const ConfigNode* variants = root.find("variants");
  if (variants == nullptr)
    fail_at(root,
            "missing required key 'variants' (a comparison file is an experiment plus "
            "'variants:', dotted paths each set to a list of values)");
  if (!variants->is_map() || variants->entries().empty())
    fail_at(*variants,
            "'variants' must map dotted paths to lists of values, e.g. "
            "contact.force_law.type: [hertz, linear]; got " +
                describe(*variants));
  for (const auto& [path, values] : variants->entries()) {
    VariantAxis axis;
    axis.path = path;
    axis.key_location = values.location();
    if (!values.is_sequence() || values.size() == 0)
      fail_at(values, "each variant path takes a non-empty list of values, e.g. " + path +
                          ": [a, b]; got " + describe(values) +
                          " (a single value belongs in the experiment itself)");
    for (const ConfigNode& value : values.items()) axis.values.push_back(value);
    split_path(axis);  // syntax errors now, before anything else
    for (const VariantAxis& other : spec.axes)
      if (other.path == path)
        fail_at(values, "the path '" + path + "' is given twice in 'variants'");
    spec.axes.push_back(std::move(axis));
  }

  if (const ConfigNode* combine = root.find("combine")) {
    const std::string text = combine->is_scalar() ? combine->scalar() : "";
    if (text == "product") {
      spec.combine = Combine::product;
    } else if (text == "zip") {
      spec.combine = Combine::zip;
    } else {
      std::string message = "must be product or zip, got " + describe(*combine);
      const std::string suggestion = did_you_mean(text, {"product", "zip"});
      if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
      fail_at(*combine, message);
    }
  }
  if (spec.combine == Combine::zip) {
    const VariantAxis& first = spec.axes.front();
    for (const VariantAxis& axis : spec.axes)
      if (axis.values.size() != first.values.size())
        fail_at_location(axis.key_location, "variants." + axis.path,
                         "combine: zip needs lists of one length: '" + first.path + "' has " +
                             std::to_string(first.values.size()) + " values, '" + axis.path +
                             "' has " + std::to_string(axis.values.size()));
  }

  if (const ConfigNode* columns = root.find("columns")) {
    if (!columns->is_sequence() || columns->size() == 0)
      fail_at(*columns,
              "'columns' must be a list of summary.json keys (dotted), got " + describe(*columns));
    for (const ConfigNode& column : columns->items()) {
      if (!column.is_scalar() || column.scalar().empty())
        fail_at(column,
                "a column is a summary.json key such as steps or phase_time_s.broad_phase, "
                "got " +
                    describe(column));
      spec.columns.push_back(column.scalar());
    }
  } else {
    spec.columns = default_comparison_columns();
    // The base experiment's own metrics: its restitution pair's and its probes' values.
    const ConfigNode* metrics = root.find("metrics");
    if (metrics != nullptr && metrics->is_map() && metrics->find("restitution_pair") != nullptr)
      spec.columns.push_back("restitution");
    if (const ConfigNode* probes = root.find("probes"); probes != nullptr && probes->is_sequence())
      for (const ConfigNode& probe : probes->items())
        if (const ConfigNode* probe_name = probe.is_map() ? probe.find("name") : nullptr;
            probe_name != nullptr && probe_name->is_scalar())
          spec.columns.push_back("probes." + probe_name->scalar());
  }

  root.erase("variants");
  root.erase("combine");
  root.erase("columns");
  const ConfigNode* name = root.find("name");
  spec.name = name != nullptr && name->is_scalar() ? name->scalar() : file.stem().string();
  spec.base = std::move(root);

  // Expansion: the last path varies fastest (like nested loops in the file's order).
  std::size_t count = spec.combine == Combine::zip ? spec.axes.front().values.size() : 1;
  if (spec.combine == Combine::product) {
    for (const VariantAxis& axis : spec.axes) {
      count *= axis.values.size();
      if (count > kMaximumVariants)
        fail_at_location(spec.axes.front().key_location, "variants",
                         "the product of the variant lists exceeds " +
                             std::to_string(kMaximumVariants) + " variants");
    }
  }
  spec.variants.resize(count);
  for (std::size_t k = 0; k < count; ++k) {
    Variant& variant = spec.variants[k];
    variant.index = k;
    std::size_t rest = k;
    std::vector<std::size_t> choice(spec.axes.size());
    for (std::size_t a = spec.axes.size(); a-- > 0;) {
      if (spec.combine == Combine::zip) {
        choice[a] = k;
      } else {
        choice[a] = rest % spec.axes[a].values.size();
        rest /= spec.axes[a].values.size();
      }
    }
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      variant.settings.push_back(
          VariantSetting{a, choice[a], flow_text(spec.axes[a].values[choice[a]])});
  }
  name_variants(spec.variants, spec.axes);

  std::string identity =
      to_yaml(spec.base) + '\n' + (spec.combine == Combine::zip ? "zip" : "product");
  for (const Variant& variant : spec.variants) {
    identity += '\n' + variant.name;
    for (const VariantSetting& setting : variant.settings)
      identity += '\n' + spec.axes[setting.axis].path + '=' + setting.text;
  }
  spec.fingerprint = hex(fnv1a(identity), 16);
  return spec;
}

ConfigNode variant_configuration(const ComparisonSpec& spec, const Variant& variant) {
  ConfigNode config = spec.base;
  for (const VariantSetting& setting : variant.settings) {
    const VariantAxis& axis = spec.axes[setting.axis];
    set_at_path(config, axis, axis.values[setting.value]);
  }
  config.rebase_path("");
  return config;
}

std::vector<std::string> validate_variants(const ComparisonSpec& spec, PluginRegistry& registry) {
  std::vector<std::string> messages;
  std::map<std::string, std::size_t> seen;  // error text -> position in messages
  std::vector<std::size_t> repeats;
  for (const Variant& variant : spec.variants) {
    std::string error;
    try {
      build_scene(variant_configuration(spec, variant), spec.file, registry);
    } catch (const InputError& e) {
      error = e.what();
    } catch (const PluginError& e) {
      error = e.what();
    }
    if (error.empty()) continue;
    const auto found = seen.find(error);
    if (found != seen.end()) {
      ++repeats[found->second];
      continue;
    }
    seen.emplace(error, messages.size());
    repeats.push_back(0);
    messages.push_back(error + "\n  in variant '" + variant.name + "' (" +
                       settings_text(spec, variant) + ")");
  }
  for (std::size_t i = 0; i < messages.size(); ++i)
    if (repeats[i] > 0)
      messages[i] += " and " + std::to_string(repeats[i]) + " more variant" +
                     (repeats[i] > 1 ? "s" : "") + " with the same error";
  return messages;
}

const Variant& find_variant(const ComparisonSpec& spec, const std::string& name) {
  std::vector<std::string> names;
  for (const Variant& variant : spec.variants) {
    if (variant.name == name) return variant;
    names.push_back(variant.name);
  }
  std::string message = spec.file.string() + ": no variant named '" + name + "'";
  const std::string suggestion = did_you_mean(name, names);
  if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
  throw InputError(message);
}

}  // namespace contactlab::core
