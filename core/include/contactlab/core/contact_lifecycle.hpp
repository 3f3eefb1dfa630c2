// The contacts' life cycle: a contact is born when its pair comes closer than the force law's
// activation distance at an accepted step (its ContactState starts with the impact velocity and
// the laws' on_birth; an impulsive law's velocity jump happens then), its laws' own event
// functions fire between accepted steps (on_event), and it dies when the pair separates. While it
// lives it is watched by the contact pipeline (queried even when its boxes part) and its laws'
// continuous states are part of the integrated state, y = [q; v; x], laid out in the order the
// contacts were born (`order`): contact i owns x[x_offset … x_offset + states_per_contact).
//
// The two aggregate event functions (Modia3D's pair) watch births and deaths for integrators that
// locate events: contact start = the smallest gap of the pairs not in contact, contact end = the
// smallest penetration of the pairs in contact; then each living contact's law functions.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "contactlab/core/body_system.hpp"
#include "contactlab/core/contact_forces.hpp"
#include "contactlab/core/contact_pipeline.hpp"
#include "contactlab/core/observers.hpp"

namespace contactlab::core {

/// One contact between its birth and its death (host-owned per-contact storage).
struct LivingContact {
  ContactState state;
  double max_penetration_m = 0.0;  ///< deepest over the accepted steps of its life
  std::size_t x_offset = 0;        ///< its continuous states: y[nq + nv + x_offset …]
  std::size_t pair = 0;            ///< its index in the contact set of the last detection
  /// Its law event functions at the last accepted step ([law…; friction…]).
  std::array<double, 2 * max_law_event_functions> event_g{};
};

struct ContactLifecycleStatistics {
  std::int64_t events = 0;         ///< births, deaths, impulses and law events
  std::int64_t impulses = 0;       ///< velocity jumps applied by impulsive laws
  double max_penetration_m = 0.0;  ///< over the accepted steps
};

class ContactLifecycle {
 public:
  /// `contacts` is the run's contact set; events go to `observers`.
  ContactLifecycle(const ContactLaws& laws, BodySystem& bodies, ContactForces& forces,
                   const ContactSet& contacts, ObserverList& observers);

  /// The living contacts' pairs in state order: what the pipeline must watch.
  std::span<const PairKey> watched() const { return order_; }
  /// After every detection: links each living contact to its pair of the new contact set.
  void link();
  /// The living contact of pair `pair` of the contact set, or null.
  LivingContact* living(std::size_t pair) const { return living_of_pair_[pair]; }

  std::size_t living_count() const { return order_.size(); }
  /// nx: the living contacts' continuous states.
  std::size_t continuous_state_count() const { return nx_; }
  int states_per_contact() const { return laws_.states_per_contact; }
  /// 2 aggregate functions, then each living contact's (in state order).
  std::size_t event_count() const {
    return 2 + order_.size() * static_cast<std::size_t>(laws_.events_per_contact);
  }
  /// Living contact i in state order.
  const LivingContact& contact(std::size_t i) const { return *order_contacts_[i]; }

  /// The contact's state with its continuous states copied from y.
  ContactState working_state(const LivingContact& contact, std::span<const double> y) const;
  /// The contact's part of ẏ (states_per_contact entries).
  std::span<double> x_rate(const LivingContact& contact, std::span<double> y_rate) const {
    return y_rate.subspan(nq_nv_ + contact.x_offset,
                          static_cast<std::size_t>(laws_.states_per_contact));
  }

  /// The event functions at (t, y) (the contact set and the kinematics must be those of y).
  void event_values(double t, std::span<const double> y, std::span<double> g);

  struct StepOutcome {
    bool restart = false;           ///< the state changed (pending_y holds the new one)
    bool births_or_deaths = false;  ///< the living contacts changed
  };
  /// At an accepted step (t, y) (the contact set and the kinematics must be those of y): fires
  /// the law events that crossed since the last step, then births (with their impulses), then
  /// deaths. `pending_y` holds y on entry and the state to continue from on return (velocity
  /// jumps, law states, and the new layout of x after births and deaths).
  StepOutcome step(double t, std::span<const double> y, std::vector<double>& pending_y);

  const ContactLifecycleStatistics& statistics() const { return stats_; }

 private:
  /// Law event functions of a living contact at its pair into g ([law…; friction…]).
  void contact_event_values(double t, const LivingContact& contact, const ContactState& state,
                            std::span<double> g);
  /// Applies a Newton impulse with restitution e at pair `pair`'s deepest point to the
  /// velocities in y (the kinematics must be those of y). Returns the impulse [N·s].
  double apply_impulse(double t, std::size_t pair, const LivingContact& contact, double restitution,
                       std::span<double> y);
  /// After births and deaths: order_, the continuous-state offsets, nx_, and (when the contacts
  /// have continuous states) y rebuilt as [q; v; x] in the new layout.
  void relayout(std::vector<double>& y, const std::vector<PairKey>& born);

  const ContactLaws& laws_;
  BodySystem& bodies_;
  ContactForces& forces_;
  const ContactSet& contacts_;
  ObserverList& observers_;
  std::size_t nq_nv_ = 0;  ///< nq + nv: where x starts in y
  std::size_t nx_ = 0;
  std::unordered_map<PairKey, LivingContact> living_;
  std::vector<PairKey> order_;                  ///< living contacts in state/event order
  std::vector<LivingContact*> order_contacts_;  ///< the same, as pointers into living_
  std::vector<LivingContact*> living_of_pair_;  ///< per pair of the contact set
  std::vector<PairKey> born_;                   ///< step()'s newborn contacts (reused)
  ContactLifecycleStatistics stats_;
};

}  // namespace contactlab::core
