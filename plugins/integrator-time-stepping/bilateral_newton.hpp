// bilateral_newton: SiLVIA's naive method (§3.1), kept for comparison. Every contact of the
// active set is bilateral: its normal impulse makes the distance at the end of the step zero,
// δ(q⁺) = 0 with q⁺ = q ⊕ h·(v_free + M⁻¹J_Nᵀ r_N), whatever the sign of r_N — a linear solve
// W_NN·r_N = −(u_free,N + δ/h) on the active set (`distance: linearized`), or Newton on
// δ(q⁺(r_N)) = 0 through the contact pipeline with W_NN as the Jacobian (`nonlinear`). A contact
// joins the active set when the free motion would take it below zero distance within the step
// and leaves it when its impulse came out negative: the released contact pulled the bodies
// together for that one step, the brief sticking SiLVIA reports. Normal impulses only (SiLVIA's
// forces are normal; `friction` is not a parameter here). The sparse symmetric W_NN is factorised
// by a simplicial LDLᵀ with a small diagonal shift (redundant contacts make it singular).
#pragma once

#include <vector>

#include "time_stepping.hpp"

namespace contactlab::plugins {

class BilateralNewton final : public TimeSteppingIntegrator {
 public:
  explicit BilateralNewton(const ParameterValues& params);
  static ParameterSchema schema();

 protected:
  StepSolution solve(OdeView& ode, MechanicsView& mechanics, ContactStep& step, double step_s,
                     std::span<double> r, std::span<double> v) override;

 private:
  bool nonlinear_ = false;
  std::vector<int> active_;  ///< index in the active set per point, −1: inactive
  std::vector<std::size_t> members_;
  std::vector<double> v_trial_, distances_;
};

}  // namespace contactlab::plugins
