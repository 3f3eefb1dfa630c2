#include "linear_force_law.hpp"

#include <algorithm>
#include <limits>

namespace contactlab::plugins {

LinearForceLaw::LinearForceLaw(const ParameterValues& params)
    : stiffness_N_per_m_(params.real("stiffness_N_per_m")),
      damping_N_s_per_m_(params.real("damping_N_s_per_m")),
      clamp_tension_(params.boolean("clamp_tension")) {}

ParameterSchema LinearForceLaw::schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec stiffness = real_parameter("stiffness_N_per_m", 1e6, 0.0, inf, "N/m",
                                           "Spring stiffness k in f = k·δ + c·δ̇.");
  stiffness.minimum_exclusive = true;
  stiffness.maximum_exclusive = true;
  ParameterSpec damping = real_parameter("damping_N_s_per_m", 0.0, 0.0, inf, "N·s/m",
                                         "Damping coefficient c in f = k·δ + c·δ̇.");
  damping.maximum_exclusive = true;
  return {stiffness, damping,
          boolean_parameter("clamp_tension", true,
                            "Clamp f to ≥ 0 so the contact never pulls; false keeps the pure "
                            "linear oscillator.")};
}

ForceLawRequirements LinearForceLaw::requirements() const {
  return {};
}

double LinearForceLaw::normal_force(const ContactKinematics& contact,
                                    const ContactState& /*state*/) const {
  const double force_N = stiffness_N_per_m_ * contact.penetration_m +
                         damping_N_s_per_m_ * contact.penetration_rate_m_per_s;
  // While the bodies separate fast, c·δ̇ < −k·δ and the unclamped law would glue them together.
  return clamp_tension_ ? std::max(0.0, force_N) : force_N;
}

double LinearForceLaw::potential_energy(const ContactKinematics& contact,
                                        const ContactState& /*state*/) const {
  const double delta_m = contact.penetration_m;
  return 0.5 * stiffness_N_per_m_ * delta_m * delta_m;
}

}  // namespace contactlab::plugins
