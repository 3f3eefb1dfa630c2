// Registration glue of the forcelaw-impulse plugin library.
#include <contactlab/plugin.hpp>

#include "restitution_impulse_law.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::ForceLaw, contactlab::plugins::RestitutionImpulseLaw>(
        "restitution_impulse",
        "Rigid impact: Newton's velocity jump -e*v at contact birth above a resting velocity; "
        "below it a penalty law (linear or hertz, resting_* parameters) holds the contact",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("forcelaw-impulse", contactlab::version_string, entries)
