// Reading a run directory back: trajectory.csv and contacts.csv as the recorder wrote them
// (core/src/recorder.cpp). The replay page, the ParaView export, the Python module and the
// comparison's trajectory differences read runs through these.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "contactlab/math.hpp"

namespace contactlab::core {

/// One body's state at one output time, as trajectory.csv has it (world frame, SI).
struct TrajectoryState {
  Vec3 p_WCm = Vec3::Zero();  ///< centre of mass [m]
  Quaternion q_WB;            ///< orientation of the body frame (w, x, y, z)
  Vec3 v_WCm = Vec3::Zero();  ///< velocity of the centre of mass [m/s]
  Vec3 w_WB = Vec3::Zero();   ///< angular velocity [rad/s]
};

/// The pose of the body frame B in the world from a trajectory row, which gives the centre of mass:
/// R_WB = q_WB, p_WB = p_WCm − R_WB·p_BCm (p_BCm: the centre of mass in B, BodyModel::mass).
inline Pose body_frame_pose(const TrajectoryState& state, const Vec3& p_BCm) {
  const Mat3 R = state.q_WB.eigen().normalized().toRotationMatrix();
  return {R, state.p_WCm - R * p_BCm};
}

struct Trajectory {
  std::vector<std::string> bodies;  ///< the moving bodies, in the file's column order
  std::vector<double> times_s;
  /// states[i * bodies.size() + b]: body b at times_s[i].
  std::vector<TrajectoryState> states;
  /// Rows dropped because they were cut short (the last row of an interrupted run).
  std::size_t incomplete_rows = 0;

  std::size_t frame_count() const { return times_s.size(); }
  const TrajectoryState& state(std::size_t frame, std::size_t body) const {
    return states[frame * bodies.size() + body];
  }
  /// Index of `name` in `bodies`, or bodies.size() when the body is not in the file.
  std::size_t body_index(const std::string& name) const;
};

/// One row of contacts.csv: a penetrating pair at an output time.
struct ContactRow {
  double time_s = 0.0;
  std::string geometry_a;
  std::string geometry_b;
  double distance_m = 0.0;                 ///< signed distance (< 0: penetration)
  Vec3 normal = Vec3::UnitZ();             ///< unit normal, A → B
  Vec3 point_m = Vec3::Zero();             ///< contact point (world)
  double normal_force_N = 0.0;             ///< on B, along the normal
  Vec3 tangential_force_N = Vec3::Zero();  ///< on B
};

/// Reads `file` (a trajectory.csv). Throws InputError naming the file and line for a file that
/// is missing, has no `time_s` header, or whose columns are not 13 per body.
Trajectory read_trajectory(const std::filesystem::path& file);

/// Reads `file` (a contacts.csv), rows in file order (by time). Same errors as read_trajectory.
std::vector<ContactRow> read_contacts(const std::filesystem::path& file);

}  // namespace contactlab::core
