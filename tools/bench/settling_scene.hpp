// bench_settling's scene and measures, shared by its engines (contactlab in settling.cpp, MuJoCo
// in settling_mujoco.cpp, Bullet in settling_bullet.cpp): the same spheres, box, materials, and
// the same geometric measures taken from the sphere centres every engine reports.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace contactlab::bench {

// Dry wood (configs/materials.yaml, Modia3D's palette): solid and the wood–wood pair.
constexpr double density = 700.0, youngs_modulus = 1.1e10, poisson = 0.4;
constexpr double restitution = 0.6, friction = 0.3, gravity = 9.81;

/// A number as YAML or XML takes it, exactly.
inline std::string num(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

struct SceneSpec {
  int n = 1000;
  double radius = 0.015;
  double duration = 0.1, output = 0.01;
  unsigned seed = 1;
  // MuJoCo 2.2 sizes its contact and constraint arrays at load time (nconmax, njmax; nstack, an
  // int count of mjtNums, defaults to a formula quadratic in njmax that overflows past
  // njmax ≈ 9,000 here).
  long mujoco_nconmax = 0, mujoco_njmax = 0, mujoco_nstack = 0;
  std::string mujoco_cone = "elliptic";
  // Derived: lattice and box.
  int per_side = 10;
  double half_width = 0.0;
  std::vector<std::array<double, 3>> positions;

  void build() {
    per_side = static_cast<int>(std::ceil(std::sqrt(n / 10.0)));
    const double spacing = 2.1 * radius;
    // The box is one radius wider than the lattice: the walls are 0.55 r from the outer spheres.
    half_width = 0.5 * (per_side * spacing + radius);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> jitter(-0.04 * radius, 0.04 * radius);
    positions.clear();
    for (int i = 0; i < n; ++i) {
      const int layer = i / (per_side * per_side), cell = i % (per_side * per_side);
      const int ix = cell % per_side, iy = cell / per_side;
      positions.push_back({(ix - 0.5 * (per_side - 1)) * spacing + jitter(rng),
                           (iy - 0.5 * (per_side - 1)) * spacing + jitter(rng),
                           1.1 * radius + layer * spacing});
    }
  }
  double mass() const { return density * 4.0 / 3.0 * M_PI * radius * radius * radius; }
  double inertia() const { return 0.4 * mass() * radius * radius; }
};

/// What every engine reports at an output time.
struct Sample {
  double t = 0.0;
  double mean_height = 0.0;
  double kinetic = 0.0;
  /// The largest overlap of two spheres or of a sphere and the box, from the centres [m].
  double penetration = 0.0;
  /// Pairs (sphere–sphere, sphere–floor or wall) closer than 1 % of r, from the centres.
  long touching = 0;
  /// The contacts the engine itself counts (contactlab: contact points; MuJoCo: ncon; Bullet:
  /// manifold points).
  long engine_contacts = 0;
};

/// Fills the geometric measures of `s` from the centres (x, y, z per sphere): spheres binned on
/// a grid of cell 2r, so that each sphere meets only the 27 cells around its own.
inline void measure_centres(const SceneSpec& spec, const std::vector<std::array<double, 3>>& c,
                            Sample& s) {
  const double r = spec.radius, cell = 2.0 * r, near = 0.01 * r;
  auto key = [](long i, long j, long k) {
    return (static_cast<std::uint64_t>(i & 0x1fffff) << 42) |
           (static_cast<std::uint64_t>(j & 0x1fffff) << 21) |
           static_cast<std::uint64_t>(k & 0x1fffff);
  };
  std::unordered_map<std::uint64_t, std::vector<int>> grid;
  grid.reserve(c.size());
  std::vector<std::array<long, 3>> cells(c.size());
  double height = 0.0, deepest = 0.0;
  long touching = 0;
  auto overlap = [&](double gap) {
    deepest = std::max(deepest, -gap);
    if (gap < near) ++touching;
  };
  for (std::size_t i = 0; i < c.size(); ++i) {
    for (int d = 0; d < 3; ++d) cells[i][d] = static_cast<long>(std::floor(c[i][d] / cell));
    grid[key(cells[i][0], cells[i][1], cells[i][2])].push_back(static_cast<int>(i));
    height += c[i][2];
    overlap(c[i][2] - r);                              // floor
    overlap(spec.half_width - std::abs(c[i][0]) - r);  // walls at ±w in x
    overlap(spec.half_width - std::abs(c[i][1]) - r);  // and in y
  }
  for (std::size_t i = 0; i < c.size(); ++i)
    for (long di = -1; di <= 1; ++di)
      for (long dj = -1; dj <= 1; ++dj)
        for (long dk = -1; dk <= 1; ++dk) {
          const auto found = grid.find(key(cells[i][0] + di, cells[i][1] + dj, cells[i][2] + dk));
          if (found == grid.end()) continue;
          for (int j : found->second) {
            if (j <= static_cast<int>(i)) continue;
            const double dx = c[i][0] - c[j][0], dy = c[i][1] - c[j][1], dz = c[i][2] - c[j][2];
            overlap(std::sqrt(dx * dx + dy * dy + dz * dz) - 2.0 * r);
          }
        }
  s.mean_height = c.empty() ? 0.0 : height / static_cast<double>(c.size());
  s.penetration = deepest;
  s.touching = touching;
}

struct EngineRun {
  std::string name;
  std::string family;   ///< "contactlab", "MuJoCo", "Bullet": ratios are taken against the peers
  double step_s = 0.0;  ///< 0: adaptive
  double simulated_s = 0.0, wall_s = 0.0;
  long long steps = 0, rhs = 0, jacobians = 0, events = 0, restarts = 0;
  std::string status = "complete";
  std::vector<Sample> samples;
  double per_simulated_second() const {
    return simulated_s > 0.0 ? wall_s / simulated_s : INFINITY;
  }
  /// The samples of the last `window` s of the run (the settled pile when the run is long enough).
  template <class F>
  void over_last(double window, F&& f) const {
    if (samples.empty()) return;
    const double from = samples.back().t - window - 1e-9;
    for (const Sample& s : samples)
      if (s.t >= from) f(s);
  }
};

/// settling_mujoco.cpp (built when MuJoCo is found): solver "" is MuJoCo's default (Newton);
/// step_s 0 its default time step.
EngineRun run_mujoco(const SceneSpec& spec, const std::string& solver, double step_s,
                     double budget_s);

}  // namespace contactlab::bench
