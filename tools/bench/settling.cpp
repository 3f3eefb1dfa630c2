// Scale benchmark (issue 6): N spheres (default 1,000 dry-wood spheres, r = 1.5 cm) dropped from
// a jittered lattice into an open box (a floor and four walls, all half-spaces) under gravity.
// contactlab runs the scene through the host (core::build_scene + core::Simulation, plugins loaded
// by the registry as in the CLI): Hertz normal force with Hunt–Crossley damping (hunt_crossley
// plugin, damping_model hunt_crossley, the pair's e), regularised Coulomb friction
// (coulomb_regularized, μ = the pair's friction_kinetic, v_min = 0.01 m/s), broad phase sap,
// narrow phase primitive, and each integrator asked for (rk4 at a fixed step, cvode BDF with a
// linear solver given as a parameter). When the build found MuJoCo (Debian's libmujoco-dev), the
// same scene runs in the same process with MuJoCo's defaults: soft contacts with the default
// solref/solimp, the default 2 ms time step and integrator (Euler), pyramidal cones, condim 3,
// sliding friction μ as above.
//
// Measured: wall time of the whole run divided by the simulated time (s per simulated s), steps,
// rhs evaluations, and the ratio contactlab / MuJoCo for each contactlab integrator. To show that
// the scenes match, both print at every output time the mean height of the sphere centres, the
// kinetic energy and the number of touching pairs (contactlab: penetrating pairs; MuJoCo: ncon).
//
// Usage: build/bin/bench_settling [--n=1000] [--radius=0.015] [--duration=0.1] [--output=0.01]
//            [--integrators=rk4,cvode:krylov] [--rk4-step=1e-5] [--rtol=1e-4] [--atol=1e-7]
//            [--budget=150] [--seed=1] [--rk4-locate-events] [--mujoco-solvers=default,cg]
//            [--mujoco-nconmax=6n] [--mujoco-njmax=8n] [--mujoco-nstack=N]
//            [--no-mujoco]
//   --integrators  comma-separated: rk4, cvode:<linear_solver> (e.g. cvode:krylov, cvode:sparse),
//                  rk4:<step> for a step other than --rk4-step; empty: MuJoCo only
//   --rk4-locate-events  rk4 bisects every contact start/end to 1e-12 s (off by default here:
//                  events are handled at the end of the step that crosses them)
//   --mujoco-solvers  MuJoCo runs, each with opt.solver set (default: MuJoCo's own, Newton); the
//                  ratio column is against the first
//   --budget       wall seconds per run; a contactlab run past it is stopped (through the host's
//                  stop flag), a MuJoCo run stops stepping, and the figures are per the simulated
//                  time reached
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "contactlab/core/config.hpp"
#include "contactlab/core/registry.hpp"
#include "contactlab/core/scene.hpp"
#include "contactlab/core/simulation.hpp"

#ifdef CONTACTLAB_BENCH_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace {

using namespace contactlab;

// Dry wood (configs/materials.yaml, Modia3D's palette): solid and the wood–wood pair.
constexpr double density = 700.0, youngs_modulus = 1.1e10, poisson = 0.4;
constexpr double restitution = 0.6, friction = 0.3, gravity = 9.81;

std::string num(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::string short_num(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

struct SceneSpec {
  int n = 1000;
  double radius = 0.015;
  double duration = 0.1, output = 0.01;
  unsigned seed = 1;
  // MuJoCo 2.2 sizes its contact and constraint arrays at load time (nconmax, njmax; nstack, an
  // int count of mjtNums, defaults to a formula quadratic in njmax that overflows past
  // njmax ≈ 9,000 here).
  long mujoco_nconmax = 0, mujoco_njmax = 0, mujoco_nstack = 0;
  // Derived: lattice and box.
  int per_side = 10;
  double half_width = 0.0;
  std::vector<std::array<double, 3>> positions;

  void build() {
    per_side = static_cast<int>(std::ceil(std::sqrt(n / 10.0)));
    const double spacing = 2.1 * radius;
    // The box is one radius wider than the lattice: the walls are 0.55 r from the outer spheres.
    half_width = 0.5 * (per_side * spacing + radius);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> jitter(-0.04 * radius, 0.04 * radius);
    positions.clear();
    for (int i = 0; i < n; ++i) {
      const int layer = i / (per_side * per_side), cell = i % (per_side * per_side);
      const int ix = cell % per_side, iy = cell / per_side;
      positions.push_back({(ix - 0.5 * (per_side - 1)) * spacing + jitter(rng),
                           (iy - 0.5 * (per_side - 1)) * spacing + jitter(rng),
                           1.1 * radius + layer * spacing});
    }
  }
  double mass() const { return density * 4.0 / 3.0 * M_PI * radius * radius * radius; }
};

/// What both engines report at an output time.
struct Sample {
  double t = 0.0;
  double mean_height = 0.0;
  double kinetic = 0.0;
  long touching = 0;
};

void print_samples(const char* name, const std::vector<Sample>& samples) {
  std::printf("%s:", name);
  for (const Sample& s : samples)
    std::printf(" t=%.3f z=%.5f KE=%.4g c=%ld;", s.t, s.mean_height, s.kinetic, s.touching);
  std::printf("\n");
}

// ------------------------------------------------------------------------------------------------
// contactlab

std::string contactlab_yaml(const SceneSpec& spec, const std::string& integrator) {
  std::string yaml = R"(
name: bench_settling
materials:
  solids:
    DryWood: { density_kg_per_m3: )" +
                     num(density) + ", youngs_modulus_Pa: " + num(youngs_modulus) +
                     ", poisson_ratio: " + num(poisson) + R"( }
  pairs:
    - { materials: [DryWood, DryWood], restitution: )" +
                     num(restitution) + ", friction_kinetic: " + num(friction) + R"( }
duration_s: )" + num(spec.duration) +
                     R"(
gravity_m_per_s2: [0, 0, )" +
                     num(-gravity) +
                     R"(]
output: { interval_s: )" +
                     num(spec.output) +
                     R"(, contacts: false }
collision: { broad_phase: { type: sap }, narrow_phase: [primitive] }
contact:
  force_law: { type: hunt_crossley, params: { damping_model: hunt_crossley } }
  friction: { type: coulomb_regularized, params: { v_min_m_per_s: 0.01 } }
integrator: )" + integrator +
                     R"(
bodies:
  - name: box
    joint: fixed
    geometry:
      - { name: floor, shape: { type: half_space, normal: [0, 0, 1] }, material: DryWood }
)";
  const double w = spec.half_width;
  const char* walls[4][2] = {{"x_plus", "[-1, 0, 0]"},
                             {"x_minus", "[1, 0, 0]"},
                             {"y_plus", "[0, -1, 0]"},
                             {"y_minus", "[0, 1, 0]"}};
  const double offsets[4][3] = {{w, 0, 0}, {-w, 0, 0}, {0, w, 0}, {0, -w, 0}};
  for (int k = 0; k < 4; ++k)
    yaml += std::string("      - { name: ") + walls[k][0] +
            ", shape: { type: half_space, normal: " + walls[k][1] + " }, pose: { position_m: [" +
            num(offsets[k][0]) + ", " + num(offsets[k][1]) + ", " + num(offsets[k][2]) +
            "] }, material: DryWood }\n";
  for (int i = 0; i < spec.n; ++i) {
    const auto& p = spec.positions[i];
    yaml += "  - { name: s" + std::to_string(i) + ", initial: { position_m: [" + num(p[0]) + ", " +
            num(p[1]) + ", " + num(p[2]) + "] }, geometry: [{ name: g" + std::to_string(i) +
            ", shape: { type: sphere, radius_m: " + num(spec.radius) +
            " }, material: DryWood }] }\n";
  }
  return yaml;
}

struct EngineRun {
  std::string name;
  double simulated_s = 0.0, wall_s = 0.0;
  long long steps = 0, rhs = 0, jacobians = 0, events = 0, restarts = 0;
  std::string status = "complete";
  bool mujoco = false;
  std::vector<Sample> samples;
  double per_simulated_second() const {
    return simulated_s > 0.0 ? wall_s / simulated_s : INFINITY;
  }
};

/// Sets `flag` after `seconds` unless destroyed first.
class Watchdog {
 public:
  Watchdog(std::atomic<bool>& flag, double seconds)
      : thread_([this, &flag, seconds] {
          std::unique_lock lock(mutex_);
          if (!cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; }))
            flag.store(true);
        }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

EngineRun run_contactlab(core::PluginRegistry& registry, const SceneSpec& spec,
                         const std::string& name, const std::string& integrator, double budget_s) {
  EngineRun run;
  run.name = name;
  const std::string yaml = contactlab_yaml(spec, integrator);
  core::Scene scene = core::build_scene(core::parse_yaml(yaml, "bench_settling.yaml"),
                                        "bench_settling.yaml", registry);
  core::Simulation simulation(scene, registry);
  std::vector<std::size_t> spheres;
  for (std::size_t b = 0; b < scene.bodies.size(); ++b)
    if (scene.bodies[b].moves()) spheres.push_back(b);
  const double mass = spec.mass(), inertia = 0.4 * mass * spec.radius * spec.radius;
  double sample_s = 0.0;  // time spent in the observer, not counted
  core::OutputCallback sampler([&](double t, std::span<const double> y) {
    const auto start = std::chrono::steady_clock::now();
    Sample s;
    s.t = t;
    for (std::size_t b : spheres) {
      const core::BodyState state = simulation.body_state(b, y);
      s.mean_height += state.p_WCm.z();
      s.kinetic +=
          0.5 * mass * state.v_WCm.squaredNorm() + 0.5 * inertia * state.w_WB.squaredNorm();
    }
    s.mean_height /= static_cast<double>(spheres.size());
    s.touching = static_cast<long>(simulation.contacts_at(t, y).size());
    run.samples.push_back(s);
    sample_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  simulation.add_observer(sampler);
  std::atomic<bool> stop{false};
  IntegrationResult result;
  const auto start = std::chrono::steady_clock::now();
  {
    Watchdog watchdog(stop, budget_s);
    result = simulation.run(&stop);
  }
  run.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - sample_s;
  run.simulated_s = result.time_reached_s;
  if (result.status == IntegrationStatus::interrupted)
    run.status = "stopped by --budget";
  else if (result.status != IntegrationStatus::completed)
    run.status = "failed: " + result.message;
  const core::SimulationStatistics& stats = simulation.statistics();
  run.steps = result.steps;
  run.rhs = result.rhs_evaluations;
  run.jacobians = result.jacobian_evaluations;
  run.events = stats.events;
  run.restarts = stats.restarts;
  return run;
}

// ------------------------------------------------------------------------------------------------
// MuJoCo

#ifdef CONTACTLAB_BENCH_HAVE_MUJOCO
std::string mujoco_xml(const SceneSpec& spec, const std::string& solver) {
  std::string xml =
      "<mujoco model=\"bench_settling\">\n"
      "  <option gravity=\"0 0 " +
      num(-gravity) + "\"" + (solver.empty() ? "" : " solver=\"" + solver + "\"") +
      "/>\n"
      "  <size nconmax=\"" +
      std::to_string(spec.mujoco_nconmax) + "\" njmax=\"" + std::to_string(spec.mujoco_njmax) +
      "\"" +
      (spec.mujoco_nstack > 0 ? " nstack=\"" + std::to_string(spec.mujoco_nstack) + "\"" : "") +
      "/>\n"
      "  <default><geom friction=\"" +
      num(friction) +
      " 0.005 0.0001\"/></default>\n"
      "  <worldbody>\n"
      "    <geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>\n";
  const double w = spec.half_width;
  const char* walls[4][2] = {
      {"x_plus", "-1 0 0"}, {"x_minus", "1 0 0"}, {"y_plus", "0 -1 0"}, {"y_minus", "0 1 0"}};
  const double offsets[4][3] = {{w, 0, 0}, {-w, 0, 0}, {0, w, 0}, {0, -w, 0}};
  for (int k = 0; k < 4; ++k)
    xml += std::string("    <geom name=\"") + walls[k][0] +
           "\" type=\"plane\" size=\"0 0 1\" pos=\"" + num(offsets[k][0]) + " " +
           num(offsets[k][1]) + " " + num(offsets[k][2]) + "\" zaxis=\"" + walls[k][1] + "\"/>\n";
  for (int i = 0; i < spec.n; ++i) {
    const auto& p = spec.positions[i];
    xml += "    <body pos=\"" + num(p[0]) + " " + num(p[1]) + " " + num(p[2]) +
           "\"><freejoint/><geom type=\"sphere\" size=\"" + num(spec.radius) + "\" density=\"" +
           num(density) + "\"/></body>\n";
  }
  xml += "  </worldbody>\n</mujoco>\n";
  return xml;
}

EngineRun run_mujoco(const SceneSpec& spec, const std::string& solver, double budget_s) {
  EngineRun run;
  run.name = solver.empty() ? "MuJoCo" : "MuJoCo solver " + solver;
  run.mujoco = true;
  run.status.clear();
  const std::string xml = mujoco_xml(spec, solver);
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  const char* file = "bench_settling.xml";
  if (mj_makeEmptyFileVFS(vfs.get(), file, static_cast<int>(xml.size())) != 0)
    throw std::runtime_error("MuJoCo: cannot make a VFS file");
  std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), file)], xml.data(), xml.size());
  char error[1000] = "";
  mjModel* model = mj_loadXML(file, vfs.get(), error, sizeof error);
  mj_deleteVFS(vfs.get());
  if (!model) throw std::runtime_error(std::string("MuJoCo: ") + error);
  mjData* data = mj_makeData(model);
  const double mass = spec.mass(), inertia = 0.4 * mass * spec.radius * spec.radius;
  std::printf(
      "MuJoCo %s: timestep %g s, integrator %d (0 = Euler), cone %d, solver %d, "
      "iterations %d, sphere mass %.6g kg (contactlab %.6g kg)\n",
      mj_versionString(), model->opt.timestep, model->opt.integrator, model->opt.cone,
      model->opt.solver, model->opt.iterations, model->body_mass[1], mass);
  auto sample = [&] {
    Sample s;
    s.t = data->time;
    for (int i = 0; i < spec.n; ++i) {
      const mjtNum* v = data->qvel + 6 * i;
      s.mean_height += data->qpos[7 * i + 2];
      s.kinetic += 0.5 * mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                   0.5 * inertia * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
    }
    s.mean_height /= spec.n;
    s.touching = data->ncon;
    run.samples.push_back(s);
  };
  mj_forward(model, data);
  sample();
  const long steps = std::lround(spec.duration / model->opt.timestep);
  const long per_output = std::max(1L, std::lround(spec.output / model->opt.timestep));
  double wall = 0.0;
  long k = 1;
  for (; k <= steps; ++k) {
    const auto start = std::chrono::steady_clock::now();
    mj_step(model, data);
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool out_of_budget = wall > budget_s;
    if (k % per_output == 0 || k == steps || out_of_budget) {
      mj_forward(model, data);  // ncon and the state at data->time (not timed)
      sample();
    }
    if (out_of_budget) {
      run.status = "stopped by --budget";
      break;
    }
  }
  run.wall_s = wall;
  run.simulated_s = data->time;
  run.steps = std::min(k, steps);
  for (int w : {mjWARN_CONTACTFULL, mjWARN_CNSTRFULL, mjWARN_BADQACC})
    if (data->warning[w].number > 0)
      run.status += std::string(run.status.empty() ? "" : "; ") + "warning " +
                    (w == mjWARN_CONTACTFULL ? "CONTACTFULL"
                     : w == mjWARN_CNSTRFULL ? "CNSTRFULL"
                                             : "BADQACC") +
                    " x" + std::to_string(data->warning[w].number);
  if (run.status.empty()) run.status = "complete";
  mj_deleteData(data);
  mj_deleteModel(model);
  return run;
}
#endif

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find(',', start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

int usage(const char* program) {
  std::fprintf(stderr,
               "usage: %s [--n=1000] [--radius=0.015] [--duration=0.1] [--output=0.01] "
               "[--integrators=rk4,cvode:krylov] [--rk4-step=1e-5] [--rtol=1e-4] [--atol=1e-7] "
               "[--budget=150] [--seed=1] [--rk4-locate-events] [--mujoco-solvers=default,cg] "
               "[--mujoco-nconmax=6n] [--mujoco-njmax=8n] [--mujoco-nstack=N] "
               "[--no-mujoco]\n",
               program);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  SceneSpec spec;
  std::vector<std::string> integrators = {"rk4", "cvode:krylov"};
  std::vector<std::string> mujoco_solvers = {"default"};
  double rk4_step = 1e-5, rtol = 1e-4, atol = 1e-7, budget = 150.0;
  bool mujoco = true, rk4_locate = false;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const auto equals = argument.find('=');
    const std::string key = argument.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : argument.substr(equals + 1);
    try {
      if (key == "--n")
        spec.n = std::stoi(value);
      else if (key == "--radius")
        spec.radius = std::stod(value);
      else if (key == "--duration")
        spec.duration = std::stod(value);
      else if (key == "--output")
        spec.output = std::stod(value);
      else if (key == "--integrators")
        integrators = split(value);
      else if (key == "--rk4-step")
        rk4_step = std::stod(value);
      else if (key == "--rtol")
        rtol = std::stod(value);
      else if (key == "--atol")
        atol = std::stod(value);
      else if (key == "--budget")
        budget = std::stod(value);
      else if (key == "--seed")
        spec.seed = static_cast<unsigned>(std::stoul(value));
      else if (key == "--no-mujoco")
        mujoco = false;
      else if (key == "--rk4-locate-events")
        rk4_locate = true;
      else if (key == "--mujoco-solvers")
        mujoco_solvers = split(value);
      else if (key == "--mujoco-nconmax")
        spec.mujoco_nconmax = std::stol(value);
      else if (key == "--mujoco-njmax")
        spec.mujoco_njmax = std::stol(value);
      else if (key == "--mujoco-nstack")
        spec.mujoco_nstack = std::stol(value);
      else
        return usage(argv[0]);
    } catch (const std::exception&) {
      return usage(argv[0]);
    }
  }
  if (spec.n < 1 || !(spec.radius > 0) || !(spec.duration > 0) || !(spec.output > 0))
    return usage(argv[0]);
  spec.build();
  // MuJoCo 2.2's default nstack grows with njmax²: at n = 1000, njmax = 8000 is about the largest
  // whose stack (7.8 GB of mostly untouched memory) it allocates; 9,000 fails to load.
  if (spec.mujoco_nconmax <= 0) spec.mujoco_nconmax = 6 * spec.n;
  if (spec.mujoco_njmax <= 0) spec.mujoco_njmax = 8 * spec.n;
  std::printf(
      "# bench_settling: %d dry-wood spheres r = %g m (m = %.4g kg) in a box %.4f m wide "
      "(%d x %d lattice, spacing 2.1 r, jitter +-0.04 r in x and y, layers from z = 1.1 r), %g s "
      "simulated, output "
      "every %g s\n",
      spec.n, spec.radius, spec.mass(), 2.0 * spec.half_width, spec.per_side, spec.per_side,
      spec.duration, spec.output);

  std::vector<EngineRun> runs;
  core::PluginRegistry registry;
  for (const std::string& choice : integrators) {
    std::string yaml_integrator, name;
    if (choice == "rk4" || choice.rfind("rk4:", 0) == 0) {
      const double h = choice == "rk4" ? rk4_step : std::stod(choice.substr(4));
      yaml_integrator = "{ type: rk4, params: { step_s: " + num(h) +
                        ", locate_events: " + (rk4_locate ? "true" : "false") + " } }";
      name = "rk4 h = " + short_num(h) + " s" + (rk4_locate ? " (events located)" : "");
    } else if (choice.rfind("cvode:", 0) == 0) {
      const std::string solver = choice.substr(6);
      yaml_integrator = "{ type: cvode, params: { method: bdf, rtol: " + num(rtol) +
                        ", atol: " + num(atol) + ", linear_solver: " + solver + " } }";
      name = "cvode BDF " + solver + " rtol " + short_num(rtol) + " atol " + short_num(atol);
    } else {
      std::fprintf(stderr,
                   "error: --integrators: unknown choice '%s' (rk4, rk4:<step>, "
                   "cvode:<linear_solver>)\n",
                   choice.c_str());
      return 2;
    }
    std::fflush(stdout);
    try {
      runs.push_back(run_contactlab(registry, spec, name, yaml_integrator, budget));
    } catch (const std::exception& error) {
      std::printf("%s: error: %s\n", name.c_str(), error.what());
      continue;
    }
    print_samples(runs.back().name.c_str(), runs.back().samples);
    std::fflush(stdout);
  }
  const EngineRun* reference = nullptr;
#ifdef CONTACTLAB_BENCH_HAVE_MUJOCO
  if (mujoco) {
    std::size_t first = runs.size();
    for (const std::string& solver : mujoco_solvers) {
      std::fflush(stdout);
      const std::string keyword = solver == "cg"       ? "CG"
                                  : solver == "pgs"    ? "PGS"
                                  : solver == "newton" ? "Newton"
                                                       : solver;
      try {
        runs.push_back(run_mujoco(spec, solver == "default" ? "" : keyword, budget));
      } catch (const std::exception& error) {
        std::printf("MuJoCo (%s): error: %s\n", solver.c_str(), error.what());
        continue;
      }
      print_samples(runs.back().name.c_str(), runs.back().samples);
    }
    if (runs.size() > first) reference = &runs[first];
  }
#else
  if (mujoco) std::printf("note: MuJoCo not found at configure time (libmujoco-dev): skipped\n");
#endif

  std::printf(
      "\n| engine / integrator | simulated s | wall s | wall s per simulated s | x MuJoCo "
      "| steps | rhs evals | jac evals | events | restarts | status |\n"
      "|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|\n");
  for (const EngineRun& run : runs) {
    const bool is_mujoco = run.mujoco;
    char ratio[32] = "—";
    if (reference && !is_mujoco)
      std::snprintf(ratio, sizeof ratio, "%.1f",
                    run.per_simulated_second() / reference->per_simulated_second());
    std::printf("| %s | %.4g | %.2f | %.3g | %s | %lld | %s | %s | %s | %s | %s |\n",
                run.name.c_str(), run.simulated_s, run.wall_s, run.per_simulated_second(), ratio,
                run.steps, is_mujoco ? "—" : std::to_string(run.rhs).c_str(),
                is_mujoco ? "—" : std::to_string(run.jacobians).c_str(),
                is_mujoco ? "—" : std::to_string(run.events).c_str(),
                is_mujoco ? "—" : std::to_string(run.restarts).c_str(), run.status.c_str());
  }
  std::printf(
      "\n| engine / integrator | t s | mean centre height m | kinetic energy J | touching "
      "pairs |\n|:---|---:|---:|---:|---:|\n");
  for (const EngineRun& run : runs)
    if (!run.samples.empty()) {
      const Sample& s = run.samples.back();
      std::printf("| %s | %.4g | %.5f | %.4g | %ld |\n", run.name.c_str(), s.t, s.mean_height,
                  s.kinetic, s.touching);
    }
  return 0;
}
