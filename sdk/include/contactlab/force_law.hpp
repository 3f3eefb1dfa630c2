// ForceLaw: the normal contact force from penetration, its rate and the contact's memory.
#pragma once

#include "contactlab/contact.hpp"
#include "contactlab/export.hpp"

namespace contactlab {

struct ForceLawRequirements {
  bool effective_radius = false;   ///< needs a finite R* (curvature), e.g. Hertz
  bool effective_modulus = false;  ///< needs E* from the solid materials
};

class CONTACTLAB_VISIBLE ForceLaw {
 public:
  virtual ~ForceLaw() = default;
  virtual ForceLawRequirements requirements() const = 0;
  /// Magnitude of the normal force [N] pushing B along +normal and A along −normal. Called only
  /// while δ > 0. A return value ≥ 0 means the law never pulls.
  virtual double normal_force(const ContactKinematics& contact,
                              const ContactState& state) const = 0;
  /// Elastic energy stored in the contact [J] (the conservative part of the law), used for the
  /// energy balance in summary.json. Laws without a potential return 0.
  virtual double potential_energy(const ContactKinematics& contact) const = 0;
};

}  // namespace contactlab
