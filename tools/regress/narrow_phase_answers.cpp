// Every narrow-phase plugin's answers on fixed pose sets, written bit for bit (hex floats), so that
// a restructuring can be shown to leave them unchanged: tools/regress/check_unchanged.sh dumps a
// base commit's answers and the work tree's and compares them (compare_answers.py).
//
// The pose sets are the narrow-phase benchmark's (tools/bench/narrow_phase_poses.hpp): its eight
// shape pairs in overlapping and separated poses, by default and with --faces, plus every ordered
// pair of the other shapes (ellipsoid, cone, frustum, capsule, beam, smoothed box and cylinder,
// a half-space as A) with fewer poses. Three modes, as the benchmark's: cold (an empty cache each
// query), warm (the pose's second query, from the cache its first left) and moving (closed paths
// visited step by step, one cache a path). Every plugin found in the plugin search path answers
// with its default parameters and its variants: each choice of a choice parameter, one manifold
// point where the default has more, and MPR at libccd's tolerance (1e-4), as the benchmark's.
//
// A line is `mode case method pose count` and, per manifold point, the distance, the normal and
// both witness points; a block ends with the plugin's counters for it. Usage:
//   narrow_phase_answers [--quick] > answers.txt
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "../bench/narrow_phase_poses.hpp"
#include "contactlab/core/registry.hpp"
#include "contactlab/narrow_phase.hpp"

namespace {

using namespace contactlab;
using namespace contactlab::bench;

struct Method {
  std::string name;
  std::shared_ptr<NarrowPhase> narrow_phase;
};

std::vector<Method> methods_of(core::PluginRegistry& registry, const core::PluginInfo& info) {
  std::vector<Method> out;
  auto add = [&](const std::string& name, const ParameterValues& params) {
    out.push_back({name, registry.create<NarrowPhase>(info, params)});
  };
  add(info.name, ParameterValues::defaults(info.schema));
  for (const ParameterSpec& spec : info.schema) {
    if (spec.type == ParameterType::choice) {
      const std::string fallback = std::get<std::string>(spec.default_value);
      for (const std::string& choice : spec.choices) {
        if (choice == fallback) continue;
        add(info.name + "_" + spec.name + "=" + choice,
            ParameterValues::defaults(info.schema, {{spec.name, choice}}));
      }
    } else if (spec.name == "manifold_points" && spec.type == ParameterType::integer &&
               std::get<std::int64_t>(spec.default_value) > 1) {
      add(info.name + "_manifold_points=1",
          ParameterValues::defaults(info.schema, {{spec.name, std::int64_t{1}}}));
    } else if (spec.name == "tolerance" && spec.type == ParameterType::real) {
      add(info.name + "_tolerance=1e-4",
          ParameterValues::defaults(info.schema, {{spec.name, 1e-4}}));
    }
  }
  return out;
}

void write_answer(const char* mode, const std::string& label, const std::string& method,
                  std::size_t pose, const ContactManifold& m) {
  std::printf("%s %s %s %zu %d", mode, label.c_str(), method.c_str(), pose,
              static_cast<int>(m.count));
  for (int k = 0; k < m.count && k < max_manifold_points; ++k) {
    const ContactGeometry& g = m.points[k];
    std::printf(" %a %a %a %a %a %a %a %a %a %a", g.distance_m, g.normal_W.x(), g.normal_W.y(),
                g.normal_W.z(), g.point_a_W.x(), g.point_a_W.y(), g.point_a_W.z(), g.point_b_W.x(),
                g.point_b_W.y(), g.point_b_W.z());
  }
  std::printf("\n");
}

struct Case {
  std::string pair;
  Shape a, b;
  std::size_t poses = 0;  // cold and warm poses; moving: `paths` paths of `steps` steps
  std::size_t paths = 0, steps = 0;
};

/// One mode of one case for one method: the answers, then the method's counters over them.
void dump(const char* mode, const std::string& label, Method& method, const Shape& a,
          const Shape& b, const std::vector<PosePair>& poses, std::size_t paths, bool warm) {
  NarrowPhase& narrow_phase = *method.narrow_phase;
  const NarrowPhaseStatistics before = narrow_phase.statistics();
  std::vector<NarrowPhaseCache> caches(paths);
  ContactManifold out;
  for (std::size_t i = 0; i < poses.size(); ++i) {
    NarrowPhaseCache& cache = caches[i % paths];
    if (std::strcmp(mode, "cold") == 0 || warm) cache = NarrowPhaseCache{};
    try {
      out = ContactManifold{};
      narrow_phase.query(a, poses[i].X_WA, b, poses[i].X_WB, cache, out);
      if (warm) {
        out = ContactManifold{};
        narrow_phase.query(a, poses[i].X_WA, b, poses[i].X_WB, cache, out);
      }
      write_answer(mode, label, method.name, i, out);
    } catch (const std::exception& e) {
      std::printf("%s %s %s %zu error: %s\n", mode, label.c_str(), method.name.c_str(), i,
                  e.what());
    }
  }
  const NarrowPhaseStatistics after = narrow_phase.statistics();
  std::printf("%s %s %s counters queries %" PRId64 " iterations %" PRId64 " limit_hits %" PRId64
              " degenerate %" PRId64 "\n",
              mode, label.c_str(), method.name.c_str(), after.queries - before.queries,
              after.total_iterations - before.total_iterations,
              after.iteration_limit_hits - before.iteration_limit_hits,
              after.degenerate_cases - before.degenerate_cases);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else {
      std::fprintf(stderr, "usage: %s [--quick] > answers.txt\n", argv[0]);
      return 2;
    }
  }
  try {
    core::PluginRegistry registry;
    std::vector<Method> methods;
    for (const core::PluginInfo& info : registry.plugins()) {
      if (info.kind != PluginKind::narrow_phase) continue;
      for (Method& m : methods_of(registry, info)) methods.push_back(std::move(m));
    }
    for (const core::LibraryProblem& problem : registry.problems())
      std::fprintf(stderr, "warning: %s: %s\n", problem.library_path.c_str(),
                   problem.reason.c_str());

    // The benchmark's shapes (narrow_phase.cpp, seed 1) and the rest of the shape library.
    const auto hull32_a = sphere_point_hull(32, 1001);
    const auto hull32_b = sphere_point_hull(32, 1002);
    const auto hull256_a = sphere_point_hull(256, 1003);
    const auto hull256_b = sphere_point_hull(256, 1004);
    const Shape sphere = Shape::sphere(0.5 * kSize_m);
    const Shape box = Shape::box(kSize_m * Vec3(0.5, 0.35, 0.25));
    const Shape cylinder = Shape::cylinder(0.3 * kSize_m, kSize_m);
    const Shape hull32 = Shape::convex_hull(&hull32_a->hull);
    const Shape hull32b = Shape::convex_hull(&hull32_b->hull);
    const Shape hull256 = Shape::convex_hull(&hull256_a->hull);
    const Shape hull256b = Shape::convex_hull(&hull256_b->hull);
    const std::size_t bench_poses = quick ? 16 : 128;
    std::vector<Case> cases = {
        {"sphere-sphere", sphere, sphere},
        {"sphere-box", sphere, box},
        {"box-box", box, box},
        {"cylinder-cylinder", cylinder, cylinder},
        {"cylinder-box", cylinder, box},
        {"hull32-hull32", hull32, hull32b},
        {"hull256-hull256", hull256, hull256b},
        {"box-hull32", box, hull32b},
    };
    for (Case& c : cases) {
      c.poses = bench_poses;
      c.paths = quick ? 4 : 16;
      c.steps = quick ? 8 : 16;
    }
    Shape smooth_box = box;
    smooth_box.smoothing_radius_m = 0.02 * kSize_m;
    Shape smooth_cylinder = cylinder;
    smooth_cylinder.smoothing_radius_m = 0.02 * kSize_m;
    const std::vector<std::pair<std::string, Shape>> others = {
        {"sphere", sphere},
        {"box", box},
        {"smooth_box", smooth_box},
        {"ellipsoid", Shape::ellipsoid(kSize_m * Vec3(0.5, 0.3, 0.2))},
        {"cylinder", cylinder},
        {"smooth_cylinder", smooth_cylinder},
        {"cone", Shape::cone(0.4 * kSize_m, 0.0, kSize_m)},
        {"frustum", Shape::cone(0.4 * kSize_m, 0.2 * kSize_m, kSize_m)},
        {"capsule", Shape::capsule(0.2 * kSize_m, 0.6 * kSize_m)},
        {"beam", Shape::beam(kSize_m, 0.3 * kSize_m, 0.1 * kSize_m)},
        {"hull32", hull32},
    };
    const std::size_t other_poses = quick ? 4 : 16;
    auto add_other = [&](const std::string& pair, const Shape& a, const Shape& b) {
      cases.push_back({"all:" + pair, a, b, other_poses, std::size_t{quick ? 2u : 4u},
                       std::size_t{quick ? 4u : 8u}});
    };
    for (const auto& [name_a, a] : others) {
      for (const auto& [name_b, b] : others) add_other(name_a + "-" + name_b, a, b);
    }
    const Shape floor = Shape::half_space(Vec3(0.0, 0.0, 1.0));
    for (const auto& [name_b, b] : others) add_other("half_space-" + name_b, floor, b);

    std::uint64_t case_seed = 7919;
    for (const Case& c : cases) {
      for (const bool faces : {false, true}) {
        for (const bool overlapping : {true, false}) {
          PoseSpec spec;
          spec.faces = faces;
          ++case_seed;
          const auto still = make_poses(c.a, c.b, overlapping, spec, c.poses, 0, case_seed);
          const auto moving =
              make_poses(c.a, c.b, overlapping, spec, c.paths, c.steps, case_seed + 500000);
          const std::string label = c.pair + (faces ? "/faces" : "/default") +
                                    (overlapping ? "/overlapping" : "/separated");
          for (Method& method : methods) {
            if (!method.narrow_phase->supports(c.a.type, c.b.type)) continue;
            dump("cold", label, method, c.a, c.b, still, still.size(), false);
            dump("warm", label, method, c.a, c.b, still, still.size(), true);
            dump("moving", label, method, c.a, c.b, moving, c.paths, false);
          }
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
