// The `contactlab` command: run, validate, plugins, compare, merge and plot (and run-variant, the
// child process of compare).
//
// Exit codes: 0 done; 2 bad input (file, YAML, schema, command line); 3 plugin load or ABI
// refusal, or a `library:` not trusted (registry.hpp); 4 simulation failed (compare, merge: a
// variant failed; the table is written); 130 interrupted (Ctrl-C or SIGTERM; the run directory is
// kept, marked incomplete); merge: 1 when the merged table is incomplete (a shard missing or
// interrupted); plot: 5 when the plots could not be made (no python with matplotlib, the script
// failed).
#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <iostream>
#include <nlohmann/json.hpp>

#include "contactlab/core/compare.hpp"
#include "contactlab/core/contact_problem_command.hpp"
#include "contactlab/core/experiment.hpp"
#include "contactlab/core/export_vtk.hpp"
#include "contactlab/core/plot.hpp"
#include "contactlab/core/plugins_json.hpp"
#include "contactlab/core/progress_line.hpp"
#include "contactlab/core/registry.hpp"
#include "contactlab/core/replay.hpp"
#include "contactlab/version.hpp"

namespace {

namespace fs = std::filesystem;
using namespace contactlab;
using namespace contactlab::core;

constexpr int exit_ok = 0;
constexpr int exit_bad_input = 2;
constexpr int exit_plugin = 3;
constexpr int exit_simulation = 4;
constexpr int exit_plot = 5;
constexpr int exit_interrupted = 130;

std::atomic<bool> interrupt_requested{false};

// Only sets a flag: the integrator stops after its current step and the recorder closes the run.
// Repeated signals (a shell or `timeout` may deliver one to the whole process group as well) do
// not kill the process half-way through writing; SIGQUIT still ends it at once.
extern "C" void on_interrupt(int) {
  interrupt_requested.store(true);
}

std::string value_text(const ParameterValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return v;
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else {
          std::ostringstream out;
          out << v;
          return out.str();
        }
      },
      value);
}

std::string range_text(const ParameterSpec& spec) {
  if (spec.type != ParameterType::real && spec.type != ParameterType::integer) return "";
  if (std::isinf(spec.minimum) && std::isinf(spec.maximum)) return "";
  std::ostringstream out;
  out << (spec.minimum_exclusive ? '(' : '[') << spec.minimum << ", " << spec.maximum
      << (spec.maximum_exclusive ? ')' : ']');
  return out.str();
}

int list_plugins(bool as_json) {
  PluginRegistry registry;
  const auto& plugins = registry.plugins();
  if (as_json) {
    std::cout << plugins_json(registry).dump(2) << '\n';
    return exit_ok;
  }
  std::cout << "contactlab " << version_string << " — plugins found in:\n";
  for (const auto& d : registry.search_directories()) std::cout << "  " << d.string() << '\n';
  for (int k = 0; k < plugin_kind_count; ++k) {
    const auto kind = static_cast<PluginKind>(k);
    std::cout << '\n' << plugin_kind_name(kind) << ":\n";
    for (const PluginInfo& info : plugins) {
      if (info.kind != kind) continue;
      std::cout << "  " << info.name << " " << info.version << " — " << info.description << "\n"
                << "      library: " << info.library_path.string() << '\n';
      for (const ParameterSpec& spec : info.schema) {
        std::cout << "      " << spec.name << " (" << parameter_type_name(spec.type);
        if (!spec.unit.empty()) std::cout << ", " << spec.unit;
        std::cout << ", default " << value_text(spec.default_value);
        const std::string range = range_text(spec);
        if (!range.empty()) std::cout << ", range " << range;
        if (!spec.choices.empty()) {
          std::cout << ", one of";
          for (const auto& c : spec.choices) std::cout << ' ' << c;
        }
        std::cout << "): " << spec.doc << '\n';
      }
    }
  }
  for (const auto& problem : registry.problems())
    std::cerr << "warning: " << problem.reason << '\n';
  return exit_ok;
}

/// A registry that may also load the libraries trusted with --trust-library.
void trust(PluginRegistry& registry, const std::vector<fs::path>& trusted_libraries) {
  for (const fs::path& file : trusted_libraries) registry.trust_library(file);
}

void print_warnings(const Scene& scene) {
  for (const std::string& warning : scene.warnings) std::cerr << "warning: " << warning << '\n';
}

int validate(const fs::path& file, const std::vector<std::string>& overrides,
             const std::vector<fs::path>& trusted_libraries) {
  PluginRegistry registry;
  trust(registry, trusted_libraries);
  Scene scene = load_experiment(file, overrides, registry);
  print_warnings(scene);
  std::size_t moving = 0;
  for (const auto& body : scene.bodies) moving += body.moves() ? 1 : 0;
  std::cout << file.string() << ": valid — experiment '" << scene.name << "', "
            << scene.bodies.size() << " bodies (" << moving << " moving), "
            << scene.geometries.size() << " geometries, " << scene.duration_s << " s\n";
  return exit_ok;
}

/// `contactlab plot RUN_DIR` (and `run --plot`): the run's plots into RUN_DIR/plots/.
int plot(const fs::path& directory) {
  std::error_code error;
  if (!fs::is_directory(directory, error))
    throw InputError("plot: '" + directory.string() + "' is not a directory");
  if (!fs::is_regular_file(directory / "summary.json", error))
    throw InputError("plot: '" + directory.string() +
                     "' is not a run directory (it has no summary.json)");
  const PlotOutcome outcome = make_plots("run", directory);
  if (!outcome.ok) {
    std::cerr << "error: plot: " << outcome.message << '\n';
    return exit_plot;
  }
  for (const fs::path& file : outcome.files) std::cout << file.string() << '\n';
  return exit_ok;
}

/// `contactlab view RUN_DIR` (and `run --view`): RUN_DIR/replay.html, a page to open in a browser.
int view(const fs::path& directory, const ReplayOptions& options,
         const std::vector<fs::path>& trusted_libraries) {
  PluginRegistry registry;
  trust(registry, trusted_libraries);
  const ReplayOutcome outcome = write_replay(directory, registry, options);
  std::cout << "replay: " << outcome.file.string() << " (" << outcome.frames << " frames";
  if (outcome.stride > 1)
    std::cout << ": every " << outcome.stride << "th of " << outcome.output_times
              << " output times";
  std::cout << ", " << (outcome.bytes + 512 * 1024) / (1024 * 1024) << " MB";
  if (outcome.status != "complete") std::cout << "; the run is " << outcome.status;
  std::cout << "); open it in a browser\n";
  return exit_ok;
}

int run(const fs::path& file, const std::vector<std::string>& overrides, const std::string& out_dir,
        bool make_plot, bool make_view, const std::vector<fs::path>& trusted_libraries) {
  PluginRegistry registry;
  trust(registry, trusted_libraries);
  Scene scene = load_experiment(file, overrides, registry);
  print_warnings(scene);
  const fs::path directory =
      out_dir.empty() ? default_run_directory(scene.name) : fs::path(out_dir);
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);  // kill, or a batch system's time limit: stop as Ctrl-C
  std::cerr << "running '" << scene.name << "' for " << scene.duration_s << " s into "
            << directory.string() << '\n';
  RunProgress progress;
  RunOutcome outcome;
  {
    const RunProgressLine line(progress, scene.duration_s);  // on a terminal only
    outcome = run_experiment(scene, registry, directory, &interrupt_requested, &progress);
  }
  const auto& s = outcome.statistics;
  if (outcome.result.status == IntegrationStatus::interrupted) {
    std::cerr << "interrupted at t = " << outcome.result.time_reached_s
              << " s; the run directory is kept and marked incomplete: " << directory.string()
              << '\n';
    return exit_interrupted;
  }
  std::cout << "done: " << s.steps << " steps, " << s.rhs_evaluations << " rhs evaluations, "
            << s.events << " events, max penetration " << s.max_penetration_m << " m\n"
            << "results: " << directory.string() << '\n';
  if (make_view) view(directory, {}, trusted_libraries);
  if (make_plot) return plot(directory);
  return exit_ok;
}

/// One variant of a comparison, run by `contactlab compare` in a child process. The fingerprint
/// (when given) guards against a comparison file edited while its comparison runs.
int run_variant(const fs::path& file, const std::string& name, const std::string& fingerprint,
                const std::vector<std::string>& overrides, const std::string& out_dir,
                const std::vector<fs::path>& trusted_libraries) {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);  // a batch system's time limit: stop cleanly, as Ctrl-C
  const ComparisonSpec spec = load_comparison(file, overrides);
  if (!fingerprint.empty() && fingerprint != spec.fingerprint)
    throw InputError(file.string() +
                     ": the comparison file changed after its comparison started (its variant "
                     "list differs); run the comparison again");
  const Variant& variant = find_variant(spec, name);
  PluginRegistry registry;
  trust(registry, trusted_libraries);
  Scene scene = build_scene(variant_configuration(spec, variant), file, registry);
  print_warnings(scene);
  const fs::path directory =
      out_dir.empty() ? default_run_directory(scene.name + "-" + variant.name) : fs::path(out_dir);
  std::cerr << "running variant '" << variant.name << "' of '" << scene.name << "' for "
            << scene.duration_s << " s into " << directory.string() << '\n';
  RunOutcome outcome = run_experiment(scene, registry, directory, &interrupt_requested);
  const auto& s = outcome.statistics;
  if (outcome.result.status == IntegrationStatus::interrupted) {
    std::cerr << "interrupted at t = " << outcome.result.time_reached_s << " s\n";
    return exit_interrupted;
  }
  std::cout << "done: " << s.steps << " steps, " << s.rhs_evaluations << " rhs evaluations, "
            << s.events << " events, max penetration " << s.max_penetration_m << " m\n";
  return exit_ok;
}

std::filesystem::path this_executable(const char* argv0) {
  std::error_code error;
  fs::path path = fs::read_symlink("/proc/self/exe", error);
  if (error || path.empty()) path = fs::absolute(argv0, error);
  return path;
}

/// A spelling a command no longer takes: refused (exit 2) with the one that replaced it.
void retire_option(CLI::App* command, const std::string& old_name, const std::string& new_name) {
  command
      ->add_option_function<std::string>(
          old_name,
          [old_name, new_name](const std::string&) {
            throw CLI::ValidationError(old_name + " is now " + new_name);
          })
      ->group("");  // not listed in --help
}

std::string joined_command_line(int argc, char** argv) {
  std::string text;
  for (int i = 0; i < argc; ++i) text += (i ? " " : "") + std::string(argv[i]);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"contactlab — collision detection and contact response experiments"};
  app.set_version_flag("--version", std::string("contactlab ") + contactlab::version_string);
  app.require_subcommand(1);

  std::string file, out_dir;
  std::vector<std::string> overrides;
  std::vector<std::string> trusted_libraries;
  bool as_json = false;
  // Shared meanings have one spelling in every command that takes them.
  const char* const out_option = "--out,-o";
  const char* const set_help = "override a key: dotted.path=value (repeatable)";
  const char* const trust_option = "--trust-library";
  const char* const trust_help =
      "let `library:` load this plugin library from outside the plugin folders (repeatable; "
      "loading a library runs its code)";

  auto* run_command = app.add_subcommand("run", "simulate an experiment into a run directory");
  run_command->add_option("file", file, "experiment YAML file")->required();
  run_command->add_option(out_option, out_dir, "run directory (default runs/<name>-<time>)");
  retire_option(run_command, "--output", "--out");
  run_command->add_option("--set", overrides, set_help);
  run_command->add_option(trust_option, trusted_libraries, trust_help);
  bool make_plot = false;
  run_command->add_flag("--plot", make_plot, "make the run's plots afterwards (contactlab plot)");
  bool make_view = false;
  run_command->add_flag("--view", make_view,
                        "write the run's replay page afterwards (contactlab view)");

  auto* validate_command = app.add_subcommand("validate", "check an experiment without running it");
  validate_command->add_option("file", file, "experiment YAML file")->required();
  validate_command->add_option("--set", overrides, set_help);
  validate_command->add_option(
      trust_option, trusted_libraries,
      std::string(trust_help) + "; validate loads and checks it as run would");

  auto* plugins_command = app.add_subcommand("plugins", "list installed plugins and parameters");
  plugins_command->add_flag("--json", as_json, "machine-readable output");

  int jobs = 0;
  std::string shard_text = "1/1";
  bool dry_run = false;
  auto* compare_command = app.add_subcommand(
      "compare", "run the variants of an experiment in parallel and tabulate them");
  compare_command->add_option("file", file, "comparison YAML file (an experiment plus variants:)")
      ->required();
  compare_command->add_option("--jobs,-j", jobs, "variants run at a time (default: cores)")
      ->check(CLI::PositiveNumber);
  compare_command->add_option("--shard", shard_text,
                              "run only the i-th of N slices of the variants (i/N, 1-based)");
  compare_command->add_option(out_option, out_dir,
                              "comparison directory (default runs/<name>-compare-<time>)");
  retire_option(compare_command, "--output", "--out");
  compare_command->add_option("--set", overrides, set_help);
  compare_command->add_option(trust_option, trusted_libraries,
                              std::string(trust_help) + "; passed on to every variant");
  compare_command->add_flag("--dry-run", dry_run, "validate and list the variants, run nothing");

  std::vector<std::string> merge_directories;
  auto* merge_command =
      app.add_subcommand("merge", "combine the tables of a comparison's shards into one table");
  merge_command->add_option("directories", merge_directories, "the shards' comparison directories")
      ->required();
  merge_command->add_option(out_option, out_dir,
                            "merged comparison directory (default runs/<name>-merged-<time>)");
  retire_option(merge_command, "--output", "--out");

  std::string view_directory;
  ReplayOptions replay_options;
  auto* view_command = app.add_subcommand(
      "view", "write RUN_DIR/replay.html: the run in 3-D in a browser, from disk, no server");
  view_command->add_option("run_dir", view_directory, "run directory")->required();
  view_command
      ->add_option("--max-frames", replay_options.max_frames,
                   "decimate longer runs to this many frames (default 2000)")
      ->check(CLI::PositiveNumber);
  view_command->add_option(trust_option, trusted_libraries, trust_help);

  std::string plot_directory;
  auto* plot_command = app.add_subcommand(
      "plot", "plot a run directory (energy, penetration, force against penetration; PNG, SVG)");
  plot_command->add_option("run_dir", plot_directory, "run directory")->required();

  std::string export_directory;
  bool export_vtk_format = false;
  VtkExportOptions vtk_options;
  auto* export_command = app.add_subcommand(
      "export", "write a run directory as files for other tools (--vtk: ParaView time series)");
  export_command->add_option("run_dir", export_directory, "run directory")->required();
  export_command->add_flag("--vtk", export_vtk_format,
                           "VTK XML PolyData (.vtp) per output time and ParaView .pvd "
                           "collections of the bodies' surfaces and the contacts");
  export_command->add_option(out_option, out_dir, "output directory (default RUN_DIR/vtk)");
  export_command
      ->add_option("--every", vtk_options.every, "keep every N-th output time and the last")
      ->check(CLI::PositiveNumber);
  export_command
      ->add_option("--segments", vtk_options.segments,
                   "segments around a full circle of round surfaces (default 32)")
      ->check(CLI::Range(8, 1024));
  export_command->add_option(trust_option, trusted_libraries, trust_help);

  contactlab::core::ContactProblemSolveOptions problem_options;
  auto* problem_command =
      app.add_subcommand("contact-problem",
                         "frictional contact problems in Siconos' format (a time step's, dumped by "
                         "output.contact_problems)");
  problem_command->require_subcommand(1);
  auto* problem_solve = problem_command->add_subcommand(
      "solve", "solve one problem and print the residual (Siconos' error), iterations and time");
  problem_solve->add_option("file", problem_options.file, "problem file (Siconos text format)")
      ->required();
  problem_solve->add_option("--method", problem_options.method,
                            "solver: nsgs, newton_ac or newton_fb (default nsgs)");
  problem_solve
      ->add_option("--tolerance", problem_options.tolerance,
                   "stop at this Siconos error (default 1e-8)")
      ->check(CLI::PositiveNumber);
  problem_solve
      ->add_option("--max-iterations", problem_options.max_iterations,
                   "iteration limit (default 1000)")
      ->check(CLI::PositiveNumber);
  problem_solve->add_option("--json", problem_options.json, "also write the report as JSON here");

  std::string variant_name, fingerprint;
  auto* variant_command =
      app.add_subcommand("run-variant", "run one variant of a comparison (compare's child)");
  variant_command->group("");  // internal: not listed in --help
  variant_command->add_option("file", file, "comparison YAML file")->required();
  variant_command->add_option("--variant", variant_name, "variant name")->required();
  variant_command->add_option("--fingerprint", fingerprint, "the comparison's variant-list hash");
  variant_command->add_option(out_option, out_dir, "run directory");
  variant_command->add_option("--set", overrides, "the comparison's overrides");
  variant_command->add_option(trust_option, trusted_libraries,
                              "the comparison's trusted libraries");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? exit_ok : exit_bad_input;
  }

  try {
    // Absolute: compare hands them to its children, and command.txt reruns a variant anywhere.
    std::vector<fs::path> trusted;
    for (const std::string& library : trusted_libraries) trusted.push_back(fs::absolute(library));
    if (*run_command) return run(file, overrides, out_dir, make_plot, make_view, trusted);
    if (*view_command) return view(view_directory, replay_options, trusted);
    if (*plot_command) return plot(plot_directory);
    if (*export_command) {
      PluginRegistry registry;
      trust(registry, trusted);
      vtk_options.out = out_dir;
      return export_run(export_directory, export_vtk_format, registry, vtk_options);
    }
    if (*validate_command) return validate(file, overrides, trusted);
    if (*plugins_command) return list_plugins(as_json);
    if (*problem_solve) return contactlab::core::solve_contact_problem(problem_options);
    if (*compare_command) {
      CompareOptions options;
      options.file = file;
      options.overrides = overrides;
      options.trusted_libraries = trusted;
      options.output = out_dir;
      options.jobs = jobs;
      options.shard = parse_shard(shard_text);
      options.dry_run = dry_run;
      options.executable = this_executable(argv[0]);
      options.command_line = joined_command_line(argc, argv);
      options.stop = &interrupt_requested;
      std::signal(SIGINT, on_interrupt);
      std::signal(SIGTERM, on_interrupt);
      return run_comparison(options);
    }
    if (*merge_command) {
      std::vector<fs::path> directories(merge_directories.begin(), merge_directories.end());
      return merge_comparisons(directories, out_dir, joined_command_line(argc, argv));
    }
    if (*variant_command)
      return run_variant(file, variant_name, fingerprint, overrides, out_dir, trusted);
  } catch (const contactlab::InputError& e) {
    std::cerr << "error: " << e.what() << '\n';
    return exit_bad_input;
  } catch (const contactlab::PluginError& e) {
    std::cerr << "error: " << e.what() << '\n';
    return exit_plugin;
  } catch (const contactlab::SimulationError& e) {
    std::cerr << "error: simulation failed: " << e.what() << '\n';
    return exit_simulation;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return exit_simulation;
  }
  return exit_ok;
}
