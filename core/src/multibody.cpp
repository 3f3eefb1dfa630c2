// Multibody tree dynamics: CRBA, RNEA and ABA in Featherstone's body-coordinate spatial algebra
// (see the convention notes at the top of multibody.hpp).
#include "contactlab/core/multibody.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>

#include "contactlab/errors.hpp"

namespace contactlab::core {

namespace {

using Vector6 = Eigen::Matrix<double, 6, 1>;
using Matrix6 = Eigen::Matrix<double, 6, 6>;
// Sizes bounded by 6 (a joint has at most six velocities): fixed storage, never the heap.
using SubspaceMatrix = Eigen::Matrix<double, 6, Eigen::Dynamic, Eigen::ColMajor, 6, 6>;
using JointMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, 6, 6>;
using JointVector = Eigen::Matrix<double, Eigen::Dynamic, 1, Eigen::ColMajor, 6, 1>;

constexpr int kMaxJointVelocities = 6;

/// Motion vector of the parent (λ coordinates) in the child's coordinates, for X_λB = (R, r):
/// ω_B = Rᵀω, v_B = Rᵀ(v − r × ω)  (the Plücker transform ᴮX_λ).
Vector6 motion_to_child(const Mat3& R, const Vec3& r, const Vector6& m) {
  Vector6 out;
  const Vec3 w = m.head<3>();
  out.head<3>() = R.transpose() * w;
  out.tail<3>() = R.transpose() * (m.tail<3>() - r.cross(w));
  return out;
}

/// Force vector of the child in the parent's coordinates: f_λ = R f_B, n_λ = R n_B + r × f_λ
/// (λX_B* = (ᴮX_λ)ᵀ).
Vector6 force_to_parent(const Mat3& R, const Vec3& r, const Vector6& f) {
  Vector6 out;
  out.tail<3>() = R * f.tail<3>();
  out.head<3>() = R * f.head<3>() + r.cross(out.tail<3>());
  return out;
}

/// λX_B* · I · ᴮX_λ: a spatial inertia (rigid or articulated) of the child expressed in the
/// parent's coordinates. With the blocks [A H; Hᵀ C] rotated into λ axes (A' = R A Rᵀ, …) and
/// [r]× = rx:  A_λ = A' − H' rx + rx H'ᵀ − rx C' rx,  H_λ = H' + rx C',  C_λ = C'.
Matrix6 inertia_to_parent(const Mat3& R, const Vec3& r, const Matrix6& I) {
  const Mat3 A = R * I.topLeftCorner<3, 3>() * R.transpose();
  const Mat3 H = R * I.topRightCorner<3, 3>() * R.transpose();
  const Mat3 C = R * I.bottomRightCorner<3, 3>() * R.transpose();
  const Mat3 rx = skew(r);
  const Mat3 rxC = rx * C;
  const Mat3 H_rx = H * rx;
  Matrix6 out;
  out.topLeftCorner<3, 3>() = A - H_rx - H_rx.transpose() - rxC * rx;
  out.topRightCorner<3, 3>() = H + rxC;
  out.bottomLeftCorner<3, 3>() = out.topRightCorner<3, 3>().transpose();
  out.bottomRightCorner<3, 3>() = C;
  return out;
}

/// Spatial cross product for motions, v ×m m = [ω × ω_m; ω × v_m + v × ω_m].
Vector6 cross_motion(const Vector6& v, const Vector6& m) {
  Vector6 out;
  const Vec3 w = v.head<3>();
  out.head<3>() = w.cross(m.head<3>());
  out.tail<3>() = w.cross(m.tail<3>()) + v.tail<3>().cross(m.head<3>());
  return out;
}

/// Spatial cross product for forces, v ×f f = [ω × n + v × f; ω × f].
Vector6 cross_force(const Vector6& v, const Vector6& f) {
  Vector6 out;
  const Vec3 w = v.head<3>();
  out.head<3>() = w.cross(f.head<3>()) + v.tail<3>().cross(f.tail<3>());
  out.tail<3>() = w.cross(f.tail<3>());
  return out;
}

/// Rigid-body spatial inertia about the body origin, body coordinates (c = COM in B):
/// [[I_c − m[c]×[c]×, m[c]×], [−m[c]×, m·1]].
Matrix6 rigid_body_inertia(const MassProperties& mass) {
  const double m = mass.mass_kg;
  const Mat3 cx = skew(mass.p_BCm);
  Matrix6 I;
  I.topLeftCorner<3, 3>() = mass.inertia_Cm_B - m * cx * cx;
  I.topRightCorner<3, 3>() = m * cx;
  I.bottomLeftCorner<3, 3>() = -m * cx;
  I.bottomRightCorner<3, 3>() = m * Mat3::Identity();
  return I;
}

bool finite(const MassProperties& mass) {
  return std::isfinite(mass.mass_kg) && mass.p_BCm.allFinite() && mass.inertia_Cm_B.allFinite();
}

/// The inverse of a symmetric positive definite 6×6 matrix through its Cholesky factor L
/// (A⁻¹ = L⁻ᵀ·L⁻¹), in loops of fixed length that the compiler unrolls: Eigen's general
/// triangular solver costs more than this arithmetic. False when A is not positive definite.
bool spd_inverse6(const Matrix6& A, Matrix6& inverse) {
  double L[6][6] = {}, M[6][6] = {};
  for (int j = 0; j < 6; ++j) {
    double d = A(j, j);
    for (int k = 0; k < j; ++k) d -= L[j][k] * L[j][k];
    if (!(d > 0.0)) return false;
    L[j][j] = std::sqrt(d);
    for (int i = j + 1; i < 6; ++i) {
      double s = A(i, j);
      for (int k = 0; k < j; ++k) s -= L[i][k] * L[j][k];
      L[i][j] = s / L[j][j];
    }
  }
  for (int j = 0; j < 6; ++j) {  // M = L⁻¹, lower triangular
    M[j][j] = 1.0 / L[j][j];
    for (int i = j + 1; i < 6; ++i) {
      double s = 0.0;
      for (int k = j; k < i; ++k) s -= L[i][k] * M[k][j];
      M[i][j] = s / L[i][i];
    }
  }
  for (int i = 0; i < 6; ++i)
    for (int j = i; j < 6; ++j) {
      double s = 0.0;
      for (int k = j; k < 6; ++k) s += M[k][i] * M[k][j];
      inverse(i, j) = inverse(j, i) = s;
    }
  return true;
}

[[noreturn]] void throw_not_positive_definite(std::size_t body, double pivot) {
  throw SimulationError("multibody: the articulated inertia of body " + std::to_string(body) +
                        " along its joint's motion is not positive definite (pivot " +
                        std::to_string(pivot) +
                        "); the subtree has no mass or inertia that the joint can move");
}

}  // namespace

struct MultibodyTree::Node {
  // Model (constant).
  int parent = -1;
  int q_offset = 0, v_offset = 0, nq = 0, nv = 0;
  bool welded_to_world = false;  ///< fixed joints only down from the world: never moves
  bool prescribed = false;       ///< hybrid dynamics: v̇ of this joint is given
  const Joint* joint = nullptr;
  Pose X_PJ;
  Matrix6 inertia = Matrix6::Zero();  ///< rigid-body spatial inertia, B coordinates

  // Per evaluation.
  Mat3 R_PB = Mat3::Identity();  ///< X_λB (λ = parent body, or world for a root)
  Vec3 p_PB = Vec3::Zero();
  Pose X_WB;
  SubspaceMatrix S;             ///< motion subspace, B coordinates, [ω; v]
  Vector6 v = Vector6::Zero();  ///< body velocity, B coordinates
  Vector6 c = Vector6::Zero();  ///< velocity-product acceleration c_J + v × v_J
  Vector6 a = Vector6::Zero();  ///< acceleration (with the fictitious −g of the base)
  Vector6 f = Vector6::Zero();  ///< RNEA: net joint force; ABA: bias force pᴬ
  Vector6 f_ext = Vector6::Zero();
  Matrix6 IA = Matrix6::Zero();  ///< ABA: articulated inertia; CRBA: composite inertia
  SubspaceMatrix U;              ///< ABA: Iᴬ·S
  JointMatrix D_inv;             ///< ABA: (Sᵀ Iᴬ S)⁻¹
  JointVector u;                 ///< ABA: τ − Sᵀ pᴬ
  std::array<double, 6 * kMaxJointVelocities> S_joint{};  ///< the joint's own S, [v; ω] in J
  std::array<double, 6> bias_joint{};
};

MultibodyTree::MultibodyTree(std::vector<MultibodyBody> bodies) : bodies_(std::move(bodies)) {
  nodes_.resize(bodies_.size());
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    const MultibodyBody& body = bodies_[i];
    Node& node = nodes_[i];
    const std::string name = "multibody body " + std::to_string(i);
    if (body.parent < -1 || body.parent >= static_cast<int>(i))
      throw InputError(name + ": parent index " + std::to_string(body.parent) +
                       " must be −1 (world) or the index of an earlier body (0.." +
                       std::to_string(static_cast<long>(i) - 1) + ")");
    node.parent = body.parent;
    node.joint = body.joint.get();
    node.nq = node.joint ? node.joint->nq() : 0;
    node.nv = node.joint ? node.joint->nv() : 0;
    if (node.nq < 0 || node.nv < 0 || node.nv > kMaxJointVelocities)
      throw InputError(name + ": its joint has nq = " + std::to_string(node.nq) +
                       " and nv = " + std::to_string(node.nv) + "; nq ≥ 0 and 0 ≤ nv ≤ 6 needed");
    node.q_offset = nq_;
    node.v_offset = nv_;
    nq_ += node.nq;
    nv_ += node.nv;
    node.X_PJ = body.X_PJ;
    node.prescribed = body.prescribed && node.nv > 0;
    node.welded_to_world =
        node.nv == 0 &&
        (node.parent < 0 || nodes_[static_cast<std::size_t>(node.parent)].welded_to_world);
    if (!node.welded_to_world) {
      if (!finite(body.mass) || body.mass.mass_kg < 0.0)
        throw InputError(name + ": mass " + std::to_string(body.mass.mass_kg) +
                         " kg with a finite COM and inertia is needed for a body that can move "
                         "(mass ≥ 0, everything finite)");
      node.inertia = rigid_body_inertia(body.mass);
    }
    node.S.resize(6, node.nv);
    node.S.setZero();
    node.U.resize(6, node.nv);
    node.U.setZero();
    node.D_inv.resize(node.nv, node.nv);
    node.D_inv.setZero();
    node.u.resize(node.nv);
    node.u.setZero();
    node.X_WB = node.parent < 0 ? node.X_PJ
                                : nodes_[static_cast<std::size_t>(node.parent)].X_WB * node.X_PJ;
  }
  kinematics_q_.reserve(static_cast<std::size_t>(nq_));  // no allocation per evaluation
  kinematics_v_.reserve(static_cast<std::size_t>(nv_));
}

MultibodyTree::~MultibodyTree() = default;
MultibodyTree::MultibodyTree(MultibodyTree&&) noexcept = default;
MultibodyTree& MultibodyTree::operator=(MultibodyTree&&) noexcept = default;

std::size_t MultibodyTree::body_count() const {
  return nodes_.size();
}
const MultibodyBody& MultibodyTree::body(std::size_t i) const {
  return bodies_.at(i);
}
int MultibodyTree::q_offset(std::size_t i) const {
  return nodes_.at(i).q_offset;
}
int MultibodyTree::v_offset(std::size_t i) const {
  return nodes_.at(i).v_offset;
}
int MultibodyTree::body_nq(std::size_t i) const {
  return nodes_.at(i).nq;
}
int MultibodyTree::body_nv(std::size_t i) const {
  return nodes_.at(i).nv;
}
const Pose& MultibodyTree::pose_WB(std::size_t i) const {
  return nodes_.at(i).X_WB;
}
Vec3 MultibodyTree::velocity_WBo(std::size_t i) const {
  const Node& node = nodes_.at(i);
  return node.X_WB.R * node.v.tail<3>();
}
Vec3 MultibodyTree::angular_velocity_W(std::size_t i) const {
  const Node& node = nodes_.at(i);
  return node.X_WB.R * node.v.head<3>();
}

void MultibodyTree::check_sizes(std::span<const double> q, std::span<const double> v) const {
  if (q.size() != static_cast<std::size_t>(nq_) || v.size() != static_cast<std::size_t>(nv_))
    throw std::invalid_argument(
        "multibody: q has " + std::to_string(q.size()) + " and v " + std::to_string(v.size()) +
        " entries; the tree has nq = " + std::to_string(nq_) + ", nv = " + std::to_string(nv_));
}

bool MultibodyTree::kinematics_at(std::span<const double> q, std::span<const double> v) const {
  return kinematics_current_ && q.size() == kinematics_q_.size() &&
         v.size() == kinematics_v_.size() &&
         std::memcmp(q.data(), kinematics_q_.data(), q.size() * sizeof(double)) == 0 &&
         std::memcmp(v.data(), kinematics_v_.data(), v.size() * sizeof(double)) == 0;
}

void MultibodyTree::kinematics(std::span<const double> q, std::span<const double> v, Pass pass) {
  kinematics_current_ = pass == Pass::velocities;
  if (kinematics_current_) {
    kinematics_q_.assign(q.begin(), q.end());
    kinematics_v_.assign(v.begin(), v.end());
  }
  for (Node& node : nodes_) {
    const auto q_joint =
        q.subspan(static_cast<std::size_t>(node.q_offset), static_cast<std::size_t>(node.nq));
    const Pose X_JB = node.joint ? node.joint->transform(q_joint) : Pose::identity();
    node.R_PB = node.X_PJ.R * X_JB.R;
    node.p_PB = node.X_PJ.R * X_JB.p + node.X_PJ.p;
    const Pose X_PB{node.R_PB, node.p_PB};
    node.X_WB = node.parent < 0 ? X_PB : nodes_[static_cast<std::size_t>(node.parent)].X_WB * X_PB;

    const Mat3 R_BJ = X_JB.R.transpose();
    if (node.nv > 0) {
      node.joint->motion_subspace(
          q_joint, std::span<double>(node.S_joint.data(), static_cast<std::size_t>(6 * node.nv)));
      for (int k = 0; k < node.nv; ++k) {
        const Eigen::Map<const Vector6> column(node.S_joint.data() + 6 * k);  // [v; ω] in J
        node.S.col(k).head<3>() = R_BJ * column.tail<3>();
        node.S.col(k).tail<3>() = R_BJ * column.head<3>();
      }
    }
    if (pass == Pass::positions) continue;

    node.v = node.parent < 0 ? Vector6::Zero()
                             : motion_to_child(node.R_PB, node.p_PB,
                                               nodes_[static_cast<std::size_t>(node.parent)].v);
    if (node.nv == 0) {
      node.c.setZero();
      continue;
    }
    const auto v_joint =
        v.subspan(static_cast<std::size_t>(node.v_offset), static_cast<std::size_t>(node.nv));
    node.joint->bias_acceleration(q_joint, v_joint, node.bias_joint);
    // Joint velocity in the joint's convention ([v; ω] in J), then in B ([ω; v]).
    Vector6 twist_J = Vector6::Zero();
    for (int k = 0; k < node.nv; ++k)
      twist_J += Eigen::Map<const Vector6>(node.S_joint.data() + 6 * k) * v_joint[k];
    const Vec3 v_J = twist_J.head<3>();
    const Vec3 w_J = twist_J.tail<3>();
    Vector6 v_joint_B;
    v_joint_B.head<3>() = R_BJ * w_J;
    v_joint_B.tail<3>() = R_BJ * v_J;
    const Eigen::Map<const Vector6> bias_J(node.bias_joint.data());
    Vector6 c_J;  // apparent derivative of S_B·v in B, less S_B·v̇
    c_J.head<3>() = R_BJ * bias_J.tail<3>();
    c_J.tail<3>() = R_BJ * (bias_J.head<3>() - w_J.cross(v_J));
    node.v += v_joint_B;
    node.c = c_J + cross_motion(node.v, v_joint_B);
  }
}

void MultibodyTree::external_forces(std::span<const BodyWrench> external) {
  if (!external.empty() && external.size() != nodes_.size())
    throw std::invalid_argument("multibody: " + std::to_string(external.size()) +
                                " external wrenches for " + std::to_string(nodes_.size()) +
                                " bodies (give one per body, or none)");
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    Node& node = nodes_[i];
    if (external.empty()) {
      node.f_ext.setZero();
      continue;
    }
    const Mat3 R_BW = node.X_WB.R.transpose();
    node.f_ext.head<3>() = R_BW * external[i].torque_Bo_W;
    node.f_ext.tail<3>() = R_BW * external[i].force_W;
  }
}

void MultibodyTree::forward_kinematics(std::span<const double> q, std::span<const double> v) {
  check_sizes(q, v);
  kinematics(q, v, Pass::velocities);
}

void MultibodyTree::mass_matrix(std::span<const double> q, Eigen::Ref<Eigen::MatrixXd> M) {
  if (q.size() != static_cast<std::size_t>(nq_) || M.rows() != nv_ || M.cols() != nv_)
    throw std::invalid_argument("multibody: mass_matrix needs q of size " + std::to_string(nq_) +
                                " and M of size " + std::to_string(nv_) + " × " +
                                std::to_string(nv_));
  kinematics(q, {}, Pass::positions);
  // Composite inertias, leaves to root (Featherstone table 6.2).
  for (Node& node : nodes_) node.IA = node.inertia;
  for (std::size_t i = nodes_.size(); i-- > 0;) {
    const Node& node = nodes_[i];
    if (node.parent >= 0)
      nodes_[static_cast<std::size_t>(node.parent)].IA +=
          inertia_to_parent(node.R_PB, node.p_PB, node.IA);
  }
  M.setZero();
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Node& node = nodes_[i];
    if (node.nv == 0) continue;
    SubspaceMatrix F = node.IA * node.S;  // 6 × nv_i, fixed storage
    const int vi = node.v_offset, ni = node.nv;
    M.block(vi, vi, ni, ni).noalias() = node.S.transpose() * F;
    const Node* child = &node;
    while (child->parent >= 0) {
      for (int k = 0; k < ni; ++k) F.col(k) = force_to_parent(child->R_PB, child->p_PB, F.col(k));
      const Node& ancestor = nodes_[static_cast<std::size_t>(child->parent)];
      child = &ancestor;
      if (ancestor.nv == 0) continue;
      JointMatrix block(ancestor.nv, ni);
      block.noalias() = ancestor.S.transpose() * F;
      M.block(ancestor.v_offset, vi, ancestor.nv, ni) = block;
      M.block(vi, ancestor.v_offset, ni, ancestor.nv) = block.transpose();
    }
  }
}

void MultibodyTree::inverse_dynamics(std::span<const double> q, std::span<const double> v,
                                     std::span<const double> v_dot, const Vec3& gravity_W,
                                     std::span<const BodyWrench> external, std::span<double> tau) {
  check_sizes(q, v);
  if ((!v_dot.empty() && v_dot.size() != static_cast<std::size_t>(nv_)) ||
      tau.size() != static_cast<std::size_t>(nv_))
    throw std::invalid_argument("multibody: v̇ and τ need " + std::to_string(nv_) + " entries");
  if (!kinematics_at(q, v)) kinematics(q, v, Pass::velocities);
  external_forces(external);
  Vector6 a_world;
  a_world << Vec3::Zero(), -gravity_W;
  // Outward: accelerations and the net force each body needs (Featherstone table 5.1).
  for (Node& node : nodes_) {
    const Vector6& a_parent =
        node.parent < 0 ? a_world : nodes_[static_cast<std::size_t>(node.parent)].a;
    node.a = motion_to_child(node.R_PB, node.p_PB, a_parent) + node.c;
    if (!v_dot.empty())
      for (int k = 0; k < node.nv; ++k)
        node.a += node.S.col(k) * v_dot[static_cast<std::size_t>(node.v_offset + k)];
    node.f = node.inertia * node.a + cross_force(node.v, node.inertia * node.v) - node.f_ext;
  }
  // Inward: joint forces, and each body's force handed to its parent.
  for (std::size_t i = nodes_.size(); i-- > 0;) {
    const Node& node = nodes_[i];
    for (int k = 0; k < node.nv; ++k)
      tau[static_cast<std::size_t>(node.v_offset + k)] = node.S.col(k).dot(node.f);
    if (node.parent >= 0)
      nodes_[static_cast<std::size_t>(node.parent)].f +=
          force_to_parent(node.R_PB, node.p_PB, node.f);
  }
}

void MultibodyTree::bias_forces(std::span<const double> q, std::span<const double> v,
                                const Vec3& gravity_W, std::span<const BodyWrench> external,
                                std::span<double> c) {
  inverse_dynamics(q, v, {}, gravity_W, external, c);
}

void MultibodyTree::forward_dynamics(std::span<const double> q, std::span<const double> v,
                                     std::span<const double> tau, const Vec3& gravity_W,
                                     std::span<const BodyWrench> external,
                                     std::span<double> v_dot) {
  check_sizes(q, v);
  if (tau.size() != static_cast<std::size_t>(nv_) || v_dot.size() != static_cast<std::size_t>(nv_))
    throw std::invalid_argument("multibody: τ and v̇ need " + std::to_string(nv_) + " entries");
  // Pass 1: velocities and velocity-product terms (Featherstone table 7.1).
  if (!kinematics_at(q, v)) kinematics(q, v, Pass::velocities);
  external_forces(external);
  for (Node& node : nodes_) {
    node.IA = node.inertia;
    node.f = cross_force(node.v, node.inertia * node.v) - node.f_ext;  // pᴬ
  }
  // Pass 2, leaves to root: articulated inertias and bias forces.
  for (std::size_t i = nodes_.size(); i-- > 0;) {
    Node& node = nodes_[i];
    Matrix6 Ia;
    Vector6 pa;
    if (node.nv == 0) {
      Ia = node.IA;
      pa = node.f + node.IA * node.c;
    } else if (node.prescribed) {
      // A joint of known acceleration passes the subtree on rigidly, with the force that its
      // motion S·v̇ takes (Featherstone 2008 §9.2).
      Vector6 known = node.c;
      for (int k = 0; k < node.nv; ++k)
        known += node.S.col(k) * v_dot[static_cast<std::size_t>(node.v_offset + k)];
      Ia = node.IA;
      pa = node.f + node.IA * known;
    } else if (node.nv == 1) {
      const auto s = node.S.col(0);
      const Vector6 U = node.IA * s;
      const double D = s.dot(U);
      if (!(D > 0.0)) throw_not_positive_definite(i, D);
      const double D_inv = 1.0 / D;
      const double u = tau[static_cast<std::size_t>(node.v_offset)] - s.dot(node.f);
      node.U.col(0) = U;
      node.D_inv(0, 0) = D_inv;
      node.u(0) = u;
      Ia = node.IA - (D_inv * U) * U.transpose();
      pa = node.f + Ia * node.c + U * (D_inv * u);
    } else if (node.nv == 6) {
      // Six degrees of freedom (free joints): the same algebra in fixed-size 6×6 matrices, which
      // Eigen unrolls, instead of the dynamic-size path below (twice as fast on 1,000 spheres).
      const Matrix6 S = node.S;
      const Matrix6 U = node.IA * S;
      const Matrix6 D = S.transpose() * U;
      Matrix6 D_inv;
      if (!spd_inverse6(D, D_inv)) throw_not_positive_definite(i, D.diagonal().minCoeff());
      Vector6 u;
      for (int k = 0; k < 6; ++k)
        u(k) = tau[static_cast<std::size_t>(node.v_offset + k)] - S.col(k).dot(node.f);
      node.U = U;
      node.D_inv = D_inv;
      node.u = u;
      if (node.parent < 0) continue;  // a root's Iᵃ and pᵃ have no parent to go to
      const Matrix6 UD = U * D_inv;
      Ia = node.IA;
      Ia.noalias() -= UD * U.transpose();
      pa = node.f + Ia * node.c;
      pa.noalias() += UD * u;
    } else {
      node.U.noalias() = node.IA * node.S;
      JointMatrix D(node.nv, node.nv);
      D.noalias() = node.S.transpose() * node.U;
      const Eigen::LLT<JointMatrix> llt(D);
      if (llt.info() != Eigen::Success) throw_not_positive_definite(i, D.diagonal().minCoeff());
      node.D_inv.setIdentity();
      llt.solveInPlace(node.D_inv);
      for (int k = 0; k < node.nv; ++k)
        node.u(k) = tau[static_cast<std::size_t>(node.v_offset + k)] - node.S.col(k).dot(node.f);
      SubspaceMatrix UD(6, node.nv);
      UD.noalias() = node.U * node.D_inv;
      Ia = node.IA;
      Ia.noalias() -= UD * node.U.transpose();
      pa = node.f + Ia * node.c;
      pa.noalias() += UD * node.u;
    }
    if (node.parent >= 0) {
      Node& parent = nodes_[static_cast<std::size_t>(node.parent)];
      parent.IA += inertia_to_parent(node.R_PB, node.p_PB, Ia);
      parent.f += force_to_parent(node.R_PB, node.p_PB, pa);
    }
  }
  // Pass 3, root to leaves: accelerations.
  Vector6 a_world;
  a_world << Vec3::Zero(), -gravity_W;
  for (Node& node : nodes_) {
    const Vector6& a_parent =
        node.parent < 0 ? a_world : nodes_[static_cast<std::size_t>(node.parent)].a;
    node.a = motion_to_child(node.R_PB, node.p_PB, a_parent) + node.c;
    if (node.nv == 0) continue;
    const std::size_t vi = static_cast<std::size_t>(node.v_offset);
    if (node.prescribed) {
      for (int k = 0; k < node.nv; ++k) node.a += node.S.col(k) * v_dot[vi + k];
    } else if (node.nv == 1) {
      const double vd = node.D_inv(0, 0) * (node.u(0) - node.U.col(0).dot(node.a));
      v_dot[vi] = vd;
      node.a += node.S.col(0) * vd;
    } else if (node.nv == 6) {
      const Matrix6 U = node.U, D_inv = node.D_inv, S = node.S;
      const Vector6 u = node.u;
      const Vector6 vd = D_inv * (u - U.transpose() * node.a);
      for (int k = 0; k < 6; ++k) v_dot[vi + static_cast<std::size_t>(k)] = vd(k);
      node.a += S * vd;
    } else {
      JointVector rhs = node.u;
      rhs.noalias() -= node.U.transpose() * node.a;
      JointVector vd(node.nv);
      vd.noalias() = node.D_inv * rhs;
      for (int k = 0; k < node.nv; ++k) {
        v_dot[vi + static_cast<std::size_t>(k)] = vd(k);
        node.a += node.S.col(k) * vd(k);
      }
    }
  }
}

}  // namespace contactlab::core
