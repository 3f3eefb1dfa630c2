// Registration of the growth-search narrow phase.
#include <contactlab/plugin.hpp>

#include "growth_search_narrow_phase.hpp"

namespace {
const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::NarrowPhase, contactlab::plugins::GrowthSearchNarrowPhase>(
        "growth_search",
        "Engelson (2000) penetration depth by growing a displacement in 26 directions; GJK "
        "distance when separated",
        "1.0.0"),
};
}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("narrowphase-growth-search", "0.1.0", entries)
