// The shared part of the conformance suites (see conformance_support.hpp).
#include "conformance_support.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

// The test suite's malloc counter: this is the one translation unit of each suite that includes
// it (it defines malloc & co.), and the functions below are the suites' only use of it.
#include "support/allocation_counter.hpp"

namespace contactlab::conformance {

namespace fs = std::filesystem;

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string vector_text(const Vec3& v) {
  char text[96];
  std::snprintf(text, sizeof text, "(%.17g, %.17g, %.17g)", v.x(), v.y(), v.z());
  return text;
}

namespace {
bool quick_run = false;
bool quick_plugin = false;  // --quick=PLUGIN names the plugin being checked (Report::begin_variant)
}  // namespace

bool quick() {
  return quick_run || quick_plugin;
}

// The test suite's one allocation counter (tests/support/allocation_counter.hpp).
bool allocations_countable() {
  return testing::allocation_counting_available();
}

void begin_counting_allocations() {
  testing::start_counting_allocations();
}

long end_counting_allocations() {
  return testing::stop_counting_allocations();
}

namespace {

/// `text` as a value of `spec`'s type, within its range.
ParameterValue parse_setting(const ParameterSpec& spec, const std::string& text) {
  const std::string what = "--set " + spec.name + "=" + text + ": ";
  auto in_range = [&](double value) {
    const bool above = spec.minimum_exclusive ? value > spec.minimum : value >= spec.minimum;
    const bool below = spec.maximum_exclusive ? value < spec.maximum : value <= spec.maximum;
    if (!(above && below))
      throw std::invalid_argument(what + "outside the range " +
                                  (spec.minimum_exclusive ? "(" : "[") + number(spec.minimum) +
                                  ", " + number(spec.maximum) +
                                  (spec.maximum_exclusive ? ")" : "]") + " of " + spec.name);
  };
  switch (spec.type) {
    case ParameterType::real: {
      char* end = nullptr;
      const double value = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0') throw std::invalid_argument(what + "not a number");
      in_range(value);
      return value;
    }
    case ParameterType::integer: {
      char* end = nullptr;
      const long long value = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0') throw std::invalid_argument(what + "not an integer");
      in_range(static_cast<double>(value));
      return static_cast<std::int64_t>(value);
    }
    case ParameterType::boolean:
      if (text == "true") return true;
      if (text == "false") return false;
      throw std::invalid_argument(what + "not true or false");
    case ParameterType::choice: {
      std::string known;
      for (const std::string& choice : spec.choices) {
        if (choice == text) return text;
        known += (known.empty() ? "" : ", ") + choice;
      }
      throw std::invalid_argument(what + "not one of " + known);
    }
    default:
      return text;
  }
}

}  // namespace

std::vector<Variant> parameter_variants(const ParameterSchema& schema,
                                        std::vector<Setting>& settings) {
  std::map<std::string, ParameterValue> set;
  for (Setting& setting : settings) {
    for (const ParameterSpec& spec : schema) {
      if (spec.name != setting.name) continue;
      set[spec.name] = parse_setting(spec, setting.value);
      setting.used = true;
    }
  }
  const std::string label = set.empty() ? "default parameters" : "default and set parameters";
  std::vector<Variant> variants = {{label, ParameterValues::defaults(schema, set)}};
  auto vary = [&](const ParameterSpec& spec, ParameterValue value, const std::string& text) {
    std::map<std::string, ParameterValue> with = set;
    with[spec.name] = std::move(value);
    variants.push_back({spec.name + ": " + text, ParameterValues::defaults(schema, with)});
  };
  for (const ParameterSpec& spec : schema) {
    if (set.count(spec.name)) continue;
    if (spec.type == ParameterType::choice) {
      for (const std::string& choice : spec.choices)
        if (choice != std::get<std::string>(spec.default_value)) vary(spec, choice, choice);
    } else if (spec.type == ParameterType::boolean) {
      const bool flipped = !std::get<bool>(spec.default_value);
      vary(spec, flipped, flipped ? "true" : "false");
    }
  }
  return variants;
}

namespace detail {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

bool parse_options(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const std::size_t colon = i + 1 < argc ? std::string(argv[i + 1]).find(':') : std::string::npos;
    if (argument == "--expect-failures") {
      options.expect_failures = true;
    } else if (argument == "--set" && i + 1 < argc &&
               std::string(argv[i + 1]).find('=') != std::string::npos) {
      const std::string value = argv[++i];
      const std::size_t equals = value.find('=');
      options.settings.push_back({value.substr(0, equals), value.substr(equals + 1)});
    } else if (argument == "--quick") {
      options.quick = quick_run = true;
    } else if (argument.starts_with("--quick=") && argument.size() > 8) {
      options.quick_plugins.push_back(argument.substr(8));
    } else if (argument == "--known-failure" && colon != std::string::npos) {
      const std::string value = argv[++i];
      options.known_failures.push_back({value.substr(0, colon), value.substr(colon + 1)});
    } else if (argument.starts_with("-")) {
      std::fprintf(stderr,
                   "usage: %s [--quick | --quick=PLUGIN ...] [--set NAME=VALUE ...] "
                   "[--known-failure PLUGIN:CHECK ...] "
                   "[--expect-failures] [LIBRARY.so ...]\n",
                   argv[0]);
      return false;
    } else {
      options.libraries.push_back(argument);
    }
  }
  return true;
}

std::vector<fs::path> search_directories(const Options& options) {
  // With libraries: only those files, loaded as an explicit `library:` path is.
  return options.libraries.empty() ? core::PluginRegistry::default_search_directories()
                                   : std::vector<fs::path>{};
}

bool find_plugins(core::PluginRegistry& registry, PluginKind kind, const Options& options,
                  std::vector<core::PluginInfo>& plugins) {
  const char* kind_name = plugin_kind_name(kind);
  try {
    if (options.libraries.empty()) {
      for (const auto& problem : registry.problems())
        std::printf("note: %s was not loaded: %s\n", problem.library_path.c_str(),
                    problem.reason.c_str());
      for (const auto& info : registry.plugins())
        if (info.kind == kind) plugins.push_back(info);
    }
    for (const fs::path& library : options.libraries) {
      bool any = false;
      for (auto& info : registry.load_library(library)) {
        if (info.kind != kind) continue;
        plugins.push_back(std::move(info));
        any = true;
      }
      if (!any) {
        std::printf("FAIL %s declares no %s plugin\n", library.c_str(), kind_name);
        return false;
      }
    }
  } catch (const std::exception& e) {
    std::printf("FAIL %s\n", e.what());
    return false;
  }
  if (plugins.empty()) {
    std::printf("FAIL no %s plugin found\n", kind_name);
    return false;
  }
  return true;
}

void Report::begin_variant(const core::PluginInfo& info, const Variant& variant) {
  std::printf("%s %s (%s, %s)\n", plugin_kind_name(kind_), info.name.c_str(),
              info.library_path.filename().c_str(), variant.label.c_str());
  std::fflush(stdout);
  plugin_ = info.name;
  quick_plugin = std::find(options_.quick_plugins.begin(), options_.quick_plugins.end(),
                           info.name) != options_.quick_plugins.end();
  caught_ = false;
  refused_ = false;
  start_s_ = now_s();
}

void Report::passed(const std::string& id, const std::string& check, const std::string& summary) {
  std::printf("  ok    [%s] %s: %s\n", id.c_str(), check.c_str(), summary.c_str());
  std::fflush(stdout);
}

void Report::failed(const std::string& id, const std::string& check, const std::string& message) {
  caught_ = true;
  for (KnownFailure& known : options_.known_failures) {
    if (known.plugin != plugin_ || known.check != id) continue;
    known.seen = true;
    ++known_;
    std::printf("  known [%s] %s (a known failure): %s\n", id.c_str(), check.c_str(),
                message.c_str());
    std::fflush(stdout);
    return;
  }
  std::printf("  FAIL  [%s] %s: %s\n", id.c_str(), check.c_str(), message.c_str());
  std::fflush(stdout);
  ++failed_;
}

void Report::refused(const std::string& message) {
  std::printf("  skip  the plugin refused these parameters: %s\n", message.c_str());
  refused_ = true;
}

void Report::end_variant() {
  if (options_.expect_failures && !caught_ && !refused_) {
    std::printf("  NOT CAUGHT: every check passed although this plugin is defective\n");
    ++uncaught_;
  }
  std::printf("  %.2f s\n", now_s() - start_s_);
  std::fflush(stdout);
}

int Report::finish() const {
  const char* kind = plugin_kind_name(kind_);
  int stale = 0;
  for (const Setting& setting : options_.settings) {
    if (setting.used) continue;
    std::printf("FAIL  --set %s=%s: no %s plugin checked declares %s\n", setting.name.c_str(),
                setting.value.c_str(), kind, setting.name.c_str());
    ++stale;
  }
  for (const KnownFailure& known : options_.known_failures) {
    if (known.seen) continue;
    std::printf(
        "FAIL  the known failure %s:%s did not fail in any variant: remove it from the "
        "list (or fix its name)\n",
        known.plugin.c_str(), known.check.c_str());
    ++stale;
  }
  if (options_.expect_failures) {
    std::printf("%s\n", uncaught_ == 0 ? "every defective plugin was caught"
                                       : "some defective plugins were not caught");
    return uncaught_ == 0 ? 0 : 1;
  }
  std::printf("%s: %s\n", kind,
              failed_ + stale > 0 ? "some checks failed"
              : known_ > 0        ? "every check passed but the known failures"
                                  : "every plugin conforms");
  return failed_ == 0 && stale == 0 ? 0 : 1;
}

}  // namespace detail

}  // namespace contactlab::conformance
