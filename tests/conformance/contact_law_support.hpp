// What the force-law and friction conformance suites share about ContactLaw (contact_law.hpp):
// the checks of a law's declared layout and of what its hooks write, a grid of contact
// kinematics, and a driver that runs one contact's memory through prescribed kinematics as the
// host would (continuous states integrated, events fired and handled).
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "contactlab/contact_law.hpp"

namespace contactlab::conformance {

/// layout() within the SDK's limits (0..max_law_continuous_states, 0..max_law_event_functions),
/// the same on every call, and a non-empty event_name() for each event function. Returns it.
ContactLawLayout checked_layout(const ContactLaw& law);

/// continuous_rate() and event_functions() write exactly the declared number of values, all
/// finite, and nothing past them (the spans handed over are views into larger, sentinel-filled
/// buffers). Fails naming `where`.
void check_hook_outputs(const ContactLaw& law, const ContactLawLayout& layout,
                        const ContactKinematics& contact, double normal_force_N,
                        const LawMemory& memory, const std::string& where);

/// The law's memory of a contact born with `birth` (on_birth on a zeroed LawMemory).
LawMemory born(const ContactLaw& law, const ContactKinematics& birth);

/// A contact at the pair material and geometry of a steel ball on steel: R* = 0.05 m, E* =
/// 1.15e11 Pa, m* = 1 kg, restitution 0.8, μ_k = 0.3, μ_s = 0.5, μ_r = 0.01, normal +z.
ContactKinematics steel_contact();

/// "(δ = …, δ̇ = …, v_impact = …, R* = …, …)": every input of a contact, for messages.
std::string describe(const ContactKinematics& contact);

/// One contact driven through prescribed kinematics.
struct DrivenContact {
  /// The contact at time t (the suite's prescribed motion).
  std::function<ContactKinematics(double t)> kinematics;
  /// The normal force the law is given at (t, kinematics, memory): the force law's own, or a
  /// prescribed one for a friction law.
  std::function<double(const ContactKinematics&, const LawMemory&)> normal_force;
};

/// Runs `memory` from t = 0 to t_end in `steps` equal steps as the host would: the law's
/// continuous states by backward Euler (stiff bristle and spring states stay stable at any step;
/// Newton on a difference-quotient Jacobian), its event functions armed while positive and fired
/// (on_event) when they become ≤ 0 at the end of a step, then evaluated again. `visit` sees every
/// step's end, after its events. Fails when a hook writes a non-finite value.
void drive(const ContactLaw& law, const ContactLawLayout& layout, LawMemory& memory,
           const DrivenContact& contact, double t_end, int steps,
           const std::function<void(double t, const ContactKinematics&, const LawMemory&)>& visit);

}  // namespace contactlab::conformance
