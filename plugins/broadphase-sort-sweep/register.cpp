// Registration glue of the broadphase-sort-sweep plugin library.
#include <contactlab/plugin.hpp>

#include "sort_sweep_broad_phase.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::BroadPhase, contactlab::plugins::SortSweepBroadPhase>(
        "sort_sweep",
        "Sort and sweep of SiLVIA along the principal axis of the box centres (as MuJoCo), "
        "re-sorted incrementally",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("broadphase-sort-sweep", contactlab::version_string, entries)
