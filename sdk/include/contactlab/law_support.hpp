// Helpers for writing contact laws: numbers in error messages, and the input checks that several
// laws share (Hertz' effective radius and modulus, the pair's restitution). Header-only, so that
// plugins in different libraries use one implementation; nothing here crosses the plugin boundary.
// The checks allocate only on their throwing path, so they may run in normal_force(), compute()
// and the other hot-path hooks.
#pragma once

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "contactlab/contact.hpp"
#include "contactlab/errors.hpp"

namespace contactlab {

/// `value` as printf's "%.6g" (six significant digits: 0.5, 2, 1e+06, 2.5e-05, inf, nan), the
/// form error messages use to quote a parameter or an input.
inline std::string format_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

/// Throws SimulationError unless the effective radius R* and the effective modulus E* of `contact`
/// are finite and positive, as Hertz' stiffness (4/3)·E*·√R* needs (Neumayr 2025, eq. 7.1). The
/// message starts with `law_name`, quotes the value and says how to fix it:
///   R* = +∞ (a flat pair): "<law_name> needs a finite <radius_name>: both surfaces are flat; set
///     contact_radius_m on one geometry<alternative>"
///   other R*: "<law_name> needs a finite, positive <radius_name> (got <R*> m); check
///     contact_radius_m of both geometries<alternative>"
///   E*: "<law_name> needs a finite, positive effective modulus E* (got <E*> Pa); give both solids
///     a material with a finite youngs_modulus_Pa > 0<alternative>"
/// `radius_name` names R* as the law's documentation does; `alternative` ends each message with
/// another way out the law offers (e.g. ", or give stiffness_N_per_m_pow_n").
inline void require_hertz_inputs(const ContactKinematics& contact, const char* law_name,
                                 const char* radius_name = "effective radius R*",
                                 const char* alternative = "") {
  const double radius_m = contact.effective_radius_m;
  if (!(std::isfinite(radius_m) && radius_m > 0.0)) {
    if (radius_m == std::numeric_limits<double>::infinity()) {
      throw SimulationError(std::string(law_name) + " needs a finite " + radius_name +
                            ": both surfaces are flat; set contact_radius_m on one geometry" +
                            alternative);
    }
    throw SimulationError(std::string(law_name) + " needs a finite, positive " + radius_name +
                          " (got " + format_number(radius_m) +
                          " m); check contact_radius_m of both geometries" + alternative);
  }
  const double modulus_Pa = contact.effective_modulus_Pa;
  if (!(std::isfinite(modulus_Pa) && modulus_Pa > 0.0)) {
    throw SimulationError(
        std::string(law_name) + " needs a finite, positive effective modulus E* (got " +
        format_number(modulus_Pa) +
        " Pa); give both solids a material with a finite youngs_modulus_Pa > 0" + alternative);
  }
}

/// The pair material's coefficient of restitution e of `contact`; throws SimulationError unless
/// 0 ≤ e ≤ 1 (a NaN fails too), with the message "<law_name>: the pair material's restitution is
/// <e>; it must lie in [0, 1]<alternative>" (e.g. alternative " (or set params.restitution)").
inline double checked_restitution(const ContactKinematics& contact, const char* law_name,
                                  const char* alternative = "") {
  const double e = contact.material.restitution;
  if (!(e >= 0.0 && e <= 1.0)) {
    throw SimulationError(std::string(law_name) + ": the pair material's restitution is " +
                          format_number(e) + "; it must lie in [0, 1]" + alternative);
  }
  return e;
}

}  // namespace contactlab
