// Registration glue of the joints-basic plugin library.
#include <contactlab/plugin.hpp>

#include "cylindrical_joint.hpp"
#include "fixed_joint.hpp"
#include "free_joint.hpp"
#include "helical_joint.hpp"
#include "planar_joint.hpp"
#include "prismatic_joint.hpp"
#include "revolute_joint.hpp"
#include "spherical_joint.hpp"
#include "universal_joint.hpp"

namespace {

using contactlab::Joint;
using contactlab::plugin_entry;
namespace p = contactlab::plugins;

const contactlab::PluginEntry entries[] = {
    plugin_entry<Joint, p::FreeJoint>(
        "free", "Six degrees of freedom: position and unit quaternion, velocities in the parent",
        "1.0.0"),
    plugin_entry<Joint, p::FixedJoint>(
        "fixed", "No degrees of freedom: the child is welded to the parent", "1.0.0"),
    plugin_entry<Joint, p::RevoluteJoint>(
        "revolute",
        "Rotation about an axis (angle in rad); optional spring–damper, limits and drive", "1.0.0"),
    plugin_entry<Joint, p::PrismaticJoint>(
        "prismatic", "Translation along an axis (m); optional spring–damper, limits and drive",
        "1.0.0"),
    plugin_entry<Joint, p::HelicalJoint>(
        "helical",
        "Screw: rotation about an axis with translation pitch·angle along it; optional "
        "spring–damper, limits and drive",
        "1.0.0"),
    plugin_entry<Joint, p::CylindricalJoint>(
        "cylindrical",
        "Translation along and rotation about one axis; elements and drives per coordinate",
        "1.0.0"),
    plugin_entry<Joint, p::PlanarJoint>(
        "planar",
        "Two translations in a plane and the rotation about its normal; elements and drives per "
        "coordinate",
        "1.0.0"),
    plugin_entry<Joint, p::UniversalJoint>(
        "universal",
        "Two rotations about perpendicular axes (Cardan); elements and drives per angle", "1.0.0"),
    plugin_entry<Joint, p::SphericalJoint>(
        "spherical",
        "Ball joint: unit quaternion, angular velocity in the parent; optional isotropic "
        "torsion spring–damper",
        "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("joints-basic", contactlab::version_string, entries)
