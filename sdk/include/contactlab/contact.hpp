// What the narrow phase reports about a pair, what a force law and a friction law see of a contact,
// and the state a contact carries through its life.
#pragma once

#include <array>
#include <cstdint>

#include "contactlab/materials.hpp"
#include "contactlab/math.hpp"

namespace contactlab {

/// Result of a narrow-phase query for shapes A and B.
///
/// `distance_m` is signed: positive when separated, zero when touching, negative when penetrating
/// (then −distance is the penetration depth). `normal_W` is a unit vector from A to B in world
/// coordinates. The witness points lie on the boundaries of A and B and satisfy
/// point_b_W − point_a_W = distance_m · normal_W.
struct ContactGeometry {
  double distance_m = 0.0;
  Vec3 normal_W = Vec3::UnitZ();
  Vec3 point_a_W = Vec3::Zero();
  Vec3 point_b_W = Vec3::Zero();
};

/// Up to four contact points of one pair: the deepest first (its distance is the pair's signed
/// distance, which decides contact start and end). Narrow phases that report a single point set
/// count = 1; flat contacts (box on plane, face on face) may report the corners of the contact
/// patch so that resting boxes do not rock on a single point.
inline constexpr int max_manifold_points = 4;
struct ContactManifold {
  std::array<ContactGeometry, max_manifold_points> points{};
  std::int32_t count = 1;
  const ContactGeometry& deepest() const { return points[0]; }
};

/// Per-pair scratch memory owned by the host, kept while the pair stays a broad-phase candidate,
/// so a narrow phase can warm-start (previous separating axis, simplex, portal). Zeroed on
/// creation.
struct NarrowPhaseCache {
  std::array<double, 16> data{};
  std::int32_t valid = 0;
};

/// Everything a normal force law or a friction law may use about one contact, at one instant.
/// Body A and body B are the bodies of the pair's first and second geometry.
struct ContactKinematics {
  double time_s = 0.0;
  double distance_m = 0.0;     ///< signed distance of the pair (< 0 penetrating) [m]
  double penetration_m = 0.0;  ///< δ = max(0, −distance) ≥ 0
  double penetration_rate_m_per_s =
      0.0;  ///< δ̇ = −(v_B − v_A)·n at the contact point; > 0 approaching
  double impact_velocity_m_per_s = 0.0;  ///< δ̇ when the contact was born (the pre-impact speed)
  double effective_radius_m = 0.0;       ///< R* = (1/R_A + 1/R_B)⁻¹; +∞ when both are flat
  double effective_modulus_Pa = 0.0;  ///< E* = [(1−ν_A²)/E_A + (1−ν_B²)/E_B]⁻¹ (Neumayr eq. 7.2)
  /// m* = (1/m_A + 1/m_B)⁻¹ for free bodies (a body welded to the world has m = ∞); when a body
  /// is part of a joint tree, the contact's effective mass along the normal through the tree,
  /// 1/(n·J·M⁻¹·Jᵀ·n) at the contact point [kg].
  double effective_mass_kg = 0.0;
  Vec3 normal_W = Vec3::UnitZ();        ///< unit contact normal from A to B
  Vec3 point_W = Vec3::Zero();          ///< contact point: midpoint of the witness points [m]
  Vec3 slip_velocity_W = Vec3::Zero();  ///< tangential part of v_B − v_A at the contact point [m/s]
  Vec3 relative_angular_velocity_W = Vec3::Zero();  ///< ω_B − ω_A [rad/s]
  PairMaterial material;                            ///< the pair's material
};

/// Most continuous states and event functions one law may declare per contact.
inline constexpr int max_law_continuous_states = 4;
inline constexpr int max_law_event_functions = 4;

/// The memory one law (the force law, or the friction law) keeps for one contact.
struct LawMemory {
  std::int32_t mode = 0;         ///< discrete state (e.g. loading/unloading, stick/slip)
  std::array<double, 8> data{};  ///< discrete memory (e.g. maximum compression, impact speed)
  /// Continuous states (e.g. LuGre bristle deflection). They are part of the integrated state while
  /// the contact lives: the host copies the current values here before every call, and integrates
  /// the rates the law reports from continuous_rate().
  std::array<double, max_law_continuous_states> x{};
};

/// Memory of one contact between its birth (signed distance crossing the force law's activation
/// distance, zero by default) and its death (separation). The host owns it; laws read it, and
/// update their own LawMemory in ContactLaw::on_birth and ContactLaw::on_event. Fixed-size so it
/// never allocates.
struct ContactState {
  double birth_time_s = 0.0;
  double impact_velocity_m_per_s = 0.0;  ///< δ̇ at birth
  LawMemory law;                         ///< the force law's memory
  LawMemory friction;                    ///< the friction law's memory
};

/// Tangential force and torque of friction, acting on body B at the contact point (A receives the
/// opposite), in world coordinates.
struct FrictionResult {
  Vec3 force_W = Vec3::Zero();   ///< [N], tangential to the contact plane
  Vec3 torque_W = Vec3::Zero();  ///< rolling/drilling resistance torque on B [N·m]
};

}  // namespace contactlab
