// Registration glue of the narrowphase-mpr plugin library.
#include <contactlab/plugin.hpp>

#include "mpr_narrow_phase.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::NarrowPhase, contactlab::plugins::MprNarrowPhase>(
        "mpr",
        "Minkowski Portal Refinement (Neumayr 2025): signed distance for every convex pair, "
        "half-space pairs in closed form",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("narrowphase-mpr", contactlab::version_string, entries)
