// Materials: properties of one solid, and properties of a contacting pair of solids.
#pragma once

namespace contactlab {

/// Bulk properties of one solid material.
struct SolidMaterial {
  double density_kg_per_m3 = 0.0;  ///< ρ > 0
  double youngs_modulus_Pa = 0.0;  ///< E > 0
  double poisson_ratio = 0.0;      ///< ν, 0 ≤ ν < 0.5
};

/// Properties of a pair of materials in contact, looked up by the unordered pair of names.
struct PairMaterial {
  double restitution = 1.0;       ///< coefficient of restitution e ∈ [0, 1]
  double friction_kinetic = 0.0;  ///< sliding (kinetic) Coulomb coefficient μ_k ≥ 0
  double friction_static = 0.0;  ///< static coefficient μ_s ≥ μ_k (laws without stick ignore it)
  double rolling_friction =
      0.0;  ///< rolling/drilling resistance coefficient μ_r ≥ 0 (Neumayr 7.3d)
};

}  // namespace contactlab
