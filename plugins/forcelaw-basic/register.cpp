// Registration glue of the forcelaw-basic plugin library.
#include <contactlab/plugin.hpp>

#include "hertz_force_law.hpp"
#include "hunt_crossley_force_law.hpp"
#include "linear_force_law.hpp"
#include "restitution_impulse_law.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::ForceLaw, contactlab::plugins::LinearForceLaw>(
        "linear", "Linear spring-damper f = k*delta + c*delta_dot, clamped to f >= 0 by default",
        "1.0.0"),
    contactlab::plugin_entry<contactlab::ForceLaw, contactlab::plugins::HertzForceLaw>(
        "hertz", "Elastic Hertz contact f = (4/3) E* sqrt(R*) delta^(3/2) (Neumayr eq. 7.1)",
        "1.0.0"),
    contactlab::plugin_entry<contactlab::ForceLaw, contactlab::plugins::HuntCrossleyForceLaw>(
        "hunt_crossley",
        "Hunt-Crossley f = k delta^n (1 + d delta_dot), d from restitution (hunt_crossley, "
        "lankarani_nikravesh, flores, gonthier) or constant; Hertz k by default",
        "1.0.0"),
    contactlab::plugin_entry<contactlab::ForceLaw, contactlab::plugins::RestitutionImpulseLaw>(
        "restitution_impulse",
        "Rigid impact: Newton's velocity jump -e*v at contact birth above a resting velocity; "
        "below it a penalty law (linear or hertz, resting_* parameters) holds the contact",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("forcelaw-basic", contactlab::version_string, entries)
