// Registration glue of the forcelaw-modia plugin library.
#include <contactlab/plugin.hpp>

#include "modia_force_law.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::ForceLaw, contactlab::plugins::ModiaForceLaw>(
        "modia",
        "Modia3D elastic response (Neumayr eq. 7.3a): Hertz with Flores damping from a "
        "regularised restitution, capped at d_max, scaled by k_red",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("forcelaw-modia", contactlab::version_string, entries)
