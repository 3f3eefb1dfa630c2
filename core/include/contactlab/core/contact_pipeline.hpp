// The contact pipeline: from the bodies' poses at a configuration q to the contact set — the pairs
// of geometries that may touch, each with its narrow phase's manifold — with the broad phase, its
// proxies (loose and optionally swept boxes), the collision filter, the narrow-phase chain and the
// per-pair warm-start caches inside.
//
// Two ways to ask:
//   update(X_WB, watched)      the run's detection. It commits: moves the run's proxies, writes the
//                              pairs' caches, replaces contacts(). Its answers depend on that
//                              history (warm starts end within a narrow phase's tolerance, not
//                              bit for bit; an incremental broad phase's pair order), so only the
//                              run itself calls it.
//   probe(X_WB, watched, out)  the same question at a trial configuration, without side effects
//                              on the run: it reads the run's caches (a warm start from the last
//                              update) but queries with copies, and uses its own broad phase,
//                              narrow-phase instances and scratch (it is const: the run's boxes,
//                              caches and contact set cannot change). Its pairs are in ascending
//                              (a, b) order (then
//                              the watched pairs not found by its broad phase), so its answer
//                              does not depend on earlier probes.
//
// `watched` pairs are queried whatever the broad phase says (the living contacts: their
// separation must be seen as a distance). The contact set carries, for each point, what a solver
// needs to form the contact Jacobian without going back into the pipeline: the two bodies, the
// normal n (A → B) and the witness points in the world frame at the configuration asked for.
// With the point Jacobians J_A(p), J_B(p) of the bodies at that configuration (p the midpoint of
// the witness points, the point the force laws act at), a normal row is nᵀ·(J_B(p) − J_A(p)); a
// point in a body's frame is X_WB⁻¹·p with the poses given.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "contactlab/broad_phase.hpp"
#include "contactlab/core/narrow_phase_chain.hpp"
#include "contactlab/core/scene.hpp"

namespace contactlab::core {

/// Identity of an unordered geometry pair: (a << 32) | b with a < b.
using PairKey = std::uint64_t;
inline PairKey pair_key(std::size_t a, std::size_t b) {
  return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint64_t>(b);
}
inline std::size_t first_geometry(PairKey key) {
  return static_cast<std::size_t>(key >> 32);
}
inline std::size_t second_geometry(PairKey key) {
  return static_cast<std::size_t>(key & 0xffffffffu);
}

/// One pair of geometries that may touch, with its narrow phase's answer.
struct ContactPair {
  std::size_t geometry_a = 0, geometry_b = 0;  ///< indices into Scene::geometries, a < b
  std::size_t body_a = 0, body_b = 0;          ///< their bodies (indices into Scene::bodies)
  /// points[0] is the deepest (its distance is the pair's signed distance); distances, normals
  /// (unit, A → B) and witness points in the world frame.
  ContactManifold manifold;
  const ContactGeometry& deepest() const { return manifold.points[0]; }
  /// Point i where the force laws act: the midpoint of its witness points [m, world].
  Vec3 point_W(int i) const {
    const ContactGeometry& g = manifold.points[static_cast<std::size_t>(i)];
    return 0.5 * (g.point_a_W + g.point_b_W);
  }
};

struct ContactSet {
  /// The admitted broad-phase pairs, then the watched pairs the broad phase did not report.
  std::vector<ContactPair> pairs;
  /// For each watched pair (in the order given), its index in `pairs`.
  std::vector<std::size_t> watched;
};

struct ContactPipelineStatistics {
  std::int64_t detections = 0;            ///< update() calls
  std::int64_t narrow_phase_queries = 0;  ///< update()'s queries
  std::int64_t probe_queries = 0;         ///< probe()'s queries (not in the others)
  double broad_phase_s = 0.0;             ///< update(): boxes, proxies, pairs [s]
  double narrow_phase_s = 0.0;            ///< update(): filter and queries [s]
};

class ContactPipeline {
 public:
  /// Creates the broad phase and the narrow-phase chain (dispatching through the scene's table),
  /// and a second broad phase and chain for probe().
  ContactPipeline(const Scene& scene, PluginRegistry& registry);
  ~ContactPipeline();

  /// The run's detection at the body poses X_WB (Scene::bodies order); see the file comment.
  /// With X_WB_ahead (the poses a step will reach without contact, for a time-stepping
  /// integrator), each box also covers its pose there, so that pairs the step may bring into
  /// contact are reported (and answered at X_WB, touching or not).
  const ContactSet& update(std::span<const Pose> X_WB, std::span<const PairKey> watched,
                           std::span<const Pose> X_WB_ahead = {});
  /// The contact set of the last update().
  const ContactSet& contacts() const { return contacts_; }
  /// update() calls so far (names a contact set: equal counts, same set).
  std::int64_t detections() const { return stats_.detections; }
  /// The boxes of the last update() become those the next swept boxes start from (called after
  /// every right-hand side evaluation).
  void keep_boxes() { proxy_step_box_ = proxy_box_; }

  /// The contact set at the body poses X_WB into `out`, without side effects on the run; see the
  /// file comment. Boxes are loose but not swept (a trial configuration has no last step).
  void probe(std::span<const Pose> X_WB, std::span<const PairKey> watched, ContactSet& out) const;

  ContactPipelineStatistics statistics() const {
    ContactPipelineStatistics out = stats_;
    out.probe_queries = probe_.queries;
    return out;
  }
  /// The counters of each narrow phase of the run's chain (not probe()'s), in chain order.
  std::vector<NarrowPhaseStatistics> narrow_phase_statistics() const { return chain_.statistics(); }

 private:
  /// What the pipeline keeps of a pair across detections (created at its first query).
  struct PairSlot {
    NarrowPhaseCache cache;
    std::int64_t seen = -1;  ///< detection at which it was last queried
    std::size_t index = 0;   ///< its index in contacts_.pairs then
  };
  /// probe()'s own broad phase, narrow phases and buffers.
  struct ProbeScratch {
    std::shared_ptr<BroadPhase> broad_phase;
    std::unique_ptr<NarrowPhaseChain> chain;
    bool proxies_inserted = false;
    std::vector<Pose> X_WG;
    std::vector<ProxyPair> pairs;
    std::vector<PairKey> keys;  ///< of the pairs queried from the broad phase, ascending
    std::int64_t queries = 0;
  };
  /// Geometry poses of the proxies at X_WB into X_WG.
  void geometry_poses(std::span<const Pose> X_WB, std::vector<Pose>& X_WG) const;
  /// Loose box of proxy p at the poses X_WG.
  Aabb loose_box(std::size_t p, const std::vector<Pose>& X_WG) const;
  /// Queries geometries a < b with the chain member their shapes dispatch to (throws when none).
  void query(const NarrowPhaseChain& chain, std::size_t a, std::size_t b,
             const std::vector<Pose>& X_WG, NarrowPhaseCache& cache, ContactPair& out) const;

  const Scene& scene_;
  std::shared_ptr<BroadPhase> broad_phase_;
  NarrowPhaseChain chain_;
  std::vector<std::size_t> proxy_geometry_;  ///< proxy id → geometry index (ascending)
  std::vector<Pose> X_WG_;                   ///< per geometry (proxies only), at the last update
  std::vector<Pose> X_WG_ahead_;             ///< per geometry, update()'s X_WB_ahead
  std::vector<Aabb> proxy_box_;              ///< the current (loose) box of each proxy, unswept
  std::vector<Aabb> proxy_step_box_;         ///< its box at the last keep_boxes() (for sweeping)
  bool proxies_inserted_ = false;            ///< proxies enter the broad phase at the first update
  std::vector<ProxyPair> pairs_;
  ContactSet contacts_;
  std::unordered_map<PairKey, PairSlot> slots_;  ///< per pair ever queried by update()
  mutable ProbeScratch probe_;                   ///< probe()'s alone: the run never reads it
  ContactPipelineStatistics stats_;
};

}  // namespace contactlab::core
