// Registration glue of the integrator-sundials plugin library.
#include <contactlab/plugin.hpp>

#include "arkode_integrator.hpp"
#include "cvode_integrator.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::Integrator, contactlab::plugins::Cvode>(
        "cvode",
        "SUNDIALS CVODE: variable-order BDF (stiff) or Adams multistep, adaptive, with root "
        "finding of the event functions and dense output",
        "1.0.0"),
    contactlab::plugin_entry<contactlab::Integrator, contactlab::plugins::Arkode>(
        "arkode",
        "SUNDIALS ARKODE: adaptive explicit (erk) or diagonally implicit (dirk) Runge-Kutta, with "
        "root finding of the event functions and dense output",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("integrator-sundials", contactlab::version_string, entries)
