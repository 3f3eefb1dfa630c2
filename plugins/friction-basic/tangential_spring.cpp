#include "tangential_spring.hpp"

#include <algorithm>
#include <limits>

#include "friction_coefficients.hpp"

namespace contactlab::plugins {

TangentialSpring::TangentialSpring(const ParameterValues& params)
    : stiffness_N_per_m_(params.real("stiffness_N_per_m")),
      damping_N_s_per_m_(params.real("damping_N_s_per_m")),
      resistance_(ResistanceTorque::from_parameters(params)) {}

ParameterSchema TangentialSpring::schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec k = real_parameter(
      "stiffness_N_per_m", 1.0e5, 0.0, inf, "N/m",
      "Tangential spring stiffness k: a sticking contact deflects by f_t/k (Ullrich eq. 5.19).");
  k.minimum_exclusive = true;
  k.maximum_exclusive = true;
  ParameterSpec c = real_parameter(
      "damping_N_s_per_m", 100.0, 0.0, inf, "N·s/m",
      "Tangential damping c > 0 (Goyal needs C positive definite); the anchor's slip relaxes "
      "with the time constant c/k.");
  c.minimum_exclusive = true;
  c.maximum_exclusive = true;
  ParameterSchema schema{k, c};
  ResistanceTorque::append_schema(schema);
  return schema;
}

TangentialSpring::Trial TangentialSpring::trial(const ContactKinematics& contact,
                                                double normal_force_N,
                                                const LawMemory& memory) const {
  const PairMaterial& material = contact.material;
  require_static_at_least_kinetic(material, "tangential_spring");
  Trial t;
  t.xi_W = Vec3(memory.x[0], memory.x[1], memory.x[2]);
  const Vec3& n_W = contact.normal_W;
  const Vec3 xi_t_W = t.xi_W - t.xi_W.dot(n_W) * n_W;
  t.a_W = stiffness_N_per_m_ * xi_t_W + damping_N_s_per_m_ * contact.slip_velocity_W;
  t.a_norm = t.a_W.norm();
  const double mu = memory.mode == slip ? material.friction_kinetic : material.friction_static;
  t.cone_N = mu * std::max(normal_force_N, 0.0);
  return t;
}

void TangentialSpring::on_birth(const ContactKinematics& contact, LawMemory& memory) const {
  memory.x[0] = memory.x[1] = memory.x[2] = 0.0;  // the anchor is where the contact starts
  memory.mode = contact.slip_velocity_W.squaredNorm() > 0.0 ? slip : stick;
}

void TangentialSpring::continuous_rate(const ContactKinematics& contact, double normal_force_N,
                                       const LawMemory& memory, std::span<double> rate) const {
  const Trial t = trial(contact, normal_force_N, memory);
  const Vec3& n_W = contact.normal_W;
  // ξ̇ = v_t − λ*·a/|a| (λ* = 0 inside the cone) − (k/c)·(ξ·n)·n.
  Vec3 xi_rate_W =
      contact.slip_velocity_W - (stiffness_N_per_m_ / damping_N_s_per_m_) * t.xi_W.dot(n_W) * n_W;
  if (t.a_norm > t.cone_N) {
    const double lambda = (t.a_norm - t.cone_N) / damping_N_s_per_m_;
    xi_rate_W -= (lambda / t.a_norm) * t.a_W;
  }
  rate[0] = xi_rate_W.x();
  rate[1] = xi_rate_W.y();
  rate[2] = xi_rate_W.z();
}

void TangentialSpring::event_functions(const ContactKinematics& contact, double normal_force_N,
                                       const LawMemory& memory, std::span<double> g) const {
  const Trial t = trial(contact, normal_force_N, memory);
  const double f_n = std::max(normal_force_N, 0.0);
  g[stick_to_slip_event] =
      memory.mode == stick ? contact.material.friction_static * f_n - t.a_norm : 1.0;
  g[slip_to_stick_event] =
      memory.mode == slip ? t.a_norm - contact.material.friction_kinetic * f_n : 1.0;
}

const char* TangentialSpring::event_name(int index) const {
  return index == stick_to_slip_event ? "stick_to_slip" : "slip_to_stick";
}

void TangentialSpring::on_event(int index, const ContactKinematics& /*contact*/,
                                double /*normal_force_N*/, LawMemory& memory) const {
  if (index == stick_to_slip_event) memory.mode = slip;
  if (index == slip_to_stick_event) memory.mode = stick;
}

FrictionResult TangentialSpring::compute(const ContactKinematics& contact, double normal_force_N,
                                         const ContactState& state) const {
  const Trial t = trial(contact, normal_force_N, state.friction);
  FrictionResult result;
  // f = −min(|a|, μ·f_n)·a/|a|: the trial force inside the cone, its projection onto the cone
  // outside (Ullrich eq. 5.24/5.26).
  result.force_W = t.a_norm <= t.cone_N ? Vec3(-t.a_W) : Vec3((-t.cone_N / t.a_norm) * t.a_W);
  result.torque_W = resistance_.torque(contact, normal_force_N, "tangential_spring");
  return result;
}

}  // namespace contactlab::plugins
