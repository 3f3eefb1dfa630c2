// What the fixed-step integrators share: their parameters and capabilities (the time loop is the
// SDK's contactlab/fixed_step_driver.hpp).
#pragma once

#include <contactlab/fixed_step_driver.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

using stepping::FixedStepSettings;

/// `step_s`, `locate_events`, `event_tolerance_s`.
ParameterSchema fixed_step_schema();
FixedStepSettings fixed_step_settings(const ParameterValues& params);
/// The fixed-step family's capabilities: explicit, non-adaptive, restartable; root finding (by
/// bisection) when locate_events is on.
IntegratorCapabilities fixed_step_capabilities(const FixedStepSettings& settings);

}  // namespace contactlab::plugins
