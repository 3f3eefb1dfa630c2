#include "semi_implicit_euler.hpp"

#include <algorithm>
#include <limits>

#include "fixed_step_driver.hpp"

namespace contactlab::plugins {

ParameterSchema fixed_step_schema() {
  ParameterSpec step = real_parameter("step_s", 1e-4, 0.0, std::numeric_limits<double>::infinity(),
                                      "s", "Step size h; shortened to land on output times.");
  step.minimum_exclusive = true;
  step.maximum_exclusive = true;
  return {step};
}

SemiImplicitEuler::SemiImplicitEuler(const ParameterValues& params)
    : step_s_(params.real("step_s")) {}

ParameterSchema SemiImplicitEuler::schema() {
  return fixed_step_schema();
}

IntegratorCapabilities SemiImplicitEuler::capabilities() const {
  return {};
}

IntegrationResult SemiImplicitEuler::integrate(OdeView& ode, double t_start, double t_end,
                                               double output_interval_s, std::span<double> y) {
  const std::size_t nq = ode.configuration_size();
  const std::size_t nv = ode.velocity_size();
  y_rate_.resize(nq + nv);
  q_next_.resize(nq);
  v_next_.resize(nv);

  auto advance = [&](double t, double h, std::span<double> state) {
    const std::span<const double> q = state.first(nq);
    const std::span<const double> v = state.subspan(nq, nv);
    ode.derivative(t, state, y_rate_);
    for (std::size_t i = 0; i < nv; ++i) v_next_[i] = v[i] + h * y_rate_[nq + i];
    // The position update uses the *new* velocity: this is what makes the scheme symplectic.
    ode.integrate_configuration(q, v_next_, h, q_next_);
    // Commit only after every call into the ODE succeeded, so an exception leaves y at the last
    // completed step.
    std::copy(q_next_.begin(), q_next_.end(), state.begin());
    std::copy(v_next_.begin(), v_next_.end(), state.begin() + static_cast<std::ptrdiff_t>(nq));
  };
  return detail::drive_fixed_step(ode, t_start, t_end, output_interval_s, step_s_, y, advance);
}

}  // namespace contactlab::plugins
