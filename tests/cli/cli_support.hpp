// Helpers of the CLI tests: run the `contactlab` executable (or any shell command) capturing its
// output and exit code, fresh scratch directories, whole files as text.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace contactlab::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr together
};

/// Runs a shell command line, stderr merged into stdout.
inline CommandResult run_command(const std::string& command_line) {
  CommandResult result;
  const std::string command = command_line + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  while (std::size_t n = fread(buffer, 1, sizeof(buffer), pipe)) result.output.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

/// Runs the contactlab executable of this build with `arguments`.
inline CommandResult run_cli(const std::string& arguments) {
  return run_command(std::string(CONTACTLAB_CLI) + " " + arguments);
}

/// An empty path under the temporary directory, unique to this process: <prefix>_<name>_<pid>.
inline std::filesystem::path fresh_directory(const std::string& prefix, const std::string& name) {
  const std::filesystem::path directory = std::filesystem::temp_directory_path() /
                                          (prefix + "_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(directory);
  return directory;
}

inline std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace contactlab::testing
