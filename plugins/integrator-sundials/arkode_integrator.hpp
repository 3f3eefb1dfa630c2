// ARKODE (SUNDIALS): adaptive explicit (ERKStep) and diagonally implicit (ARKStep, DIRK)
// Runge–Kutta methods with root finding, as a contactlab Integrator.
#pragma once

#include <string>

#include <contactlab/integrator.hpp>
#include <contactlab/parameters.hpp>

#include "sundials_settings.hpp"

namespace contactlab::plugins {

struct ArkodeSettings {
  bool implicit = false;       ///< method: dirk (ARKStep, f treated implicitly) or erk (ERKStep)
  std::string table;           ///< the Butcher table's name, resolved (never "default")
  int table_id = 0;            ///< its ARKODE_ERKTableID or ARKODE_DIRKTableID
  int interpolant_degree = 0;  ///< Hermite dense output degree; 0: ARKODE's (order − 1, ≤ 5)
  SundialsSettings common;
};

/// ARKODE in one-step mode (see sundials_detail::drive for outputs, events, restarts, failures).
///
/// `method: erk` — ERKStep, explicit embedded Runge–Kutta pairs. `method: dirk` — ARKStep with
/// the whole f as its implicit part (fe = NULL), Newton iterations with `linear_solver` (dense:
/// difference-quotient Jacobian; krylov: matrix-free SPGMR, no preconditioner), as in cvode.
/// `table` names the Butcher table ARKODE_<NAME> (stages_embedding-order_order); `default` is
/// ARKODE's default of order 4: zonneveld_5_3_4 for erk, sdirk_5_3_4 for dirk. Dense output and
/// root finding use ARKODE's Hermite interpolant, of degree order − 1 (at most 5) unless
/// `interpolant_degree` says otherwise. In SUNDIALS 6.4 degrees 4 and 5 cost 1 and 4 extra f
/// evaluations at every evaluation of the interpolant (each output time, each root-finding
/// iteration): with the order-5+ tables and a fine output grid these can outnumber the steps'
/// own (dormand_prince_7_4_5 on the oscillator, 10 s: 490 f with one output, 10489 with outputs
/// every 1 ms); degree 3 is free but only O(h⁴) accurate between steps.
///
/// SUNDIALS 6.4 ERKStep does not recover from a failing f (a SimulationError or a non-finite
/// derivative): the run fails with ARK_UNREC_RHSFUNC_ERR; ARKStep (dirk) retries smaller steps.
///
/// Events as in cvode: ERKStepRootInit/ARKStepRootInit with direction −1 (only crossings from
/// > 0 to ≤ 0), functions exactly zero at the (re)start inactive until they leave zero, the
/// inactive-root warning off.
class Arkode final : public Integrator {
 public:
  explicit Arkode(const ParameterValues& params);
  static ParameterSchema schema();

  IntegratorCapabilities capabilities() const override;
  IntegrationResult integrate(OdeView& ode, double t_start, double t_end, double output_interval_s,
                              std::span<double> y) override;

  const ArkodeSettings& settings() const { return settings_; }
  /// SUNDIALS' counters of the last integrate() call.
  const SundialsStatistics& statistics() const { return statistics_; }

 private:
  ArkodeSettings settings_;
  SundialsStatistics statistics_;
};

}  // namespace contactlab::plugins
