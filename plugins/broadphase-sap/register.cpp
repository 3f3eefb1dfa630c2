// Registration glue of the broadphase-sap plugin library.
#include <contactlab/plugin.hpp>

#include "sap_broad_phase.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::BroadPhase, contactlab::plugins::SapBroadPhase>(
        "sap",
        "Incremental sweep and prune (SOLID 3 style): sorted endpoint lists repaired by insertion "
        "sort, overlap set updated from the swaps",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("broadphase-sap", contactlab::version_string, entries)
