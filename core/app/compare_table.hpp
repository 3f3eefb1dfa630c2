// The comparison table (internal to the core): one row per variant, written as comparison.csv,
// comparison.md and comparison.json; comparison.json is read back by `contactlab merge`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "contactlab/core/compare.hpp"

namespace contactlab::core::comparison {

enum class RowStatus { ok, failed, interrupted, not_run };

const char* status_name(RowStatus status);

/// One metric of a row: a number from summary.json (integer or real), a text, or nothing.
struct Cell {
  enum class Kind { missing, integer, real, text };
  Kind kind = Kind::missing;
  std::int64_t integer = 0;
  double real = 0.0;
  std::string text;
};

struct Row {
  std::size_t index = 0;
  std::string name;
  RowStatus status = RowStatus::not_run;
  std::string error;
  std::vector<Cell> metrics;  ///< one per Table::columns
};

struct TableVariant {
  std::size_t index = 0;
  std::string name;
  std::vector<std::string> values;  ///< flow-style YAML, one per Table::paths
};

struct Table {
  std::string name;
  std::string file;
  std::string combine;
  std::string fingerprint;
  std::string command_line;
  Shard shard;
  std::vector<std::string> merged_from;  ///< the shard directories (merge only)
  std::vector<std::string> paths;
  std::vector<std::size_t> value_counts;  ///< the length of each path's list
  std::vector<std::string> columns;
  std::vector<TableVariant> variants;  ///< every variant of the comparison, in order
  std::vector<Row> rows;               ///< in variant order; a shard holds only its own
  std::string incomplete_reason;       ///< empty when complete
};

/// The table skeleton of a comparison (no rows yet).
Table make_table(const ComparisonSpec& spec, const Shard& shard, const std::string& command_line);

/// Each column's value from a summary.json text (dotted keys). Unparsable text: all missing.
std::vector<Cell> metrics_from_summary(const std::string& summary_json,
                                       const std::vector<std::string>& columns);

/// The dotted keys of a summary.json text (objects walked, arrays and values are leaves).
std::vector<std::string> summary_keys(const std::string& summary_json);

/// True for columns that measure time spent (they differ between identical runs).
bool is_timing_column(const std::string& column);

/// The column `trajectory_difference_m` (computed only when it is one of the table's columns):
/// for every ok row, the largest distance between its bodies' positions (trajectory.csv under
/// `directory`/<variant name>/) and those of the reference row — the first ok row in variant
/// order, which gets 0 — over the output times both runs have (equal within 1e-9 s) and the
/// bodies both name. A row whose trajectory cannot be read, or that shares no time with the
/// reference, stays missing.
void add_trajectory_differences(Table& table, const std::filesystem::path& directory);

/// Writes comparison.csv, comparison.md and comparison.json into `directory`.
void write_table(const Table& table, const std::filesystem::path& directory);

/// The Markdown text of comparison.md.
std::string markdown(const Table& table);

/// Reads `directory`/comparison.json (InputError naming the file when absent or malformed).
Table read_table(const std::filesystem::path& directory);

}  // namespace contactlab::core::comparison
