#include "contactlab/core/run_files.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "contactlab/errors.hpp"

namespace contactlab::core {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

std::string where(const fs::path& file, std::size_t line) {
  return file.string() + ":" + std::to_string(line);
}

/// Parses a whole field as a number; false for text that is not one.
bool parse_number(const std::string& field, double& value) {
  if (field.empty()) return false;
  char* end = nullptr;
  value = std::strtod(field.c_str(), &end);
  return end == field.c_str() + field.size();
}

std::ifstream open_csv(const fs::path& file, std::string& header) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot read the file");
  if (!std::getline(in, header) || header.rfind("time_s", 0) != 0)
    throw InputError(where(file, 1) + ": not a contactlab CSV file (no time_s header)");
  return in;
}

}  // namespace

std::size_t Trajectory::body_index(const std::string& name) const {
  for (std::size_t b = 0; b < bodies.size(); ++b)
    if (bodies[b] == name) return b;
  return bodies.size();
}

Trajectory read_trajectory(const fs::path& file) {
  std::string line;
  std::ifstream in = open_csv(file, line);
  const std::vector<std::string> header = split(line);
  static const char* const columns[] = {"px", "py", "pz", "qw", "qx", "qy", "qz",
                                        "vx", "vy", "vz", "wx", "wy", "wz"};
  if ((header.size() - 1) % 13 != 0)
    throw InputError(where(file, 1) + ": " + std::to_string(header.size() - 1) +
                     " state columns, not 13 per body");
  Trajectory trajectory;
  for (std::size_t c = 1; c < header.size(); c += 13) {
    const std::string& first = header[c];
    const std::size_t dot = first.rfind('.');
    const std::string body = dot == std::string::npos ? first : first.substr(0, dot);
    for (int k = 0; k < 13; ++k) {
      if (header[c + k] != body + "." + columns[k])
        throw InputError(where(file, 1) + ": column " + std::to_string(c + k + 1) + " is '" +
                         header[c + k] + "', expected '" + body + "." + columns[k] + "'");
    }
    trajectory.bodies.push_back(body);
  }
  std::vector<double> values(header.size());
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    const std::vector<std::string> fields = split(line);
    bool whole = fields.size() == header.size();
    for (std::size_t c = 0; whole && c < fields.size(); ++c)
      whole = parse_number(fields[c], values[c]);
    if (!whole) {
      // Only the last row may be cut short (a run stopped while writing it).
      if (in.peek() != std::char_traits<char>::eof())
        throw InputError(where(file, number) + ": a row of " + std::to_string(fields.size()) +
                         " fields that are not all numbers (expected " +
                         std::to_string(header.size()) + ")");
      ++trajectory.incomplete_rows;
      break;
    }
    trajectory.times_s.push_back(values[0]);
    for (std::size_t b = 0; b < trajectory.bodies.size(); ++b) {
      const double* v = &values[1 + 13 * b];
      TrajectoryState& s = trajectory.states.emplace_back();
      s.p_WCm = Vec3(v[0], v[1], v[2]);
      s.q_WB = {v[3], v[4], v[5], v[6]};
      s.v_WCm = Vec3(v[7], v[8], v[9]);
      s.w_WB = Vec3(v[10], v[11], v[12]);
    }
  }
  return trajectory;
}

std::vector<ContactRow> read_contacts(const fs::path& file) {
  std::string line;
  std::ifstream in = open_csv(file, line);
  constexpr std::size_t kColumns = 14;
  if (split(line).size() != kColumns)
    throw InputError(where(file, 1) + ": not the " + std::to_string(kColumns) +
                     " columns of contacts.csv");
  std::vector<ContactRow> rows;
  double v[kColumns];
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    const std::vector<std::string> f = split(line);
    bool whole = f.size() == kColumns;
    for (std::size_t c = 0; whole && c < kColumns; ++c)
      whole = c == 1 || c == 2 || parse_number(f[c], v[c]);
    if (!whole) {
      if (in.peek() != std::char_traits<char>::eof())
        throw InputError(where(file, number) + ": not a row of contacts.csv");
      break;
    }
    ContactRow& row = rows.emplace_back();
    row.time_s = v[0];
    row.geometry_a = f[1];
    row.geometry_b = f[2];
    row.distance_m = v[3];
    row.normal = Vec3(v[4], v[5], v[6]);
    row.point_m = Vec3(v[7], v[8], v[9]);
    row.normal_force_N = v[10];
    row.tangential_force_N = Vec3(v[11], v[12], v[13]);
  }
  return rows;
}

}  // namespace contactlab::core
