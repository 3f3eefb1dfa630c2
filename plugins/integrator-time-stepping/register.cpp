// Registration glue of the integrator-time-stepping plugin library.
#include <contactlab/plugin.hpp>

#include "pgs.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::Integrator, contactlab::plugins::Pgs>(
        "pgs",
        "Time stepping with rigid contact: projected Gauss-Seidel on the velocity-level "
        "problem with Coulomb friction, restitution, warm start and split impulses",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("integrator-time-stepping", contactlab::version_string, entries)
