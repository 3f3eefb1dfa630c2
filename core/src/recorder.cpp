// Run-directory writer (see recorder.hpp).
#include "contactlab/core/recorder.hpp"

#include <yaml-cpp/yaml.h>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "contactlab/core/simulation.hpp"
#include "contactlab/errors.hpp"
#include "contactlab/version.hpp"

namespace contactlab::core {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The value of `key=` in an events.csv details field ("a=1;b=2"); NaN when absent.
double detail_value(const std::string& details, const std::string& key) {
  const std::string token = key + "=";
  std::size_t at = 0;
  while ((at = details.find(token, at)) != std::string::npos) {
    if (at == 0 || details[at - 1] == ';') {
      const std::size_t begin = at + token.size();
      const std::size_t end = details.find(';', begin);
      const std::string text = details.substr(begin, end == std::string::npos ? end : end - begin);
      double value = std::numeric_limits<double>::quiet_NaN();
      std::from_chars(text.data(), text.data() + text.size(), value);
      return value;
    }
    at += token.size();
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

std::string Recorder::number(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

Recorder::Recorder(fs::path directory, const std::string& resolved_yaml)
    : directory_(std::move(directory)), start_(Clock::now()) {
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
  recording_s_ += seconds_since(start_);
}

Recorder::~Recorder() = default;

Recorder::Share Recorder::snapshot() const {
  Share share;
  if (!simulation_) return share;
  const SimulationStatistics& stats = simulation_->statistics();
  share.broad_phase_s = stats.broad_phase_s;
  share.narrow_phase_s = stats.narrow_phase_s;
  share.response_s = stats.response_s;
  share.dynamics_s = stats.dynamics_s;
  share.narrow_phase_queries = stats.narrow_phase_queries;
  return share;
}

void Recorder::charge_recording(Clock::time_point start, const Share& before) {
  recording_s_ += seconds_since(start);
  const Share after = snapshot();
  recording_share_.broad_phase_s += after.broad_phase_s - before.broad_phase_s;
  recording_share_.narrow_phase_s += after.narrow_phase_s - before.narrow_phase_s;
  recording_share_.response_s += after.response_s - before.response_s;
  recording_share_.dynamics_s += after.dynamics_s - before.dynamics_s;
  recording_share_.narrow_phase_queries += after.narrow_phase_queries - before.narrow_phase_queries;
}

void Recorder::attach(Simulation& simulation) {
  if (simulation_ == &simulation) return;
  simulation_ = &simulation;
  const Scene& scene = simulation.scene();
  for (std::size_t g = 0; g < scene.geometries.size(); ++g)
    geometry_index_.emplace(scene.geometries[g].name, g);
  probes_.assign(scene.probes.size(), ProbeResult{});
  for (std::size_t p = 0; p < scene.probes.size(); ++p) {
    if (scene.probes[p].kind != ProbeModel::Kind::contact_extreme) continue;
    contact_probes_ = true;
    probes_[p].set = true;  // a pair that never touches has a largest force and depth of 0
  }
}

void Recorder::begin(Simulation& simulation, std::span<const double> y) {
  const Clock::time_point start = Clock::now();
  attach(simulation);
  const Share before = snapshot();
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
  charge_recording(start, before);
}

void Recorder::output(double t, std::span<const double> y) {
  const Clock::time_point start = Clock::now();
  const Share before = snapshot();
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
  const Scene& scene = sim.scene();
  if (scene.record_contacts || contact_probes_) {
    for (const ContactSample& c : sim.contacts_at(t, y)) {
      for (std::size_t p = 0; p < scene.probes.size(); ++p) {
        const ProbeModel& probe = scene.probes[p];
        if (probe.kind != ProbeModel::Kind::contact_extreme ||
            !probe.pair.matches(c.geometry_a, c.geometry_b))
          continue;
        const double value = probe.quantity == ProbeModel::Quantity::max_normal_force
                                 ? c.normal_force_N
                                 : std::max(0.0, -c.geometry.distance_m);
        ProbeResult& result = probes_[p];
        ++result.samples;
        if (value > result.value) {
          result.value = value;
          result.time_s = t;
        }
      }
      if (!scene.record_contacts) continue;
      const auto& g = scene.geometries;
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
  record_probes(t, y);
  record_energy(t, sim.total_energy(y));
  time_reached_ = t;
  charge_recording(start, before);
}

void Recorder::record_energy(double t, double energy) {
  energy_ << number(t) << ',' << number(energy) << '\n';
  const double deviation = std::abs(energy - energy_initial_);
  if (deviation > energy_max_deviation_J_) {
    energy_max_deviation_J_ = deviation;
    energy_max_deviation_time_s_ = t;
  }
}

void Recorder::record_probes(double t, std::span<const double> y) {
  const Scene& scene = simulation_->scene();
  for (std::size_t p = 0; p < scene.probes.size(); ++p) {
    const ProbeModel& probe = scene.probes[p];
    if (probe.kind != ProbeModel::Kind::body_state) continue;
    // The output time k·interval that at_s names (the integrators report exactly k·interval,
    // and the end of the run at duration_s). A repeated output time (a restart there) keeps the
    // last state: the one after the events at that instant.
    const bool at_end = probe.at_s == scene.duration_s && t == scene.duration_s;
    if (!at_end && std::llround(t / scene.output_interval_s) != probe.output_index) continue;
    if (!at_end && std::abs(t - probe.at_s) > 1e-9 * std::max(scene.output_interval_s, t)) continue;
    const BodyState state = simulation_->body_state(probe.body, y);
    double value = 0.0;
    switch (probe.quantity) {
      case ProbeModel::Quantity::orientation: {
        const double wxyz[4] = {state.q_WB.w(), state.q_WB.x(), state.q_WB.y(), state.q_WB.z()};
        value = wxyz[probe.component];
        break;
      }
      default: {
        const Vec3& v = probe.quantity == ProbeModel::Quantity::position   ? state.p_WCm
                        : probe.quantity == ProbeModel::Quantity::velocity ? state.v_WCm
                                                                           : state.w_WB;
        value = probe.component == 3 ? v.norm() : v[probe.component];
        break;
      }
    }
    probes_[p].value = value;
    probes_[p].time_s = t;
    probes_[p].set = true;
  }
}

void Recorder::record_contact_probes(const std::string& kind, const std::string& a,
                                     const std::string& b, const std::string& details) {
  if (!contact_probes_ || (kind != "contact_start" && kind != "contact_end")) return;
  const auto ia = geometry_index_.find(a), ib = geometry_index_.find(b);
  if (ia == geometry_index_.end() || ib == geometry_index_.end()) return;
  const Scene& scene = simulation_->scene();
  for (std::size_t p = 0; p < scene.probes.size(); ++p) {
    const ProbeModel& probe = scene.probes[p];
    if (probe.kind != ProbeModel::Kind::contact_extreme ||
        !probe.pair.matches(ia->second, ib->second))
      continue;
    ProbeResult& result = probes_[p];
    if (kind == "contact_start") {
      ++result.contacts;
      continue;
    }
    // The contact's deepest penetration over the accepted steps, which may fall between two
    // output times.
    if (probe.quantity != ProbeModel::Quantity::max_penetration) continue;
    const double depth = detail_value(details, "max_penetration_m");
    if (depth > result.value) {
      result.value = depth;
      result.time_s = std::numeric_limits<double>::quiet_NaN();
    }
  }
}

void Recorder::record_impact(double t, const std::string& kind, const std::string& a,
                             const std::string& b, const std::string& details) {
  const auto& selector = simulation_->scene().metrics.restitution_pair;
  if (!selector || impact_.ended) return;
  if (!impact_.started) {
    if (kind != "contact_start") return;
    const auto ia = geometry_index_.find(a), ib = geometry_index_.find(b);
    if (ia == geometry_index_.end() || ib == geometry_index_.end() ||
        !selector->matches(ia->second, ib->second))
      return;
    impact_.started = true;
    impact_.geometry_a = a;
    impact_.geometry_b = b;
    impact_.start_s = t;
    impact_.impact_velocity_m_per_s = detail_value(details, "impact_velocity_m_per_s");
    return;
  }
  if (kind != "contact_end" || a != impact_.geometry_a || b != impact_.geometry_b) return;
  impact_.ended = true;
  impact_.end_s = t;
  impact_.separation_velocity_m_per_s = detail_value(details, "separation_velocity_m_per_s");
  impact_.has_separation = std::isfinite(impact_.separation_velocity_m_per_s);
}

void Recorder::event(double t, const std::string& kind, const std::string& a, const std::string& b,
                     const std::string& details) {
  const Clock::time_point start = Clock::now();
  events_ << number(t) << ',' << kind << ',' << a << ',' << b << ',' << details << '\n';
  if (simulation_) {
    record_impact(t, kind, a, b, details);
    record_contact_probes(kind, a, b, details);
  }
  recording_s_ += seconds_since(start);
}

void Recorder::end(Simulation& simulation, std::span<const double> y,
                   const IntegrationResult& result) {
  const Clock::time_point start = Clock::now();
  const Share before = snapshot();
  energy_final_ = simulation.total_energy(y);
  have_final_energy_ = true;
  {
    const double deviation = std::abs(energy_final_ - energy_initial_);
    if (deviation > energy_max_deviation_J_) {
      energy_max_deviation_J_ = deviation;
      energy_max_deviation_time_s_ = result.time_reached_s;
    }
  }
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
  charge_recording(start, before);
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
    summary["jacobian_rhs_evaluations"] = jacobian_rhs_evaluations_;
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
    // Energy drift: relative values are to |E0| (null when E0 = 0; the potential's zero is the
    // world origin).
    const double scale = std::abs(energy_initial_);
    auto relative = [&](double value) { return scale > 0.0 ? json(value / scale) : json(nullptr); };
    const double drift = energy_final_ - energy_initial_;
    summary["energy_drift_J"] = have_final_energy_ ? json(drift) : json(nullptr);
    summary["energy_drift_relative"] = have_final_energy_ ? relative(drift) : json(nullptr);
    summary["energy_max_deviation_J"] = energy_max_deviation_J_;
    summary["energy_max_deviation_relative"] = relative(energy_max_deviation_J_);
    summary["energy_max_deviation_time_s"] = energy_max_deviation_time_s_;
    // The host's phases without the recorder's share (its energy and contact evaluations at the
    // output times), the recorder's own time, and the rest: the integrator's own work (its
    // linear algebra, step control, root finding, interpolation).
    const Share& r = recording_share_;
    const double broad_s = std::max(0.0, stats.broad_phase_s - r.broad_phase_s);
    const double narrow_s = std::max(0.0, stats.narrow_phase_s - r.narrow_phase_s);
    const double response_s = std::max(0.0, stats.response_s - r.response_s);
    const double dynamics_s = std::max(0.0, stats.dynamics_s - r.dynamics_s);
    const double recording = recording_s_;
    summary["phase_time_s"] = {
        {"broad_phase", broad_s},
        {"narrow_phase", narrow_s},
        {"response", response_s},
        {"dynamics", dynamics_s},
        {"recording", recording},
        {"integrator",
         std::max(0.0, wall_time_s - broad_s - narrow_s - response_s - dynamics_s - recording)}};
    summary["narrow_phase_queries_recording"] = r.narrow_phase_queries;
    // The restitution of the first impact of metrics.restitution_pair: the normal separation
    // speed at its contact end over the approach speed at its contact start.
    if (scene.metrics.restitution_pair) {
      const PairSelector& pair = *scene.metrics.restitution_pair;
      json impact{{"pair", {pair.first.name, pair.second.name}}};
      json value = nullptr;
      if (impact_.started) {
        impact["geometries"] = {impact_.geometry_a, impact_.geometry_b};
        impact["start_s"] = impact_.start_s;
        impact["impact_velocity_m_per_s"] = impact_.impact_velocity_m_per_s;
      }
      if (impact_.ended) {
        impact["end_s"] = impact_.end_s;
        if (impact_.has_separation) {
          impact["separation_velocity_m_per_s"] = impact_.separation_velocity_m_per_s;
          if (impact_.impact_velocity_m_per_s > 0.0)
            value = impact_.separation_velocity_m_per_s / impact_.impact_velocity_m_per_s;
        }
      }
      impact["status"] = !impact_.started  ? "no contact"
                         : !impact_.ended  ? "contact has not ended"
                         : value.is_null() ? "speeds not measurable"
                                           : "measured";
      summary["restitution"] = value;
      summary["first_impact"] = impact;
    }
    if (!scene.probes.empty()) {
      json probes = json::object(), details = json::object();
      for (std::size_t p = 0; p < scene.probes.size(); ++p) {
        const ProbeModel& probe = scene.probes[p];
        const ProbeResult& result = p < probes_.size() ? probes_[p] : ProbeResult{};
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
