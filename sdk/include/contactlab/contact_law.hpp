// ContactLaw: the per-contact life cycle hooks shared by force laws and friction laws.
#pragma once

#include <cstdint>
#include <span>

#include "contactlab/contact.hpp"
#include "contactlab/export.hpp"

namespace contactlab {

/// What one law keeps per contact besides its discrete LawMemory.
struct ContactLawLayout {
  std::int32_t continuous_states = 0;  ///< ≤ max_law_continuous_states
  std::int32_t event_functions = 0;    ///< ≤ max_law_event_functions
};

/// Life-cycle hooks of a law with memory. A ForceLaw owns ContactState::law, a Friction owns
/// ContactState::friction; the hooks receive that LawMemory. All defaults do nothing, so a
/// memoryless law overrides none of them.
///
/// Event functions follow one sign convention: the host arms an event function while it is
/// positive and fires it when it becomes ≤ 0 (e.g. bilinear loading uses g = δ̇ and switches to
/// unloading at maximum compression). The integrator locates the crossing (root finding, or
/// bisection of the fixed step), then the host calls on_event() and writes the event to
/// events.csv under event_name(). A handler that leaves its g ≤ 0 disarms it until g > 0 again.
class CONTACTLAB_VISIBLE ContactLaw {
 public:
  virtual ~ContactLaw() = default;
  /// Continuous states and event functions per contact (constant for the law's lifetime).
  virtual ContactLawLayout layout() const { return {}; }
  /// At the contact's birth: initialise the memory (mode, data, and the continuous states x).
  virtual void on_birth(const ContactKinematics& /*contact*/, LawMemory& /*memory*/) const {}
  /// Time derivatives of the continuous states: writes layout().continuous_states values.
  virtual void continuous_rate(const ContactKinematics& /*contact*/, double /*normal_force_N*/,
                               const LawMemory& /*memory*/, std::span<double> /*rate*/) const {}
  /// Values of the event functions: writes layout().event_functions values.
  virtual void event_functions(const ContactKinematics& /*contact*/, double /*normal_force_N*/,
                               const LawMemory& /*memory*/, std::span<double> /*g*/) const {}
  /// Name of event function `index` for events.csv (a static string, e.g. "unloading").
  virtual const char* event_name(int /*index*/) const { return "law_event"; }
  /// Event function `index` crossed zero: update the discrete memory (and, rarely, x).
  virtual void on_event(int /*index*/, const ContactKinematics& /*contact*/,
                        double /*normal_force_N*/, LawMemory& /*memory*/) const {}
};

}  // namespace contactlab
