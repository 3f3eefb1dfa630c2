// ncp_newton: SiLVIA's complementarity on distances (Neumayr's seed 001, Sauer & Schömer, §3.2)
// with Coulomb friction. Per step the contact impulses r (3 per point) satisfy, with the
// semi-implicit Euler update v⁺ = v_free + M⁻¹Jᵀr, q⁺ = q ⊕ h·v⁺,
//   δ(q⁺) ≥ 0 ⊥ r_N ≥ 0                       (SiLVIA eq. 6: distances at the end of the step)
//   Coulomb's cone on u⁺_T with μ_s or μ_k    (not in SiLVIA: its forces are normal only)
// and Newton's restitution u⁺_N ≥ −e·u_c at impacts. Written as the step's local frictional
// contact problem (W = J M⁻¹ Jᵀ sparse, q = u_free − b) and solved by the contact-problem
// library's semismooth Newton: `solver: newton_fb` (default) takes SiLVIA's Fischer–Burmeister
// function on the normal pair (f, δ) and Alart–Curnier's projection on the friction disk, whose
// radius μ·r_N follows the normal iterate inside the same Newton iteration; `newton_ac` takes
// Alart–Curnier's function for both. The projection formulation of friction was chosen over
// Fischer–Burmeister on the second-order cone because its generalised Jacobian is a cheap 2×2
// per sliding contact and it is what Siconos' reference solvers use, so the comparison with them
// is like for like. `distance: linearized` takes δ(q⁺) ≈ δ + h·u⁺_N (one linear complementarity
// per step, solved by Newton); `nonlinear` evaluates δ(q⁺) through the contact pipeline at every
// Newton iterate (distances_at), with the linearised rows as the Jacobian (SiLVIA's δ(σ(f))).
// Warm start: the same points' impulses of the previous step.
#pragma once

#include <string>
#include <vector>

#include "time_stepping.hpp"

namespace contactlab::plugins {

class NcpNewton final : public TimeSteppingIntegrator {
 public:
  explicit NcpNewton(const ParameterValues& params);
  static ParameterSchema schema();

 protected:
  StepSolution solve(OdeView& ode, MechanicsView& mechanics, ContactStep& step, double step_s,
                     std::span<double> r, std::span<double> v) override;

 private:
  std::string solver_ = "newton_fb";
  bool nonlinear_ = false;
  std::vector<double> u_, v_trial_, distances_;
};

}  // namespace contactlab::plugins
