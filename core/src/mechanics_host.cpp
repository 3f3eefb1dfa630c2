// The host's MechanicsView (see mechanics_host.hpp).
#include "contactlab/core/mechanics_host.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "contactlab/errors.hpp"
#include "contactlab/geometry/manifold.hpp"

namespace contactlab::core {

namespace {
constexpr std::uint32_t no_tree = MechanicsContactPoint::no_tree;
}  // namespace

MechanicsHost::MechanicsHost(const Scene& scene, BodySystem& bodies, ContactPipeline& pipeline)
    : scene_(scene), bodies_(bodies), pipeline_(pipeline) {
  build_trees();
  // Pair materials by index, so that a step looks them up without strings.
  std::vector<std::string> names;
  for (const GeometryModel& g : scene.geometries) {
    auto it = std::find(names.begin(), names.end(), g.material);
    material_of_geometry_.push_back(static_cast<std::size_t>(it - names.begin()));
    if (it == names.end()) names.push_back(g.material);
  }
  material_count_ = names.size();
  pair_materials_.assign(material_count_ * material_count_, nullptr);
  for (std::size_t i = 0; i < material_count_; ++i)
    for (std::size_t j = 0; j < material_count_; ++j)
      pair_materials_[i * material_count_ + j] = scene.materials.find_pair(names[i], names[j]);
  const std::size_t nq = bodies.configuration_size(), nv = bodies.velocity_size();
  y_.assign(nq + nv, 0.0);
  rate_.assign(nq + nv, 0.0);
  a_free_.assign(nv, 0.0);
  v_ahead_.assign(nv, 0.0);
  q_ahead_.assign(nq, 0.0);
  wrenches_.resize(bodies.body_count());
  columns_.resize(bodies.body_count());
  for (std::size_t b = 0; b < bodies.body_count(); ++b) {
    columns_[b].v.resize(static_cast<std::size_t>(bodies.nv(b)));
    columns_[b].w.resize(static_cast<std::size_t>(bodies.nv(b)));
  }
}

void MechanicsHost::build_trees() {
  const std::size_t n = bodies_.body_count();
  tree_of_body_.assign(n, no_tree);
  local_offset_.assign(n, 0);
  chain_.assign(n, {});
  std::vector<std::size_t> root(n);
  for (std::size_t b = 0; b < n; ++b) {
    const int parent = bodies_.parent(b);
    root[b] = parent < 0 ? b : root[static_cast<std::size_t>(parent)];
    if (parent >= 0) chain_[b] = chain_[static_cast<std::size_t>(parent)];
    if (bodies_.nv(b) > 0) chain_[b].insert(chain_[b].begin(), b);
  }
  // One tree per root whose bodies have velocities (Scene::bodies is parent-first, so a tree's
  // coordinates come out ascending).
  std::vector<std::uint32_t> tree_of_root(n, no_tree);
  for (std::size_t b = 0; b < n; ++b) {
    if (!bodies_.mobile(b)) continue;
    std::uint32_t& tree = tree_of_root[root[b]];
    if (tree == no_tree) {
      tree = static_cast<std::uint32_t>(trees_.size());
      trees_.emplace_back();
    }
    Tree& t = trees_[tree];
    tree_of_body_[b] = tree;
    local_offset_[b] = static_cast<std::uint32_t>(t.velocities.size());
    t.bodies.push_back(b);
    for (int k = 0; k < bodies_.nv(b); ++k)
      t.velocities.push_back(static_cast<std::uint32_t>(bodies_.v_offset(b) + k));
  }
  for (Tree& t : trees_) t.inverse_mass.assign(t.velocities.size() * t.velocities.size(), 0.0);
}

void MechanicsHost::joint_columns() {
  double S[36];
  for (std::size_t b = 0; b < bodies_.body_count(); ++b) {
    const int nv = bodies_.nv(b);
    if (nv == 0 || !bodies_.mobile(b)) continue;
    JointColumns& c = columns_[b];
    const int parent = bodies_.parent(b);
    const Mat3 R_WJ = parent < 0 ? bodies_.joint_placement(b).R
                                 : Mat3(bodies_.pose_WB(static_cast<std::size_t>(parent)).R *
                                        bodies_.joint_placement(b).R);
    const auto q = std::span<const double>(y_).subspan(bodies_.q_offset(b),
                                                       static_cast<std::size_t>(bodies_.nq(b)));
    bodies_.joint(b).motion_subspace(q, std::span<double>(S, 6 * static_cast<std::size_t>(nv)));
    for (int k = 0; k < nv; ++k) {
      const double* s = S + 6 * k;  // [v; ω] in J
      c.v[k] = R_WJ * Vec3(s[0], s[1], s[2]);
      c.w[k] = R_WJ * Vec3(s[3], s[4], s[5]);
    }
  }
}

void MechanicsHost::mass_matrices() {
  Eigen::MatrixXd Jv, Jw, M;
  for (Tree& tree : trees_) {
    const auto n = static_cast<Eigen::Index>(tree.velocities.size());
    M.setZero(n, n);
    Jv.resize(3, n);
    Jw.resize(3, n);
    for (const std::size_t b : tree.bodies) {
      const MassProperties& mass = scene_.bodies[b].mass;
      const Pose& X_WB = bodies_.pose_WB(b);
      const Vec3 p_WCm = X_WB.transform_point(mass.p_BCm);
      Jv.setZero();
      Jw.setZero();
      for (const std::size_t j : chain_[b]) {
        const Vec3 o_j = bodies_.pose_WB(j).p;
        for (int k = 0; k < bodies_.nv(j); ++k) {
          const Eigen::Index col = local_offset_[j] + k;
          Jv.col(col) = columns_[j].v[k] + columns_[j].w[k].cross(p_WCm - o_j);
          Jw.col(col) = columns_[j].w[k];
        }
      }
      const Mat3 I_W = X_WB.R * mass.inertia_Cm_B * X_WB.R.transpose();
      M.noalias() += mass.mass_kg * Jv.transpose() * Jv;
      M.noalias() += Jw.transpose() * I_W * Jw;
    }
    // Driven coordinates have zero columns: decouple them (unit diagonal), then zero their
    // rows and columns of the inverse.
    std::vector<bool> fixed(static_cast<std::size_t>(n), false);
    for (const std::size_t b : tree.bodies)
      if (bodies_.driven(b))
        for (int k = 0; k < bodies_.nv(b); ++k) {
          const Eigen::Index i = local_offset_[b] + k;
          fixed[static_cast<std::size_t>(i)] = true;
          M.row(i).setZero();
          M.col(i).setZero();
          M(i, i) = 1.0;
        }
    const Eigen::LLT<Eigen::MatrixXd> llt(M);
    if (llt.info() != Eigen::Success)
      throw SimulationError("the mass matrix of the joint tree of body '" +
                            scene_.bodies[tree.bodies.front()].name +
                            "' is not positive definite at t = " + std::to_string(t_) + " s");
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> inverse(
        tree.inverse_mass.data(), n, n);
    inverse = llt.solve(Eigen::MatrixXd::Identity(n, n));
    for (Eigen::Index i = 0; i < n; ++i)
      if (fixed[static_cast<std::size_t>(i)]) {
        inverse.row(i).setZero();
        inverse.col(i).setZero();
      }
  }
}

const PairMaterial& MechanicsHost::pair_material(std::size_t geometry_a,
                                                 std::size_t geometry_b) const {
  const PairMaterial* material =
      pair_materials_[material_of_geometry_[geometry_a] * material_count_ +
                      material_of_geometry_[geometry_b]];
  if (!material)  // check_touching_pairs refuses such scenes; kept as a guard
    return scene_.materials.pair(scene_.geometries[geometry_a].material,
                                 scene_.geometries[geometry_b].material);
  return *material;
}

void MechanicsHost::append_rows(std::size_t body, double sign, MechanicsContactPoint& point,
                                int side) {
  const std::uint32_t tree = tree_of_body_[body];
  point.tree[side] = tree;
  if (tree == no_tree) return;
  const std::size_t n = trees_[tree].velocities.size();
  point.jacobian[side] = static_cast<std::uint32_t>(contacts_.jacobian.size());
  contacts_.jacobian.resize(contacts_.jacobian.size() + 3 * n, 0.0);
  double* rows = contacts_.jacobian.data() + point.jacobian[side];
  const Vec3 directions[3] = {sign * point.normal_W, sign * point.tangent1_W,
                              sign * point.tangent2_W};
  for (const std::size_t j : chain_[body]) {
    const Vec3 r = point.point_W - bodies_.pose_WB(j).p;
    for (int k = 0; k < bodies_.nv(j); ++k) {
      const std::size_t col = local_offset_[j] + static_cast<std::size_t>(k);
      const Vec3& v = columns_[j].v[k];
      const Vec3& w = columns_[j].w[k];
      for (int d = 0; d < 3; ++d)
        rows[d * n + col] = directions[d].dot(v) + w.dot(r.cross(directions[d]));
    }
  }
}

double MechanicsHost::patch_margin(const ContactPair& pair) const {
  const Shape& shape_a = scene_.geometries[pair.geometry_a].shape;
  const Shape& shape_b = scene_.geometries[pair.geometry_b].shape;
  const double size_a = geometry::shape_size(shape_a), size_b = geometry::shape_size(shape_b);
  const double size_m = shape_a.type == ShapeType::half_space   ? size_b
                        : shape_b.type == ShapeType::half_space ? size_a
                                                                : std::min(size_a, size_b);
  return 0.01 * size_m;
}

void MechanicsHost::merge_patch(const ContactPair& pair, ContactManifold& manifold,
                                std::array<std::int32_t, max_manifold_points>& previous) {
  manifold = pair.manifold;
  previous.fill(-1);
  const auto found = previous_patches_.find(pair_key(pair.geometry_a, pair.geometry_b));
  if (found == previous_patches_.end()) return;
  const Patch& patch = found->second;
  const double margin_m = patch_margin(pair);
  const double size_m = 100.0 * margin_m;
  const Pose& X_WA = bodies_.pose_WB(pair.body_a);
  const Pose& X_WB = bodies_.pose_WB(pair.body_b);
  const Vec3 n = manifold.points[0].normal_W;
  // Candidates: the narrow phase's points, then the kept ones.
  constexpr int capacity = 2 * max_manifold_points;
  std::array<ContactGeometry, capacity> candidate;
  std::array<std::int32_t, capacity> origin;
  int count = 0;
  for (int i = 0; i < manifold.count; ++i) {
    candidate[count] = manifold.points[static_cast<std::size_t>(i)];
    origin[count++] = -1;
  }
  auto tangential = [&](const ContactGeometry& g) {
    const Vec3 middle = 0.5 * (g.point_a_W + g.point_b_W);
    return Vec3(middle - n.dot(middle) * n);
  };
  for (int j = 0; j < patch.count; ++j) {
    ContactGeometry g;
    g.point_a_W = X_WA.transform_point(patch.p_A[j]);
    g.point_b_W = X_WB.transform_point(patch.p_B[j]);
    g.normal_W = n;
    // The same point as a new one — a witness of either side where it was on its body (a
    // sliding point keeps the one on the body that carries it): the new one carries its history.
    int same = -1;
    for (int i = 0; i < manifold.count; ++i)
      if ((candidate[i].point_a_W - g.point_a_W).norm() <= margin_m ||
          (candidate[i].point_b_W - g.point_b_W).norm() <= margin_m)
        same = i;
    if (same >= 0) {
      if (origin[same] < 0) origin[same] = patch.index[j];
      continue;
    }
    // Kept while within the margin along the normal. Its witnesses drift apart across the normal
    // when the bodies slide: A's witness is re-anchored below B's (a patch is flat), so that a
    // sliding box keeps its corners and their history.
    g.distance_m = n.dot(g.point_b_W - g.point_a_W);
    if (g.distance_m > margin_m) continue;
    g.point_a_W = g.point_b_W - g.distance_m * n;
    candidate[count] = g;
    origin[count++] = patch.index[j];
  }
  std::array<int, max_manifold_points> chosen;
  if (count <= max_manifold_points) {
    // Deepest first, the order of a manifold.
    int deepest = 0;
    for (int i = 1; i < count; ++i)
      if (candidate[i].distance_m < candidate[deepest].distance_m) deepest = i;
    chosen[0] = deepest;
    int k = 1;
    for (int i = 0; i < count; ++i)
      if (i != deepest) chosen[k++] = i;
  } else {
    std::array<Vec3, capacity> positions;
    std::array<double, capacity> distances;
    for (int i = 0; i < count; ++i) {
      positions[i] = tangential(candidate[i]);
      distances[i] = candidate[i].distance_m;
    }
    count = geometry::choose_patch_points(positions.data(), distances.data(), count, n,
                                          max_manifold_points, size_m, chosen, margin_m);
  }
  manifold.count = count;
  for (int k = 0; k < count; ++k) {
    manifold.points[static_cast<std::size_t>(k)] = candidate[chosen[k]];
    previous[k] = origin[chosen[k]];
  }
}

void MechanicsHost::prepare_step(double t, std::span<const double> y_in, double step_s) {
  t_ = t;
  step_s_ = step_s;
  ++steps_;
  problem_wanted_ = scene_.contact_problems && (steps_ - 1) % scene_.contact_problems_every == 0;
  const std::size_t nq = bodies_.configuration_size(), nv = bodies_.velocity_size();
  const std::span<const double> y = bodies_.with_drives(t, y_in);
  std::copy(y.begin(), y.end(), y_.begin());
  bodies_.compute(y_);
  // Free motion: gravity, joint forces and prescribed motions, no contact.
  bodies_.gravity_wrenches(wrenches_);
  bodies_.accelerations(t, y_, wrenches_, rate_);
  std::copy_n(rate_.begin() + static_cast<std::ptrdiff_t>(nq), nv, a_free_.begin());
  for (std::size_t i = 0; i < nv; ++i) {
    if (!std::isfinite(a_free_[i]))
      throw SimulationError("the free acceleration became non-finite at t = " + std::to_string(t) +
                            " s");
    v_ahead_[i] = y_[nq + i] + step_s * a_free_[i];
  }
  joint_columns();
  mass_matrices();

  // Contacts: the pairs the free motion of the step may bring together, answered at q.
  bodies_.integrate_configuration(std::span<const double>(y_).first(nq), v_ahead_, step_s,
                                  q_ahead_);
  bodies_.poses_at(q_ahead_, poses_ahead_);
  const ContactSet& set = pipeline_.update(bodies_.poses_WB(), {}, poses_ahead_);
  pipeline_.keep_boxes();

  pairs_.clear();
  previous_patches_.swap(patches_);
  patches_.clear();
  contacts_.points.clear();
  contacts_.jacobian.clear();
  geometry_.clear();
  prepared_pairs_.clear();
  double deepest = 0.0;
  ContactManifold manifold;
  std::array<std::int32_t, max_manifold_points> previous{};
  for (const ContactPair& pair : set.pairs) {
    const PairMaterial& material = pair_material(pair.geometry_a, pair.geometry_b);
    const PairKey key = pair_key(pair.geometry_a, pair.geometry_b);
    const auto first = static_cast<std::uint32_t>(contacts_.points.size());
    merge_patch(pair, manifold, previous);
    Patch& patch = patches_[key];
    patch.count = manifold.count;
    const Pose X_AW = bodies_.pose_WB(pair.body_a).inverse();
    const Pose X_BW = bodies_.pose_WB(pair.body_b).inverse();
    for (int i = 0; i < manifold.count; ++i) {
      const ContactGeometry& g = manifold.points[static_cast<std::size_t>(i)];
      patch.p_A[i] = X_AW.transform_point(g.point_a_W);
      patch.p_B[i] = X_BW.transform_point(g.point_b_W);
      patch.index[i] = static_cast<std::int32_t>(contacts_.points.size());
      MechanicsContactPoint& point = contacts_.points.emplace_back();
      point.pair = key;
      point.previous = previous[i];
      point.geometry_a = static_cast<std::uint32_t>(pair.geometry_a);
      point.geometry_b = static_cast<std::uint32_t>(pair.geometry_b);
      point.distance_m = g.distance_m;
      point.point_W = 0.5 * (g.point_a_W + g.point_b_W);
      point.normal_W = g.normal_W;
      complete_basis(g.normal_W, point.tangent1_W, point.tangent2_W);
      point.friction_static = material.friction_static;
      point.friction_kinetic = material.friction_kinetic;
      point.restitution = material.restitution;
      append_rows(pair.body_a, -1.0, point, 0);
      append_rows(pair.body_b, 1.0, point, 1);
      geometry_.push_back(g);
      deepest = std::min(deepest, g.distance_m);
    }
    pairs_[key] = {first, static_cast<std::uint32_t>(manifold.count)};
    prepared_pairs_.push_back(key);
  }
  statistics_.max_penetration_m = std::max(statistics_.max_penetration_m, -deepest);
}

void MechanicsHost::apply_inverse_mass(std::span<const double> f, std::span<double> out) const {
  std::fill(out.begin(), out.end(), 0.0);
  for (const Tree& tree : trees_) {
    const std::size_t n = tree.velocities.size();
    for (std::size_t i = 0; i < n; ++i) {
      double sum = 0.0;
      for (std::size_t j = 0; j < n; ++j)
        sum += tree.inverse_mass[i * n + j] * f[tree.velocities[j]];
      out[tree.velocities[i]] = sum;
    }
  }
}

void MechanicsHost::distances_at(std::span<const double> q, std::span<double> distances) {
  bodies_.poses_at(q, probe_poses_);
  // The prepared pairs are watched, in their order: pair p's answer is probe_set_.watched[p].
  pipeline_.probe(probe_poses_, prepared_pairs_, probe_set_);
  for (std::size_t p = 0; p < prepared_pairs_.size(); ++p) {
    const ContactPair& pair = probe_set_.pairs[probe_set_.watched[p]];
    const Patch& patch = patches_.at(prepared_pairs_[p]);
    const auto [first, count] = pairs_.at(prepared_pairs_[p]);
    const Pose& X_WA = probe_poses_[pair.body_a];
    const Pose& X_WB = probe_poses_[pair.body_b];
    const Vec3 n = pair.deepest().normal_W;
    const double margin_m = patch_margin(pair);
    for (std::uint32_t i = 0; i < count; ++i) {
      // The point's material witnesses at q; the narrow phase's distance where its new manifold
      // has the point, else their separation along the new normal (as a kept patch point).
      const Vec3 a_W = X_WA.transform_point(patch.p_A[i]);
      const Vec3 b_W = X_WB.transform_point(patch.p_B[i]);
      double distance = n.dot(b_W - a_W);
      for (int k = 0; k < pair.manifold.count; ++k) {
        const ContactGeometry& g = pair.manifold.points[static_cast<std::size_t>(k)];
        if ((g.point_a_W - a_W).norm() <= margin_m || (g.point_b_W - b_W).norm() <= margin_m) {
          distance = g.distance_m;
          break;
        }
      }
      distances[first + i] = distance;
    }
  }
}

void MechanicsHost::report_contact_solution(std::span<const double> impulses, double step_s,
                                            const ContactSolveReport& report) {
  samples_.clear();
  const std::size_t count = contacts_.points.size();
  if (count > 0) {
    ++statistics_.solves;
    statistics_.iterations += report.iterations;
    statistics_.max_iterations = std::max(statistics_.max_iterations, report.iterations);
    if (!report.converged) ++statistics_.unconverged;
    statistics_.max_residual = std::max(statistics_.max_residual, report.residual);
    statistics_.points += static_cast<std::int64_t>(count);
    statistics_.max_points = std::max(statistics_.max_points, static_cast<std::int64_t>(count));
  }
  for (std::size_t i = 0; i < count; ++i) {
    const double* r = impulses.data() + 3 * i;
    if (r[0] == 0.0) continue;  // negative: a bilateral method pulling (shown as such)
    const MechanicsContactPoint& point = contacts_.points[i];
    ContactSample& sample = samples_.emplace_back();
    sample.geometry_a = point.geometry_a;
    sample.geometry_b = point.geometry_b;
    sample.geometry = geometry_[i];
    sample.point_W = point.point_W;
    sample.normal_force_N = r[0] / step_s;
    sample.tangential_force_W = (r[1] * point.tangent1_W + r[2] * point.tangent2_W) / step_s;
  }
}

void MechanicsHost::report_contact_problem(const contact_problem::FrictionContactProblem& problem) {
  if (!problem_wanted_) return;
  ++statistics_.problems_written;
  if (observers_) observers_->deliver(ContactProblemEvent{t_, steps_ - 1, &problem});
}

}  // namespace contactlab::core
