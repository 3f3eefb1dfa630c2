// Registration glue of the narrowphase-primitive plugin library.
#include <contactlab/plugin.hpp>

#include "primitive_narrow_phase.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::NarrowPhase, contactlab::plugins::PrimitiveNarrowPhase>(
        "primitive",
        "Exact closed forms for sphere-{sphere, capsule, box, half_space}, capsule-{capsule, "
        "half_space}, box-{box, half_space} and cylinder-half_space, with flat-contact manifolds",
        "2.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("narrowphase-primitive", contactlab::version_string, entries)
