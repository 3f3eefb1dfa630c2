// The contact pipeline: poses → boxes → broad phase → collision filter → narrow-phase chain
// (see contact_pipeline.hpp).
#include "contactlab/core/contact_pipeline.hpp"

#include <algorithm>
#include <string>

#include "contactlab/core/shape_library.hpp"
#include "contactlab/errors.hpp"

namespace contactlab::core {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

ContactPipeline::ContactPipeline(const Scene& scene, PluginRegistry& registry)
    : scene_(scene),
      broad_phase_(registry.create<BroadPhase>(*scene.broad_phase.info, scene.broad_phase.params)),
      chain_(scene.narrow_phase, registry, scene.narrow_phase_dispatch) {
  probe_.broad_phase =
      registry.create<BroadPhase>(*scene.broad_phase.info, scene.broad_phase.params);
  probe_.chain =
      std::make_unique<NarrowPhaseChain>(scene.narrow_phase, registry, scene.narrow_phase_dispatch);
  X_WG_.resize(scene.geometries.size());
  probe_.X_WG.resize(scene.geometries.size());
  for (std::size_t g = 0; g < scene.geometries.size(); ++g)
    if (scene.geometries[g].collidable) proxy_geometry_.push_back(g);
  proxy_box_.resize(proxy_geometry_.size());
  proxy_step_box_.resize(proxy_geometry_.size());
  pairs_.reserve(4 * proxy_geometry_.size() + 16);
  contacts_.pairs.reserve(4 * proxy_geometry_.size() + 16);
}

ContactPipeline::~ContactPipeline() = default;

void ContactPipeline::geometry_poses(std::span<const Pose> X_WB, std::vector<Pose>& X_WG) const {
  for (const std::size_t g : proxy_geometry_)
    X_WG[g] = X_WB[scene_.geometries[g].body] * scene_.geometries[g].X_BG;
}

Aabb ContactPipeline::loose_box(std::size_t p, const std::vector<Pose>& X_WG) const {
  const Vec3 margin = Vec3::Constant(scene_.aabb_margin_m);
  const std::size_t g = proxy_geometry_[p];
  Aabb box = shape_aabb(scene_.geometries[g].shape, X_WG[g]);
  box.min_W -= margin;
  box.max_W += margin;
  return box;
}

void ContactPipeline::query(const NarrowPhaseChain& chain, std::size_t a, std::size_t b,
                            const std::vector<Pose>& X_WG, NarrowPhaseCache& cache,
                            ContactPair& out) const {
  const GeometryModel& ga = scene_.geometries[a];
  const GeometryModel& gb = scene_.geometries[b];
  const int member = chain.member(ga.shape.type, gb.shape.type);
  if (member == NarrowPhaseDispatch::none)
    throw SimulationError(std::string("no narrow phase supports ") +
                          shape_type_name(ga.shape.type) + "–" + shape_type_name(gb.shape.type));
  out.geometry_a = a;
  out.geometry_b = b;
  out.body_a = ga.body;
  out.body_b = gb.body;
  chain.query(member, ga.shape, X_WG[a], gb.shape, X_WG[b], cache, out.manifold);
}

const ContactSet& ContactPipeline::update(std::span<const Pose> X_WB,
                                          std::span<const PairKey> watched,
                                          std::span<const Pose> X_WB_ahead) {
  geometry_poses(X_WB, X_WG_);
  const bool ahead = !X_WB_ahead.empty();
  if (ahead) {
    X_WG_ahead_.resize(X_WG_.size());
    geometry_poses(X_WB_ahead, X_WG_ahead_);
  }
  auto start = Clock::now();
  for (std::size_t p = 0; p < proxy_geometry_.size(); ++p) {
    Aabb box = loose_box(p, X_WG_);
    if (ahead) {
      const Aabb there = loose_box(p, X_WG_ahead_);
      box.min_W = box.min_W.cwiseMin(there.min_W);
      box.max_W = box.max_W.cwiseMax(there.max_W);
    }
    proxy_box_[p] = box;
    if (!proxies_inserted_) proxy_step_box_[p] = box;
    if (scene_.sweep_boxes) {  // cover the motion since the last kept boxes
      box.min_W = box.min_W.cwiseMin(proxy_step_box_[p].min_W);
      box.max_W = box.max_W.cwiseMax(proxy_step_box_[p].max_W);
    }
    if (proxies_inserted_)
      broad_phase_->set_box(static_cast<ProxyId>(p), box);
    else
      broad_phase_->insert(static_cast<ProxyId>(p), box);
  }
  proxies_inserted_ = true;
  broad_phase_->collect_pairs(pairs_);
  stats_.broad_phase_s += seconds_since(start);

  start = Clock::now();
  const std::int64_t detection = ++stats_.detections;
  std::vector<ContactPair>& pairs = contacts_.pairs;
  pairs.clear();
  for (const ProxyPair& pair : pairs_) {
    std::size_t a = proxy_geometry_[pair.a], b = proxy_geometry_[pair.b];
    if (a > b) std::swap(a, b);
    if (!collision_admitted(scene_, a, b)) continue;
    PairSlot& slot = slots_[pair_key(a, b)];
    slot.seen = detection;
    slot.index = pairs.size();
    query(chain_, a, b, X_WG_, slot.cache, pairs.emplace_back());
  }
  // A watched pair whose boxes no longer overlap is still queried, so that its separation is
  // seen (and located) as the distance crossing the activation distance.
  contacts_.watched.resize(watched.size());
  for (std::size_t i = 0; i < watched.size(); ++i) {
    PairSlot& slot = slots_[watched[i]];
    if (slot.seen != detection) {
      slot.seen = detection;
      slot.index = pairs.size();
      query(chain_, first_geometry(watched[i]), second_geometry(watched[i]), X_WG_, slot.cache,
            pairs.emplace_back());
    }
    contacts_.watched[i] = slot.index;
  }
  stats_.narrow_phase_queries += static_cast<std::int64_t>(pairs.size());
  stats_.narrow_phase_s += seconds_since(start);
  return contacts_;
}

void ContactPipeline::probe(std::span<const Pose> X_WB, std::span<const PairKey> watched,
                            ContactSet& out) const {
  ProbeScratch& scratch = probe_;
  geometry_poses(X_WB, scratch.X_WG);
  for (std::size_t p = 0; p < proxy_geometry_.size(); ++p) {
    const Aabb box = loose_box(p, scratch.X_WG);
    if (scratch.proxies_inserted)
      scratch.broad_phase->set_box(static_cast<ProxyId>(p), box);
    else
      scratch.broad_phase->insert(static_cast<ProxyId>(p), box);
  }
  scratch.proxies_inserted = true;
  scratch.broad_phase->collect_pairs(scratch.pairs);
  // Proxy ids ascend with geometry indices: sorted proxy pairs give ascending pair keys.
  std::sort(scratch.pairs.begin(), scratch.pairs.end());

  // Each query warm-starts from a copy of the run's cache of the pair (a cold cache for a pair
  // the run never queried), so the run's caches stay as they are.
  auto query_copy = [&](std::size_t a, std::size_t b, ContactPair& pair) {
    const auto slot = slots_.find(pair_key(a, b));
    NarrowPhaseCache cache = slot != slots_.end() ? slot->second.cache : NarrowPhaseCache{};
    query(*scratch.chain, a, b, scratch.X_WG, cache, pair);
    ++scratch.queries;
  };
  out.pairs.clear();
  scratch.keys.clear();
  for (const ProxyPair& pair : scratch.pairs) {
    std::size_t a = proxy_geometry_[pair.a], b = proxy_geometry_[pair.b];
    if (a > b) std::swap(a, b);
    if (!collision_admitted(scene_, a, b)) continue;
    scratch.keys.push_back(pair_key(a, b));
    query_copy(a, b, out.pairs.emplace_back());
  }
  out.watched.resize(watched.size());
  for (std::size_t i = 0; i < watched.size(); ++i) {
    const auto found = std::lower_bound(scratch.keys.begin(), scratch.keys.end(), watched[i]);
    if (found != scratch.keys.end() && *found == watched[i]) {
      out.watched[i] = static_cast<std::size_t>(found - scratch.keys.begin());
      continue;
    }
    out.watched[i] = out.pairs.size();
    query_copy(first_geometry(watched[i]), second_geometry(watched[i]), out.pairs.emplace_back());
  }
}

}  // namespace contactlab::core
