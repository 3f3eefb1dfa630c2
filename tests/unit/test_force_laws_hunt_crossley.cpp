// Unit tests of the Hunt–Crossley normal force law (plugins/forcelaw-basic): forces against the
// closed form, the regularisations, and 1-DOF impacts (impact_1dof.hpp: RK4, tiny steps) against
// Hertz' closed-form impact and against the restitution each damping model is calibrated for.
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "hunt_crossley_force_law.hpp"
#include "impact_1dof.hpp"

using contactlab::ContactKinematics;
using contactlab::ContactState;
using contactlab::ParameterSchema;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::plugins::HuntCrossleyForceLaw;
using contactlab::testing::ball_mass_kg;
using contactlab::testing::ball_radius_m;
using contactlab::testing::hc_exact_restitution;
using contactlab::testing::ImpactResult;
using contactlab::testing::spec_named;
using contactlab::testing::steel_contact;
using contactlab::testing::steel_E_star_Pa;
using contactlab::testing::steel_hertz_k;

namespace {

HuntCrossleyForceLaw make_law(const std::map<std::string, ParameterValue>& overrides = {}) {
  return HuntCrossleyForceLaw(ParameterValues::defaults(HuntCrossleyForceLaw::schema(), overrides));
}

/// Hertz' closed-form elastic impact of a mass m at speed v on k·δ^{3/2}, k = (4/3)E*√R*.
/// Energy: ½mv² = ∫₀^δmax k s^{3/2} ds = (2/5)k·δmax^{5/2} = (8/15)E*√R*·δmax^{5/2}, so
/// δmax = (15 m v²/(16 E* √R*))^{2/5} and F_max = k·δmax^{3/2}. The duration is twice the time to
/// δmax: δ̇ = v√(1 − (δ/δmax)^{5/2}), so t = (2δmax/v)·∫₀¹ dx/√(1 − x^{5/2})
///   = (2δmax/v)·(2/5)·B(2/5, 1/2) = (2δmax/v)·(2/5)·Γ(2/5)Γ(1/2)/Γ(9/10) ≈ 2.9432·δmax/v.
struct HertzImpact {
  double delta_max_m, force_max_N, duration_s;
};
HertzImpact hertz_impact(double mass_kg, double v_m_per_s) {
  const double k = steel_hertz_k;
  const double delta_max = std::pow(
      15.0 * mass_kg * v_m_per_s * v_m_per_s / (16.0 * steel_E_star_Pa * std::sqrt(ball_radius_m)),
      0.4);
  const double duration_factor = 2.0 * 0.4 * std::tgamma(0.4) * std::tgamma(0.5) / std::tgamma(0.9);
  return {delta_max, k * std::pow(delta_max, 1.5), duration_factor * delta_max / v_m_per_s};
}

/// Impact of the steel ball under `law` at speed v₀ with pair restitution e, 1/20000 of Hertz'
/// elastic contact time per step.
ImpactResult steel_ball_impact(const HuntCrossleyForceLaw& law, double v0, double restitution) {
  const HertzImpact hertz = hertz_impact(ball_mass_kg, v0);
  return contactlab::testing::steel_ball_impact(law, v0, restitution, hertz.duration_s / 20000.0,
                                                2000000);
}

}  // namespace

TEST_CASE(
    "hunt_crossley: schema declares exponent ∈ [1, 3] (1.5), stiffness_N_per_m_pow_n ≥ 0 (0 = "
    "Hertz), 0 < stiffness_scale ≤ 1, the five damping models, damping_s_per_m and the two "
    "regularisation floors") {
  const ParameterSchema schema = HuntCrossleyForceLaw::schema();
  REQUIRE(schema.size() == 7);
  const auto& n = spec_named(schema, "exponent");
  CHECK(std::get<double>(n.default_value) == 1.5);
  CHECK(n.minimum == 1.0);
  CHECK(n.maximum == 3.0);
  const auto& k = spec_named(schema, "stiffness_N_per_m_pow_n");
  CHECK(std::get<double>(k.default_value) == 0.0);
  CHECK(k.unit == "N/m^n");
  const auto& scale = spec_named(schema, "stiffness_scale");
  CHECK(std::get<double>(scale.default_value) == 1.0);
  CHECK(scale.minimum_exclusive);
  const auto& model = spec_named(schema, "damping_model");
  CHECK(model.type == contactlab::ParameterType::choice);
  CHECK(std::get<std::string>(model.default_value) == "hunt_crossley");
  CHECK(model.choices == std::vector<std::string>{"hunt_crossley", "lankarani_nikravesh", "flores",
                                                  "gonthier", "constant"});
  CHECK(spec_named(schema, "damping_s_per_m").unit == "s/m");
  const auto& v_min = spec_named(schema, "min_impact_velocity_m_per_s");
  CHECK(v_min.unit == "m/s");
  CHECK(v_min.minimum_exclusive);
  CHECK(spec_named(schema, "min_restitution").minimum_exclusive);
}

TEST_CASE(
    "hunt_crossley: Hertz stiffness (k = 0) with an exponent other than 1.5 and a damping factor "
    "given to a restitution model are refused at construction, naming the parameters") {
  CHECK_THROWS_AS(make_law({{"exponent", 2.0}}), contactlab::InputError);
  CHECK_THROWS_WITH(make_law({{"exponent", 2.0}}),
                    Catch::Contains("params.exponent is 2") &&
                        Catch::Contains("stiffness_N_per_m_pow_n is 0") &&
                        Catch::Contains("exponent 1.5"));
  CHECK_NOTHROW(make_law({{"exponent", 2.0}, {"stiffness_N_per_m_pow_n", 1e9}}));
  CHECK_THROWS_WITH(
      make_law({{"damping_model", std::string("flores")}, {"damping_s_per_m", 0.5}}),
      Catch::Contains("damping_s_per_m is 0.5") && Catch::Contains("damping_model: constant"));
  CHECK_NOTHROW(make_law({{"damping_model", std::string("constant")}, {"damping_s_per_m", 0.5}}));
}

TEST_CASE(
    "hunt_crossley: requires R* and E* only when the stiffness comes from Hertz, a flat pair "
    "then throws SimulationError naming R*") {
  const HuntCrossleyForceLaw hertz = make_law();
  CHECK(hertz.requirements().effective_radius);
  CHECK(hertz.requirements().effective_modulus);
  CHECK_FALSE(hertz.requirements().impulsive);
  const HuntCrossleyForceLaw given = make_law({{"stiffness_N_per_m_pow_n", 1e9}});
  CHECK_FALSE(given.requirements().effective_radius);
  CHECK_FALSE(given.requirements().effective_modulus);

  ContactKinematics flat = steel_contact(1e-6, 0.1, 1.0, 0.5);
  flat.effective_radius_m = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(hertz.normal_force(flat, ContactState{}), contactlab::SimulationError);
  CHECK_THROWS_WITH(hertz.normal_force(flat, ContactState{}),
                    Catch::Contains("effective radius R*"));
  CHECK_NOTHROW(given.normal_force(flat, ContactState{}));
  ContactKinematics no_modulus = steel_contact(1e-6, 0.1, 1.0, 0.5);
  no_modulus.effective_modulus_Pa = 0.0;
  CHECK_THROWS_WITH(hertz.normal_force(no_modulus, ContactState{}),
                    Catch::Contains("effective modulus E*"));
}

TEST_CASE(
    "hunt_crossley: each damping model's force equals k·δⁿ·(1 + d·δ̇) with its d(e, v) within "
    "1e-12 relative") {
  const ContactState state;
  const double e = 0.6, v = 2.0, delta = 3e-5, rate = 0.7;
  // The five damping factors written out (s/m): 3(1−e)/(2v), 3(1−e²)/(4v), 8(1−e)/(5ev),
  // (1−e²)/(ev), and the given constant.
  const std::map<std::string, double> d = {
      {"hunt_crossley", 3.0 * 0.4 / 4.0},
      {"lankarani_nikravesh", 3.0 * 0.64 / 8.0},
      {"flores", 8.0 * 0.4 / (5.0 * 1.2)},
      {"gonthier", 0.64 / 1.2},
      {"constant", 0.25},
  };
  const double k_hertz = (4.0 / 3.0) * steel_E_star_Pa * std::sqrt(ball_radius_m);
  for (const auto& [model, d_expected] : d) {
    INFO("damping_model " << model);
    std::map<std::string, ParameterValue> params = {{"damping_model", model}};
    if (model == "constant") params["damping_s_per_m"] = 0.25;
    const HuntCrossleyForceLaw law = make_law(params);
    const ContactKinematics contact = steel_contact(delta, rate, v, e);
    CHECK(law.damping_s_per_m(contact) == Approx(d_expected).epsilon(1e-12));
    CHECK(law.normal_force(contact, state) ==
          Approx(k_hertz * std::pow(delta, 1.5) * (1.0 + d_expected * rate)).epsilon(1e-12));
  }
  // A given stiffness and exponent: f = 2e7·δ²·(1 + d·δ̇), k_red = 0.5 halves it.
  const HuntCrossleyForceLaw quadratic = make_law({{"exponent", 2.0},
                                                   {"stiffness_N_per_m_pow_n", 2e7},
                                                   {"stiffness_scale", 0.5},
                                                   {"damping_model", std::string("flores")}});
  const ContactKinematics contact = steel_contact(1e-3, -0.2, v, e);
  CHECK(quadratic.normal_force(contact, state) ==
        Approx(0.5 * 2e7 * 1e-6 * (1.0 - 0.2 * 8.0 * 0.4 / (5.0 * 1.2))).epsilon(1e-12));
  // With e = 1 every model is undamped: pure Hertz.
  for (const char* model : {"hunt_crossley", "lankarani_nikravesh", "flores", "gonthier"}) {
    const HuntCrossleyForceLaw law = make_law({{"damping_model", std::string(model)}});
    CHECK(law.normal_force(steel_contact(delta, 5.0, v, 1.0), state) ==
          Approx(k_hertz * std::pow(delta, 1.5)).epsilon(1e-12));
  }
}

TEST_CASE(
    "hunt_crossley: never pulls (the force is clamped at 0 while separating with d·δ̇ < −1) and is "
    "0 at δ = 0 whatever δ̇ (no jump at contact start)") {
  const ContactState state;
  const HuntCrossleyForceLaw law = make_law({{"damping_model", std::string("flores")}});
  // e = 0.5, v = 1: d = 8·0.5/(5·0.5·1) = 1.6 s/m; δ̇ = −1 m/s gives 1 + d·δ̇ = −0.6.
  CHECK(law.normal_force(steel_contact(1e-5, -1.0, 1.0, 0.5), state) == 0.0);
  CHECK(law.normal_force(steel_contact(0.0, 10.0, 10.0, 0.5), state) == 0.0);
  CHECK(law.normal_force(steel_contact(-1e-6, 10.0, 10.0, 0.5), state) == 0.0);
}

TEST_CASE(
    "hunt_crossley: a contact born at rest uses min_impact_velocity_m_per_s, and flores/gonthier "
    "at e = 0 use min_restitution: finite d equal to the formula at the floors (1e-12 "
    "relative)") {
  const double v_floor = 1e-3, e_floor = 1e-3;
  for (double v : {0.0, -0.5, 1e-5}) {
    INFO("impact speed " << v);
    const ContactKinematics contact = steel_contact(1e-6, 0.0, v, 0.5);
    CHECK(make_law().damping_s_per_m(contact) == Approx(1.5 * 0.5 / v_floor).epsilon(1e-12));
    CHECK(make_law({{"damping_model", std::string("gonthier")}}).damping_s_per_m(contact) ==
          Approx(0.75 / (0.5 * v_floor)).epsilon(1e-12));
  }
  const ContactKinematics inelastic = steel_contact(1e-6, 0.0, 2.0, 0.0);
  const double d_flores =
      make_law({{"damping_model", std::string("flores")}}).damping_s_per_m(inelastic);
  CHECK(std::isfinite(d_flores));
  CHECK(d_flores == Approx(8.0 * (1.0 - e_floor) / (5.0 * e_floor * 2.0)).epsilon(1e-12));
  const double d_gonthier =
      make_law({{"damping_model", std::string("gonthier")}}).damping_s_per_m(inelastic);
  CHECK(d_gonthier == Approx((1.0 - e_floor * e_floor) / (e_floor * 2.0)).epsilon(1e-12));
  // The e-floors do not touch hunt_crossley and lankarani_nikravesh, which are finite at e = 0.
  CHECK(make_law().damping_s_per_m(inelastic) == Approx(1.5 / 2.0).epsilon(1e-12));
  CHECK(make_law({{"damping_model", std::string("lankarani_nikravesh")}})
            .damping_s_per_m(inelastic) == Approx(0.75 / 2.0).epsilon(1e-12));
  // A restitution outside [0, 1] is an error naming it.
  CHECK_THROWS_WITH(make_law().normal_force(steel_contact(1e-6, 0.0, 1.0, 1.5), ContactState{}),
                    Catch::Contains("restitution is 1.5"));
}

TEST_CASE(
    "hunt_crossley: the elastic force is the derivative of potential_energy = k·δⁿ⁺¹/(n+1) "
    "(central difference, 1e-7 relative) for n = 1, 1.5 (Hertz), 2.3") {
  const ContactState state;
  const std::map<std::string, ParameterValue> cases[] = {
      {{"exponent", 1.0}, {"stiffness_N_per_m_pow_n", 3e6}},
      {},
      {{"exponent", 2.3}, {"stiffness_N_per_m_pow_n", 1e12}, {"stiffness_scale", 0.01}},
  };
  for (const auto& params : cases) {
    const HuntCrossleyForceLaw law = make_law(params);
    for (double delta : {1e-7, 1e-6, 3e-5, 1e-4}) {
      const double h = 1e-4 * delta;
      const double dU =
          law.potential_energy(steel_contact(delta + h, 0.0, 1.0, 0.5),
                               contactlab::ContactState{}) -
          law.potential_energy(steel_contact(delta - h, 0.0, 1.0, 0.5), contactlab::ContactState{});
      // δ̇ = 0: the damper adds nothing, the force is the elastic part.
      CHECK(dU / (2.0 * h) ==
            Approx(law.normal_force(steel_contact(delta, 0.0, 1.0, 0.5), state)).epsilon(1e-7));
    }
  }
  // Hertz: U = (8/15)·E*·√R*·δ^{5/2} (the integral of (4/3)E*√R* s^{3/2}).
  CHECK(
      make_law().potential_energy(steel_contact(2e-5, 0.0, 1.0, 0.5), contactlab::ContactState{}) ==
      Approx(8.0 / 15.0 * steel_E_star_Pa * std::sqrt(ball_radius_m) * std::pow(2e-5, 2.5))
          .epsilon(1e-12));
}

TEST_CASE(
    "hunt_crossley: with e = 1 a steel ball r = 5 cm dropping on a steel plate at 0.1, 1 and 10 "
    "m/s matches Hertz' δ_max, F_max and duration 2.943·δ_max/v within 1%, and rebounds at v "
    "within 1e-6") {
  // The constant: 2·(2/5)·Γ(2/5)·Γ(1/2)/Γ(9/10) = 2.94324…
  CHECK(2.0 * 0.4 * std::tgamma(0.4) * std::tgamma(0.5) / std::tgamma(0.9) ==
        Approx(2.943).margin(5e-4));
  for (const char* model : {"hunt_crossley", "lankarani_nikravesh", "flores", "gonthier"}) {
    const HuntCrossleyForceLaw law = make_law({{"damping_model", std::string(model)}});
    for (double v0 : {0.1, 1.0, 10.0}) {
      INFO("damping_model " << model << ", v0 = " << v0 << " m/s");
      const HertzImpact hertz = hertz_impact(ball_mass_kg, v0);
      const ImpactResult impact = steel_ball_impact(law, v0, 1.0);
      REQUIRE(impact.separated);
      INFO("δ_max " << impact.max_penetration_m << " vs " << hertz.delta_max_m << ", F_max "
                    << impact.max_force_N << " vs " << hertz.force_max_N << ", duration "
                    << impact.duration_s << " vs " << hertz.duration_s);
      CHECK(impact.max_penetration_m == Approx(hertz.delta_max_m).epsilon(0.01));
      CHECK(impact.max_force_N == Approx(hertz.force_max_N).epsilon(0.01));
      CHECK(impact.duration_s == Approx(hertz.duration_s).epsilon(0.01));
      // Tighter: the integration itself is accurate to far better than 1%.
      CHECK(impact.max_penetration_m == Approx(hertz.delta_max_m).epsilon(1e-6));
      CHECK(impact.duration_s == Approx(hertz.duration_s).epsilon(1e-6));
      CHECK(-impact.exit_velocity_m_per_s == Approx(v0).epsilon(1e-6));
    }
  }
}

namespace {

/// Measured restitution −δ̇_exit/v₀ of the steel-ball impact for one model, e and v₀.
double measured_restitution(const char* model, double e, double v0) {
  const HuntCrossleyForceLaw law = make_law({{"damping_model", std::string(model)}});
  const ImpactResult impact = steel_ball_impact(law, v0, e);
  REQUIRE(impact.separated);
  return -impact.exit_velocity_m_per_s / v0;
}

constexpr double table_restitutions[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
constexpr double table_speeds[] = {0.1, 1.0, 10.0};

/// u = d·v₀ of each model, written out from the models' formulas.
double model_u(const std::string& model, double e) {
  if (model == "hunt_crossley") return 1.5 * (1.0 - e);
  if (model == "lankarani_nikravesh") return 0.75 * (1.0 - e * e);
  if (model == "flores") return 1.6 * (1.0 - e) / e;
  return (1.0 - e * e) / e;  // gonthier
}

/// Checks every (e, v) of the table: no energy created, the restitution independent of v and equal
/// to the closed form hc_exact_restitution(d·v₀) within 1e-6 (which validates the integration and
/// the law), and |e_measured − e| within `tolerance(e)`;
/// `sign` +1 (−1) also requires e_measured ≥ e (≤ e), 0 either way.
template <class Tolerance>
void check_model(const char* model, const Tolerance& tolerance, int sign) {
  for (double e : table_restitutions) {
    double first = -1.0;
    for (double v0 : table_speeds) {
      const double measured = measured_restitution(model, e, v0);
      INFO(model << ": e = " << e << ", v0 = " << v0 << " m/s, measured " << measured);
      CHECK(measured <= 1.0);  // rebound speed ≤ impact speed: no energy created
      CHECK(measured >= 0.0);
      CHECK(measured == Approx(hc_exact_restitution(model_u(model, e))).margin(1e-6));
      CHECK(std::abs(measured - e) <= tolerance(e));
      if (sign != 0) CHECK(sign * (measured - e) >= 0.0);
      if (first < 0.0) first = measured;
      CHECK(measured == Approx(first).margin(1e-6));
    }
  }
}

}  // namespace

// Measured at v0 = 0.1, 1 and 10 m/s (identical to 1e-6, and to the closed form
// hc_exact_restitution(d·v₀) to 1e-6; the table test prints them):
//   e            0.1    0.2    0.3    0.4    0.5    0.6    0.7    0.8    0.9
//   hunt_crossl. 0.516  0.547  0.581  0.620  0.663  0.712  0.768  0.833  0.909
//   lankarani_n. 0.665  0.672  0.684  0.702  0.725  0.756  0.796  0.847  0.913
//   flores       0.069  0.156  0.256  0.363  0.470  0.577  0.683  0.789  0.894
//   gonthier     0.101  0.205  0.304  0.398  0.488  0.577  0.670  0.768  0.876
// hunt_crossley and lankarani_nikravesh come from a first-order energy balance about e = 1
// (d ≈ 3(1−e)/(2v) as e → 1; the dissipated energy (4/3)·d·v·½mv² = (1−e²)·½mv²), so their error
// is second order in 1−e and they overshoot e badly for inelastic pairs. Flores et al. (2011)
// claim validity over the whole range: they undershoot e by at most 0.045. Gonthier et al.'s d is
// 2(1−e)/v near e = 1 (4/3 of the first-order value), so it undershoots e near 1 and is close at
// low e.

TEST_CASE(
    "hunt_crossley, damping_model hunt_crossley (first order about e = 1): within 0.01 of e at "
    "e = 0.9, overshoot ≤ (1−e)² at every e (+0.42 at e = 0.1), never creates energy, equals the "
    "closed form (1e-6)",
    "[restitution]") {
  check_model(
      "hunt_crossley", [](double e) { return (1.0 - e) * (1.0 - e); }, +1);
  CHECK(measured_restitution("hunt_crossley", 0.9, 1.0) == Approx(0.9).margin(0.01));
}

TEST_CASE(
    "hunt_crossley, damping_model lankarani_nikravesh (first order about e = 1): within 0.015 of "
    "e at e = 0.9, overshoot ≤ 1.5·(1−e)² at every e (+0.57 at e = 0.1), never creates energy, "
    "equals the closed form (1e-6)",
    "[restitution]") {
  check_model(
      "lankarani_nikravesh", [](double e) { return 1.5 * (1.0 - e) * (1.0 - e); }, +1);
  CHECK(measured_restitution("lankarani_nikravesh", 0.9, 1.0) == Approx(0.9).margin(0.015));
}

TEST_CASE(
    "hunt_crossley, damping_model flores (claimed for the whole range): undershoots e by at most "
    "0.05 for e ∈ [0.1, 0.9] and 0.012 for e ≥ 0.8, never creates energy, equals the closed form "
    "(1e-6)",
    "[restitution]") {
  check_model(
      "flores", [](double e) { return e >= 0.8 ? 0.012 : 0.05; }, -1);
}

TEST_CASE(
    "hunt_crossley, damping_model gonthier: within 0.035 of e for e ∈ [0.1, 0.9] and 0.006 for "
    "e ≤ 0.3 (undershoots near e = 1), never creates energy, equals the closed form (1e-6)",
    "[restitution]") {
  check_model(
      "gonthier", [](double e) { return e <= 0.3 ? 0.006 : 0.035; }, 0);
}

TEST_CASE("hunt_crossley: table of measured restitution per damping model (print only)",
          "[.table]") {
  std::printf("measured restitution of a steel ball impact (v0 = 1 m/s; identical at 0.1, 10)\n");
  std::printf("%-6s %14s %20s %10s %10s\n", "e", "hunt_crossley", "lankarani_nikravesh", "flores",
              "gonthier");
  for (double e : table_restitutions) {
    std::printf("%-6.2f %14.5f %20.5f %10.5f %10.5f\n", e,
                measured_restitution("hunt_crossley", e, 1.0),
                measured_restitution("lankarani_nikravesh", e, 1.0),
                measured_restitution("flores", e, 1.0), measured_restitution("gonthier", e, 1.0));
  }
}
