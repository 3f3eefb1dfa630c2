// Reading a run directory back (core::read_trajectory, core::read_contacts): what the recorder
// writes reads back bit for bit, the cut-short last row of an interrupted run is dropped and
// counted, and a malformed row elsewhere is an error naming the file and line.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "contactlab/core/recorder.hpp"
#include "contactlab/core/run_files.hpp"
#include "contactlab/core/scene.hpp"
#include "contactlab/errors.hpp"

using namespace contactlab;
using namespace contactlab::core;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

/// Bodies `floor` (fixed: not in trajectory.csv), `ball` and `box` (moving), one geometry each.
class FakeRun final : public RunView {
 public:
  FakeRun() {
    for (const char* name : {"floor", "ball", "box"}) {
      BodyModel body;
      body.name = name;
      body.mobile = std::string(name) != "floor";
      GeometryModel geometry;
      geometry.name = std::string(name) + "_shape";
      geometry.body = scene_.bodies.size();
      scene_.bodies.push_back(body);
      scene_.geometries.push_back(geometry);
    }
  }
  const Scene& scene() const override { return scene_; }
  SimulationStatistics statistics() const override { return {}; }
  std::vector<NarrowPhaseStatistics> narrow_phase_statistics() const override { return {}; }

 private:
  Scene scene_;
};

fs::path scratch(const std::string& name) {
  const fs::path directory = fs::temp_directory_path() /
                             ("contactlab_run_files_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(directory);
  return directory;
}

/// Values that only a shortest-round-trip writer and an exact reader keep.
BodyState awkward_state(double k) {
  BodyState s;
  s.p_WCm = Vec3(0.1 + 0.2 * k, -1.0 / 3.0, 1e-300 * k);
  s.q_WB = Eigen::Quaterniond(Eigen::AngleAxisd(0.7 + k, Vec3(1, 2, 3).normalized()));
  s.v_WCm = Vec3(-0.0, 5e-324, std::nextafter(1.0, 2.0));
  s.w_WB = Vec3(1e300, -2.5, k / 7.0);
  return s;
}

std::string append_line(const fs::path& file, const std::string& line) {
  std::ofstream out(file, std::ios::app);
  out << line;
  return line;
}

}  // namespace

TEST_CASE(
    "run files: trajectory.csv and contacts.csv as the recorder writes them read back bit for "
    "bit, fixed bodies left out, contact rows in time order") {
  const fs::path directory = scratch("round_trip");
  FakeRun run;
  const std::vector<double> times = {0.0, 0.001, 0.1 + 0.2};
  std::vector<std::vector<BodyState>> states;
  ContactSample contact;
  contact.geometry_a = 0;
  contact.geometry_b = 1;
  contact.geometry.distance_m = -1.0 / 3.0 * 1e-6;
  contact.geometry.normal_W = Vec3(0.6, 0.0, 0.8);
  contact.point_W = Vec3(1.0 / 7.0, -2e-17, 0.05);
  contact.normal_force_N = 1234.5678901234567;
  contact.tangential_force_W = Vec3(-0.1, 0.2, -0.0);
  {
    Recorder recorder(directory, "name: fake\n");
    recorder.on_run_start(run);
    RunSample initial;
    recorder.on_initial_state(initial);
    for (std::size_t i = 0; i < times.size(); ++i) {
      states.push_back({BodyState{}, awkward_state(double(i)), awkward_state(double(i) + 0.5)});
      const std::vector<ContactSample> contacts(i, contact);  // 0, 1, 2 rows
      RunSample sample;
      sample.time_s = times[i];
      sample.bodies = states.back();
      sample.contacts = contacts;
      sample.energy_J = 1.0;
      recorder.on_output(sample);
    }
  }
  const Trajectory trajectory = read_trajectory(directory / "trajectory.csv");
  REQUIRE(trajectory.bodies == std::vector<std::string>{"ball", "box"});
  CHECK(trajectory.body_index("box") == 1);
  CHECK(trajectory.body_index("floor") == 2);  // not in the file
  REQUIRE(trajectory.frame_count() == times.size());
  CHECK(trajectory.incomplete_rows == 0);
  for (std::size_t i = 0; i < times.size(); ++i) {
    CHECK(trajectory.times_s[i] == times[i]);
    for (std::size_t b = 0; b < 2; ++b) {
      const TrajectoryState& read = trajectory.state(i, b);
      const BodyState& written = states[i][b + 1];
      CHECK(read.p_WCm == written.p_WCm);
      CHECK(read.q_WB.w == written.q_WB.w());
      CHECK(read.q_WB.x == written.q_WB.x());
      CHECK(read.q_WB.y == written.q_WB.y());
      CHECK(read.q_WB.z == written.q_WB.z());
      CHECK(read.v_WCm == written.v_WCm);
      CHECK(std::signbit(read.v_WCm.x()));  // -0 stays -0
      CHECK(read.w_WB == written.w_WB);
    }
  }
  const std::vector<ContactRow> rows = read_contacts(directory / "contacts.csv");
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].time_s == times[1]);
  CHECK(rows[1].time_s == times[2]);
  CHECK(rows[2].time_s == times[2]);
  for (const ContactRow& row : rows) {
    CHECK(row.geometry_a == "floor_shape");
    CHECK(row.geometry_b == "ball_shape");
    CHECK(row.distance_m == contact.geometry.distance_m);
    CHECK(row.normal == contact.geometry.normal_W);
    CHECK(row.point_m == contact.point_W);
    CHECK(row.normal_force_N == contact.normal_force_N);
    CHECK(row.tangential_force_N == contact.tangential_force_W);
  }
  fs::remove_all(directory);
}

TEST_CASE(
    "run files: the pose of the body frame is the centre of mass less the rotated centre of mass "
    "in the body (1e-15)") {
  TrajectoryState state;
  state.p_WCm = Vec3(1.0, 2.0, 3.0);
  const Eigen::Quaterniond q(Eigen::AngleAxisd(0.5 * M_PI, Vec3::UnitZ()));
  state.q_WB = {2.0 * q.w(), 2.0 * q.x(), 2.0 * q.y(), 2.0 * q.z()};  // not unit: normalised
  const Pose X_WB = body_frame_pose(state, Vec3(0.1, 0.0, 0.0));
  CHECK((X_WB.p - Vec3(1.0, 1.9, 3.0)).norm() < 1e-15);
  CHECK((X_WB.R - q.toRotationMatrix()).norm() < 1e-15);
}

TEST_CASE(
    "run files: a cut-short last row (an interrupted run) is dropped and counted, in "
    "trajectory.csv and contacts.csv") {
  const fs::path directory = scratch("cut_short");
  fs::create_directories(directory);
  const fs::path trajectory_file = directory / "trajectory.csv";
  std::string header = "time_s";
  for (const char* c :
       {"px", "py", "pz", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"})
    header += std::string(",ball.") + c;
  append_line(trajectory_file, header + "\n");
  append_line(trajectory_file, "0,1,2,3,1,0,0,0,4,5,6,7,8,9\n");
  append_line(trajectory_file, "0.001,1,2,3,1,0,0,0,4,5,6,7,8,9\n");
  append_line(trajectory_file, "0.002,1,2,3,1,0,0");  // the process died writing this row
  const Trajectory trajectory = read_trajectory(trajectory_file);
  CHECK(trajectory.frame_count() == 2);
  CHECK(trajectory.incomplete_rows == 1);
  CHECK(trajectory.state(1, 0).w_WB == Vec3(7, 8, 9));

  const fs::path contacts_file = directory / "contacts.csv";
  append_line(contacts_file,
              "time_s,geometry_a,geometry_b,distance_m,normal_x,normal_y,normal_z,point_x,"
              "point_y,point_z,normal_force_N,tangential_force_x_N,tangential_force_y_N,"
              "tangential_force_z_N\n");
  append_line(contacts_file, "0.001,floor,ball,-1e-6,0,0,1,0,0,0,10,0,0,0\n");
  append_line(contacts_file, "0.002,floor,ball,-1e-6,0,0,1,0,0");
  CHECK(read_contacts(contacts_file).size() == 1);
  fs::remove_all(directory);
}

TEST_CASE(
    "run files: a malformed row before the last is an error naming the file and its line, as "
    "is a header that is not 13 columns per body") {
  const fs::path directory = scratch("malformed");
  fs::create_directories(directory);
  const fs::path file = directory / "trajectory.csv";
  std::string header = "time_s";
  for (const char* c :
       {"px", "py", "pz", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"})
    header += std::string(",ball.") + c;
  append_line(file, header + "\n");
  append_line(file, "0,1,2,3,1,0,0,0,4,5,6,7,8,9\n");
  append_line(file, "0.001,1,2,x,1,0,0,0,4,5,6,7,8,9\n");  // line 3
  append_line(file, "0.002,1,2,3,1,0,0,0,4,5,6,7,8,9\n");
  CHECK_THROWS_AS(read_trajectory(file), InputError);
  CHECK_THROWS_WITH(read_trajectory(file), Contains(file.string() + ":3"));

  const fs::path short_header = directory / "short.csv";
  append_line(short_header, "time_s,ball.px,ball.py\n0,1,2\n");
  CHECK_THROWS_WITH(read_trajectory(short_header), Contains(short_header.string() + ":1"));

  const fs::path contacts = directory / "contacts.csv";
  append_line(contacts,
              "time_s,geometry_a,geometry_b,distance_m,normal_x,normal_y,normal_z,point_x,"
              "point_y,point_z,normal_force_N,tangential_force_x_N,tangential_force_y_N,"
              "tangential_force_z_N\n");
  append_line(contacts, "0.001,floor,ball,-1e-6,0,0,1,0,0,0,ten,0,0,0\n");  // line 2
  append_line(contacts, "0.002,floor,ball,-1e-6,0,0,1,0,0,0,10,0,0,0\n");
  CHECK_THROWS_WITH(read_contacts(contacts), Contains(contacts.string() + ":2"));

  CHECK_THROWS_WITH(read_trajectory(directory / "missing.csv"), Contains("missing.csv"));
  fs::remove_all(directory);
}
