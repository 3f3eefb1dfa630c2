// Recorder: writes a run directory — trajectory.csv, contacts.csv, events.csv, energy.csv,
// summary.json and config.resolved.yaml. summary.json is written at the start with status
// "incomplete" and rewritten at the end, so a run that dies leaves a directory that says so.
//
// It also computes the run's metrics from what passes through it (output times and events):
// the energy's largest deviation from its initial value, the measured restitution of the first
// impact of the scene's `metrics.restitution_pair`, the scene's `probes`, and the wall time it
// spends itself ("recording"), so that summary.json can split the wall time into the host's
// phases, the recording and the integrator's own time.
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "contactlab/integrator.hpp"

namespace contactlab::core {

class Simulation;

class Recorder {
 public:
  /// Creates `directory` (and parents) and opens the CSV files; writes config.resolved.yaml.
  Recorder(std::filesystem::path directory, const std::string& resolved_yaml);
  ~Recorder();

  const std::filesystem::path& directory() const { return directory_; }

  /// Binds the recorder to the simulation before anything happens at t = 0, so that the events of
  /// contacts born at t = 0 reach the metrics and probes (begin() attaches if this was not called).
  void attach(Simulation& simulation);
  void begin(Simulation& simulation, std::span<const double> y);
  void output(double t, std::span<const double> y);
  void event(double t, const std::string& kind, const std::string& a, const std::string& b,
             const std::string& details);
  void end(Simulation& simulation, std::span<const double> y, const IntegrationResult& result);
  /// Records a failure (status "failed" with the message) — also after an exception.
  void fail(const std::string& message);

  /// Shortest text that reads back to the same double.
  static std::string number(double value);

 private:
  void write_summary(const std::string& status, const std::string& error);

  /// Adds the time since `start` and the simulation's counters since `before` to the recording's
  /// share (what the recorder's own energy and contact evaluations cost).
  struct Share {
    double broad_phase_s = 0.0, narrow_phase_s = 0.0, response_s = 0.0, dynamics_s = 0.0;
    std::int64_t narrow_phase_queries = 0;
  };
  Share snapshot() const;
  void charge_recording(std::chrono::steady_clock::time_point start, const Share& before);
  void record_energy(double t, double energy);
  void record_probes(double t, std::span<const double> y);
  void record_contact_probes(const std::string& kind, const std::string& a, const std::string& b,
                             const std::string& details);
  void record_impact(double t, const std::string& kind, const std::string& a, const std::string& b,
                     const std::string& details);

  std::filesystem::path directory_;
  std::ofstream trajectory_, contacts_, events_, energy_;
  // Time spent by the recorder (writing, and the simulation's work on its behalf) [s].
  double recording_s_ = 0.0;
  Share recording_share_;
  // Energy: largest |E(t) − E0| over the output times (and the final state).
  double energy_max_deviation_J_ = 0.0, energy_max_deviation_time_s_ = 0.0;
  // Probes: value and the time it refers to (NaN: not reached).
  struct ProbeResult {
    double value = 0.0;
    double time_s = 0.0;  ///< NaN: known from a contact_end event, not at an output time
    bool set = false;
    std::int64_t contacts = 0, samples = 0;  ///< contact probes: the pair's births, its samples
  };
  std::vector<ProbeResult> probes_;
  bool contact_probes_ = false;
  std::unordered_map<std::string, std::size_t> geometry_index_;
  // The first impact of metrics.restitution_pair.
  struct Impact {
    bool started = false, ended = false;
    std::string geometry_a, geometry_b;
    double start_s = 0.0, end_s = 0.0;
    double impact_velocity_m_per_s = 0.0, separation_velocity_m_per_s = 0.0;
    bool has_separation = false;
  } impact_;
  Simulation* simulation_ = nullptr;
  std::chrono::steady_clock::time_point start_;
  double energy_initial_ = 0.0, energy_final_ = 0.0, time_reached_ = 0.0;
  bool have_final_energy_ = false;
  std::string integrator_message_;
  std::int64_t integrator_steps_ = 0, integrator_rejected_ = 0;
  std::int64_t jacobian_evaluations_ = 0, nonlinear_iterations_ = 0;
  std::int64_t jacobian_rhs_evaluations_ = 0;  ///< f calls spent forming Jacobians
};

}  // namespace contactlab::core
