#include "no_friction.hpp"

namespace contactlab::plugins {

NoFriction::NoFriction(const ParameterValues& /*params*/) {}

ParameterSchema NoFriction::schema() {
  return {};
}

FrictionResult NoFriction::compute(const ContactKinematics& /*contact*/, double /*normal_force_N*/,
                                   const ContactState& /*state*/) const {
  return {};  // force_W and torque_W default to zero
}

}  // namespace contactlab::plugins
