// What gjk_epa keeps in a pair's NarrowPhaseCache between queries (CacheEntry, written and read
// through contactlab/contact.hpp's cache_entry()/cached_entry() under kCacheTag), and how a kept
// closest pair is read back (warm_start.hpp).
#pragma once

#include <array>
#include <cstdint>

#include <contactlab/contact.hpp>

namespace contactlab::plugins::gjk_epa {

/// The plugin's tag: an entry written for one pair of shape types reads as empty for another, and
/// so does another plugin's (kCacheTag.of(a.type, b.type)).
inline constexpr NarrowPhaseCacheTag kCacheTag{"gjk_epa"};

/// A point of M named by the vertices it is the difference of: a hull's vertex numbers, a box's
/// corner numbers (corner_id()). Any vertex pair is a point of M, at any pose.
struct VertexPair {
  std::uint32_t a;
  std::uint32_t b;
};

/// Hull–hull and hull–box pairs after EPA: at most this many vertex pairs (the contact face's
/// three corners, the polytope's point lowest along the face normal, then the vertices of the live
/// faces nearest to the origin, which seed EPA's polytope before it expands: the ring of M's
/// vertices around the contact that EPA would otherwise find one support at a time). At a nearby
/// pose they are the vertices EPA needs, and since any vertex pair is a point of M, the seeds keep
/// the polytope inside M at any pose and EPA's answer exact.
constexpr int kMaxWarmPairs = 8;

/// What the next query starts from.
enum class WarmStart : std::int32_t {
  none = 0,
  /// `count` (1..4) support directions of M in A's frame: the final simplex's, the polished
  /// direction after Newton steps on separated curved cores, or after EPA those of the contact
  /// face plus the direction opposite its normal (polytope cores) or of EPA's initial tetrahedron
  /// (curved cores). GJK restarts from their supports.
  directions,
  /// `count` (4..kMaxWarmPairs) vertex pairs (a hull with a hull or a box, after EPA or a face
  /// certificate): the first four restart GJK, the others seed EPA; no supports for any of them.
  vertex_pairs,
  /// Polytope cores separated at one point of M (a vertex over a vertex, an edge or a face): the
  /// closest point of A's core in A's frame and of B's core in B's frame, a hull's as its vertex
  /// number (keep_one_point()). Any pair of points of the cores is a point of M, so at any later
  /// pose the pair is a start point, and after a small motion the closest one: GJK's first
  /// iteration from it, one support, certifies the distance, where a support along a cached
  /// direction (the normal before the motion, off the new one by the turn) returned the same pair
  /// without certifying it. Each point is projected on its core before use (cached_core_point()):
  /// an entry made for other shapes of the same types must not bring a point outside M.
  closest_pair,
};

/// A closest pair of polytope cores (WarmStart::closest_pair): a point of a box's or capsule's core
/// (a sphere's is its centre), or a hull's vertex.
struct ClosestPair {
  std::array<double, 3> point_a;  // A's frame [m]
  std::array<double, 3> point_b;  // B's frame [m]
  std::uint32_t vertex_a;         // for a hull in place of the point
  std::uint32_t vertex_b;
};

/// The pair's entry. The shape types are in the tag.
struct CacheEntry {
  WarmStart kind;
  std::int32_t count;  // directions or vertex pairs held
  // The hull vertices the last supports of A and B ended at: where the next hill climbs start.
  std::uint32_t start_vertex_a;
  std::uint32_t start_vertex_b;
  union {  // by `kind`
    std::array<std::array<double, 3>, 4> directions;
    std::array<VertexPair, kMaxWarmPairs> pairs;
    ClosestPair closest;
  };
};

}  // namespace contactlab::plugins::gjk_epa
