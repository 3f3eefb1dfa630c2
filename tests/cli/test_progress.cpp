// `contactlab run`'s progress line: on a terminal (a pseudo-terminal from util-linux's `script`)
// one line redrawn with the simulated time, the fraction, the steps, the wall time and the time
// left, cleared before "done:"; through a pipe nothing of it.
#include <catch2/catch.hpp>
#include <string>

#include "cli_support.hpp"

using contactlab::testing::fresh_directory;
using contactlab::testing::run_cli;
using contactlab::testing::run_command;

TEST_CASE(
    "cli: run on a terminal redraws one progress line (simulated time, fraction, steps, elapsed, "
    "time left) and clears it before done, and through a pipe prints none") {
  const auto directory = fresh_directory("contactlab_progress", "tty");
  // 0.6 s of the 216-sphere pile under pgs: about two wall seconds, several redraws.
  const std::string arguments = std::string(CONTACTLAB_CONFIGS_DIR) +
                                "/pile_spheres.yaml --set duration_s=0.6 -o " + directory.string();
  const auto tty = run_command("script -qfec \"" + std::string(CONTACTLAB_CLI) + " run " +
                               arguments + "\" /dev/null");
  INFO(tty.output);
  REQUIRE(tty.exit_code == 0);
  const std::string redraw = "\r\x1b[Kt = ";
  const auto first = tty.output.find(redraw);
  REQUIRE(first != std::string::npos);
  CHECK(tty.output.find(redraw, first + 1) != std::string::npos);  // redrawn, not appended
  CHECK(tty.output.find(" s of 0.6 s (") != std::string::npos);
  CHECK(tty.output.find(" steps; ") != std::string::npos);
  CHECK(tty.output.find(" elapsed, about ") != std::string::npos);
  CHECK(tty.output.find("\r\x1b[Kdone: 600 steps") != std::string::npos);  // cleared, then done

  std::filesystem::remove_all(directory);
  const auto piped = run_cli("run " + arguments);
  INFO(piped.output);
  REQUIRE(piped.exit_code == 0);
  CHECK(piped.output.find("\x1b[K") == std::string::npos);
  CHECK(piped.output.find(" elapsed, about ") == std::string::npos);
  CHECK(piped.output.find("done: 600 steps") != std::string::npos);
  std::filesystem::remove_all(directory);
}
