// Frictionless contact: no tangential force, no resistance torque.
#pragma once

#include <contactlab/friction.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

class NoFriction final : public Friction {
 public:
  explicit NoFriction(const ParameterValues& params);
  static ParameterSchema schema();

  FrictionResult compute(const ContactKinematics& contact, double normal_force_N,
                         const ContactState& state) const override;
};

}  // namespace contactlab::plugins
