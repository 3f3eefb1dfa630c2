// `contactlab plot RUN_DIR` and compare's bar charts: the PNG and SVG files through tools/plot.py
// (skipped, as ctest shows, when no python with matplotlib is found), and the errors.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_support.hpp"
#include "support/skip.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

using Result = contactlab::testing::CommandResult;
using contactlab::testing::read_file;

Result run(const std::string& command_line) {
  return contactlab::testing::run_command(command_line);
}

const std::string cli = CONTACTLAB_CLI;
const fs::path configs = CONTACTLAB_CONFIGS_DIR;
constexpr int exit_plot = 5;

fs::path fresh_directory(const std::string& name) {
  return contactlab::testing::fresh_directory("contactlab_plot", name);
}

std::string head(const fs::path& file, std::size_t bytes) {
  std::ifstream in(file, std::ios::binary);
  std::string text(bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(bytes));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

/// A PNG (by its signature) and an SVG (an XML document with an <svg> element), non-empty.
void check_png_and_svg(const fs::path& stem) {
  const fs::path png = stem.string() + ".png", svg = stem.string() + ".svg";
  INFO(png.string());
  REQUIRE(fs::is_regular_file(png));
  REQUIRE(fs::is_regular_file(svg));
  CHECK(head(png, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(fs::file_size(png) > 1000);
  CHECK_THAT(head(svg, 2000), Contains("<svg"));
}

/// True when `contactlab plot` (exit 5) or `compare` (a warning) said it found no python with
/// matplotlib: the test then skips.
bool no_matplotlib(const Result& r) {
  return r.output.find("no python with matplotlib") != std::string::npos;
}

}  // namespace

TEST_CASE(
    "plot: contactlab plot RUN_DIR writes energy, penetration and force-penetration PNG and SVG "
    "into RUN_DIR/plots") {
  const fs::path out = fresh_directory("run");
  const Result ran = run(cli + " run " + (configs / "bouncing_ball.yaml").string() + " --out " +
                         out.string() + " --set duration_s=0.45 --set output.interval_s=1e-5");
  INFO(ran.output);
  REQUIRE(ran.exit_code == 0);
  REQUIRE(fs::is_regular_file(out / "energy.csv"));
  const Result r = run(cli + " plot " + out.string());
  INFO(r.output);
  if (r.exit_code == exit_plot && no_matplotlib(r))
    CONTACTLAB_SKIP("no python with matplotlib here (" << r.output << ")");
  REQUIRE(r.exit_code == 0);
  for (const char* stem : {"energy", "penetration", "force_penetration"})
    check_png_and_svg(out / "plots" / stem);
  CHECK_THAT(r.output, Contains("force_penetration.svg"));
}

TEST_CASE("plot: a missing python is a clear error with exit code 5, a non-run directory exit 2") {
  const fs::path out = fresh_directory("nopython");
  const Result ran = run(cli + " run " + (configs / "bouncing_ball.yaml").string() + " --out " +
                         out.string() + " --set duration_s=0.001");
  REQUIRE(ran.exit_code == 0);
  const Result r = run("CONTACTLAB_PYTHON=/nonexistent/python3 " + cli + " plot " + out.string());
  CHECK(r.exit_code == exit_plot);
  CHECK_THAT(r.output, Contains("no python with matplotlib") &&
                           Contains("/nonexistent/python3: not found") &&
                           Contains("python3-matplotlib"));
  const Result missing = run(cli + " plot " + (out / "nothing_here").string());
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Contains("is not a directory"));
  const Result not_run = run(cli + " plot " + configs.string());
  CHECK(not_run.exit_code == 2);
  CHECK_THAT(not_run.output, Contains("not a run directory"));
}

namespace {

/// A comparison of two rk4 steps on the bouncing ball (0.01 s, one probe) in `dir`/laws.yaml.
fs::path two_variant_comparison(const fs::path& dir) {
  fs::create_directories(dir);
  const fs::path file = dir / "laws.yaml";
  std::ofstream(file) << "include: [" << (configs / "bouncing_ball.yaml").string() << "]\n"
                      << "duration_s: 0.01\n"
                      << "probes: [{ name: z_end, body: ball, quantity: position, component: z, "
                         "at_s: 0.01 }]\n"
                      << "variants:\n  integrator.params.step_s: [1.0e-5, 2.0e-5]\n";
  return file;
}

}  // namespace

TEST_CASE("plot: compare draws one bar chart per numeric column after its table") {
  const fs::path dir = fresh_directory("compare");
  const fs::path file = two_variant_comparison(dir);
  const Result r =
      run(cli + " compare " + file.string() + " --jobs 1 --out " + (dir / "out").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  if (no_matplotlib(r)) CONTACTLAB_SKIP("no python with matplotlib here (" << r.output << ")");
  for (const char* column : {"steps", "rhs_evaluations", "probes_z_end"})
    check_png_and_svg(dir / "out" / "plots" / (std::string("comparison_") + column));
}

TEST_CASE(
    "plot: compare without a python with matplotlib warns and still writes its table, probes "
    "among the default columns") {
  const fs::path dir = fresh_directory("compare_without_python");
  const fs::path file = two_variant_comparison(dir);
  const Result without = run("CONTACTLAB_PYTHON=/nonexistent/python3 " + cli + " compare " +
                             file.string() + " --jobs 1 --out " + (dir / "out").string());
  INFO(without.output);
  CHECK(without.exit_code == 0);
  CHECK_THAT(without.output, Contains("warning: no plots"));
  REQUIRE(fs::is_regular_file(dir / "out" / "comparison.csv"));
  // The probe is a default column of the table.
  std::ifstream csv(dir / "out" / "comparison.csv");
  std::string header;
  std::getline(csv, header);
  CHECK_THAT(header, Contains("probes.z_end") && Contains("energy_max_deviation_J"));
}
