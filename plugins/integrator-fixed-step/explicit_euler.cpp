#include "explicit_euler.hpp"

#include <algorithm>

namespace contactlab::plugins {

ExplicitEuler::ExplicitEuler(const ParameterValues& params)
    : settings_(fixed_step_settings(params)) {}

ParameterSchema ExplicitEuler::schema() {
  return fixed_step_schema();
}

IntegratorCapabilities ExplicitEuler::capabilities() const {
  return fixed_step_capabilities(settings_);
}

IntegrationResult ExplicitEuler::integrate(OdeView& ode, double t_start, double t_end,
                                           double output_interval_s, std::span<double> y) {
  const std::size_t nq = ode.configuration_size();
  const std::size_t nv = ode.velocity_size();
  y_rate_.resize(ode.state_size());
  q_next_.resize(nq);
  std::int64_t evaluations = 0;

  auto advance = [&](double t, double h, std::span<double> state) {
    const std::span<const double> q = state.first(nq);
    const std::span<const double> v = state.subspan(nq, nv);
    ode.derivative(t, state, y_rate_);
    ++evaluations;
    // The position update uses the *old* velocity (unlike semi_implicit_euler).
    ode.integrate_configuration(q, v, h, q_next_);
    // Commit only after every call into the ODE succeeded.
    std::copy(q_next_.begin(), q_next_.end(), state.begin());
    for (std::size_t i = nq; i < state.size(); ++i) state[i] += h * y_rate_[i];
  };
  IntegrationResult result = detail::drive_fixed_step(ode, t_start, t_end, output_interval_s,
                                                      settings_, y, work_, advance);
  result.rhs_evaluations = evaluations;
  return result;
}

}  // namespace contactlab::plugins
