// ForceLaw: the normal contact force from penetration, its rate and the contact's memory.
#pragma once

#include "contactlab/contact.hpp"
#include "contactlab/contact_law.hpp"
#include "contactlab/export.hpp"

namespace contactlab {

struct ForceLawRequirements {
  bool effective_radius = false;   ///< needs a finite R* (curvature), e.g. Hertz
  bool effective_modulus = false;  ///< needs E* from the solid materials
  /// Applies a velocity jump at contact birth (impact_restitution()): needs an integrator that
  /// can restart from a state the host changed (IntegratorCapabilities::state_reset).
  bool impulsive = false;
};

/// Returned by impact_restitution() when no impulse is applied.
inline constexpr double no_impulse = -1.0;

class CONTACTLAB_VISIBLE ForceLaw : public ContactLaw {
 public:
  virtual ForceLawRequirements requirements() const = 0;
  /// Magnitude of the normal force [N] pushing B along +normal and A along −normal. Called while
  /// the contact lives (from its contact-start event to its contact-end event). A return value
  /// ≥ 0 means the law never pulls.
  virtual double normal_force(const ContactKinematics& contact,
                              const ContactState& state) const = 0;
  /// Elastic energy stored in the contact [J] (what the law would return on unloading), used for
  /// the energy balance in summary.json; laws with memory read it from state.law. Laws without a
  /// potential return 0.
  virtual double potential_energy(const ContactKinematics& contact,
                                  const ContactState& state) const = 0;
  /// Signed distance [m] below which a contact is born (and above which it dies). 0: touching.
  /// A positive value lets a law act before touching (Engelson's threshold T).
  virtual double activation_distance_m() const { return 0.0; }
  /// Impulsive laws (requirements().impulsive): Newton's coefficient e ≥ 0 for the velocity jump
  /// the host applies at the contact's birth (normal relative velocity −e times the approach
  /// velocity, through both bodies' inverse inertia), or no_impulse to let normal_force() hold the
  /// contact (e.g. below a resting velocity).
  virtual double impact_restitution(const ContactKinematics& /*contact*/) const {
    return no_impulse;
  }
};

}  // namespace contactlab
