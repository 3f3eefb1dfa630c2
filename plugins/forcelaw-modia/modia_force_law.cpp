#include "modia_force_law.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <contactlab/law_support.hpp>

namespace contactlab::plugins {

namespace {

/// How the error messages name R*: Neumayr's geometry coefficient (tables 7.1-7.2).
constexpr const char* radius_name = "geometry coefficient R_geo = R*";

}  // namespace

double modia_regularize(double v, double v_min) {
  const double speed = std::abs(v);
  if (speed >= v_min) return speed;
  return (speed * speed / v_min) * (1.0 - speed / (3.0 * v_min)) + v_min / 3.0;
}

ModiaForceLaw::ModiaForceLaw(const ParameterValues& params)
    : stiffness_scale_(params.real("stiffness_scale")),
      cor_min_(params.real("cor_min")),
      v_min_m_per_s_(params.real("v_min_m_per_s")),
      d_max_s_per_m_(params.real("d_max_s_per_m")) {}

ParameterSchema ModiaForceLaw::schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec scale = real_parameter(
      "stiffness_scale", 1.0, 0.0, 1.0, "",
      "Elastic contact reduction factor k_red (Neumayr eq. 7.3a, §7.1.5); 1 is physical Hertz.");
  scale.minimum_exclusive = true;
  ParameterSpec cor_min = real_parameter(
      "cor_min", 0.001, 0.0, 1.0, "",
      "Restitution of a contact born at rest, and the floor of the regularised one (eq. 7.12).");
  cor_min.minimum_exclusive = true;
  ParameterSpec v_min = real_parameter(
      "v_min_m_per_s", 0.01, 0.0, inf, "m/s",
      "Regularisation threshold of the impact speed (eq. 7.11) and of the restitution (7.12).");
  v_min.minimum_exclusive = true;
  v_min.maximum_exclusive = true;
  ParameterSpec d_max = real_parameter(
      "d_max_s_per_m", 2000.0, 0.0, inf, "s/m",
      "Cap d_max of the damping coefficient d (eq. 7.13), against creeping at small cor_reg.");
  d_max.minimum_exclusive = true;
  d_max.maximum_exclusive = true;
  return {scale, cor_min, v_min, d_max};
}

ForceLawRequirements ModiaForceLaw::requirements() const {
  ForceLawRequirements requirements;
  requirements.effective_radius = true;
  requirements.effective_modulus = true;
  return requirements;
}

double ModiaForceLaw::regularized_restitution(double restitution,
                                              double impact_velocity_m_per_s) const {
  // Neumayr (2025) eq. 7.12; log is the natural logarithm: the exponential is 0.01 at |δ̇⁻| = v_min.
  const double blend =
      std::exp(std::log(0.01) * std::abs(impact_velocity_m_per_s) / v_min_m_per_s_);
  return std::max(cor_min_, restitution + (cor_min_ - restitution) * blend);
}

double ModiaForceLaw::damping_s_per_m(const ContactKinematics& contact) const {
  const double cor = checked_restitution(contact, "modia force law");
  const double cor_reg = regularized_restitution(cor, contact.impact_velocity_m_per_s);
  // Eq. 7.11 and 7.13 (Flores et al. 2011 with the regularised inputs and the cap).
  const double start_speed = modia_regularize(contact.impact_velocity_m_per_s, v_min_m_per_s_);
  return std::min(d_max_s_per_m_, 8.0 * (1.0 - cor_reg) / (5.0 * cor_reg * start_speed));
}

void ModiaForceLaw::on_birth(const ContactKinematics& contact, LawMemory& memory) const {
  memory.data[0] = damping_s_per_m(contact);
  memory.mode = 1;
}

double ModiaForceLaw::normal_force(const ContactKinematics& contact,
                                   const ContactState& state) const {
  require_hertz_inputs(contact, "modia force law", radius_name);
  // The d stored at birth, or (memory not initialised) computed here from the same inputs.
  const double d = state.law.mode == 1 ? state.law.data[0] : damping_s_per_m(contact);
  // The host calls this only while δ > 0; the max guards δ^{3/2} against a stray negative δ.
  const double delta_m = std::max(0.0, contact.penetration_m);
  const double hertz_N = (4.0 / 3.0) * contact.effective_modulus_Pa *
                         std::sqrt(contact.effective_radius_m) * delta_m * std::sqrt(delta_m);
  // Eq. 7.3a: the max keeps the contact from pulling while it separates fast.
  return stiffness_scale_ * std::max(0.0, hertz_N * (1.0 + d * contact.penetration_rate_m_per_s));
}

double ModiaForceLaw::potential_energy(const ContactKinematics& contact,
                                       const ContactState& /*state*/) const {
  require_hertz_inputs(contact, "modia force law", radius_name);
  const double delta_m = std::max(0.0, contact.penetration_m);
  return stiffness_scale_ * (8.0 / 15.0) * contact.effective_modulus_Pa *
         std::sqrt(contact.effective_radius_m) * delta_m * delta_m * std::sqrt(delta_m);
}

}  // namespace contactlab::plugins
