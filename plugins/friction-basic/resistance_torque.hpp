// Rolling and drilling resistance torque shared by every friction law of this library
// (Neumayr 2025, eq. 7.3d with eq. 7.10 and the regularisation eq. 7.4).
#pragma once

#include <contactlab/contact.hpp>
#include <contactlab/parameters.hpp>

namespace contactlab::plugins {

/// The resistance torque on body B at a contact, from ω_rel = ω_B − ω_A
/// (ContactKinematics::relative_angular_velocity_W), μ_r = material.rolling_friction and
/// R* = effective_radius_m.
///
/// model "combined" (default; Neumayr eq. 7.3d as written, one coefficient for rolling and
/// drilling):  τ = −μ_r·R*·f_n·ω_rel / reg(|ω_rel|, w_min).
/// model "separate": ω_rel is split into its drilling part ω_n = (ω_rel·n)·n (about the contact
/// normal) and its rolling part ω_t = ω_rel − ω_n (in the tangent plane), each regularised on its
/// own, so that a fast rolling motion does not weaken the resistance to a slow spin:
///   τ = −μ_r·R*·f_n·[ω_t / reg(|ω_t|) + d·ω_n / reg(|ω_n|)],  d = drilling_factor.
/// Neumayr uses μ_r for both (d = 1); d = 0 keeps rolling resistance only.
/// Above w_min the magnitudes are exactly μ_r·R*·f_n (rolling) and d·μ_r·R*·f_n (drilling).
///
/// A pair with μ_r > 0 needs a finite, positive R* (flat–flat pairs have R* = ∞ unless a geometry
/// sets contact_radius_m), else SimulationError. With μ_r = 0 or the torque disabled, R* is never
/// read.
struct ResistanceTorque {
  enum class Model { combined, separate };

  bool enabled = false;
  double w_min_rad_per_s = 0.01;
  Model model = Model::combined;
  double drilling_factor = 1.0;

  /// Appends the parameters rolling_resistance, w_min_rad_per_s, resistance_model and
  /// drilling_factor to a law's schema.
  static void append_schema(ParameterSchema& schema);
  /// Reads the parameters append_schema() declared.
  static ResistanceTorque from_parameters(const ParameterValues& params);

  /// Torque on B [N·m]; `law_name` only names the law in the error message.
  Vec3 torque(const ContactKinematics& contact, double normal_force_N, const char* law_name) const;
};

}  // namespace contactlab::plugins
