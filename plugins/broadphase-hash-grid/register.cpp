// Registration glue of the broadphase-hash-grid plugin library.
#include <contactlab/plugin.hpp>

#include "hash_grid_broad_phase.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::BroadPhase, contactlab::plugins::HashGridBroadPhase>(
        "hash_grid",
        "Hierarchical spatial hash of SiLVIA (Overmars, Mirtich): cell levels chosen by box size, "
        "tables reused between steps",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("broadphase-hash-grid", contactlab::version_string, entries)
