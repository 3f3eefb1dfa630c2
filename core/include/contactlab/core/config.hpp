// Strict configuration tree: YAML files (with includes) and --set overrides become a tree of
// ConfigNode, each node knowing where it came from (file:line:col) and its dotted path. Readers
// consume keys explicitly; a key nobody asked for is an error with a "did you mean".
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "contactlab/errors.hpp"
#include "contactlab/math.hpp"

namespace contactlab::core {

/// Where a value came from. line/column are 1-based; 0 means unknown (e.g. a filled-in default).
struct SourceLocation {
  std::string file;  ///< path as given, or "--set" for command-line overrides, "<default>"
  int line = 0;
  int column = 0;
  /// "file:line:col", or "file" when the line is unknown.
  std::string str() const;
};

class ConfigNode {
 public:
  enum class Kind { null, scalar, sequence, map };

  ConfigNode() = default;
  ConfigNode(Kind kind, SourceLocation location, std::string path);
  ConfigNode(const ConfigNode&);
  ConfigNode& operator=(const ConfigNode&);
  ConfigNode(ConfigNode&&) noexcept = default;
  ConfigNode& operator=(ConfigNode&&) noexcept = default;

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::null; }
  bool is_scalar() const { return kind_ == Kind::scalar; }
  bool is_sequence() const { return kind_ == Kind::sequence; }
  bool is_map() const { return kind_ == Kind::map; }
  const SourceLocation& location() const { return location_; }
  /// Dotted path from the root: "bodies[1].geometry[0].shape.radius_m"; "" for the root.
  const std::string& path() const { return path_; }
  /// Path for messages: the path, or "(top level)" for the root.
  std::string display_path() const;

  // Scalars (the raw text as written in YAML; quoted or not).
  const std::string& scalar() const;
  void set_scalar(std::string text);

  // Maps keep insertion order. Maps and sequences are deques so that adding a child (e.g. a
  // default filled in) never invalidates references to the existing ones.
  const std::deque<std::pair<std::string, ConfigNode>>& entries() const { return map_; }
  std::deque<std::pair<std::string, ConfigNode>>& entries() { return map_; }
  ConfigNode* find(const std::string& key);
  const ConfigNode* find(const std::string& key) const;
  /// Inserts (or replaces) `key`; the child's path is derived from this node's path.
  ConfigNode& set(const std::string& key, ConfigNode child);
  bool erase(const std::string& key);

  // Sequences.
  std::size_t size() const { return sequence_.size(); }
  ConfigNode& at(std::size_t index) { return sequence_.at(index); }
  const ConfigNode& at(std::size_t index) const { return sequence_.at(index); }
  const std::deque<ConfigNode>& items() const { return sequence_; }
  ConfigNode& push_back(ConfigNode child);

  /// Re-derives the paths of this subtree from `path` (after moving a node elsewhere).
  void rebase_path(const std::string& path);

  /// A new scalar node (e.g. a default being filled in).
  static ConfigNode make_scalar(std::string text, SourceLocation location, std::string path);

 private:
  Kind kind_ = Kind::null;
  SourceLocation location_;
  std::string path_;
  std::string scalar_;
  std::deque<std::pair<std::string, ConfigNode>> map_;
  std::deque<ConfigNode> sequence_;
};

/// Throws InputError("<file:line:col>: <message> (at <dotted path>)").
[[noreturn]] void fail_at(const ConfigNode& node, const std::string& message);

/// Parses one YAML text into a tree (`file_label` is used in locations and messages).
ConfigNode parse_yaml(const std::string& text, const std::string& file_label);

/// Loads a YAML file and resolves `include: [a.yaml, ...]` (paths relative to the including file,
/// recursively, cycles are an error). Included maps are merged under the including file: keys of
/// the including file win; nested maps merge recursively; sequences and scalars are replaced.
/// Errors: missing file ("cannot open"), YAML syntax (with file:line:col), include cycles.
ConfigNode load_config_file(const std::filesystem::path& file);

/// The segments of a dotted path, as `--set` and comparison variants write them:
/// "bodies[1].shape.radius_m" and "bodies.1.shape.radius_m" both give {bodies, 1, shape,
/// radius_m}. A path with an empty name or a malformed [index] gives `error` and the offending
/// `part` (the callers word the message for their context).
struct DottedPath {
  enum class Error { none, empty_name, malformed_index };
  std::vector<std::string> segments;
  Error error = Error::none;
  std::string part;  ///< the dot-separated part with the malformed index
};
DottedPath split_dotted_path(const std::string& path);

/// Applies one "dotted.path=value" override. Path segments name map keys; a segment addressing
/// a sequence is either an index ("bodies.1") or the `name:` of an element ("bodies.ball").
/// Missing map keys are created. The value is parsed as YAML (so "[0, 0, -1]" is a sequence).
/// Its location is "--set" with the assignment text. Errors name the segment that failed.
void apply_override(ConfigNode& root, const std::string& assignment);

/// Emits the tree as block-style YAML (keys in order).
std::string to_yaml(const ConfigNode& root);

/// Best suggestion among `candidates` for a misspelt `word` (edit distance ≤ max(2, |word|/3)),
/// or empty when none is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

/// Scalar conversions with errors located at the node ("must be a number, got 'abc'").
double as_real(const ConfigNode& node);  ///< finite double (".inf" and "nan" are refused)
std::int64_t as_integer(const ConfigNode& node);
bool as_boolean(const ConfigNode& node);  ///< true/false (YAML 1.2 core spellings)
std::string as_string(const ConfigNode& node);
Vec3 as_vec3(const ConfigNode& node);  ///< sequence of exactly 3 finite numbers

/// Strict reader over one map node: every key read (or asked about) is recorded, finish() rejects
/// the others with "unknown key 'x' (did you mean 'y'?)". `_or` readers insert the default into the
/// tree so the resolved configuration shows it; the insertion happens in finish(), so references
/// returned by required()/optional() (and MapReaders over them) stay valid during reading.
class MapReader {
 public:
  /// `node` must be a map (an error otherwise: "<path> must be a map"). A null node is accepted
  /// as an empty map (and becomes one).
  explicit MapReader(ConfigNode& node);

  ConfigNode& node() { return node_; }
  bool has(const std::string& key);              ///< records `key` as known
  ConfigNode& required(const std::string& key);  ///< "missing required key 'x'"
  ConfigNode* optional(const std::string& key);  ///< nullptr when absent

  double real(const std::string& key);
  double real_or(const std::string& key, double default_value);
  /// real with a range check; bounds inclusive unless the exclusive flags are set.
  double real_in(const std::string& key, double minimum, double maximum,
                 bool minimum_exclusive = false, bool maximum_exclusive = false);
  double real_in_or(const std::string& key, double default_value, double minimum, double maximum,
                    bool minimum_exclusive = false, bool maximum_exclusive = false);
  std::int64_t integer_or(const std::string& key, std::int64_t default_value);
  bool boolean_or(const std::string& key, bool default_value);
  std::string string(const std::string& key);
  std::string string_or(const std::string& key, const std::string& default_value);
  /// One of `choices` ("must be one of a, b, c" with did-you-mean otherwise).
  std::string choice_or(const std::string& key, const std::string& default_value,
                        const std::vector<std::string>& choices);
  Vec3 vec3(const std::string& key);
  Vec3 vec3_or(const std::string& key, const Vec3& default_value);

  /// Rejects unknown keys; call after all reads.
  void finish();

 private:
  ConfigNode& node_;
  std::vector<std::string> known_;
  /// Defaults used by `_or` readers, inserted into node_ by finish() (a deque: stable references).
  std::deque<std::pair<std::string, ConfigNode>> defaults_;
};

/// Range check helper used by MapReader and by plugin parameter validation: throws at `node`
/// with "value V out of range [min, max]" (brackets reflect exclusivity; unit appended if given).
void check_range(const ConfigNode& node, double value, double minimum, double maximum,
                 bool minimum_exclusive, bool maximum_exclusive, const std::string& unit = "");

}  // namespace contactlab::core
