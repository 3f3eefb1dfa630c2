// What the narrow phase reports about a pair, what a force law and a friction law see of a contact,
// and the state a contact carries through its life.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string_view>
#include <type_traits>

#include "contactlab/materials.hpp"
#include "contactlab/math.hpp"
#include "contactlab/shapes.hpp"

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
/// creation (empty). A plugin keeps its own trivially copyable entry in it, through
/// cache_entry() and cached_entry() below, tagged by the plugin and the pair's shape types
/// (NarrowPhaseCacheTag), so that an entry one plugin wrote, or wrote for another shape pair, is
/// never read as another's: it reads as empty.
struct NarrowPhaseCache {
  static constexpr std::size_t capacity_bytes = 128;
  std::uint64_t tag = 0;  ///< the tag of the entry held (NarrowPhaseCacheTag::of); 0: empty
  alignas(8) std::array<std::byte, capacity_bytes> bytes{};
};

/// A plugin's cache tag: an FNV-1a hash of its name, combined with the pair's shape types by of().
/// Never 0 (the empty cache's tag). Declare one per plugin as a constant:
/// `constexpr NarrowPhaseCacheTag kCacheTag{"gjk_epa"};`.
class NarrowPhaseCacheTag {
 public:
  constexpr explicit NarrowPhaseCacheTag(std::string_view plugin_name) {
    for (const char c : plugin_name) {
      hash_ = (hash_ ^ static_cast<std::uint8_t>(c)) * 0x100000001b3ull;
    }
  }
  /// The tag of this plugin's entries for shape A of type `a` and shape B of type `b`.
  constexpr std::uint64_t of(ShapeType a, ShapeType b) const {
    const auto pair = static_cast<std::uint64_t>(a) * 64u + static_cast<std::uint64_t>(b) + 1u;
    const std::uint64_t tag = (hash_ ^ pair) * 0x100000001b3ull;
    return tag == 0 ? 1 : tag;
  }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

/// The entry of type Entry that the cache holds for `tag`, or null when it holds none (empty, or
/// another plugin's or shape pair's).
template <class Entry>
const Entry* cached_entry(const NarrowPhaseCache& cache, std::uint64_t tag) {
  static_assert(std::is_trivially_copyable_v<Entry>, "a cache entry is copied as bytes");
  static_assert(sizeof(Entry) <= NarrowPhaseCache::capacity_bytes, "the entry must fit the cache");
  static_assert(alignof(Entry) <= 8, "the cache's storage is 8-byte aligned");
  if (cache.tag != tag) return nullptr;
  return std::launder(reinterpret_cast<const Entry*>(cache.bytes.data()));
}

/// The entry of type Entry for `tag`, to be written: the one the cache holds, or a
/// value-initialised one that replaces whatever it held.
template <class Entry>
Entry& cache_entry(NarrowPhaseCache& cache, std::uint64_t tag) {
  static_assert(std::is_trivially_copyable_v<Entry>, "a cache entry is copied as bytes");
  static_assert(sizeof(Entry) <= NarrowPhaseCache::capacity_bytes, "the entry must fit the cache");
  static_assert(alignof(Entry) <= 8, "the cache's storage is 8-byte aligned");
  if (cache.tag != tag) {
    cache.tag = tag;
    return *::new (static_cast<void*>(cache.bytes.data())) Entry{};
  }
  return *std::launder(reinterpret_cast<Entry*>(cache.bytes.data()));
}

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
