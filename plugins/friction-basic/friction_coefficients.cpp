#include "friction_coefficients.hpp"

#include <cstdio>
#include <string>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

void require_static_at_least_kinetic(const PairMaterial& material, const char* law_name) {
  const double mu_s = material.friction_static;
  const double mu_k = material.friction_kinetic;
  if (mu_k >= 0.0 && mu_s >= mu_k) return;
  char values[96];
  std::snprintf(values, sizeof values, "friction_static = %.6g, friction_kinetic = %.6g", mu_s,
                mu_k);
  throw SimulationError(
      std::string(law_name) +
      " needs 0 ≤ friction_kinetic ≤ friction_static for the pair material (got " + values + ")");
}

}  // namespace contactlab::plugins
