// Registration glue of the forcelaw-bilinear plugin library.
#include <contactlab/plugin.hpp>

#include "bilinear_force_law.hpp"

namespace {

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::ForceLaw, contactlab::plugins::BilinearForceLaw>(
        "bilinear",
        "Stronge's bilinear law: loading k1*delta, unloading k1/e^2 from the maximum compression "
        "(or Chatterjee's variant through the origin, k2 = e^2*k1) (Ullrich 1998, sec. 2.4.2)",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("forcelaw-bilinear", contactlab::version_string, entries)
