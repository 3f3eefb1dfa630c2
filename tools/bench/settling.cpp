// Scale benchmark (issues 6 and 30): N spheres (default 1,000 dry-wood spheres, r = 1.5 cm)
// dropped from a jittered lattice into an open box (a floor and four walls, all half-spaces) under
// gravity, run by every engine asked for in the same process:
//   - contactlab through the host (core::build_scene + core::Simulation, plugins loaded by the
//     registry as in the CLI), broad phase sap, narrow phase primitive, with
//       penalty integrators (rk4 at a fixed step, cvode BDF with a linear solver given as a
//       parameter): Hertz normal force with Hunt–Crossley damping (hunt_crossley, damping_model
//       hunt_crossley, the pair's e), regularised Coulomb friction (coulomb_regularized, μ = the
//       pair's friction_kinetic, v_min = 0.01 m/s);
//       time-stepping integrators (pgs, ncp_newton, bilateral_newton at --step): rigid contact,
//       no `contact:` section, μ and e of the pair;
//   - MuJoCo (Debian's libmujoco-dev, settling_mujoco.cpp) with its defaults, at its default 2 ms
//     step and at the ones asked for, with its default solver (Newton) and the ones asked for;
//   - Bullet (Debian's libbullet-dev, settling_bullet.cpp), btDiscreteDynamicsWorld with its
//     sequential-impulse solver at its defaults, float and double builds, at --step.
//
// Measured: wall time of the whole run divided by the simulated time (s per simulated s) and its
// ratio to Bullet float and to the first MuJoCo run; from the sphere centres every engine reports
// (the same measure for all): the largest penetration over the run's last 0.2 s (the settled pile
// when the run is 1 s) and over the whole run, the mean kinetic energy over the last 0.2 s, the
// pairs closer than 1 % of r at the end; and the engine's own contact count at the end.
//
// Usage: build/bin/bench_settling [--n=1000] [--radius=0.015] [--duration=0.1] [--output=0.01]
//            [--integrators=rk4,cvode:krylov] [--rk4-step=1e-5] [--step=1e-3] [--rtol=1e-4]
//            [--atol=1e-7] [--budget=150] [--seed=1] [--rk4-locate-events]
//            [--mujoco-solvers=default,cg] [--mujoco-steps=default,1e-3] [--bullet=float,double]
//            [--mujoco-cone=elliptic] [--mujoco-nconmax=6n] [--mujoco-njmax=min(16n, 8500)]
//            [--mujoco-nstack=N] [--no-mujoco]
//   --integrators  comma-separated: rk4, rk4:<step>, cvode:<linear_solver> (e.g. cvode:krylov,
//                  cvode:sparse), pgs, ncp_newton, bilateral_newton (each at --step, or
//                  <name>:<step>); empty: the peers only
//   --rk4-locate-events  rk4 bisects every contact start/end to 1e-12 s (off by default here:
//                  events are handled at the end of the step that crosses them)
//   --mujoco-solvers, --mujoco-steps  MuJoCo runs, each solver at each step (default: MuJoCo's
//                  own solver, Newton; its own step, 2 ms); ratios are against the first
//   --mujoco-cone  elliptic (default here: the settled pile needs fewer rows than MuJoCo 2.2 can
//                  allocate only so) or pyramidal (MuJoCo's default)
//   --bullet       Bullet builds to run (float, double; empty: none), at --step
//   --bullet-thresholds  Bullet's contact breaking threshold per run: default (Bullet's 0.02 m,
//                  sized for objects of 0.1–10 m: each sphere's AABB then reaches 1.3 diameters
//                  beyond it) or a length in m
//   --params       extra parameters of the time-stepping integrators (YAML, e.g.
//                  "max_iterations: 20, tolerance: 1e-4")
//   --budget       wall seconds per run; a contactlab run past it is stopped (through the host's
//                  stop flag), a peer run stops stepping, and the figures are per the simulated
//                  time reached
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "contactlab/core/config.hpp"
#include "contactlab/core/registry.hpp"
#include "contactlab/core/scene.hpp"
#include "contactlab/core/simulation.hpp"
#include "settling_scene.hpp"

namespace {

using namespace contactlab;
using namespace contactlab::bench;

std::string short_num(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

// ------------------------------------------------------------------------------------------------
// contactlab

std::string contactlab_yaml(const SceneSpec& spec, const std::string& integrator, bool penalty) {
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
)" +
                     (penalty ? R"(contact:
  force_law: { type: hunt_crossley, params: { damping_model: hunt_crossley } }
  friction: { type: coulomb_regularized, params: { v_min_m_per_s: 0.01 } }
)"
                              : "") +
                     "integrator: " + integrator +
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
                         const std::string& name, const std::string& integrator, bool penalty,
                         double step_s, double budget_s) {
  EngineRun run;
  run.name = name;
  run.family = "contactlab";
  run.step_s = step_s;
  const std::string yaml = contactlab_yaml(spec, integrator, penalty);
  core::Scene scene = core::build_scene(core::parse_yaml(yaml, "bench_settling.yaml"),
                                        "bench_settling.yaml", registry);
  core::Simulation simulation(scene, registry);
  std::vector<std::size_t> spheres;
  for (std::size_t b = 0; b < scene.bodies.size(); ++b)
    if (scene.bodies[b].moves()) spheres.push_back(b);
  const double mass = spec.mass(), inertia = spec.inertia();
  std::vector<std::array<double, 3>> centres(spheres.size());
  // The host evaluates every body's state and the contacts once per output for this observer;
  // that and the observer's own time are the run's recording share, not counted.
  class Sampler final : public core::SimulationObserver {
   public:
    explicit Sampler(std::function<void(const core::RunSample&)> f) : f_(std::move(f)) {}
    core::SampleNeeds needs() const override { return {true, true, false}; }
    void on_output(const core::RunSample& sample) override { f_(sample); }

   private:
    std::function<void(const core::RunSample&)> f_;
  } sampler([&](const core::RunSample& sample) {
    Sample s;
    s.t = sample.time_s;
    for (std::size_t i = 0; i < spheres.size(); ++i) {
      const core::BodyState& state = sample.bodies[spheres[i]];
      centres[i] = {state.p_WCm.x(), state.p_WCm.y(), state.p_WCm.z()};
      s.kinetic +=
          0.5 * mass * state.v_WCm.squaredNorm() + 0.5 * inertia * state.w_WB.squaredNorm();
    }
    measure_centres(spec, centres, s);
    s.engine_contacts = static_cast<long>(sample.contacts.size());
    run.samples.push_back(s);
  });
  simulation.add_observer(sampler);
  std::atomic<bool> stop{false};
  IntegrationResult result;
  const auto start = std::chrono::steady_clock::now();
  {
    Watchdog watchdog(stop, budget_s);
    result = simulation.run(&stop);
  }
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() -
               simulation.statistics().recording.wall_s;
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
// Bullet: each precision in its own module (settling_bullet.cpp), loaded with its own symbols.

using BulletEntry = void (*)(const SceneSpec*, double, double, double, EngineRun*);

EngineRun run_bullet(const std::string& precision, const SceneSpec& spec, double step_s,
                     double threshold_m, double budget_s) {
#ifdef CONTACTLAB_BENCH_BULLET_FLOAT
  const char* path = precision == "float"    ? CONTACTLAB_BENCH_BULLET_FLOAT
                     : precision == "double" ? CONTACTLAB_BENCH_BULLET_DOUBLE
                                             : nullptr;
  if (!path)
    throw std::runtime_error("--bullet: unknown build '" + precision + "' (float, double)");
  // RTLD_DEEPBIND: the module's references resolve in its own Bullet, never the other's.
  void* module = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!module) throw std::runtime_error(std::string("Bullet: ") + dlerror());
  auto entry = reinterpret_cast<BulletEntry>(dlsym(module, "contactlab_bench_settling_bullet"));
  if (!entry) throw std::runtime_error(std::string("Bullet: ") + dlerror());
  EngineRun run;
  entry(&spec, step_s, threshold_m, budget_s, &run);
  return run;  // the module stays loaded: its static objects may outlive the call
#else
  (void)precision, (void)spec, (void)step_s, (void)threshold_m, (void)budget_s;
  throw std::runtime_error("Bullet not found at configure time (libbullet-dev)");
#endif
}

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

void print_samples(const EngineRun& run) {
  std::printf("%s:", run.name.c_str());
  for (const Sample& s : run.samples)
    std::printf(" t=%.3f z=%.5f KE=%.4g pen=%.3g c=%ld;", s.t, s.mean_height, s.kinetic,
                s.penetration, s.touching);
  std::printf("\n");
  std::fflush(stdout);
}

int usage(const char* program) {
  std::fprintf(
      stderr,
      "usage: %s [--n=1000] [--radius=0.015] [--duration=0.1] [--output=0.01] "
      "[--integrators=rk4,cvode:krylov,pgs,ncp_newton] [--rk4-step=1e-5] [--step=1e-3] "
      "[--rtol=1e-4] [--atol=1e-7] [--budget=150] [--seed=1] [--rk4-locate-events] "
      "[--mujoco-solvers=default,cg] [--mujoco-steps=default,1e-3] "
      "[--mujoco-cone=elliptic] [--bullet=float,double] [--mujoco-nconmax=6n] [--mujoco-njmax=8n] "
      "[--mujoco-nstack=N] [--no-mujoco]\n",
      program);
  return 2;
}

/// The contactlab integrator a --integrators choice names: its YAML, its name in the tables,
/// whether it is a penalty integrator (the `contact:` section) and its step (0: adaptive).
struct Choice {
  std::string yaml, name;
  bool penalty = true;
  double step_s = 0.0;
};

Choice parse_choice(const std::string& choice, double rk4_step, bool rk4_locate, double step,
                    double rtol, double atol, const std::string& ts_params) {
  const auto colon = choice.find(':');
  const std::string type = choice.substr(0, colon);
  const std::string param = colon == std::string::npos ? "" : choice.substr(colon + 1);
  Choice c;
  if (type == "rk4") {
    c.step_s = param.empty() ? rk4_step : std::stod(param);
    c.yaml = "{ type: rk4, params: { step_s: " + num(c.step_s) +
             ", locate_events: " + (rk4_locate ? "true" : "false") + " } }";
    c.name = "contactlab rk4 (penalty)" + std::string(rk4_locate ? ", events located" : "");
  } else if (type == "cvode" && !param.empty()) {
    c.yaml = "{ type: cvode, params: { method: bdf, rtol: " + num(rtol) + ", atol: " + num(atol) +
             ", linear_solver: " + param + " } }";
    c.name = "contactlab cvode BDF " + param + " rtol " + short_num(rtol) + " atol " +
             short_num(atol) + " (penalty)";
  } else if (type == "pgs" || type == "ncp_newton" || type == "bilateral_newton") {
    c.penalty = false;
    c.step_s = param.empty() ? step : std::stod(param);
    c.yaml = "{ type: " + type + ", params: { step_s: " + num(c.step_s) +
             (ts_params.empty() ? "" : ", " + ts_params) + " } }";
    c.name = "contactlab " + type + (ts_params.empty() ? "" : " (" + ts_params + ")");
  } else {
    throw std::invalid_argument("--integrators: unknown choice '" + choice +
                                "' (rk4, rk4:<step>, cvode:<linear_solver>, pgs, ncp_newton, "
                                "bilateral_newton, <time stepping>:<step>)");
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  SceneSpec spec;
  std::vector<std::string> integrators = {"rk4", "cvode:krylov"};
  std::vector<std::string> mujoco_solvers = {"default"}, mujoco_steps = {"default"};
  std::vector<std::string> bullet_builds, bullet_thresholds = {"default"};
  std::string ts_params;
  double rk4_step = 1e-5, step = 1e-3, rtol = 1e-4, atol = 1e-7, budget = 150.0;
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
      else if (key == "--step")
        step = std::stod(value);
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
      else if (key == "--mujoco-steps")
        mujoco_steps = split(value);
      else if (key == "--bullet")
        bullet_builds = split(value);
      else if (key == "--bullet-thresholds")
        bullet_thresholds = split(value);
      else if (key == "--params")
        ts_params = value;
      else if (key == "--mujoco-nconmax")
        spec.mujoco_nconmax = std::stol(value);
      else if (key == "--mujoco-njmax")
        spec.mujoco_njmax = std::stol(value);
      else if (key == "--mujoco-cone")
        spec.mujoco_cone = value;
      else if (key == "--mujoco-nstack")
        spec.mujoco_nstack = std::stol(value);
      else
        return usage(argv[0]);
    } catch (const std::exception&) {
      return usage(argv[0]);
    }
  }
  if (spec.n < 1 || !(spec.radius > 0) || !(spec.duration > 0) || !(spec.output > 0) || !(step > 0))
    return usage(argv[0]);
  spec.build();
  // The settled pile has about 2.7 contacts per sphere (Bullet and contactlab count 2,400–2,700
  // at n = 1000), 3 rows each with elliptic cones (4 with pyramidal ones): 8 rows per sphere.
  // MuJoCo 2.2 sizes its buffer with an int and fails to make its mjData past njmax ≈ 8,600
  // here, so a pile of 1,000 fits only with elliptic cones and njmax at that limit.
  if (spec.mujoco_nconmax <= 0) spec.mujoco_nconmax = 6 * spec.n;
  if (spec.mujoco_njmax <= 0) spec.mujoco_njmax = std::min(16L * spec.n, 8500L);
  std::printf(
      "# bench_settling: %d dry-wood spheres r = %g m (m = %.4g kg) in a box %.4f m wide "
      "(%d x %d lattice, spacing 2.1 r, jitter +-0.04 r in x and y, layers from z = 1.1 r), %g s "
      "simulated, output every %g s\n",
      spec.n, spec.radius, spec.mass(), 2.0 * spec.half_width, spec.per_side, spec.per_side,
      spec.duration, spec.output);

  std::vector<EngineRun> runs;
  core::PluginRegistry registry;
  for (const std::string& text : integrators) {
    Choice choice;
    try {
      choice = parse_choice(text, rk4_step, rk4_locate, step, rtol, atol, ts_params);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "error: %s\n", error.what());
      return 2;
    }
    try {
      runs.push_back(run_contactlab(registry, spec, choice.name, choice.yaml, choice.penalty,
                                    choice.step_s, budget));
    } catch (const std::exception& error) {
      std::printf("%s: error: %s\n", choice.name.c_str(), error.what());
      continue;
    }
    print_samples(runs.back());
  }
  for (const std::string& build : bullet_builds)
    for (const std::string& threshold : bullet_thresholds) {
      try {
        runs.push_back(run_bullet(build, spec, step,
                                  threshold == "default" ? 0.0 : std::stod(threshold), budget));
      } catch (const std::exception& error) {
        std::printf("Bullet (%s): error: %s\n", build.c_str(), error.what());
        continue;
      }
      print_samples(runs.back());
    }
#ifdef CONTACTLAB_BENCH_HAVE_MUJOCO
  if (mujoco)
    for (const std::string& solver : mujoco_solvers)
      for (const std::string& mujoco_step : mujoco_steps) {
        const std::string keyword = solver == "cg"       ? "CG"
                                    : solver == "pgs"    ? "PGS"
                                    : solver == "newton" ? "Newton"
                                                         : solver;
        try {
          runs.push_back(run_mujoco(spec, solver == "default" ? "" : keyword,
                                    mujoco_step == "default" ? 0.0 : std::stod(mujoco_step),
                                    budget));
        } catch (const std::exception& error) {
          std::printf("MuJoCo (%s): error: %s\n", solver.c_str(), error.what());
          continue;
        }
        print_samples(runs.back());
      }
#else
  if (mujoco) std::printf("note: MuJoCo not found at configure time (libmujoco-dev): skipped\n");
#endif

  auto first_of = [&](const char* family) -> const EngineRun* {
    for (const EngineRun& run : runs)
      if (run.family == family) return &run;
    return nullptr;
  };
  const EngineRun* bullet = first_of("Bullet");
  const EngineRun* mujoco_run = first_of("MuJoCo");
  auto ratio = [](const EngineRun& run, const EngineRun* reference) {
    char text[32] = "—";
    if (reference && &run != reference)
      std::snprintf(text, sizeof text, "%.3g",
                    run.per_simulated_second() / reference->per_simulated_second());
    return std::string(text);
  };
  const double rest_window = std::min(0.2, spec.duration);
  std::printf(
      "\n| engine / integrator | step s | wall s per simulated s | x %s | x %s | largest "
      "penetration, last %g s (mm, %% r) | largest penetration, whole run mm | mean KE, last %g "
      "s J | pairs within 1 %% r | engine contacts | status |\n"
      "|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|\n",
      bullet ? bullet->name.c_str() : "Bullet", mujoco_run ? mujoco_run->name.c_str() : "MuJoCo",
      rest_window, rest_window);
  for (const EngineRun& run : runs) {
    double rest_penetration = 0.0, penetration = 0.0, kinetic = 0.0;
    int count = 0;
    run.over_last(rest_window, [&](const Sample& s) {
      rest_penetration = std::max(rest_penetration, s.penetration);
      kinetic += s.kinetic;
      ++count;
    });
    for (const Sample& s : run.samples) penetration = std::max(penetration, s.penetration);
    const Sample last = run.samples.empty() ? Sample{} : run.samples.back();
    std::printf(
        "| %s | %s | %.3g | %s | %s | %.3g (%.2g %%) | %.3g | %.3g | %ld | %ld | %s |\n",
        run.name.c_str(), run.step_s > 0 ? short_num(run.step_s).c_str() : "adaptive",
        run.per_simulated_second(), ratio(run, bullet).c_str(), ratio(run, mujoco_run).c_str(),
        1e3 * rest_penetration, 100.0 * rest_penetration / spec.radius, 1e3 * penetration,
        count > 0 ? kinetic / count : 0.0, last.touching, last.engine_contacts, run.status.c_str());
  }
  std::printf(
      "\n| contactlab integrator | simulated s | wall s | steps | rhs evals | jac evals | events "
      "| restarts |\n|:---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const EngineRun& run : runs)
    if (run.family == "contactlab")
      std::printf("| %s | %.4g | %.2f | %lld | %lld | %lld | %lld | %lld |\n", run.name.c_str(),
                  run.simulated_s, run.wall_s, run.steps, run.rhs, run.jacobians, run.events,
                  run.restarts);
  return 0;
}
