// One step's local contact data (see contact_step.hpp).
#include "contact_step.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace contactlab::plugins {

void ContactStep::build(MechanicsView& mechanics, double step_s,
                        const ContactStepSettings& settings,
                        std::span<const double> previous_approach,
                        std::span<const double> previous_r) {
  const MechanicsContactSet& set = mechanics.contacts();
  const std::span<const double> y = mechanics.prepared_state();
  const std::span<const double> a_free = mechanics.free_acceleration();
  const std::size_t nv = a_free.size();
  const std::span<const double> v0 = y.subspan(y.size() - nv, nv);
  v_free_.resize(nv);
  for (std::size_t i = 0; i < nv; ++i) v_free_[i] = v0[i] + step_s * a_free[i];

  contacts_.resize(set.points.size());
  B_.clear();
  for (std::size_t k = 0; k < set.points.size(); ++k) {
    const MechanicsContactPoint& point = set.points[k];
    LocalContact& c = contacts_[k];
    c = LocalContact{};
    for (int s = 0; s < 2; ++s) {
      ContactSide& side = c.side[s];
      if (point.tree[s] == MechanicsContactPoint::no_tree) continue;
      const std::span<const std::uint32_t> velocities = mechanics.tree_velocities(point.tree[s]);
      const std::span<const double> inverse = mechanics.tree_inverse_mass(point.tree[s]);
      const auto n = static_cast<std::uint32_t>(velocities.size());
      side.velocities = velocities.data();
      side.size = n;
      side.J = set.jacobian.data() + point.jacobian[s];
      side.B = static_cast<std::uint32_t>(B_.size());
      B_.resize(B_.size() + 3 * n);
      double* B = B_.data() + side.B;
      for (std::uint32_t i = 0; i < n; ++i)
        for (int d = 0; d < 3; ++d) {
          double sum = 0.0;
          for (std::uint32_t j = 0; j < n; ++j) sum += inverse[i * n + j] * side.J[d * n + j];
          B[3 * i + d] = sum;
        }
    }
    // W_kk = Σ_s J_s·B_s.
    for (const ContactSide& side : c.side) {
      if (!side.velocities) continue;
      const double* B = B_.data() + side.B;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          double sum = 0.0;
          for (std::uint32_t i = 0; i < side.size; ++i)
            sum += side.J[a * side.size + i] * B[3 * i + b];
          c.W[3 * a + b] += sum;
        }
    }
    // Both sides in one tree (a self-contact of an articulated tree): the cross terms too.
    if (c.side[0].velocities && c.side[0].velocities == c.side[1].velocities) {
      const ContactSide& a_side = c.side[0];
      const ContactSide& b_side = c.side[1];
      const double* Ba = B_.data() + a_side.B;
      const double* Bb = B_.data() + b_side.B;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          double sum = 0.0;
          for (std::uint32_t i = 0; i < a_side.size; ++i)
            sum += a_side.J[a * a_side.size + i] * Bb[3 * i + b] +
                   b_side.J[a * b_side.size + i] * Ba[3 * i + b];
          c.W[3 * a + b] += sum;
        }
    }
    // Mirror: W is symmetric, round-off aside.
    for (int a = 0; a < 3; ++a)
      for (int b = a + 1; b < 3; ++b)
        c.W[3 * a + b] = c.W[3 * b + a] = 0.5 * (c.W[3 * a + b] + c.W[3 * b + a]);
    local_velocity(k, v0, c.u0);
    local_velocity(k, v_free_, c.u_free);
    c.distance_m = point.distance_m;

    const double slip = std::hypot(c.u0[1], c.u0[2]);
    const auto before = static_cast<std::size_t>(point.previous);
    const bool closing =
        point.previous < 0 || 3 * before >= previous_r.size() || !(previous_r[3 * before] > 0.0);
    c.mu = !settings.friction                                  ? 0.0
           : closing || slip < settings.stick_velocity_m_per_s ? point.friction_static
                                                               : point.friction_kinetic;
    // The normal bound (contact_step.hpp).
    const double h = step_s;
    // The slop a step may close, at most half the restitution threshold in velocity: a contact
    // that settles into its slop must not read as an impact at the next step (at h = 0.1 ms a
    // 10 µm slop is 0.1 m/s, and a resting chain such as Newton's cradle bounced off it and gained
    // 5 % of its energy).
    const double slop =
        std::min(settings.penetration_slop_m, 0.5 * settings.restitution_threshold_m_per_s * h);
    c.bias_N = settings.correct_in_velocity ? -(c.distance_m + slop) / h
                                            : -std::max(c.distance_m + slop, 0.0) / h;
    // Touching: δ ≤ 0, or the previous step closed the gap (it estimated an approach and pushed):
    // the closed gap can read slightly positive, since δ + h·u_N misses the surfaces' curvature
    // when they slide across each other (two spheres: +s²/(2·(r_a + r_b)) for a tangential
    // travel s), and the impact must not be lost then.
    const bool approached = point.previous >= 0 &&
                            static_cast<std::size_t>(point.previous) < previous_approach.size() &&
                            previous_approach[static_cast<std::size_t>(point.previous)] < 0.0;
    if ((c.distance_m <= 0.0 || (approached && !closing)) && point.restitution > 0.0) {
      double approach = c.u0[0];
      if (approached) approach = previous_approach[static_cast<std::size_t>(point.previous)];
      if (approach < -settings.restitution_threshold_m_per_s &&
          -point.restitution * approach > c.bias_N) {
        c.bias_N = -point.restitution * approach;
        c.impact = true;
      }
    }
    // A point that the free motion brings past the bound within this step touches during it:
    // its approach speed when it touches, for the next step's restitution (not for the impact
    // step itself, whose gap may read positive: see above).
    if (!c.impact && c.distance_m > 0.0 && c.distance_m + h * c.u_free[0] < -slop) {
      const double a_N = (c.u_free[0] - c.u0[0]) / h;
      const double square = c.u0[0] * c.u0[0] - 2.0 * a_N * c.distance_m;
      if (square > 0.0) c.approach = -std::sqrt(square);
    }
  }
}

void ContactStep::local_velocity(std::size_t k, std::span<const double> v, double* u) const {
  u[0] = u[1] = u[2] = 0.0;
  for (const ContactSide& side : contacts_[k].side) {
    if (!side.velocities) continue;
    for (std::uint32_t i = 0; i < side.size; ++i) {
      const double vi = v[side.velocities[i]];
      u[0] += side.J[i] * vi;
      u[1] += side.J[side.size + i] * vi;
      u[2] += side.J[2 * side.size + i] * vi;
    }
  }
}

void ContactStep::apply_impulse(std::size_t k, const double* dr, std::span<double> v) const {
  for (const ContactSide& side : contacts_[k].side) {
    if (!side.velocities) continue;
    const double* B = B_.data() + side.B;
    for (std::uint32_t i = 0; i < side.size; ++i)
      v[side.velocities[i]] += B[3 * i] * dr[0] + B[3 * i + 1] * dr[1] + B[3 * i + 2] * dr[2];
  }
}

double ContactStep::normal_velocity(std::size_t k, std::span<const double> v) const {
  double u = 0.0;
  for (const ContactSide& side : contacts_[k].side)
    if (side.velocities)
      for (std::uint32_t i = 0; i < side.size; ++i) u += side.J[i] * v[side.velocities[i]];
  return u;
}

void ContactStep::tangential_velocity(std::size_t k, std::span<const double> v, double* u) const {
  u[1] = u[2] = 0.0;
  for (const ContactSide& side : contacts_[k].side) {
    if (!side.velocities) continue;
    for (std::uint32_t i = 0; i < side.size; ++i) {
      const double vi = v[side.velocities[i]];
      u[1] += side.J[side.size + i] * vi;
      u[2] += side.J[2 * side.size + i] * vi;
    }
  }
}

void ContactStep::apply_normal(std::size_t k, double dr_N, std::span<double> v) const {
  for (const ContactSide& side : contacts_[k].side) {
    if (!side.velocities) continue;
    const double* B = B_.data() + side.B;
    for (std::uint32_t i = 0; i < side.size; ++i) v[side.velocities[i]] += B[3 * i] * dr_N;
  }
}

void ContactStep::apply_tangential(std::size_t k, double dr_T1, double dr_T2,
                                   std::span<double> v) const {
  for (const ContactSide& side : contacts_[k].side) {
    if (!side.velocities) continue;
    const double* B = B_.data() + side.B;
    for (std::uint32_t i = 0; i < side.size; ++i)
      v[side.velocities[i]] += B[3 * i + 1] * dr_T1 + B[3 * i + 2] * dr_T2;
  }
}

void ContactStep::assemble(contact_problem::FrictionContactProblem& problem) const {
  const std::size_t n = contacts_.size();
  problem.W.reset(n);
  problem.q.resize(3 * n);
  problem.mu.resize(n);
  // Contacts by the first velocity coordinate of each side's tree (a tree's identity here).
  std::map<std::uint32_t, std::vector<std::pair<std::uint32_t, int>>> by_tree;
  for (std::size_t k = 0; k < n; ++k)
    for (int s = 0; s < 2; ++s)
      if (contacts_[k].side[s].velocities)
        by_tree[contacts_[k].side[s].velocities[0]].push_back({static_cast<std::uint32_t>(k), s});
  for (std::size_t k = 0; k < n; ++k) {
    const LocalContact& c = contacts_[k];
    std::map<std::uint32_t, contact_problem::BlockSparseMatrix::Block> row;
    row[static_cast<std::uint32_t>(k)] = c.W;
    for (int s = 0; s < 2; ++s) {
      const ContactSide& side = c.side[s];
      if (!side.velocities) continue;
      for (const auto& [l, t] : by_tree[side.velocities[0]]) {
        if (l == k) continue;
        // W_kl += J_s(k)·B_t(l): both sides act on the same tree, same coordinates.
        const ContactSide& other = contacts_[l].side[t];
        const double* B = B_.data() + other.B;
        auto& block = row.try_emplace(l, contact_problem::BlockSparseMatrix::Block{}).first->second;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) {
            double sum = 0.0;
            for (std::uint32_t i = 0; i < side.size; ++i)
              sum += side.J[a * side.size + i] * B[3 * i + b];
            block[3 * a + b] += sum;
          }
      }
    }
    for (const auto& [column, block] : row) problem.W.push_block(column, block);
    problem.W.end_row();
    problem.q[3 * k] = c.u_free[0] - c.bias_N;
    problem.q[3 * k + 1] = c.u_free[1];
    problem.q[3 * k + 2] = c.u_free[2];
    problem.mu[k] = c.mu;
  }
}

}  // namespace contactlab::plugins
