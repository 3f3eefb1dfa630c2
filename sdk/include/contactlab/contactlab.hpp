// Everything a plugin author needs: include this one header.
#pragma once

#include "contactlab/broad_phase.hpp"
#include "contactlab/contact.hpp"
#include "contactlab/contact_law.hpp"
#include "contactlab/errors.hpp"
#include "contactlab/force_law.hpp"
#include "contactlab/friction.hpp"
#include "contactlab/integrator.hpp"
#include "contactlab/joint.hpp"
#include "contactlab/law_support.hpp"
#include "contactlab/materials.hpp"
#include "contactlab/math.hpp"
#include "contactlab/narrow_phase.hpp"
#include "contactlab/parameters.hpp"
#include "contactlab/plugin.hpp"
#include "contactlab/shapes.hpp"
#include "contactlab/version.hpp"
