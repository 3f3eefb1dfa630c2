// Registration glue of the friction-basic plugin library.
#include <contactlab/plugin.hpp>

#include "coulomb_regularized.hpp"
#include "no_friction.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::Friction, contactlab::plugins::NoFriction>(
        "none", "Frictionless contact: zero tangential force and torque", "1.0.0"),
    contactlab::plugin_entry<contactlab::Friction, contactlab::plugins::CoulombRegularized>(
        "coulomb_regularized",
        "Regularised Coulomb sliding friction, optional rolling resistance (Neumayr eq. 7.3-7.4)",
        "1.1.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("friction-basic", contactlab::version_string, entries)
