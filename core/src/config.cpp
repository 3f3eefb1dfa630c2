// Configuration tree: YAML text (with includes) and --set overrides become ConfigNode trees that
// remember where every value came from; strict readers turn mistakes into located, helpful errors.
#include "contactlab/core/config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace contactlab::core {
namespace {

namespace fs = std::filesystem;

const char* const kDefaultFile = "<default>";

std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string index_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

/// Compact, exact number text for messages: shortest round-trip form, "inf"/"-inf"/"nan".
std::string format_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

/// Number text for the tree (YAML spellings for the non-finite values).
std::string yaml_number(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  return format_number(value);
}

/// A short description of what a node holds, for "got ..." in messages.
std::string describe(const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::null:
      return "an empty value";
    case ConfigNode::Kind::scalar: {
      constexpr std::size_t kMaximum = 60;
      const std::string& text = node.scalar();
      if (text.size() <= kMaximum && text.find('\n') == std::string::npos) return "'" + text + "'";
      return "'" + text.substr(0, std::min(kMaximum, text.find('\n'))) + "...'";
    }
    case ConfigNode::Kind::sequence:
      return "a list of " + std::to_string(node.size());
    case ConfigNode::Kind::map:
      return "a map";
  }
  return "an unknown value";
}

[[noreturn]] void fail_at_location(const SourceLocation& location, const std::string& path,
                                   const std::string& message) {
  fail_at(ConfigNode(ConfigNode::Kind::null, location, path), message);
}

// ---------------------------------------------------------------------------------------------
// YAML -> ConfigNode

bool valid(const YAML::Mark& mark) {
  return mark.line >= 0 && mark.column >= 0;
}

SourceLocation location_of(const YAML::Mark& mark, const std::string& file) {
  if (!valid(mark)) return SourceLocation{file, 0, 0};
  return SourceLocation{file, mark.line + 1, mark.column + 1};
}

/// Converts a yaml-cpp node. `fixed` (when not null) is used as the location of every node
/// (command-line values); otherwise locations come from the YAML marks.
ConfigNode convert(const YAML::Node& yaml, const SourceLocation& location, const std::string& path,
                   const std::string& file, const SourceLocation* fixed) {
  switch (yaml.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return ConfigNode(ConfigNode::Kind::null, location, path);
    case YAML::NodeType::Scalar:
      return ConfigNode::make_scalar(yaml.Scalar(), location, path);
    case YAML::NodeType::Sequence: {
      ConfigNode node(ConfigNode::Kind::sequence, location, path);
      for (const YAML::Node& item : yaml) {
        SourceLocation item_location = fixed ? *fixed : location_of(item.Mark(), file);
        if (item_location.line == 0) item_location = location;
        node.push_back(convert(item, item_location, index_path(path, node.size()), file, fixed));
      }
      return node;
    }
    case YAML::NodeType::Map: {
      ConfigNode node(ConfigNode::Kind::map, location, path);
      for (auto it = yaml.begin(); it != yaml.end(); ++it) {
        const YAML::Node key = it->first;  // copies: `*it` is a temporary
        const YAML::Node value = it->second;
        SourceLocation key_location = fixed ? *fixed : location_of(key.Mark(), file);
        if (key_location.line == 0 && !fixed) key_location = location;
        if (!key.IsScalar()) {
          fail_at_location(key_location, path,
                           key.IsNull() ? "a map key is empty (every key needs a name)"
                                        : "map keys must be plain names, not lists or maps");
        }
        const std::string& name = key.Scalar();
        const std::string value_path = child_path(path, name);
        if (const ConfigNode* previous = node.find(name)) {
          fail_at_location(
              key_location, value_path,
              "duplicate key '" + name + "' (first given at " + previous->location().str() + ")");
        }
        // A node's location is its value's when the value starts on the key's line, otherwise
        // the key's (block maps and lists start on the next line; empty values have no mark).
        SourceLocation value_location = key_location;
        if (!fixed && valid(value.Mark()) && value.Mark().line == key.Mark().line) {
          value_location = location_of(value.Mark(), file);
        }
        node.set(name, convert(value, value_location, value_path, file, fixed));
      }
      return node;
    }
  }
  return ConfigNode(ConfigNode::Kind::null, location, path);
}

std::string yaml_error_text(const YAML::Exception& error, const std::string& file) {
  return location_of(error.mark, file).str() + ": YAML syntax error: " + error.msg;
}

// ---------------------------------------------------------------------------------------------
// Files and includes

std::string read_text(const fs::path& file, const std::string& label, const ConfigNode* site) {
  auto fail = [&](const std::string& reason) {
    const std::string message = "cannot open configuration file '" + label + "': " + reason;
    if (site != nullptr) fail_at(*site, message);
    throw InputError(message);
  };
  std::error_code error;
  const fs::file_status status = fs::status(file, error);
  if (status.type() == fs::file_type::not_found) {
    fail(std::generic_category().message(ENOENT));
  }
  if (error) fail(error.message());
  if (fs::is_directory(status)) fail(std::generic_category().message(EISDIR));
  errno = 0;
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(std::generic_category().message(errno != 0 ? errno : EIO));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail("read error");
  return text.str();
}

/// Merges `overlay` into `base` (both maps): overlay keys win, maps merge recursively, everything
/// else is replaced. A merged map takes the overlay's location.
void merge_into(ConfigNode& base, ConfigNode overlay) {
  for (auto& [key, value] : overlay.entries()) {
    ConfigNode* existing = base.find(key);
    if (existing != nullptr && existing->is_map() && value.is_map()) {
      ConfigNode merged(ConfigNode::Kind::map, value.location(), existing->path());
      merged.entries() = std::move(existing->entries());
      merge_into(merged, std::move(value));
      *existing = std::move(merged);
    } else {
      base.set(key, std::move(value));
    }
  }
}

struct IncludeFrame {
  fs::path canonical;
  std::string label;
};

fs::path canonical_or_absolute(const fs::path& file) {
  std::error_code error;
  fs::path result = fs::weakly_canonical(file, error);
  if (error) result = fs::absolute(file, error).lexically_normal();
  return result;
}

ConfigNode load_recursive(const fs::path& file, const std::string& label,
                          std::vector<IncludeFrame>& stack, const ConfigNode* site) {
  const fs::path canonical = canonical_or_absolute(file);
  for (std::size_t i = 0; i < stack.size(); ++i) {
    if (stack[i].canonical == canonical) {
      std::vector<std::string> chain;
      for (std::size_t j = i; j < stack.size(); ++j) chain.push_back(stack[j].label);
      chain.push_back(label);
      const std::string message = "include cycle: " + join(chain, " -> ");
      if (site != nullptr) fail_at(*site, message);
      throw InputError(message);
    }
  }

  ConfigNode root = parse_yaml(read_text(file, label, site), label);
  if (!root.is_map()) return root;
  const ConfigNode* include_entry = root.find("include");
  if (include_entry == nullptr) return root;
  const ConfigNode include = *include_entry;
  root.erase("include");

  std::vector<const ConfigNode*> names;
  if (include.is_scalar()) {
    names.push_back(&include);
  } else if (include.is_sequence()) {
    for (const ConfigNode& item : include.items()) {
      if (!item.is_scalar()) {
        fail_at(item, "include entries must be file names, got " + describe(item));
      }
      names.push_back(&item);
    }
  } else if (include.is_map()) {
    fail_at(include, "'include' must be a file name or a list of file names, got a map");
  }

  stack.push_back(IncludeFrame{canonical, label});
  ConfigNode merged(ConfigNode::Kind::map, root.location(), "");
  for (const ConfigNode* name : names) {
    if (name->scalar().empty()) fail_at(*name, "empty file name in 'include'");
    const fs::path included = file.parent_path() / fs::path(name->scalar());
    ConfigNode sub = load_recursive(included, included.lexically_normal().string(), stack, name);
    if (sub.is_null()) continue;  // an empty file contributes nothing
    if (!sub.is_map()) {
      fail_at(sub, "an included file must contain a map (key: value pairs), got " + describe(sub));
    }
    merge_into(merged, std::move(sub));
  }
  stack.pop_back();
  merge_into(merged, std::move(root));
  return merged;
}

// ---------------------------------------------------------------------------------------------
// Overrides

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

// ---------------------------------------------------------------------------------------------
// Emitting

void emit(YAML::Emitter& out, const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::null:
      out << YAML::Null;
      break;
    case ConfigNode::Kind::scalar:
      out << node.scalar();
      break;
    case ConfigNode::Kind::sequence:
      out << YAML::BeginSeq;
      for (const ConfigNode& item : node.items()) emit(out, item);
      out << YAML::EndSeq;
      break;
    case ConfigNode::Kind::map:
      out << YAML::BeginMap;
      for (const auto& [key, value] : node.entries()) {
        out << YAML::Key << key << YAML::Value;
        emit(out, value);
      }
      out << YAML::EndMap;
      break;
  }
}

// ---------------------------------------------------------------------------------------------
// Scalar conversions

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

// -------------------------------------------------------------------------------------------------
// SourceLocation, ConfigNode

std::string SourceLocation::str() const {
  if (line <= 0) return file;
  if (column <= 0) return file + ":" + std::to_string(line);
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

ConfigNode::ConfigNode(Kind kind, SourceLocation location, std::string path)
    : kind_(kind), location_(std::move(location)), path_(std::move(path)) {}

ConfigNode::ConfigNode(const ConfigNode&) = default;
ConfigNode& ConfigNode::operator=(const ConfigNode&) = default;

std::string ConfigNode::display_path() const {
  return path_.empty() ? "(top level)" : path_;
}

const std::string& ConfigNode::scalar() const {
  return scalar_;
}

void ConfigNode::set_scalar(std::string text) {
  kind_ = Kind::scalar;
  scalar_ = std::move(text);
  map_.clear();
  sequence_.clear();
}

ConfigNode* ConfigNode::find(const std::string& key) {
  for (auto& entry : map_) {
    if (entry.first == key) return &entry.second;
  }
  return nullptr;
}

const ConfigNode* ConfigNode::find(const std::string& key) const {
  for (const auto& entry : map_) {
    if (entry.first == key) return &entry.second;
  }
  return nullptr;
}

ConfigNode& ConfigNode::set(const std::string& key, ConfigNode child) {
  if (kind_ == Kind::null) kind_ = Kind::map;
  if (kind_ != Kind::map) {
    throw std::logic_error("ConfigNode::set('" + key + "') on '" + display_path() +
                           "', which is not a map");
  }
  child.rebase_path(child_path(path_, key));
  if (ConfigNode* existing = find(key)) {
    *existing = std::move(child);
    return *existing;
  }
  map_.emplace_back(key, std::move(child));
  return map_.back().second;
}

bool ConfigNode::erase(const std::string& key) {
  const auto it =
      std::find_if(map_.begin(), map_.end(), [&](const auto& entry) { return entry.first == key; });
  if (it == map_.end()) return false;
  map_.erase(it);
  return true;
}

ConfigNode& ConfigNode::push_back(ConfigNode child) {
  if (kind_ == Kind::null) kind_ = Kind::sequence;
  if (kind_ != Kind::sequence) {
    throw std::logic_error("ConfigNode::push_back on '" + display_path() +
                           "', which is not a list");
  }
  child.rebase_path(index_path(path_, sequence_.size()));
  sequence_.push_back(std::move(child));
  return sequence_.back();
}

void ConfigNode::rebase_path(const std::string& path) {
  path_ = path;
  for (auto& [key, child] : map_) child.rebase_path(child_path(path_, key));
  for (std::size_t i = 0; i < sequence_.size(); ++i) {
    sequence_[i].rebase_path(index_path(path_, i));
  }
}

ConfigNode ConfigNode::make_scalar(std::string text, SourceLocation location, std::string path) {
  ConfigNode node(Kind::scalar, std::move(location), std::move(path));
  node.scalar_ = std::move(text);
  return node;
}

void fail_at(const ConfigNode& node, const std::string& message) {
  throw InputError(node.location().str() + ": " + message + " (at " + node.display_path() + ")");
}

// -------------------------------------------------------------------------------------------------
// Parsing, loading, overriding, emitting

ConfigNode parse_yaml(const std::string& text, const std::string& file_label) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& error) {
    throw InputError(yaml_error_text(error, file_label));
  }
  if (documents.empty()) return ConfigNode(ConfigNode::Kind::null, {file_label, 0, 0}, "");
  if (documents.size() > 1) {
    fail_at_location(location_of(documents[1].Mark(), file_label), "",
                     "a configuration file holds one YAML document, found " +
                         std::to_string(documents.size()) + " (separated by '---')");
  }
  const YAML::Node& document = documents.front();
  return convert(document, location_of(document.Mark(), file_label), "", file_label, nullptr);
}

ConfigNode load_config_file(const std::filesystem::path& file) {
  std::vector<IncludeFrame> stack;
  ConfigNode root = load_recursive(file, file.string(), stack, nullptr);
  root.rebase_path("");
  return root;
}

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

std::string to_yaml(const ConfigNode& root) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, root);
  if (!out.good()) throw std::logic_error("to_yaml: " + out.GetLastError());
  std::string text = out.c_str();
  text += '\n';
  return text;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  auto lower = [](const std::string& text) {
    std::string out = text;
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  // Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a substring).
  auto distance = [](const std::string& a, const std::string& b) {
    const std::size_t n = a.size();
    const std::size_t m = b.size();
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1, 0));
    for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
      for (std::size_t j = 1; j <= m; ++j) {
        const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
          d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[n][m];
  };
  const std::string target = lower(word);
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const std::string& candidate : candidates) {
    const std::size_t d = distance(target, lower(candidate));
    // A candidate that shares nothing with the word (every character replaced) is no suggestion.
    if (d > limit || d >= std::max(word.size(), candidate.size())) continue;
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

// -------------------------------------------------------------------------------------------------
// Scalar conversions

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
