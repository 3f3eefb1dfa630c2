// The plugin loader against deliberately good and broken fixture libraries.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "contactlab/core/config.hpp"
#include "contactlab/core/registry.hpp"
#include "contactlab/core/scene.hpp"

using namespace contactlab;
using namespace contactlab::core;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

const fs::path fixtures = CONTACTLAB_FIXTURE_DIR;

fs::path fixture(const std::string& subdir, const std::string& name) {
  return fixtures / subdir / (name + ".so");
}

std::string refusal(const fs::path& library) {
  PluginRegistry registry(std::vector<fs::path>{});
  try {
    registry.load_library(library);
  } catch (const PluginError& e) {
    return e.what();
  }
  FAIL("the library was not refused: " << library);
  return "";
}

/// A fresh path under the temporary directory, unique to this process.
fs::path scratch(const std::string& name) {
  const fs::path path =
      fs::temp_directory_path() / ("contactlab_loader_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(path);
  return path;
}

}  // namespace

TEST_CASE("loader: a good library is accepted and lists its plugin, version and schema") {
  PluginRegistry registry(std::vector<fs::path>{});
  const auto infos = registry.load_library(fixture("good", "fixture_good"));
  REQUIRE(infos.size() == 1);
  CHECK(infos[0].kind == PluginKind::force_law);
  CHECK(infos[0].name == "fixture_spring");
  CHECK(infos[0].version == "1.2.3");
  CHECK(infos[0].library_name == "fixture-good");
  REQUIRE(infos[0].schema.size() == 2);
  CHECK(infos[0].schema[0].name == "stiffness_N_per_m");
  CHECK(infos[0].schema[0].unit == "N/m");
}

TEST_CASE("loader: plugin objects keep their library loaded after the registry is gone") {
  std::shared_ptr<ForceLaw> law;
  {
    PluginRegistry registry(std::vector<fs::path>{fixtures / "good"});
    const PluginInfo* info = registry.find(PluginKind::force_law, "fixture_spring");
    REQUIRE(info != nullptr);
    ConfigNode params = parse_yaml("stiffness_N_per_m: 250\n", "params.yaml");
    law = registry.create<ForceLaw>(*info, validate_parameters(info->schema, params, "fixture"));
  }
  ContactKinematics contact;
  contact.penetration_m = 0.01;
  CHECK(law->normal_force(contact, ContactState{}) == Approx(2.5).epsilon(1e-15));
}

TEST_CASE(
    "loader: a library built for another SDK ABI version is refused, naming file and versions") {
  const auto path = fixture("wrong_abi", "fixture_wrong_abi");
  const std::string message = refusal(path);
  CHECK_THAT(message, Contains(path.filename().string()));
  CHECK_THAT(message, Contains("SDK ABI version 999"));
  CHECK_THAT(message, Contains("supports version " + std::to_string(CONTACTLAB_SDK_ABI_VERSION)));
}

TEST_CASE("loader: a library with a different build fingerprint is refused, naming each item") {
  const auto path = fixture("wrong_fingerprint", "fixture_wrong_fingerprint");
  const std::string message = refusal(path);
  CHECK_THAT(message, Contains(path.filename().string()));
  CHECK_THAT(message, Contains("glibcxx_use_cxx11_abi is 0 in the library but 1 in the host"));
  CHECK_THAT(message, Contains("eigen_max_align_bytes is 32 in the library"));
}

TEST_CASE("loader: a shared library without the entry symbol is refused as not a plugin") {
  const auto path = fixture("no_entry", "fixture_no_entry");
  const std::string message = refusal(path);
  CHECK_THAT(message, Contains(path.filename().string()));
  CHECK_THAT(message, Contains("no entry symbol 'contactlab_plugin_descriptor'"));
}

TEST_CASE("loader: a missing library file is refused with its path") {
  const std::string message = refusal(fixtures / "nowhere" / "missing.so");
  CHECK_THAT(message, Contains("missing.so"));
  CHECK_THAT(message, Contains("does not exist"));
}

TEST_CASE("loader: two libraries providing the same plugin name are an error naming both files") {
  PluginRegistry registry(std::vector<fs::path>{fixtures / "duplicate"});
  try {
    registry.find(PluginKind::force_law, "fixture_duplicate");
    FAIL("duplicate plugin names were accepted");
  } catch (const PluginError& e) {
    CHECK_THAT(e.what(), Contains("fixture_duplicate_a.so"));
    CHECK_THAT(e.what(), Contains("fixture_duplicate_b.so"));
  }
}

TEST_CASE("loader: an earlier search directory shadows a later one without error") {
  PluginRegistry registry(std::vector<fs::path>{fixtures / "good", fixtures / "duplicate"});
  const PluginInfo* info = registry.find(PluginKind::force_law, "fixture_spring");
  REQUIRE(info != nullptr);
  CHECK(info->tier == 1);
}

TEST_CASE("loader: a factory that throws is reported with the file and the reason") {
  PluginRegistry registry(std::vector<fs::path>{fixtures / "throwing_factory"});
  const PluginInfo* info = registry.find(PluginKind::force_law, "fixture_throwing");
  REQUIRE(info != nullptr);
  try {
    registry.create<ForceLaw>(*info, ParameterValues{});
    FAIL("the throwing factory produced an object");
  } catch (const PluginError& e) {
    CHECK_THAT(e.what(), Contains("fixture_throwing_factory.so"));
    CHECK_THAT(e.what(), Contains("calibration table missing"));
  }
}

TEST_CASE("loader: parameters violating the schema are refused before the factory runs") {
  PluginRegistry registry(std::vector<fs::path>{fixtures / "good"});
  const PluginInfo* info = registry.find(PluginKind::force_law, "fixture_spring");
  REQUIRE(info != nullptr);
  SECTION("out of range, with file:line:col and dotted path") {
    ConfigNode params = parse_yaml("mode: plain\nstiffness_N_per_m: -5\n", "exp.yaml");
    try {
      validate_parameters(info->schema, params, "force_law 'fixture_spring'");
      FAIL("out-of-range value accepted");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Contains("exp.yaml:2:20"));
      CHECK_THAT(e.what(), Contains("stiffness_N_per_m"));
      CHECK_THAT(e.what(), Contains("out of range [0, 1e+09] N/m"));
    }
  }
  SECTION("unknown key, with did-you-mean") {
    ConfigNode params = parse_yaml("stifness_N_per_m: 5\n", "exp.yaml");
    try {
      validate_parameters(info->schema, params, "force_law 'fixture_spring'");
      FAIL("unknown key accepted");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Contains("exp.yaml:1:1"));
      CHECK_THAT(e.what(), Contains("did you mean 'stiffness_N_per_m'"));
    }
  }
  SECTION("wrong type") {
    ConfigNode params = parse_yaml("stiffness_N_per_m: stiff\n", "exp.yaml");
    CHECK_THROWS_WITH(validate_parameters(info->schema, params, "fixture"),
                      Contains("exp.yaml:1:20") && Contains("must be a finite number"));
  }
  SECTION("a choice outside its list") {
    ConfigNode params = parse_yaml("mode: fansy\n", "exp.yaml");
    CHECK_THROWS_WITH(validate_parameters(info->schema, params, "fixture"),
                      Contains("did you mean 'fancy'"));
  }
}

TEST_CASE(
    "loader: scanning a folder keeps refused libraries as problems and the good ones usable") {
  PluginRegistry registry(
      std::vector<fs::path>{fixtures / "good", fixtures / "wrong_abi", fixtures / "no_entry"});
  CHECK(registry.plugins().size() == 1);
  REQUIRE(registry.problems().size() == 2);
  const std::string message =
      registry.unknown_plugin_message(PluginKind::force_law, "fixture_sprin");
  CHECK_THAT(message, Contains("did you mean 'fixture_spring'"));
  CHECK_THAT(message, Contains("known force_law plugins: fixture_spring"));
}

TEST_CASE("loader: CONTACTLAB_PLUGIN_PATH comes before the folder beside the core library") {
  ::setenv("CONTACTLAB_PLUGIN_PATH", "/tmp/first:/tmp/second", 1);
  const auto directories = PluginRegistry::default_search_directories();
  ::unsetenv("CONTACTLAB_PLUGIN_PATH");
  REQUIRE(directories.size() == 3);
  CHECK(directories[0] == "/tmp/first");
  CHECK(directories[1] == "/tmp/second");
  CHECK(directories[2] == core_library_directory() / "contactlab" / "plugins");
}

TEST_CASE("loader: the built-in plugins are found beside the core library with no environment") {
  PluginRegistry registry;
  for (auto [kind, name] :
       {std::pair{PluginKind::broad_phase, "brute_force"},
        std::pair{PluginKind::narrow_phase, "primitive"},
        std::pair{PluginKind::force_law, "linear"}, std::pair{PluginKind::force_law, "hertz"},
        std::pair{PluginKind::friction, "none"},
        std::pair{PluginKind::friction, "coulomb_regularized"},
        std::pair{PluginKind::integrator, "semi_implicit_euler"},
        std::pair{PluginKind::integrator, "rk4"}, std::pair{PluginKind::joint, "free"},
        std::pair{PluginKind::joint, "fixed"}}) {
    INFO(plugin_kind_name(kind) << " " << name);
    CHECK(registry.find(kind, name) != nullptr);
  }
  CHECK(registry.problems().empty());
}

TEST_CASE(
    "loader: an explicit library outside the search directories is refused unopened (its "
    "constructor never runs) until the user trusts it") {
  const fs::path marker = scratch("marker");
  ::setenv("CONTACTLAB_FIXTURE_MARKER", marker.c_str(), 1);
  const fs::path library = fixture("marker", "fixture_marker");
  PluginRegistry registry(std::vector<fs::path>{fixtures / "good"});
  CHECK_FALSE(registry.trusts(library));
  try {
    registry.find(PluginKind::force_law, "fixture_marker", library);
    FAIL("an untrusted library was loaded");
  } catch (const PluginError& e) {
    CHECK_THAT(e.what(), Contains("'" + fs::canonical(library).string() + "' is not trusted"));
    CHECK_THAT(e.what(), Contains("--trust-library " + fs::canonical(library).string()));
    CHECK_THAT(e.what(), Contains("CONTACTLAB_TRUSTED_LIBRARIES"));
    CHECK_THAT(e.what(), Contains((fixtures / "good").string()));  // the trusted folders
  }
  CHECK_FALSE(fs::exists(marker));

  registry.trust_library(library);
  CHECK(registry.trusts(library));
  CHECK(registry.find(PluginKind::force_law, "fixture_marker", library) != nullptr);
  CHECK(fs::exists(marker));  // the constructor ran: the trace works
  ::unsetenv("CONTACTLAB_FIXTURE_MARKER");
  fs::remove(marker);
}

TEST_CASE(
    "loader: a library is trusted directly in a search directory (as the scan loads it), not "
    "below it, beside a link's target or by another spelling of an untrusted file") {
  const fs::path root = scratch("trust");
  fs::create_directories(root / "plugins" / "sub");
  fs::create_directories(root / "elsewhere");
  fs::copy_file(fixture("good", "fixture_good"), root / "elsewhere" / "a.so");
  fs::create_directory_symlink(root / "elsewhere", root / "plugins" / "link");
  fs::create_symlink(root / "elsewhere" / "a.so", root / "plugins" / "linked.so");
  PluginRegistry registry(std::vector<fs::path>{root / "plugins"});
  CHECK(registry.trusts(root / "plugins" / "a.so"));
  CHECK(registry.trusts(root / "plugins" / "sub" / ".." / "a.so"));
  CHECK(registry.trusts(root / "plugins" / "linked.so"));  // scan() loads it too
  CHECK_FALSE(registry.trusts(root / "plugins" / "sub" / "a.so"));
  CHECK_FALSE(registry.trusts(root / "elsewhere" / "a.so"));
  CHECK_FALSE(registry.trusts(root / "plugins" / ".." / "elsewhere" / "a.so"));
  CHECK_FALSE(registry.trusts(root / "plugins" / "link" / "a.so"));
  // The system resolves link/.. beside link's target: root/a.so, outside the plugin folder.
  CHECK_FALSE(registry.trusts(root / "plugins" / "link" / ".." / "a.so"));
  CHECK_FALSE(registry.trusts(root / "plugins"));
  CHECK_FALSE(registry.trusts(root / "plugins" / ".."));

  registry.trust_library(root / "elsewhere" / "a.so");
  CHECK(registry.trusts(root / "elsewhere" / "a.so"));
  CHECK(registry.trusts(root / "plugins" / "link" / "a.so"));  // the same file
  CHECK_FALSE(registry.trusts(root / "elsewhere" / "b.so"));
  fs::remove_all(root);
}

TEST_CASE("loader: CONTACTLAB_TRUSTED_LIBRARIES lists the libraries the default registry trusts") {
  const fs::path library = fixture("marker", "fixture_marker");
  ::setenv("CONTACTLAB_TRUSTED_LIBRARIES", ("/tmp/one.so::" + library.string()).c_str(), 1);
  const auto trusted = PluginRegistry::default_trusted_libraries();
  PluginRegistry registry;
  ::unsetenv("CONTACTLAB_TRUSTED_LIBRARIES");
  REQUIRE(trusted.size() == 2);
  CHECK(trusted[0] == "/tmp/one.so");
  CHECK(trusted[1] == library);
  CHECK(registry.trusts(library));
  CHECK_FALSE(PluginRegistry().trusts(library));
}
