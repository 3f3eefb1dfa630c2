// EPA (van den Bergen 2001) on a fixed-capacity polytope: Solver::penetration and the polytope's
// construction, expansion and answer. Implementation header of solver.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "solver.hpp"

namespace contactlab::plugins::gjk_epa {

inline CoreContact Solver::penetration(const Simplex& simplex, const Vec3& up_A) {
  polytope_used_ = false;
  ws_.vertex_count = 0;
  for (int i = 0; i < simplex.count; ++i) add_vertex(simplex.points[i]);
  // The anchor of a flat answer: the point of the simplex nearest to the origin.
  anchor_a_ = simplex.point_a();
  anchor_b_ = simplex.point_b();
  // Probe directions for the flat answer start with the closest-point direction, when GJK has
  // one above rounding noise, and world +z otherwise (as the primitive plugin does for
  // concentric spheres).
  const double norm_v = simplex.v.norm();
  up_ = up_A;
  hint_ = norm_v > flat_length() ? Vec3(-simplex.v / norm_v) : up_A;
  flat_found_ = false;
  flat_height_ = std::numeric_limits<double>::infinity();

  drop_degenerate_vertices();
  if (ws_.vertex_count == 1) extend_from_point();
  if (ws_.vertex_count == 2) extend_from_segment();
  bool built = false;
  if (ws_.vertex_count == 3) built = extend_from_triangle();
  if (ws_.vertex_count == 4) built = build_tetrahedron();
  if (!built) {
    counters_.degenerate = true;
    return flat_contact(simplex);
  }
  if (cold_seeds_ != nullptr && seed_count_ == 0) {
    seed_count_ = cold_seeds_->fill(cold_buffer_);
    seeds_ = cold_buffer_;
  }
  if (seed_count_ > 0) insert_seeds();
  return expand_polytope(simplex);
}

inline void Solver::insert_seeds() {
  for (int i = 0; i < seed_count_; ++i) {
    if (2 * (ws_.vertex_count + 1) >= ws_.vertex_capacity) break;
    const SupportPoint& q = seeds_[i];
    grow_scale(q.w);
    int start = -1;
    double most = 1e-9 * scale_;  // closer seeds add nothing EPA needs
    for (int f = 0; f < ws_.face_slots; ++f) {
      const Face& face = ws_.faces[f];
      if (!face.alive) continue;
      const double above = face.n.dot(q.w) - face.d;
      if (above > most) {
        most = above;
        start = f;
      }
    }
    if (start < 0) continue;
    add_vertex(q);
    if (!expand(start, ws_.vertex_count - 1)) {
      ws_.vertex_count = 4;
      if (!build_tetrahedron()) counters_.degenerate = true;  // built from these four before
      return;
    }
  }
}

inline void Solver::note_flat(const Vec3& d, const SupportPoint& p) {
  const double height = d.dot(p.w);
  // Earlier probes win ties within the flatness tolerance: they are the better-founded ones.
  if (!flat_found_ || height < flat_height_ - flat_length()) {
    flat_found_ = true;
    flat_height_ = height;
    flat_direction_ = d;
  }
}

inline void Solver::drop_degenerate_vertices() {
  const double len = flat_length();
  if (ws_.vertex_count == 4) {
    const double volume = (w(1) - w(0)).dot((w(2) - w(0)).cross(w(3) - w(0)));
    // The longest edge: one square root of the largest squared length (the same number, the
    // square root being monotonic and correctly rounded).
    double longest2 = 0.0;
    for (int i = 0; i < 4; ++i) {
      for (int j = i + 1; j < 4; ++j) longest2 = std::max(longest2, (w(i) - w(j)).squaredNorm());
    }
    const double longest = std::sqrt(longest2);
    if (std::abs(volume) <= len * longest * longest) reduce_flat_tetrahedron();
  }
  if (ws_.vertex_count == 3) {
    const double area2 = (w(1) - w(0)).cross(w(2) - w(0)).norm();
    const double longest = std::sqrt(std::max(
        {(w(1) - w(0)).squaredNorm(), (w(2) - w(1)).squaredNorm(), (w(2) - w(0)).squaredNorm()}));
    if (area2 <= len * longest) {
      // Collinear: keep the two points farthest apart.
      const std::array<std::array<int, 2>, 3> pairs = {{{0, 1}, {1, 2}, {0, 2}}};
      int keep0 = 0;
      int keep1 = 1;
      double farthest = -1.0;
      for (const auto& [i, j] : pairs) {
        const double length2 = (w(j) - w(i)).squaredNorm();
        if (length2 > farthest) {
          farthest = length2;
          keep0 = i;
          keep1 = j;
        }
      }
      const SupportPoint p0 = ws_.vertices[keep0];
      const SupportPoint p1 = ws_.vertices[keep1];
      ws_.vertex_count = 0;
      add_vertex(p0);
      add_vertex(p1);
    }
  }
  if (ws_.vertex_count == 2 && (w(1) - w(0)).norm() <= len) ws_.vertex_count = 1;
}

inline void Solver::reduce_flat_tetrahedron() {
  int best_face = 0;
  double best_score = -std::numeric_limits<double>::infinity();
  for (int skip = 0; skip < 4; ++skip) {
    std::array<int, 3> t{};
    for (int i = 0, k = 0; i < 4; ++i) {
      if (i != skip) t[k++] = i;
    }
    const Vec3 n = (w(t[1]) - w(t[0])).cross(w(t[2]) - w(t[0]));
    const double nn = n.squaredNorm();
    if (!(nn > 0.0)) continue;
    // Smallest barycentric coordinate of the origin's projection: ≥ 0 when inside.
    double smallest = std::numeric_limits<double>::infinity();
    for (int j = 0; j < 3; ++j) {
      const Vec3& p = w(t[(j + 1) % 3]);
      const Vec3& q = w(t[(j + 2) % 3]);
      smallest = std::min(smallest, n.dot(p.cross(q)) / nn);
    }
    if (smallest > best_score) {
      best_score = smallest;
      best_face = skip;
    }
  }
  std::array<SupportPoint, 3> kept;
  for (int i = 0, k = 0; i < 4; ++i) {
    if (i != best_face) kept[k++] = ws_.vertices[i];
  }
  ws_.vertex_count = 0;
  for (const SupportPoint& p : kept) add_vertex(p);
}

inline void Solver::extend_from_point() {
  const std::array<Vec3, 8> probes = {hint_,          up_,           Vec3::UnitX(),
                                      -Vec3::UnitX(), Vec3::UnitY(), -Vec3::UnitY(),
                                      Vec3::UnitZ(),  -Vec3::UnitZ()};
  for (const Vec3& d : probes) {
    const SupportPoint p = support(d);
    grow_scale(p.w);
    if ((p.w - w(0)).norm() > flat_length()) {
      add_vertex(p);
      return;
    }
    note_flat(d, p);
  }
}

inline void Solver::extend_from_segment() {
  const Vec3 e = (w(1) - w(0)).normalized();
  Vec3 t1, t2;
  complete_basis(e, t1, t2);
  std::array<Vec3, 7> probes;
  const Vec3 hint_perpendicular = hint_ - hint_.dot(e) * e;
  const double hint_norm = hint_perpendicular.norm();
  probes[0] = hint_norm > 1e-6 ? Vec3(hint_perpendicular / hint_norm) : t1;
  for (int k = 0; k < 6; ++k) {
    const double angle = k * std::numbers::pi / 3.0;
    probes[1 + k] = std::cos(angle) * t1 + std::sin(angle) * t2;
  }
  for (const Vec3& d : probes) {
    const SupportPoint p = support(d);
    grow_scale(p.w);
    const Vec3 off_line = (p.w - w(0)) - (p.w - w(0)).dot(e) * e;
    if (off_line.norm() > flat_length()) {
      add_vertex(p);
      return;
    }
    note_flat(d, p);
  }
}

inline bool Solver::extend_from_triangle() {
  const Vec3 n = (w(1) - w(0)).cross(w(2) - w(0)).normalized();
  const SupportPoint above = support(n);
  const SupportPoint below = support(-n);
  grow_scale(above.w);
  grow_scale(below.w);
  const double above_extent = n.dot(above.w - w(0));
  const double below_extent = -n.dot(below.w - w(0));
  if (!(above_extent > flat_length())) note_flat(n, above);
  if (!(below_extent > flat_length())) note_flat(-n, below);
  if (!(std::max(above_extent, below_extent) > flat_length())) {
    return false;  // M is flat: answer along its normal
  }
  add_vertex(above_extent >= below_extent ? above : below);
  return build_tetrahedron();
}

inline bool Solver::build_tetrahedron() {
  static constexpr int kFaces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  static constexpr int kNeighbours[4][3] = {{2, 3, 1}, {0, 3, 2}, {1, 3, 0}, {0, 2, 1}};
  static constexpr int kNeighbourEdges[4][3] = {{2, 0, 0}, {2, 2, 0}, {2, 1, 0}, {1, 1, 1}};
  const double volume = (w(1) - w(0)).dot((w(2) - w(0)).cross(w(3) - w(0)));
  if (!(volume != 0.0)) return false;
  const std::array<int, 4> vertex =
      volume > 0.0 ? std::array<int, 4>{0, 1, 2, 3} : std::array<int, 4>{0, 2, 1, 3};
  interior_ = 0.25 * (w(0) + w(1) + w(2) + w(3));  // stays interior: the polytope only grows
  ws_.face_slots = 4;
  ws_.free_count = 0;
  for (int f = 0; f < 4; ++f) {
    Face& face = ws_.faces[f];
    for (int e = 0; e < 3; ++e) {
      face.v[e] = vertex[kFaces[f][e]];
      face.adj[e] = kNeighbours[f][e];
      face.adj_edge[e] = kNeighbourEdges[f][e];
    }
    // Oriented by the volume's sign, checked against the centroid (not the origin, which may
    // lie on a face when the shapes touch, mujoco_warp #1526).
    if (!set_plane(face) || face.n.dot(interior_ - w(face.v[0])) > 0.0) return false;
    face.alive = true;
    ws_.face_distance[f] = face.d;
  }
  return true;
}

inline bool Solver::set_plane(Face& face, const SupportPoint* vertices) {
  const Vec3& p0 = vertices[face.v[0]].w;
  const Vec3& p1 = vertices[face.v[1]].w;
  const Vec3& p2 = vertices[face.v[2]].w;
  const Vec3 e1 = p1 - p0;
  const Vec3 e2 = p2 - p0;
  const Vec3 n = e1.cross(e2);
  const double length2 = n.squaredNorm();
  // sin(angle) between the edges below ~1e-14: the normal would be rounding noise.
  if (!(length2 > sq(64.0 * kMachineEpsilon) * e1.squaredNorm() * e2.squaredNorm())) {
    return false;
  }
  face.n = n / std::sqrt(length2);
  face.d = face.n.dot(p0 + p1 + p2) / 3.0;
  return true;
}

inline CoreContact Solver::expand_polytope(const Simplex& simplex) {
  polytope_used_ = true;
  epa_converged_ = false;
  face_normal_off_ = false;
  bool intact = true;
  // Polishing is tried when the bounds first agree to kEpaHandoffFraction and, if it fails
  // there, once more at kEpaRetryFraction.
  double polish_gap = kEpaHandoffFraction * scale_;
  CoreContact polished;
  upper_bound_ = std::numeric_limits<double>::infinity();
  for (int iteration = 0;; ++iteration) {
    const int nearest = nearest_face();
    if (nearest < 0) {
      counters_.degenerate = true;
      return flat_contact(simplex);
    }
    // The nearest face's distance can only grow as the polytope grows; a drop beyond rounding
    // means the last expansion broke convexity: keep the face from before it.
    if (iteration > 0 &&
        ws_.faces[nearest].d < best_face_.d - (tolerance_ + 64.0 * kMachineEpsilon) * scale_) {
      counters_.degenerate = true;
      intact = false;
      break;
    }
    best_face_ = ws_.faces[nearest];  // vertices stay put: their indices remain valid
    if (iteration >= max_iterations_ || ws_.vertex_count >= ws_.vertex_capacity) {
      counters_.hit_limit = true;
      break;
    }
    const Face& face = ws_.faces[nearest];
    SupportPoint p = m_.support_near(face.n, ws_.vertices[face.v[0]], ws_.vertices[face.v[1]],
                                     ws_.vertices[face.v[2]]);
    p.b += shift_;
    p.w -= shift_;
    ++counters_.iterations;
    grow_scale(p.w);
    // Every support height h(n) = n·s(n) bounds the depth from above and the nearest face's
    // distance d bounds it from below (the polytope is inside M): stop when the lowest height
    // seen and d agree to the tolerance (the normalised form of the test that libccd#44 and
    // FCL#301 found unnormalised; the lowest height instead of the current one ends curved
    // cores sooner, whose heights do not fall monotonically).
    const double height = face.n.dot(p.w);
    if (height < upper_bound_) {
      upper_bound_ = height;
      upper_direction_ = face.n;
      upper_point_ = p;
    }
    bool done = upper_bound_ - face.d <= epa_tolerance_ * scale_;
    for (int i = 0; i < 3; ++i) {  // a support point already on the face: nothing to gain
      done = done || (p.w - w(face.v[i])).squaredNorm() <= sq(4.0 * kMachineEpsilon * scale_);
    }
    if (done) {
      epa_converged_ = true;
      face_normal_off_ = !polytope_cores_ && height - face.d > kFaceNormalFraction * scale_;
      break;
    }
    if (!polytope_cores_ && upper_bound_ - face.d <= polish_gap) {
      polish_gap = polish_gap > kEpaRetryFraction * scale_ ? kEpaRetryFraction * scale_ : -1.0;
      if (polish_penetration(polished) &&
          !(flat_found_ && flat_height_ < -polished.distance_m - tolerance_ * scale_)) {
        epa_converged_ = true;
        polished.warm_count = 4;  // EPA's initial tetrahedron, as face_contact() keeps it
        for (int i = 0; i < 4; ++i) polished.warm_directions[i] = ws_.vertices[i].d;
        return polished;
      }
    }
    add_vertex(p);
    if (!expand(nearest, ws_.vertex_count - 1)) {
      counters_.degenerate = true;  // the polytope lost its topology: keep the last good face
      intact = false;
      break;
    }
  }
  if (flat_found_ && flat_height_ < best_face_.d - tolerance_ * scale_) {
    // A flat probe found a shallower direction than EPA's face (EPA stopped early).
    return flat_contact(simplex);
  }
  if (intact) choose_face_holding_projection();
  return face_contact();
}

inline std::array<double, 3> Solver::barycentric(const Face& face, const Vec3& p) const {
  const Vec3& w0 = w(face.v[0]);
  const Vec3& w1 = w(face.v[1]);
  const Vec3& w2 = w(face.v[2]);
  const double area = face.n.dot((w1 - w0).cross(w2 - w0));
  std::array<double, 3> lambda = {face.n.dot((w1 - p).cross(w2 - p)) / area,
                                  face.n.dot((w2 - p).cross(w0 - p)) / area, 0.0};
  lambda[2] = 1.0 - lambda[0] - lambda[1];
  return lambda;
}

inline void Solver::choose_face_holding_projection() {
  const Vec3 p = best_face_.d * best_face_.n;
  const auto smallest = [](const std::array<double, 3>& l) { return std::min({l[0], l[1], l[2]}); };
  double inside = smallest(barycentric(best_face_, p));
  if (inside >= 0.0) return;
  for (int f = 0; f < ws_.face_slots; ++f) {
    const Face& face = ws_.faces[f];
    if (!face.alive || std::abs(face.d - best_face_.d) > 64.0 * kMachineEpsilon * scale_ ||
        (face.n - best_face_.n).norm() > 1e-9) {
      continue;
    }
    const double candidate = smallest(barycentric(face, p));
    if (candidate > inside) {
      inside = candidate;
      best_face_ = face;
    }
  }
}

inline int Solver::nearest_face() const {
  int nearest = -1;
  double nearest_d = std::numeric_limits<double>::infinity();
  const double* distance = ws_.face_distance.data();
  for (int f = 0; f < ws_.face_slots; ++f) {
    if (distance[f] < nearest_d) {
      nearest_d = distance[f];
      nearest = f;
    }
  }
  return nearest;
}

inline bool Solver::expand(int start, int apex) {
  // The workspace's arrays by their data pointers (fixed: nothing here reallocates), loaded once
  // instead of at every access.
  Face* const faces = ws_.faces.data();
  double* const face_distance = ws_.face_distance.data();
  Workspace::WalkStep* const stack = ws_.stack.data();
  int* const removed_faces = ws_.removed.data();
  Workspace::HorizonEdge* const horizon_edges = ws_.horizon.data();
  int* const free_faces = ws_.free_faces.data();
  std::int64_t* const round_of_vertex = ws_.round_of_vertex.data();
  const SupportPoint* const vertices = ws_.vertices.data();
  const double visible = 16.0 * kMachineEpsilon * scale_;
  const Vec3& q = vertices[apex].w;
  int removed = 0;
  int stacked = 0;
  int horizon = 0;
  faces[start].alive = false;
  face_distance[start] = std::numeric_limits<double>::infinity();
  removed_faces[removed++] = start;
  // Stack entries: (face, edge it was entered through); popped in the recursion's order.
  for (int e = 2; e >= 0; --e) {
    stack[stacked++] = {faces[start].adj[e], faces[start].adj_edge[e]};
  }
  while (stacked > 0) {
    const auto [h, entry] = stack[--stacked];
    Face& face = faces[h];
    if (!face.alive) continue;
    if (face.n.dot(q) - face.d > visible) {
      face.alive = false;
      face_distance[h] = std::numeric_limits<double>::infinity();
      removed_faces[removed++] = h;
      const int second = entry == 0 ? 2 : entry - 1;  // (entry + 2) % 3, walked last
      const int first = entry == 2 ? 0 : entry + 1;   // (entry + 1) % 3
      stack[stacked++] = {face.adj[second], face.adj_edge[second]};
      stack[stacked++] = {face.adj[first], face.adj_edge[first]};
    } else {
      // The kept face's edge `entry` runs (to → from) in the removed face's winding.
      const int from = face.v[entry == 2 ? 0 : entry + 1];
      const int to = face.v[entry];
      horizon_edges[horizon++] = {h, entry, from, to};
    }
  }
  if (horizon < 3) return false;
  // The free list's length in a local (the int stores into the arrays could alias the
  // member), written back before every return from here on.
  int free_count = ws_.free_count;
  for (int i = 0; i < removed; ++i) free_faces[free_count++] = removed_faces[i];
  ws_.free_count = free_count;

  // One simple loop: each edge starts where the last one ended, no vertex twice.
  const std::int64_t round = ++ws_.round;
  for (int k = 0; k < horizon; ++k) {
    const Workspace::HorizonEdge& edge = horizon_edges[k];
    if (edge.to != horizon_edges[k + 1 == horizon ? 0 : k + 1].from) return false;
    if (round_of_vertex[edge.from] == round) return false;
    round_of_vertex[edge.from] = round;
  }

  int first_new = -1;
  int previous = -1;
  for (int k = 0; k < horizon; ++k) {
    const Workspace::HorizonEdge& edge = horizon_edges[k];
    int f = 0;
    if (free_count > 0) {
      f = free_faces[--free_count];
    } else if (ws_.face_slots < ws_.face_capacity) {
      f = ws_.face_slots++;
    } else {
      ws_.free_count = free_count;
      return false;
    }
    Face& face = faces[f];
    face.v = {edge.from, edge.to, apex};
    face.adj[0] = edge.face;
    face.adj_edge[0] = edge.edge;
    faces[edge.face].adj[edge.edge] = f;
    faces[edge.face].adj_edge[edge.edge] = 0;
    // Edge 1 (to → apex) meets the next fan face's edge 2 (apex → its from = our to).
    if (previous >= 0) {
      face.adj[2] = previous;
      face.adj_edge[2] = 1;
      faces[previous].adj[1] = f;
      faces[previous].adj_edge[1] = 2;
    } else {
      first_new = f;
    }
    previous = f;
    // A fan face folded over its horizon edge (the apex projects outside the removed region
    // and rounding misjudged a nearly coplanar neighbour) faces the interior: give up.
    if (!set_plane(face, vertices) || !(face.n.dot(interior_ - q) < 0.0)) {
      ws_.free_count = free_count;
      return false;
    }
    face.alive = true;
    face_distance[f] = face.d;
  }
  faces[previous].adj[1] = first_new;
  faces[previous].adj_edge[1] = 2;
  faces[first_new].adj[2] = previous;
  faces[first_new].adj_edge[2] = 1;
  ws_.free_count = free_count;
  return true;
}

inline void Solver::remove_face(int f) {
  ws_.faces[f].alive = false;
  ws_.face_distance[f] = std::numeric_limits<double>::infinity();
}

inline CoreContact Solver::face_contact() const {
  const Face& face = best_face_;
  std::array<double, 3> lambda = barycentric(face, face.d * face.n);
  // Outside the face only when the origin is outside M (a touching contact): clamp.
  double sum = 0.0;
  for (double& l : lambda) sum += (l = std::clamp(l, 0.0, 1.0));
  Vec3 a = Vec3::Zero();
  Vec3 b = Vec3::Zero();
  for (int i = 0; i < 3; ++i) {
    a += (lambda[i] / sum) * ws_.vertices[face.v[i]].a;
    b += (lambda[i] / sum) * ws_.vertices[face.v[i]].b;
  }
  CoreContact c;
  c.distance_m = -face.d;
  c.normal = face.n;
  set_witnesses(c, a, b);
  // Warm start after EPA: the support directions of the face's corners and the direction
  // opposite its normal. At an unchanged or nearby pose GJK finds these four points enclosing
  // the origin (the far support closes a tetrahedron through the whole of M), and EPA starts
  // from a polytope that already holds the contact face: it ends after a step or two. The face's
  // corners alone would leave GJK a sliver tetrahedron around the contact, from which EPA
  // converges markedly slower on curved cores than from a cold start.
  // On curved cores the face is one of many tiny facets, and the warm start is EPA's initial
  // tetrahedron instead: the same start as cold at a nearby pose, found without GJK iterations.
  c.warm_count = 4;
  if (vertex_pair_) {
    set_warm_pairs(face, c);
    if (c.warm_pair_count > 0) return c;
  }
  if (polytope_cores_) {
    for (int i = 0; i < 3; ++i) c.warm_directions[i] = ws_.vertices[face.v[i]].d;
    c.warm_directions[3] = -face.n;
  } else {
    for (int i = 0; i < 4; ++i) c.warm_directions[i] = ws_.vertices[i].d;
  }
  return c;
}

inline void Solver::set_warm_pairs(const Face& face, CoreContact& c) const {
  const auto pack = [this](int i) {
    return VertexPair{m_.vertex_a(ws_.vertices[i]), m_.vertex_b(ws_.vertices[i])};
  };
  double* rank = ws_.vertex_rank.data();
  int lowest = -1;
  double lowest_h = std::numeric_limits<double>::infinity();
  for (int i = 0; i < ws_.vertex_count; ++i) {
    rank[i] = std::numeric_limits<double>::infinity();
    const double h = face.n.dot(w(i));
    if (h < lowest_h) {
      lowest_h = h;
      lowest = i;
    }
  }
  if (lowest < 0 || lowest == face.v[0] || lowest == face.v[1] || lowest == face.v[2]) return;
  for (int f = 0; f < ws_.face_slots; ++f) {
    const double d = ws_.face_distance[f];  // +∞ for removed faces
    if (!(d < std::numeric_limits<double>::infinity())) continue;
    for (int e = 0; e < 3; ++e) {
      double& r = rank[ws_.faces[f].v[e]];
      r = std::min(r, d);
    }
  }
  for (int i = 0; i < 3; ++i) rank[face.v[i]] = std::numeric_limits<double>::infinity();
  rank[lowest] = std::numeric_limits<double>::infinity();
  constexpr int kExtra = kMaxWarmPairs - 4;
  std::array<int, kExtra> top{};
  std::array<double, kExtra> top_r{};
  int tops = 0;
  for (int i = 0; i < ws_.vertex_count; ++i) {
    const double r = rank[i];
    if (!(r < std::numeric_limits<double>::infinity())) continue;
    // Insertion into the kExtra lowest ranks, in increasing rank.
    int k = tops < kExtra ? tops++ : kExtra;
    if (k == kExtra) {
      if (!(r < top_r[kExtra - 1])) continue;
      k = kExtra - 1;
    }
    while (k > 0 && top_r[k - 1] > r) {
      top[k] = top[k - 1];
      top_r[k] = top_r[k - 1];
      --k;
    }
    top[k] = i;
    top_r[k] = r;
  }
  int count = 0;
  for (int i = 0; i < 3; ++i) c.warm_pairs[count++] = pack(face.v[i]);
  c.warm_pairs[count++] = pack(lowest);
  for (int k = 0; k < tops; ++k) c.warm_pairs[count++] = pack(top[k]);
  c.warm_pair_count = count;
}

inline CoreContact Solver::flat_contact(const Simplex& simplex) const {
  CoreContact c;
  if (flat_found_) {
    c.distance_m = -flat_height_;
    c.normal = flat_direction_;
  } else {  // no polytope and no flat probe (non-finite input): GJK's own answer
    c.distance_m = simplex.v.norm();
    c.normal = hint_;
  }
  set_witnesses(c, anchor_a_, anchor_b_);
  c.warm_count = simplex.count;
  for (int i = 0; i < simplex.count; ++i) c.warm_directions[i] = simplex.points[i].d;
  return c;
}

}  // namespace contactlab::plugins::gjk_epa
