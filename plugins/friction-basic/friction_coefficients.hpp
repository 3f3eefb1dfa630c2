// Static and kinetic friction coefficients of a pair, and the Stribeck curve between them, shared
// by the stribeck, lugre and tangential_spring laws; the Stribeck-curve and viscous parameters
// that stribeck and lugre both declare.
#pragma once

#include <cmath>

#include <contactlab/materials.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// Throws SimulationError naming `law_name` and both values unless 0 ≤ μ_k ≤ μ_s (the scene
/// loader already enforces this for materials read from YAML; this guards direct use).
void require_static_at_least_kinetic(const PairMaterial& material, const char* law_name);

/// The Stribeck curve μ(v) = μ_k + (μ_s − μ_k)·exp(−(|v|/v_s)^δ): μ_s at rest, falling to μ_k
/// for |v| ≫ v_s (the steady-state curve of Canudas de Wit et al. 1995, with δ = 2 there).
inline double stribeck_coefficient(double speed, double mu_s, double mu_k, double v_s,
                                   double exponent) {
  const double r = std::abs(speed) / v_s;
  const double power = exponent == 2.0 ? r * r : std::pow(r, exponent);
  return mu_k + (mu_s - mu_k) * std::exp(-power);
}

/// The Stribeck curve's shape parameters of a law: v_s = stribeck_velocity_m_per_s and
/// δ = exponent.
struct StribeckCurve {
  double velocity_m_per_s = 0.01;
  double exponent = 2.0;

  /// Appends stribeck_velocity_m_per_s (0.01 m/s, > 0) and exponent (2, > 0) to a law's schema.
  static void append_schema(ParameterSchema& schema);
  /// Reads the parameters append_schema() declared.
  static StribeckCurve from_parameters(const ParameterValues& params);

  /// μ(|v|) between μ_s and μ_k: stribeck_coefficient() with this curve's v_s and δ.
  double coefficient(double speed, double mu_s, double mu_k) const {
    return stribeck_coefficient(speed, mu_s, mu_k, velocity_m_per_s, exponent);
  }
};

/// viscous_N_s_per_m (0 N·s/m, ≥ 0): the viscous friction coefficient σ₂ of a −σ₂·v term that does
/// not scale with the normal force.
ParameterSpec viscous_friction_parameter();

}  // namespace contactlab::plugins
