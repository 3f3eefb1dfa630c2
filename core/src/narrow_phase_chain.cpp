// The narrow-phase chain and its dispatch table (see narrow_phase_chain.hpp).
#include "contactlab/core/narrow_phase_chain.hpp"

#include "contactlab/core/scene.hpp"

namespace contactlab::core {

namespace {

std::vector<std::shared_ptr<NarrowPhase>> create_members(const std::vector<PluginChoice>& choices,
                                                         PluginRegistry& registry) {
  std::vector<std::shared_ptr<NarrowPhase>> members;
  for (const PluginChoice& choice : choices)
    members.push_back(registry.create<NarrowPhase>(*choice.info, choice.params));
  return members;
}

}  // namespace

NarrowPhaseDispatch::NarrowPhaseDispatch(const std::vector<std::shared_ptr<NarrowPhase>>& chain) {
  member_.fill(none);
  for (int a = 0; a < shape_type_count; ++a)
    for (int b = 0; b < shape_type_count; ++b)
      for (std::size_t k = 0; k < chain.size(); ++k)
        if (chain[k]->supports(static_cast<ShapeType>(a), static_cast<ShapeType>(b))) {
          member_[static_cast<std::size_t>(a * shape_type_count + b)] = static_cast<int>(k);
          break;
        }
}

NarrowPhaseChain::NarrowPhaseChain(const std::vector<PluginChoice>& choices,
                                   PluginRegistry& registry)
    : members_(create_members(choices, registry)), dispatch_(members_) {}

NarrowPhaseChain::NarrowPhaseChain(const std::vector<PluginChoice>& choices,
                                   PluginRegistry& registry, const NarrowPhaseDispatch& dispatch)
    : members_(create_members(choices, registry)), dispatch_(dispatch) {}

std::vector<NarrowPhaseStatistics> NarrowPhaseChain::statistics() const {
  std::vector<NarrowPhaseStatistics> out;
  out.reserve(members_.size());
  for (const auto& member : members_) out.push_back(member->statistics());
  return out;
}

}  // namespace contactlab::core
