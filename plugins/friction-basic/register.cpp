// Registration glue of the friction-basic plugin library.
#include <contactlab/plugin.hpp>

#include "coulomb_regularized.hpp"
#include "lugre.hpp"
#include "no_friction.hpp"
#include "stribeck.hpp"
#include "tangential_spring.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::Friction, contactlab::plugins::NoFriction>(
        "none", "Frictionless contact: zero tangential force and torque", "1.0.0"),
    contactlab::plugin_entry<contactlab::Friction, contactlab::plugins::CoulombRegularized>(
        "coulomb_regularized",
        "Regularised Coulomb sliding friction, optional rolling resistance (Neumayr eq. 7.3-7.4)",
        "1.1.0"),
    contactlab::plugin_entry<contactlab::Friction, contactlab::plugins::Stribeck>(
        "stribeck",
        "Regularised Stribeck friction mu_k + (mu_s - mu_k) exp(-(|v|/v_s)^delta) plus viscous "
        "sigma2 v, optional rolling resistance",
        "1.0.0"),
    contactlab::plugin_entry<contactlab::Friction, contactlab::plugins::LuGre>(
        "lugre",
        "LuGre bristle friction (Canudas de Wit et al. 1995), normalised by the normal force; one "
        "3-vector bristle state per contact",
        "1.0.0"),
    contactlab::plugin_entry<contactlab::Friction, contactlab::plugins::TangentialSpring>(
        "tangential_spring",
        "Goyal's tangential spring-damper capped by the Coulomb cone, stick/slip with static and "
        "kinetic mu (Ullrich 1998 sec. 5.7)",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("friction-basic", contactlab::version_string, entries)
