// The contacts' life cycle (see contact_lifecycle.hpp).
#include "contactlab/core/contact_lifecycle.hpp"

#include <algorithm>
#include <limits>

namespace contactlab::core {

ContactLifecycle::ContactLifecycle(const ContactLaws& laws, BodySystem& bodies,
                                   ContactForces& forces, const ContactSet& contacts,
                                   ObserverList& observers)
    : laws_(laws),
      bodies_(bodies),
      forces_(forces),
      contacts_(contacts),
      observers_(observers),
      nq_nv_(bodies.configuration_size() + bodies.velocity_size()) {
  living_of_pair_.reserve(contacts.pairs.capacity());
}

void ContactLifecycle::link() {
  // The pipeline queried every watched pair: each living contact has its pair in the new set.
  living_of_pair_.assign(contacts_.pairs.size(), nullptr);
  for (std::size_t i = 0; i < order_contacts_.size(); ++i) {
    LivingContact& contact = *order_contacts_[i];
    contact.pair = contacts_.watched[i];
    living_of_pair_[contact.pair] = &contact;
  }
}

ContactState ContactLifecycle::working_state(const LivingContact& contact,
                                             std::span<const double> y) const {
  ContactState state = contact.state;
  if (laws_.states_per_contact == 0) return state;
  const double* x = y.data() + nq_nv_ + contact.x_offset;
  for (int i = 0; i < laws_.law_layout.continuous_states; ++i) state.law.x[i] = x[i];
  x += laws_.law_layout.continuous_states;
  for (int i = 0; i < laws_.friction_layout.continuous_states; ++i) state.friction.x[i] = x[i];
  return state;
}

void ContactLifecycle::contact_event_values(double t, const LivingContact& contact,
                                            const ContactState& state, std::span<double> g) {
  const ContactKinematics k = forces_.kinematics(t, contact.pair, 0, &contact.state);
  const double normal_force =
      k.distance_m < laws_.activation_distance_m ? laws_.force_law->normal_force(k, state) : 0.0;
  const auto law_events = static_cast<std::size_t>(laws_.law_layout.event_functions);
  laws_.force_law->event_functions(k, normal_force, state.law, g.first(law_events));
  laws_.friction->event_functions(
      k, normal_force, state.friction,
      g.subspan(law_events, static_cast<std::size_t>(laws_.friction_layout.event_functions)));
}

void ContactLifecycle::event_values(double t, std::span<const double> y, std::span<double> g) {
  // Each aggregate function is armed while positive; "nothing to watch" is a large positive
  // value. Hysteresis: a start fires at a depth of contact_start_hysteresis_m, not at zero, so
  // that a pair exactly touching (balls placed in a row, or a pair just separated at a located
  // contact end) is armed; a function exactly zero at a restart would never fire, and the pair
  // would be born only at the end of a step, deep.
  constexpr double far = std::numeric_limits<double>::max();
  constexpr double contact_start_hysteresis_m = 1e-9;
  double start_gap = far, end_depth = far;
  for (std::size_t c = 0; c < contacts_.pairs.size(); ++c) {
    const double gap = contacts_.pairs[c].deepest().distance_m - laws_.activation_distance_m;
    if (living_of_pair_[c])
      end_depth = std::min(end_depth, -gap);
    else
      start_gap = std::min(start_gap, gap + contact_start_hysteresis_m);
  }
  g[0] = start_gap;
  g[1] = end_depth;
  const auto per_contact = static_cast<std::size_t>(laws_.events_per_contact);
  if (per_contact == 0) return;
  for (std::size_t i = 0; i < order_contacts_.size(); ++i) {
    const LivingContact& contact = *order_contacts_[i];
    contact_event_values(t, contact, working_state(contact, y),
                         g.subspan(2 + i * per_contact, per_contact));
  }
}

double ContactLifecycle::apply_impulse(double t, std::size_t pair, const LivingContact& contact,
                                       double restitution, std::span<double> y) {
  const ContactKinematics k = forces_.kinematics(t, pair, 0, &contact.state);
  const double approach_m_per_s = k.penetration_rate_m_per_s;
  if (!(approach_m_per_s > 0.0)) return 0.0;
  // Newton's law δ̇⁺ = −e·δ̇⁻ needs the impulse P = (1 + e)·δ̇⁻/w, w the contact's inverse
  // effective mass through the tree; the velocities change by P·M⁻¹·Jᵀ·n.
  const std::size_t nq = bodies_.configuration_size(), nv = bodies_.velocity_size();
  const ContactPair& p = contacts_.pairs[pair];
  const double inverse_mass = bodies_.unit_impulse_response(
      p.body_a, p.body_b, k.point_W, k.normal_W, std::span<const double>(y).first(nq));
  if (!(inverse_mass > 0.0)) return 0.0;
  const double impulse = (1.0 + restitution) * approach_m_per_s / inverse_mass;
  const std::span<const double> response = bodies_.impulse_response();
  for (std::size_t i = 0; i < nv; ++i) y[nq + i] += impulse * response[i];
  return impulse;
}

void ContactLifecycle::relayout(std::vector<double>& y, const std::vector<PairKey>& born) {
  std::vector<PairKey> order;
  order.reserve(living_.size());
  for (PairKey key : order_)
    if (living_.count(key)) order.push_back(key);
  order.insert(order.end(), born.begin(), born.end());
  const auto per_contact = static_cast<std::size_t>(laws_.states_per_contact);
  if (per_contact > 0) {
    std::vector<double> next(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(nq_nv_));
    next.reserve(nq_nv_ + order.size() * per_contact);
    for (PairKey key : order) {
      LivingContact& contact = living_.at(key);
      const bool newborn = std::find(born.begin(), born.end(), key) != born.end();
      const ContactState state = newborn ? contact.state : working_state(contact, y);
      for (int i = 0; i < laws_.law_layout.continuous_states; ++i) next.push_back(state.law.x[i]);
      for (int i = 0; i < laws_.friction_layout.continuous_states; ++i)
        next.push_back(state.friction.x[i]);
    }
    for (std::size_t i = 0; i < order.size(); ++i) living_.at(order[i]).x_offset = i * per_contact;
    nx_ = order.size() * per_contact;
    y = std::move(next);
  }
  order_ = std::move(order);
  order_contacts_.clear();
  for (PairKey key : order_) order_contacts_.push_back(&living_.at(key));
}

ContactLifecycle::StepOutcome ContactLifecycle::step(double t, std::span<const double> y,
                                                     std::vector<double>& pending_y) {
  StepOutcome outcome;
  bool& restart = outcome.restart;
  const double activation = laws_.activation_distance_m;

  // 1. The law event functions of the contacts that were already living: the host fires those
  //    that went from > 0 to ≤ 0 since the last accepted step.
  const auto per_contact = static_cast<std::size_t>(laws_.events_per_contact);
  if (per_contact > 0) {
    std::array<double, 2 * max_law_event_functions> g{};
    for (LivingContact* living : order_contacts_) {
      LivingContact& contact = *living;
      const std::size_t c = contact.pair;
      ContactState state = working_state(contact, y);
      const std::span<double> g_now(g.data(), per_contact);
      contact_event_values(t, contact, state, g_now);
      bool fired = false;
      for (std::size_t i = 0; i < per_contact; ++i) {
        if (!(contact.event_g[i] > 0.0 && g_now[i] <= 0.0)) continue;
        const ContactKinematics k = forces_.kinematics(t, c, 0, &contact.state);
        const double normal_force =
            k.distance_m < activation ? laws_.force_law->normal_force(k, state) : 0.0;
        const int law_events = laws_.law_layout.event_functions;
        const bool law_event = static_cast<int>(i) < law_events;
        ContactLaw& law = law_event ? static_cast<ContactLaw&>(*laws_.force_law) : *laws_.friction;
        const int index = law_event ? static_cast<int>(i) : static_cast<int>(i) - law_events;
        LawMemory& memory = law_event ? state.law : state.friction;
        const std::array<double, max_law_continuous_states> x_before = memory.x;
        law.on_event(index, k, normal_force, memory);
        if (memory.x != x_before) restart = true;
        fired = true;
        ++stats_.events;
        if (!observers_.empty()) {
          const ContactPair& pair = contacts_.pairs[c];
          LawEvent event;
          event.time_s = t;
          event.geometry_a = pair.geometry_a;
          event.geometry_b = pair.geometry_b;
          event.name = law.event_name(index);
          event.source = law_event ? LawEvent::Source::force_law : LawEvent::Source::friction;
          event.mode = memory.mode;
          event.penetration_m = k.penetration_m;
          observers_.deliver(event);
        }
      }
      if (fired) {
        contact.state = state;  // the new discrete memory (x is written below if it changed)
        if (restart) {
          double* x = pending_y.data() + nq_nv_ + contact.x_offset;
          for (int i = 0; i < laws_.law_layout.continuous_states; ++i) x[i] = state.law.x[i];
          x += laws_.law_layout.continuous_states;
          for (int i = 0; i < laws_.friction_layout.continuous_states; ++i)
            x[i] = state.friction.x[i];
        }
        contact_event_values(t, contact, working_state(contact, pending_y), g_now);
      }
      std::copy_n(g_now.begin(), per_contact, contact.event_g.begin());
    }
  }

  // 2. Births: pairs closer than the activation distance without a living contact.
  std::vector<PairKey>& born = born_;
  born.clear();
  for (std::size_t c = 0; c < contacts_.pairs.size(); ++c) {
    const ContactPair& pair = contacts_.pairs[c];
    const double distance = pair.deepest().distance_m;
    stats_.max_penetration_m = std::max(stats_.max_penetration_m, -distance);
    if (LivingContact* living = living_of_pair_[c]) {
      if (distance < activation)
        living->max_penetration_m = std::max(living->max_penetration_m, -distance);
      continue;
    }
    if (!(distance < activation)) continue;
    const PairKey key = pair_key(pair.geometry_a, pair.geometry_b);
    const ContactKinematics k = forces_.kinematics(t, c, 0, nullptr);
    LivingContact contact;
    contact.state.birth_time_s = t;
    contact.state.impact_velocity_m_per_s = k.penetration_rate_m_per_s;
    laws_.force_law->on_birth(k, contact.state.law);
    laws_.friction->on_birth(k, contact.state.friction);
    contact.max_penetration_m = std::max(0.0, -distance);
    contact.pair = c;
    LivingContact& living = living_.emplace(key, contact).first->second;
    living_of_pair_[c] = &living;
    born.push_back(key);
    ++stats_.events;
    observers_.deliver(ContactStartEvent{t, pair.geometry_a, pair.geometry_b,
                                         living.state.impact_velocity_m_per_s});
    if (laws_.impulsive) {
      const double restitution = laws_.force_law->impact_restitution(k);
      if (restitution >= 0.0) {
        if (restart) bodies_.compute(pending_y);  // velocities of earlier impulses
        const double impulse = apply_impulse(t, c, living, restitution, pending_y);
        bodies_.compute(pending_y);
        if (impulse > 0.0) {
          restart = true;
          ++stats_.impulses;
          ++stats_.events;
          observers_.deliver(
              ImpulseEvent{t, pair.geometry_a, pair.geometry_b, impulse, restitution});
        }
      }
    }
    if (per_contact > 0)
      contact_event_values(t, living, living.state,
                           std::span<double>(living.event_g.data(), per_contact));
  }

  // 3. Deaths: living contacts no longer closer than the activation distance.
  bool died = false;
  for (auto it = living_.begin(); it != living_.end();) {
    LivingContact& contact = it->second;
    if (contacts_.pairs[contact.pair].deepest().distance_m < activation) {
      ++it;
      continue;
    }
    living_of_pair_[contact.pair] = nullptr;
    ++stats_.events;
    if (!observers_.empty()) {
      // The normal speed at which the pair separates (−δ̇ at its deepest point; for a measured
      // restitution).
      const double separation_m_per_s =
          -forces_.kinematics(t, contact.pair, 0, nullptr).penetration_rate_m_per_s;
      observers_.deliver(ContactEndEvent{t, first_geometry(it->first), second_geometry(it->first),
                                         t - contact.state.birth_time_s, contact.max_penetration_m,
                                         separation_m_per_s});
    }
    it = living_.erase(it);
    died = true;
  }
  if (died || !born.empty()) {
    outcome.births_or_deaths = true;
    relayout(pending_y, born);
    if (laws_.states_per_contact > 0) restart = true;
  }
  return outcome;
}

}  // namespace contactlab::core
