// Frictional contact solvers side by side (issue 30): contactlab's solvers of the local problem
// (contactlab::contact_problem: nsgs, newton_ac, newton_fb) and Siconos Numerics' own (fc3d_driver:
// NSGS, NSN_AC, NSN_FB, NSN_NM, PROX, ...) on the same 3-D frictional contact problems, each read
// from a file in Siconos' text format by both libraries (read_siconos_file and
// frictionContact_newFromFile).
//
// For every (problem, solver) it measures, from a cold start (r = 0):
//   - the residual reached in one measure for both libraries: contactlab's siconos_error (the
//     natural-map residual of the De Saxcé complementarity over ‖q‖), evaluated by contactlab on
//     u = W·r + q; Siconos' own stopping error is printed beside it (Siconos 4.4 divides by
//     max(‖q‖, ‖r‖, ‖u‖), so its figure can be below contactlab's for the same r);
//   - iterations (sweeps for the Gauss–Seidel solvers, Newton iterations otherwise);
//   - wall time per solve: solves are repeated in measurements of at least --batch-s seconds (so
//     that a problem of one contact is timed over many solves), and the best of --repeats
//     measurements is kept. Whatever a solve needs beyond the problem as read is done inside the
//     timed region: contactlab's solve() allocates its own workspace; each Siconos solve gets a
//     fresh copy of the problem (frictionContact_copy, untimed) and fresh SolverOptions (untimed),
//     so no matrix conversion cached by one solve speeds up the next.
// A solver has converged when the residual is at most --tolerance (1e-8). Per problem the summary
// compares the fastest converged contactlab solver with the fastest converged Siconos solver.
//
// Usage: build/bin/bench_contact_solvers [--tolerance=1e-8] [--max-sweeps=100000]
//            [--max-newton=500] [--repeats=5] [--batch-s=0.02] [--budget-s=4]
//            [--contactlab=nsgs,newton_ac,newton_fb]
//            [--siconos=NSGS,NSGS_FULL,NSN_AC,NSN_FB,NSN_NM,PROX] [--siconos-memory-gb=6]
//            [--no-tighten] [--markdown] [FILE...]
//   FILE        Siconos text files (.dat); none: every .dat in tests/data/siconos
//   --siconos   Siconos solvers by the suffix of their SICONOS_FRICTION_3D_ constant: NSGS,
//               NSGS_FULL (NSGS stopping on the full error, see siconos_solvers), NSN_AC, NSN_FB,
//               NSN_NM, PROX, ADMM, DSFP, FPP, EG, TFP; empty: none
//   --budget-s  wall seconds of timed solves per (problem, solver) after the first: a slow solver
//               gets fewer measurements (at least the first solve)
//   --siconos-memory-gb  address-space limit of the child process each Siconos (problem, solver)
//               runs in (Siconos 4.4's Newton solvers leak memory; see run_siconos)
//   --no-tighten  no second Siconos run at a tighter tolerance (see below)
//   --markdown  the tables as Markdown (tools/bench/contact_solvers.md)
// Siconos 4.4 stops on its error divided by max(‖q‖, ‖r‖, ‖u‖), contactlab on its error divided by
// ‖q‖. When a Siconos solver meets the tolerance in its own measure but not in contactlab's, it is
// run again with its tolerance scaled by the ratio of the two measures (at most three times), and
// that run is a row of its own (its "tol asked" column shows the tolerance passed to Siconos).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contactlab/contact_problem/problem.hpp"
#include "contactlab/contact_problem/siconos_io.hpp"
#include "contactlab/contact_problem/solvers.hpp"

// Siconos Numerics' C API (Debian's libsiconos-numerics-dev 4.4).
#include <FrictionContactProblem.h>
#include <Friction_cst.h>
#include <NonSmoothDrivers.h>
#include <NumericsVerbose.h>
#include <SolverOptions.h>

#ifndef CONTACTLAB_BENCH_SICONOS_DATA_DIR
#define CONTACTLAB_BENCH_SICONOS_DATA_DIR "tests/data/siconos"
#endif

namespace {

namespace cp = contactlab::contact_problem;
using Clock = std::chrono::steady_clock;

struct Settings {
  double tolerance = 1e-8;
  int max_sweeps = 100000;  ///< first-order solvers (Gauss–Seidel, fixed points, ADMM)
  int max_newton = 500;     ///< Newton solvers (and PROX's outer iterations)
  int repeats = 5;
  double batch_s = 0.02;
  double budget_s = 4.0;
  std::vector<std::string> contactlab_solvers{"nsgs", "newton_ac", "newton_fb"};
  std::vector<std::string> siconos_solvers{"NSGS",   "NSGS_FULL", "NSN_AC",
                                           "NSN_FB", "NSN_NM",    "PROX"};
  bool markdown = false;
  bool tighten = true;  ///< rerun Siconos at a tighter tolerance when the measures disagree
  double siconos_memory_gb = 6.0;  ///< address-space limit of each Siconos child process
};

/// One (problem, solver) result.
struct Row {
  std::string library;  ///< "contactlab" or "Siconos"
  std::string solver;
  bool ran = false;        ///< false: the solver could not be run (see note)
  double residual = 0.0;   ///< contactlab's siconos_error of the returned r
  double own_error = 0.0;  ///< the error the solver itself reported
  int iterations = 0;
  double tolerance_asked = 0.0;  ///< the tolerance passed to the solver (on its own measure)
  int status = 0;        ///< Siconos' info (0: converged by its own measure); contactlab: 0/1
  double seconds = 0.0;  ///< best time per solve
  int solves = 0;        ///< solves timed
  bool converged = false;
  std::string note;
};

struct Problem {
  std::string path;
  std::string name;
  cp::FrictionContactProblem contactlab;
  FrictionContactProblem* siconos = nullptr;
  std::string read_error;  ///< why one of the readers failed (then the problem is skipped)
  std::vector<Row> rows;
};

/// Times `solve_once` (which returns the seconds of its own timed region) in measurements of at
/// least settings.batch_s, the best of settings.repeats measurements, within settings.budget_s
/// after the first solve. Returns the best seconds per solve and the solves timed.
template <typename SolveOnce>
std::pair<double, int> time_solves(const Settings& settings, double first_seconds,
                                   SolveOnce&& solve_once) {
  double best = first_seconds;
  int solves = 1;
  if (first_seconds >= settings.budget_s) return {best, solves};
  // The first solve pays for page faults and lazy symbol binding: the batch size comes from the
  // faster of it and a second one.
  best = std::min(best, solve_once());
  ++solves;
  const int batch =
      std::max(1, static_cast<int>(std::ceil(settings.batch_s / std::max(best, 1e-9))));
  const auto start = Clock::now();
  for (int measurement = 0; measurement < settings.repeats; ++measurement) {
    double total = 0.0;
    for (int i = 0; i < batch; ++i) total += solve_once();
    solves += batch;
    best = std::min(best, total / batch);
    if (std::chrono::duration<double>(Clock::now() - start).count() > settings.budget_s) break;
  }
  return {best, solves};
}

Row run_contactlab(const Problem& problem, const std::string& method, const Settings& settings) {
  Row row;
  row.library = "contactlab";
  row.solver = method;
  const std::size_t size = 3 * problem.contactlab.contact_count();
  std::vector<double> r(size), u(size);
  cp::SolverOptions options;
  options.tolerance = settings.tolerance;
  row.tolerance_asked = settings.tolerance;
  options.max_iterations = method == "nsgs" ? settings.max_sweeps : settings.max_newton;
  cp::SolverReport report;
  auto solve_once = [&] {
    std::fill(r.begin(), r.end(), 0.0);
    std::fill(u.begin(), u.end(), 0.0);
    const auto start = Clock::now();
    report = cp::solve(problem.contactlab, method, r, u, options);
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  const double first = solve_once();
  row.ran = true;
  row.iterations = report.iterations;
  row.own_error = report.error;
  row.status = report.converged ? 0 : 1;
  cp::local_velocities(problem.contactlab, r, u);
  row.residual = cp::siconos_error(problem.contactlab, r, u);
  row.converged = row.residual <= settings.tolerance;
  std::tie(row.seconds, row.solves) = time_solves(settings, first, solve_once);
  return row;
}

/// The Siconos solvers this benchmark can ask for, by the suffix of their SICONOS_FRICTION_3D_
/// constant (Siconos' own name strings are not uniform: "FC3D_NSGS", "FC3D ADMM", ...).
struct SiconosSolver {
  const char* name;
  int id;
  bool first_order;         ///< sweeps or fixed-point iterations: its limit is --max-sweeps
  bool full_error = false;  ///< NSGS: Siconos' full error after every sweep (see below)
};
// NSGS_FULL is NSGS with iparam[SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION] = FULL: by default
// (LIGHT_WITH_FULL_FINAL) NSGS stops on the relative change of r between sweeps and, when the full
// error then misses the tolerance, lowers its tolerance on the change and goes on, which can keep
// it sweeping long after the full error has met the tolerance (Capsules: to the sweep limit).
// FULL computes fc3d_compute_error after every sweep (one product with W per sweep, as contactlab's
// nsgs does) and stops as soon as it is met.
constexpr SiconosSolver siconos_solvers[] = {
    {"NSGS", SICONOS_FRICTION_3D_NSGS, true},
    {"NSGS_FULL", SICONOS_FRICTION_3D_NSGS, true, true},
    {"NSN_AC", SICONOS_FRICTION_3D_NSN_AC, false},
    {"NSN_FB", SICONOS_FRICTION_3D_NSN_FB, false},
    {"NSN_NM", SICONOS_FRICTION_3D_NSN_NM, false},
    {"PROX", SICONOS_FRICTION_3D_PROX, false},
    {"ADMM", SICONOS_FRICTION_3D_ADMM, true},
    {"DSFP", SICONOS_FRICTION_3D_DSFP, true},
    {"FPP", SICONOS_FRICTION_3D_FPP, true},
    {"EG", SICONOS_FRICTION_3D_EG, true},
    {"TFP", SICONOS_FRICTION_3D_TFP, false},
};

const SiconosSolver* find_siconos_solver(const std::string& name) {
  for (const SiconosSolver& solver : siconos_solvers)
    if (name == solver.name) return &solver;
  return nullptr;
}

Row run_siconos_here(const Problem& problem, const std::string& name, double tolerance,
                     const Settings& settings) {
  Row row;
  row.library = "Siconos";
  row.solver = name;
  row.tolerance_asked = tolerance;
  const SiconosSolver* solver = find_siconos_solver(name);
  if (!solver) {
    row.note = "not in this benchmark's list of Siconos solvers";
    return row;
  }
  const int id = solver->id;
  const int contacts = problem.siconos->numberOfContacts;
  const std::size_t size = 3 * static_cast<std::size_t>(contacts);
  std::vector<double> r(size), u(size);
  int info = 0, iterations = 0;
  double own_error = 0.0;
  auto solve_once = [&] {
    // A fresh copy and fresh options, untimed: nothing one solve caches in M or in its options
    // (a sparse copy of the matrix, work arrays) carries over to the next.
    FrictionContactProblem* copy = frictionContact_copy(problem.siconos);
    SolverOptions* options = solver_options_create(id);
    options->iparam[SICONOS_IPARAM_MAX_ITER] =
        solver->first_order ? settings.max_sweeps : settings.max_newton;
    options->dparam[SICONOS_DPARAM_TOL] = tolerance;
    if (solver->full_error) {
      options->iparam[SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION] =
          SICONOS_FRICTION_3D_NSGS_ERROR_EVALUATION_FULL;
      options->iparam[SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION_FREQUENCY] = 0;  // every sweep
    }
    std::fill(r.begin(), r.end(), 0.0);
    std::fill(u.begin(), u.end(), 0.0);
    const auto start = Clock::now();
    info = fc3d_driver(copy, r.data(), u.data(), options);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    iterations = options->iparam[SICONOS_IPARAM_ITER_DONE];
    own_error = options->dparam[SICONOS_DPARAM_RESIDU];
    solver_options_delete(options);
    frictionContactProblem_free(copy);
    return seconds;
  };
  const double first = solve_once();
  row.ran = true;
  row.status = info;
  row.iterations = iterations;
  row.own_error = own_error;
  std::vector<double> u_contactlab(size);
  cp::local_velocities(problem.contactlab, r, u_contactlab);
  row.residual = cp::siconos_error(problem.contactlab, r, u_contactlab);
  row.converged = std::isfinite(row.residual) && row.residual <= settings.tolerance;
  std::tie(row.seconds, row.solves) = time_solves(settings, first, solve_once);
  return row;
}

/// What a child process sends back of a Row (the strings stay with the parent).
struct RowFigures {
  bool ran;
  double residual, own_error, tolerance_asked, seconds;
  int iterations, status, solves;
  bool converged;
};

/// run_siconos_here in a child process: Siconos 4.4's Newton solvers keep memory they never free
/// (≈ 9 MB per Newton iteration on the 1,090-contact pile problem, 4.6 GB after 500 iterations,
/// not released by solver_options_delete or frictionContactProblem_free), and a few of its solvers
/// end the process on an unsupported storage (numerics_error). The child's address space is
/// limited to --siconos-memory-gb; its death is reported in the row.
Row run_siconos(const Problem& problem, const std::string& name, double tolerance,
                const Settings& settings) {
  int channel[2];
  if (pipe(channel) != 0) return run_siconos_here(problem, name, tolerance, settings);
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    close(channel[0]);
    const rlim_t limit = static_cast<rlim_t>(settings.siconos_memory_gb * 1073741824.0);
    const rlimit memory{limit, limit};
    setrlimit(RLIMIT_AS, &memory);
    const Row row = run_siconos_here(problem, name, tolerance, settings);
    const RowFigures figures{row.ran,      row.residual,   row.own_error, row.tolerance_asked,
                             row.seconds,  row.iterations, row.status,    row.solves,
                             row.converged};
    const bool sent = write(channel[1], &figures, sizeof figures) == sizeof figures;
    _exit(sent ? 0 : 1);
  }
  close(channel[1]);
  Row row;
  row.library = "Siconos";
  row.solver = name;
  row.tolerance_asked = tolerance;
  RowFigures figures{};
  const bool received = child > 0 && read(channel[0], &figures, sizeof figures) == sizeof figures;
  close(channel[0]);
  int wait_status = 0;
  if (child > 0) waitpid(child, &wait_status, 0);
  if (!received) {
    row.note = child <= 0 ? "fork failed"
               : WIFSIGNALED(wait_status)
                   ? "the Siconos process died (signal " + std::to_string(WTERMSIG(wait_status)) +
                         "; out of memory?)"
                   : "the Siconos process exited (status " +
                         std::to_string(WEXITSTATUS(wait_status)) + ")";
    return row;
  }
  row.ran = figures.ran;
  row.residual = figures.residual;
  row.own_error = figures.own_error;
  row.seconds = figures.seconds;
  row.iterations = figures.iterations;
  row.status = figures.status;
  row.solves = figures.solves;
  row.converged = figures.converged;
  if (!row.ran) row.note = "not in this benchmark's list of Siconos solvers";
  return row;
}

/// Both readers on one file; a difference in what they read is an error.
Problem read_problem(const std::string& path) {
  Problem problem;
  problem.path = path;
  problem.name = std::filesystem::path(path).filename().string();
  try {
    problem.contactlab = cp::read_siconos_file(path);
    problem.contactlab.check();
  } catch (const std::exception& error) {
    problem.read_error = std::string("contactlab's reader: ") + error.what();
    return problem;
  }
  FILE* file = std::fopen(path.c_str(), "r");
  if (!file) {
    problem.read_error = "cannot be opened";
    return problem;
  }
  problem.siconos = frictionContact_newFromFile(file);
  std::fclose(file);
  if (!problem.siconos || problem.siconos->dimension != 3) {
    problem.read_error = "Siconos' reader gave no 3-D problem";
    return problem;
  }
  const std::size_t n = problem.contactlab.contact_count();
  if (static_cast<std::size_t>(problem.siconos->numberOfContacts) != n) {
    problem.read_error = "the readers disagree on the contact count";
    return problem;
  }
  for (std::size_t i = 0; i < 3 * n; ++i)
    if (problem.siconos->q[i] != problem.contactlab.q[i])
      problem.read_error = "the readers disagree on q[" + std::to_string(i) + "]";
  for (std::size_t k = 0; k < n; ++k)
    if (problem.siconos->mu[k] != problem.contactlab.mu[k])
      problem.read_error = "the readers disagree on mu[" + std::to_string(k) + "]";
  return problem;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string format(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

/// Milliseconds with three significant digits.
std::string milliseconds(double seconds) {
  const double ms = seconds * 1e3;
  if (ms >= 100.0) return format("%.0f", ms);
  if (ms >= 10.0) return format("%.1f", ms);
  if (ms >= 1.0) return format("%.2f", ms);
  if (ms >= 0.1) return format("%.3f", ms);
  return format("%.4f", ms);
}

void print_rows(const Problem& problem, const Settings& settings) {
  const std::size_t n = problem.contactlab.contact_count();
  if (settings.markdown) {
    std::printf("\n**%s** (%zu contacts, %zu blocks of W)\n\n", problem.name.c_str(), n,
                problem.contactlab.W.stored_blocks());
    std::printf(
        "| library | solver | tol asked | residual (contactlab measure) | solver's own error "
        "| iterations | status | ms per solve | solves timed | converged |\n");
    std::printf("|:---|:---|---:|---:|---:|---:|---:|---:|---:|:---|\n");
    for (const Row& row : problem.rows) {
      if (!row.ran) {
        std::printf("| %s | %s | — | — | — | — | — | — | — | %s |\n", row.library.c_str(),
                    row.solver.c_str(), row.note.c_str());
        continue;
      }
      std::printf("| %s | %s | %.1e | %.2e | %.2e | %d | %d | %s | %d | %s |\n",
                  row.library.c_str(), row.solver.c_str(), row.tolerance_asked, row.residual,
                  row.own_error, row.iterations, row.status, milliseconds(row.seconds).c_str(),
                  row.solves, row.converged ? "yes" : "no");
    }
    std::fflush(stdout);
    return;
  }
  std::printf("\n%s: %zu contacts, %zu blocks of W\n", problem.path.c_str(), n,
              problem.contactlab.W.stored_blocks());
  std::printf("  %-10s %-10s %9s %12s %12s %8s %6s %12s %7s %s\n", "library", "solver", "tol asked",
              "residual", "own error", "iter", "status", "ms/solve", "solves", "converged");
  for (const Row& row : problem.rows) {
    if (!row.ran) {
      std::printf("  %-10s %-10s %s\n", row.library.c_str(), row.solver.c_str(), row.note.c_str());
      continue;
    }
    std::printf("  %-10s %-10s %9.1e %12.3e %12.3e %8d %6d %12s %7d %s\n", row.library.c_str(),
                row.solver.c_str(), row.tolerance_asked, row.residual, row.own_error,
                row.iterations, row.status, milliseconds(row.seconds).c_str(), row.solves,
                row.converged ? "yes" : "no");
  }
  std::fflush(stdout);
}

const Row* fastest_converged(const Problem& problem, const std::string& library) {
  const Row* best = nullptr;
  for (const Row& row : problem.rows)
    if (row.library == library && row.ran && row.converged &&
        (!best || row.seconds < best->seconds))
      best = &row;
  return best;
}

void print_summary(const std::vector<Problem>& problems, const Settings& settings) {
  std::printf("\n%s",
              settings.markdown ? "" : "Summary: fastest converged solver of each library\n");
  if (settings.markdown) {
    std::printf(
        "| problem | contacts | best contactlab | ms | best Siconos | ms | Siconos / contactlab "
        "| target met |\n");
    std::printf("|:---|---:|:---|---:|:---|---:|---:|:---|\n");
  } else {
    std::printf("  %-40s %8s %-12s %10s %-12s %10s %8s %s\n", "problem", "contacts", "contactlab",
                "ms", "Siconos", "ms", "ratio", "target met");
  }
  for (const Problem& problem : problems) {
    if (!problem.read_error.empty()) {
      std::printf(settings.markdown ? "| %s | — | not read: %s | | | | | |\n" : "  %-40s %s\n",
                  problem.name.c_str(), problem.read_error.c_str());
      continue;
    }
    const Row* ours = fastest_converged(problem, "contactlab");
    const Row* theirs = fastest_converged(problem, "Siconos");
    const std::string our_name = ours ? ours->solver : "none converged";
    const std::string our_ms = ours ? milliseconds(ours->seconds) : "—";
    const std::string their_name = theirs ? theirs->solver : "none converged";
    const std::string their_ms = theirs ? milliseconds(theirs->seconds) : "—";
    std::string ratio = "—", met;
    if (ours && theirs) {
      ratio = format("%.2f", theirs->seconds / ours->seconds);
      met = ours->seconds < theirs->seconds ? "yes" : "no";
    } else if (ours) {
      const bool siconos_ran = std::any_of(problem.rows.begin(), problem.rows.end(),
                                           [](const Row& row) { return row.library == "Siconos"; });
      met = siconos_ran ? "yes (Siconos did not converge)" : "— (no Siconos solver run)";
    } else if (theirs) {
      met = "no (contactlab did not converge)";
    } else {
      met = "— (neither converged)";
    }
    if (settings.markdown)
      std::printf("| %s | %zu | %s | %s | %s | %s | %s | %s |\n", problem.name.c_str(),
                  problem.contactlab.contact_count(), our_name.c_str(), our_ms.c_str(),
                  their_name.c_str(), their_ms.c_str(), ratio.c_str(), met.c_str());
    else
      std::printf("  %-40s %8zu %-12s %10s %-12s %10s %8s %s\n", problem.name.c_str(),
                  problem.contactlab.contact_count(), our_name.c_str(), our_ms.c_str(),
                  their_name.c_str(), their_ms.c_str(), ratio.c_str(), met.c_str());
  }
}

int usage(const char* program) {
  std::fprintf(stderr,
               "usage: %s [--tolerance=1e-8] [--max-sweeps=100000] [--max-newton=500] "
               "[--repeats=5] [--batch-s=0.02] [--budget-s=4] "
               "[--contactlab=nsgs,newton_ac,newton_fb] "
               "[--siconos=NSGS,NSGS_FULL,NSN_AC,NSN_FB,NSN_NM,PROX] "
               "[--siconos-memory-gb=6] [--no-tighten] [--markdown] [FILE...]\n",
               program);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  std::vector<std::string> files;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string argument = argv[i];
      if (argument.rfind("--", 0) != 0) {
        files.push_back(argument);
        continue;
      }
      const std::size_t equals = argument.find('=');
      const std::string key = argument.substr(0, equals);
      const std::string value = equals == std::string::npos ? "" : argument.substr(equals + 1);
      if (key == "--tolerance")
        settings.tolerance = std::stod(value);
      else if (key == "--max-sweeps")
        settings.max_sweeps = std::stoi(value);
      else if (key == "--max-newton")
        settings.max_newton = std::stoi(value);
      else if (key == "--repeats")
        settings.repeats = std::stoi(value);
      else if (key == "--batch-s")
        settings.batch_s = std::stod(value);
      else if (key == "--budget-s")
        settings.budget_s = std::stod(value);
      else if (key == "--contactlab")
        settings.contactlab_solvers = split(value);
      else if (key == "--siconos")
        settings.siconos_solvers = split(value);
      else if (key == "--markdown")
        settings.markdown = true;
      else if (key == "--siconos-memory-gb")
        settings.siconos_memory_gb = std::stod(value);
      else if (key == "--no-tighten")
        settings.tighten = false;
      else
        return usage(argv[0]);
    }
  } catch (const std::exception&) {
    return usage(argv[0]);
  }
  if (files.empty()) {
    for (const auto& entry : std::filesystem::directory_iterator(CONTACTLAB_BENCH_SICONOS_DATA_DIR))
      if (entry.path().extension() == ".dat") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
  }
  numerics_set_verbose(0);
  std::printf(
      "tolerance %.1e (contactlab's siconos_error), iteration limits: %d sweeps, %d Newton "
      "iterations; best of %d measurements of >= %.3f s\n",
      settings.tolerance, settings.max_sweeps, settings.max_newton, settings.repeats,
      settings.batch_s);

  std::vector<Problem> problems;
  problems.reserve(files.size());
  for (const std::string& path : files) {
    Problem& problem = problems.emplace_back(read_problem(path));
    if (!problem.read_error.empty()) {
      std::printf("\n%s: skipped, %s\n", path.c_str(), problem.read_error.c_str());
      continue;
    }
    for (const std::string& method : settings.contactlab_solvers)
      problem.rows.push_back(run_contactlab(problem, method, settings));
    for (const std::string& name : settings.siconos_solvers) {
      Row row = run_siconos(problem, name, settings.tolerance, settings);
      // Siconos 4.4 divides its error by max(‖q‖, ‖r‖, ‖u‖), contactlab by ‖q‖: a solve that
      // meets the tolerance by Siconos' measure can miss it by contactlab's. Then the solve is
      // repeated with the tolerance scaled by the ratio of the two measures (up to three times),
      // so that the time to reach the tolerance in the one measure is also known.
      const bool measures_differ =
          row.ran && row.status == 0 && !row.converged && row.own_error > 0.0;
      problem.rows.push_back(row);
      if (measures_differ && settings.tighten) {
        Row tighter = row;
        for (int attempt = 0;
             attempt < 3 && !tighter.converged && tighter.status == 0 && tighter.own_error > 0.0;
             ++attempt) {
          const double ratio = tighter.own_error / tighter.residual;
          const double asked = std::max(1e-16, 0.9 * ratio * settings.tolerance);
          tighter =
              run_siconos(problem, name, std::min(asked, 0.5 * tighter.tolerance_asked), settings);
        }
        problem.rows.push_back(tighter);
      }
    }
    print_rows(problem, settings);
  }
  print_summary(problems, settings);
  for (Problem& problem : problems)
    if (problem.siconos) frictionContactProblem_free(problem.siconos);
  return 0;
}
