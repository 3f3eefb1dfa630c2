// What the time-stepping integrators share: their parameters, and the step loop — prepare the
// step through the host's MechanicsView, build the local contact data, let the solver find the
// impulses and the new velocities, move the configuration with them (semi-implicit Euler:
// q⁺ = q ⊕ h·v⁺, plus the solver's position correction), report the solution — driven by the
// SDK's fixed-step loop (output times, interrupts), without events.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <contactlab/fixed_step_driver.hpp>
#include <contactlab/integrator.hpp>
#include <contactlab/parameters.hpp>

#include "contact_step.hpp"

namespace contactlab::plugins {

struct TimeSteppingSettings {
  double step_s = 1e-3;
  ContactStepSettings contact;
  bool warm_start = true;   ///< start from the same points' impulses of the previous step
  double tolerance = 1e-6;  ///< on the solver's error measure
  int max_iterations = 50;
};

/// The family's parameters: step_s, friction, restitution_threshold_m_per_s,
/// stick_velocity_m_per_s, penetration_slop_m, tolerance, max_iterations (defaults: `defaults`).
ParameterSchema time_stepping_schema(const TimeSteppingSettings& defaults);
TimeSteppingSettings time_stepping_settings(const ParameterValues& params);

/// What a solver returns for one step.
struct StepSolution {
  ContactSolveReport report;
  /// Position correction: pseudo-velocities added to v⁺ for the configuration update only (nv;
  /// empty: none).
  std::span<const double> position_velocity;
};

class TimeSteppingIntegrator : public Integrator {
 public:
  IntegratorCapabilities capabilities() const override;
  IntegrationResult integrate(OdeView& ode, double t_start, double t_end, double output_interval_s,
                              std::span<double> y) override;

 protected:
  explicit TimeSteppingIntegrator(const TimeSteppingSettings& settings) : settings_(settings) {}
  /// Finds the step's impulses r (3 per contact, warm start in, solution out) and v⁺ (in:
  /// v_free, out: the new velocities) for the built `step`.
  virtual StepSolution solve(OdeView& ode, MechanicsView& mechanics, ContactStep& step,
                             double step_s, std::span<double> r, std::span<double> v) = 0;

  /// The step's local problem (W, q, μ; ContactStep::assemble), assembled at most once per step:
  /// for solvers that take it whole and for output.contact_problems.
  const contact_problem::FrictionContactProblem& local_problem();
  /// The signed distances of the step's points at q ⊕ h·v (SiLVIA's δ(σ(f)) for trial velocities
  /// v), through the host's contact pipeline.
  void distances_after(OdeView& ode, MechanicsView& mechanics, std::span<const double> v, double h,
                       std::vector<double>& distances);

  TimeSteppingSettings settings_;

 private:
  void advance(MechanicsView& mechanics, OdeView& ode, double t, double h, std::span<double> y,
               IntegrationResult& result);

  stepping::detail::FixedStepWorkspace work_;
  ContactStep step_;
  std::vector<double> r_, v_, v_move_, q_next_;
  std::vector<double> previous_r_, previous_approach_;
  contact_problem::FrictionContactProblem problem_;
  bool problem_assembled_ = false;
  std::vector<double> q_trial_;
};

}  // namespace contactlab::plugins
