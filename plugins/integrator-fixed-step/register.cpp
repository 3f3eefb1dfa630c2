// Registration glue of the integrator-fixed-step plugin library.
#include <contactlab/plugin.hpp>

#include "euler.hpp"
#include "runge_kutta4.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::Integrator, contactlab::plugins::ExplicitEuler>(
        "explicit_euler", "Fixed-step explicit (forward) Euler, first order", "1.0.0"),
    contactlab::plugin_entry<contactlab::Integrator, contactlab::plugins::SemiImplicitEuler>(
        "semi_implicit_euler", "Fixed-step semi-implicit (symplectic) Euler, first order", "1.0.0"),
    contactlab::plugin_entry<contactlab::Integrator, contactlab::plugins::RungeKutta4>(
        "rk4", "Fixed-step classic fourth-order Runge-Kutta", "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("integrator-fixed-step", contactlab::version_string, entries)
