#include "coulomb_regularized.hpp"

#include <cstdio>
#include <limits>
#include <string>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

CoulombRegularized::CoulombRegularized(const ParameterValues& params)
    : v_min_m_per_s_(params.real("v_min_m_per_s")),
      rolling_resistance_(params.boolean("rolling_resistance")),
      w_min_rad_per_s_(params.real("w_min_rad_per_s")) {}

ParameterSchema CoulombRegularized::schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec v_min = real_parameter(
      "v_min_m_per_s", 0.01, 0.0, inf, "m/s",
      "Slip speed above which the full Coulomb force μ_k·f_n acts (Neumayr eq. 7.4).");
  v_min.minimum_exclusive = true;
  v_min.maximum_exclusive = true;
  ParameterSpec w_min = real_parameter(
      "w_min_rad_per_s", 0.01, 0.0, inf, "rad/s",
      "Relative angular speed above which the full rolling resistance acts (Neumayr eq. 7.4).");
  w_min.minimum_exclusive = true;
  w_min.maximum_exclusive = true;
  return {v_min,
          boolean_parameter("rolling_resistance", false,
                            "Add the rolling/drilling resistance torque −μ_r·R*·f_n·ω/reg(|ω|) "
                            "(Neumayr eq. 7.3d)."),
          w_min};
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

  const double mu_r = contact.material.rolling_friction;
  if (rolling_resistance_ && mu_r != 0.0) {
    const double radius_m = contact.effective_radius_m;
    if (!(std::isfinite(radius_m) && radius_m > 0.0)) {
      char value[32];
      std::snprintf(value, sizeof value, "%.6g", radius_m);
      throw SimulationError(
          std::string("coulomb_regularized rolling resistance needs a finite, positive effective "
                      "radius R* (got ") +
          value +
          " m): the torque is μ_r·R*·f_n; set contact_radius_m on one geometry of a flat pair, or "
          "set rolling_friction to 0 for this material pair");
    }
    const Vec3& w_rel_W = contact.relative_angular_velocity_W;
    // Neumayr (2025) eq. 7.3d with e_ω,reg from eq. 7.10.
    result.torque_W =
        (-mu_r * radius_m * normal_force_N / regularize(w_rel_W.norm(), w_min_rad_per_s_)) *
        w_rel_W;
  }
  return result;
}

}  // namespace contactlab::plugins
