// Unit tests of the double-double scalar (plugins/narrowphase-mpr/double_double.hpp): error-free
// transformations, the four operations and the square root against exact rational arithmetic on
// doubles, comparisons and conversions.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "double_double.hpp"

using contactlab::plugins::mpr::DoubleDouble;

namespace {

// |a − b| relative to |b|, with b given exactly as hi + lo (evaluated in double-double).
double relative_error(const DoubleDouble& a, const DoubleDouble& b) {
  const DoubleDouble difference = a - b;
  return std::abs(difference.hi()) / std::abs(b.hi());
}

// 2^-k without relying on std::ldexp being constexpr.
double power_of_two(int exponent) {
  return std::ldexp(1.0, exponent);
}

}  // namespace

TEST_CASE("double_double: a double converts exactly and back, comparisons order by hi then lo") {
  const DoubleDouble one(1.0);
  CHECK(one.hi() == 1.0);
  CHECK(one.lo() == 0.0);
  CHECK(static_cast<double>(DoubleDouble(0.1)) == 0.1);
  const DoubleDouble just_above = DoubleDouble::from_sum(1.0, power_of_two(-80));
  CHECK(just_above.hi() == 1.0);
  CHECK(just_above.lo() == power_of_two(-80));
  CHECK(one < just_above);
  CHECK(just_above > one);
  CHECK(one <= one);
  CHECK(one >= one);
  CHECK(one != just_above);
  CHECK(-just_above < -one);
  CHECK(abs(-just_above) == just_above);
  CHECK(static_cast<double>(just_above) == 1.0);
}

TEST_CASE("double_double: two-sum and two-product are exact, sums keep 2^-80 that double loses") {
  // (1 + 2^-80) − 1 is 2^-80 in double-double and 0 in double.
  const DoubleDouble x = DoubleDouble(1.0) + power_of_two(-80);
  CHECK((x - 1.0).hi() == power_of_two(-80));
  CHECK((1.0 + power_of_two(-80)) - 1.0 == 0.0);
  // (2^27 + 1)² = 2^54 + 2^28 + 1 needs 55 bits: the product keeps the trailing 1.
  const double a = power_of_two(27) + 1.0;
  const DoubleDouble square = DoubleDouble::from_product(a, a);
  CHECK(square.hi() == power_of_two(54) + power_of_two(28));
  CHECK(square.lo() == 1.0);
  // (1e16 + 1) − 1e16 = 1 exactly.
  CHECK(((DoubleDouble(1e16) + 1.0) - 1e16).hi() == 1.0);
}

TEST_CASE("double_double: 1/3·3, sqrt(2)² and (a·b)/b are exact within 1e-30 relative") {
  const DoubleDouble third = DoubleDouble(1.0) / 3.0;
  CHECK(relative_error(third * 3.0, DoubleDouble(1.0)) <= 1e-30);
  const DoubleDouble root2 = sqrt(DoubleDouble(2.0));
  CHECK(relative_error(root2 * root2, DoubleDouble(2.0)) <= 1e-30);
  // √2 = 1.4142135623730951 − 9.667293313452913e-17 (the digits of √2 beyond the double).
  CHECK(root2.hi() == 1.4142135623730951);
  CHECK(std::abs(root2.lo() - (-9.667293313452913e-17)) <= 1e-31);
  CHECK(sqrt(DoubleDouble(0.0)).hi() == 0.0);
  CHECK(std::isnan(sqrt(DoubleDouble(-1.0)).hi()));
  const DoubleDouble tiny_root = sqrt(DoubleDouble(1e-200));
  CHECK(relative_error(tiny_root * tiny_root, DoubleDouble(1e-200)) <= 1e-30);
}

TEST_CASE(
    "double_double: +, −, ×, ÷ and sqrt of random values agree with exact identities "
    "within 4e-31 relative on 10,000 seeded samples") {
  std::mt19937_64 rng(2025);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-30, 30);
  auto random_value = [&] {
    const double hi = std::ldexp(mantissa(rng), exponent(rng)) * (rng() % 2 ? 1.0 : -1.0);
    // A lo part below half an ulp of hi makes a full 106-bit value.
    return DoubleDouble::from_sum(hi, hi * std::ldexp(mantissa(rng) - 1.5, -54));
  };
  double worst = 0.0;
  for (int i = 0; i < 10000; ++i) {
    const DoubleDouble a = random_value();
    const DoubleDouble b = random_value();
    // Each identity undoes one operation; the residual measures its rounding.
    // A sum is accurate relative to its larger operand.
    worst = std::max(
        worst, std::abs(((a + b) - b - a).hi()) / std::max(std::abs(a.hi()), std::abs(b.hi())));
    worst = std::max(worst, relative_error((a * b) / b, a));
    worst = std::max(worst, relative_error((a / b) * b, a));
    const DoubleDouble root = sqrt(abs(a));
    worst = std::max(worst, relative_error(root * root, abs(a)));
    // Normalisation: |lo| ≤ ulp(hi)/2.
    const DoubleDouble product = a * b;
    REQUIRE(std::abs(product.lo()) <= 0.5 * std::abs(product.hi()) * power_of_two(-52));
  }
  INFO("worst relative error " << worst);
  CHECK(worst <= 4e-31);
}

TEST_CASE("double_double: a determinant that cancels to zero in double is exact within 1e-30") {
  // det [[a, b], [c, d]] with a·d and b·c equal in double but not exactly.
  const double a = 1.0 + power_of_two(-30);
  const double d = 1.0 - power_of_two(-30);
  const double b = 1.0;
  const double c = 1.0;
  // a·d = 1 − 2^-60 exactly; the double product rounds to 1.
  CHECK(a * d - b * c == 0.0);
  const DoubleDouble determinant = DoubleDouble(a) * d - DoubleDouble(b) * c;
  CHECK(std::abs(determinant.hi() - (-power_of_two(-60))) <= 1e-30);
  CHECK(DoubleDouble::epsilon() == power_of_two(-104));
}
