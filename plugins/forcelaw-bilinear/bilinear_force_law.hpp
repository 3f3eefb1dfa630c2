// Bilinear normal force law of Stronge, and Chatterjee's variant (Ullrich 1998, §2.4.2, Fig. 2.2).
#pragma once

#include <cstdint>

#include <contactlab/force_law.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// A penalty realisation of Stronge's energetic coefficient of restitution e² = W_r / W_c
/// (Ullrich (1998) eq. 2.10, with the works in magnitude; the thesis's wording swaps W_r and W_c).
/// δ is the penetration, δ̇ its rate (> 0 approaching), k₁ = stiffness_N_per_m, and e the pair
/// material's restitution unless the `restitution` parameter overrides it.
///
/// variant: stronge (default; Ullrich §2.4.2, after Stronge [59])
///   - loading:    f = k₁·δ until maximum compression (event "max_compression", g = δ̇);
///   - unloading:  f = k₂·(δ − δ_r), k₂ = k₁/e², along the line through (δ_max, k₁·δ_max): the
///   force
///                 is continuous at the switch and δ_r = δ_max·(1 − e²) is the residual
///                 indentation;
///   - released:   the force reached zero at δ = δ_r (event "force_zero", g = the unloading line's
///                 force) and stays 0 while δ ≤ δ_r, until the contact dies geometrically.
///   Re-compression before the contact dies: the contact reloads elastically along the unloading
///   line (force again k₂·(δ − δ_r) once δ > δ_r, no further loss); past δ_max (event "reloading",
///   g = δ_max − δ) it is back on the loading line k₁·δ, the next maximum compression is a new
///   switch with a new δ_max. So f is one continuous function of δ given the memory (δ_max, δ_r):
///     f = 0 (δ ≤ δ_r),  k₁·δ_max·(δ − δ_r)/(δ_max − δ_r) (δ_r < δ < δ_max),  k₁·δ (δ ≥ δ_max),
///   with δ_max = δ_r = 0 before the first maximum. The mode only labels the branch for events.csv:
///   mode 2 (released) means "the force has returned to zero since the last maximum compression"
///   and is kept if the contact re-compresses past δ_r. Energy: W_c = ½k₁δ_max², W_r = ½k₂(δ_max −
///   δ_r)² = e²·W_c, so a 1-DOF impact leaves at e times its approach speed.
///   e = 0 is the limit k₂ = ∞, δ_r = δ_max: the force drops to zero at maximum compression (mode
///   released at once, force_zero never fires) — a perfectly plastic ratchet. Under a sustained
///   load it cannot rest (the bodies creep inward through repeated max_compression events); e → 0
///   makes the unloading stiff (Ullrich, after Chatterjee [14]).
///
/// variant: chatterjee (Ullrich §2.4.2: "the loading and unloading lines are constrained to pass
/// through the origin, and a 'jump' occurs at the point of maximum compression. In this case
/// k₂ < k₁.")
///   - loading:    f = k₁·δ until maximum compression (event "max_compression", g = δ̇);
///   - unloading:  f = k₂·δ with k₂ = e²·k₁: the force jumps down from k₁·δ_max to e²·k₁·δ_max.
///   The thesis gives no formula for k₂; k₂ = e²·k₁ is the value for which W_r/W_c = k₂/k₁ = e²
///   (eq. 2.10), so the 1-DOF exit speed is again e times the approach speed. The force returns to
///   zero only at δ = 0, where the contact dies, so there is no force_zero event. Re-compression:
///   after the first maximum compression the contact stays on the elastic line k₂·δ until it dies
///   (no second jump, no further loss). Consequence: a contact resting under a load F settles at
///   δ = F/k₂, 1/e² deeper than on the loading line, and with e = 0 it carries no load at all after
///   its first maximum compression. The variant is meant for impacts; use stronge for contacts
///   that rest.
///
/// Memory (LawMemory): mode (Mode), data[0] = δ_max [m], data[1] = δ_r [m], data[2] = k₂ [N/m]
/// (+∞ for stronge with e = 0), data[3] = the e in use; all zero before the first maximum
/// compression. A zeroed memory (a provisional contact, or on_birth) is the loading branch.
///
/// Energy: potential_energy(contact, state) is stored_energy(contact, state.law), the exact
/// elastic energy:
///   stronge:    0 (δ ≤ δ_r), ½·f·(δ − δ_r) = ½k₂(δ − δ_r)² (δ_r < δ < δ_max),
///               ½k₁(δ² − δ_r·δ_max) (δ ≥ δ_max: loading; continuous at δ_max);
///   chatterjee: ½k₁δ² loading, ½k₂δ² unloading.
/// The energy lost at a maximum compression is (1 − e²)·½k₁δ_max², booked at the switch; with it,
/// kinetic + stored energy never increases, re-compression included.
class BilinearForceLaw final : public ForceLaw {
 public:
  enum class Variant { stronge, chatterjee };
  enum Mode : std::int32_t { loading = 0, unloading = 1, released = 2 };
  enum EventIndex : int { max_compression_event = 0, force_zero_event = 1, reloading_event = 2 };
  static constexpr int max_compression_slot = 0;       ///< data[0]: δ_max [m]
  static constexpr int residual_indentation_slot = 1;  ///< data[1]: δ_r [m]
  static constexpr int unloading_stiffness_slot = 2;   ///< data[2]: k₂ [N/m]
  static constexpr int restitution_slot = 3;           ///< data[3]: e

  explicit BilinearForceLaw(const ParameterValues& params);
  static ParameterSchema schema();

  ForceLawRequirements requirements() const override;
  double normal_force(const ContactKinematics& contact, const ContactState& state) const override;
  /// stored_energy(contact, state.law).
  double potential_energy(const ContactKinematics& contact,
                          const ContactState& state) const override;
  /// The elastic energy stored in the contact given its memory (see the class comment).
  double stored_energy(const ContactKinematics& contact, const LawMemory& memory) const;

  /// stronge: 3 event functions (max_compression, force_zero, reloading); chatterjee: 1.
  ContactLawLayout layout() const override;
  void on_birth(const ContactKinematics& contact, LawMemory& memory) const override;
  /// g[0] = δ̇ while on the loading line, g[1] = the unloading line's force k₂(δ − δ_r) after a
  /// maximum compression (stronge), g[2] = δ_max − δ after a maximum compression (stronge);
  /// −1 when a function does not apply (never armed).
  void event_functions(const ContactKinematics& contact, double normal_force_N,
                       const LawMemory& memory, std::span<double> g) const override;
  const char* event_name(int index) const override;
  void on_event(int index, const ContactKinematics& contact, double normal_force_N,
                LawMemory& memory) const override;

  /// The restitution e in use for this contact: the `restitution` parameter if set, else the pair
  /// material's (SimulationError unless it lies in [0, 1]).
  double restitution(const ContactKinematics& contact) const;
  Variant variant() const { return variant_; }
  double loading_stiffness_N_per_m() const { return loading_stiffness_N_per_m_; }

 private:
  double loading_stiffness_N_per_m_;
  double restitution_override_;  ///< < 0: use the pair material's restitution
  Variant variant_;
};

}  // namespace contactlab::plugins
