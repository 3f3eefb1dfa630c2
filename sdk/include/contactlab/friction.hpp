// Friction: tangential force and resistance torques of a contact.
#pragma once

#include "contactlab/contact.hpp"
#include "contactlab/contact_law.hpp"
#include "contactlab/export.hpp"

namespace contactlab {

class CONTACTLAB_VISIBLE Friction : public ContactLaw {
 public:
  /// Friction on body B at the contact point given the normal force magnitude [N] (≥ 0). The law's
  /// memory is state.friction.
  virtual FrictionResult compute(const ContactKinematics& contact, double normal_force_N,
                                 const ContactState& state) const = 0;
};

}  // namespace contactlab
