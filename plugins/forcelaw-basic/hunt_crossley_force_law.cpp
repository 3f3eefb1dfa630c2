#include "hunt_crossley_force_law.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <contactlab/errors.hpp>
#include <contactlab/law_support.hpp>

namespace contactlab::plugins {

namespace {

HuntCrossleyDamping parse_damping_model(const std::string& name) {
  if (name == "hunt_crossley") return HuntCrossleyDamping::hunt_crossley;
  if (name == "lankarani_nikravesh") return HuntCrossleyDamping::lankarani_nikravesh;
  if (name == "flores") return HuntCrossleyDamping::flores;
  if (name == "gonthier") return HuntCrossleyDamping::gonthier;
  if (name == "constant") return HuntCrossleyDamping::constant;
  throw InputError("hunt_crossley force law: params.damping_model is '" + name +
                   "'; expected one of hunt_crossley, lankarani_nikravesh, flores, gonthier, "
                   "constant");
}

}  // namespace

HuntCrossleyForceLaw::HuntCrossleyForceLaw(const ParameterValues& params)
    : exponent_(params.real("exponent")),
      stiffness_(params.real("stiffness_N_per_m_pow_n")),
      stiffness_scale_(params.real("stiffness_scale")),
      damping_model_(parse_damping_model(params.text("damping_model"))),
      constant_damping_s_per_m_(params.real("damping_s_per_m")),
      min_impact_velocity_m_per_s_(params.real("min_impact_velocity_m_per_s")),
      min_restitution_(params.real("min_restitution")) {
  if (stiffness_ == 0.0 && exponent_ != 1.5) {
    throw InputError("hunt_crossley force law: params.exponent is " + format_number(exponent_) +
                     " but params.stiffness_N_per_m_pow_n is 0, which takes Hertz' stiffness "
                     "(4/3)·E*·√R* and needs exponent 1.5; set exponent: 1.5 or give a stiffness");
  }
  if (damping_model_ != HuntCrossleyDamping::constant && constant_damping_s_per_m_ != 0.0) {
    throw InputError("hunt_crossley force law: params.damping_s_per_m is " +
                     format_number(constant_damping_s_per_m_) +
                     " but only damping_model: constant uses it (damping_model is '" +
                     params.text("damping_model") + "', which derives d from the restitution)");
  }
}

ParameterSchema HuntCrossleyForceLaw::schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec exponent = real_parameter("exponent", 1.5, 1.0, 3.0, "",
                                          "Exponent n of f = k·δⁿ·(1 + d·δ̇); 1.5 is Hertz.");
  ParameterSpec stiffness = real_parameter(
      "stiffness_N_per_m_pow_n", 0.0, 0.0, inf, "N/m^n",
      "Stiffness k; 0 takes Hertz' (4/3)·E*·√R* from the solids and the geometry (needs "
      "exponent 1.5).");
  stiffness.maximum_exclusive = true;
  ParameterSpec scale = real_parameter(
      "stiffness_scale", 1.0, 0.0, 1.0, "",
      "Elastic contact reduction factor k_red (Neumayr eq. 7.3a) multiplying k; 1 is physical.");
  scale.minimum_exclusive = true;
  ParameterSpec damping = real_parameter(
      "damping_s_per_m", 0.0, 0.0, inf, "s/m",
      "Damping factor d of damping_model: constant (other models derive d from e and v).");
  damping.maximum_exclusive = true;
  ParameterSpec v_min = real_parameter(
      "min_impact_velocity_m_per_s", 1e-3, 0.0, inf, "m/s",
      "Impact speeds below this (contacts born at rest) are treated as this speed in d(e, v), "
      "so d stays finite.");
  v_min.minimum_exclusive = true;
  v_min.maximum_exclusive = true;
  ParameterSpec e_min =
      real_parameter("min_restitution", 1e-3, 0.0, 1.0, "",
                     "flores and gonthier use max(e, min_restitution), as their d grows like 1/e.");
  e_min.minimum_exclusive = true;
  return {
      exponent,
      stiffness,
      scale,
      choice_parameter("damping_model", "hunt_crossley",
                       {"hunt_crossley", "lankarani_nikravesh", "flores", "gonthier", "constant"},
                       "How d follows from the pair's restitution e and the impact speed v: "
                       "3(1−e)/(2v), 3(1−e²)/(4v), 8(1−e)/(5ev), (1−e²)/(ev), or constant."),
      damping,
      v_min,
      e_min};
}

ForceLawRequirements HuntCrossleyForceLaw::requirements() const {
  ForceLawRequirements requirements;
  requirements.effective_radius = stiffness_ == 0.0;
  requirements.effective_modulus = stiffness_ == 0.0;
  return requirements;
}

double HuntCrossleyForceLaw::stiffness(const ContactKinematics& contact) const {
  if (stiffness_ != 0.0) return stiffness_scale_ * stiffness_;
  require_hertz_inputs(
      contact, "hunt_crossley force law with Hertz' stiffness (stiffness_N_per_m_pow_n = 0)",
      "effective radius R*", ", or give stiffness_N_per_m_pow_n");
  // Neumayr (2025) eq. 7.1 with k_red (eq. 7.3a).
  return stiffness_scale_ * (4.0 / 3.0) * contact.effective_modulus_Pa *
         std::sqrt(contact.effective_radius_m);
}

double HuntCrossleyForceLaw::damping_s_per_m(const ContactKinematics& contact) const {
  if (damping_model_ == HuntCrossleyDamping::constant) return constant_damping_s_per_m_;
  const double e = checked_restitution(contact, "hunt_crossley force law");
  // A contact is born while approaching (v⁻ ≥ 0); one born at rest or separating (touching at t0)
  // gets the damping of the slowest impact the model resolves.
  const double v = std::max(contact.impact_velocity_m_per_s, min_impact_velocity_m_per_s_);
  switch (damping_model_) {
    case HuntCrossleyDamping::hunt_crossley:
      // e = 1 − α·v with λ = (3/2)·α·k (Ullrich 1998 eq. 2.16–2.17): d = λ/k = 3(1−e)/(2v).
      return 1.5 * (1.0 - e) / v;
    case HuntCrossleyDamping::lankarani_nikravesh:
      return 0.75 * (1.0 - e * e) / v;
    case HuntCrossleyDamping::flores: {
      const double e_reg = std::max(e, min_restitution_);
      return 1.6 * (1.0 - e_reg) / (e_reg * v);
    }
    case HuntCrossleyDamping::gonthier: {
      const double e_reg = std::max(e, min_restitution_);
      return (1.0 - e_reg * e_reg) / (e_reg * v);
    }
    case HuntCrossleyDamping::constant:
      break;
  }
  return constant_damping_s_per_m_;
}

double HuntCrossleyForceLaw::normal_force(const ContactKinematics& contact,
                                          const ContactState& /*state*/) const {
  const double k = stiffness(contact);
  const double d = damping_s_per_m(contact);
  // The host calls this only while δ > 0; the max guards δⁿ against a stray negative δ.
  const double delta_m = std::max(0.0, contact.penetration_m);
  const double elastic_N =
      k * (exponent_ == 1.5 ? delta_m * std::sqrt(delta_m) : std::pow(delta_m, exponent_));
  // While separating fast (d·δ̇ < −1) the damper would pull: clamp, the contact never pulls.
  return std::max(0.0, elastic_N * (1.0 + d * contact.penetration_rate_m_per_s));
}

double HuntCrossleyForceLaw::potential_energy(const ContactKinematics& contact,
                                              const ContactState& /*state*/) const {
  const double delta_m = std::max(0.0, contact.penetration_m);
  // ∫₀^δ k·sⁿ ds = k·δⁿ⁺¹/(n+1).
  return stiffness(contact) * std::pow(delta_m, exponent_ + 1.0) / (exponent_ + 1.0);
}

}  // namespace contactlab::plugins
