// What every conformance suite shares: finding the plugins of one kind (every library in the
// plugin search directories, or the libraries named on the command line), their parameter
// variants, running the suite's checks on each and reporting, the --expect-failures self-test,
// and the allocation counter. Each suite (<kind>_conformance.cpp) only states its checks.
//
// Usage of every suite:
//   <program> [--quick | --quick=PLUGIN ...] [--set NAME=VALUE ...] [--known-failure PLUGIN:CHECK
//   ...]
//             [--expect-failures] [LIBRARY.so ...]
//   LIBRARY.so        check every plugin of the suite's kind in these libraries (a third party's
//                     own plugin, built anywhere); without any, every plugin of that kind the
//                     registry finds in its search directories (CONTACTLAB_PLUGIN_PATH, then the
//                     plugin folder beside libcontactlab_core)
//   --known-failure   the check CHECK (its id, printed in brackets) of the plugin PLUGIN is known
//                     to fail: its failure is reported as known and does not fail the run, but the
//                     run fails if it passes in every parameter variant (the list must stay true)
//   --set             parameter NAME of every plugin that declares it is VALUE (as YAML would give
//                     it: 2.5, 3, true, a choice) instead of its default, in every variant (a
//                     choice or boolean set so is not varied); a NAME no plugin declares fails
//   --quick           fewer cases (a suite's own choice, e.g. a third of the narrow-phase poses),
//                     for plugins too slow for the full set; --quick=PLUGIN for the plugin PLUGIN
//                     only (one library may hold a fast plugin and a slow one)
//   --expect-failures succeed only when every plugin fails some check: the suites' self-test
//                     against the deliberately defective plugins of fixtures/
// Exit status 0 when every check passed (or, with --expect-failures, every plugin was caught);
// 1 otherwise; 2 for a bad command line.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "contactlab/core/registry.hpp"
#include "contactlab/math.hpp"

namespace contactlab::conformance {

/// A failed check; the message says what differed (with the inputs that show it).
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const std::string& what) {
  throw Failure(what);
}

/// A number with every digit ("%.17g"), so that a reported case can be reproduced.
std::string number(double value);
/// "(x, y, z)" with every digit.
std::string vector_text(const Vec3& v);

/// Heap allocations (malloc and friends, so operator new too, from any library of the process)
/// between begin and end. The one place the suites touch the test suite's allocation counter.
/// Where that counter cannot count (tests/support/allocation_counter.hpp: neither glibc nor a
/// sanitizer runtime) allocations_countable() is false and the suites say that they skipped the
/// check.
bool allocations_countable();
void begin_counting_allocations();
/// The count since begin_counting_allocations(); stops counting.
long end_counting_allocations();

/// True when the suite was asked for --quick, or --quick=PLUGIN for the plugin being checked:
/// fewer cases.
bool quick();

/// One set of parameters a plugin is checked with.
struct Variant {
  std::string label;
  ParameterValues params;
};

/// A --set NAME=VALUE of the command line.
struct Setting {
  std::string name, value;
  bool used = false;  ///< some plugin declares it
};

/// The defaults (with the settings a plugin declares applied), then each other value of every
/// choice parameter and the other value of every boolean parameter, one at a time (finite
/// domains, so all of them are covered), but those set. Real and integer parameters stay at their
/// defaults or settings. Throws std::invalid_argument for a setting that is not a valid value.
std::vector<Variant> parameter_variants(const ParameterSchema& schema,
                                        std::vector<Setting>& settings);

/// Makes a fresh instance of the plugin under test with the variant's parameters.
template <class Interface>
using Factory = std::function<std::shared_ptr<Interface>()>;

/// One check of a suite: runs on fresh instances from the factory, returns a short summary of
/// what it covered, throws Failure on the first violation. `id` names it on the command line.
template <class Interface>
struct Check {
  std::string id;
  std::string name;
  std::function<std::string(const Factory<Interface>&)> run;
};

namespace detail {

struct KnownFailure {
  std::string plugin, check;
  bool seen = false;  ///< it failed in some variant
};

struct Options {
  bool quick = false;
  std::vector<std::string> quick_plugins;  ///< --quick=PLUGIN
  bool expect_failures = false;
  std::vector<KnownFailure> known_failures;
  std::vector<Setting> settings;
  std::vector<std::filesystem::path> libraries;
};

/// Parses the command line; false (after printing the usage) when it is wrong.
bool parse_options(int argc, char** argv, Options& options);
/// The plugins of `kind` (see the usage above); false after printing FAIL when there are none or
/// a named library is refused.
bool find_plugins(core::PluginRegistry& registry, PluginKind kind, const Options& options,
                  std::vector<core::PluginInfo>& plugins);
/// The search directories the registry is built with: the defaults without named libraries.
std::vector<std::filesystem::path> search_directories(const Options& options);

/// Counts and prints the outcome of each check; the exit status at the end.
class Report {
 public:
  Report(PluginKind kind, Options& options) : kind_(kind), options_(options) {}
  void begin_variant(const core::PluginInfo& info, const Variant& variant);
  void passed(const std::string& id, const std::string& check, const std::string& summary);
  void failed(const std::string& id, const std::string& check, const std::string& message);
  /// The variant's parameters were refused by the plugin's factory (not a failure for a
  /// non-default variant: a schema cannot express every constraint between parameters).
  void refused(const std::string& message);
  /// The self-test stops a plugin at its first caught defect.
  bool stop_variant() const { return options_.expect_failures && caught_; }
  void end_variant();
  int finish() const;

 private:
  PluginKind kind_;
  Options& options_;
  std::string plugin_;
  bool caught_ = false;
  bool refused_ = false;
  int failed_ = 0;
  int known_ = 0;
  int uncaught_ = 0;
  double start_s_ = 0.0;
};

}  // namespace detail

/// main() of a suite: every check on every parameter variant of every plugin of the interface's
/// kind, each check on fresh instances.
template <class Interface>
int run_suite(int argc, char** argv, const std::vector<Check<Interface>>& checks) {
  constexpr PluginKind kind = plugin_kind_of<Interface>::value;
  detail::Options options;
  if (!detail::parse_options(argc, argv, options)) return 2;
  core::PluginRegistry registry(detail::search_directories(options));
  std::vector<core::PluginInfo> plugins;
  if (!detail::find_plugins(registry, kind, options, plugins)) return 1;
  detail::Report report(kind, options);
  for (const core::PluginInfo& info : plugins) {
    std::vector<Variant> variants;
    try {
      variants = parameter_variants(info.schema, options.settings);
    } catch (const std::invalid_argument& e) {
      std::printf("FAIL %s: %s\n", info.name.c_str(), e.what());
      return 2;
    }
    for (std::size_t v = 0; v < variants.size(); ++v) {
      const Variant& variant = variants[v];
      report.begin_variant(info, variant);
      const Factory<Interface> make = [&] {
        return registry.create<Interface>(info, variant.params);
      };
      try {
        make();
      } catch (const std::exception& e) {
        // The defaults must make a plugin; another variant may be refused with a reason.
        if (v == 0) {
          report.failed("creation", "creation", std::string("could not be created: ") + e.what());
        } else {
          report.refused(e.what());
        }
        report.end_variant();
        continue;
      }
      for (const Check<Interface>& check : checks) {
        try {
          report.passed(check.id, check.name, check.run(make));
        } catch (const Failure& e) {
          report.failed(check.id, check.name, e.what());
        } catch (const std::exception& e) {
          report.failed(check.id, check.name, std::string("threw: ") + e.what());
        } catch (...) {
          report.failed(check.id, check.name, "threw a non-standard exception");
        }
        if (report.stop_variant()) break;
      }
      report.end_variant();
    }
  }
  return report.finish();
}

}  // namespace contactlab::conformance
