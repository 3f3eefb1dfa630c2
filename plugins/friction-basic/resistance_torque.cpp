#include "resistance_torque.hpp"

#include <cmath>
#include <limits>
#include <string>

#include <contactlab/errors.hpp>
#include <contactlab/law_support.hpp>

#include "regularization.hpp"

namespace contactlab::plugins {

void ResistanceTorque::append_schema(ParameterSchema& schema) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec w_min = real_parameter(
      "w_min_rad_per_s", 0.01, 0.0, inf, "rad/s",
      "Relative angular speed above which the full rolling resistance acts (Neumayr eq. 7.4).");
  w_min.minimum_exclusive = true;
  w_min.maximum_exclusive = true;
  schema.push_back(boolean_parameter("rolling_resistance", false,
                                     "Add the rolling/drilling resistance torque "
                                     "−μ_r·R*·f_n·ω/reg(|ω|) (Neumayr eq. 7.3d)."));
  schema.push_back(w_min);
  schema.push_back(choice_parameter(
      "resistance_model", "combined", {"combined", "separate"},
      "combined: one torque against ω_rel (Neumayr eq. 7.3d); separate: rolling (tangent-plane ω) "
      "and drilling (normal ω) parts regularised on their own."));
  schema.push_back(
      real_parameter("drilling_factor", 1.0, 0.0, inf, "",
                     "resistance_model = separate: the drilling coefficient is drilling_factor·μ_r "
                     "(Neumayr uses μ_r for both, i.e. 1; 0 turns drilling resistance off)."));
}

ResistanceTorque ResistanceTorque::from_parameters(const ParameterValues& params) {
  ResistanceTorque torque;
  torque.enabled = params.boolean("rolling_resistance");
  torque.w_min_rad_per_s = params.real("w_min_rad_per_s");
  const std::string& model = params.text("resistance_model");
  if (model == "combined") {
    torque.model = Model::combined;
  } else if (model == "separate") {
    torque.model = Model::separate;
  } else {
    throw InputError("resistance_model must be 'combined' or 'separate', got '" + model + "'");
  }
  torque.drilling_factor = params.real("drilling_factor");
  return torque;
}

Vec3 ResistanceTorque::torque(const ContactKinematics& contact, double normal_force_N,
                              const char* law_name) const {
  const double mu_r = contact.material.rolling_friction;
  if (!enabled || mu_r == 0.0) return Vec3::Zero();
  const double radius_m = contact.effective_radius_m;
  if (!(std::isfinite(radius_m) && radius_m > 0.0)) {
    throw SimulationError(
        std::string(law_name) +
        " rolling resistance needs a finite, positive effective radius R* (got " +
        format_number(radius_m) +
        " m): the torque is μ_r·R*·f_n; set contact_radius_m on one geometry of a flat pair, or "
        "set rolling_friction to 0 for this material pair");
  }
  const double scale = -mu_r * radius_m * normal_force_N;
  const Vec3& w_rel_W = contact.relative_angular_velocity_W;
  if (model == Model::combined) {
    // Neumayr (2025) eq. 7.3d with e_ω,reg from eq. 7.10.
    return (scale / regularize(w_rel_W.norm(), w_min_rad_per_s)) * w_rel_W;
  }
  const Vec3& n_W = contact.normal_W;
  const Vec3 w_drill_W = w_rel_W.dot(n_W) * n_W;
  const Vec3 w_roll_W = w_rel_W - w_drill_W;
  return (scale / regularize(w_roll_W.norm(), w_min_rad_per_s)) * w_roll_W +
         (scale * drilling_factor / regularize(w_drill_W.norm(), w_min_rad_per_s)) * w_drill_W;
}

}  // namespace contactlab::plugins
