// The GJK/EPA solver of one query on the cores (Solver): GJK (gjk.hpp), the shifted-GJK
// refinement and Newton steps on the support function (newton_polish.hpp), EPA (epa.hpp). Its
// members are defined in those three implementation headers, which only gjk_epa_narrow_phase.cpp
// includes (after this one).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cold_seeds.hpp"
#include "core_contact.hpp"
#include "epa_workspace.hpp"
#include "minkowski_difference.hpp"
#include "signed_volumes.hpp"
#include "tolerances.hpp"

namespace contactlab::plugins::gjk_epa {

// Counters of one query.
struct QueryCounters {
  int iterations = 0;
  bool hit_limit = false;
  bool degenerate = false;
};

class Solver {
 public:
  Solver(CoreDifference& difference, double tolerance, bool polytope_cores, int max_iterations,
         Workspace& ws, QueryCounters& counters)
      : m_(difference),
        tolerance_(tolerance),
        epa_tolerance_(polytope_cores ? tolerance : std::max(tolerance, kCurvedEpaFraction)),
        polytope_cores_(polytope_cores),
        max_iterations_(max_iterations),
        ws_(ws),
        counters_(counters) {}

  // Hull–hull and hull–box pairs: `count` points of M that EPA inserts into its first polytope
  // before it expands (WarmStart::vertex_pairs), and the request to keep such points in the
  // contact. `exact_directions`: a warm start from cached directions, every starting point M's
  // support along its direction d, which gjk() may then certify at once (not so for points rebuilt
  // from vertex pairs, whose d only approximates one; a cold start's one direction rarely
  // certifies).
  void set_seeds(const SupportPoint* seeds, int count, bool vertex_pair, bool exact_directions) {
    seeds_ = seeds;
    seed_count_ = count;
    vertex_pair_ = vertex_pair;
    exact_directions_ = exact_directions;
  }

  // A cold start's seeds (ColdSeeds), written into `buffer` (ColdSeeds::kSeeds points) when EPA
  // runs.
  void set_cold_seeds(const ColdSeeds* cold_seeds, SupportPoint* buffer) {
    cold_seeds_ = cold_seeds;
    cold_buffer_ = buffer;
  }

  // The contact of the cores, from GJK started at `simplex` (one or more supported points).
  CoreContact solve(Simplex& simplex, double scale, const Vec3& up_A);

 private:
  // SupportPoint of M shifted by −shift_, i.e. with B moved by +shift_ (see refine()).
  SupportPoint support(const Vec3& d) {
    SupportPoint p;
    support_into(d, p);
    return p;
  }
  void support_into(const Vec3& d, SupportPoint& p) {
    m_.support_into(d, p);
    p.b += shift_;
    p.w -= shift_;
  }

  // GJK (Gilbert, Johnson & Keerthi 1988) in van den Bergen's form (1999, alg. 1): the simplex
  // keeps the support points whose hull holds the point v closest to the origin; the next support
  // point is taken along −v. Returns true when the simplex encloses the origin or comes within
  // kEnclosingFraction of it; otherwise `simplex` holds the best v found.
  // With `handoff` > 0, gjk() stops unconverged after that many iterations and sets handed_off_
  // (see polish_separated()).
  bool gjk(Simplex& simplex, int handoff = 0);

  // Distance along a good normal estimate n when the cores (nearly) touch or EPA stopped early.
  // Moving B away by s = depth + kShiftFraction·size along n and measuring the now comfortable gap
  // g with GJK gives the signed distance g − s: exact when n is the contact normal, because the
  // signed distance to a convex set grows at unit rate along the normal, and otherwise low by at
  // most s·(1 − cos θ) for an error θ of n (the signed distance is convex and 1-Lipschitz). The
  // shifted GJK also returns a well-conditioned normal, used for a second pass; of the two lower
  // bounds the larger is kept. False when the shifted cores still overlap (n was no normal).
  bool refine(Vec3 n, double depth, CoreContact& out);

  // One Newton step of the minimisation of h(m) = m·s_M(m) over unit m, from m with support
  // point p = s_M(m) and height h = m·p. In the chart u = m + a·t1 + b·t2 of the tangent plane
  // (t1, t2 completing m), h(u/|u|) has gradient g = (t1·p, t2·p) and Hessian J − h·I at the
  // origin, J the derivative of s_M along t1, t2 (the supports' closed-form derivatives: positive
  // semi-definite for a convex M). False when that Hessian is not positive definite (a flat
  // direction of a penetration, a saddle of h: no Newton step). Otherwise `next` is the new unit
  // direction and `decrease` the decrease of h the quadratic model predicts (half the Newton
  // decrement).
  bool newton_step(const Vec3& m, const SupportPoint& p, double h, Vec3& next, double& decrease,
                   double trust_radius = kPolishTrustRadius);

  // Separated cores whose closest points lie on a flat face of one of them (a cylinder's cap
  // over a box's corner, a cylinder's rim over a box's face): along that face's normal n the
  // support point q = s_M(n) gives the lower bound −h, h = n·q.w, as in polish_separated(), and
  // B's support point moved onto A's supporting plane, q.b + h·n, is a point of A when A's face
  // holds it (or A's moved onto B's plane, q.a − h·n, a point of B): that pair of points is at the
  // lower bound, the exact distance. Newton cannot get there: the support function has a kink at
  // n (the whole face is the support), where its steps overshoot and backtrack. Tries A's face
  // nearest to the unit direction m of M and B's nearest to −m; true with `out` set when one
  // certifies the distance. Out of line, as certify_face(): inlined, they made Solver::solve too
  // large to be inlined into solve_pair(), which slowed polytope queries, though they never reach
  // them.
  [[gnu::noinline]] bool face_certificate(const Vec3& m, CoreContact& out) {
    Vec3 n;
    return (m_.a_face_direction(m, n) && certify_face(n, true, out)) ||
           (m_.b_face_direction(m, n) && certify_face(n, false, out));
  }
  // face_certificate()'s test along the face normal n (a direction of M) of A's (on_a) or B's.
  [[gnu::noinline]] bool certify_face(const Vec3& n, bool on_a, CoreContact& out) {
    const SupportPoint q = support(n);
    ++counters_.iterations;
    grow_scale(q.w);
    const double h = n.dot(q.w);
    if (!(h < 0.0)) return false;  // n does not separate the cores
    const double slack = 8.0 * kMachineEpsilon * scale_;
    // (B as moved by refine()'s shift_, as q.b is)
    if (on_a ? !m_.a_contains(q.b + h * n, slack) : !m_.b_contains(q.a - h * n - shift_, slack)) {
      return false;
    }
    out.distance_m = -h;
    out.normal = n;
    out.point_a = on_a ? Vec3(q.b + h * n) : q.a;
    out.point_b = on_a ? q.b : Vec3(q.a - h * n);
    out.warm_count = 1;
    out.warm_directions[0] = n;
    return true;
  }

  // Separated cores, GJK handed over at simplex v: Newton steps on h from m = −v/|v|. Every
  // direction m gives a lower bound −h(m) of the distance (the plane m·x = h(m) separates the
  // origin from M) and every support point an upper bound |s|, as v does; the answer stands when
  // the best bounds agree to the tolerance (GJK's own stopping rule, so the result is as exact as
  // GJK's), with the support point of the best upper bound as the closest point. False otherwise
  // (a flat or kinked part of M, or overlapping cores): GJK resumes from `simplex`.
  // `first`: M's support along −v (a warm start's point), when known: the first evaluation
  // takes it instead of a support of its own.
  bool polish_separated(const Simplex& simplex, CoreContact& out,
                        const SupportPoint* first = nullptr);

  // Curved cores in contact, EPA's depth bounds within kEpaHandoffFraction: Newton steps on h
  // from the direction of EPA's lowest support height. Each height is an upper bound of the
  // depth; the answer is the stationary point of h at which the step's predicted decrease is
  // below the tolerance. EPA has bracketed the global minimum of h to kEpaHandoffFraction of the
  // size, and Newton from the bracket's direction finds the local minimum there, which is the
  // depth unless h has another local minimum within that bracket. False (EPA goes on) when a
  // Hessian is not positive definite (kinks: edges of cylinders and cones), a step does not
  // lower h or the steps run out.
  bool polish_penetration(CoreContact& out);

  static double sq(double x) { return x * x; }
  void grow_scale(const Vec3& w) {
    const double w2 = w.squaredNorm();
    if (w2 > scale_ * scale_) scale_ = std::sqrt(w2);
  }
  double flat_length() const { return kFlatFraction * scale_; }

  CoreContact separated(const Simplex& simplex) const;

  // The cores overlap or touch: build a full-dimensional polytope from the GJK simplex and run
  // EPA, or, when M itself is flat (crossing capsule axes, concentric spheres, coplanar plates),
  // answer directly along the flat direction.
  CoreContact penetration(const Simplex& simplex, const Vec3& up_A);

  // Adds the seed points outside the polytope, each through the expansion EPA uses for its
  // supports. A failed expansion (rounding) restores the tetrahedron without seeds.
  void insert_seeds();

  void add_vertex(const SupportPoint& p) { ws_.vertices[ws_.vertex_count++] = p; }
  const Vec3& w(int i) const { return ws_.vertices[i].w; }

  // Records a probe along unit d that found no extent of M beyond the current affine hull: M is
  // flat there, and h(d) = d·s(d) is an upper bound of the penetration depth of the origin.
  void note_flat(const Vec3& d, const SupportPoint& p);

  // Removes repeated points and points inside the affine hull of the others, so that the polytope
  // starts from an affinely independent set (GJK can end with near-duplicates after rounding).
  void drop_degenerate_vertices();

  // A flat tetrahedron from GJK: keep the face whose projection contains the origin's projection.
  void reduce_flat_tetrahedron();

  // One point: look for a second point of M along the hint, world up and the axes of A.
  void extend_from_point();

  // Two points: look off their line, first along the hint's perpendicular part, then at 60° steps
  // around the line (the probes of Bullet's and libccd's EPA initialisation).
  void extend_from_segment();

  // Three points: the support on one side of their plane makes a tetrahedron. A side without
  // extent is a flat side of M; with extent on both sides the farther apex is taken and EPA finds
  // the other one (a bipyramid over both would not be convex unless the apexes' segment crossed
  // the triangle).
  bool extend_from_triangle();

  // The four faces of a tetrahedron, outward when its vertices 0, 1, 2, 3 have a positive
  // volume (w1 − w0)·((w2 − w0) × (w3 − w0)), and the neighbour across each edge e = (v[e], v[e+1])
  // with that edge's index in the neighbour. A negative volume swaps vertices 1 and 2.
  bool build_tetrahedron();

  // Unit normal and offset of a face from its winding; false for a degenerate triangle.
  bool set_plane(Face& face) const { return set_plane(face, ws_.vertices.data()); }
  static bool set_plane(Face& face, const SupportPoint* vertices);

  // EPA (van den Bergen 2001, §4): repeatedly take the face nearest to the origin, find M's
  // support point along its normal, and stop when that point lies within tolerance of the face's
  // plane; otherwise replace the faces it sees by a fan of faces to it.
  CoreContact expand_polytope(const Simplex& simplex);

  // Barycentric coordinates of the point p of a face's plane.
  std::array<double, 3> barycentric(const Face& face, const Vec3& p) const;

  // Several faces in one plane of M (a face of a box is two triangles or more) tie for nearest;
  // the origin's projection lies in one of them, and only that one's barycentric coordinates
  // give witness points on the shapes.
  void choose_face_holding_projection();

  int nearest_face() const;

  // Removes every face that sees vertex `apex` and closes the hole with a fan of faces from the
  // horizon to the apex. The visible faces are found by a depth-first walk across edges from the
  // nearest face, each face entered through one edge leaving through the next two in winding
  // order: on a visible region that is a disc this meets the horizon edges in order around it
  // (the silhouette walk of van den Bergen 2001 and Bullet's EPA), so consecutive fan faces are
  // neighbours. False if the horizon is not one simple loop (rounding misjudged a visibility).
  bool expand(int start, int apex);

  void remove_face(int f);

  // The contact on EPA's nearest face: the origin projected on its plane, witness points from the
  // barycentric coordinates of that projection.
  CoreContact face_contact() const;

  // The vertex pairs (WarmStart::vertex_pairs) for the contact face `face`: its corners, the
  // polytope vertex lowest along its normal, then the others by the distance of the nearest live
  // face they belong to (the faces next to the contact, which EPA would otherwise find again).
  void set_warm_pairs(const Face& face, CoreContact& c) const;

  // M has no extent along flat_direction_ beyond the plane at flat_height_ through the simplex's
  // nearest point: the depth is that height (exact up to kFlatFraction).
  CoreContact flat_contact(const Simplex& simplex) const;

  CoreDifference& m_;
  double tolerance_;
  double epa_tolerance_;      // relative accuracy of EPA's depth (see kCurvedEpaFraction)
  bool polytope_cores_;       // both cores are polytopes
  bool vertex_pair_ = false;  // a hull with a hull or box: the warm start keeps vertex pairs
  const SupportPoint* seeds_ = nullptr;
  int seed_count_ = 0;
  const ColdSeeds* cold_seeds_ = nullptr;
  SupportPoint* cold_buffer_ = nullptr;
  bool exact_directions_ = false;  // see set_seeds()
  int max_iterations_;
  Workspace& ws_;
  QueryCounters& counters_;
  double scale_ = 0.0;
  // Left uninitialised (a warm separated query is short, and these would be ~30 stores of it):
  // penetration() sets hint_, up_ and the anchors, note_flat() the flat direction with flat_found_,
  // build_tetrahedron() interior_, EPA upper_direction_ with a finite upper_bound_ and best_face_
  // before any use.
  Vec3 hint_;
  Vec3 up_;
  Vec3 anchor_a_;
  Vec3 anchor_b_;
  bool flat_found_ = false;
  double flat_height_ = 0.0;
  Vec3 flat_direction_;
  Vec3 shift_ = Vec3::Zero();
  Vec3 interior_;
  bool stalled_ = false;     // the last gjk() stopped at the rounding floor far from the tolerance
  bool handed_off_ = false;  // the last gjk() stopped after its handoff iterations
  bool polytope_used_ = false;
  bool epa_converged_ = false;
  // EPA converged on a curved core, but the support height along its nearest face's normal exceeds
  // that face's distance by more than kFaceNormalFraction of the size (a minimum on a kink of M).
  bool face_normal_off_ = false;
  // The lowest support height EPA met, an upper bound of the depth, its direction and point.
  double upper_bound_ = std::numeric_limits<double>::infinity();
  Vec3 upper_direction_;
  SupportPoint upper_point_;  // set with upper_bound_
  Face best_face_;            // a copy: its slot may be reused by the expansion that follows
};

}  // namespace contactlab::plugins::gjk_epa
