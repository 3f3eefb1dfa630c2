// An experiment file runs no code of its own: a `library:` outside the plugin folders is refused
// by `validate`, `run` and `compare` at its key, before it is opened, unless the user trusts it
// (--trust-library, CONTACTLAB_TRUSTED_LIBRARIES, CONTACTLAB_PLUGIN_PATH). The fixture library
// (tests/loader/fixtures/marker.cpp) appends a line to $CONTACTLAB_FIXTURE_MARKER from a static
// constructor, which dlopen runs before the host could read its descriptor: no marker, no load.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_support.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

using Result = contactlab::testing::CommandResult;
using contactlab::testing::read_file;
using contactlab::testing::run_command;

const std::string cli = CONTACTLAB_CLI;
const fs::path configs = CONTACTLAB_CONFIGS_DIR;
const fs::path marker_fixture = fs::path(CONTACTLAB_FIXTURE_DIR) / "marker" / "fixture_marker.so";

/// A ball resting on a floor for 5 ms; its force law comes from the library beside the file.
const char* const kExperiment = R"(name: trust_test
include: [MATERIALS]
duration_s: 0.005
gravity_m_per_s2: [0, 0, -9.81]
output: { interval_s: 1.0e-3 }
bodies:
  - name: floor
    joint: { type: fixed }
    geometry:
      - { name: floor, shape: { type: half_space, normal: [0, 0, 1] }, material: Steel }
  - name: ball
    joint: { type: free }
    initial: { position_m: [0, 0, 0.0501], velocity_m_per_s: [0, 0, 0] }
    geometry:
      - { name: ball, shape: { type: sphere, radius_m: 0.05 }, material: Steel }
collision: { broad_phase: brute_force, narrow_phase: [primitive] }
contact:
  force_law:
    type: fixture_marker
    library: fixture_marker.so
  friction: { type: none }
integrator: { type: rk4, params: { step_s: 1.0e-5 } }
)";
constexpr int kLibraryLine = 20;    // `    library: fixture_marker.so`
constexpr int kLibraryColumn = 14;  // where its value starts

/// A folder nobody trusts, as a downloaded experiment would sit in: the experiment, a copy of the
/// fixture library beside it, and the path of the marker its constructor would write.
struct Untrusted {
  fs::path folder;
  fs::path experiment;
  fs::path library;
  fs::path marker;
};

Untrusted untrusted_folder(const std::string& name) {
  Untrusted u;
  u.folder = contactlab::testing::fresh_directory("contactlab_trust", name);
  fs::create_directories(u.folder);
  u.experiment = u.folder / "experiment.yaml";
  u.library = u.folder / "fixture_marker.so";
  u.marker = u.folder / "marker.txt";
  std::string text = kExperiment;
  text.replace(text.find("MATERIALS"), 9, (configs / "materials.yaml").string());
  std::ofstream(u.experiment) << text;
  fs::copy_file(marker_fixture, u.library);
  return u;
}

/// `contactlab ARGUMENTS` with the fixture's marker file (and any `environment`) set.
Result run(const Untrusted& u, const std::string& arguments, const std::string& environment = "") {
  return run_command("env CONTACTLAB_FIXTURE_MARKER=" + u.marker.string() + " " + environment +
                     " " + cli + " " + arguments);
}

void check_refused(const Result& r, const Untrusted& u) {
  INFO(r.output);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.output, Contains(u.experiment.string() + ":" + std::to_string(kLibraryLine) + ":" +
                                std::to_string(kLibraryColumn) + ": plugin library '" +
                                u.library.string() + "' is not trusted, so it was not loaded"));
  CHECK_THAT(r.output, Contains("(at contact.force_law.library)"));
  CHECK_THAT(r.output, Contains("pass --trust-library " + u.library.string()));
  CHECK_FALSE(fs::exists(u.marker));  // its constructor never ran
}

}  // namespace

TEST_CASE("trust: validate refuses a library: outside the plugin folders at its key, unopened") {
  const Untrusted u = untrusted_folder("validate");
  check_refused(run(u, "validate " + u.experiment.string()), u);
  // Named on the command line instead of in the file: refused just the same.
  const Result r =
      run(u, "validate " + (configs / "bouncing_ball.yaml").string() +
                 " --set 'contact.force_law={type: fixture_marker, library: " + u.library.string() +
                 "}'");
  INFO(r.output);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.output, Contains("is not trusted"));
  CHECK_FALSE(fs::exists(u.marker));
}

TEST_CASE("trust: run refuses a library: outside the plugin folders at its key, unopened") {
  const Untrusted u = untrusted_folder("run");
  const fs::path out = u.folder / "out";
  check_refused(run(u, "run " + u.experiment.string() + " --out " + out.string()), u);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("trust: --trust-library loads the named library for validate and run") {
  const Untrusted u = untrusted_folder("flag");
  Result r = run(u, "validate " + u.experiment.string() + " --trust-library " + u.library.string());
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("valid"));
  CHECK(read_file(u.marker) == "fixture_marker loaded\n");  // validate loads a trusted library

  const fs::path out = u.folder / "out";
  // A relative --trust-library is relative to the working directory, as any command-line path.
  r = run_command(
      "cd " + u.folder.string() + " && env CONTACTLAB_FIXTURE_MARKER=" + u.marker.string() + " " +
      cli + " run experiment.yaml --out " + out.string() + " --trust-library fixture_marker.so");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  CHECK(summary["status"] == "complete");
  CHECK(summary["plugins"]["force_law"]["name"] == "fixture_marker");
  CHECK(summary["plugins"]["force_law"]["library"] == u.library.string());
}

TEST_CASE("trust: --trust-library trusts only the file it names, not another file nor a folder") {
  const Untrusted u = untrusted_folder("other");
  const Result r =
      run(u, "validate " + u.experiment.string() + " --trust-library " +
                 (u.folder / "other.so").string() + " --trust-library " + u.folder.string());
  check_refused(r, u);
}

TEST_CASE(
    "trust: CONTACTLAB_TRUSTED_LIBRARIES and CONTACTLAB_PLUGIN_PATH trust from the environment") {
  const Untrusted u = untrusted_folder("environment");
  SECTION("CONTACTLAB_TRUSTED_LIBRARIES names the file") {
    const Result r = run(u, "validate " + u.experiment.string(),
                         "CONTACTLAB_TRUSTED_LIBRARIES=/nowhere/x.so:" + u.library.string());
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(fs::exists(u.marker));
  }
  SECTION("CONTACTLAB_PLUGIN_PATH names its folder (whose libraries are all loaded)") {
    const Result r =
        run(u, "validate " + u.experiment.string(), "CONTACTLAB_PLUGIN_PATH=" + u.folder.string());
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(fs::exists(u.marker));
  }
}

TEST_CASE("trust: compare refuses an untrusted variant library and passes --trust-library on") {
  const Untrusted u = untrusted_folder("compare");
  const fs::path file = u.folder / "compare.yaml";
  std::ofstream(file) << "include: [experiment.yaml]\n"
                         "variants:\n"
                         "  contact.force_law.params.stiffness_N_per_m: [1.0e7, 2.0e7]\n";
  const fs::path out = u.folder / "out";
  Result r = run(u, "compare " + file.string() + " --jobs 2 --out " + out.string());
  {
    INFO(r.output);
    CHECK(r.exit_code == 2);  // bad input: nothing runs
    CHECK_THAT(r.output, Contains(u.experiment.string() + ":" + std::to_string(kLibraryLine)));
    CHECK_THAT(r.output, Contains("is not trusted"));
    CHECK_THAT(r.output, Contains("(at contact.force_law.library)"));
    CHECK_FALSE(fs::exists(u.marker));
    CHECK_FALSE(fs::exists(out));
  }
  // Trusted: the parent checks the variants and each child loads the library itself (a child
  // that did not receive the trust would refuse it, and its variant would fail).
  r = run(u, "compare " + file.string() + " --jobs 2 --out " + out.string() + " --trust-library " +
                 u.library.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string table = read_file(out / "comparison.csv");
  CHECK_THAT(table, Contains("1.0e7,ok"));
  CHECK_THAT(table, Contains("2.0e7,ok"));
  CHECK_THAT(read_file(out / "1.0e7" / "command.txt"),
             Contains("--trust-library " + u.library.string()));
  // One load in the parent (validation) and one in each of the two children.
  CHECK(read_file(u.marker) ==
        "fixture_marker loaded\nfixture_marker loaded\nfixture_marker loaded\n");
}
