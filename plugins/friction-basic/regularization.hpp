// Neumayr (2025) eq. 7.4: the C² regularisation of a speed that every friction law of this
// library uses to avoid dividing by zero at zero slip (or zero relative angular velocity).
#pragma once

#include <cmath>

namespace contactlab::plugins {

/// Neumayr (2025) eq. 7.4: reg(v) = |v| for |v| ≥ v_min, else
/// (v²/v_min)·(1 − |v|/(3·v_min)) + v_min/3. Never below v_min/3 (its value at 0), so
/// x / reg(|x|) is bounded and smooth; C² at |v| = v_min (value v_min, slope 1, curvature 0).
inline double regularize(double v, double v_min) {
  const double speed = std::abs(v);
  if (speed >= v_min) return speed;
  return (speed * speed / v_min) * (1.0 - speed / (3.0 * v_min)) + v_min / 3.0;
}

}  // namespace contactlab::plugins
