// A double-double scalar: the unevaluated sum hi + lo of two doubles with |lo| ≤ ulp(hi)/2, which
// carries a 106-bit significand (about 32 decimal digits) in the exponent range of double.
//
// This is the arithmetic behind Julia's Double64 that Modia3D runs MPR in (Neumayr 2025 §6.1.4).
// The error-free transformations are Knuth's two-sum and the fused-multiply-add two-product
// (Dekker's product with std::fma); the operators follow the "accurate" variants of Hida, Li and
// Bailey's double-double library, whose relative error is a small multiple of 2^-104.
//
// Only finite values are supported: infinities and NaN reach `hi` but `lo` is then meaningless.
#pragma once

#include <cmath>
#include <limits>

namespace contactlab::plugins::mpr {

namespace double_double_detail {

/// s + e = a + b exactly, s = fl(a + b) (Knuth's branch-free two-sum).
inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double b_virtual = s - a;
  const double a_virtual = s - b_virtual;
  e = (a - a_virtual) + (b - b_virtual);
}

/// s + e = a + b exactly when |a| ≥ |b| (or a = 0), s = fl(a + b) (Dekker's fast two-sum).
inline void fast_two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  e = b - (s - a);
}

/// p + e = a·b exactly, p = fl(a·b): the fused multiply-add returns the rounding error of a·b.
inline void two_product(double a, double b, double& p, double& e) {
  p = a * b;
  e = std::fma(a, b, -p);
}

}  // namespace double_double_detail

class DoubleDouble {
 public:
  constexpr DoubleDouble() = default;
  /// Every double is exactly a double-double (implicit, as for the built-in floating types).
  constexpr DoubleDouble(double value)
      : hi_(value), lo_(0.0) {}  // NOLINT(google-explicit-constructor)

  /// A value from two parts that need not be normalised (the sum is renormalised).
  static DoubleDouble from_sum(double a, double b) {
    DoubleDouble out;
    double_double_detail::two_sum(a, b, out.hi_, out.lo_);
    return out;
  }
  /// The exact product of two doubles.
  static DoubleDouble from_product(double a, double b) {
    DoubleDouble out;
    double_double_detail::two_product(a, b, out.hi_, out.lo_);
    return out;
  }

  /// 2^-104: the spacing of double-doubles relative to their value (as Julia's eps(Double64)).
  static constexpr double epsilon() {
    return 4.930380657631323783823303533017413935457540219431e-32;
  }

  constexpr double hi() const { return hi_; }
  constexpr double lo() const { return lo_; }
  /// The nearest double (hi, because the pair is normalised).
  explicit constexpr operator double() const { return hi_; }
  /// hi + lo in extended precision (exact when long double has at least 106 bits; else rounded).
  explicit operator long double() const {
    return static_cast<long double>(hi_) + static_cast<long double>(lo_);
  }

  DoubleDouble operator-() const { return from_parts_unchecked(-hi_, -lo_); }

  friend DoubleDouble operator+(const DoubleDouble& a, const DoubleDouble& b) {
    using namespace double_double_detail;
    double s, e, t, f;
    two_sum(a.hi_, b.hi_, s, e);
    two_sum(a.lo_, b.lo_, t, f);
    e += t;
    fast_two_sum(s, e, s, e);
    e += f;
    fast_two_sum(s, e, s, e);
    return from_parts_unchecked(s, e);
  }
  friend DoubleDouble operator+(const DoubleDouble& a, double b) {
    using namespace double_double_detail;
    double s, e;
    two_sum(a.hi_, b, s, e);
    e += a.lo_;
    fast_two_sum(s, e, s, e);
    return from_parts_unchecked(s, e);
  }
  friend DoubleDouble operator+(double a, const DoubleDouble& b) { return b + a; }
  friend DoubleDouble operator-(const DoubleDouble& a, const DoubleDouble& b) { return a + (-b); }
  friend DoubleDouble operator-(const DoubleDouble& a, double b) { return a + (-b); }
  friend DoubleDouble operator-(double a, const DoubleDouble& b) { return (-b) + a; }

  friend DoubleDouble operator*(const DoubleDouble& a, const DoubleDouble& b) {
    using namespace double_double_detail;
    double p, e;
    two_product(a.hi_, b.hi_, p, e);
    e += a.hi_ * b.lo_ + a.lo_ * b.hi_;  // the lo·lo term is below the last bit
    fast_two_sum(p, e, p, e);
    return from_parts_unchecked(p, e);
  }
  friend DoubleDouble operator*(const DoubleDouble& a, double b) {
    using namespace double_double_detail;
    double p, e;
    two_product(a.hi_, b, p, e);
    e += a.lo_ * b;
    fast_two_sum(p, e, p, e);
    return from_parts_unchecked(p, e);
  }
  friend DoubleDouble operator*(double a, const DoubleDouble& b) { return b * a; }

  /// Long division: three quotient digits, each from the remainder of the previous ones.
  friend DoubleDouble operator/(const DoubleDouble& a, const DoubleDouble& b) {
    using namespace double_double_detail;
    const double q1 = a.hi_ / b.hi_;
    DoubleDouble remainder = a - b * q1;
    const double q2 = remainder.hi_ / b.hi_;
    remainder = remainder - b * q2;
    const double q3 = remainder.hi_ / b.hi_;
    double s, e;
    fast_two_sum(q1, q2, s, e);
    return from_parts_unchecked(s, e) + q3;
  }
  friend DoubleDouble operator/(const DoubleDouble& a, double b) { return a / DoubleDouble(b); }
  friend DoubleDouble operator/(double a, const DoubleDouble& b) { return DoubleDouble(a) / b; }

  DoubleDouble& operator+=(const DoubleDouble& b) { return *this = *this + b; }
  DoubleDouble& operator-=(const DoubleDouble& b) { return *this = *this - b; }
  DoubleDouble& operator*=(const DoubleDouble& b) { return *this = *this * b; }
  DoubleDouble& operator/=(const DoubleDouble& b) { return *this = *this / b; }

  // Comparisons: normalised pairs order lexicographically by (hi, lo).
  friend bool operator==(const DoubleDouble& a, const DoubleDouble& b) {
    return a.hi_ == b.hi_ && a.lo_ == b.lo_;
  }
  friend bool operator!=(const DoubleDouble& a, const DoubleDouble& b) { return !(a == b); }
  friend bool operator<(const DoubleDouble& a, const DoubleDouble& b) {
    return a.hi_ < b.hi_ || (a.hi_ == b.hi_ && a.lo_ < b.lo_);
  }
  friend bool operator>(const DoubleDouble& a, const DoubleDouble& b) { return b < a; }
  friend bool operator<=(const DoubleDouble& a, const DoubleDouble& b) { return !(b < a); }
  friend bool operator>=(const DoubleDouble& a, const DoubleDouble& b) { return !(a < b); }

  friend DoubleDouble abs(const DoubleDouble& a) { return a.hi_ < 0.0 ? -a : a; }

  /// Square root by one Newton step from the double square root, done in double-double (Karp and
  /// Markstein): x = √hi, then x + (a − x²)/(2x), which doubles the number of correct bits.
  /// Negative arguments give NaN, zero gives zero.
  friend DoubleDouble sqrt(const DoubleDouble& a) {
    if (a.hi_ <= 0.0) {
      return a.hi_ == 0.0 ? DoubleDouble(0.0)
                          : DoubleDouble(std::numeric_limits<double>::quiet_NaN());
    }
    const double x = std::sqrt(a.hi_);
    const DoubleDouble residual = a - from_product(x, x);
    return from_sum(x, residual.hi_ / (2.0 * x));
  }

 private:
  static constexpr DoubleDouble from_parts_unchecked(double hi, double lo) {
    DoubleDouble out;
    out.hi_ = hi;
    out.lo_ = lo;
    return out;
  }

  double hi_ = 0.0;
  double lo_ = 0.0;
};

}  // namespace contactlab::plugins::mpr
