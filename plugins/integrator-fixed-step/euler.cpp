#include "euler.hpp"

#include <algorithm>
#include <limits>

#include "fixed_step.hpp"

namespace contactlab::plugins {

ParameterSchema fixed_step_schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec step = real_parameter("step_s", 1e-4, 0.0, inf, "s",
                                      "Step size h; shortened to land on output times and events.");
  step.minimum_exclusive = true;
  step.maximum_exclusive = true;
  ParameterSpec tolerance = real_parameter(
      "event_tolerance_s", 1e-12, 0.0, inf, "s",
      "Width of the bisection bracket that locates an event (contact start/end, law events).");
  tolerance.minimum_exclusive = true;
  tolerance.maximum_exclusive = true;
  return {step,
          boolean_parameter("locate_events", true,
                            "Locate the zero crossings of the event functions by bisecting the "
                            "step; false: events are handled at the end of the step that crosses."),
          tolerance};
}

FixedStepSettings fixed_step_settings(const ParameterValues& params) {
  FixedStepSettings settings;
  settings.step_s = params.real("step_s");
  settings.locate_events = params.boolean("locate_events");
  settings.event_tolerance_s = params.real("event_tolerance_s");
  return settings;
}

IntegratorCapabilities fixed_step_capabilities(const FixedStepSettings& settings) {
  IntegratorCapabilities capabilities;
  capabilities.root_finding = settings.locate_events;
  capabilities.state_reset = true;
  return capabilities;
}

template <bool Symplectic>
Euler<Symplectic>::Euler(const ParameterValues& params) : settings_(fixed_step_settings(params)) {}

template <bool Symplectic>
ParameterSchema Euler<Symplectic>::schema() {
  return fixed_step_schema();
}

template <bool Symplectic>
IntegratorCapabilities Euler<Symplectic>::capabilities() const {
  return fixed_step_capabilities(settings_);
}

template <bool Symplectic>
IntegrationResult Euler<Symplectic>::integrate(OdeView& ode, double t_start, double t_end,
                                               double output_interval_s, std::span<double> y) {
  const std::size_t nq = ode.configuration_size();
  const std::size_t nv = ode.velocity_size();
  y_rate_.resize(ode.state_size());
  q_next_.resize(nq);
  v_next_.resize(nv);
  std::int64_t evaluations = 0;

  auto advance = [&](double t, double h, std::span<double> state) {
    const std::span<const double> q = state.first(nq);
    const std::span<const double> v = state.subspan(nq, nv);
    ode.derivative(t, state, y_rate_);
    ++evaluations;
    for (std::size_t i = 0; i < nv; ++i) v_next_[i] = v[i] + h * y_rate_[nq + i];
    // The position update with the new velocity is what makes the scheme symplectic.
    if constexpr (Symplectic)
      ode.integrate_configuration(q, v_next_, h, q_next_);
    else
      ode.integrate_configuration(q, v, h, q_next_);
    // Commit only after every call into the ODE succeeded, so an exception leaves y at the last
    // completed step.
    std::copy(q_next_.begin(), q_next_.end(), state.begin());
    std::copy(v_next_.begin(), v_next_.end(), state.begin() + static_cast<std::ptrdiff_t>(nq));
    // The contacts' continuous states (after q and v): explicit Euler.
    for (std::size_t i = nq + nv; i < state.size(); ++i) state[i] += h * y_rate_[i];
  };
  IntegrationResult result = stepping::detail::drive_fixed_step(
      ode, t_start, t_end, output_interval_s, settings_, y, work_, advance);
  result.rhs_evaluations = evaluations;
  return result;
}

template class Euler<false>;
template class Euler<true>;

}  // namespace contactlab::plugins
