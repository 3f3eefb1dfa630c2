// Run-directory writer (see recorder.hpp).
#include "contactlab/core/recorder.hpp"

#include "contactlab/contact_problem/siconos_io.hpp"

#include <yaml-cpp/yaml.h>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "contactlab/core/scene.hpp"
#include "contactlab/errors.hpp"
#include "contactlab/version.hpp"

namespace contactlab::core {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

std::string Recorder::number(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

Recorder::Recorder(fs::path directory, const std::string& resolved_yaml, const RunMetrics* metrics)
    : directory_(std::move(directory)), metrics_(metrics), start_(Clock::now()) {
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
  energy_.open(directory_ / "energy.csv");
  if (!trajectory_ || !contacts_ || !events_ || !energy_)
    throw InputError("cannot create the CSV files in '" + directory_.string() + "'");
  contacts_ << "time_s,geometry_a,geometry_b,distance_m,normal_x,normal_y,normal_z,point_x,"
               "point_y,point_z,normal_force_N,tangential_force_x_N,tangential_force_y_N,"
               "tangential_force_z_N\n";
  events_ << "time_s,kind,geometry_a,geometry_b,details\n";
  energy_ << "time_s,energy_J\n";
  write_summary("incomplete", "the run has not finished");
  setup_s_ = seconds_since(start_);
}

Recorder::~Recorder() = default;

SampleNeeds Recorder::needs() const {
  SampleNeeds needs;
  needs.bodies = true;
  needs.contacts = run_ && run_->scene().record_contacts;
  needs.energy = true;
  return needs;
}

void Recorder::on_run_start(const RunView& run) {
  run_ = &run;
}

void Recorder::on_initial_state(const RunSample& sample) {
  trajectory_ << "time_s";
  for (const BodyModel& body : run_->scene().bodies) {
    if (!body.moves()) continue;
    for (const char* column :
         {"px", "py", "pz", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"})
      trajectory_ << ',' << body.name << '.' << column;
  }
  trajectory_ << '\n';
  energy_initial_ = sample.energy_J;
  write_summary("incomplete", "the run has not finished");
}

void Recorder::on_output(const RunSample& sample) {
  const Scene& scene = run_->scene();
  const double t = sample.time_s;
  trajectory_ << number(t);
  for (std::size_t b = 0; b < scene.bodies.size(); ++b) {
    if (!scene.bodies[b].moves()) continue;
    const BodyState& s = sample.bodies[b];
    for (double value :
         {s.p_WCm.x(), s.p_WCm.y(), s.p_WCm.z(), s.q_WB.w(), s.q_WB.x(), s.q_WB.y(), s.q_WB.z(),
          s.v_WCm.x(), s.v_WCm.y(), s.v_WCm.z(), s.w_WB.x(), s.w_WB.y(), s.w_WB.z()})
      trajectory_ << ',' << number(value);
  }
  trajectory_ << '\n';
  if (scene.record_contacts) {
    const auto& g = scene.geometries;
    for (const ContactSample& c : sample.contacts) {
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
  energy_ << number(t) << ',' << number(sample.energy_J) << '\n';
  time_reached_ = t;
}

std::ofstream& Recorder::event_row(double t, const char* kind, std::size_t a, std::size_t b) {
  const auto& g = run_->scene().geometries;
  events_ << number(t) << ',' << kind << ',' << g[a].name << ',' << g[b].name << ',';
  return events_;
}

// The details column: key=value pairs separated by ';', numbers in shortest round-trip form.
void Recorder::on_contact_start(const ContactStartEvent& e) {
  event_row(e.time_s, "contact_start", e.geometry_a, e.geometry_b)
      << "impact_velocity_m_per_s=" << number(e.impact_velocity_m_per_s) << '\n';
}

void Recorder::on_contact_end(const ContactEndEvent& e) {
  event_row(e.time_s, "contact_end", e.geometry_a, e.geometry_b)
      << "duration_s=" << number(e.duration_s)
      << ";max_penetration_m=" << number(e.max_penetration_m)
      << ";separation_velocity_m_per_s=" << number(e.separation_velocity_m_per_s) << '\n';
}

void Recorder::on_impulse(const ImpulseEvent& e) {
  event_row(e.time_s, "impulse", e.geometry_a, e.geometry_b)
      << "impulse_N_s=" << number(e.impulse_N_s) << ";restitution=" << number(e.restitution)
      << '\n';
}

void Recorder::on_law_event(const LawEvent& e) {
  event_row(e.time_s, e.name, e.geometry_a, e.geometry_b)
      << (e.source == LawEvent::Source::force_law ? "law_mode=" : "friction_mode=")
      << std::to_string(e.mode) << ";penetration_m=" << number(e.penetration_m) << '\n';
}

void Recorder::on_contact_problem(const ContactProblemEvent& event) {
  const std::filesystem::path folder = directory_ / "contact_problems";
  std::filesystem::create_directories(folder);
  char name[40];
  std::snprintf(name, sizeof name, "step_%08lld.dat", static_cast<long long>(event.step));
  contact_problem::write_siconos_file(*event.problem, (folder / name).string());
}

void Recorder::on_run_end(const RunSample& sample, const IntegrationResult& result) {
  energy_final_ = sample.energy_J;
  have_final_energy_ = true;
  time_reached_ = result.time_reached_s;
  integrator_steps_ = result.steps;
  integrator_rejected_ = result.rejected_steps;
  jacobian_evaluations_ = result.jacobian_evaluations;
  jacobian_rhs_evaluations_ = result.jacobian_rhs_evaluations;
  nonlinear_iterations_ = result.nonlinear_iterations;
  integrator_message_ = result.message;
  trajectory_.flush();
  contacts_.flush();
  events_.flush();
  energy_.flush();
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
  energy_.flush();
  write_summary("failed", message);
}

void Recorder::write_summary(const std::string& status, const std::string& error) {
  using nlohmann::json;
  json summary;
  summary["status"] = status;
  if (!error.empty()) summary["error"] = error;
  const double wall_time_s = seconds_since(start_);
  summary["wall_time_s"] = wall_time_s;
  if (run_) {
    const Scene& scene = run_->scene();
    const SimulationStatistics stats = run_->statistics();
    summary["experiment"] = scene.name;
    summary["warnings"] = scene.warnings;
    summary["duration_s"] = scene.duration_s;
    summary["time_reached_s"] = time_reached_;
    summary["steps"] = stats.steps;
    summary["rejected_steps"] = integrator_rejected_;
    summary["jacobian_evaluations"] = jacobian_evaluations_;
    summary["jacobian_rhs_evaluations"] = jacobian_rhs_evaluations_;
    summary["nonlinear_iterations"] = nonlinear_iterations_;
    summary["rhs_evaluations"] = stats.rhs_evaluations;
    summary["narrow_phase_queries"] = stats.narrow_phase_queries;
    summary["events"] = stats.events;
    summary["located_events"] = stats.located_events;
    summary["impulses"] = stats.impulses;
    summary["integrator_restarts"] = stats.restarts;
    summary["max_penetration_m"] = stats.max_penetration_m;
    if (stats.time_stepping) {
      // Per step the integrator solved one contact problem: its iterations, residual, size.
      const ContactSolveStatistics& c = stats.contact_solver;
      const double solves = static_cast<double>(c.solves);
      summary["contact_solver"] = {
          {"solves", c.solves},
          {"mean_iterations", c.solves ? double(c.iterations) / solves : 0.0},
          {"max_iterations", c.max_iterations},
          {"unconverged", c.unconverged},
          {"max_residual", c.max_residual},
          {"mean_contacts", c.solves ? double(c.points) / solves : 0.0},
          {"max_contacts", c.max_points},
          {"problems_written", c.problems_written}};
    } else {
      summary["contact_solver"] = nullptr;
    }
    summary["energy_initial_J"] = energy_initial_;
    summary["energy_final_J"] = have_final_energy_ ? json(energy_final_) : json(nullptr);
    // Energy drift: relative values are to |E0| (null when E0 = 0; the potential's zero is the
    // world origin).
    const double scale = std::abs(energy_initial_);
    auto relative = [&](double value) { return scale > 0.0 ? json(value / scale) : json(nullptr); };
    const double drift = energy_final_ - energy_initial_;
    summary["energy_drift_J"] = have_final_energy_ ? json(drift) : json(nullptr);
    summary["energy_drift_relative"] = have_final_energy_ ? relative(drift) : json(nullptr);
    // The host's phases without the recording's share (the energy and contact evaluations at the
    // output times), the recording (those evaluations, and the observers' own time), and the
    // rest: the integrator's own work (its linear algebra, step control, root finding,
    // interpolation).
    const RecordingShare& r = stats.recording;
    const double broad_s = std::max(0.0, stats.broad_phase_s - r.broad_phase_s);
    const double narrow_s = std::max(0.0, stats.narrow_phase_s - r.narrow_phase_s);
    const double response_s = std::max(0.0, stats.response_s - r.response_s);
    const double dynamics_s = std::max(0.0, stats.dynamics_s - r.dynamics_s);
    const double recording = setup_s_ + r.wall_s;
    summary["phase_time_s"] = {
        {"broad_phase", broad_s},
        {"narrow_phase", narrow_s},
        {"response", response_s},
        {"dynamics", dynamics_s},
        {"recording", recording},
        {"integrator",
         std::max(0.0, wall_time_s - broad_s - narrow_s - response_s - dynamics_s - recording)}};
    summary["narrow_phase_queries_recording"] = r.narrow_phase_queries;
  }
  if (run_ && metrics_) {
    const Scene& scene = run_->scene();
    const double scale = std::abs(energy_initial_);
    auto relative = [&](double value) { return scale > 0.0 ? json(value / scale) : json(nullptr); };
    summary["energy_max_deviation_J"] = metrics_->energy_max_deviation_J();
    summary["energy_max_deviation_relative"] = relative(metrics_->energy_max_deviation_J());
    summary["energy_max_deviation_time_s"] = metrics_->energy_max_deviation_time_s();
    // The restitution of the first impact of metrics.restitution_pair: the normal separation
    // speed at its contact end over the approach speed at its contact start.
    if (scene.metrics.restitution_pair) {
      const PairSelector& pair = *scene.metrics.restitution_pair;
      json impact{{"pair", {pair.first.name, pair.second.name}}};
      json value = nullptr;
      const RunMetrics::FirstImpact& first = metrics_->first_impact();
      if (first.started) {
        impact["geometries"] = {scene.geometries[first.geometry_a].name,
                                scene.geometries[first.geometry_b].name};
        impact["start_s"] = first.start_s;
        impact["impact_velocity_m_per_s"] = first.impact_velocity_m_per_s;
      }
      if (first.ended) {
        impact["end_s"] = first.end_s;
        if (first.has_separation) {
          impact["separation_velocity_m_per_s"] = first.separation_velocity_m_per_s;
          if (first.impact_velocity_m_per_s > 0.0)
            value = first.separation_velocity_m_per_s / first.impact_velocity_m_per_s;
        }
      }
      impact["status"] = !first.started    ? "no contact"
                         : !first.ended    ? "contact has not ended"
                         : value.is_null() ? "speeds not measurable"
                                           : "measured";
      summary["restitution"] = value;
      summary["first_impact"] = impact;
    }
    if (!scene.probes.empty()) {
      json probes = json::object(), details = json::object();
      for (std::size_t p = 0; p < scene.probes.size(); ++p) {
        const ProbeModel& probe = scene.probes[p];
        const auto& results = metrics_->probes();
        const RunMetrics::ProbeResult& result =
            p < results.size() ? results[p] : RunMetrics::ProbeResult{};
        probes[probe.name] = result.set ? json(result.value) : json(nullptr);
        json detail{{"quantity", probe.quantity_name}, {"unit", probe.unit}};
        if (probe.kind == ProbeModel::Kind::body_state) {
          detail["body"] = scene.bodies[probe.body].name;
          detail["component"] = probe.component_name;
          detail["at_s"] = probe.at_s;
        } else {
          detail["contact"] = {probe.pair.first.name, probe.pair.second.name};
        }
        // The output time the value was taken at (a contact extreme: where it occurred; null
        // when it is not known or the pair never touched).
        detail["time_s"] =
            result.set && std::isfinite(result.time_s) &&
                    (probe.kind == ProbeModel::Kind::body_state || result.value > 0.0)
                ? json(result.time_s)
                : json(nullptr);
        if (probe.kind == ProbeModel::Kind::contact_extreme) {
          detail["contacts"] = result.contacts;
          detail["samples"] = result.samples;
          if (result.contacts > 0 && result.samples == 0)
            detail["warning"] =
                "the pair touched only between output times (no row of contacts.csv): "
                "make output.interval_s smaller than its contact duration";
        }
        details[probe.name] = detail;
      }
      summary["probes"] = probes;
      summary["probe_details"] = details;
    }
  }
  if (run_) {
    const Scene& scene = run_->scene();
    auto describe = [](const PluginChoice& choice) {
      if (!choice.info) return json(nullptr);  // no force law under time stepping
      return json{{"name", choice.type},
                  {"version", choice.info->version},
                  {"library", choice.info->library_path.string()},
                  {"library_version", choice.info->library_version}};
    };
    json narrow = json::array();
    const auto narrow_stats = run_->narrow_phase_statistics();
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
