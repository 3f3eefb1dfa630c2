// Registration glue of the broadphase-aabb-tree plugin library.
#include <contactlab/plugin.hpp>

#include "aabb_tree_broad_phase.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::BroadPhase, contactlab::plugins::AabbTreeBroadPhase>(
        "aabb_tree",
        "Dynamic AABB tree (fat boxes, SAH insertion, tree rotations) with an incremental pair set",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("broadphase-aabb-tree", contactlab::version_string, entries)
