#include "engelson_force_law.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include <contactlab/errors.hpp>
#include <contactlab/law_support.hpp>

namespace contactlab::plugins {

namespace {

/// m* of the contact; throws unless finite and positive. Only the throwing path allocates.
double checked_mass(const ContactKinematics& contact) {
  const double mass_kg = contact.effective_mass_kg;
  if (!(std::isfinite(mass_kg) && mass_kg > 0.0)) {
    throw SimulationError("engelson force law needs a finite, positive effective mass m* (got " +
                          format_number(mass_kg) +
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

/// G(w) = w − ln(1 + w) = ∫₀^w s/(1 + s) ds for w > −1, accurate to rounding also for small |w|
/// (where w and ln(1 + w) cancel): the power series w²/2 − w³/3 + … below |w| = 0.1.
double hysteresis_integral(double w) {
  if (std::abs(w) >= 0.1) return w - std::log1p(w);
  double sum = 0.0, power = w * w;
  for (int j = 2; j < 40; ++j) {
    const double term = power / j;
    sum += (j % 2 == 0) ? term : -term;
    if (std::abs(term) <= 1e-18 * std::abs(sum)) break;
    power *= w;
  }
  return sum;
}

}  // namespace

double engelson_restitution(double u) {
  if (!(u >= 0.0 && std::isfinite(u))) {
    throw Error("engelson_restitution: u = v0·k must be finite and ≥ 0 (got " + format_number(u) +
                ")");
  }
  // 1 − (2/3)u + (4/9)u² − …: below 1e-100 the difference to 1 is not representable.
  if (u < 1e-100) return 1.0;
  // Solve G(−w) = G(u) for w = u·ε ∈ (0, min(u, 1)): G(−w) = −w − ln(1 − w) rises from 0 to ∞ on
  // [0, 1) and G(−u) ≥ G(u), so the root is bracketed. Newton (dG(−w)/dw = w/(1 − w)) safeguarded
  // by bisection.
  const double target = hysteresis_integral(u);
  double lo = 0.0, hi = std::min(u, 1.0);
  double w = std::min(0.5 * hi, std::sqrt(2.0 * target));  // G(−w) ≈ w²/2 for small w
  for (int i = 0; i < 200; ++i) {
    const double f = hysteresis_integral(-w) - target;
    (f < 0.0 ? lo : hi) = w;
    const double slope = w / (1.0 - w);
    double next = slope > 0.0 ? w - f / slope : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::abs(next - w) <= 1e-15 * w) {
      w = next;
      break;
    }
    w = next;
  }
  return w / u;
}

namespace {

/// R(u) = (G(u) − G(−u·ε))/u² and dR/du, for the inversion ε → u. Its root in (0, 1/ε) is the u
/// with ε(u) = ε: R(0⁺) = (1 − ε²)/2 > 0 and R → −∞ as u → 1/ε. Below u = 0.1 from the series
/// R = Σ_{j≥2} ((−1)^j − ε^j)·u^{j−2}/j (no cancellation as u → 0), above from the logarithms.
void inversion_residual(double u, double epsilon, double& value, double& slope) {
  if (u < 0.1) {
    value = 0.0;
    slope = 0.0;
    double u_power = 1.0, e_power = epsilon * epsilon,
           one_minus_e_power = (1.0 - epsilon) * (1.0 + epsilon);
    for (int j = 2; j < 60; ++j) {
      // (−1)^j − ε^j, with 1 − ε^j = (1 − ε)(1 + ε + … + ε^{j−1}) kept exact for even j.
      const double coefficient = (j % 2 == 0) ? one_minus_e_power : -1.0 - e_power;
      const double term = coefficient * u_power / j;
      value += term;
      if (j >= 3) slope += coefficient * (j - 2) * (u_power / u) / j;
      if (j > 3 && std::abs(term) <= 1e-18 * std::abs(value)) break;
      u_power *= u;
      one_minus_e_power = one_minus_e_power * epsilon + (1.0 - epsilon);  // 1 − ε^{j+1}
      e_power *= epsilon;
    }
    return;
  }
  const double h = u - std::log1p(u) + u * epsilon + std::log1p(-u * epsilon);  // G(u) − G(−uε)
  const double dh = u / (1.0 + u) - u * epsilon * epsilon / (1.0 - u * epsilon);
  value = h / (u * u);
  slope = (dh / u - 2.0 * value) / u;
}

}  // namespace

double engelson_u_exact(double epsilon) {
  if (!(epsilon > 0.0 && epsilon <= 1.0)) {
    throw Error("engelson_u_exact: restitution " + format_number(epsilon) + " outside (0, 1]");
  }
  if (epsilon == 1.0) return 0.0;
  // Root of R(u) = (G(u) − G(−u·ε))/u² on (0, 1/ε): Newton safeguarded by bisection, from the
  // first-order guess 1.5(1 − ε²)/(1 + ε³) (u → 3(1 − ε)/2 as ε → 1) or (1 − ε)/ε (u ≈ 1/ε for
  // small ε), whichever is larger.
  double lo = 0.0, hi = 1.0 / epsilon;
  double u = std::max(1.5 * (1.0 - epsilon) * (1.0 + epsilon) / (1.0 + epsilon * epsilon * epsilon),
                      (1.0 - epsilon) / epsilon);
  if (!(u > lo && u < hi)) u = 0.5 * hi;
  for (int i = 0; i < 200; ++i) {
    double value = 0.0, slope = 0.0;
    inversion_residual(u, epsilon, value, slope);
    (value > 0.0 ? lo : hi) = u;
    double next = slope < 0.0 ? u - value / slope : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::abs(next - u) <= 1e-15 * u) return next;
    u = next;
  }
  return u;
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
        "engelson force law: params.damping_s_per_m is " + format_number(given_damping_s_per_m_) +
        " but only k_from_restitution: given uses it (k_from_restitution is '" +
        params.text("k_from_restitution") + "', which derives k from the restitution)");
  }
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
      real_parameter("min_restitution", 1e-3, 0.0, 1.0, "",
                     "exact and fraction use max(ε, min_restitution), as their k grows like 1/ε.");
  e_min.minimum_exclusive = true;
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
  const double restitution = checked_restitution(contact, "engelson force law");
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

double EngelsonForceLaw::potential_energy(const ContactKinematics& contact,
                                          const ContactState& /*state*/) const {
  const double x = compression_m(contact);
  const double mass_kg = checked_mass(contact);
  return 0.5 * stiffness_per_mass_per_s2_ * mass_kg * x * x;
}

}  // namespace contactlab::plugins
