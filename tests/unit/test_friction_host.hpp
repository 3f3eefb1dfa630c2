// A minimal host for friction-law unit tests: one block sliding along x on a fixed plane (normal
// +z), integrated with classical RK4 at a fixed small step. It drives a Friction the way the
// simulation host does through the ContactLaw hooks: on_birth at the start, the law's continuous
// states appended to the ODE state and integrated from continuous_rate(), compute() for the force,
// and event functions armed while positive, located by bisection of the step when an armed one
// becomes ≤ 0, then on_event() at the first state past the crossing.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <span>
#include <vector>

#include <contactlab/friction.hpp>

namespace friction_test {

inline constexpr double gravity_m_per_s2 = 9.81;

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
