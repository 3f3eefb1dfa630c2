// Registration glue of the broadphase-brute-force plugin library.
#include <contactlab/plugin.hpp>

#include "brute_force_broad_phase.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::BroadPhase, contactlab::plugins::BruteForceBroadPhase>(
        "brute_force", "All O(n^2) pairs of overlapping boxes; the reference broad phase", "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("broadphase-brute-force", contactlab::version_string, entries)
