// pgs: projected Gauss–Seidel on the velocity-level contact problem of contact_step.hpp — the
// sequential-impulse method of Bullet and ODE (Catto 2005; Erleben 2007 §6), the speed baseline
// of the time-stepping family.
//
// Per step: warm start from the same points' impulses of the previous step, then sweeps over the
// points in the host's order, each updated by the rule of contact_problem/pgs_rule.hpp against its
// current local velocity u = J·v with the normal bound b_N subtracted, v moved by B·Δr; every
// fourth sweep (and at the limit) Siconos' error of the step's local problem is measured and the
// sweeps stop at the tolerance. Penetration beyond the slop is removed by split impulses (Catto
// 2009): a second, normal-only Gauss–Seidel on pseudo-velocities with the bound
// β·(−δ − slop)/h, which move the configuration in this step and are then forgotten, so the
// position correction adds no kinetic energy (Baumgarte's bias in the velocities would).
#pragma once

#include <vector>

#include "time_stepping.hpp"

namespace contactlab::plugins {

class Pgs final : public TimeSteppingIntegrator {
 public:
  explicit Pgs(const ParameterValues& params);
  static ParameterSchema schema();

 protected:
  StepSolution solve(OdeView& ode, MechanicsView& mechanics, ContactStep& step, double step_s,
                     std::span<double> r, std::span<double> v) override;

 private:
  double position_correction_ = 0.8;  ///< β of the split impulses
  std::vector<double> v_split_, r_split_, bias_split_;
};

}  // namespace contactlab::plugins
