// The arithmetic the MPR solver is written in, once for every precision: a 3-vector over the
// scalar T (double, long double or DoubleDouble, double_double.hpp) with its products, and the
// machine epsilon of each. Support points are computed in double by the SDK and converted.
// The operators are always inlined: left to GCC, the double-double ones stay out of line in the
// large solver functions (measured: the double-double solver's code changes throughout).
// Included only by mpr_algorithm.cpp, in the unnamed namespace of the solver's parts (see
// mpr_solver.hpp).
#pragma once

#include <cmath>
#include <contactlab/math.hpp>
#include <limits>

#include "double_double.hpp"

namespace contactlab::plugins::mpr {
namespace {

/// Machine epsilon of each arithmetic, as a double.
template <class T>
double machine_epsilon() {
  return static_cast<double>(std::numeric_limits<T>::epsilon());
}
template <>
double machine_epsilon<DoubleDouble>() {
  return DoubleDouble::epsilon();
}

template <class T>
double to_double(const T& value) {
  return static_cast<double>(value);
}

template <class T>
struct Vector3 {
  using Scalar = T;  ///< (for geometry/voronoi_closest_point.hpp)
  T x{};
  T y{};
  T z{};

  [[gnu::always_inline]] static Vector3 from(const Vec3& v) {
    return {T(v.x()), T(v.y()), T(v.z())};
  }
  [[gnu::always_inline]] Vec3 to_vec3() const {
    return Vec3(to_double(x), to_double(y), to_double(z));
  }

  [[gnu::always_inline]] friend Vector3 operator+(const Vector3& a, const Vector3& b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
  }
  [[gnu::always_inline]] friend Vector3 operator-(const Vector3& a, const Vector3& b) {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
  }
  [[gnu::always_inline]] friend Vector3 operator-(const Vector3& a) { return {-a.x, -a.y, -a.z}; }
  [[gnu::always_inline]] friend Vector3 operator*(const Vector3& a, const T& s) {
    return {a.x * s, a.y * s, a.z * s};
  }
  /// One reciprocal and three products (a double-double division costs several products).
  [[gnu::always_inline]] friend Vector3 operator/(const Vector3& a, const T& s) {
    const T inverse = T(1.0) / s;
    return {a.x * inverse, a.y * inverse, a.z * inverse};
  }
};

template <class T>
[[gnu::always_inline]] inline T dot(const Vector3<T>& a, const Vector3<T>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

template <class T>
[[gnu::always_inline]] inline Vector3<T> cross(const Vector3<T>& a, const Vector3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

template <class T>
[[gnu::always_inline]] inline T norm(const Vector3<T>& a) {
  using std::sqrt;
  return sqrt(dot(a, a));
}

}  // namespace
}  // namespace contactlab::plugins::mpr
