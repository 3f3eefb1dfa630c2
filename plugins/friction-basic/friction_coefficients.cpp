#include "friction_coefficients.hpp"

#include <limits>
#include <string>

#include <contactlab/errors.hpp>
#include <contactlab/law_support.hpp>

namespace contactlab::plugins {

void require_static_at_least_kinetic(const PairMaterial& material, const char* law_name) {
  const double mu_s = material.friction_static;
  const double mu_k = material.friction_kinetic;
  if (mu_k >= 0.0 && mu_s >= mu_k) return;
  throw SimulationError(std::string(law_name) +
                        " needs 0 ≤ friction_kinetic ≤ friction_static for the pair material (got "
                        "friction_static = " +
                        format_number(mu_s) + ", friction_kinetic = " + format_number(mu_k) + ")");
}

void StribeckCurve::append_schema(ParameterSchema& schema) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec v_s =
      real_parameter("stribeck_velocity_m_per_s", 0.01, 0.0, inf, "m/s",
                     "Stribeck velocity v_s: μ falls from μ_s to μ_k over slip speeds ~ v_s.");
  v_s.minimum_exclusive = true;
  v_s.maximum_exclusive = true;
  ParameterSpec exponent =
      real_parameter("exponent", 2.0, 0.0, inf, "",
                     "Stribeck exponent δ in exp(−(|v|/v_s)^δ) (2: Canudas de Wit et al. 1995).");
  exponent.minimum_exclusive = true;
  exponent.maximum_exclusive = true;
  schema.push_back(v_s);
  schema.push_back(exponent);
}

StribeckCurve StribeckCurve::from_parameters(const ParameterValues& params) {
  return {params.real("stribeck_velocity_m_per_s"), params.real("exponent")};
}

ParameterSpec viscous_friction_parameter() {
  ParameterSpec viscous =
      real_parameter("viscous_N_s_per_m", 0.0, 0.0, std::numeric_limits<double>::infinity(),
                     "N·s/m", "Viscous friction coefficient σ₂: adds −σ₂·v.");
  viscous.maximum_exclusive = true;
  return viscous;
}

}  // namespace contactlab::plugins
