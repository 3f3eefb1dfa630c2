#include "runge_kutta4.hpp"

#include "fixed_step.hpp"

namespace contactlab::plugins {

RungeKutta4::RungeKutta4(const ParameterValues& params) : settings_(fixed_step_settings(params)) {}

ParameterSchema RungeKutta4::schema() {
  return fixed_step_schema();
}

IntegratorCapabilities RungeKutta4::capabilities() const {
  return fixed_step_capabilities(settings_);
}

IntegrationResult RungeKutta4::integrate(OdeView& ode, double t_start, double t_end,
                                         double output_interval_s, std::span<double> y) {
  const std::size_t n = ode.state_size();
  for (std::vector<double>* buffer : {&k1_, &k2_, &k3_, &k4_, &y_stage_}) buffer->resize(n);
  std::int64_t evaluations = 0;

  auto advance = [&](double t, double h, std::span<double> state) {
    const std::size_t size = state.size();
    const double half_h = 0.5 * h;
    ode.derivative(t, state, k1_);
    for (std::size_t i = 0; i < size; ++i) y_stage_[i] = state[i] + half_h * k1_[i];
    ode.derivative(t + half_h, y_stage_, k2_);
    for (std::size_t i = 0; i < size; ++i) y_stage_[i] = state[i] + half_h * k2_[i];
    ode.derivative(t + half_h, y_stage_, k3_);
    for (std::size_t i = 0; i < size; ++i) y_stage_[i] = state[i] + h * k3_[i];
    ode.derivative(t + h, y_stage_, k4_);
    evaluations += 4;
    // y_{n+1} = y_n + h/6·(k1 + 2·k2 + 2·k3 + k4)
    const double h_sixth = h / 6.0;
    for (std::size_t i = 0; i < size; ++i) {
      state[i] += h_sixth * (k1_[i] + 2.0 * k2_[i] + 2.0 * k3_[i] + k4_[i]);
    }
    // The stages leave the quaternion manifold by O(h⁵); project back once per step.
    ode.project(state);
  };
  IntegrationResult result = stepping::detail::drive_fixed_step(
      ode, t_start, t_end, output_interval_s, settings_, y, work_, advance);
  result.rhs_evaluations = evaluations;
  return result;
}

}  // namespace contactlab::plugins
