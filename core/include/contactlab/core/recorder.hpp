// Recorder: writes a run directory — trajectory.csv, contacts.csv, events.csv, summary.json and
// config.resolved.yaml. summary.json is written at the start with status "incomplete" and
// rewritten at the end, so a run that dies leaves a directory that says so.
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>

#include "contactlab/integrator.hpp"

namespace contactlab::core {

class Simulation;

class Recorder {
 public:
  /// Creates `directory` (and parents) and opens the CSV files; writes config.resolved.yaml.
  Recorder(std::filesystem::path directory, const std::string& resolved_yaml);
  ~Recorder();

  const std::filesystem::path& directory() const { return directory_; }

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

  std::filesystem::path directory_;
  std::ofstream trajectory_, contacts_, events_;
  Simulation* simulation_ = nullptr;
  std::chrono::steady_clock::time_point start_;
  double energy_initial_ = 0.0, energy_final_ = 0.0, time_reached_ = 0.0;
  bool have_final_energy_ = false;
  std::string integrator_message_;
  std::int64_t integrator_steps_ = 0, integrator_rejected_ = 0;
  std::int64_t jacobian_evaluations_ = 0, nonlinear_iterations_ = 0;
};

}  // namespace contactlab::core
