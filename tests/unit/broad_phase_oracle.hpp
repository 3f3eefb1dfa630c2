// Test support shared by the broad-phase unit tests: a broad phase run in lockstep with the
// brute-force oracle, and seeded random boxes moving coherently inside a cube.
#pragma once

#include <algorithm>
#include <cmath>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "brute_force_broad_phase.hpp"

namespace contactlab::testing {

inline Aabb box(const Vec3& min_W, const Vec3& max_W) {
  Aabb b;
  b.min_W = min_W;
  b.max_W = max_W;
  return b;
}

/// The pairs one list has and the other lacks (a duplicate counts as extra), for the failure text.
inline std::string difference(const std::vector<ProxyPair>& got,
                              const std::vector<ProxyPair>& expected) {
  std::vector<ProxyPair> missing, extra;
  std::set_difference(expected.begin(), expected.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), expected.begin(), expected.end(),
                      std::back_inserter(extra));
  std::ostringstream text;
  text << missing.size() << " pairs missing, " << extra.size() << " extra or repeated:";
  for (std::size_t i = 0; i < std::min<std::size_t>(missing.size(), 6); ++i)
    text << " -(" << missing[i].a << "," << missing[i].b << ")";
  for (std::size_t i = 0; i < std::min<std::size_t>(extra.size(), 6); ++i)
    text << " +(" << extra[i].a << "," << extra[i].b << ")";
  return text.str();
}

/// Applies every operation to the broad phase under test and to the brute-force oracle; check()
/// compares the pairs.
template <class BroadPhaseT>
class OracleChecked {
 public:
  explicit OracleChecked(BroadPhaseT subject) : subject_(std::move(subject)) {}

  void insert(ProxyId id, const Aabb& b) {
    subject_.insert(id, b);
    oracle_.insert(id, b);
  }
  void remove(ProxyId id) {
    subject_.remove(id);
    oracle_.remove(id);
  }
  void set_box(ProxyId id, const Aabb& b) {
    subject_.set_box(id, b);
    oracle_.set_box(id, b);
  }

  /// Requires equal pair sets; returns how many pairs there are.
  std::size_t check() {
    subject_.collect_pairs(pairs_);
    oracle_.collect_pairs(expected_);  // lexicographic order
    std::sort(pairs_.begin(), pairs_.end());
    const bool equal = pairs_ == expected_;
    if (!equal) UNSCOPED_INFO(difference(pairs_, expected_));  // only then: it costs
    REQUIRE(equal);
    return pairs_.size();
  }

  BroadPhaseT& subject() { return subject_; }

 private:
  BroadPhaseT subject_;
  plugins::BruteForceBroadPhase oracle_{ParameterValues{}};
  std::vector<ProxyPair> pairs_, expected_;
};

/// A box moving with constant velocity inside a cube, bouncing off its walls.
struct Body {
  Vec3 centre;
  Vec3 half;
  Vec3 velocity;
  Aabb aabb() const { return box(centre - half, centre + half); }
  void step(double region) {
    centre += velocity;
    for (int i = 0; i < 3; ++i) {
      if (std::abs(centre[i]) > region) velocity[i] = -velocity[i];
    }
  }
};

inline Vec3 uniform_vec(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  const double x = u(rng), y = u(rng), z = u(rng);
  return Vec3(x, y, z);
}

inline double log_uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng));
}

/// Bodies of log-uniform half sizes in [half_lo, half_hi] with centres in a cube of half edge
/// `region`, moving by at most `speed` per step along each axis.
inline std::vector<Body> random_bodies(std::mt19937_64& rng, int count, double region,
                                       double half_lo, double half_hi, double speed) {
  std::vector<Body> bodies;
  for (int i = 0; i < count; ++i) {
    Body body;
    body.centre = uniform_vec(rng, -region, region);
    const double h = log_uniform(rng, half_lo, half_hi);
    body.half = h * uniform_vec(rng, 0.5, 1.0);
    body.velocity = uniform_vec(rng, -speed, speed);
    bodies.push_back(body);
  }
  return bodies;
}

}  // namespace contactlab::testing
