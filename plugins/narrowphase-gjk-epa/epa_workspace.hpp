// EPA's polytope memory (GjkEpaNarrowPhase::Workspace), sized once from max_iterations so that
// a query never allocates.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core_support.hpp"
#include "gjk_epa_narrow_phase.hpp"

namespace contactlab::plugins {

// ---------------------------------------------------------------------------------------------
// EPA polytope memory, sized once from max_iterations: every EPA iteration adds one vertex, and a
// closed triangulated polytope with V vertices has at most 2V − 4 faces.

struct GjkEpaNarrowPhase::Workspace {
  struct Face {
    std::array<int, 3> v{};         // vertex indices, counter-clockwise seen from outside
    std::array<int, 3> adj{};       // neighbour across edge e = (v[e], v[e + 1])
    std::array<int, 3> adj_edge{};  // that edge's index in the neighbour
    Vec3 n = Vec3::Zero();          // unit outward normal
    double d = 0.0;                 // n·(vertices): origin-to-plane distance, > 0 when inside
    bool alive = false;
  };
  struct HorizonEdge {
    int face;  // the kept face beyond the edge
    int edge;  // the edge's index in that face
    int from;  // the edge's vertices in the winding of the removed face
    int to;
  };
  struct WalkStep {
    int face;   // a face to test for visibility
    int entry;  // the edge it is entered through
  };

  explicit Workspace(int max_iterations)
      : vertex_capacity(max_iterations + 8), face_capacity(2 * vertex_capacity + 8) {
    vertices.resize(static_cast<std::size_t>(vertex_capacity));
    faces.resize(static_cast<std::size_t>(face_capacity));
    face_distance.resize(static_cast<std::size_t>(face_capacity));
    free_faces.resize(static_cast<std::size_t>(face_capacity));
    stack.resize(static_cast<std::size_t>(3 * face_capacity));
    removed.resize(static_cast<std::size_t>(face_capacity));
    horizon.resize(static_cast<std::size_t>(3 * face_capacity));
    round_of_vertex.resize(static_cast<std::size_t>(vertex_capacity));
    vertex_rank.resize(static_cast<std::size_t>(vertex_capacity));
  }

  int vertex_capacity;
  int face_capacity;
  std::vector<gjk_epa::SupportPoint> vertices;
  std::vector<Face> faces;
  // faces[f].d of live faces and +∞ of removed ones, apart from the faces: the search for the
  // nearest face runs over this dense array alone.
  std::vector<double> face_distance;
  std::vector<int> free_faces;
  std::vector<WalkStep> stack;
  std::vector<int> removed;
  std::vector<HorizonEdge> horizon;
  std::vector<std::int64_t> round_of_vertex;
  std::vector<double> vertex_rank;  // the warm start's choice of vertices (set_warm_pairs)
  int vertex_count = 0;
  int face_slots = 0;  // high-water mark of used face slots
  int free_count = 0;
  std::int64_t round = 0;
};

namespace gjk_epa {
using Workspace = GjkEpaNarrowPhase::Workspace;
using Face = Workspace::Face;
}  // namespace gjk_epa

}  // namespace contactlab::plugins
