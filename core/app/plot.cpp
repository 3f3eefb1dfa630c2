// Running tools/plot.py (see plot.hpp).
#include "contactlab/core/plot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

extern char** environ;

namespace contactlab::core {

namespace fs = std::filesystem;

namespace {

constexpr int script_exit_no_matplotlib = 3;  // tools/plot.py's EXIT_NO_MATPLOTLIB

struct ChildResult {
  bool started = false;
  int exit_code = -1;  ///< −1: killed by a signal
  std::string output;  ///< stdout and stderr
};

ChildResult run_child(const std::vector<std::string>& arguments) {
  ChildResult result;
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    result.output = "cannot create a pipe";
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  std::vector<char*> argv;
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (error != 0) {
    close(pipe_fds[0]);
    return result;
  }
  result.started = true;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(pipe_fds[0], buffer, sizeof(buffer));
    if (n > 0) {
      result.output.append(buffer, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

fs::path find_plot_script() {
  std::error_code error;
  if (const char* given = std::getenv("CONTACTLAB_PLOT_SCRIPT"); given && *given)
    return fs::path(given);
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path installed = executable.parent_path() / ".." / CONTACTLAB_DATA_SUBDIR / "plot.py";
    if (fs::is_regular_file(installed, error)) return installed.lexically_normal();
  }
  const fs::path source = CONTACTLAB_SOURCE_PLOT_SCRIPT;
  if (fs::is_regular_file(source, error)) return source;
  return {};
}

PlotOutcome make_plots(const std::string& mode, const fs::path& directory) {
  PlotOutcome outcome;
  const fs::path script = find_plot_script();
  if (script.empty()) {
    outcome.message = "plot.py not found (looked beside the executable in ../" +
                      std::string(CONTACTLAB_DATA_SUBDIR) +
                      "/ and in the source tree; set CONTACTLAB_PLOT_SCRIPT)";
    return outcome;
  }
  std::vector<std::string> pythons;
  if (const char* given = std::getenv("CONTACTLAB_PYTHON"); given && *given) {
    pythons.push_back(given);
  } else {
    pythons = {"python3", "/usr/bin/python3"};
  }
  std::vector<std::string> tried;
  for (const std::string& python : pythons) {
    const ChildResult child = run_child({python, script.string(), mode, directory.string()});
    if (!child.started) {
      tried.push_back(python + ": not found");
      continue;
    }
    if (child.exit_code == script_exit_no_matplotlib) {
      tried.push_back(python + ": no matplotlib");
      continue;
    }
    if (child.exit_code != 0) {
      outcome.message = script.string() + " failed (" +
                        (child.exit_code < 0 ? std::string("killed by a signal")
                                             : "exit " + std::to_string(child.exit_code)) +
                        "): " + trimmed(child.output);
      return outcome;
    }
    std::istringstream lines(child.output);
    std::error_code error;
    for (std::string line; std::getline(lines, line);)
      if (!line.empty() && fs::is_regular_file(line, error)) outcome.files.emplace_back(line);
    outcome.ok = true;
    outcome.message = python;
    return outcome;
  }
  std::string list;
  for (const std::string& entry : tried) list += (list.empty() ? "" : "; ") + entry;
  outcome.message = "no python with matplotlib to run " + script.string() + " (" + list +
                    "); install python3-matplotlib (Debian/Ubuntu) or `pip install matplotlib`, "
                    "or set CONTACTLAB_PYTHON to a python that has it";
  return outcome;
}

}  // namespace contactlab::core
