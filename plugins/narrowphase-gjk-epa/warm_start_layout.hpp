// What gjk_epa keeps in a pair's NarrowPhaseCache between queries (its layout), and how a
// kept closest pair is read back.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <contactlab/shapes.hpp>

#include <contactlab/contact.hpp>

namespace contactlab::plugins::gjk_epa {

// Stored in NarrowPhaseCache::data: [0] number of directions, [1..12] up to four support
// directions in A's frame, [13], [14] the shape types the entry was made for, [15] the hull
// vertices the last supports of A and B ended at, packed as a + kVertexPacking·b (the start
// vertices of the next query's hill climbs; exact in a double below 2^26 vertices each).
constexpr int kCacheCount = 0;
constexpr int kCacheDirections = 1;
constexpr int kCacheTypeA = 13;
constexpr int kCacheTypeB = 14;
constexpr int kCacheVertices = 15;
constexpr int kVertexBits = 26;
constexpr std::uint64_t kVertexMask = (std::uint64_t{1} << kVertexBits) - 1;
constexpr double kVertexPacking = static_cast<double>(std::uint64_t{1} << kVertexBits);
// A hull with a hull or a box, after EPA: [0] holds −k and [1..k] k (4 ≤ k ≤ kMaxWarmPairs) points
// of M as packed vertex pairs a + kVertexPacking·b, in place of support directions: the contact
// face's three corners, the polytope's point lowest along the face normal (the four GJK restarts
// from), then the vertices of the live faces nearest to the origin, which seed EPA's polytope
// before it expands (the ring of M's vertices around the contact that EPA would otherwise find one
// support at a time; 4 of them measured best against 2, 3, 5, 6 and 8). Any vertex pair is a point
// of M, so the seeds keep the polytope inside M at any pose and EPA's answer exact; at a nearby
// pose they are the vertices EPA needs.
constexpr int kMaxWarmPairs = 8;
// Polytope cores separated at one point of M (a one-point answer: a vertex over a vertex, an
// edge or a face): [0] holds −1, [1..3] the closest point of A's core in A's frame, [4..6] that
// of B's core in B's frame, a hull's as its vertex number (keep_one_point()). Any pair of points
// of the cores is a point of M, so at any later pose the pair is a start point, and after a small
// motion the closest one: GJK's first iteration from it, one support, certifies the distance,
// where a support along a cached direction, the normal before the motion, returned the same pair
// without certifying it (the direction is off the new normal by the turn) and GJK took a second
// support. Each point is projected on its core before use (cached_core_point()): an entry made
// for other shapes of the same types must not bring a point outside M.
constexpr double kCacheOnePoint = -1.0;
constexpr int kCachePointA = 1;
constexpr int kCachePointB = 4;

}  // namespace contactlab::plugins::gjk_epa
