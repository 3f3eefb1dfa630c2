// How the configuration front end says where and what: "file:line:col: message (at dotted.path)",
// the wording of a value in "got ..." (describe), exact numbers in messages, and the "did you
// mean" suggestion for a misspelt name.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "config_internal.hpp"

namespace contactlab::core {

namespace config_detail {

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

std::string format_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string describe(const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::null:
      return "an empty value";
    case ConfigNode::Kind::scalar: {
      constexpr std::size_t kMaximum = 60;
      const std::string& text = node.scalar();
      if (text.size() <= kMaximum && text.find('\n') == std::string::npos) return "'" + text + "'";
      // Appended rather than `"'" + text.substr(...) + "...'"`, which GCC 12 misreads as an
      // overlapping copy (-Wrestrict) once describe() has a file of its own.
      std::string shortened = "'";
      shortened += text.substr(0, std::min(kMaximum, text.find('\n')));
      shortened += "...'";
      return shortened;
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

}  // namespace config_detail

std::string SourceLocation::str() const {
  if (line <= 0) return file;
  if (column <= 0) return file + ":" + std::to_string(line);
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

void fail_at(const ConfigNode& node, const std::string& message) {
  throw InputError(node.location().str() + ": " + message + " (at " + node.display_path() + ")");
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

}  // namespace contactlab::core
