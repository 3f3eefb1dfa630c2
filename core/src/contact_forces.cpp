// Contact force assembly (see contact_forces.hpp).
#include "contactlab/core/contact_forces.hpp"

#include <cmath>
#include <string>

namespace contactlab::core {

namespace {

/// R_geo of Neumayr (2025) table 7.2: the curved shape's contact radius when the other is flat,
/// otherwise r_A·r_B/(r_A + r_B) (for two flat shapes an artificial but workable value).
double effective_radius(const Shape& a, const Shape& b) {
  if (a.flat && !b.flat) return b.contact_radius_m;
  if (b.flat && !a.flat) return a.contact_radius_m;
  return harmonic_sum(a.contact_radius_m, b.contact_radius_m);
}

void check_layout(const ContactLawLayout& layout, const PluginChoice& choice) {
  if (layout.continuous_states < 0 || layout.continuous_states > max_law_continuous_states ||
      layout.event_functions < 0 || layout.event_functions > max_law_event_functions)
    throw PluginError("plugin '" + choice.type + "' (" + choice.config_path + ") declares " +
                      std::to_string(layout.continuous_states) + " continuous states and " +
                      std::to_string(layout.event_functions) +
                      " event functions per contact; the SDK allows 0.." +
                      std::to_string(max_law_continuous_states) + " and 0.." +
                      std::to_string(max_law_event_functions));
}

}  // namespace

ContactLaws::ContactLaws(const Scene& scene, PluginRegistry& registry) {
  if (scene.time_stepping) return;  // the integrator solves rigid contact: no laws
  force_law = registry.create<ForceLaw>(*scene.force_law.info, scene.force_law.params);
  friction = registry.create<Friction>(*scene.friction.info, scene.friction.params);
  // The contacts' memory: what the laws keep per contact.
  law_layout = force_law->layout();
  friction_layout = friction->layout();
  check_layout(law_layout, scene.force_law);
  check_layout(friction_layout, scene.friction);
  states_per_contact = law_layout.continuous_states + friction_layout.continuous_states;
  events_per_contact = law_layout.event_functions + friction_layout.event_functions;
  activation_distance_m = force_law->activation_distance_m();
  if (!std::isfinite(activation_distance_m) || activation_distance_m < 0.0)
    throw PluginError("force law '" + scene.force_law.type +
                      "' reports an activation distance of " +
                      std::to_string(activation_distance_m) + " m; it must be finite and ≥ 0");
  impulsive = force_law->requirements().impulsive;
}

ContactForces::ContactForces(const Scene& scene, BodySystem& bodies, const ContactLaws& laws,
                             const ContactSet& contacts)
    : scene_(scene), bodies_(bodies), laws_(laws), contacts_(contacts) {
  effective_mass_kg_.reserve(contacts.pairs.capacity());
}

ContactKinematics ContactForces::kinematics(double t, std::size_t index, int point,
                                            const ContactState* living) {
  const ContactPair& pair = contacts_.pairs[index];
  const ContactGeometry& geometry = pair.manifold.points[static_cast<std::size_t>(point)];
  const GeometryModel& ga = scene_.geometries[pair.geometry_a];
  const GeometryModel& gb = scene_.geometries[pair.geometry_b];
  ContactKinematics k;
  k.time_s = t;
  k.distance_m = geometry.distance_m;
  k.penetration_m = std::max(0.0, -geometry.distance_m);
  k.normal_W = geometry.normal_W;
  k.point_W = 0.5 * (geometry.point_a_W + geometry.point_b_W);
  const Vec3 v_A = bodies_.point_velocity_W(pair.body_a, k.point_W);
  const Vec3 v_B = bodies_.point_velocity_W(pair.body_b, k.point_W);
  const Vec3 relative = v_B - v_A;
  const double normal_speed = relative.dot(k.normal_W);
  k.penetration_rate_m_per_s = -normal_speed;
  k.slip_velocity_W = relative - normal_speed * k.normal_W;
  k.relative_angular_velocity_W =
      bodies_.angular_velocity_W(pair.body_b) - bodies_.angular_velocity_W(pair.body_a);
  k.effective_radius_m = effective_radius(ga.shape, gb.shape);
  const SolidMaterial& ma = scene_.materials.solids.at(ga.material);
  const SolidMaterial& mb = scene_.materials.solids.at(gb.material);
  // Neumayr (2025) eq. 7.2.
  k.effective_modulus_Pa =
      1.0 / ((1.0 - ma.poisson_ratio * ma.poisson_ratio) / ma.youngs_modulus_Pa +
             (1.0 - mb.poisson_ratio * mb.poisson_ratio) / mb.youngs_modulus_Pa);
  k.effective_mass_kg = effective_mass(index, point, k.point_W, k.normal_W);
  k.material = *scene_.materials.find_pair(ga.material, gb.material);
  k.impact_velocity_m_per_s = living ? living->impact_velocity_m_per_s : k.penetration_rate_m_per_s;
  return k;
}

double ContactForces::effective_mass(std::size_t index, int point, const Vec3& point_W,
                                     const Vec3& normal_W) {
  const ContactPair& pair = contacts_.pairs[index];
  if (!bodies_.articulated(pair.body_a, pair.body_b))
    return bodies_.effective_mass(pair.body_a, pair.body_b, point_W, normal_W);
  double& cached = effective_mass_kg_[index][static_cast<std::size_t>(point)];
  if (cached > 0.0) return cached;
  cached = bodies_.effective_mass(pair.body_a, pair.body_b, point_W, normal_W);
  return cached;
}

void ContactForces::add_pair(double t, std::size_t index, const ContactState& state,
                             std::span<BodyWrench> wrenches, std::vector<ContactSample>* samples,
                             std::span<double> x_rate) {
  const ContactPair& pair = contacts_.pairs[index];
  const Pose& X_WA = bodies_.pose_WB(pair.body_a);
  const Pose& X_WB = bodies_.pose_WB(pair.body_b);
  BodyWrench& on_A = wrenches[pair.body_a];
  BodyWrench& on_B = wrenches[pair.body_b];
  double deepest_normal_force = 0.0;
  // Every active point of the manifold carries its own force; they share the pair's state.
  for (int point = 0; point < pair.manifold.count; ++point) {
    if (!(pair.manifold.points[point].distance_m < laws_.activation_distance_m)) continue;
    const ContactKinematics k = kinematics(t, index, point, &state);
    const double normal_force = laws_.force_law->normal_force(k, state);
    if (point == 0) deepest_normal_force = normal_force;
    const FrictionResult friction = laws_.friction->compute(k, normal_force, state);
    const Vec3 force_on_B = normal_force * k.normal_W + friction.force_W;
    on_B.force_W += force_on_B;
    on_B.torque_Bo_W += (k.point_W - X_WB.p).cross(force_on_B) + friction.torque_W;
    on_A.force_W -= force_on_B;
    on_A.torque_Bo_W -= (k.point_W - X_WA.p).cross(force_on_B) + friction.torque_W;
    if (samples) {
      ContactSample sample;
      sample.geometry_a = pair.geometry_a;
      sample.geometry_b = pair.geometry_b;
      sample.geometry = pair.manifold.points[point];
      sample.point_W = k.point_W;
      sample.normal_force_N = normal_force;
      sample.tangential_force_W = friction.force_W;
      samples->push_back(sample);
    }
  }
  if (!x_rate.empty()) {
    // The continuous states follow the deepest point (one state per pair).
    const ContactKinematics k = kinematics(t, index, 0, &state);
    const auto law_states = static_cast<std::size_t>(laws_.law_layout.continuous_states);
    laws_.force_law->continuous_rate(k, deepest_normal_force, state.law, x_rate.first(law_states));
    laws_.friction->continuous_rate(k, deepest_normal_force, state.friction,
                                    x_rate.subspan(law_states));
  }
}

double ContactForces::potential_energy(std::size_t index, int point, const ContactState& state,
                                       const ContactState* living) {
  return laws_.force_law->potential_energy(kinematics(0.0, index, point, living), state);
}

}  // namespace contactlab::core
