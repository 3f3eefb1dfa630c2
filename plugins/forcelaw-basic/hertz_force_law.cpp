#include "hertz_force_law.hpp"

#include <algorithm>
#include <cmath>

#include <contactlab/law_support.hpp>

namespace contactlab::plugins {

HertzForceLaw::HertzForceLaw(const ParameterValues& params)
    : stiffness_scale_(params.real("stiffness_scale")) {}

ParameterSchema HertzForceLaw::schema() {
  ParameterSpec scale = real_parameter(
      "stiffness_scale", 1.0, 0.0, 1.0, "",
      "Elastic contact reduction factor k_red (Neumayr eq. 7.3a): softens the contact to allow "
      "larger steps; 1 is physical Hertz.");
  scale.minimum_exclusive = true;
  return {scale};
}

ForceLawRequirements HertzForceLaw::requirements() const {
  ForceLawRequirements requirements;
  requirements.effective_radius = true;
  requirements.effective_modulus = true;
  return requirements;
}

double HertzForceLaw::normal_force(const ContactKinematics& contact,
                                   const ContactState& /*state*/) const {
  // R* is named "effective radius": a flat pair reads "hertz needs a finite effective radius: ...".
  require_hertz_inputs(contact, "hertz", "effective radius");
  // The host calls this only while δ > 0; the max guards δ^{3/2} against a stray negative δ.
  const double delta_m = std::max(0.0, contact.penetration_m);
  // Neumayr (2025) eq. 7.1, scaled by k_red (eq. 7.3a).
  return stiffness_scale_ * (4.0 / 3.0) * contact.effective_modulus_Pa *
         std::sqrt(contact.effective_radius_m) * delta_m * std::sqrt(delta_m);
}

double HertzForceLaw::potential_energy(const ContactKinematics& contact,
                                       const ContactState& /*state*/) const {
  require_hertz_inputs(contact, "hertz", "effective radius");
  const double delta_m = std::max(0.0, contact.penetration_m);
  // ∫₀^δ (4/3)·E*·√R*·s^{3/2} ds = (8/15)·E*·√R*·δ^{5/2}.
  return stiffness_scale_ * (8.0 / 15.0) * contact.effective_modulus_Pa *
         std::sqrt(contact.effective_radius_m) * delta_m * delta_m * std::sqrt(delta_m);
}

}  // namespace contactlab::plugins
