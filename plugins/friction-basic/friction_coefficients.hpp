// Static and kinetic friction coefficients of a pair, and the Stribeck curve between them, shared
// by the stribeck, lugre and tangential_spring laws.
#pragma once

#include <cmath>

#include <contactlab/materials.hpp>

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

}  // namespace contactlab::plugins
