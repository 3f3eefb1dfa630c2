#include "coulomb_regularized.hpp"

#include <limits>

namespace contactlab::plugins {

CoulombRegularized::CoulombRegularized(const ParameterValues& params)
    : v_min_m_per_s_(params.real("v_min_m_per_s")),
      resistance_(ResistanceTorque::from_parameters(params)) {}

ParameterSchema CoulombRegularized::schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec v_min = real_parameter(
      "v_min_m_per_s", 0.01, 0.0, inf, "m/s",
      "Slip speed above which the full Coulomb force μ_k·f_n acts (Neumayr eq. 7.4).");
  v_min.minimum_exclusive = true;
  v_min.maximum_exclusive = true;
  ParameterSchema schema{v_min};
  ResistanceTorque::append_schema(schema);
  return schema;
}

FrictionResult CoulombRegularized::compute(const ContactKinematics& contact, double normal_force_N,
                                           const ContactState& /*state*/) const {
  FrictionResult result;
  const Vec3& v_t_W = contact.slip_velocity_W;
  // Neumayr (2025) eq. 7.3c with e_t,reg from eq. 7.8: reg ≥ v_min/3 > 0, so no division by zero
  // and zero slip gives zero force.
  result.force_W = (-contact.material.friction_kinetic * normal_force_N /
                    regularize(v_t_W.norm(), v_min_m_per_s_)) *
                   v_t_W;
  result.torque_W = resistance_.torque(contact, normal_force_N, "coulomb_regularized");
  return result;
}

}  // namespace contactlab::plugins
