// Unit tests of Goyal's tangential spring friction (plugins/friction-basic/tangential_spring.hpp),
// against closed forms of a spring–damper block on an incline (critically damped stick) and of
// uniform deceleration while slipping.
#include <array>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tangential_spring.hpp"
#include "test_friction_host.hpp"

using contactlab::ContactKinematics;
using contactlab::ContactState;
using contactlab::FrictionResult;
using contactlab::LawMemory;
using contactlab::ParameterValues;
using contactlab::Vec3;
using contactlab::plugins::TangentialSpring;
using friction_test::friction_state;
using friction_test::gravity_m_per_s2;
using friction_test::incline;
using friction_test::rate_of;
using friction_test::sliding;

namespace {

constexpr double k = 1e4;                             // N/m
constexpr double mass = 1.0;                          // kg
const double c_critical = 2.0 * std::sqrt(k * mass);  // N·s/m
const double omega = std::sqrt(k / mass);             // rad/s

TangentialSpring make(double stiffness, double damping) {
  return TangentialSpring(ParameterValues::defaults(
      TangentialSpring::schema(),
      {{"stiffness_N_per_m", stiffness}, {"damping_N_s_per_m", damping}}));
}

std::array<double, 2> events_of(const TangentialSpring& law, const ContactKinematics& contact,
                                double f_n, const ContactState& state) {
  std::array<double, 2> g{};
  law.event_functions(contact, f_n, state.friction, std::span<double>(g));
  return g;
}

// Bisection of an increasing function f on [lo, hi] for f = 0.
template <class F>
double root(F f, double lo, double hi) {
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) < 0.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

TEST_CASE(
    "tangential_spring: schema stiffness_N_per_m = 1e5 (> 0), damping_N_s_per_m = 100 (> 0), "
    "layout {3, 2}, born sliding → slip, born at rest → stick, ξ = 0") {
  const auto by_name = friction_test::schema_by_name(TangentialSpring::schema());
  REQUIRE(by_name.size() == 6);
  CHECK(std::get<double>(by_name.at("stiffness_N_per_m").default_value) == 1e5);
  CHECK(by_name.at("stiffness_N_per_m").minimum_exclusive);
  CHECK(by_name.at("stiffness_N_per_m").unit == "N/m");
  CHECK(std::get<double>(by_name.at("damping_N_s_per_m").default_value) == 100.0);
  CHECK(by_name.at("damping_N_s_per_m").minimum_exclusive);  // Goyal: C positive definite
  CHECK(by_name.at("damping_N_s_per_m").unit == "N·s/m");
  const TangentialSpring law = make(k, c_critical);
  CHECK(law.layout().continuous_states == 3);
  CHECK(law.layout().event_functions == 2);
  CHECK(std::string(law.event_name(0)) == "stick_to_slip");
  CHECK(std::string(law.event_name(1)) == "slip_to_stick");
  LawMemory memory;
  memory.x = {1, 2, 3, 4};
  law.on_birth(sliding(Vec3(0.1, 0, 0), 0.5, 0.3), memory);
  CHECK(memory.mode == TangentialSpring::slip);
  CHECK((memory.x[0] == 0.0 && memory.x[1] == 0.0 && memory.x[2] == 0.0));
  law.on_birth(sliding(Vec3::Zero(), 0.5, 0.3), memory);
  CHECK(memory.mode == TangentialSpring::stick);
}

TEST_CASE(
    "tangential_spring: inside the cone the force is the trial −(k·ξ + c·v) and ξ̇ = v, outside "
    "it lies on the cone, |f| = μ·f_n, and the rate satisfies f = −(k·ξ + c·ξ̇) (within 1e-12 "
    "relative)") {
  const double c = 50.0, mu_s = 0.5, mu_k = 0.3, f_n = 10.0;
  const TangentialSpring law = make(k, c);
  // Stick: a = k·ξ + c·v = (1 + 0.05, 0.5, 0) N, inside μ_s·f_n = 5 N.
  {
    const ContactKinematics contact = sliding(Vec3(1e-3, 0, 0), mu_s, mu_k);
    const ContactState state = friction_state(Vec3(1e-4, 5e-5, 0), TangentialSpring::stick);
    const Vec3 expected = -(k * Vec3(1e-4, 5e-5, 0) + c * Vec3(1e-3, 0, 0));
    CHECK((law.compute(contact, f_n, state).force_W - expected).norm() <= 1e-12 * expected.norm());
    CHECK((rate_of(law, contact, f_n, state) - contact.slip_velocity_W).norm() <= 1e-15);
    const auto g = events_of(law, contact, f_n, state);
    CHECK(g[0] == Approx(mu_s * f_n - expected.norm()).epsilon(1e-12));
    CHECK(g[1] == 1.0);  // disarmed in stick
  }
  // Slip, on a tilted plane, ξ with a normal component: only ξ_t counts.
  const double a = 0.4;
  const Vec3 n(std::sin(a), 0.0, std::cos(a));
  const Vec3 t1 = Vec3::UnitY(), t2 = t1.cross(n);
  ContactKinematics contact = sliding(0.05 * t1 - 0.02 * t2, mu_s, mu_k);
  contact.normal_W = n;
  const Vec3 xi_t = 4e-4 * t1 + 1e-4 * t2;
  const ContactState state = friction_state(xi_t + 2e-4 * n, TangentialSpring::slip);
  const FrictionResult result = law.compute(contact, f_n, state);
  const Vec3 trial = -(k * xi_t + c * contact.slip_velocity_W);
  REQUIRE(trial.norm() > mu_k * f_n);
  CHECK(result.force_W.norm() == Approx(mu_k * f_n).epsilon(1e-12));
  CHECK((result.force_W.normalized() - trial.normalized()).norm() <= 1e-12);
  const Vec3 rate = rate_of(law, contact, f_n, state);
  const Vec3 rate_t = rate - rate.dot(n) * n;
  CHECK((-(k * xi_t + c * rate_t) - result.force_W).norm() <= 1e-12 * result.force_W.norm());
  // The anchor slides along the slip direction of the force's reaction (λ ≥ 0).
  CHECK((contact.slip_velocity_W - rate_t).dot(-result.force_W) > 0.0);
  CHECK(rate.dot(n) == Approx(-(k / c) * 2e-4).epsilon(1e-12));
  const auto g = events_of(law, contact, f_n, state);
  CHECK(g[0] == 1.0);  // disarmed in slip
  CHECK(g[1] == Approx(trial.norm() - mu_k * f_n).epsilon(1e-12));
  // The handlers flip the mode only.
  LawMemory memory = state.friction;
  law.on_event(TangentialSpring::slip_to_stick_event, contact, f_n, memory);
  CHECK(memory.mode == TangentialSpring::stick);
  CHECK(memory.x == state.friction.x);
  law.on_event(TangentialSpring::stick_to_slip_event, contact, f_n, memory);
  CHECK(memory.mode == TangentialSpring::slip);
  // Stick mode with the trial beyond μ_s·f_n (an event a host did not locate): capped at μ_s·f_n.
  CHECK(law.compute(contact, 1.0, friction_state(xi_t, TangentialSpring::stick)).force_W.norm() ==
        Approx(mu_s * 1.0).epsilon(1e-12));
  // μ_s < μ_k throws.
  CHECK_THROWS_WITH(law.compute(sliding(Vec3(1, 0, 0), 0.2, 0.3), f_n, state),
                    Catch::Contains("tangential_spring"));
}

TEST_CASE(
    "tangential_spring: block on an incline at tan θ = 0.85·μ_s sticks — x(t) is the critically "
    "damped step response x_s·(1 − (1 + ωt)·e^(−ωt)) (within 1e-9·x_s), no event, "
    "k·|ξ| ≤ μ_s·f_n") {
  const double mu_s = 0.5, mu_k = 0.3, theta = std::atan(0.85 * mu_s);
  const TangentialSpring law = make(k, c_critical);
  const friction_test::Block block = incline(theta, mu_s, mu_k);
  const double drive = mass * gravity_m_per_s2 * std::sin(theta);
  // The trial force k·x + c·ẋ = m·g·sin θ − m·ẍ peaks at m·g·sin θ·(1 + e^−2) at ωt = 2.
  REQUIRE(drive * (1.0 + std::exp(-2.0)) < mu_s * block.normal_force_N);
  const double x_s = drive / k;
  friction_test::BlockHost host(law, block);
  host.birth(0.0, 0.0, 0.0);
  double worst = 0.0, xi_max = 0.0;
  bool anchor_fixed = true;
  host.run(0.4, 1e-5, [&](const friction_test::Sample& s) {
    const double u = omega * s.t;
    worst = std::max(worst, std::abs(s.x - x_s * (1.0 - (1.0 + u) * std::exp(-u))));
    xi_max = std::max(xi_max, std::abs(s.law_x[0]));
    anchor_fixed = anchor_fixed && s.law_x[0] == s.x;  // ξ = x: the anchor never moves
  });
  CHECK(anchor_fixed);
  CHECK(worst <= 1e-9 * x_s);
  CHECK(host.events.empty());
  CHECK(host.contact_state().friction.mode == TangentialSpring::stick);
  CHECK(k * xi_max <= mu_s * block.normal_force_N);
  CHECK(host.state()[0] == Approx(x_s).epsilon(1e-9));
}

TEST_CASE(
    "tangential_spring: block on an incline at tan θ = 1.2·μ_s — stick→slip at the closed-form "
    "time (within 1e-10 s), then |f| = μ_k·f_n on the cone (within 1e-12 relative) and "
    "acceleration "
    "g·(sin θ − μ_k·cos θ) (within 1e-10 relative), the force drops by exactly (μ_s − μ_k)·f_n, "
    "and is continuous when μ_s = μ_k") {
  const TangentialSpring law = make(k, c_critical);
  for (double mu_k : {0.3, 0.5}) {
    const double mu_s = 0.5, theta = std::atan(1.2 * mu_s);
    const friction_test::Block block = incline(theta, mu_s, mu_k);
    const double f_n = block.normal_force_N;
    // Stick: k·x + c·ẋ = m·g·sin θ·(1 − (1 − ωt)·e^(−ωt)) reaches μ_s·f_n at ω·t*.
    const double target = mu_s / std::tan(theta);
    const double u_star =
        root([&](double u) { return 1.0 - (1.0 - u) * std::exp(-u) - target; }, 0.0, 2.0);
    friction_test::BlockHost host(law, block);
    host.birth(0.0, 0.0, 0.0);
    std::vector<friction_test::Sample> samples;
    host.run(0.3, 1e-5, [&](const friction_test::Sample& s) { samples.push_back(s); });
    CAPTURE(mu_k);
    REQUIRE(host.events.size() == 1);
    CHECK(host.events[0].index == TangentialSpring::stick_to_slip_event);
    CHECK(host.events[0].t == Approx(u_star / omega).epsilon(0).margin(1e-10));
    // Locate the event sample; compare the forces on both sides.
    std::size_t i_event = 0;
    while (samples[i_event].t < host.events[0].t) ++i_event;
    const double before = samples[i_event - 1].friction_N, at = samples[i_event].friction_N;
    const double max_stick_rate = omega * mass * gravity_m_per_s2 * std::sin(theta);  // |dF/dt|
    CHECK(std::abs(before - (-mu_s * f_n)) <= max_stick_rate * 1e-5);
    CHECK(at == Approx(-mu_k * f_n).epsilon(1e-12));
    CHECK(std::abs((before - at) - (-(mu_s - mu_k) * f_n)) <= max_stick_rate * 1e-5);
    double worst_cone = 0.0;
    bool slipping = true;
    for (std::size_t i = i_event; i < samples.size(); ++i) {
      worst_cone = std::max(worst_cone, std::abs(samples[i].friction_N + mu_k * f_n));
      slipping = slipping && samples[i].mode == TangentialSpring::slip;
    }
    CHECK(slipping);
    CHECK(worst_cone <= 1e-12 * mu_k * f_n);
    const double acceleration =
        (samples.back().v - samples[i_event].v) / (samples.back().t - samples[i_event].t);
    CHECK(acceleration ==
          Approx(gravity_m_per_s2 * (std::sin(theta) - mu_k * std::cos(theta))).epsilon(1e-10));
    double xi_max = 0.0;  // the stick bound k·|ξ| ≤ μ_s·f_n
    for (std::size_t i = 0; i < i_event; ++i)
      xi_max = std::max(xi_max, std::abs(samples[i].law_x[0]));
    CHECK(k * xi_max <= mu_s * f_n);
  }
}

TEST_CASE(
    "tangential_spring: with μ_s = μ_k the law needs no events — the same run without event "
    "handling ends in the same state (within 1e-7 relative: RK4 steps across the stick–slip kink "
    "instead of stopping at it), with k·ξ = μ·f_n (within 1e-9 relative)") {
  const TangentialSpring law = make(k, c_critical);
  const double mu = 0.4, theta = std::atan(1.1 * mu);
  std::array<double, 3> end_x{}, end_v{}, end_xi{};
  int run = 0;
  for (bool handle_events : {true, false}) {
    friction_test::BlockHost host(law, incline(theta, mu, mu), handle_events);
    host.birth(0.0, 0.0, 0.0);
    host.run(0.6, 1e-5, nullptr);
    end_x[run] = host.state()[0];
    end_v[run] = host.state()[1];
    end_xi[run] = host.state()[2];
    ++run;
  }
  CHECK(end_x[0] == Approx(end_x[1]).epsilon(1e-7));
  CHECK(end_v[0] == Approx(end_v[1]).epsilon(1e-7));
  CHECK(end_xi[0] == Approx(end_xi[1]).epsilon(1e-7));
  CHECK(end_xi[0] * k == Approx(mu * mass * gravity_m_per_s2 * std::cos(theta)).epsilon(1e-9));
}

TEST_CASE(
    "tangential_spring: a block launched down a gentle incline (tan θ = μ_k/2) is born slipping, "
    "decelerates at g·(μ_k·cos θ − sin θ) with ξ = (μ_k·f_n/k)·(1 − e^(−kt/c)) (within 1e-9), "
    "sticks at the closed-form time (within 1e-10 s) and settles at k·ξ = m·g·sin θ (within 1e-9 "
    "relative)") {
  const double mu_s = 0.5, mu_k = 0.3, theta = std::atan(0.5 * mu_k), v0 = 1.0;
  const TangentialSpring law = make(k, c_critical);
  const friction_test::Block block = incline(theta, mu_s, mu_k);
  const double f_n = block.normal_force_N;
  const double d = gravity_m_per_s2 * (mu_k * std::cos(theta) - std::sin(theta));
  const double relax = k / c_critical;
  auto xi_slip = [&](double t) { return mu_k * f_n / k * (1.0 - std::exp(-relax * t)); };
  // Slip ends when k·ξ + c·v = μ_k·f_n, i.e. v0 − d·t = (μ_k·f_n/c)·e^(−kt/c).
  const double t_stick =
      root([&](double t) { return mu_k * f_n / c_critical * std::exp(-relax * t) - (v0 - d * t); },
           0.0, v0 / d);
  friction_test::BlockHost host(law, block);
  host.birth(0.0, 0.0, v0);
  REQUIRE(host.contact_state().friction.mode == TangentialSpring::slip);
  double worst_v = 0.0, worst_xi = 0.0;
  host.run(t_stick + 0.5, 1e-5, [&](const friction_test::Sample& s) {
    if (s.mode != TangentialSpring::slip) return;
    worst_v = std::max(worst_v, std::abs(s.v - (v0 - d * s.t)));
    worst_xi = std::max(worst_xi, std::abs(s.law_x[0] - xi_slip(s.t)));
  });
  CHECK(worst_v <= 1e-9);
  CHECK(worst_xi <= 1e-9 * mu_k * f_n / k);
  REQUIRE(host.events.size() == 1);
  CHECK(host.events[0].index == TangentialSpring::slip_to_stick_event);
  CHECK(host.events[0].t == Approx(t_stick).epsilon(0).margin(1e-10));
  CHECK(host.contact_state().friction.mode == TangentialSpring::stick);
  // At rest: the spring holds the slope force; the block stopped where the anchor (x − ξ at the
  // stick event, fixed since) plus m·g·sin θ/k puts it.
  const double x_event = v0 * t_stick - 0.5 * d * t_stick * t_stick;
  const double anchor = x_event - xi_slip(t_stick);
  const double xi_rest = mass * gravity_m_per_s2 * std::sin(theta) / k;
  CHECK(host.state()[2] == Approx(xi_rest).epsilon(1e-9));
  CHECK(host.state()[0] == Approx(anchor + xi_rest).epsilon(1e-9));
  CHECK(std::abs(host.state()[1]) < 1e-9);
}
