#include "lugre.hpp"

#include <limits>

namespace contactlab::plugins {

LuGre::LuGre(const ParameterValues& params)
    : sigma0_per_m_(params.real("bristle_stiffness_per_m")),
      sigma1_s_per_m_(params.real("bristle_damping_s_per_m")),
      sigma2_N_s_per_m_(params.real("viscous_N_s_per_m")),
      curve_(StribeckCurve::from_parameters(params)),
      resistance_(ResistanceTorque::from_parameters(params)) {}

ParameterSchema LuGre::schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec sigma0 = real_parameter(
      "bristle_stiffness_per_m", 1.0e5, 0.0, inf, "1/m",
      "Normalised bristle stiffness σ̂₀: the bristles' stiffness is σ̂₀·f_n [N/m], so a "
      "presliding force F deflects them by F/(σ̂₀·f_n).");
  sigma0.minimum_exclusive = true;
  sigma0.maximum_exclusive = true;
  ParameterSpec sigma1 = real_parameter(
      "bristle_damping_s_per_m", 200.0, 0.0, inf, "s/m",
      "Normalised bristle damping σ̂₁: damping σ̂₁·f_n [N·s/m]; the default is about critical "
      "for a body resting on level ground under its weight with the default stiffness "
      "(σ̂₁ = 2·sqrt(σ̂₀/g)).");
  sigma1.maximum_exclusive = true;
  ParameterSchema schema{sigma0, sigma1, viscous_friction_parameter()};
  StribeckCurve::append_schema(schema);
  ResistanceTorque::append_schema(schema);
  return schema;
}

void LuGre::on_birth(const ContactKinematics& /*contact*/, LawMemory& memory) const {
  memory.x[0] = memory.x[1] = memory.x[2] = 0.0;  // undeflected bristles
}

double LuGre::relaxation_rate(const ContactKinematics& contact) const {
  const PairMaterial& material = contact.material;
  require_static_at_least_kinetic(material, "lugre");
  if (material.friction_static == 0.0) return 0.0;  // then μ_k = 0 too: no bristle force at all
  const double speed = contact.slip_velocity_W.norm();
  const double g = curve_.coefficient(speed, material.friction_static, material.friction_kinetic);
  return sigma0_per_m_ * speed / g;
}

void LuGre::continuous_rate(const ContactKinematics& contact, double /*normal_force_N*/,
                            const LawMemory& memory, std::span<double> rate) const {
  const double relaxation = relaxation_rate(contact);  // also checks μ_s ≥ μ_k ≥ 0
  const Vec3 z(memory.x[0], memory.x[1], memory.x[2]);
  // A frictionless pair (μ_s = 0, hence ĝ = 0): the bristles stay undeflected.
  const Vec3 z_rate = contact.material.friction_static == 0.0
                          ? Vec3::Zero()
                          : Vec3(contact.slip_velocity_W - relaxation * z);
  rate[0] = z_rate.x();
  rate[1] = z_rate.y();
  rate[2] = z_rate.z();
}

FrictionResult LuGre::compute(const ContactKinematics& contact, double normal_force_N,
                              const ContactState& state) const {
  const Vec3& v_W = contact.slip_velocity_W;
  FrictionResult result;
  result.force_W = -sigma2_N_s_per_m_ * v_W;
  const double relaxation = relaxation_rate(contact);  // also checks μ_s ≥ μ_k ≥ 0
  if (contact.material.friction_static != 0.0) {
    const Vec3& n_W = contact.normal_W;
    const LawMemory& memory = state.friction;
    const Vec3 z(memory.x[0], memory.x[1], memory.x[2]);
    const Vec3 z_t = z - z.dot(n_W) * n_W;
    const Vec3 z_t_rate = v_W - relaxation * z_t;
    result.force_W -= normal_force_N * (sigma0_per_m_ * z_t + sigma1_s_per_m_ * z_t_rate);
  }
  result.torque_W = resistance_.torque(contact, normal_force_N, "lugre");
  return result;
}

}  // namespace contactlab::plugins
