#include "engelson_force_law.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <string>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

namespace {

std::string format_value(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

/// m* of the contact; throws unless finite and positive. Only the throwing path allocates.
double checked_mass(const ContactKinematics& contact) {
  const double mass_kg = contact.effective_mass_kg;
  if (!(std::isfinite(mass_kg) && mass_kg > 0.0)) {
    throw SimulationError("engelson force law needs a finite, positive effective mass m* (got " +
                          format_value(mass_kg) +
                          " kg): F = (1 + k·ẋ)·K·m*·x; a pair of two fixed bodies has none");
  }
  return mass_kg;
}

EngelsonCalibration parse_calibration(const std::string& name) {
  if (name == "exact") return EngelsonCalibration::exact;
  if (name == "fraction") return EngelsonCalibration::fraction;
  if (name == "cubic") return EngelsonCalibration::cubic;
  if (name == "given") return EngelsonCalibration::given;
  throw InputError("engelson force law: params.k_from_restitution is '" + name +
                   "'; expected one of exact, fraction, cubic, given");
}

// ---- ε(u): the dimensionless impact ÿ = −(1 + u·ẏ)·y, integrated by Dormand–Prince 5(4)
// ----------

struct Point {
  double y, w;  // position and velocity
};

Point rate(double u, const Point& p) {
  return {p.w, -(1.0 + u * p.w) * p.y};
}

/// One Dormand–Prince step of length h from p: the 5th-order solution, and the difference to the
/// embedded 4th-order one in `error`.
Point dopri_step(double u, const Point& p, double h, Point& error) {
  auto at = [&](std::initializer_list<std::pair<double, const Point*>> terms) {
    Point q = p;
    for (const auto& [a, k] : terms) {
      q.y += h * a * k->y;
      q.w += h * a * k->w;
    }
    return q;
  };
  const Point k1 = rate(u, p);
  const Point k2 = rate(u, at({{1.0 / 5.0, &k1}}));
  const Point k3 = rate(u, at({{3.0 / 40.0, &k1}, {9.0 / 40.0, &k2}}));
  const Point k4 = rate(u, at({{44.0 / 45.0, &k1}, {-56.0 / 15.0, &k2}, {32.0 / 9.0, &k3}}));
  const Point k5 = rate(u, at({{19372.0 / 6561.0, &k1},
                               {-25360.0 / 2187.0, &k2},
                               {64448.0 / 6561.0, &k3},
                               {-212.0 / 729.0, &k4}}));
  const Point k6 = rate(u, at({{9017.0 / 3168.0, &k1},
                               {-355.0 / 33.0, &k2},
                               {46732.0 / 5247.0, &k3},
                               {49.0 / 176.0, &k4},
                               {-5103.0 / 18656.0, &k5}}));
  const Point next = at({{35.0 / 384.0, &k1},
                         {500.0 / 1113.0, &k3},
                         {125.0 / 192.0, &k4},
                         {-2187.0 / 6784.0, &k5},
                         {11.0 / 84.0, &k6}});
  const Point k7 = rate(u, next);
  // b − b* of the embedded pair.
  constexpr double e1 = 71.0 / 57600.0, e3 = -71.0 / 16695.0, e4 = 71.0 / 1920.0,
                   e5 = -17253.0 / 339200.0, e6 = 22.0 / 525.0, e7 = -1.0 / 40.0;
  error.y = h * (e1 * k1.y + e3 * k3.y + e4 * k4.y + e5 * k5.y + e6 * k6.y + e7 * k7.y);
  error.w = h * (e1 * k1.w + e3 * k3.w + e4 * k4.w + e5 * k5.w + e6 * k6.w + e7 * k7.w);
  return next;
}

}  // namespace

double engelson_restitution(double u) {
  if (!(u >= 0.0 && std::isfinite(u))) {
    throw Error("engelson_restitution: u = v0·k must be finite and ≥ 0 (got " + format_value(u) +
                ")");
  }
  constexpr double rtol = 1e-12, atol = 1e-15;
  Point p{0.0, 1.0};
  // The fastest scale is the early braking of ẏ (time ~ 1/√u), then the damping rate u·y.
  double h = 1e-3 / std::max(1.0, std::sqrt(u));
  bool started = false;
  for (long attempt = 0; attempt < 10000000; ++attempt) {
    Point error;
    const Point next = dopri_step(u, p, h, error);
    const double scale_y = atol + rtol * std::max(std::abs(p.y), std::abs(next.y));
    const double scale_w = atol + rtol * std::max(std::abs(p.w), std::abs(next.w));
    const double err = std::max(std::abs(error.y) / scale_y, std::abs(error.w) / scale_w);
    const double factor = std::clamp(0.9 * std::pow(std::max(err, 1e-30), -0.2), 0.2, 5.0);
    if (err > 1.0) {
      h *= factor;
      continue;
    }
    if (started && next.y <= 0.0) {
      // y crossed 0 inside this step: Newton on the step length (a Dormand–Prince step of any
      // length from p is a 5th-order solution; dy/dh = ẏ).
      double length = h * p.y / (p.y - next.y);
      Point end = next;
      for (int i = 0; i < 20; ++i) {
        Point unused;
        end = dopri_step(u, p, length, unused);
        const double correction = end.y / end.w;
        length -= correction;
        if (std::abs(correction) <= 1e-16 * h) break;
      }
      end = dopri_step(u, p, length, error);
      return -end.w;
    }
    started = true;
    p = next;
    h *= factor;
  }
  throw Error("engelson_restitution: no separation for u = " + format_value(u));
}

namespace {

/// ε(e^s) on s ∈ [s_first, s_last], with its slopes dε/ds, for Hermite interpolation.
struct RestitutionTable {
  static constexpr double s_first = -14.0, s_last = 8.0, step = 0.05;
  static constexpr int size = 441;  // (s_last − s_first)/step + 1
  std::array<double, size> epsilon{};
  std::array<double, size> slope{};

  RestitutionTable() {
    // Two extra points beyond each end for the fourth-order central differences of the slopes.
    std::array<double, size + 4> values{};
    for (int i = 0; i < size + 4; ++i) {
      values[i] = engelson_restitution(std::exp(s_first + (i - 2) * step));
    }
    for (int i = 0; i < size; ++i) {
      const double* v = &values[i + 2];
      epsilon[i] = v[0];
      slope[i] = (-v[2] + 8.0 * v[1] - 8.0 * v[-1] + v[-2]) / (12.0 * step);
    }
  }
};

const RestitutionTable& restitution_table() {
  static const RestitutionTable table;  // built once, thread-safe
  return table;
}

}  // namespace

double engelson_u_exact(double epsilon) {
  const RestitutionTable& table = restitution_table();
  if (!(epsilon >= 1e-3 && epsilon <= 1.0)) {
    throw Error("engelson_u_exact: restitution " + format_value(epsilon) + " outside [0.001, 1]");
  }
  const double u_first = std::exp(RestitutionTable::s_first);
  if (epsilon >= table.epsilon[0]) {
    // ε(u) = 1 − (2/3)u + O(u²): linear between (0, 1) and the first table point.
    return u_first * (1.0 - epsilon) / (1.0 - table.epsilon[0]);
  }
  // ε decreases along the table: find i with ε_i ≥ ε > ε_{i+1}.
  int lo = 0, hi = RestitutionTable::size - 1;
  if (epsilon <= table.epsilon[hi]) return std::exp(RestitutionTable::s_last);
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    (table.epsilon[mid] >= epsilon ? lo : hi) = mid;
  }
  const double h = RestitutionTable::step;
  const double p0 = table.epsilon[lo], p1 = table.epsilon[hi];
  const double m0 = h * table.slope[lo], m1 = h * table.slope[hi];
  auto value = [&](double t) {
    const double t2 = t * t, t3 = t2 * t;
    return (2 * t3 - 3 * t2 + 1) * p0 + (t3 - 2 * t2 + t) * m0 + (-2 * t3 + 3 * t2) * p1 +
           (t3 - t2) * m1;
  };
  auto derivative = [&](double t) {
    const double t2 = t * t;
    return (6 * t2 - 6 * t) * p0 + (3 * t2 - 4 * t + 1) * m0 + (-6 * t2 + 6 * t) * p1 +
           (3 * t2 - 2 * t) * m1;
  };
  // Newton safeguarded by bisection on [a, b], value(a) ≥ ε ≥ value(b).
  double a = 0.0, b = 1.0, t = (p0 - epsilon) / (p0 - p1);
  for (int i = 0; i < 60; ++i) {
    const double f = value(t) - epsilon;
    (f > 0.0 ? a : b) = t;
    const double df = derivative(t);
    double next = df < 0.0 ? t - f / df : 0.5 * (a + b);
    if (!(next > a && next < b)) next = 0.5 * (a + b);
    if (std::abs(next - t) <= 1e-15) {
      t = next;
      break;
    }
    t = next;
  }
  return std::exp(RestitutionTable::s_first + (lo + t) * h);
}

double engelson_s_cubic(double n) {
  using complex = std::complex<double>;
  const complex T =
      -0.000833598 + 0.00193378 * n +
      0.00193378 * std::sqrt(complex(n - 0.983167)) * std::sqrt(complex(n + 0.121024));
  const complex cube_root = std::pow(T, 1.0 / 3.0);
  const complex s =
      0.620898 + complex(-0.163279, 0.282808) / cube_root - complex(15.6309, 27.0735) * cube_root;
  return s.real();
}

EngelsonForceLaw::EngelsonForceLaw(const ParameterValues& params)
    : stiffness_per_mass_per_s2_(params.real("stiffness_per_mass_per_s2")),
      calibration_(parse_calibration(params.text("k_from_restitution"))),
      given_damping_s_per_m_(params.real("damping_s_per_m")),
      threshold_m_(params.real("threshold_m")),
      min_impact_velocity_m_per_s_(params.real("min_impact_velocity_m_per_s")),
      min_restitution_(params.real("min_restitution")) {
  if (calibration_ != EngelsonCalibration::given && given_damping_s_per_m_ != 0.0) {
    throw InputError(
        "engelson force law: params.damping_s_per_m is " + format_value(given_damping_s_per_m_) +
        " but only k_from_restitution: given uses it (k_from_restitution is '" +
        params.text("k_from_restitution") + "', which derives k from the restitution)");
  }
  if (calibration_ == EngelsonCalibration::exact)
    restitution_table();  // build it now, not in a step
}

ParameterSchema EngelsonForceLaw::schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec stiffness =
      real_parameter("stiffness_per_mass_per_s2", 1e6, 0.0, inf, "1/s^2",
                     "Penalty K per unit mass in F = (1 + k·ẋ)·K·m*·x; contacts last about π/√K.");
  stiffness.minimum_exclusive = true;
  stiffness.maximum_exclusive = true;
  ParameterSpec damping =
      real_parameter("damping_s_per_m", 0.0, 0.0, inf, "s/m",
                     "Damping coefficient k for k_from_restitution: given (0: elastic).");
  damping.maximum_exclusive = true;
  ParameterSpec threshold = real_parameter(
      "threshold_m", 0.0, 0.0, inf, "m",
      "Engelson's threshold T: x = T − d (signed distance d), so the contact acts from d < T.");
  threshold.maximum_exclusive = true;
  ParameterSpec v_min = real_parameter(
      "min_impact_velocity_m_per_s", 1e-3, 0.0, inf, "m/s",
      "Impact speeds below this (contacts born at rest) are treated as this speed in k(ε, v₀).");
  v_min.minimum_exclusive = true;
  v_min.maximum_exclusive = true;
  ParameterSpec e_min =
      real_parameter("min_restitution", 1e-3, 1e-3, 1.0, "",
                     "exact and fraction use max(ε, min_restitution), as their k grows like 1/ε.");
  return {stiffness,
          choice_parameter("k_from_restitution", "exact", {"exact", "fraction", "cubic", "given"},
                           "k from the pair's restitution ε and impact speed v₀: exact inversion "
                           "of ε(v₀·k), (1−ε)/(ε·v₀), the paper's log-cubic fit, or given."),
          damping,
          threshold,
          v_min,
          e_min};
}

ForceLawRequirements EngelsonForceLaw::requirements() const {
  return {};
}

double EngelsonForceLaw::damping_s_per_m(const ContactKinematics& contact) const {
  if (calibration_ == EngelsonCalibration::given) return given_damping_s_per_m_;
  const double restitution = contact.material.restitution;
  if (!(restitution >= 0.0 && restitution <= 1.0)) {
    throw SimulationError("engelson force law: the pair material's restitution is " +
                          format_value(restitution) + "; it must lie in [0, 1]");
  }
  const double v0 = std::max(contact.impact_velocity_m_per_s, min_impact_velocity_m_per_s_);
  switch (calibration_) {
    case EngelsonCalibration::exact:
      return engelson_u_exact(std::max(restitution, min_restitution_)) / v0;
    case EngelsonCalibration::fraction: {
      // Sec. 4.6 prints k = 1/(v₀ε) − 1/ε; solving ε = 1/(1 + v₀k) gives (1−ε)/(ε·v₀), which his
      // Modelica code of Sec. 7.1 uses.
      const double e = std::max(restitution, min_restitution_);
      return (1.0 - e) / (e * v0);
    }
    case EngelsonCalibration::cubic:
      return std::exp(engelson_s_cubic(restitution)) / v0;
    case EngelsonCalibration::given:
      break;
  }
  return given_damping_s_per_m_;
}

void EngelsonForceLaw::on_birth(const ContactKinematics& contact, LawMemory& memory) const {
  memory.data[0] = damping_s_per_m(contact);
  memory.data[1] = contact.material.restitution;
  memory.data[2] = std::max(contact.impact_velocity_m_per_s, min_impact_velocity_m_per_s_);
  memory.mode = born_mode;
}

double EngelsonForceLaw::compression_m(const ContactKinematics& contact) const {
  if (threshold_m_ == 0.0) return std::max(0.0, contact.penetration_m);
  // Sec. 6.6: T − d apart, T + |c| penetrating — the same line in the signed distance.
  return std::max(0.0, threshold_m_ - contact.distance_m);
}

double EngelsonForceLaw::normal_force(const ContactKinematics& contact,
                                      const ContactState& state) const {
  const double mass_kg = checked_mass(contact);
  const double k = state.law.mode == born_mode ? state.law.data[0] : damping_s_per_m(contact);
  const double x = compression_m(contact);
  return std::max(
      0.0, (1.0 + k * contact.penetration_rate_m_per_s) * stiffness_per_mass_per_s2_ * mass_kg * x);
}

double EngelsonForceLaw::potential_energy(const ContactKinematics& contact) const {
  const double x = compression_m(contact);
  const double mass_kg = checked_mass(contact);
  return 0.5 * stiffness_per_mass_per_s2_ * mass_kg * x * x;
}

}  // namespace contactlab::plugins
