// Registration glue of the forcelaw-engelson plugin library.
#include <contactlab/plugin.hpp>

#include "engelson_force_law.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::ForceLaw, contactlab::plugins::EngelsonForceLaw>(
        "engelson",
        "Engelson (2000) penalty law f = (1 + k*x_dot)*K*m*x, k from the restitution (exact, "
        "fraction, cubic) or given; optional distance threshold T",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("forcelaw-engelson", contactlab::version_string, entries)
