// The run's metrics (see metrics.hpp).
#include "contactlab/core/metrics.hpp"

#include <cmath>
#include <limits>

namespace contactlab::core {

SampleNeeds RunMetrics::needs() const {
  SampleNeeds needs;
  needs.bodies = body_probes_;
  needs.contacts = contact_probes_;
  needs.energy = true;
  return needs;
}

void RunMetrics::on_run_start(const RunView& run) {
  scene_ = &run.scene();
  probes_.assign(scene_->probes.size(), ProbeResult{});
  for (std::size_t p = 0; p < scene_->probes.size(); ++p) {
    if (scene_->probes[p].kind == ProbeModel::Kind::body_state) {
      body_probes_ = true;
      continue;
    }
    contact_probes_ = true;
    probes_[p].set = true;  // a pair that never touches has a largest force and depth of 0
  }
}

void RunMetrics::on_initial_state(const RunSample& sample) {
  energy_initial_J_ = sample.energy_J;
}

void RunMetrics::on_output(const RunSample& sample) {
  if (contact_probes_) record_contact_probes(sample);
  if (body_probes_) record_body_probes(sample);
  record_energy(sample.time_s, sample.energy_J);
}

void RunMetrics::record_energy(double t, double energy) {
  const double deviation = std::abs(energy - energy_initial_J_);
  if (deviation > energy_max_deviation_J_) {
    energy_max_deviation_J_ = deviation;
    energy_max_deviation_time_s_ = t;
  }
}

void RunMetrics::record_contact_probes(const RunSample& sample) {
  for (const ContactSample& c : sample.contacts) {
    for (std::size_t p = 0; p < scene_->probes.size(); ++p) {
      const ProbeModel& probe = scene_->probes[p];
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
        result.time_s = sample.time_s;
      }
    }
  }
}

void RunMetrics::record_body_probes(const RunSample& sample) {
  const Scene& scene = *scene_;
  const double t = sample.time_s;
  for (std::size_t p = 0; p < scene.probes.size(); ++p) {
    const ProbeModel& probe = scene.probes[p];
    if (probe.kind != ProbeModel::Kind::body_state) continue;
    // The output time k·interval that at_s names (the integrators report exactly k·interval,
    // and the end of the run at duration_s). A repeated output time (a restart there) keeps the
    // last state: the one after the events at that instant.
    const bool at_end = probe.at_s == scene.duration_s && t == scene.duration_s;
    if (!at_end && std::llround(t / scene.output_interval_s) != probe.output_index) continue;
    if (!at_end && std::abs(t - probe.at_s) > 1e-9 * std::max(scene.output_interval_s, t)) continue;
    const BodyState& state = sample.bodies[probe.body];
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

void RunMetrics::on_contact_start(const ContactStartEvent& event) {
  if (contact_probes_) {
    for (std::size_t p = 0; p < scene_->probes.size(); ++p) {
      const ProbeModel& probe = scene_->probes[p];
      if (probe.kind == ProbeModel::Kind::contact_extreme &&
          probe.pair.matches(event.geometry_a, event.geometry_b))
        ++probes_[p].contacts;
    }
  }
  const auto& selector = scene_->metrics.restitution_pair;
  if (!selector || impact_.started || !selector->matches(event.geometry_a, event.geometry_b))
    return;
  impact_.started = true;
  impact_.geometry_a = event.geometry_a;
  impact_.geometry_b = event.geometry_b;
  impact_.start_s = event.time_s;
  impact_.impact_velocity_m_per_s = event.impact_velocity_m_per_s;
}

void RunMetrics::on_contact_end(const ContactEndEvent& event) {
  if (contact_probes_) {
    for (std::size_t p = 0; p < scene_->probes.size(); ++p) {
      const ProbeModel& probe = scene_->probes[p];
      if (probe.kind != ProbeModel::Kind::contact_extreme ||
          probe.quantity != ProbeModel::Quantity::max_penetration ||
          !probe.pair.matches(event.geometry_a, event.geometry_b))
        continue;
      // The contact's deepest penetration over the accepted steps, which may fall between two
      // output times.
      ProbeResult& result = probes_[p];
      if (event.max_penetration_m > result.value) {
        result.value = event.max_penetration_m;
        result.time_s = std::numeric_limits<double>::quiet_NaN();
      }
    }
  }
  if (!impact_.started || impact_.ended || event.geometry_a != impact_.geometry_a ||
      event.geometry_b != impact_.geometry_b)
    return;
  impact_.ended = true;
  impact_.end_s = event.time_s;
  impact_.separation_velocity_m_per_s = event.separation_velocity_m_per_s;
  impact_.has_separation = std::isfinite(impact_.separation_velocity_m_per_s);
}

void RunMetrics::on_run_end(const RunSample& sample, const IntegrationResult& result) {
  const double deviation = std::abs(sample.energy_J - energy_initial_J_);
  if (deviation > energy_max_deviation_J_) {
    energy_max_deviation_J_ = deviation;
    energy_max_deviation_time_s_ = result.time_reached_s;
  }
}

}  // namespace contactlab::core
