// Narrow-phase cost: ns per query of every narrow-phase plugin, side by side in the same run with
// libccd (ccdGJKPenetration, ccdMPRPenetration) and FCL 0.7 (GJKSolver_libccd shapeSignedDistance
// and shapeIntersect), on sphere–sphere, sphere–box, box–box, cylinder–cylinder, cylinder–box,
// hull(32)–hull(32), hull(256)–hull(256) and box–hull(32), each in overlapping and separated poses.
//
// Every case has N seeded random poses built outside the timed loop so that the answer is known:
// a random unit normal n, the support point a of A along n, and B placed so that its support
// point along −n sits at a + s·n. For s > 0 the plane through a + (s/2)·n separates the shapes
// and the distance is exactly s (gap = 10 % of the 1 m shape size); for s < 0 (1–5 % of the size)
// the shapes overlap and the penetration depth is at most |s|. Before timing, every method
// answers every pose once and is checked against that sign (a warning per disagreement, never an
// abort) and, when it reports a distance, against s. The timed loop then cycles through the
// poses; plugins get one warm-start cache per pose slot. One benchmark iteration is one query,
// so the reported time is ns per query (median over repetitions).
//
// Usage: build/bin/bench_narrow_phase [--poses=1024] [--seed=1] [--near_touching] [--faces]
//                                      [--cold | --moving[=32]] [Google Benchmark flags]
// --cold clears each plugin's warm-start cache before every query (a first contact at a new pose;
// the clearing itself, a 136-byte store, is timed with the query). By default each pose slot keeps
// its cache, and since the loop revisits the same pose, a warm start sees an unchanged pose: the
// best case of temporal coherence.
// --moving=K makes each pose slot a closed path of K poses, visited in order, as a simulation's
// steps visit a contact: both orientations and the contact normal swing by up to ±0.1 rad, in
// K steps per period (at most 0.1·2π/K rad per step: 0.02 rad for K = 32), and B is placed by the
// same construction at every step, so the distance or depth bound is known at each. A warm start
// then sees the previous step's pose: realistic temporal coherence. --poses=N then gives N paths
// of K steps each (N·K poses).
// --faces puts B's lowest vertex above a point inside a face of A's (a box face, a cylinder cap, a
// hull triangle; sphere A as by default) instead of above A's support along a random n: face–vertex
// contacts, whose closest point of M lies inside a face of M, where the default gives vertex–vertex
// contacts (a corner of M, the easiest case for GJK). The distance is still exactly s.
// --near_touching replaces the gap by 1e-9 m and the depths by 1e-9–1e-8 m: a stress test of the
// sign near contact (expect peer warnings), not the timing setting.
// tools/bench/narrow_phase_table.py runs it and prints the Markdown table of medians and ratios.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <benchmark/benchmark.h>

#include "contactlab/core/shape_library.hpp"
#include "contactlab/narrow_phase.hpp"
#include "contactlab/shapes.hpp"
#include "narrow_phase_poses.hpp"
#include "primitive_narrow_phase.hpp"

#ifdef CONTACTLAB_BENCH_HAVE_GJK_EPA
#include CONTACTLAB_BENCH_GJK_EPA_HEADER
#endif
#ifdef CONTACTLAB_BENCH_HAVE_MPR
#include CONTACTLAB_BENCH_MPR_HEADER
#endif
#ifdef CONTACTLAB_BENCH_HAVE_CCD
#include <ccd/ccd.h>
#endif
#ifdef CONTACTLAB_BENCH_HAVE_FCL
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/detail/gjk_solver_libccd.h>
#endif

namespace {

using namespace contactlab;
using namespace contactlab::bench;

struct Case {
  std::string pair;  // e.g. "box-hull32"
  bool overlapping = false;
  Shape a;
  Shape b;
  std::vector<PosePair> poses;
  std::size_t paths = 0;  // warm-start caches: pose i uses cache i % paths (see make_poses)
  std::string name() const { return pair + (overlapping ? "/overlapping" : "/separated"); }
};

// ----------------------------------------------------------------------------------------------
// Methods. A runner answers query(i) for pose i of one case; the timed loop is a template over the
// runner type so that only the method's own call is measured.

struct Outcome {
  double distance_m = 0.0;  // signed distance when has_distance; else −depth or NaN
  bool overlapping = false;
  bool has_distance = false;  // a separation distance is computed (not only a boolean)
  bool failed = false;        // exception or error code
};

class Runner {
 public:
  virtual ~Runner() = default;
  virtual Outcome check_query(std::size_t i) = 0;  // for the sanity pass only
  virtual const NarrowPhase* plugin() const { return nullptr; }
};

/// --cold: every plugin query starts from an empty warm-start cache.
bool cold_caches = false;

template <class Derived>
class RunnerBase : public Runner {
 public:
  Outcome check_query(std::size_t i) override { return static_cast<Derived*>(this)->query(i); }
};

class PluginRunner final : public RunnerBase<PluginRunner> {
 public:
  PluginRunner(std::shared_ptr<NarrowPhase> narrow_phase, const Case& c)
      : narrow_phase_(std::move(narrow_phase)), case_(c), caches_(c.paths) {}
  Outcome query(std::size_t i) {
    const PosePair& pose = case_.poses[i];
    NarrowPhaseCache& cache = caches_[i % case_.paths];
    // Through the NarrowPhase interface, as the host calls it.
    NarrowPhase& narrow_phase = *narrow_phase_;
    if (cold_caches) cache = NarrowPhaseCache{};
    narrow_phase.query(case_.a, pose.X_WA, case_.b, pose.X_WB, cache, out_);
    const double d = out_.points[0].distance_m;
    return {d, d < 0.0, true, false};
  }
  const NarrowPhase* plugin() const override { return narrow_phase_.get(); }

 private:
  std::shared_ptr<NarrowPhase> narrow_phase_;
  const Case& case_;
  std::vector<NarrowPhaseCache> caches_;
  ContactManifold out_;
};

#ifdef CONTACTLAB_BENCH_HAVE_CCD

// libccd sees a posed shape through support and centre callbacks written here for the four shape
// kinds, equal footing with the SDK's supports: closed forms for sphere, box and cylinder; for a
// hull, a hill-climb over the hull's vertex adjacency above 32 vertices (FCL's rule), else a scan.
struct CcdBody {
  const Shape* shape = nullptr;
  Mat3 R_WG = Mat3::Identity();
  Vec3 p_WG = Vec3::Zero();
  Vec3 centre_W = Vec3::Zero();
};

Vec3 to_vec(const ccd_vec3_t* v) {
  return Vec3(v->v[0], v->v[1], v->v[2]);
}
void to_ccd(const Vec3& p, ccd_vec3_t* out) {
  out->v[0] = p.x();
  out->v[1] = p.y();
  out->v[2] = p.z();
}
double sign_of(double v) {
  return v < 0.0 ? -1.0 : 1.0;
}

void ccd_support_sphere(const void* object, const ccd_vec3_t* direction, ccd_vec3_t* out) {
  const CcdBody& body = *static_cast<const CcdBody*>(object);
  const Vec3 d_W = to_vec(direction);
  const double norm = d_W.norm();
  Vec3 p_W = body.p_WG;
  if (norm > 0.0) p_W += (body.shape->radius_m / norm) * d_W;
  to_ccd(p_W, out);
}

void ccd_support_box(const void* object, const ccd_vec3_t* direction, ccd_vec3_t* out) {
  const CcdBody& body = *static_cast<const CcdBody*>(object);
  const Vec3 d_G = body.R_WG.transpose() * to_vec(direction);
  const Vec3& h = body.shape->half_extents_m;
  const Vec3 corner_G(sign_of(d_G.x()) * h.x(), sign_of(d_G.y()) * h.y(), sign_of(d_G.z()) * h.z());
  to_ccd(body.R_WG * corner_G + body.p_WG, out);
}

void ccd_support_cylinder(const void* object, const ccd_vec3_t* direction, ccd_vec3_t* out) {
  const CcdBody& body = *static_cast<const CcdBody*>(object);
  const Vec3 d_G = body.R_WG.transpose() * to_vec(direction);
  const double radial = std::hypot(d_G.x(), d_G.y());
  const double r = body.shape->radius_m;
  Vec3 p_G(r, 0.0, sign_of(d_G.z()) * body.shape->half_length_m);
  if (radial > 0.0) {
    p_G.x() = r * d_G.x() / radial;
    p_G.y() = r * d_G.y() / radial;
  }
  to_ccd(body.R_WG * p_G + body.p_WG, out);
}

void ccd_support_hull(const void* object, const ccd_vec3_t* direction, ccd_vec3_t* out) {
  const CcdBody& body = *static_cast<const CcdBody*>(object);
  const Vec3 d_G = body.R_WG.transpose() * to_vec(direction);
  const ConvexHull& hull = *body.shape->hull;
  std::uint32_t best = 0;
  double best_dot = d_G.dot(hull.vertices[0]);
  if (hull.vertex_count > 32 && hull.neighbor_offsets != nullptr) {
    // On a convex polytope a vertex no neighbour of which is higher is a highest vertex.
    for (bool climbed = true; climbed;) {
      climbed = false;
      const std::uint32_t from = best;
      for (std::uint32_t k = hull.neighbor_offsets[from]; k < hull.neighbor_offsets[from + 1];
           ++k) {
        const std::uint32_t j = hull.neighbors[k];
        const double value = d_G.dot(hull.vertices[j]);
        if (value > best_dot) {
          best_dot = value;
          best = j;
          climbed = true;
        }
      }
    }
  } else {
    for (std::uint32_t i = 1; i < hull.vertex_count; ++i) {
      const double value = d_G.dot(hull.vertices[i]);
      if (value > best_dot) {
        best_dot = value;
        best = i;
      }
    }
  }
  to_ccd(body.R_WG * hull.vertices[best] + body.p_WG, out);
}

void ccd_centre(const void* object, ccd_vec3_t* centre) {
  to_ccd(static_cast<const CcdBody*>(object)->centre_W, centre);
}

ccd_support_fn ccd_support_for(ShapeType type) {
  switch (type) {
    case ShapeType::sphere:
      return ccd_support_sphere;
    case ShapeType::box:
      return ccd_support_box;
    case ShapeType::cylinder:
      return ccd_support_cylinder;
    case ShapeType::convex_hull:
      return ccd_support_hull;
    default:
      return nullptr;
  }
}

enum class CcdAlgorithm { gjk_epa, mpr };

class CcdRunner final : public RunnerBase<CcdRunner> {
 public:
  CcdRunner(const Case& c, CcdAlgorithm algorithm) : algorithm_(algorithm) {
    CCD_INIT(&ccd_);  // libccd's defaults (EPA/MPR tolerance 1e-4, no iteration limit)
    ccd_.support1 = ccd_support_for(c.a.type);
    ccd_.support2 = ccd_support_for(c.b.type);
    ccd_.center1 = ccd_centre;
    ccd_.center2 = ccd_centre;
    for (const PosePair& pose : c.poses) {
      a_.push_back(body(c.a, pose.X_WA));
      b_.push_back(body(c.b, pose.X_WB));
    }
  }
  static bool supports(const Case& c) {
    return ccd_support_for(c.a.type) != nullptr && ccd_support_for(c.b.type) != nullptr;
  }
  Outcome query(std::size_t i) {
    ccd_real_t depth = 0.0;
    ccd_vec3_t direction;
    ccd_vec3_t position;
    const int result =
        algorithm_ == CcdAlgorithm::gjk_epa
            ? ccdGJKPenetration(&a_[i], &b_[i], &ccd_, &depth, &direction, &position)
            : ccdMPRPenetration(&a_[i], &b_[i], &ccd_, &depth, &direction, &position);
    // 0: intersecting (depth filled), −1: separated (no distance computed), −2: out of memory.
    if (result == 0) return {-depth, true, false, false};
    return {std::numeric_limits<double>::quiet_NaN(), false, false, result != -1};
  }

 private:
  static CcdBody body(const Shape& shape, const Pose& X_WG) {
    CcdBody out;
    out.shape = &shape;
    out.R_WG = X_WG.R;
    out.p_WG = X_WG.p;
    out.centre_W = X_WG.transform_point(interior_point(shape));
    return out;
  }

  CcdAlgorithm algorithm_;
  ccd_t ccd_;
  std::vector<CcdBody> a_;
  std::vector<CcdBody> b_;
};

#endif  // CONTACTLAB_BENCH_HAVE_CCD

#ifdef CONTACTLAB_BENCH_HAVE_FCL

fcl::Transform3d fcl_transform(const Pose& X) {
  fcl::Transform3d out = fcl::Transform3d::Identity();
  out.linear() = X.R;
  out.translation() = X.p;
  return out;
}

// FCL versions of the four shape kinds (same frames: axes along z, centred on the origin).
template <class T>
T fcl_shape(const Shape& shape);
template <>
fcl::Sphered fcl_shape<fcl::Sphered>(const Shape& shape) {
  return fcl::Sphered(shape.radius_m);
}
template <>
fcl::Boxd fcl_shape<fcl::Boxd>(const Shape& shape) {
  return fcl::Boxd(2.0 * shape.half_extents_m);
}
template <>
fcl::Cylinderd fcl_shape<fcl::Cylinderd>(const Shape& shape) {
  return fcl::Cylinderd(shape.radius_m, 2.0 * shape.half_length_m);
}
template <>
fcl::Convexd fcl_shape<fcl::Convexd>(const Shape& shape) {
  const ConvexHull& hull = *shape.hull;
  auto vertices = std::make_shared<std::vector<fcl::Vector3d>>(hull.vertices,
                                                               hull.vertices + hull.vertex_count);
  auto faces = std::make_shared<std::vector<int>>();
  for (std::uint32_t t = 0; t < hull.triangle_count; ++t) {
    faces->push_back(3);
    for (int k = 0; k < 3; ++k) faces->push_back(static_cast<int>(hull.triangles[3 * t + k]));
  }
  return fcl::Convexd(vertices, static_cast<int>(hull.triangle_count), faces);
}

enum class FclQuery { signed_distance, intersect };

template <class ShapeA, class ShapeB>
class FclRunner final : public RunnerBase<FclRunner<ShapeA, ShapeB>> {
 public:
  FclRunner(const Case& c, FclQuery kind)
      : kind_(kind), a_(fcl_shape<ShapeA>(c.a)), b_(fcl_shape<ShapeB>(c.b)) {
    for (const PosePair& pose : c.poses) {
      X_WA_.push_back(fcl_transform(pose.X_WA));
      X_WB_.push_back(fcl_transform(pose.X_WB));
    }
    contacts_.reserve(8);
  }
  Outcome query(std::size_t i) {
    try {
      if (kind_ == FclQuery::signed_distance) {
        double distance = 0.0;
        fcl::Vector3d p1;
        fcl::Vector3d p2;
        solver_.shapeSignedDistance(a_, X_WA_[i], b_, X_WB_[i], &distance, &p1, &p2);
        return {distance, distance < 0.0, true, false};
      }
      contacts_.clear();
      if (solver_.shapeIntersect(a_, X_WA_[i], b_, X_WB_[i], &contacts_)) {
        const double depth = contacts_.empty() ? 0.0 : contacts_.front().penetration_depth;
        return {-depth, true, false, false};
      }
      return {std::numeric_limits<double>::quiet_NaN(), false, false, false};
    } catch (const std::exception&) {
      return {std::numeric_limits<double>::quiet_NaN(), false, false, true};
    }
  }

 private:
  FclQuery kind_;
  ShapeA a_;
  ShapeB b_;
  std::vector<fcl::Transform3d> X_WA_;
  std::vector<fcl::Transform3d> X_WB_;
  fcl::detail::GJKSolver_libccdd solver_;  // FCL's defaults
  std::vector<fcl::ContactPointd> contacts_;
};

#endif  // CONTACTLAB_BENCH_HAVE_FCL

// ----------------------------------------------------------------------------------------------
// Registration

template <class R>
void time_queries(benchmark::State& state, R& runner, std::size_t pose_count) {
  std::size_t i = 0;
  std::int64_t failures = 0;
  for (auto _ : state) {
    const Outcome outcome = runner.query(i);
    benchmark::DoNotOptimize(outcome.distance_m);
    failures += outcome.failed ? 1 : 0;
    if (++i == pose_count) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["poses"] = static_cast<double>(pose_count);
  if (failures > 0) state.counters["failures"] = static_cast<double>(failures);
}

struct Entry {
  std::string method;
  const Case* c = nullptr;
  Runner* runner = nullptr;
};

struct Bench {
  std::vector<std::unique_ptr<Case>> cases;
  std::vector<std::unique_ptr<Runner>> runners;
  std::vector<Entry> entries;
  bool default_repetitions = true;

  template <class R>
  void add(const std::string& method, const Case& c, std::unique_ptr<R> runner) {
    R* raw = runner.get();
    runners.push_back(std::move(runner));
    entries.push_back({method, &c, raw});
    const std::size_t pose_count = c.poses.size();
    auto* registered = benchmark::RegisterBenchmark(
        (c.name() + "/" + method).c_str(),
        [raw, pose_count](benchmark::State& state) { time_queries(state, *raw, pose_count); });
    registered->Unit(benchmark::kNanosecond);
    if (default_repetitions) registered->Repetitions(5)->ReportAggregatesOnly(true);
  }
};

struct PluginMethod {
  std::string name;
  std::shared_ptr<NarrowPhase> narrow_phase;
};

template <class T>
void add_plugin_variants(std::vector<PluginMethod>& methods, const std::string& name) {
  // A `precision` choice (the MPR plugin) is benchmarked once per choice; the default choice
  // keeps the plain name.
  const ParameterSchema schema = T::schema();
  bool has_precision = false;
  for (const ParameterSpec& spec : schema) {
    if (spec.name != "precision" || spec.type != ParameterType::choice) continue;
    has_precision = true;
    const std::string fallback = std::get<std::string>(spec.default_value);
    for (const std::string& choice : spec.choices) {
      const auto params = ParameterValues::defaults(schema, {{"precision", choice}});
      methods.push_back(
          {choice == fallback ? name : name + "_" + choice, std::make_shared<T>(params)});
    }
  }
  if (!has_precision)
    methods.push_back({name, std::make_shared<T>(ParameterValues::defaults(schema))});
  // A plugin whose default manifold has several points (primitive: 4 for flat contact) also runs
  // with one point, as the general plugins do by default: the like-for-like comparison.
  for (const ParameterSpec& spec : schema) {
    if (spec.name != "manifold_points" || spec.type != ParameterType::integer) continue;
    if (std::get<std::int64_t>(spec.default_value) <= 1) continue;
    const auto params = ParameterValues::defaults(schema, {{"manifold_points", std::int64_t{1}}});
    methods.push_back({name + "_1pt", std::make_shared<T>(params)});
  }
  // MPR also at libccd's default tolerance (1e-4; the shapes are 1 m, so relative = absolute):
  // the same termination accuracy as the peer it is compared with.
  if (name == "mpr") {
    const auto params = ParameterValues::defaults(schema, {{"tolerance", 1e-4}});
    methods.push_back({name + "_tol1e-4", std::make_shared<T>(params)});
  }
}

#ifdef CONTACTLAB_BENCH_HAVE_FCL
template <class ShapeA, class ShapeB>
void add_fcl(Bench& bench, const Case& c) {
  bench.add("fcl_signed_distance", c,
            std::make_unique<FclRunner<ShapeA, ShapeB>>(c, FclQuery::signed_distance));
  bench.add("fcl_intersect", c,
            std::make_unique<FclRunner<ShapeA, ShapeB>>(c, FclQuery::intersect));
}

void add_fcl_for_case(Bench& bench, const Case& c) {
  using T = ShapeType;
  const T a = c.a.type;
  const T b = c.b.type;
  if (a == T::sphere && b == T::sphere) return add_fcl<fcl::Sphered, fcl::Sphered>(bench, c);
  if (a == T::sphere && b == T::box) return add_fcl<fcl::Sphered, fcl::Boxd>(bench, c);
  if (a == T::box && b == T::box) return add_fcl<fcl::Boxd, fcl::Boxd>(bench, c);
  if (a == T::cylinder && b == T::cylinder) {
    return add_fcl<fcl::Cylinderd, fcl::Cylinderd>(bench, c);
  }
  if (a == T::cylinder && b == T::box) return add_fcl<fcl::Cylinderd, fcl::Boxd>(bench, c);
  if (a == T::convex_hull && b == T::convex_hull) {
    return add_fcl<fcl::Convexd, fcl::Convexd>(bench, c);
  }
  if (a == T::box && b == T::convex_hull) return add_fcl<fcl::Boxd, fcl::Convexd>(bench, c);
  std::fprintf(stderr, "note: no FCL shapes for %s\n", c.pair.c_str());
}
#endif

// ----------------------------------------------------------------------------------------------
// Sanity pass: every method answers every pose once, before timing.

std::string format_metres(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

void check_case(const Case& c, const std::vector<const Entry*>& entries) {
  std::string accuracy;
  std::string statistics;
  for (const Entry* entry : entries) {
    const std::string label = c.name() + "/" + entry->method;
    const NarrowPhase* plugin = entry->runner->plugin();
    const NarrowPhaseStatistics before = plugin ? plugin->statistics() : NarrowPhaseStatistics{};
    std::size_t disagreements = 0;
    std::size_t failures = 0;
    double max_error_m = 0.0;  // separated: |d − s|; overlapping: depth beyond its bound |s|
    bool measured = false;     // some pose gave a value to compare
    for (std::size_t i = 0; i < c.poses.size(); ++i) {
      const double s = c.poses[i].s_m;
      Outcome outcome;
      try {
        outcome = entry->runner->check_query(i);
      } catch (const std::exception& e) {
        outcome.failed = true;
        if (failures == 0)
          std::fprintf(stderr, "warning: %s: pose %zu threw: %s\n", label.c_str(), i, e.what());
      }
      if (outcome.failed) {
        ++failures;
        continue;
      }
      if (outcome.overlapping != c.overlapping) {
        if (++disagreements <= 3) {
          std::fprintf(
              stderr, "warning: %s: pose %zu: expected %s (%s %s m), got %s (distance %s)\n",
              label.c_str(), i, c.overlapping ? "overlapping" : "separated",
              c.overlapping ? "depth along n" : "distance", format_metres(std::abs(s)).c_str(),
              outcome.overlapping ? "overlapping" : "separated",
              outcome.has_distance || outcome.overlapping
                  ? (format_metres(outcome.distance_m) + " m").c_str()
                  : "not computed");
        }
        continue;
      }
      if (c.overlapping) {
        max_error_m = std::max(max_error_m, s - outcome.distance_m);  // depth − |s| when > 0
        measured = true;
      } else if (outcome.has_distance) {
        max_error_m = std::max(max_error_m, std::abs(outcome.distance_m - s));
        measured = true;
      }
    }
    if (disagreements > 0) {
      std::fprintf(stderr,
                   "warning: %s: sign disagrees with the constructed pose on %zu of %zu poses\n",
                   label.c_str(), disagreements, c.poses.size());
    }
    if (failures > 0) {
      std::fprintf(stderr, "warning: %s: failed (exception or error code) on %zu of %zu poses\n",
                   label.c_str(), failures, c.poses.size());
    }
    // "n/a": a boolean answer for separated poses (libccd, FCL shapeIntersect).
    accuracy += " " + entry->method + "=" + (measured ? format_metres(max_error_m) : "n/a");
    if (plugin) {
      // The plugin's own counters over this pass (one cold query per pose).
      const NarrowPhaseStatistics after = plugin->statistics();
      const std::int64_t queries = after.queries - before.queries;
      if (queries > 0) {
        // A second pass over the same poses with the caches the first one left (what the timed
        // loop sees without --cold).
        for (std::size_t i = 0; i < c.poses.size(); ++i) {
          try {
            entry->runner->check_query(i);
          } catch (const std::exception&) {
          }
        }
        const NarrowPhaseStatistics again = plugin->statistics();
        char text[200];
        std::snprintf(
            text, sizeof text,
            " %s(mean iterations %.1f, warm %.1f, limit hits %lld, degenerate %lld)",
            entry->method.c_str(),
            static_cast<double>(after.total_iterations - before.total_iterations) /
                static_cast<double>(queries),
            static_cast<double>(again.total_iterations - after.total_iterations) /
                static_cast<double>(std::max<std::int64_t>(1, again.queries - after.queries)),
            static_cast<long long>(after.iteration_limit_hits - before.iteration_limit_hits),
            static_cast<long long>(after.degenerate_cases - before.degenerate_cases));
        statistics += text;
      }
    }
  }
  std::fprintf(stderr, "check %s: %s:%s\n", c.name().c_str(),
               c.overlapping ? "max depth beyond the constructed bound [m]" : "max |d - exact| [m]",
               accuracy.c_str());
  if (!statistics.empty())
    std::fprintf(stderr, "stats %s:%s\n", c.name().c_str(), statistics.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Bench bench;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--benchmark_repetitions", 23) == 0)
      bench.default_repetitions = false;
  }
  benchmark::Initialize(&argc, argv);
  std::size_t pose_count = 1024;
  std::size_t moving_steps = 0;  // --moving: steps per path (0: one fixed pose per slot)
  std::uint64_t seed = 1;
  PoseSpec spec;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--poses=", 8) == 0) {
      pose_count = std::max<std::size_t>(1, std::strtoull(argv[i] + 8, nullptr, 10));
    } else if (std::strncmp(argv[i], "--seed=", 7) == 0) {
      seed = std::strtoull(argv[i] + 7, nullptr, 10);
    } else if (std::strcmp(argv[i], "--cold") == 0) {
      cold_caches = true;
    } else if (std::strcmp(argv[i], "--moving") == 0) {
      moving_steps = 32;
    } else if (std::strncmp(argv[i], "--moving=", 9) == 0) {
      moving_steps = std::strtoull(argv[i] + 9, nullptr, 10);
      if (moving_steps < 2) {
        std::fprintf(stderr, "error: --moving=K needs K >= 2 steps per path, got %s\n", argv[i]);
        return 2;
      }
    } else if (std::strcmp(argv[i], "--faces") == 0) {
      spec.faces = true;
    } else if (std::strcmp(argv[i], "--near_touching") == 0) {
      spec.gap_m = 1e-9 * kSize_m;
      spec.min_depth_m = 1e-9 * kSize_m;
      spec.max_depth_m = 1e-8 * kSize_m;
    } else {
      std::fprintf(stderr,
                   "unknown argument %s\nusage: %s [--poses=1024] [--seed=1] [--near_touching] "
                   "[--faces] [--cold | --moving[=32]] [Google Benchmark flags]\n",
                   argv[i], argv[0]);
      return 2;
    }
  }
  if (cold_caches && moving_steps > 0) {
    std::fprintf(stderr,
                 "error: --cold and --moving exclude each other (a cold query ignores "
                 "the previous step)\n");
    return 2;
  }

  // Shapes: all of size kSize_m = 1 m.
  const auto hull32_a = sphere_point_hull(32, seed * 1000 + 1);
  const auto hull32_b = sphere_point_hull(32, seed * 1000 + 2);
  const auto hull256_a = sphere_point_hull(256, seed * 1000 + 3);
  const auto hull256_b = sphere_point_hull(256, seed * 1000 + 4);
  const Shape sphere = Shape::sphere(0.5 * kSize_m);
  const Shape box = Shape::box(kSize_m * Vec3(0.5, 0.35, 0.25));
  const Shape cylinder = Shape::cylinder(0.3 * kSize_m, kSize_m);
  const std::vector<std::tuple<std::string, Shape, Shape>> pairs = {
      {"sphere-sphere", sphere, sphere},
      {"sphere-box", sphere, box},
      {"box-box", box, box},
      {"cylinder-cylinder", cylinder, cylinder},
      {"cylinder-box", cylinder, box},
      {"hull32-hull32", Shape::convex_hull(&hull32_a->hull), Shape::convex_hull(&hull32_b->hull)},
      {"hull256-hull256", Shape::convex_hull(&hull256_a->hull),
       Shape::convex_hull(&hull256_b->hull)},
      {"box-hull32", box, Shape::convex_hull(&hull32_b->hull)},
  };

  std::vector<PluginMethod> plugins;
  add_plugin_variants<plugins::PrimitiveNarrowPhase>(plugins, "primitive");
#ifdef CONTACTLAB_BENCH_HAVE_GJK_EPA
  add_plugin_variants<CONTACTLAB_BENCH_GJK_EPA_CLASS>(plugins, "gjk_epa");
#else
  std::fprintf(stderr, "note: the GJK/EPA plugin was not in the build, skipped\n");
#endif
#ifdef CONTACTLAB_BENCH_HAVE_MPR
  add_plugin_variants<CONTACTLAB_BENCH_MPR_CLASS>(plugins, "mpr");
#else
  std::fprintf(stderr, "note: the MPR plugin was not in the build, skipped\n");
#endif
#ifndef CONTACTLAB_BENCH_HAVE_CCD
  std::fprintf(stderr, "note: libccd was not found at configure time, skipped\n");
#endif
#ifndef CONTACTLAB_BENCH_HAVE_FCL
  std::fprintf(stderr, "note: FCL was not found at configure time, skipped\n");
#endif

  std::uint64_t case_seed = seed * 7919;
  for (const auto& [pair, a, b] : pairs) {
    for (const bool overlapping : {true, false}) {
      auto c = std::make_unique<Case>();
      c->pair = pair;
      c->overlapping = overlapping;
      c->a = a;
      c->b = b;
      c->poses = make_poses(a, b, overlapping, spec, pose_count, moving_steps, ++case_seed);
      c->paths = pose_count;
      const Case& added = *c;
      bench.cases.push_back(std::move(c));
      for (const PluginMethod& plugin : plugins) {
        if (!plugin.narrow_phase->supports(a.type, b.type)) continue;
        bench.add(plugin.name, added, std::make_unique<PluginRunner>(plugin.narrow_phase, added));
      }
#ifdef CONTACTLAB_BENCH_HAVE_FCL
      add_fcl_for_case(bench, added);
#endif
#ifdef CONTACTLAB_BENCH_HAVE_CCD
      if (CcdRunner::supports(added)) {
        bench.add("libccd_gjk", added, std::make_unique<CcdRunner>(added, CcdAlgorithm::gjk_epa));
        bench.add("libccd_mpr", added, std::make_unique<CcdRunner>(added, CcdAlgorithm::mpr));
      }
#endif
    }
  }

  for (const auto& c : bench.cases) {
    std::vector<const Entry*> entries;
    for (const Entry& entry : bench.entries) {
      if (entry.c == c.get()) entries.push_back(&entry);
    }
    check_case(*c, entries);
  }
  std::fflush(stderr);

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
