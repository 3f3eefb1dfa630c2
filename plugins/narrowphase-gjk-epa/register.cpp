// Registration glue of the narrowphase-gjk-epa plugin library.
#include <contactlab/plugin.hpp>

#include "gjk_epa_narrow_phase.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::NarrowPhase, contactlab::plugins::GjkEpaNarrowPhase>(
        "gjk_epa",
        "GJK (signed volumes) on the shape cores plus swept radii, EPA for overlapping cores; "
        "closed forms against half-spaces",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("narrowphase-gjk-epa", contactlab::version_string, entries)
