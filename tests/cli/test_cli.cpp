// The `contactlab` command end to end: run, validate and plugins on the shipped configs, and each
// exit code.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

using Result = contactlab::testing::CommandResult;
using contactlab::testing::read_file;

Result run(const std::string& arguments) {
  return contactlab::testing::run_cli(arguments);
}

const std::string cli = CONTACTLAB_CLI;
const fs::path configs = CONTACTLAB_CONFIGS_DIR;
const fs::path fixtures = CONTACTLAB_FIXTURE_DIR;

fs::path fresh_directory(const std::string& name) {
  return contactlab::testing::fresh_directory("contactlab_cli", name);
}

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

std::size_t line_count(const fs::path& file) {
  std::ifstream in(file);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

}  // namespace

TEST_CASE("cli: run bouncing_ball writes a complete run directory (exit 0)") {
  const fs::path out = fresh_directory("ball");
  const Result r = run("run " + (configs / "bouncing_ball.yaml").string() + " --out " +
                       out.string() + " --set duration_s=0.45 --set output.interval_s=1e-5");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(first_line(out / "trajectory.csv") ==
        "time_s,ball.px,ball.py,ball.pz,ball.qw,ball.qx,ball.qy,ball.qz,ball.vx,ball.vy,ball.vz,"
        "ball.wx,ball.wy,ball.wz");
  CHECK(line_count(out / "trajectory.csv") == 1 + 45001);  // header + t = 0, 10 µs, ..., 0.45 s
  CHECK_THAT(first_line(out / "contacts.csv"), Contains("normal_force_N"));
  // The ball touches the floor from ≈ 0.4401 s to ≈ 0.4404 s: about 26 output rows.
  CHECK(line_count(out / "contacts.csv") > 20);
  const std::string events = read_file(out / "events.csv");
  CHECK_THAT(events, Contains("contact_start,floor,ball"));
  CHECK_THAT(events, Contains("contact_end,floor,ball"));
  const auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  CHECK(summary["status"] == "complete");
  for (const char* key :
       {"wall_time_s", "steps", "rhs_evaluations", "narrow_phase_queries", "events",
        "max_penetration_m", "energy_initial_J", "energy_final_J", "plugins", "versions"})
    CHECK(summary.contains(key));
  CHECK(summary["events"] == 2);
  CHECK(summary["plugins"]["force_law"]["name"] == "hertz");
  CHECK(summary["plugins"]["integrator"]["name"] == "rk4");
  CHECK_THAT(summary["plugins"]["force_law"]["library"].get<std::string>(),
             Contains("forcelaw-basic.so"));
  CHECK(summary["energy_final_J"].get<double>() ==
        Approx(summary["energy_initial_J"].get<double>()).epsilon(1e-3));
  const std::string resolved = read_file(out / "config.resolved.yaml");
  CHECK_THAT(resolved, Contains("duration_s: 0.45"));
  CHECK_THAT(resolved, Contains("stiffness_scale: 1"));  // hertz default filled in
}

TEST_CASE("cli: --set can change a plugin's type") {
  const fs::path out = fresh_directory("ball_linear");
  const Result r = run("run " + (configs / "bouncing_ball.yaml").string() + " --out " +
                       out.string() + " --set duration_s=0.01 --set contact.force_law.type=linear");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  CHECK(summary["plugins"]["force_law"]["name"] == "linear");
}

TEST_CASE(
    "cli: a bilinear impact writes contact_start, max_compression, force_zero and contact_end to "
    "events.csv in that order, each located (summary: 4 events, 4 located)") {
  const fs::path out = fresh_directory("ball_bilinear");
  const Result r =
      run("run " + (configs / "bouncing_ball.yaml").string() + " --out " + out.string() +
          " --set duration_s=0.5 --set contact.force_law.type=bilinear");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::ifstream events(out / "events.csv");
  std::vector<std::string> kinds;
  std::string line;
  std::getline(events, line);  // header
  while (std::getline(events, line)) {
    const auto first = line.find(',');
    kinds.push_back(line.substr(first + 1, line.find(',', first + 1) - first - 1));
  }
  CHECK(kinds ==
        std::vector<std::string>{"contact_start", "max_compression", "force_zero", "contact_end"});
  const auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  CHECK(summary["events"] == 4);
  CHECK(summary["located_events"] == 4);
}

TEST_CASE(
    "cli: every shipped experiment in configs/ validates and runs 1 ms (exit 0), every "
    "comparison too (compare), the material palette is not an experiment") {
  int experiments = 0;
  for (const auto& entry : fs::directory_iterator(configs)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".yaml" || name == "materials.yaml") continue;
    const std::string text = "\n" + read_file(entry.path());
    if (text.find("\nvariants:") != std::string::npos) {
      // A comparison: every variant validates, and each runs 1 ms.
      Result r = run("compare " + entry.path().string() + " --dry-run");
      INFO(name << ": " << r.output);
      CHECK(r.exit_code == 0);
      const fs::path out = fresh_directory("short_" + entry.path().stem().string());
      r = run("compare " + entry.path().string() + " --out " + out.string() +
              " --set duration_s=0.001");
      CHECK(r.exit_code == 0);
      continue;
    }
    ++experiments;
    Result r = run("validate " + entry.path().string());
    INFO(name << ": " << r.output);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Contains("valid"));
    const fs::path out = fresh_directory("short_" + entry.path().stem().string());
    r = run("run " + entry.path().string() + " --out " + out.string() + " --set duration_s=0.001");
    CHECK(r.exit_code == 0);
  }
  CHECK(experiments >= 3);
}

TEST_CASE("cli: newtons_cradle runs (exit 0)") {
  const fs::path out = fresh_directory("cradle");
  const Result r = run("run " + (configs / "newtons_cradle.yaml").string() + " --out " +
                       out.string() + " --set duration_s=0.002");
  INFO(r.output);
  CHECK(r.exit_code == 0);
}

TEST_CASE("cli: plugins --json lists kinds, versions, libraries and parameter schemas") {
  const Result r = run("plugins --json");
  REQUIRE(r.exit_code == 0);
  const auto listing = nlohmann::json::parse(r.output);
  bool found_hertz = false, found_rk4 = false;
  for (const auto& plugin : listing["plugins"]) {
    CHECK(plugin.contains("version"));
    CHECK(plugin.contains("library"));
    if (plugin["kind"] == "force_law" && plugin["name"] == "linear") {
      bool stiffness = false;
      for (const auto& p : plugin["parameters"])
        if (p["name"] == "stiffness_N_per_m") {
          stiffness = true;
          CHECK(p["type"] == "real");
          CHECK(p["unit"] == "N/m");
          CHECK(p.contains("default"));
        }
      CHECK(stiffness);
    }
    found_hertz |= plugin["kind"] == "force_law" && plugin["name"] == "hertz";
    found_rk4 |= plugin["kind"] == "integrator" && plugin["name"] == "rk4";
  }
  CHECK(found_hertz);
  CHECK(found_rk4);
  CHECK(listing["refused_libraries"].empty());
}

TEST_CASE("cli: plugins lists every kind in text") {
  const Result r = run("plugins");
  REQUIRE(r.exit_code == 0);
  for (const char* kind :
       {"broad_phase", "narrow_phase", "force_law", "friction", "integrator", "joint"})
    CHECK_THAT(r.output, Contains(kind));
}

TEST_CASE("cli: bad input exits 2 with the location") {
  SECTION("missing file") {
    const Result r = run("run /nonexistent/x.yaml");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("/nonexistent/x.yaml"));
  }
  SECTION("unknown key") {
    const Result r = run("validate " + (configs / "bouncing_ball.yaml").string() +
                         " --set bodies.ball.initial.positon_m=[0,0,1]");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("did you mean 'position_m'"));
  }
  SECTION("command-line usage") {
    CHECK(run("run").exit_code == 2);
    CHECK(run("frobnicate").exit_code == 2);
    CHECK(run("run a.yaml --set nonsense").exit_code == 2);
  }
}

TEST_CASE("cli: a refused plugin library exits 3 naming the file") {
  const fs::path library = fixtures / "wrong_abi" / "fixture_wrong_abi.so";
  const Result r =
      run("validate " + (configs / "bouncing_ball.yaml").string() +
          " --set 'contact.force_law={type: fixture_spring, library: " + library.string() +
          "}' --trust-library " + library.string());
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.output, Contains("fixture_wrong_abi.so"));
  CHECK_THAT(r.output, Contains("SDK ABI version 999"));
}

TEST_CASE("cli: an explicit library: path loads a plugin from outside the search path, trusted") {
  const fs::path library = fixtures / "good" / "fixture_good.so";
  const Result r =
      run("validate " + (configs / "bouncing_ball.yaml").string() +
          " --set 'contact.force_law={type: fixture_spring, library: " + library.string() +
          "}' --trust-library " + library.string());
  INFO(r.output);
  CHECK(r.exit_code == 0);
}

TEST_CASE("cli: a state that becomes non-finite exits 4 and leaves a run marked failed") {
  const fs::path out = fresh_directory("diverge");
  // Gravity of 1e308 m/s² with a 1 s step overflows the velocity on the second step.
  const Result r =
      run("run " + (configs / "bouncing_ball.yaml").string() + " --out " + out.string() +
          " --set gravity_m_per_s2=[0,0,-1e308] --set integrator.params.step_s=1"
          " --set duration_s=10");
  INFO(r.output);
  CHECK(r.exit_code == 4);
  CHECK_THAT(r.output, Contains("non-finite"));
  const auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  CHECK(summary["status"] == "failed");
  CHECK_THAT(summary["error"].get<std::string>(), Contains("non-finite"));
}

TEST_CASE("cli: Ctrl-C stops a run cleanly, keeping the run directory marked incomplete") {
  const fs::path out = fresh_directory("interrupt");
  const std::string command = "timeout -s INT --preserve-status 1.5 " + cli + " run " +
                              (configs / "bouncing_ball.yaml").string() + " --out " + out.string() +
                              " --set duration_s=1000 >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  const auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  CHECK(summary["status"] == "incomplete");
  CHECK(summary["time_reached_s"].get<double>() > 0.0);
  CHECK(line_count(out / "trajectory.csv") > 2);
}
