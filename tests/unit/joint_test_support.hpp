// Shared support of the joint unit tests: every joint of plugins/joints-basic built with
// non-trivial axes, random configurations on each joint's manifold, and finite differences of
// poses (spatial velocity [v; ω] in P of a pose X_PC(t)).
#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include <contactlab/joint.hpp>
#include <contactlab/parameters.hpp>

#include "cylindrical_joint.hpp"
#include "fixed_joint.hpp"
#include "free_joint.hpp"
#include "helical_joint.hpp"
#include "planar_joint.hpp"
#include "prismatic_joint.hpp"
#include "revolute_joint.hpp"
#include "spherical_joint.hpp"
#include "universal_joint.hpp"

namespace joint_test {

using contactlab::Joint;
using contactlab::Mat3;
using contactlab::ParameterSchema;
using contactlab::ParameterValue;
using contactlab::ParameterValues;
using contactlab::Pose;
using contactlab::Vec3;
using Vector6 = Eigen::Matrix<double, 6, 1>;
using Overrides = std::map<std::string, ParameterValue>;

template <class J>
std::unique_ptr<Joint> make(const Overrides& overrides = {}) {
  return std::make_unique<J>(ParameterValues::defaults(J::schema(), overrides));
}

/// Overrides that set a direction `<name>_x/_y/_z` (not normalised: the joints normalise).
inline void set_axis(Overrides& overrides, const std::string& name, const Vec3& axis) {
  overrides[name + "_x"] = axis.x();
  overrides[name + "_y"] = axis.y();
  overrides[name + "_z"] = axis.z();
}

struct NamedJoint {
  std::string name;
  std::unique_ptr<Joint> joint;
};

/// Every joint with coordinates, with axes off the coordinate axes (so that no component is
/// trivially zero), pitch 0.05 m/rad for the helical joint.
inline std::vector<NamedJoint> moving_joints() {
  std::vector<NamedJoint> joints;
  using namespace contactlab::plugins;
  Overrides revolute, prismatic, helical, cylindrical, planar, universal;
  set_axis(revolute, "axis", Vec3(1, 2, 3));
  set_axis(prismatic, "axis", Vec3(-1, 0.5, 2));
  set_axis(helical, "axis", Vec3(0.3, -1, 0.4));
  helical["pitch_m_per_rad"] = 0.05;
  set_axis(cylindrical, "axis", Vec3(2, 1, -1));
  set_axis(planar, "normal", Vec3(1, 1, 1));
  set_axis(planar, "in_plane_axis", Vec3(1, -1, 0));
  set_axis(universal, "axis1", Vec3(1, 1, 0));
  set_axis(universal, "axis2", Vec3(-1, 1, 2));
  joints.push_back({"revolute", make<RevoluteJoint>(revolute)});
  joints.push_back({"prismatic", make<PrismaticJoint>(prismatic)});
  joints.push_back({"helical", make<HelicalJoint>(helical)});
  joints.push_back({"cylindrical", make<CylindricalJoint>(cylindrical)});
  joints.push_back({"planar", make<PlanarJoint>(planar)});
  joints.push_back({"universal", make<UniversalJoint>(universal)});
  joints.push_back({"spherical", make<SphericalJoint>()});
  joints.push_back({"free", make<FreeJoint>()});
  return joints;
}

/// A configuration reached from the neutral one by integrating a random velocity for 1 s
/// (coordinates up to a few units: several radians, several metres).
inline std::vector<double> random_configuration(const Joint& joint, std::mt19937_64& rng) {
  std::normal_distribution<double> gaussian(0.0, 1.5);
  std::vector<double> neutral(joint.nq()), q(joint.nq()), v(joint.nv());
  joint.neutral_configuration(neutral);
  for (double& x : v) x = gaussian(rng);
  joint.integrate(neutral, v, 1.0, q);
  return q;
}

inline std::vector<double> random_velocity(const Joint& joint, std::mt19937_64& rng) {
  std::normal_distribution<double> gaussian(0.0, 1.0);
  std::vector<double> v(joint.nv());
  for (double& x : v) x = gaussian(rng);
  return v;
}

/// [v; ω] in P of the motion X(t) from X(−h) and X(+h) (central differences, ω from
/// Ṙ·Rᵀ with R = X(0).R, its skew part).
inline Vector6 twist_by_differences(const Pose& before, const Pose& at, const Pose& after,
                                    double h) {
  const Vec3 velocity = (after.p - before.p) / (2.0 * h);
  const Mat3 W = (after.R - before.R) / (2.0 * h) * at.R.transpose();
  const Mat3 skew_part = 0.5 * (W - W.transpose());
  Vector6 twist;
  twist << velocity, Vec3(skew_part(2, 1), skew_part(0, 2), skew_part(1, 0));
  return twist;
}

inline Eigen::Matrix<double, 6, Eigen::Dynamic> motion_subspace(const Joint& joint,
                                                                const std::vector<double>& q) {
  std::vector<double> S(6 * joint.nv());
  joint.motion_subspace(q, S);
  return Eigen::Map<const Eigen::Matrix<double, 6, Eigen::Dynamic>>(S.data(), 6, joint.nv());
}

inline double pose_difference(const Pose& a, const Pose& b) {
  return std::max((a.R - b.R).cwiseAbs().maxCoeff(), (a.p - b.p).cwiseAbs().maxCoeff());
}

}  // namespace joint_test
