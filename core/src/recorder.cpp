// Run-directory writer (see recorder.hpp).
#include "contactlab/core/recorder.hpp"

#include <yaml-cpp/yaml.h>
#include <charconv>
#include <nlohmann/json.hpp>
#include <set>

#include "contactlab/core/simulation.hpp"
#include "contactlab/errors.hpp"
#include "contactlab/version.hpp"

namespace contactlab::core {

namespace fs = std::filesystem;

std::string Recorder::number(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

Recorder::Recorder(fs::path directory, const std::string& resolved_yaml)
    : directory_(std::move(directory)), start_(std::chrono::steady_clock::now()) {
  std::error_code ec;
  fs::create_directories(directory_, ec);
  if (ec)
    throw InputError("cannot create run directory '" + directory_.string() + "': " + ec.message());
  {
    std::ofstream config(directory_ / "config.resolved.yaml");
    config << resolved_yaml;
    if (!config) throw InputError("cannot write into run directory '" + directory_.string() + "'");
  }
  trajectory_.open(directory_ / "trajectory.csv");
  contacts_.open(directory_ / "contacts.csv");
  events_.open(directory_ / "events.csv");
  if (!trajectory_ || !contacts_ || !events_)
    throw InputError("cannot create the CSV files in '" + directory_.string() + "'");
  contacts_ << "time_s,geometry_a,geometry_b,distance_m,normal_x,normal_y,normal_z,point_x,"
               "point_y,point_z,normal_force_N,tangential_force_x_N,tangential_force_y_N,"
               "tangential_force_z_N\n";
  events_ << "time_s,kind,geometry_a,geometry_b,details\n";
  write_summary("incomplete", "the run has not finished");
}

Recorder::~Recorder() = default;

void Recorder::begin(Simulation& simulation, std::span<const double> y) {
  simulation_ = &simulation;
  trajectory_ << "time_s";
  for (const BodyModel& body : simulation.scene().bodies) {
    if (!body.moves()) continue;
    for (const char* column :
         {"px", "py", "pz", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"})
      trajectory_ << ',' << body.name << '.' << column;
  }
  trajectory_ << '\n';
  energy_initial_ = simulation.total_energy(y);
  write_summary("incomplete", "the run has not finished");
}

void Recorder::output(double t, std::span<const double> y) {
  Simulation& sim = *simulation_;
  trajectory_ << number(t);
  for (std::size_t b = 0; b < sim.scene().bodies.size(); ++b) {
    if (!sim.scene().bodies[b].moves()) continue;
    const BodyState s = sim.body_state(b, y);
    for (double value :
         {s.p_WCm.x(), s.p_WCm.y(), s.p_WCm.z(), s.q_WB.w(), s.q_WB.x(), s.q_WB.y(), s.q_WB.z(),
          s.v_WCm.x(), s.v_WCm.y(), s.v_WCm.z(), s.w_WB.x(), s.w_WB.y(), s.w_WB.z()})
      trajectory_ << ',' << number(value);
  }
  trajectory_ << '\n';
  if (sim.scene().record_contacts) {
    for (const ContactSample& c : sim.contacts_at(t, y)) {
      const auto& g = sim.scene().geometries;
      contacts_ << number(t) << ',' << g[c.geometry_a].name << ',' << g[c.geometry_b].name << ','
                << number(c.geometry.distance_m);
      for (double value :
           {c.geometry.normal_W.x(), c.geometry.normal_W.y(), c.geometry.normal_W.z(),
            c.point_W.x(), c.point_W.y(), c.point_W.z(), c.normal_force_N, c.tangential_force_W.x(),
            c.tangential_force_W.y(), c.tangential_force_W.z()})
        contacts_ << ',' << number(value);
      contacts_ << '\n';
    }
  }
  time_reached_ = t;
}

void Recorder::event(double t, const std::string& kind, const std::string& a, const std::string& b,
                     const std::string& details) {
  events_ << number(t) << ',' << kind << ',' << a << ',' << b << ',' << details << '\n';
}

void Recorder::end(Simulation& simulation, std::span<const double> y,
                   const IntegrationResult& result) {
  energy_final_ = simulation.total_energy(y);
  have_final_energy_ = true;
  time_reached_ = result.time_reached_s;
  integrator_steps_ = result.steps;
  integrator_rejected_ = result.rejected_steps;
  jacobian_evaluations_ = result.jacobian_evaluations;
  nonlinear_iterations_ = result.nonlinear_iterations;
  integrator_message_ = result.message;
  trajectory_.flush();
  contacts_.flush();
  events_.flush();
  switch (result.status) {
    case IntegrationStatus::completed:
      write_summary("complete", "");
      break;
    case IntegrationStatus::interrupted:
      write_summary("incomplete", result.message.empty() ? "interrupted" : result.message);
      break;
    case IntegrationStatus::failed:
      write_summary("failed", result.message);
      break;
    case IntegrationStatus::restart_requested:  // Simulation::run() resumes every restart
      write_summary("failed", "the integrator stopped at a restart the host did not resume");
      break;
  }
}

void Recorder::fail(const std::string& message) {
  trajectory_.flush();
  contacts_.flush();
  events_.flush();
  write_summary("failed", message);
}

void Recorder::write_summary(const std::string& status, const std::string& error) {
  using nlohmann::json;
  json summary;
  summary["status"] = status;
  if (!error.empty()) summary["error"] = error;
  summary["wall_time_s"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (simulation_) {
    const Scene& scene = simulation_->scene();
    const SimulationStatistics& stats = simulation_->statistics();
    summary["experiment"] = scene.name;
    summary["warnings"] = scene.warnings;
    summary["duration_s"] = scene.duration_s;
    summary["time_reached_s"] = time_reached_;
    summary["steps"] = stats.steps;
    summary["rejected_steps"] = integrator_rejected_;
    summary["jacobian_evaluations"] = jacobian_evaluations_;
    summary["nonlinear_iterations"] = nonlinear_iterations_;
    summary["rhs_evaluations"] = stats.rhs_evaluations;
    summary["narrow_phase_queries"] = stats.narrow_phase_queries;
    summary["events"] = stats.events;
    summary["located_events"] = stats.located_events;
    summary["impulses"] = stats.impulses;
    summary["integrator_restarts"] = stats.restarts;
    summary["max_penetration_m"] = stats.max_penetration_m;
    summary["energy_initial_J"] = energy_initial_;
    summary["energy_final_J"] = have_final_energy_ ? json(energy_final_) : json(nullptr);
    summary["phase_time_s"] = {{"broad_phase", stats.broad_phase_s},
                               {"narrow_phase", stats.narrow_phase_s},
                               {"response", stats.response_s},
                               {"dynamics", stats.dynamics_s}};
    auto describe = [](const PluginChoice& choice) {
      return json{{"name", choice.type},
                  {"version", choice.info->version},
                  {"library", choice.info->library_path.string()},
                  {"library_version", choice.info->library_version}};
    };
    json narrow = json::array();
    const auto narrow_stats = simulation_->narrow_phase_statistics();
    for (std::size_t k = 0; k < narrow_stats.size(); ++k) {
      const NarrowPhaseStatistics& n = narrow_stats[k];
      narrow.push_back(
          {{"name", scene.narrow_phase[k].type},
           {"queries", n.queries},
           {"iteration_limit_hits", n.iteration_limit_hits},
           {"degenerate_cases", n.degenerate_cases},
           {"mean_iterations", n.queries ? double(n.total_iterations) / n.queries : 0.0},
           {"max_iterations", n.max_iterations_used}});
    }
    summary["narrow_phase_statistics"] = narrow;
    json plugins;
    plugins["broad_phase"] = describe(scene.broad_phase);
    plugins["narrow_phase"] = json::array();
    for (const auto& choice : scene.narrow_phase)
      plugins["narrow_phase"].push_back(describe(choice));
    plugins["force_law"] = describe(scene.force_law);
    plugins["friction"] = describe(scene.friction);
    plugins["integrator"] = describe(scene.integrator);
    plugins["joint"] = json::array();
    std::set<std::string> seen;
    for (const auto& body : scene.bodies)
      if (seen.insert(body.joint.type).second) plugins["joint"].push_back(describe(body.joint));
    summary["plugins"] = plugins;
  }
  summary["versions"] = {{"contactlab", version_string},
                         {"sdk_abi", CONTACTLAB_SDK_ABI_VERSION},
                         {"eigen", CONTACTLAB_EIGEN_VERSION},
                         {"yaml_cpp", CONTACTLAB_YAML_CPP_VERSION},
                         {"boost", CONTACTLAB_BOOST_VERSION},
                         {"nlohmann_json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
                                               std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
                                               std::to_string(NLOHMANN_JSON_VERSION_PATCH)},
                         {"compiler", __VERSION__}};
  // Write to a temporary file and rename, so a reader never sees half a summary.
  const fs::path target = directory_ / "summary.json";
  const fs::path temporary = directory_ / "summary.json.tmp";
  {
    std::ofstream out(temporary);
    out << summary.dump(2) << '\n';
  }
  std::error_code ec;
  fs::rename(temporary, target, ec);
}

}  // namespace contactlab::core
