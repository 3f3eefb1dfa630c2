// A minimal host for friction-law unit tests: one block sliding along x on a fixed plane (normal
// +z), integrated with classical RK4 at a fixed small step. It drives a Friction the way the
// simulation host does through the ContactLaw hooks: on_birth at the start, the law's continuous
// states appended to the ODE state and integrated from continuous_rate(), compute() for the force,
// and event functions armed while positive, located by bisection of the step when an armed one
// becomes ≤ 0, then on_event() at the first state past the crossing. Also the setup the
// friction-law tests share: a sliding contact, a law's memory, its rates, its schema by name, and
// the block on an incline.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <contactlab/friction.hpp>
#include <contactlab/parameters.hpp>

namespace friction_test {

inline constexpr double gravity_m_per_s2 = 9.81;

/// A contact on the plane z = 0 (normal +z, R* = 0.05 m) slipping at slip_W, with the pair's
/// static and kinetic friction coefficients μ_s and μ_k.
inline contactlab::ContactKinematics sliding(const contactlab::Vec3& slip_W, double mu_s,
                                             double mu_k) {
  contactlab::ContactKinematics contact;
  contact.normal_W = contactlab::Vec3::UnitZ();
  contact.slip_velocity_W = slip_W;
  contact.material.friction_static = mu_s;
  contact.material.friction_kinetic = mu_k;
  contact.effective_radius_m = 0.05;
  return contact;
}

/// A contact state whose friction memory holds the continuous states x[0..2] = x_W and `mode`.
inline contactlab::ContactState friction_state(const contactlab::Vec3& x_W, int mode = 0) {
  contactlab::ContactState state;
  state.friction.x = {x_W.x(), x_W.y(), x_W.z(), 0.0};
  state.friction.mode = mode;
  return state;
}

/// The rates of a law's first three continuous states (continuous_rate()) at `state`.
inline contactlab::Vec3 rate_of(const contactlab::Friction& law,
                                const contactlab::ContactKinematics& contact, double normal_force_N,
                                const contactlab::ContactState& state) {
  std::array<double, 3> rate{};
  law.continuous_rate(contact, normal_force_N, state.friction, std::span<double>(rate));
  return contactlab::Vec3(rate[0], rate[1], rate[2]);
}

/// A law's schema keyed by parameter name.
inline std::map<std::string, contactlab::ParameterSpec> schema_by_name(
    const contactlab::ParameterSchema& schema) {
  std::map<std::string, contactlab::ParameterSpec> by_name;
  for (const auto& spec : schema) by_name[spec.name] = spec;
  return by_name;
}

/// The block: mass, the (constant) normal force pressing it on the plane, the pair material and
/// the applied tangential force along +x besides friction (gravity along the slope, a spring...).
struct Block {
  double mass_kg = 1.0;
  double normal_force_N = gravity_m_per_s2;
  contactlab::PairMaterial material;
  std::function<double(double t, double x, double v)> applied_force_N = [](double, double, double) {
    return 0.0;
  };
};

/// The block on an incline at angle θ: normal force m·g·cos θ, pulled down the slope (+x) by
/// m·g·sin θ, on a pair with friction coefficients μ_s and μ_k.
inline Block incline(double theta, double mu_s, double mu_k, double mass_kg = 1.0) {
  Block block;
  block.mass_kg = mass_kg;
  block.normal_force_N = mass_kg * gravity_m_per_s2 * std::cos(theta);
  block.material.friction_static = mu_s;
  block.material.friction_kinetic = mu_k;
  const double drive = mass_kg * gravity_m_per_s2 * std::sin(theta);
  block.applied_force_N = [drive](double, double, double) { return drive; };
  return block;
}

/// One recorded state: time, position and velocity of the block, the friction force on it along
/// x, the law's continuous states and its mode.
struct Sample {
  double t = 0.0;
  double x = 0.0;
  double v = 0.0;
  double friction_N = 0.0;
  std::array<double, contactlab::max_law_continuous_states> law_x{};
  int mode = 0;
};

struct EventRecord {
  double t = 0.0;
  int index = 0;
  int mode_after = 0;
};

class BlockHost {
 public:
  static constexpr int max_states = 2 + contactlab::max_law_continuous_states;
  using State = std::array<double, max_states>;

  BlockHost(const contactlab::Friction& law, Block block, bool handle_events = true)
      : law_(law),
        block_(std::move(block)),
        handle_events_(handle_events),
        nx_(law.layout().continuous_states),
        ng_(law.layout().event_functions) {}

  /// The contact is born at t0 with the block at x0 moving at v0.
  void birth(double t0, double x0, double v0) {
    t_ = t0;
    y_.fill(0.0);
    y_[0] = x0;
    y_[1] = v0;
    state_ = contactlab::ContactState{};
    state_.birth_time_s = t0;
    law_.on_birth(kinematics(t0, y_), state_.friction);
    for (int i = 0; i < nx_; ++i) y_[2 + i] = state_.friction.x[i];
    rearm();
  }

  /// Integrates to t_end with step h, calling observer after every step (and once at the start).
  void run(double t_end, double h, const std::function<void(const Sample&)>& observer) {
    if (observer) observer(sample(t_, y_));
    while (t_ < t_end - 1e-12 * h) {
      const double step = std::min(h, t_end - t_);
      State next = rk4(t_, y_, step);
      if (handle_events_ && ng_ > 0 && any_fired(t_ + step, next)) {
        // Bisection on the step length for the first state at which an armed function is ≤ 0.
        double lo = 0.0, hi = step;
        for (int iteration = 0; iteration < 200 && hi - lo > 1e-15 * (1.0 + t_); ++iteration) {
          const double mid = 0.5 * (lo + hi);
          if (any_fired(t_ + mid, rk4(t_, y_, mid)))
            hi = mid;
          else
            lo = mid;
        }
        next = rk4(t_, y_, hi);
        t_ += hi;
        y_ = next;
        std::array<double, contactlab::max_law_event_functions> g{};
        event_values(t_, y_, g);
        const contactlab::ContactKinematics contact = kinematics(t_, y_);
        load_memory(y_);
        for (int i = 0; i < ng_; ++i) {
          if (armed_[i] && g[i] <= 0.0) {
            law_.on_event(i, contact, block_.normal_force_N, state_.friction);
            events.push_back({t_, i, state_.friction.mode});
          }
        }
        for (int i = 0; i < nx_; ++i) y_[2 + i] = state_.friction.x[i];
        rearm();
      } else {
        t_ += step;
        y_ = next;
        if (handle_events_) update_arming(t_, y_);
      }
      if (observer) observer(sample(t_, y_));
    }
  }

  double time() const { return t_; }
  const State& state() const { return y_; }
  const contactlab::ContactState& contact_state() const { return state_; }
  std::vector<EventRecord> events;

 private:
  contactlab::ContactKinematics kinematics(double t, const State& y) const {
    contactlab::ContactKinematics contact;
    contact.time_s = t;
    contact.normal_W = contactlab::Vec3::UnitZ();
    contact.slip_velocity_W = contactlab::Vec3(y[1], 0.0, 0.0);
    contact.material = block_.material;
    contact.effective_radius_m = 0.05;
    return contact;
  }
  void load_memory(const State& y) {
    for (int i = 0; i < nx_; ++i) state_.friction.x[i] = y[2 + i];
  }
  double friction_force(double t, const State& y) {
    load_memory(y);
    return law_.compute(kinematics(t, y), block_.normal_force_N, state_).force_W.x();
  }
  State derivative(double t, const State& y) {
    State rate{};
    const double friction = friction_force(t, y);
    rate[0] = y[1];
    rate[1] = (block_.applied_force_N(t, y[0], y[1]) + friction) / block_.mass_kg;
    if (nx_ > 0) {
      std::array<double, contactlab::max_law_continuous_states> law_rate{};
      law_.continuous_rate(kinematics(t, y), block_.normal_force_N, state_.friction,
                           std::span<double>(law_rate.data(), nx_));
      for (int i = 0; i < nx_; ++i) rate[2 + i] = law_rate[i];
    }
    return rate;
  }
  State rk4(double t, const State& y, double h) {
    auto add = [](const State& a, const State& b, double s) {
      State r;
      for (int i = 0; i < max_states; ++i) r[i] = a[i] + s * b[i];
      return r;
    };
    const State k1 = derivative(t, y);
    const State k2 = derivative(t + 0.5 * h, add(y, k1, 0.5 * h));
    const State k3 = derivative(t + 0.5 * h, add(y, k2, 0.5 * h));
    const State k4 = derivative(t + h, add(y, k3, h));
    State r;
    for (int i = 0; i < max_states; ++i)
      r[i] = y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    return r;
  }
  void event_values(double t, const State& y,
                    std::array<double, contactlab::max_law_event_functions>& g) {
    load_memory(y);
    law_.event_functions(kinematics(t, y), block_.normal_force_N, state_.friction,
                         std::span<double>(g.data(), ng_));
  }
  bool any_fired(double t, const State& y) {
    std::array<double, contactlab::max_law_event_functions> g{};
    event_values(t, y, g);
    for (int i = 0; i < ng_; ++i)
      if (armed_[i] && g[i] <= 0.0) return true;
    return false;
  }
  void update_arming(double t, const State& y) {
    std::array<double, contactlab::max_law_event_functions> g{};
    event_values(t, y, g);
    for (int i = 0; i < ng_; ++i)
      if (g[i] > 0.0) armed_[i] = true;
  }
  void rearm() {
    armed_.fill(false);
    if (ng_ > 0) update_arming(t_, y_);
  }
  Sample sample(double t, const State& y) {
    Sample s;
    s.t = t;
    s.x = y[0];
    s.v = y[1];
    s.friction_N = friction_force(t, y);
    for (int i = 0; i < nx_; ++i) s.law_x[i] = y[2 + i];
    s.mode = state_.friction.mode;
    return s;
  }

  const contactlab::Friction& law_;
  Block block_;
  bool handle_events_;
  int nx_;
  int ng_;
  double t_ = 0.0;
  State y_{};
  contactlab::ContactState state_;
  std::array<bool, contactlab::max_law_event_functions> armed_{};
};

}  // namespace friction_test
