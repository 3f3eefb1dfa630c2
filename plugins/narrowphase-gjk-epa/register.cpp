// Registration glue of the narrowphase-gjk-epa plugin library: gjk_epa, and growth_search built on
// its distances.
#include <contactlab/plugin.hpp>

#include "gjk_epa_narrow_phase.hpp"
#include "growth_search_narrow_phase.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::NarrowPhase, contactlab::plugins::GjkEpaNarrowPhase>(
        "gjk_epa",
        "GJK (signed volumes) on the shape cores plus swept radii, EPA for overlapping cores; "
        "closed forms against half-spaces",
        "1.0.0"),
    contactlab::plugin_entry<contactlab::NarrowPhase, contactlab::plugins::GrowthSearchNarrowPhase>(
        "growth_search",
        "Engelson (2000) penetration depth by growing a displacement in 26 directions; GJK "
        "distance when separated",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("narrowphase-gjk-epa", contactlab::version_string, entries)
