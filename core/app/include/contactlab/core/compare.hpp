// Comparisons: one base experiment and its variants (dotted paths set to lists of values,
// combined as a cartesian product or zipped), run in parallel as child processes into one
// directory, tabulated as comparison.csv / comparison.md / comparison.json; shards of a comparison
// and the merge of their tables. The CLI's `compare`, `merge` and (internal) `run-variant`
// subcommands are thin wrappers around these functions.
//
// A comparison file is an experiment (it may take its base from another file with `include:`,
// whose keys it overrides) plus
//
//   variants:                         # required: dotted path -> list of values (any YAML)
//     contact.force_law.type: [hertz, linear]
//     integrator.params.step_s: [1.0e-5, 2.0e-5]
//   combine: product                  # or zip (all lists of one length); default product
//   columns: [steps, rhs_evaluations] # optional: summary.json keys (dotted) for the table
//
// Paths are those of `contactlab run --set`: map keys, list elements by index or by `name:`.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contactlab/core/config.hpp"
#include "contactlab/core/registry.hpp"

namespace contactlab::core {

enum class Combine { product, zip };

/// One path of `variants:`, with its list of values (nodes located in the comparison file).
struct VariantAxis {
  std::string path;
  SourceLocation key_location;  ///< where the dotted path is written
  std::vector<ConfigNode> values;
};

struct VariantSetting {
  std::size_t axis = 0;   ///< index into ComparisonSpec::axes
  std::size_t value = 0;  ///< index into that axis' values
  std::string text;       ///< the value in YAML flow style, for tables and fingerprints
};

struct Variant {
  std::size_t index = 0;  ///< 0-based position in the variant list (the table's row order)
  std::string name;       ///< unique, filesystem-safe, from the values; also its run directory
  std::vector<VariantSetting> settings;  ///< one per axis, in the file's order
};

/// i-th of N deterministic slices of a variant list (1-based): variant k belongs to shard
/// (k mod N) + 1, so a list ordered by cost spreads evenly.
struct Shard {
  int index = 1;
  int count = 1;
  bool contains(std::size_t variant_index) const {
    return static_cast<int>(variant_index % static_cast<std::size_t>(count)) == index - 1;
  }
  bool whole() const { return count == 1; }
};

/// Parses "i/N" (1 <= i <= N); InputError otherwise.
Shard parse_shard(const std::string& text);

struct ComparisonSpec {
  std::filesystem::path file;
  std::string name;  ///< the experiment's `name:`
  Combine combine = Combine::product;
  ConfigNode base;  ///< the experiment without `variants`, `combine`, `columns`
  std::vector<VariantAxis> axes;
  std::vector<std::string> columns;  ///< summary.json keys for the table
  std::vector<Variant> variants;
  std::vector<std::string> overrides;  ///< --set assignments applied to the file
  std::string fingerprint;             ///< hash of the base and the variant list: shards must agree
};

/// The default table columns: summary.json keys (dotted).
/// A comparison without `columns:` also gets `restitution` when its base experiment declares
/// `metrics.restitution_pair`, and `probes.<name>` for each of the base's probes.
const std::vector<std::string>& default_comparison_columns();

/// Reads a comparison file, applies `overrides` ("dotted.path=value", as `run --set`; they may
/// also change `variants`), and reads the `variants` section (located errors for a bad path
/// syntax, an empty or non-list entry, zip lists of unequal length), the variant names and the
/// fingerprint (of the base experiment and the variant list).
ComparisonSpec load_comparison(const std::filesystem::path& file,
                               const std::vector<std::string>& overrides = {});

/// The experiment configuration of one variant: the base with the variant's values set at their
/// paths. A path that cannot be followed (no such list element, a single value in the way) is an
/// error located at the path in `variants:`, with a "did you mean".
ConfigNode variant_configuration(const ComparisonSpec& spec, const Variant& variant);

/// Builds and checks every variant's scene; returns one message per distinct error (empty: all
/// valid). Unknown keys created by a path are reported by the scene's strict readers, with the
/// variant and the location of its path added.
std::vector<std::string> validate_variants(const ComparisonSpec& spec, PluginRegistry& registry);

/// The variant named `name`; InputError (with did-you-mean) when there is none.
const Variant& find_variant(const ComparisonSpec& spec, const std::string& name);

struct CompareOptions {
  std::filesystem::path file;
  std::vector<std::string> overrides;  ///< --set dotted.path=value, before the variants apply
  std::vector<std::filesystem::path> trusted_libraries;  ///< --trust-library, passed to children
  std::filesystem::path output;  ///< empty: runs/<name>-compare-<time> (or -shard<i>of<N>-)
  int jobs = 0;                  ///< <= 0: the number of hardware threads
  Shard shard;
  bool dry_run = false;                     ///< validate and list the variants, run nothing
  std::filesystem::path executable;         ///< the contactlab binary the children run
  std::string command_line;                 ///< recorded in comparison.json
  const std::atomic<bool>* stop = nullptr;  ///< set by SIGINT/SIGTERM handlers
};

/// Exit codes shared with the CLI.
inline constexpr int compare_exit_ok = 0;
inline constexpr int compare_exit_incomplete = 1;  ///< merge: shards or rows missing
inline constexpr int compare_exit_bad_input = 2;
inline constexpr int compare_exit_failed = 4;  ///< at least one variant failed (table written)
inline constexpr int compare_exit_interrupted = 130;

/// `contactlab compare`: validates every variant, then runs this shard's variants, `jobs` child
/// processes at a time (`executable run-variant ...`), and writes the tables. Returns an exit code.
int run_comparison(const CompareOptions& options);

/// `contactlab merge`: combines the tables of shard directories into `output`.
int merge_comparisons(const std::vector<std::filesystem::path>& directories,
                      std::filesystem::path output, const std::string& command_line);

}  // namespace contactlab::core
