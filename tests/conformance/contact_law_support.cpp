// The ContactLaw checks and driver the force-law and friction suites share (see
// contact_law_support.hpp).
#include "contact_law_support.hpp"

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <limits>

#include "conformance_support.hpp"

namespace contactlab::conformance {

namespace {

constexpr double sentinel = -7.25e300;  // a value no law writes

}  // namespace

ContactLawLayout checked_layout(const ContactLaw& law) {
  const ContactLawLayout layout = law.layout();
  if (layout.continuous_states < 0 || layout.continuous_states > max_law_continuous_states ||
      layout.event_functions < 0 || layout.event_functions > max_law_event_functions)
    fail("layout() declares " + std::to_string(layout.continuous_states) +
         " continuous states and " + std::to_string(layout.event_functions) +
         " event functions; the SDK allows 0 to " + std::to_string(max_law_continuous_states) +
         " and 0 to " + std::to_string(max_law_event_functions));
  for (int call = 0; call < 3; ++call) {
    const ContactLawLayout again = law.layout();
    if (again.continuous_states != layout.continuous_states ||
        again.event_functions != layout.event_functions)
      fail("layout() changed between calls (it must be constant for the law's lifetime)");
  }
  for (int i = 0; i < layout.event_functions; ++i) {
    const char* name = law.event_name(i);
    if (name == nullptr || *name == '\0')
      fail("event_name(" + std::to_string(i) + ") is empty; events.csv needs a name");
  }
  return layout;
}

void check_hook_outputs(const ContactLaw& law, const ContactLawLayout& layout,
                        const ContactKinematics& contact, double normal_force_N,
                        const LawMemory& memory, const std::string& where) {
  // The hooks get spans of exactly the declared size; the buffers behind them are larger, so a
  // write past the end lands on a sentinel instead of corrupting the suite.
  std::array<double, 2 * max_law_event_functions + 2> buffer;
  auto check = [&](const char* hook, int declared) {
    for (int i = 0; i < declared; ++i)
      if (!std::isfinite(buffer[i]) || buffer[i] == sentinel)
        fail(where + ": " + hook + " left value " + std::to_string(i) + " of " +
             std::to_string(declared) + " " +
             (buffer[i] == sentinel ? "unwritten" : "non-finite (" + number(buffer[i]) + ")"));
    for (std::size_t i = static_cast<std::size_t>(declared); i < buffer.size(); ++i)
      if (buffer[i] != sentinel)
        fail(where + ": " + hook + " wrote value " + std::to_string(i) + ", past the " +
             std::to_string(declared) + " that layout() declares");
  };
  buffer.fill(sentinel);
  law.continuous_rate(contact, normal_force_N, memory,
                      std::span<double>(buffer.data(), layout.continuous_states));
  check("continuous_rate()", layout.continuous_states);
  buffer.fill(sentinel);
  law.event_functions(contact, normal_force_N, memory,
                      std::span<double>(buffer.data(), layout.event_functions));
  check("event_functions()", layout.event_functions);
}

LawMemory born(const ContactLaw& law, const ContactKinematics& birth) {
  LawMemory memory;
  law.on_birth(birth, memory);
  return memory;
}

ContactKinematics steel_contact() {
  ContactKinematics k;
  k.effective_radius_m = 0.05;
  k.effective_modulus_Pa = 1.15e11;
  k.effective_mass_kg = 1.0;
  k.normal_W = Vec3::UnitZ();
  k.material.restitution = 0.8;
  k.material.friction_kinetic = 0.3;
  k.material.friction_static = 0.5;
  k.material.rolling_friction = 0.01;
  return k;
}

std::string describe(const ContactKinematics& k) {
  return "(t = " + number(k.time_s) + " s, distance = " + number(k.distance_m) +
         " m, δ = " + number(k.penetration_m) + " m, δ̇ = " + number(k.penetration_rate_m_per_s) +
         " m/s, v_impact = " + number(k.impact_velocity_m_per_s) +
         " m/s, R* = " + number(k.effective_radius_m) +
         " m, E* = " + number(k.effective_modulus_Pa) + " Pa, m* = " + number(k.effective_mass_kg) +
         " kg, n = " + vector_text(k.normal_W) + ", slip = " + vector_text(k.slip_velocity_W) +
         " m/s, ω_rel = " + vector_text(k.relative_angular_velocity_W) +
         " rad/s, e = " + number(k.material.restitution) +
         ", μ_k = " + number(k.material.friction_kinetic) +
         ", μ_s = " + number(k.material.friction_static) +
         ", μ_r = " + number(k.material.rolling_friction) + ")";
}

void drive(const ContactLaw& law, const ContactLawLayout& layout, LawMemory& memory,
           const DrivenContact& contact, double t_end, int steps,
           const std::function<void(double, const ContactKinematics&, const LawMemory&)>& visit) {
  const int n = layout.continuous_states;
  const int events = layout.event_functions;
  const double h = t_end / steps;
  std::array<double, max_law_event_functions> g{}, g_now{};
  auto evaluate_events = [&](const ContactKinematics& k, std::array<double, 4>& out) {
    law.event_functions(k, contact.normal_force(k, memory), memory,
                        std::span<double>(out.data(), events));
  };
  // The rates at `x` (the memory's states replaced), for backward Euler.
  auto rate = [&](const ContactKinematics& k, const Eigen::Vector4d& x) {
    LawMemory trial = memory;
    for (int i = 0; i < n; ++i) trial.x[i] = x[i];
    std::array<double, max_law_continuous_states> r{};
    law.continuous_rate(k, contact.normal_force(k, trial), trial, std::span<double>(r.data(), n));
    Eigen::Vector4d out = Eigen::Vector4d::Zero();
    for (int i = 0; i < n; ++i) {
      if (!std::isfinite(r[i]))
        fail("continuous_rate() value " + std::to_string(i) + " is " + number(r[i]) + " at " +
             describe(k));
      out[i] = r[i];
    }
    return out;
  };
  evaluate_events(contact.kinematics(0.0), g);
  for (int step = 1; step <= steps; ++step) {
    const double t = step * h;
    const ContactKinematics k = contact.kinematics(t);
    if (n > 0) {
      Eigen::Vector4d x_start = Eigen::Vector4d::Zero();
      for (int i = 0; i < n; ++i) x_start[i] = memory.x[i];
      Eigen::Vector4d x = x_start;
      for (int iteration = 0; iteration < 20; ++iteration) {
        // Newton on x − x_start − h·r(x) = 0; the unused states have identity rows (their rates
        // are zero), so the system stays 4 × 4.
        const Eigen::Vector4d r0 = rate(k, x);
        const Eigen::Vector4d residual = x - x_start - h * r0;
        Eigen::Matrix4d jacobian = Eigen::Matrix4d::Identity();
        for (int j = 0; j < n; ++j) {
          Eigen::Vector4d shifted = x;
          const double dx = 1e-7 * std::max(1e-6, std::abs(x[j]));
          shifted[j] += dx;
          jacobian.col(j) -= h * (rate(k, shifted) - r0) / dx;
        }
        const Eigen::Vector4d delta = jacobian.partialPivLu().solve(-residual);
        x += delta;
        if (delta.norm() <= 1e-14 * (1.0 + x.norm())) break;
      }
      for (int i = 0; i < n; ++i) memory.x[i] = x[i];
    }
    if (events > 0) {
      evaluate_events(k, g_now);
      for (int i = 0; i < events; ++i) {
        if (!std::isfinite(g_now[i]))
          fail("event_functions() value " + std::to_string(i) + " is " + number(g_now[i]) + " at " +
               describe(k));
        if (g[i] > 0.0 && g_now[i] <= 0.0)
          law.on_event(i, k, contact.normal_force(k, memory), memory);
      }
      evaluate_events(k, g);
    }
    visit(t, k, memory);
  }
}

}  // namespace contactlab::conformance
