#include "stribeck.hpp"

#include <limits>

#include "regularization.hpp"

namespace contactlab::plugins {

Stribeck::Stribeck(const ParameterValues& params)
    : curve_(StribeckCurve::from_parameters(params)),
      viscous_N_s_per_m_(params.real("viscous_N_s_per_m")),
      v_min_m_per_s_(params.real("v_min_m_per_s")),
      resistance_(ResistanceTorque::from_parameters(params)) {}

ParameterSchema Stribeck::schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec v_min = real_parameter(
      "v_min_m_per_s", 1.0e-3, 0.0, inf, "m/s",
      "Regularisation speed (Neumayr eq. 7.4): below it the force fades to 0 at zero slip; keep "
      "it well below stribeck_velocity_m_per_s.");
  v_min.minimum_exclusive = true;
  v_min.maximum_exclusive = true;
  ParameterSchema schema;
  StribeckCurve::append_schema(schema);
  schema.push_back(viscous_friction_parameter());
  schema.push_back(v_min);
  ResistanceTorque::append_schema(schema);
  return schema;
}

FrictionResult Stribeck::compute(const ContactKinematics& contact, double normal_force_N,
                                 const ContactState& /*state*/) const {
  const PairMaterial& material = contact.material;
  require_static_at_least_kinetic(material, "stribeck");
  const Vec3& v_t_W = contact.slip_velocity_W;
  const double speed = v_t_W.norm();
  const double mu = curve_.coefficient(speed, material.friction_static, material.friction_kinetic);
  FrictionResult result;
  result.force_W =
      (-mu * normal_force_N / regularize(speed, v_min_m_per_s_) - viscous_N_s_per_m_) * v_t_W;
  result.torque_W = resistance_.torque(contact, normal_force_N, "stribeck");
  return result;
}

}  // namespace contactlab::plugins
