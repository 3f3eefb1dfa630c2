// Running a comparison: one child process per variant (`contactlab run-variant`), `jobs` at a
// time, with progress on stderr; the table after every finished variant; merging shard tables
// (see compare.hpp).
//
// Why child processes and not threads: a variant runs plugin code, and a plugin that crashes
// (segfault, abort, an exception escaping a destructor) or leaks or corrupts memory takes its
// whole process with it. In a child it takes only its own variant, which the table reports as
// failed ("killed by signal 11 (Segmentation fault)") while the others go on. Children also keep
// plugin libraries' global state apart, and each run's timings free of the others' allocator and
// cache traffic (as far as the cores allow). The cost — a process start and a plugin scan per
// variant, a few milliseconds — is small next to a simulation.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "compare_table.hpp"
#include "contactlab/core/compare.hpp"
#include "contactlab/core/experiment.hpp"
#include "contactlab/core/plot.hpp"
#include "contactlab/core/progress_line.hpp"

extern char** environ;

namespace contactlab::core {
namespace {

namespace fs = std::filesystem;
using comparison::Cell;
using comparison::Row;
using comparison::RowStatus;
using comparison::Table;
using Clock = std::chrono::steady_clock;

constexpr auto kPoll = std::chrono::milliseconds(20);
constexpr auto kRedraw = std::chrono::milliseconds(250);
constexpr auto kKillAfter = std::chrono::seconds(10);  ///< after an interrupt was forwarded

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool is_shell_safe(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || std::strchr("_./=+:,-@%", c) != nullptr;
  });
}

std::string shell_quote(const std::string& text) {
  if (is_shell_safe(text)) return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// The last "error: ..." line a child printed (its own message), else its last line.
std::string error_from_log(const fs::path& log) {
  std::string text = read_text(log);
  if (text.size() > 65536) text = text.substr(text.size() - 65536);
  std::istringstream lines(text);
  std::string line, last, error;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    last = line;
    if (line.rfind("error: ", 0) == 0) error = line.substr(7);
  }
  return error.empty() ? last : error;
}

/// An empty or absent directory may take a comparison; anything else is refused.
void check_output_directory(const fs::path& directory) {
  std::error_code error;
  if (!fs::exists(directory, error)) return;
  if (!fs::is_directory(directory, error))
    throw InputError("--out " + directory.string() + ": exists and is not a directory");
  if (!fs::is_empty(directory, error))
    throw InputError("--out " + directory.string() +
                     ": the directory exists and is not empty (a comparison never overwrites "
                     "results; choose another --out or remove it)");
}

void make_directory(const fs::path& directory) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error)
    throw InputError("cannot create directory '" + directory.string() + "': " + error.message());
}

struct Running {
  std::size_t index = 0;
  Clock::time_point started;
};

/// The live display (TTY: one line redrawn) or the event log (one line per event).
class Progress {
 public:
  Progress(std::size_t total, int jobs) : total_(total), jobs_(jobs), tty_(isatty(2) != 0) {}

  void started(const std::string& name, std::size_t running, std::size_t waiting) {
    starts_[name] = Clock::now();
    if (tty_) return redraw(running, waiting, true);
    std::cerr << "[" << done_ << "/" << total_ << "] started " << name << '\n';
  }

  void finished(const std::string& name, RowStatus status, const std::string& error, double seconds,
                std::size_t running, std::size_t waiting) {
    starts_.erase(name);
    ++done_;
    if (status == RowStatus::ok) {
      ++ok_;
      seconds_done_ += seconds;
      ++timed_;
    } else if (status == RowStatus::failed) {
      ++failed_;
      seconds_done_ += seconds;
      ++timed_;
    }
    std::string line = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "] " +
                       comparison::status_name(status) + " " + name + " (" +
                       duration_text(seconds) + ")";
    if (!error.empty()) line += ": " + error;
    if (tty_) {
      // Failures stay on screen above the progress line; successes only update it.
      if (status != RowStatus::ok) std::cerr << "\r\x1b[K" << line << '\n';
      redraw(running, waiting, true);
    } else {
      std::cerr << line << '\n';
    }
  }

  void note(const std::string& text) {
    if (tty_) std::cerr << "\r\x1b[K";
    std::cerr << text << '\n';
  }

  /// Expected time left: the mean duration of the finished runs times the work left (a running
  /// variant: the mean less its age, at least a tenth of the mean), over the parallel lanes.
  void redraw(std::size_t running, std::size_t waiting, bool force) {
    if (!tty_) return;
    const auto now = Clock::now();
    if (!force && now - last_ < kRedraw) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    std::string eta = "?";
    if (timed_ > 0) {
      const double mean = seconds_done_ / static_cast<double>(timed_);
      double work = mean * static_cast<double>(waiting);
      for (const auto& entry : starts_) {
        const double age = std::chrono::duration<double>(now - entry.second).count();
        work += std::max(0.1 * mean, mean - age);
      }
      const double lanes = static_cast<double>(
          std::max<std::size_t>(1, std::min<std::size_t>(jobs_, running + waiting)));
      eta = duration_text(work / lanes);
    }
    std::cerr << "\r\x1b[K" << done_ << "/" << total_ << " done (" << ok_ << " ok, " << failed_
              << " failed), " << running << " running, " << waiting << " waiting; "
              << duration_text(elapsed) << " elapsed, about " << eta << " left" << std::flush;
  }

  void close() {
    if (tty_) std::cerr << "\r\x1b[K" << std::flush;
  }

 private:
  std::size_t total_;
  std::size_t jobs_;
  bool tty_;
  std::size_t done_ = 0, ok_ = 0, failed_ = 0, timed_ = 0;
  double seconds_done_ = 0.0;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_{};
  std::map<std::string, Clock::time_point> starts_;  ///< running variants
};

struct Outcome {
  RowStatus status = RowStatus::failed;
  std::string error;
  std::vector<Cell> metrics;
};

/// What a finished child left: its exit status, summary.json and log. A child that died without
/// saying so (a signal, no summary) gets a summary.json that does, so its directory never claims
/// to be merely unfinished.
Outcome classify(int wait_status, bool stop_requested, const fs::path& directory,
                 const std::vector<std::string>& columns) {
  using nlohmann::json;
  Outcome outcome;
  const fs::path summary_file = directory / "summary.json";
  const std::string summary_text = read_text(summary_file);
  json summary;
  try {
    if (!summary_text.empty()) summary = json::parse(summary_text);
  } catch (const json::exception&) {
    summary = json();
  }
  const std::string summary_status = summary.is_object() ? summary.value("status", "") : "";
  const std::string summary_error = summary.is_object() ? summary.value("error", "") : "";
  outcome.metrics = comparison::metrics_from_summary(summary_text, columns);

  const bool exited = WIFEXITED(wait_status);
  const int code = exited ? WEXITSTATUS(wait_status) : -1;
  const int signal = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
  if (exited && code == 0 && summary_status == "complete") {
    outcome.status = RowStatus::ok;
    return outcome;
  }
  if ((exited && code == compare_exit_interrupted) || signal == SIGINT || signal == SIGTERM ||
      (signal == SIGKILL && stop_requested)) {
    outcome.status = RowStatus::interrupted;
    std::ostringstream text;
    text << "interrupted";
    if (summary.is_object() && summary.contains("time_reached_s") &&
        summary["time_reached_s"].is_number())
      text << " at t = " << summary["time_reached_s"].get<double>() << " s";
    if (signal != 0) text << " (" << (signal == SIGKILL ? "killed" : strsignal(signal)) << ")";
    outcome.error = text.str();
  } else {
    outcome.status = RowStatus::failed;
    if (signal != 0) {
      outcome.error = "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    } else if (summary_status == "failed" && !summary_error.empty()) {
      outcome.error = summary_error;
    } else {
      outcome.error = error_from_log(directory / "log.txt");
      if (outcome.error.empty()) outcome.error = "exit code " + std::to_string(code);
      if (exited && code == 0)
        outcome.error = "exit code 0 but summary.json says '" + summary_status + "'";
    }
  }
  if (summary_status.empty() ||
      (summary_status == "incomplete" && outcome.status == RowStatus::failed)) {
    json patched = summary.is_object() ? summary : json::object();
    patched["status"] = outcome.status == RowStatus::interrupted ? "incomplete" : "failed";
    patched["error"] = outcome.error;
    std::ofstream out(summary_file);
    out << patched.dump(2) << '\n';
  }
  return outcome;
}

pid_t spawn(const std::vector<std::string>& arguments, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  const std::string log_path = log.string();
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> argv;
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw InputError("cannot start '" + arguments[0] + "': " + std::strerror(error));
  return pid;
}

void warn_missing_columns(const Table& table, const std::string& summary_text, Progress& progress) {
  if (summary_text.empty()) return;
  const std::vector<std::string> keys = comparison::summary_keys(summary_text);
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    bool any = false;
    for (const Row& row : table.rows)
      any |= row.status == RowStatus::ok && row.metrics[c].kind != Cell::Kind::missing;
    if (any) continue;
    std::string text = "warning: column '" + table.columns[c] + "' is in no variant's summary.json";
    const std::string suggestion = did_you_mean(table.columns[c], keys);
    if (!suggestion.empty()) text += " (did you mean '" + suggestion + "'?)";
    progress.note(text);
  }
}

std::string status_counts(const Table& table) {
  std::size_t counts[4] = {0, 0, 0, 0};
  for (const Row& row : table.rows) ++counts[static_cast<int>(row.status)];
  std::string text = std::to_string(counts[0]) + " ok, " + std::to_string(counts[1]) + " failed";
  if (counts[2]) text += ", " + std::to_string(counts[2]) + " interrupted";
  if (counts[3]) text += ", " + std::to_string(counts[3]) + " not run";
  return text;
}

}  // namespace

int run_comparison(const CompareOptions& options) {
  const ComparisonSpec spec = load_comparison(options.file, options.overrides);
  PluginRegistry registry;
  for (const fs::path& library : options.trusted_libraries) registry.trust_library(library);
  const std::vector<std::string> errors = validate_variants(spec, registry);
  if (!errors.empty()) {
    for (const std::string& error : errors) std::cerr << "error: " << error << '\n';
    std::cerr << "nothing was run: every variant must be valid before any runs\n";
    return compare_exit_bad_input;
  }

  std::vector<std::size_t> selected;
  for (const Variant& variant : spec.variants)
    if (options.shard.contains(variant.index)) selected.push_back(variant.index);
  const std::string shard_text =
      std::to_string(options.shard.index) + "/" + std::to_string(options.shard.count);

  if (options.dry_run) {
    std::cout << spec.file.string() << ": " << spec.variants.size() << " valid variant"
              << (spec.variants.size() == 1 ? "" : "s") << " ("
              << (spec.combine == Combine::zip ? "zip" : "product");
    if (spec.combine == Combine::product) {
      std::cout << " of ";
      for (std::size_t a = 0; a < spec.axes.size(); ++a)
        std::cout << (a ? " × " : "") << spec.axes[a].values.size();
    }
    std::cout << ")";
    if (!options.shard.whole())
      std::cout << "; shard " << shard_text << " runs " << selected.size();
    std::cout << '\n';
    for (std::size_t index : selected) {
      const Variant& variant = spec.variants[index];
      std::cout << "  " << variant.index + 1 << "  " << variant.name << "  ";
      for (std::size_t s = 0; s < variant.settings.size(); ++s)
        std::cout << (s ? ", " : "") << spec.axes[s].path << " = " << variant.settings[s].text;
      std::cout << '\n';
    }
    return compare_exit_ok;
  }

  const fs::path output =
      !options.output.empty()
          ? options.output
          : default_run_directory(spec.name +
                                  (options.shard.whole()
                                       ? "-compare"
                                       : "-shard" + std::to_string(options.shard.index) + "of" +
                                             std::to_string(options.shard.count)));
  check_output_directory(output);
  make_directory(output);

  Table table = comparison::make_table(spec, options.shard, options.command_line);
  for (std::size_t index : selected) {
    Row row;
    row.index = index;
    row.name = spec.variants[index].name;
    row.metrics.resize(spec.columns.size());
    table.rows.push_back(std::move(row));
  }
  std::map<std::size_t, std::size_t> row_of;  // variant index -> position in table.rows
  for (std::size_t r = 0; r < table.rows.size(); ++r) row_of[table.rows[r].index] = r;
  table.incomplete_reason = "the comparison has not finished";
  comparison::write_table(table, output);

  const int jobs = options.jobs > 0
                       ? options.jobs
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::cerr << "comparing " << selected.size() << " variant" << (selected.size() == 1 ? "" : "s")
            << " of " << spec.file.string();
  if (!options.shard.whole())
    std::cerr << " (shard " << shard_text << " of " << spec.variants.size() << ")";
  std::cerr << ", " << jobs << " at a time, into " << output.string() << '\n';

  Progress progress(selected.size(), jobs);
  std::vector<std::size_t> waiting(selected.rbegin(), selected.rend());  // back() is next
  std::map<pid_t, Running> running;
  bool stopping = false;
  Clock::time_point stop_time{};
  bool killed = false;
  std::string first_ok_summary;
  auto stop_requested = [&] { return options.stop != nullptr && options.stop->load(); };

  while (!waiting.empty() || !running.empty()) {
    if (!stopping && stop_requested()) {
      stopping = true;
      stop_time = Clock::now();
      progress.note("interrupted: no more variants start; " + std::to_string(running.size()) +
                    " running stop after their current step (" + std::to_string(waiting.size()) +
                    " not run)");
      for (const auto& entry : running) kill(entry.first, SIGINT);
      waiting.clear();
    }
    if (stopping && !killed && !running.empty() && Clock::now() - stop_time > kKillAfter) {
      progress.note("the interrupted runs did not stop within 10 s: killing them");
      for (const auto& entry : running) kill(entry.first, SIGKILL);
      killed = true;
    }
    while (!stopping && !waiting.empty() && running.size() < static_cast<std::size_t>(jobs)) {
      const Variant& variant = spec.variants[waiting.back()];
      waiting.pop_back();
      const fs::path directory = output / variant.name;
      make_directory(directory);
      std::vector<std::string> arguments = {options.executable.string(),
                                            "run-variant",
                                            spec.file.string(),
                                            "--variant",
                                            variant.name,
                                            "--fingerprint",
                                            spec.fingerprint,
                                            "--out",
                                            directory.string()};
      for (const std::string& assignment : spec.overrides) {
        arguments.push_back("--set");
        arguments.push_back(assignment);
      }
      for (const fs::path& library : options.trusted_libraries) {
        arguments.push_back("--trust-library");
        arguments.push_back(library.string());
      }
      {
        std::ofstream command(directory / "command.txt");
        for (std::size_t a = 0; a < arguments.size(); ++a)
          command << (a ? " " : "") << shell_quote(arguments[a]);
        command << '\n';
      }
      const pid_t pid = spawn(arguments, directory / "log.txt");
      running[pid] = Running{variant.index, Clock::now()};
      progress.started(variant.name, running.size(), waiting.size());
    }

    int wait_status = 0;
    const pid_t pid = waitpid(-1, &wait_status, WNOHANG);
    if (pid > 0) {
      const auto it = running.find(pid);
      if (it == running.end()) continue;  // not ours
      const Running finished = it->second;
      running.erase(it);
      const Variant& variant = spec.variants[finished.index];
      const double seconds = std::chrono::duration<double>(Clock::now() - finished.started).count();
      Outcome outcome = classify(wait_status, stopping, output / variant.name, spec.columns);
      Row& row = table.rows[row_of.at(finished.index)];
      row.status = outcome.status;
      row.error = outcome.error;
      row.metrics = std::move(outcome.metrics);
      if (row.status == RowStatus::ok && first_ok_summary.empty())
        first_ok_summary = read_text(output / variant.name / "summary.json");
      comparison::write_table(table, output);
      progress.finished(variant.name, row.status, row.error, seconds, running.size(),
                        waiting.size());
      continue;
    }
    if (pid < 0 && errno == ECHILD && !running.empty()) {
      for (const auto& entry : running) {
        Row& row = table.rows[row_of.at(entry.second.index)];
        row.status = RowStatus::failed;
        row.error = "lost track of the child process";
      }
      running.clear();
    }
    progress.redraw(running.size(), waiting.size(), false);
    std::this_thread::sleep_for(kPoll);
  }
  progress.close();

  bool any_failed = false, any_unfinished = false;
  for (const Row& row : table.rows) {
    any_failed |= row.status == RowStatus::failed;
    any_unfinished |= row.status == RowStatus::interrupted || row.status == RowStatus::not_run;
  }
  table.incomplete_reason =
      stopping || any_unfinished ? "interrupted: " + status_counts(table) : "";
  comparison::add_trajectory_differences(table, output);
  comparison::write_table(table, output);
  warn_missing_columns(table, first_ok_summary, progress);

  std::cout << comparison::markdown(table);
  // Bar charts of the columns, per variant; a failure to plot does not fail the comparison.
  if (std::any_of(table.rows.begin(), table.rows.end(),
                  [](const Row& row) { return row.status == RowStatus::ok; })) {
    const PlotOutcome plots = make_plots("compare", output);
    if (plots.ok)
      progress.note("plots: " + std::to_string(plots.files.size()) + " files in " +
                    (output / "plots").string());
    else
      progress.note("warning: no plots: " + plots.message);
  }
  std::cerr << "comparison " << (table.incomplete_reason.empty() ? "complete" : "INCOMPLETE")
            << " (" << status_counts(table) << "): " << (output / "comparison.md").string()
            << ", comparison.csv, comparison.json; one run directory per variant\n";
  if (stopping || any_unfinished) return compare_exit_interrupted;
  return any_failed ? compare_exit_failed : compare_exit_ok;
}

int merge_comparisons(const std::vector<fs::path>& directories, fs::path output,
                      const std::string& command_line) {
  if (directories.empty()) throw InputError("merge: give the shard directories to merge");
  std::vector<Table> tables;
  for (const fs::path& directory : directories) tables.push_back(comparison::read_table(directory));
  const Table& first = tables.front();
  std::map<int, std::size_t> by_shard;  // shard index -> position in tables
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const Table& table = tables[t];
    const std::string here = "'" + directories[t].string() + "'";
    const std::string there = "'" + directories.front().string() + "'";
    if (table.fingerprint != first.fingerprint || table.paths != first.paths)
      throw InputError(
          "merge: " + here + " and " + there +
          " hold different comparisons (their base experiments or variant lists differ; file " +
          table.file + " vs " + first.file + ")");
    if (table.columns != first.columns)
      throw InputError("merge: " + here + " and " + there + " have different columns");
    if (table.shard.count != first.shard.count)
      throw InputError("merge: " + here + " is shard " + std::to_string(table.shard.index) + "/" +
                       std::to_string(table.shard.count) + " but " + there + " is shard " +
                       std::to_string(first.shard.index) + "/" + std::to_string(first.shard.count) +
                       " (all shards must share N)");
    const auto [previous, inserted] = by_shard.emplace(table.shard.index, t);
    if (!inserted)
      throw InputError("merge: " + here + " and '" + directories[previous->second].string() +
                       "' are both shard " + std::to_string(table.shard.index) + "/" +
                       std::to_string(table.shard.count));
  }
  if (output.empty()) output = default_run_directory(first.name + "-merged");
  for (const fs::path& directory : directories) {
    std::error_code error;
    if (fs::exists(output, error) && fs::equivalent(output, directory, error))
      throw InputError("merge: --out must not be one of the shard directories");
  }
  check_output_directory(output);
  make_directory(output);

  Table merged = first;
  merged.shard = Shard{};
  merged.command_line = command_line;
  merged.rows.clear();
  for (const fs::path& directory : directories) merged.merged_from.push_back(directory.string());
  std::vector<std::string> missing;
  for (int s = 1; s <= first.shard.count; ++s)
    if (!by_shard.count(s))
      missing.push_back(std::to_string(s) + "/" + std::to_string(first.shard.count));
  for (const comparison::TableVariant& variant : first.variants) {
    const Shard shard{static_cast<int>(variant.index % first.shard.count) + 1, first.shard.count};
    const auto found = by_shard.find(shard.index);
    const Row* source = nullptr;
    if (found != by_shard.end())
      for (const Row& row : tables[found->second].rows)
        if (row.index == variant.index) source = &row;
    if (source != nullptr) {
      merged.rows.push_back(*source);
      // The run directory, where the merged table is, as in an unsharded comparison.
      const fs::path target = fs::path(directories[found->second]) / variant.name;
      std::error_code error;
      if (fs::exists(target, error)) {
        const fs::path link = output / variant.name;
        const fs::path relative = fs::relative(fs::absolute(target), fs::absolute(output), error);
        fs::create_directory_symlink(error ? fs::absolute(target) : relative, link, error);
      }
      continue;
    }
    Row row;
    row.index = variant.index;
    row.name = variant.name;
    row.status = RowStatus::not_run;
    row.error = found == by_shard.end() ? "shard " + std::to_string(shard.index) + "/" +
                                              std::to_string(shard.count) + " not given to merge"
                                        : "missing from its shard's table";
    row.metrics.resize(first.columns.size());
    merged.rows.push_back(std::move(row));
  }

  bool any_failed = false, any_unfinished = false;
  for (const Row& row : merged.rows) {
    any_failed |= row.status == RowStatus::failed;
    any_unfinished |= row.status == RowStatus::interrupted || row.status == RowStatus::not_run;
  }
  merged.incomplete_reason.clear();
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
    merged.incomplete_reason =
        "shard" + std::string(missing.size() > 1 ? "s " : " ") + list + " missing";
  } else if (any_unfinished) {
    merged.incomplete_reason = "some shards were interrupted: " + status_counts(merged);
  }
  comparison::add_trajectory_differences(merged, output);
  comparison::write_table(merged, output);
  std::cout << comparison::markdown(merged);
  std::cerr << "merged " << tables.size() << " shard" << (tables.size() == 1 ? "" : "s") << " of "
            << first.shard.count << " (" << status_counts(merged)
            << "): " << (output / "comparison.md").string() << '\n';
  if (!merged.incomplete_reason.empty()) {
    std::cerr << "warning: the merged comparison is incomplete: " << merged.incomplete_reason
              << '\n';
    return compare_exit_incomplete;
  }
  return any_failed ? compare_exit_failed : compare_exit_ok;
}

}  // namespace contactlab::core
