#include "hertz_force_law.hpp"

#include <algorithm>
#include <cmath>
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

/// Throws unless R* and E* are usable. Only the throwing path allocates.
void check_hertz_inputs(const ContactKinematics& contact) {
  const double radius_m = contact.effective_radius_m;
  if (!(std::isfinite(radius_m) && radius_m > 0.0)) {
    if (radius_m == std::numeric_limits<double>::infinity()) {
      throw SimulationError(
          "hertz needs a finite effective radius: both surfaces are flat; set contact_radius_m on "
          "one geometry");
    }
    throw SimulationError("hertz needs a finite, positive effective radius R* (got " +
                          format_value(radius_m) +
                          " m); check contact_radius_m of both geometries");
  }
  const double modulus_Pa = contact.effective_modulus_Pa;
  if (!(std::isfinite(modulus_Pa) && modulus_Pa > 0.0)) {
    throw SimulationError("hertz needs a finite, positive effective modulus E* (got " +
                          format_value(modulus_Pa) +
                          " Pa); give both solids a material with a finite youngs_modulus_Pa > 0");
  }
}

}  // namespace

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
  check_hertz_inputs(contact);
  // The host calls this only while δ > 0; the max guards δ^{3/2} against a stray negative δ.
  const double delta_m = std::max(0.0, contact.penetration_m);
  // Neumayr (2025) eq. 7.1, scaled by k_red (eq. 7.3a).
  return stiffness_scale_ * (4.0 / 3.0) * contact.effective_modulus_Pa *
         std::sqrt(contact.effective_radius_m) * delta_m * std::sqrt(delta_m);
}

double HertzForceLaw::potential_energy(const ContactKinematics& contact,
                                       const ContactState& /*state*/) const {
  check_hertz_inputs(contact);
  const double delta_m = std::max(0.0, contact.penetration_m);
  // ∫₀^δ (4/3)·E*·√R*·s^{3/2} ds = (8/15)·E*·√R*·δ^{5/2}.
  return stiffness_scale_ * (8.0 / 15.0) * contact.effective_modulus_Pa *
         std::sqrt(contact.effective_radius_m) * delta_m * delta_m * std::sqrt(delta_m);
}

}  // namespace contactlab::plugins
