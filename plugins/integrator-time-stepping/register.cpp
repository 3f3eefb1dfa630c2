// Registration glue of the integrator-time-stepping plugin library.
#include <contactlab/plugin.hpp>

#include "bilateral_newton.hpp"
#include "ncp_newton.hpp"
#include "pgs.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::Integrator, contactlab::plugins::Pgs>(
        "pgs",
        "Time stepping with rigid contact: projected Gauss-Seidel on the velocity-level "
        "problem with Coulomb friction, restitution, warm start and split impulses",
        "1.0.0"),
    contactlab::plugin_entry<contactlab::Integrator, contactlab::plugins::NcpNewton>(
        "ncp_newton",
        "Time stepping with rigid contact: SiLVIA's complementarity on distances with Coulomb "
        "friction and restitution, semismooth Newton (Fischer-Burmeister or Alart-Curnier)",
        "1.0.0"),
    contactlab::plugin_entry<contactlab::Integrator, contactlab::plugins::BilateralNewton>(
        "bilateral_newton",
        "Time stepping with rigid contact: SiLVIA's bilateral Newton on distances with contact "
        "release (normal impulses only; sticks for a step at lift-off)",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("integrator-time-stepping", contactlab::version_string, entries)
