// The run's metrics, computed from what the simulation tells its observers: the energy's largest
// deviation from its initial value, the measured restitution of the first impact of the scene's
// `metrics.restitution_pair`, and the scene's `probes` (a body's state at an output time, a
// contact's extremes). The recorder writes them into summary.json.
#pragma once

#include <cstdint>
#include <vector>

#include "contactlab/core/observers.hpp"
#include "contactlab/core/scene.hpp"

namespace contactlab::core {

class RunMetrics final : public SimulationObserver {
 public:
  /// A probe's value and the time it refers to.
  struct ProbeResult {
    double value = 0.0;
    double time_s = 0.0;  ///< NaN: known from a contact_end event, not at an output time
    bool set = false;
    std::int64_t contacts = 0, samples = 0;  ///< contact probes: the pair's births, its samples
  };
  /// The first impact of metrics.restitution_pair.
  struct FirstImpact {
    bool started = false, ended = false;
    std::size_t geometry_a = 0, geometry_b = 0;
    double start_s = 0.0, end_s = 0.0;
    double impact_velocity_m_per_s = 0.0, separation_velocity_m_per_s = 0.0;
    bool has_separation = false;
  };

  SampleNeeds needs() const override;
  void on_run_start(const RunView& run) override;
  void on_initial_state(const RunSample& sample) override;
  void on_output(const RunSample& sample) override;
  void on_contact_start(const ContactStartEvent& event) override;
  void on_contact_end(const ContactEndEvent& event) override;
  void on_run_end(const RunSample& sample, const IntegrationResult& result) override;

  /// Largest |E(t) − E0| over the output times and the final state [J], and when.
  double energy_max_deviation_J() const { return energy_max_deviation_J_; }
  double energy_max_deviation_time_s() const { return energy_max_deviation_time_s_; }
  /// One per Scene::probes entry.
  const std::vector<ProbeResult>& probes() const { return probes_; }
  const FirstImpact& first_impact() const { return impact_; }

 private:
  void record_energy(double t, double energy);
  void record_body_probes(const RunSample& sample);
  void record_contact_probes(const RunSample& sample);

  const Scene* scene_ = nullptr;
  double energy_initial_J_ = 0.0;
  double energy_max_deviation_J_ = 0.0, energy_max_deviation_time_s_ = 0.0;
  std::vector<ProbeResult> probes_;
  bool body_probes_ = false, contact_probes_ = false;
  FirstImpact impact_;
};

}  // namespace contactlab::core
