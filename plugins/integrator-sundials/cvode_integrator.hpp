// CVODE (SUNDIALS): variable-order, variable-step BDF and Adams–Moulton multistep methods with
// root finding, as a contactlab Integrator.
#pragma once

#include <contactlab/integrator.hpp>
#include <contactlab/parameters.hpp>

#include "sundials_settings.hpp"

namespace contactlab::plugins {

struct CvodeSettings {
  bool bdf = true;  ///< method: bdf (orders 1–5, stiff) or adams (orders 1–12, nonstiff)
  bool fixed_point = false;  ///< nonlinear iteration: fixed point (functional) instead of Newton
  int max_order = 0;         ///< 0: the method's maximum (5 or 12)
  SundialsSettings common;
};

/// CVODE in one-step mode (see sundials_detail::drive for outputs, events, restarts, failures).
///
/// Nonlinear solver (`nonlinear_solver`): `auto` is Newton for bdf and fixed-point (functional)
/// iteration for adams — CVODE's own recommendation: Adams is for nonstiff problems, where
/// SUNNonlinSol_FixedPoint needs neither a Jacobian nor a linear solver; `newton` or
/// `fixed_point` force one. Newton iterations use `linear_solver`: dense (SUNLinSol_Dense on a
/// SUNDenseMatrix, Jacobian by CVODE's difference quotients, n extra f evaluations per Jacobian)
/// or krylov (SUNLinSol_SPGMR, matrix-free, J·v by difference quotients, no preconditioner).
///
/// Events: CVodeRootInit on ode.event_count() functions with CVodeSetRootDirection(−1): only
/// crossings from > 0 to ≤ 0 are roots, the OdeView's convention. A function exactly zero at the
/// start (or at the restart after an event) is left inactive by CVODE until it moves away from
/// zero, and the "some root functions are identically zero" warning is switched off
/// (CVodeSetNoInactiveRootWarn): a function that sits at 0 after its event fired is disarmed, not
/// a new root — no hysteresis offset is needed on the host's side. A function ≤ 0 at the restart
/// fires again only after it has risen above 0.
class Cvode final : public Integrator {
 public:
  explicit Cvode(const ParameterValues& params);
  static ParameterSchema schema();

  IntegratorCapabilities capabilities() const override;
  IntegrationResult integrate(OdeView& ode, double t_start, double t_end, double output_interval_s,
                              std::span<double> y) override;

  const CvodeSettings& settings() const { return settings_; }
  /// SUNDIALS' counters of the last integrate() call (Jacobians, iterations, ...).
  const SundialsStatistics& statistics() const { return statistics_; }

 private:
  CvodeSettings settings_;
  SundialsStatistics statistics_;
};

}  // namespace contactlab::plugins
