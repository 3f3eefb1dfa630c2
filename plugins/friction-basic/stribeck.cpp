#include "stribeck.hpp"

#include <limits>

#include "friction_coefficients.hpp"
#include "regularization.hpp"

namespace contactlab::plugins {

Stribeck::Stribeck(const ParameterValues& params)
    : stribeck_velocity_m_per_s_(params.real("stribeck_velocity_m_per_s")),
      exponent_(params.real("exponent")),
      viscous_N_s_per_m_(params.real("viscous_N_s_per_m")),
      v_min_m_per_s_(params.real("v_min_m_per_s")),
      resistance_(ResistanceTorque::from_parameters(params)) {}

ParameterSchema Stribeck::schema() {
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
  ParameterSpec viscous = real_parameter("viscous_N_s_per_m", 0.0, 0.0, inf, "N·s/m",
                                         "Viscous friction coefficient σ₂: adds −σ₂·v.");
  viscous.maximum_exclusive = true;
  ParameterSpec v_min = real_parameter(
      "v_min_m_per_s", 1.0e-3, 0.0, inf, "m/s",
      "Regularisation speed (Neumayr eq. 7.4): below it the force fades to 0 at zero slip; keep "
      "it well below stribeck_velocity_m_per_s.");
  v_min.minimum_exclusive = true;
  v_min.maximum_exclusive = true;
  ParameterSchema schema{v_s, exponent, viscous, v_min};
  ResistanceTorque::append_schema(schema);
  return schema;
}

FrictionResult Stribeck::compute(const ContactKinematics& contact, double normal_force_N,
                                 const ContactState& /*state*/) const {
  const PairMaterial& material = contact.material;
  require_static_at_least_kinetic(material, "stribeck");
  const Vec3& v_t_W = contact.slip_velocity_W;
  const double speed = v_t_W.norm();
  const double mu = stribeck_coefficient(speed, material.friction_static, material.friction_kinetic,
                                         stribeck_velocity_m_per_s_, exponent_);
  FrictionResult result;
  result.force_W =
      (-mu * normal_force_N / regularize(speed, v_min_m_per_s_) - viscous_N_s_per_m_) * v_t_W;
  result.torque_W = resistance_.torque(contact, normal_force_N, "stribeck");
  return result;
}

}  // namespace contactlab::plugins
