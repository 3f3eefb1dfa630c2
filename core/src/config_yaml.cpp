// YAML text to configuration tree and back: parsing with the location of every node (a syntax
// error, a duplicate key, a key that is not a plain name or a second document is reported at its
// file:line:col), loading a file with its `include:` files merged under it (a missing file, an
// include cycle, an included file that is not a map are errors at the include), and emitting the
// resolved tree as block YAML.
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "config_internal.hpp"

namespace contactlab::core {

using namespace config_detail;

namespace {

namespace fs = std::filesystem;

bool valid(const YAML::Mark& mark) {
  return mark.line >= 0 && mark.column >= 0;
}

SourceLocation location_of(const YAML::Mark& mark, const std::string& file) {
  if (!valid(mark)) return SourceLocation{file, 0, 0};
  return SourceLocation{file, mark.line + 1, mark.column + 1};
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

}  // namespace

ConfigNode config_detail::convert(const YAML::Node& yaml, const SourceLocation& location,
                                  const std::string& path, const std::string& file,
                                  const SourceLocation* fixed) {
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

std::string to_yaml(const ConfigNode& root) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, root);
  if (!out.good()) throw std::logic_error("to_yaml: " + out.GetLastError());
  std::string text = out.c_str();
  text += '\n';
  return text;
}

}  // namespace contactlab::core
