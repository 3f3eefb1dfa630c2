// Recorder: writes a run directory — trajectory.csv, contacts.csv, events.csv, energy.csv,
// summary.json and config.resolved.yaml — from what the simulation tells its observers (it is
// one). summary.json is written at the start with status "incomplete" and rewritten at the end,
// so a run that dies leaves a directory that says so; it holds the run's counters, the split of
// the wall time into the host's phases, the recording and the integrator's own time, and the
// metrics of a RunMetrics (add it to the simulation before the recorder, so that its values are
// final when the recorder writes them).
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "contactlab/core/metrics.hpp"
#include "contactlab/core/observers.hpp"

namespace contactlab::core {

class Recorder final : public SimulationObserver {
 public:
  /// Creates `directory` (and parents) and opens the CSV files; writes config.resolved.yaml.
  /// `metrics` (may be null) are written into summary.json.
  Recorder(std::filesystem::path directory, const std::string& resolved_yaml,
           const RunMetrics* metrics = nullptr);
  ~Recorder() override;

  const std::filesystem::path& directory() const { return directory_; }

  SampleNeeds needs() const override;
  void on_run_start(const RunView& run) override;
  void on_initial_state(const RunSample& sample) override;
  void on_output(const RunSample& sample) override;
  void on_contact_start(const ContactStartEvent& event) override;
  void on_contact_end(const ContactEndEvent& event) override;
  void on_impulse(const ImpulseEvent& event) override;
  void on_law_event(const LawEvent& event) override;
  /// output.contact_problems: contact_problems/step_<k>.dat in Siconos' format.
  void on_contact_problem(const ContactProblemEvent& event) override;
  void on_run_end(const RunSample& sample, const IntegrationResult& result) override;
  /// Records a failure (status "failed" with the message) — also after an exception.
  void fail(const std::string& message);

  /// Shortest text that reads back to the same double.
  static std::string number(double value);

 private:
  void write_summary(const std::string& status, const std::string& error);
  /// The start of an events.csv row: time, kind and the two geometries' names.
  std::ofstream& event_row(double t, const char* kind, std::size_t a, std::size_t b);

  std::filesystem::path directory_;
  const RunMetrics* metrics_ = nullptr;
  const RunView* run_ = nullptr;
  std::ofstream trajectory_, contacts_, events_, energy_;
  std::chrono::steady_clock::time_point start_;
  double setup_s_ = 0.0;  ///< creating the directory and its files [s]
  double energy_initial_ = 0.0, energy_final_ = 0.0, time_reached_ = 0.0;
  bool have_final_energy_ = false;
  std::string integrator_message_;
  std::int64_t integrator_steps_ = 0, integrator_rejected_ = 0;
  std::int64_t jacobian_evaluations_ = 0, nonlinear_iterations_ = 0;
  std::int64_t jacobian_rhs_evaluations_ = 0;  ///< f calls spent forming Jacobians
};

}  // namespace contactlab::core
