// Shared support of the force-law unit tests: schema lookup, the steel ball on a steel plate of
// tests/validation/scene_fixture.hpp, classical RK4 steps with step-length bisection (the host's
// way of locating an event inside a step), and a 1-DOF impact driver m·δ̈ = −f(δ, δ̇) that runs
// until the contact separates and locates the separation inside the last step.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <string>

#include <catch2/catch.hpp>

#include <contactlab/contact.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::testing {

// ---- schemas ------------------------------------------------------------------------------------

/// The parameter `name` of `schema`; fails the test when there is none.
inline const ParameterSpec& spec_named(const ParameterSchema& schema, const std::string& name) {
  for (const auto& spec : schema) {
    if (spec.name == name) return spec;
  }
  FAIL("no parameter " << name);
  return schema.front();
}

// ---- the steel ball -----------------------------------------------------------------------------

/// The steel ball of tests/validation/scene_fixture.hpp: Steel (ρ = 8000 kg/m³, E = 200 GPa,
/// ν = 0.3) on both sides, E* = E/(2·(1 − ν²)) (Neumayr eq. 7.2) [Pa].
inline constexpr double steel_E_star_Pa = 1.0 / (2.0 * (1.0 - 0.09) / 2.0e11);
/// A sphere of radius 0.05 m on a fixed steel plate: R* of sphere–plane (Modia's R_geo) [m].
inline constexpr double ball_radius_m = 0.05;
/// The ball's mass, which is the pair's m* (the plate is fixed) [kg].
inline const double ball_mass_kg =
    8000.0 * 4.0 / 3.0 * std::numbers::pi * ball_radius_m * ball_radius_m * ball_radius_m;
/// Hertz' stiffness k = (4/3)·E*·√R* of the pair (Neumayr eq. 7.1) [N/m^1.5].
inline const double steel_hertz_k = (4.0 / 3.0) * steel_E_star_Pa * std::sqrt(ball_radius_m);

/// The ball's contact at penetration δ (distance −δ) with rate δ̇, born at `impact_m_per_s`, with
/// the pair restitution `restitution`.
inline ContactKinematics steel_contact(double delta_m, double rate_m_per_s, double impact_m_per_s,
                                       double restitution) {
  ContactKinematics contact;
  contact.distance_m = -delta_m;
  contact.penetration_m = std::max(0.0, delta_m);
  contact.penetration_rate_m_per_s = rate_m_per_s;
  contact.impact_velocity_m_per_s = impact_m_per_s;
  contact.effective_modulus_Pa = steel_E_star_Pa;
  contact.effective_radius_m = ball_radius_m;
  contact.effective_mass_kg = ball_mass_kg;
  contact.material.restitution = restitution;
  return contact;
}

// ---- RK4 ----------------------------------------------------------------------------------------

/// One classical RK4 step of ẏ = rate(y) over h from y, given k1 = rate(y).
template <std::size_t N, class Rate>
std::array<double, N> rk4_step(const Rate& rate, const std::array<double, N>& y,
                               const std::array<double, N>& k1, double h) {
  auto axpy = [](const std::array<double, N>& a, double s, const std::array<double, N>& b) {
    std::array<double, N> out;
    for (std::size_t i = 0; i < N; ++i) out[i] = a[i] + s * b[i];
    return out;
  };
  const std::array<double, N> k2 = rate(axpy(y, 0.5 * h, k1));
  const std::array<double, N> k3 = rate(axpy(y, 0.5 * h, k2));
  const std::array<double, N> k4 = rate(axpy(y, h, k3));
  std::array<double, N> out;
  for (std::size_t i = 0; i < N; ++i)
    out[i] = y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  return out;
}

/// One classical RK4 step of ẏ = rate(y) over h from y.
template <std::size_t N, class Rate>
std::array<double, N> rk4_step(const Rate& rate, const std::array<double, N>& y, double h) {
  return rk4_step(rate, y, rate(y), h);
}

/// The shortest step length in (0, h] after which `fired(step)` holds (fired(h) must), by bisection
/// of the step length while the bracket is wider than relative_tolerance·h (at most 200 halvings);
/// returns the bracket's upper end, where fired holds.
template <class Fired>
double first_firing_step(const Fired& fired, double h, double relative_tolerance) {
  double lo = 0.0;
  double hi = h;
  for (int iteration = 0; iteration < 200 && hi - lo > relative_tolerance * h; ++iteration) {
    const double mid = 0.5 * (lo + hi);
    (fired(mid) ? hi : lo) = mid;
  }
  return hi;
}

// ---- 1-DOF impact -------------------------------------------------------------------------------

/// How integrate_impact() locates the separation inside the step in which δ returns to ≤ 0.
enum class Separation {
  /// Cubic Hermite interpolation of δ over the step (values δ, slopes δ̇ at both ends), its zero by
  /// bisection, and the exit velocity from the Hermite interpolation of δ̇ (slopes δ̈ = −f/m).
  hermite,
  /// Bisection of the step length, integrating again from the step's start (first_firing_step,
  /// relative 1e-14); the exit velocity is the integrated δ̇ there.
  bisect_step,
};

struct ImpactResult {
  bool separated = false;
  double exit_velocity_m_per_s = 0.0;  ///< δ̇ at δ = 0 (< 0 when rebounding)
  double duration_s = 0.0;             ///< time of the separation
  /// Extremes over the states after each step while the contact lasts (δ > 0).
  double max_penetration_m = 0.0;
  double max_force_N = 0.0;
  double min_force_N = std::numeric_limits<double>::infinity();
};

/// One free 1-DOF impact: m·δ̈ = −f(δ, δ̇), δ(0) = 0, δ̇(0) = v₀ > 0, integrated with classical RK4
/// at the fixed step h (at most max_steps steps) until δ returns to ≤ 0; the separation is located
/// inside that step as `locate` says. `force(δ, δ̇)` is the force law's f [N].
template <class Force>
ImpactResult integrate_impact(const Force& force, double mass_kg, double v0, double h,
                              long max_steps, Separation locate = Separation::hermite) {
  using State = std::array<double, 2>;  // (δ, δ̇)
  auto rate = [&](const State& y) { return State{y[1], -force(y[0], y[1]) / mass_kg}; };
  ImpactResult result;
  State y{0.0, v0};
  double f = force(y[0], y[1]);
  double t = 0.0;
  for (long step = 0; step < max_steps; ++step) {
    const State k1{y[1], -f / mass_kg};
    const State y1 = rk4_step(rate, y, k1, h);
    if (step > 0 && y1[0] <= 0.0) {
      result.separated = true;
      if (locate == Separation::bisect_step) {
        const double crossing = first_firing_step(
            [&](double s) { return rk4_step(rate, y, k1, s)[0] <= 0.0; }, h, 1e-14);
        result.exit_velocity_m_per_s = rk4_step(rate, y, k1, crossing)[1];
        result.duration_s = t + crossing;
        return result;
      }
      const double a0 = k1[1];
      const double a1 = -force(std::max(y1[0], 0.0), y1[1]) / mass_kg;
      // Hermite basis on θ ∈ [0, 1]; find θ with δ(θ) = 0 by bisection (δ(0) > 0 ≥ δ(1)).
      auto hermite = [&](double p0, double m0, double p1, double m1, double s) {
        const double s2 = s * s, s3 = s2 * s;
        return (2 * s3 - 3 * s2 + 1) * p0 + (s3 - 2 * s2 + s) * h * m0 + (-2 * s3 + 3 * s2) * p1 +
               (s3 - s2) * h * m1;
      };
      double lo = 0.0, hi = 1.0;
      for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        (hermite(y[0], y[1], y1[0], y1[1], mid) > 0.0 ? lo : hi) = mid;
      }
      const double theta = 0.5 * (lo + hi);
      result.exit_velocity_m_per_s = hermite(y[1], a0, y1[1], a1, theta);
      result.duration_s = t + theta * h;
      return result;
    }
    y = y1;
    t += h;
    f = force(y[0], y[1]);
    result.max_penetration_m = std::max(result.max_penetration_m, y[0]);
    result.max_force_N = std::max(result.max_force_N, f);
    result.min_force_N = std::min(result.min_force_N, f);
  }
  return result;
}

/// The steel ball's impact at v₀ with pair restitution e through `law`.normal_force() (the law sees
/// δ, δ̇, the impact speed and the material as the host gives them; a default ContactState).
template <class Law>
ImpactResult steel_ball_impact(const Law& law, double v0, double restitution, double h,
                               long max_steps) {
  const ContactState state;
  auto force = [&](double x, double v) {
    return law.normal_force(steel_contact(x, v, v0, restitution), state);
  };
  return integrate_impact(force, ball_mass_kg, v0, h, max_steps);
}

/// The exact restitution ε of a free impact under f = k·δⁿ·(1 + d·δ̇) as long as f ≥ 0 (the clamp
/// never acts: δ̈ = 0 at δ̇ = −1/d, so δ̇ cannot pass it), with u = d·v₀. Phase plane:
/// m·δ̇·dδ̇/(1 + d·δ̇) = −k·δⁿ·dδ, and δ returns to 0, so ∫ from v₀ to −εv₀ of w/(1 + d·w) dw = 0:
///   u·(1 + ε) = ln((1 + u)/(1 − u·ε)),
/// whatever n, k and m. h(ε) = ln((1 + u)/(1 − uε)) − u(1 + ε) rises from ln(1 + u) − u < 0 at
/// ε = 0 to +∞ as ε → 1/u (h′ = u²ε/(1 − uε) > 0), and h(1) > 0 when u < 1: bisection.
inline double hc_exact_restitution(double u) {
  double lo = 0.0, hi = std::min(1.0, 1.0 / u);
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    const double h = std::log((1.0 + u) / (1.0 - u * mid)) - u * (1.0 + mid);
    (h < 0.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace contactlab::testing
