// The comparison table: CSV, Markdown and JSON writers, the JSON reader (see compare_table.hpp).
#include "compare_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "contactlab/core/run_files.hpp"
#include "contactlab/errors.hpp"
#include "contactlab/version.hpp"

namespace contactlab::core::comparison {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kFormatVersion = 1;

std::string shortest(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string significant(double value, int digits) {
  if (!std::isfinite(value)) return shortest(value);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

Cell cell_from_json(const json& value) {
  Cell cell;
  if (value.is_number_integer()) {
    cell.kind = Cell::Kind::integer;
    cell.integer = value.get<std::int64_t>();
  } else if (value.is_number()) {
    cell.kind = Cell::Kind::real;
    cell.real = value.get<double>();
  } else if (value.is_string()) {
    cell.kind = Cell::Kind::text;
    cell.text = value.get<std::string>();
  } else if (value.is_boolean()) {
    cell.kind = Cell::Kind::text;
    cell.text = value.get<bool>() ? "true" : "false";
  } else if (!value.is_null()) {
    cell.kind = Cell::Kind::text;
    cell.text = value.dump();
  }
  return cell;
}

json cell_to_json(const Cell& cell) {
  switch (cell.kind) {
    case Cell::Kind::integer:
      return cell.integer;
    case Cell::Kind::real:
      return std::isfinite(cell.real) ? json(cell.real) : json(shortest(cell.real));
    case Cell::Kind::text:
      return cell.text;
    case Cell::Kind::missing:
      break;
  }
  return nullptr;
}

/// The value at a dotted key ("phase_time_s.broad_phase", "narrow_phase_statistics.0.queries").
const json* lookup(const json& root, const std::string& key) {
  const json* current = &root;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? dot : dot - start);
    if (current->is_object()) {
      const auto it = current->find(part);
      if (it == current->end()) return nullptr;
      current = &*it;
    } else if (current->is_array()) {
      std::size_t index = 0;
      const auto result = std::from_chars(part.data(), part.data() + part.size(), index);
      if (result.ec != std::errc{} || result.ptr != part.data() + part.size() ||
          index >= current->size())
        return nullptr;
      current = &(*current)[index];
    } else {
      return nullptr;
    }
    if (dot == std::string::npos) return current;
    start = dot + 1;
  }
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos && (text.empty() || text.front() != ' '))
    return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string csv_cell(const Cell& cell) {
  switch (cell.kind) {
    case Cell::Kind::integer:
      return std::to_string(cell.integer);
    case Cell::Kind::real:
      return shortest(cell.real);
    case Cell::Kind::text:
      return cell.text;
    case Cell::Kind::missing:
      break;
  }
  return "";
}

std::string markdown_cell(const Cell& cell, const std::string& column) {
  switch (cell.kind) {
    case Cell::Kind::integer:
      return std::to_string(cell.integer);
    case Cell::Kind::real:
      return significant(cell.real, is_timing_column(column) ? 3 : 4);
    case Cell::Kind::text:
      return cell.text;
    case Cell::Kind::missing:
      break;
  }
  return "";
}

std::string markdown_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

void write_text(const fs::path& file, const std::string& text) {
  const fs::path temporary = file.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    if (!out) throw InputError("cannot write '" + temporary.string() + "'");
  }
  std::error_code error;
  fs::rename(temporary, file, error);
  if (error) throw InputError("cannot write '" + file.string() + "': " + error.message());
}

std::string csv(const Table& table) {
  std::string out = "variant";
  auto field = [&out](const std::string& text) {
    out += ',';
    out += csv_field(text);
  };
  for (const std::string& path : table.paths) field(path);
  field("status");
  for (const std::string& column : table.columns) field(column);
  field("error");
  out += '\n';
  for (const Row& row : table.rows) {
    const TableVariant& variant = table.variants.at(row.index);
    out += csv_field(row.name);
    for (const std::string& value : variant.values) field(value);
    field(status_name(row.status));
    for (const Cell& cell : row.metrics) field(csv_cell(cell));
    field(row.error);
    out += '\n';
  }
  return out;
}

json to_json(const Table& table) {
  json out;
  out["format"] = "contactlab-comparison";
  out["format_version"] = kFormatVersion;
  out["name"] = table.name;
  out["file"] = table.file;
  out["combine"] = table.combine;
  out["fingerprint"] = table.fingerprint;
  out["contactlab_version"] = version_string;
  out["command_line"] = table.command_line;
  out["shard"] = {{"index", table.shard.index}, {"count", table.shard.count}};
  if (!table.merged_from.empty()) out["merged_from"] = table.merged_from;
  out["status"] = table.incomplete_reason.empty() ? "complete" : "incomplete";
  if (!table.incomplete_reason.empty()) out["incomplete_reason"] = table.incomplete_reason;
  out["paths"] = table.paths;
  out["value_counts"] = table.value_counts;
  out["columns"] = table.columns;
  out["variants"] = json::array();
  for (const TableVariant& variant : table.variants)
    out["variants"].push_back(
        {{"index", variant.index}, {"name", variant.name}, {"values", variant.values}});
  out["rows"] = json::array();
  for (const Row& row : table.rows) {
    json metrics = json::object();
    for (std::size_t c = 0; c < table.columns.size(); ++c)
      metrics[table.columns[c]] = cell_to_json(row.metrics.at(c));
    out["rows"].push_back({{"index", row.index},
                           {"name", row.name},
                           {"status", status_name(row.status)},
                           {"error", row.error},
                           {"metrics", metrics}});
  }
  return out;
}

RowStatus status_from_name(const std::string& name, const fs::path& file) {
  for (RowStatus status :
       {RowStatus::ok, RowStatus::failed, RowStatus::interrupted, RowStatus::not_run})
    if (name == status_name(status)) return status;
  throw InputError(file.string() + ": unknown row status '" + name + "'");
}

}  // namespace

const char* status_name(RowStatus status) {
  switch (status) {
    case RowStatus::ok:
      return "ok";
    case RowStatus::failed:
      return "failed";
    case RowStatus::interrupted:
      return "interrupted";
    case RowStatus::not_run:
      return "not_run";
  }
  return "?";
}

std::vector<std::string> summary_keys(const std::string& summary_json) {
  std::vector<std::string> keys;
  json summary;
  try {
    summary = json::parse(summary_json);
  } catch (const json::exception&) {
    return keys;
  }
  auto walk = [&](auto&& self, const json& node, const std::string& prefix) -> void {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
      if (it->is_object()) {
        self(self, *it, key);
      } else {
        keys.push_back(key);
      }
    }
  };
  if (summary.is_object()) walk(walk, summary, "");
  return keys;
}

bool is_timing_column(const std::string& column) {
  return column.find("wall_time") != std::string::npos || column.rfind("phase_time_s", 0) == 0;
}

Table make_table(const ComparisonSpec& spec, const Shard& shard, const std::string& command_line) {
  Table table;
  table.name = spec.name;
  table.file = spec.file.string();
  table.combine = spec.combine == Combine::zip ? "zip" : "product";
  table.fingerprint = spec.fingerprint;
  table.command_line = command_line;
  table.shard = shard;
  for (const VariantAxis& axis : spec.axes) {
    table.paths.push_back(axis.path);
    table.value_counts.push_back(axis.values.size());
  }
  table.columns = spec.columns;
  for (const Variant& variant : spec.variants) {
    TableVariant entry{variant.index, variant.name, {}};
    for (const VariantSetting& setting : variant.settings) entry.values.push_back(setting.text);
    table.variants.push_back(std::move(entry));
  }
  return table;
}

std::vector<Cell> metrics_from_summary(const std::string& summary_json,
                                       const std::vector<std::string>& columns) {
  std::vector<Cell> cells(columns.size());
  json summary;
  try {
    summary = json::parse(summary_json);
  } catch (const json::exception&) {
    return cells;
  }
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (const json* value = lookup(summary, columns[c])) cells[c] = cell_from_json(*value);
  }
  return cells;
}

namespace {

/// Body positions of a trajectory.csv: the times and, per time, (x, y, z) of each body in `names`.
struct Positions {
  std::vector<std::string> names;
  std::vector<double> times;
  std::vector<std::vector<double>> xyz;  ///< per time: 3 values per body, in `names` order
};

bool read_positions(const fs::path& file, Positions& out) {
  Trajectory trajectory;
  try {
    trajectory = read_trajectory(file);
  } catch (const InputError&) {
    return false;
  }
  out.names = trajectory.bodies;
  out.times = trajectory.times_s;
  for (std::size_t i = 0; i < trajectory.frame_count(); ++i) {
    std::vector<double>& xyz = out.xyz.emplace_back();
    for (std::size_t b = 0; b < trajectory.bodies.size(); ++b) {
      const Vec3& p = trajectory.state(i, b).p_WCm;
      xyz.insert(xyz.end(), {p.x(), p.y(), p.z()});
    }
  }
  return !out.times.empty();
}

/// The largest distance between the bodies both name, at the times both have; < 0 when none.
double largest_difference(const Positions& reference, const Positions& other) {
  std::vector<std::pair<std::size_t, std::size_t>> bodies;
  for (std::size_t a = 0; a < reference.names.size(); ++a)
    for (std::size_t b = 0; b < other.names.size(); ++b)
      if (reference.names[a] == other.names[b]) bodies.emplace_back(a, b);
  double worst = -1.0;
  std::size_t j = 0;
  for (std::size_t i = 0; i < reference.times.size(); ++i) {
    while (j < other.times.size() && other.times[j] < reference.times[i] - 1e-9) ++j;
    if (j == other.times.size()) break;
    if (std::abs(other.times[j] - reference.times[i]) > 1e-9) continue;
    for (const auto& [a, b] : bodies) {
      double squared = 0.0;
      for (int k = 0; k < 3; ++k) {
        const double d = reference.xyz[i][3 * a + k] - other.xyz[j][3 * b + k];
        squared += d * d;
      }
      worst = std::max(worst, std::sqrt(squared));
    }
  }
  return worst;
}

}  // namespace

void add_trajectory_differences(Table& table, const fs::path& directory) {
  const auto column =
      std::find(table.columns.begin(), table.columns.end(), std::string("trajectory_difference_m"));
  if (column == table.columns.end()) return;
  const auto c = static_cast<std::size_t>(column - table.columns.begin());
  Positions reference;
  bool have_reference = false;
  for (Row& row : table.rows) {
    if (row.status != RowStatus::ok) continue;
    if (row.metrics.size() <= c) row.metrics.resize(table.columns.size());
    Positions positions;
    if (!read_positions(directory / row.name / "trajectory.csv", positions)) continue;
    if (!have_reference) {
      reference = std::move(positions);
      have_reference = true;
      row.metrics[c].kind = Cell::Kind::real;
      row.metrics[c].real = 0.0;
      continue;
    }
    const double difference = largest_difference(reference, positions);
    if (difference < 0.0) continue;
    row.metrics[c].kind = Cell::Kind::real;
    row.metrics[c].real = difference;
  }
}

std::string markdown(const Table& table) {
  std::ostringstream out;
  out << "# Comparison: " << table.name << "\n\n";
  const std::size_t total = table.variants.size();
  out << '`' << table.file << "`: " << total << " variant" << (total == 1 ? "" : "s") << " ("
      << table.combine;
  if (table.combine == "product") {
    out << " of ";
    for (std::size_t a = 0; a < table.value_counts.size(); ++a)
      out << (a ? " × " : "") << table.value_counts[a];
  } else {
    out << " of " << table.paths.size() << " lists";
  }
  out << ")";
  if (!table.shard.whole())
    out << "; this is shard " << table.shard.index << "/" << table.shard.count << " ("
        << table.rows.size() << " of them; merge the shards with `contactlab merge`)";
  if (!table.merged_from.empty())
    out << "; merged from " << table.merged_from.size() << " shard director"
        << (table.merged_from.size() == 1 ? "y" : "ies");
  out << ".\n";
  std::size_t counts[4] = {0, 0, 0, 0};
  for (const Row& row : table.rows) ++counts[static_cast<int>(row.status)];
  out << "Status: " << (table.incomplete_reason.empty() ? "complete" : "INCOMPLETE") << " — "
      << counts[0] << " ok, " << counts[1] << " failed";
  if (counts[2]) out << ", " << counts[2] << " interrupted";
  if (counts[3]) out << ", " << counts[3] << " not run";
  if (!table.incomplete_reason.empty()) out << " (" << table.incomplete_reason << ")";
  out << ".\n\n";

  out << "| variant";
  for (const std::string& path : table.paths) out << " | " << markdown_escape(path);
  out << " | status";
  for (const std::string& column : table.columns) out << " | " << markdown_escape(column);
  out << " | error |\n|---";
  for (std::size_t i = 0; i < table.paths.size(); ++i) out << "|---";
  out << "|---";
  for (std::size_t i = 0; i < table.columns.size(); ++i) out << "|---:";
  out << "|---|\n";
  for (const Row& row : table.rows) {
    const TableVariant& variant = table.variants.at(row.index);
    out << "| " << markdown_escape(row.name);
    for (const std::string& value : variant.values) out << " | " << markdown_escape(value);
    out << " | " << status_name(row.status);
    for (std::size_t c = 0; c < table.columns.size(); ++c)
      out << " | " << markdown_escape(markdown_cell(row.metrics.at(c), table.columns[c]));
    out << " | " << markdown_escape(row.error) << " |\n";
  }
  return out.str();
}

void write_table(const Table& table, const fs::path& directory) {
  write_text(directory / "comparison.csv", csv(table));
  write_text(directory / "comparison.md", markdown(table));
  write_text(directory / "comparison.json", to_json(table).dump(2) + "\n");
}

Table read_table(const fs::path& directory) {
  const fs::path file = directory / "comparison.json";
  std::ifstream in(file);
  if (!in)
    throw InputError("'" + directory.string() +
                     "' is not a comparison directory (no readable comparison.json)");
  json data;
  try {
    data = json::parse(in);
  } catch (const json::exception& e) {
    throw InputError(file.string() + ": not valid JSON: " + e.what());
  }
  Table table;
  try {
    if (data.value("format", "") != "contactlab-comparison")
      throw InputError(file.string() + ": not a contactlab comparison table");
    if (data.at("format_version").get<int>() != kFormatVersion)
      throw InputError(file.string() + ": table format version " +
                       std::to_string(data.at("format_version").get<int>()) +
                       ", this contactlab reads version " + std::to_string(kFormatVersion));
    table.name = data.at("name").get<std::string>();
    table.file = data.at("file").get<std::string>();
    table.combine = data.at("combine").get<std::string>();
    table.fingerprint = data.at("fingerprint").get<std::string>();
    table.command_line = data.value("command_line", "");
    table.shard.index = data.at("shard").at("index").get<int>();
    table.shard.count = data.at("shard").at("count").get<int>();
    table.incomplete_reason = data.value("incomplete_reason", "");
    table.paths = data.at("paths").get<std::vector<std::string>>();
    table.value_counts = data.at("value_counts").get<std::vector<std::size_t>>();
    table.columns = data.at("columns").get<std::vector<std::string>>();
    for (const json& v : data.at("variants"))
      table.variants.push_back({v.at("index").get<std::size_t>(), v.at("name").get<std::string>(),
                                v.at("values").get<std::vector<std::string>>()});
    for (const json& r : data.at("rows")) {
      Row row;
      row.index = r.at("index").get<std::size_t>();
      row.name = r.at("name").get<std::string>();
      row.status = status_from_name(r.at("status").get<std::string>(), file);
      row.error = r.value("error", "");
      for (const std::string& column : table.columns) {
        const json& metrics = r.at("metrics");
        row.metrics.push_back(metrics.contains(column) ? cell_from_json(metrics.at(column))
                                                       : Cell{});
      }
      if (row.index >= table.variants.size() || table.variants[row.index].name != row.name)
        throw InputError(file.string() + ": row '" + row.name +
                         "' does not match the variant list");
      table.rows.push_back(std::move(row));
    }
  } catch (const json::exception& e) {
    throw InputError(file.string() + ": malformed comparison table: " + e.what());
  }
  return table;
}

}  // namespace contactlab::core::comparison
