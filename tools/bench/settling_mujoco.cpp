// bench_settling's MuJoCo run: the same scene in MuJoCo with its defaults — soft contacts with the
// default solref/solimp, the default integrator (Euler), condim 3, sliding friction μ as the
// scene's, elliptic cones by default (MuJoCo's pyramidal ones need more rows than it can allocate
// for the settled pile; --mujoco-cone) — at its default 2 ms step or the one asked for, with its
// default solver (Newton) or the one asked for (CG, PGS).
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "settling_scene.hpp"

namespace contactlab::bench {
namespace {

std::string mujoco_xml(const SceneSpec& spec, const std::string& solver, double step_s) {
  std::string xml =
      "<mujoco model=\"bench_settling\">\n"
      "  <option gravity=\"0 0 " +
      num(-gravity) + "\"" + (solver.empty() ? "" : " solver=\"" + solver + "\"") +
      (step_s > 0.0 ? " timestep=\"" + num(step_s) + "\"" : "") + " cone=\"" + spec.mujoco_cone +
      "\"" +
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

}  // namespace

EngineRun run_mujoco(const SceneSpec& spec, const std::string& solver, double step_s,
                     double budget_s) {
  EngineRun run;
  run.name = "MuJoCo " + std::string(mj_versionString()) + " " +
             (solver.empty() ? "Newton (default)" : solver) + " " + spec.mujoco_cone;
  run.family = "MuJoCo";
  run.status.clear();
  const std::string xml = mujoco_xml(spec, solver, step_s);
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
  run.step_s = model->opt.timestep;
  const double mass = spec.mass(), inertia = spec.inertia();
  std::vector<std::array<double, 3>> centres(spec.n);
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
      centres[i] = {data->qpos[7 * i], data->qpos[7 * i + 1], data->qpos[7 * i + 2]};
      s.kinetic += 0.5 * mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                   0.5 * inertia * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
    }
    measure_centres(spec, centres, s);
    s.engine_contacts = data->ncon;
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

}  // namespace contactlab::bench
