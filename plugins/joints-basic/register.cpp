// Registration glue of the joints-basic plugin library.
#include <contactlab/plugin.hpp>

#include "fixed_joint.hpp"
#include "free_joint.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::Joint, contactlab::plugins::FreeJoint>(
        "free", "Six degrees of freedom: position and unit quaternion, velocities in the parent",
        "1.0.0"),
    contactlab::plugin_entry<contactlab::Joint, contactlab::plugins::FixedJoint>(
        "fixed", "No degrees of freedom: the child is welded to the parent", "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("joints-basic", contactlab::version_string, entries)
