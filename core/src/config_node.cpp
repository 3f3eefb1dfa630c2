// The configuration tree: a ConfigNode is null, a scalar (the text as written), a sequence or a map
// (insertion order kept), and knows where it came from and its dotted path from the root.
#include <algorithm>
#include <stdexcept>

#include "config_internal.hpp"

namespace contactlab::core {

using config_detail::child_path;
using config_detail::index_path;

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

}  // namespace contactlab::core
