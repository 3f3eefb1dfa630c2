// `contactlab compare` and `contactlab merge` end to end: variants (product and zip), names, the
// table (one row per variant, failed ones included), located errors, shards and their merge,
// --jobs independence and Ctrl-C. Every comparison here simulates 10 ms of a ball resting on a
// floor, so a whole comparison takes well under a second per variant.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
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
const fs::path throwing_fixture =
    fs::path(CONTACTLAB_FIXTURE_DIR) / "throwing_factory" / "fixture_throwing_factory.so";
const fs::path aborting_fixture = CONTACTLAB_ABORTING_FIXTURE;
/// The fixtures live outside the plugin folders: a comparison naming them must trust them.
const std::string trust_fixtures = " --trust-library " + throwing_fixture.string() +
                                   " --trust-library " + aborting_fixture.string();

fs::path fresh_directory(const std::string& name) {
  return contactlab::testing::fresh_directory("contactlab_compare", name);
}

/// A ball (r = 5 cm) 0.1 mm above a floor: it lands after 4.5 ms and rests, 10 ms in all.
const char* const kExperiment = R"(name: compare_test
include: [MATERIALS]
duration_s: DURATION
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
  force_law: { type: hertz }
  friction: { type: none }
integrator: { type: rk4, params: { step_s: 1.0e-5 } }
)";
constexpr int kExperimentLines = 20;

/// Writes a comparison file: the experiment above, then `tail` (variants etc.) from line 21.
fs::path write_comparison(const fs::path& directory, const std::string& tail,
                          const std::string& duration = "0.01") {
  fs::create_directories(directory);
  std::string text = kExperiment;
  text.replace(text.find("MATERIALS"), 9, (configs / "materials.yaml").string());
  text.replace(text.find("DURATION"), 8, duration);
  const fs::path file = directory / "compare.yaml";
  std::ofstream(file) << text << tail;
  return file;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string cell(std::size_t row, const std::string& column) const {
    for (std::size_t c = 0; c < header.size(); ++c)
      if (header[c] == column) return rows.at(row).at(c);
    FAIL("no column " << column);
    return "";
  }
};

Csv read_csv(const fs::path& file) {
  std::ifstream in(file);
  Csv csv;
  std::string line;
  if (std::getline(in, line)) csv.header = split_csv_line(line);
  while (std::getline(in, line)) csv.rows.push_back(split_csv_line(line));
  return csv;
}

/// The rows without the columns that measure time (wall_time_s), as text.
std::vector<std::vector<std::string>> untimed_rows(const Csv& csv) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : csv.rows) {
    std::vector<std::string> kept;
    for (std::size_t c = 0; c < csv.header.size(); ++c)
      if (csv.header[c].find("wall_time") == std::string::npos) kept.push_back(row.at(c));
    rows.push_back(kept);
  }
  return rows;
}

std::size_t count_lines_starting(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  std::size_t n = 0;
  for (std::string line; std::getline(lines, line);) n += line.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE(
    "compare: one row per variant with its values, failed variants included (a throwing "
    "factory, a crashing plugin) while the others complete") {
  const fs::path dir = fresh_directory("rows");
  const std::string laws =
      "variants:\n"
      "  contact.force_law:\n"
      "    - { type: hertz }\n"
      "    - { type: linear, params: { stiffness_N_per_m: 1.0e7 } }\n"
      "    - { type: fixture_throwing, library: " +
      throwing_fixture.string() +
      " }\n"
      "    - { type: fixture_aborting, library: " +
      aborting_fixture.string() +
      " }\n"
      "  integrator.params.step_s: [1.0e-5, 2.0e-5]\n";
  const fs::path file = write_comparison(dir, laws);
  const fs::path out = dir / "out";
  const Result r =
      run("compare " + file.string() + " --jobs 2 --out " + out.string() + trust_fixtures);
  INFO(r.output);
  CHECK(r.exit_code == 4);  // some variants failed; the table is written

  const Csv csv = read_csv(out / "comparison.csv");
  REQUIRE(csv.rows.size() == 8);  // 4 laws × 2 steps, in product order (the last path fastest)
  CHECK(csv.header.front() == "variant");
  CHECK(csv.header.at(1) == "contact.force_law");
  CHECK(csv.header.at(2) == "integrator.params.step_s");
  CHECK(csv.header.at(3) == "status");
  CHECK(csv.header.back() == "error");
  const std::vector<std::string> names = {"hertz__1.0e-5", "hertz__2.0e-5", "linear-1.0e7__1.0e-5",
                                          "linear-1.0e7__2.0e-5"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(csv.rows[i][0] == names[i]);
    CHECK(csv.cell(i, "status") == "ok");
    CHECK(csv.cell(i, "error").empty());
    // The table's metrics are the run's summary.json values, read here independently.
    const auto summary = nlohmann::json::parse(read_file(out / names[i] / "summary.json"));
    CHECK(summary["status"] == "complete");
    CHECK(csv.cell(i, "steps") == std::to_string(summary["steps"].get<long>()));
    CHECK(csv.cell(i, "rhs_evaluations") == std::to_string(summary["rhs_evaluations"].get<long>()));
    CHECK(std::stod(csv.cell(i, "max_penetration_m")) ==
          summary["max_penetration_m"].get<double>());
    CHECK(std::stod(csv.cell(i, "energy_drift_J")) ==
          summary["energy_final_J"].get<double>() - summary["energy_initial_J"].get<double>());
  }
  CHECK(csv.rows[0][1] == "{type: hertz}");
  CHECK(csv.rows[1][2] == "2.0e-5");
  for (std::size_t i = 4; i < 6; ++i) {
    CHECK(csv.cell(i, "status") == "failed");
    CHECK_THAT(csv.cell(i, "error"), Contains("calibration table missing"));
    // The run directory says it failed although the child died before its recorder started.
    const auto summary = nlohmann::json::parse(read_file(out / csv.rows[i][0] / "summary.json"));
    CHECK(summary["status"] == "failed");
  }
  for (std::size_t i = 6; i < 8; ++i) {
    CHECK(csv.cell(i, "status") == "failed");
    CHECK_THAT(csv.cell(i, "error"), Contains("signal 6"));
    const auto summary = nlohmann::json::parse(read_file(out / csv.rows[i][0] / "summary.json"));
    CHECK(summary["status"] == "failed");
    CHECK_THAT(summary["error"].get<std::string>(), Contains("signal 6"));
  }
  const std::string markdown = read_file(out / "comparison.md");
  CHECK_THAT(markdown,
             Contains("| variant | contact.force_law | integrator.params.step_s | status"));
  CHECK_THAT(markdown, Contains("Status: complete — 4 ok, 4 failed"));
  CHECK(count_lines_starting(markdown, "| ") == 1 + 8);
  const auto table = nlohmann::json::parse(read_file(out / "comparison.json"));
  CHECK(table["status"] == "complete");
  CHECK(table["rows"].size() == 8);
  CHECK_THAT(read_file(out / "hertz__1.0e-5" / "command.txt"), Contains("run-variant"));
}

TEST_CASE("compare: product multiplies the list lengths and zip pairs them (3 × 2 = 6, zip 3)") {
  const fs::path dir = fresh_directory("counts");
  SECTION("product") {
    const fs::path file = write_comparison(dir,
                                           "variants:\n"
                                           "  contact.force_law.type: [hertz, linear, engelson]\n"
                                           "  integrator.params.step_s: [1.0e-5, 2.0e-5]\n");
    const Result r = run("compare " + file.string() + " --dry-run");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Contains("6 valid variants (product of 3 × 2)"));
    CHECK(count_lines_starting(r.output, "  ") == 6);
    CHECK_THAT(r.output, Contains("  1  hertz__1.0e-5  "));
    CHECK_THAT(r.output, Contains("  6  engelson__2.0e-5  "));
  }
  SECTION("zip") {
    const fs::path file = write_comparison(dir,
                                           "variants:\n"
                                           "  contact.force_law.type: [hertz, linear, engelson]\n"
                                           "  integrator.params.step_s: [1.0e-5, 2.0e-5, 4.0e-5]\n"
                                           "combine: zip\n");
    const Result r = run("compare " + file.string() + " --dry-run");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Contains("3 valid variants (zip)"));
    CHECK(count_lines_starting(r.output, "  ") == 3);
    CHECK_THAT(r.output, Contains("  3  engelson__4.0e-5  "));
  }
  SECTION("zip of unequal lists is an error at the shorter list, before anything runs") {
    const fs::path file = write_comparison(dir,
                                           "variants:\n"
                                           "  contact.force_law.type: [hertz, linear, engelson]\n"
                                           "  integrator.params.step_s: [1.0e-5, 2.0e-5]\n"
                                           "combine: zip\n");
    const Result r = run("compare " + file.string() + " --out " + (dir / "out").string());
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains(file.string() + ":" + std::to_string(kExperimentLines + 3) +
                                  ":29: combine: zip needs lists of one length"));
    CHECK_THAT(r.output, Contains("'integrator.params.step_s' has 2"));
    CHECK(!fs::exists(dir / "out"));
  }
  SECTION("names stay unique when two values give the same label") {
    const fs::path file = write_comparison(dir,
                                           "variants:\n"
                                           "  description: ['a b', 'a:b', a_b]\n");
    const Result r = run("compare " + file.string() + " --dry-run");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Contains("  1  a_b  "));
    CHECK_THAT(r.output, Contains("  2  a_b-2  "));
    CHECK_THAT(r.output, Contains("  3  a_b-3  "));
  }
}

TEST_CASE(
    "compare: a wrong dotted path is an error with file:line:col, the path and a did-you-mean, "
    "and nothing runs") {
  const fs::path dir = fresh_directory("badpath");
  const fs::path out = dir / "out";
  SECTION("an unknown key on the way") {
    const fs::path file = write_comparison(dir,
                                           "variants:\n"
                                           "  contact.forcelaw.type: [hertz, linear]\n");
    const Result r = run("compare " + file.string() + " --out " + out.string());
    INFO(r.output);
    CHECK(r.exit_code == 2);
    // The created key is located at its path in variants: (line 22, the list at column 26).
    CHECK_THAT(r.output, Contains(file.string() + ":" + std::to_string(kExperimentLines + 2) +
                                  ":26: unknown key 'forcelaw' (did you mean 'force_law'?)"));
    CHECK_THAT(r.output, Contains("(at contact.forcelaw)"));
    CHECK_THAT(r.output, Contains("in variant 'hertz'"));
    CHECK_THAT(r.output, Contains("and 1 more variant with the same error"));
    CHECK_THAT(r.output, Contains("nothing was run"));
    CHECK(!fs::exists(out));
  }
  SECTION("a list element by a misspelt name") {
    const fs::path file = write_comparison(dir,
                                           "variants:\n"
                                           "  bodies.bal.initial.position_m:\n"
                                           "    - [0, 0, 0.06]\n");
    const Result r = run("compare " + file.string() + " --out " + out.string());
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains(file.string() + ":" + std::to_string(kExperimentLines + 2) +
                                  ":3: no element named 'bal'"));
    CHECK_THAT(r.output, Contains("did you mean 'ball'?"));
    CHECK(!fs::exists(out));
  }
  SECTION("a value that one variant gets wrong stops all of them") {
    const fs::path file = write_comparison(dir,
                                           "variants:\n"
                                           "  integrator.params.step_s: [1.0e-5, -1.0]\n");
    const Result r = run("compare " + file.string() + " --out " + out.string());
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output,
               Contains(file.string() + ":" + std::to_string(kExperimentLines + 2) + ":38: "));
    CHECK_THAT(r.output, Contains("out of range"));
    CHECK_THAT(r.output, Contains("in variant 'v-1.0'"));
    CHECK(!fs::exists(out));
  }
  SECTION("variants must be lists") {
    const fs::path file = write_comparison(dir,
                                           "variants:\n"
                                           "  contact.force_law.type: hertz\n");
    const Result r = run("compare " + file.string() + " --dry-run");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("takes a non-empty list of values"));
  }
}

TEST_CASE(
    "compare: shards 1/2 and 2/2 merged give the unsharded table, row for row (wall times "
    "aside), and merge refuses mixed or duplicate shards") {
  const fs::path dir = fresh_directory("shards");
  const fs::path file =
      write_comparison(dir,
                       "variants:\n"
                       "  contact.force_law:\n"
                       "    - { type: hertz }\n"
                       "    - { type: fixture_throwing, library: " +
                           throwing_fixture.string() +
                           " }\n"
                           "    - { type: linear, params: { stiffness_N_per_m: 1.0e7 } }\n"
                           "  integrator.params.step_s: [1.0e-5, 2.0e-5]\n"
                           "columns: [wall_time_s, steps, rhs_evaluations, events, "
                           "max_penetration_m, energy_drift_J, "
                           "plugins.force_law.name]\n");
  const std::string base = "compare " + file.string() + trust_fixtures + " --jobs 2 --out ";
  const Result whole = run(base + (dir / "whole").string());
  INFO(whole.output);
  REQUIRE(whole.exit_code == 4);  // the throwing variants fail
  const Result first = run(base + (dir / "s1").string() + " --shard 1/2");
  INFO(first.output);
  REQUIRE(first.exit_code == 4);
  const Result second = run(base + (dir / "s2").string() + " --shard 2/2");
  INFO(second.output);
  REQUIRE(second.exit_code == 4);

  // Shard 1/2 holds variants 1, 3, 5 of 6; shard 2/2 variants 2, 4, 6.
  const Csv shard_one = read_csv(dir / "s1" / "comparison.csv");
  REQUIRE(shard_one.rows.size() == 3);
  CHECK(shard_one.rows[0][0] == "hertz__1.0e-5");
  // A path in a value contributes its file name to the variant's name.
  CHECK(shard_one.rows[1][0] == "fixture_throwing-fixture_throwing_factory.so__1.0e-5");
  CHECK(shard_one.rows[2][0] == "linear-1.0e7__1.0e-5");
  CHECK_THAT(read_file(dir / "s1" / "comparison.md"), Contains("this is shard 1/2 (3 of them"));
  CHECK(nlohmann::json::parse(read_file(dir / "s2" / "comparison.json"))["shard"]["index"] == 2);

  const Result merged = run("merge " + (dir / "s2").string() + " " + (dir / "s1").string() +
                            " --out " + (dir / "merged").string());
  INFO(merged.output);
  CHECK(merged.exit_code == 4);  // complete, with failed variants
  const Csv expected = read_csv(dir / "whole" / "comparison.csv");
  const Csv actual = read_csv(dir / "merged" / "comparison.csv");
  REQUIRE(expected.rows.size() == 6);
  CHECK(actual.header == expected.header);
  CHECK(untimed_rows(actual) == untimed_rows(expected));
  CHECK(expected.cell(4, "plugins.force_law.name") == "linear");
  CHECK(nlohmann::json::parse(read_file(dir / "merged" / "comparison.json"))["status"] ==
        "complete");
  // The merged directory shows each variant's run directory, as the unsharded one has it.
  CHECK(fs::exists(dir / "merged" / "hertz__2.0e-5" / "summary.json"));

  SECTION("a missing shard gives an incomplete table with its variants not run (exit 1)") {
    const Result partial =
        run("merge " + (dir / "s1").string() + " --out " + (dir / "partial").string());
    INFO(partial.output);
    CHECK(partial.exit_code == 1);
    const Csv csv = read_csv(dir / "partial" / "comparison.csv");
    REQUIRE(csv.rows.size() == 6);
    CHECK(csv.cell(1, "status") == "not_run");
    CHECK_THAT(csv.cell(1, "error"), Contains("shard 2/2 not given"));
    CHECK(csv.cell(0, "status") == "ok");
    CHECK_THAT(read_file(dir / "partial" / "comparison.md"), Contains("INCOMPLETE"));
  }
  SECTION("the same shard twice is refused") {
    const Result twice = run("merge " + (dir / "s1").string() + " " + (dir / "s1").string() +
                             " --out " + (dir / "twice").string());
    CHECK(twice.exit_code == 2);
    CHECK_THAT(twice.output, Contains("are both shard 1/2"));
  }
  SECTION("shards of another comparison are refused") {
    const fs::path other_dir = dir / "other";
    const fs::path other = write_comparison(other_dir,
                                            "variants:\n"
                                            "  contact.force_law.type: [hertz, linear]\n");
    REQUIRE(run("compare " + other.string() + " --shard 2/2 --out " + (other_dir / "s2").string())
                .exit_code == 0);
    const Result mixed = run("merge " + (dir / "s1").string() + " " + (other_dir / "s2").string() +
                             " --out " + (dir / "mixed").string());
    CHECK(mixed.exit_code == 2);
    CHECK_THAT(mixed.output, Contains("hold different comparisons"));
  }
}

TEST_CASE("compare: --jobs 1 and --jobs 2 write the same table (wall times aside)") {
  const fs::path dir = fresh_directory("jobs");
  const fs::path file = write_comparison(dir,
                                         "variants:\n"
                                         "  contact.force_law.type: [hertz, linear]\n"
                                         "  integrator.params.step_s: [1.0e-5, 2.0e-5]\n");
  const Result one = run("compare " + file.string() + " --jobs 1 --out " + (dir / "j1").string());
  INFO(one.output);
  REQUIRE(one.exit_code == 0);
  const Result two = run("compare " + file.string() + " --jobs 2 --out " + (dir / "j2").string());
  INFO(two.output);
  REQUIRE(two.exit_code == 0);
  const Csv a = read_csv(dir / "j1" / "comparison.csv");
  const Csv b = read_csv(dir / "j2" / "comparison.csv");
  REQUIRE(a.rows.size() == 4);
  CHECK(a.header == b.header);
  CHECK(untimed_rows(a) == untimed_rows(b));
  // Not a TTY: one line per event (4 starts, 4 ends).
  CHECK(count_lines_starting(one.output, "[") == 8);
}

TEST_CASE(
    "compare and merge take the output directory as --out or -o as run does, and the old "
    "--output is refused naming --out (exit 2)") {
  const fs::path dir = fresh_directory("spelling");
  const fs::path file = write_comparison(dir,
                                         "variants:\n"
                                         "  contact.force_law.type: [hertz]\n");
  Result r = run("compare " + file.string() + " -o " + (dir / "short").string());
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(dir / "short" / "comparison.csv"));
  r = run("merge " + (dir / "short").string() + " -o " + (dir / "merged").string());
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(dir / "merged" / "comparison.csv"));
  r = run("merge " + (dir / "short").string() + " --out " + (dir / "merged_long").string());
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(dir / "merged_long" / "comparison.csv"));

  for (const std::string& command :
       {"compare " + file.string(), "merge " + (dir / "short").string(),
        "run " + (configs / "bouncing_ball.yaml").string()}) {
    for (const std::string& old :
         {" --output " + (dir / "old").string(), " --output=" + (dir / "old").string()}) {
      INFO(command + old);
      r = run(command + old);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.output, Contains("--output is now --out"));
      CHECK_FALSE(fs::exists(dir / "old"));
    }
  }
  for (const char* command : {"run", "compare", "merge"}) {
    INFO(command);
    CHECK_THAT(run(std::string(command) + " --help").output, Contains("-o,--out"));
  }
}

TEST_CASE("compare: bad --shard, --jobs and --out values exit 2 naming the problem") {
  const fs::path dir = fresh_directory("options");
  const fs::path file = write_comparison(dir,
                                         "variants:\n"
                                         "  contact.force_law.type: [hertz, linear]\n");
  for (const char* shard : {"0/2", "3/2", "1/0", "a/b", "2"}) {
    INFO(shard);
    const Result r = run("compare " + file.string() + " --dry-run --shard " + shard);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("--shard"));
  }
  CHECK(run("compare " + file.string() + " --dry-run --jobs 0").exit_code == 2);
  fs::create_directories(dir / "full");
  std::ofstream(dir / "full" / "something.txt") << "x\n";
  const Result r = run("compare " + file.string() + " --out " + (dir / "full").string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("not empty"));
}

TEST_CASE(
    "compare: Ctrl-C stops launching, stops the running variants and writes the table marked "
    "incomplete (exit 130)") {
  const fs::path dir = fresh_directory("interrupt");
  // 1000 s of simulated time: no variant finishes before the interrupt at 3 s.
  const fs::path file = write_comparison(dir,
                                         "variants:\n"
                                         "  contact.force_law.type: [hertz, linear, engelson]\n",
                                         "1000");
  const fs::path out = dir / "out";
  const std::string command = "timeout -s INT --preserve-status 3 " + cli + " compare " +
                              file.string() + " --jobs 2 --out " + out.string() +
                              " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  const Csv csv = read_csv(out / "comparison.csv");
  REQUIRE(csv.rows.size() == 3);
  CHECK(csv.cell(0, "status") == "interrupted");
  CHECK(csv.cell(1, "status") == "interrupted");
  CHECK(csv.cell(2, "status") == "not_run");
  const auto table = nlohmann::json::parse(read_file(out / "comparison.json"));
  CHECK(table["status"] == "incomplete");
  CHECK_THAT(read_file(out / "comparison.md"), Contains("INCOMPLETE"));
  const auto summary = nlohmann::json::parse(read_file(out / "hertz" / "summary.json"));
  CHECK(summary["status"] == "incomplete");
  CHECK(summary["time_reached_s"].get<double>() > 0.0);
}

TEST_CASE(
    "compare: --set overrides the file for every variant, and shards run with different "
    "overrides do not merge") {
  const fs::path dir = fresh_directory("set");
  const fs::path file = write_comparison(dir,
                                         "variants:\n"
                                         "  contact.force_law.type: [hertz, linear]\n");
  const Result first = run("compare " + file.string() + " --shard 1/2 --set duration_s=0.002" +
                           " --out " + (dir / "s1").string());
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  const Csv csv = read_csv(dir / "s1" / "comparison.csv");
  REQUIRE(csv.rows.size() == 1);
  CHECK(csv.cell(0, "time_reached_s") == "0.002");
  CHECK_THAT(read_file(dir / "s1" / "hertz" / "command.txt"), Contains("--set duration_s=0.002"));
  const Result second =
      run("compare " + file.string() + " --shard 2/2 --out " + (dir / "s2").string());
  REQUIRE(second.exit_code == 0);
  CHECK(read_csv(dir / "s2" / "comparison.csv").cell(0, "time_reached_s") == "0.01");
  const Result merged = run("merge " + (dir / "s1").string() + " " + (dir / "s2").string() +
                            " --out " + (dir / "merged").string());
  CHECK(merged.exit_code == 2);
  CHECK_THAT(merged.output, Contains("hold different comparisons"));
}

TEST_CASE(
    "compare: trajectory_difference_m is the largest distance from the first variant's body "
    "positions (0, 0.3, 0.4 m for the ball shifted sideways on a frictionless floor, within "
    "1e-12), and merge recomputes it over the merged rows") {
  const fs::path directory = fresh_directory("trajectory_difference");
  const fs::path file = write_comparison(directory, R"(variants:
  bodies.ball.initial.position_m: [[0, 0, 0.0501], [0.3, 0, 0.0501], [0, 0.4, 0.0501]]
columns: [trajectory_difference_m, steps]
)");
  const fs::path whole = directory / "whole";
  Result r = run("compare " + file.string() + " --jobs 2 --out " + whole.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const Csv table = read_csv(whole / "comparison.csv");
  REQUIRE(table.rows.size() == 3);
  const double expected[] = {0.0, 0.3, 0.4};
  for (std::size_t row = 0; row < 3; ++row)
    CHECK(std::stod(table.cell(row, "trajectory_difference_m")) ==
          Approx(expected[row]).margin(1e-12));

  // Shard 2/2 alone holds only the second variant, which is its own reference; merged, the
  // first variant is the reference again.
  const fs::path one = directory / "one", two = directory / "two", merged = directory / "merged";
  REQUIRE(run("compare " + file.string() + " --shard 1/2 --out " + one.string()).exit_code == 0);
  REQUIRE(run("compare " + file.string() + " --shard 2/2 --out " + two.string()).exit_code == 0);
  CHECK(std::stod(read_csv(two / "comparison.csv").cell(0, "trajectory_difference_m")) == 0.0);
  r = run("merge " + one.string() + " " + two.string() + " --out " + merged.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(untimed_rows(read_csv(merged / "comparison.csv")) == untimed_rows(table));
}
