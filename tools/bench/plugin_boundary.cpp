// Cost of the plugin boundary: the same Hertz force-law evaluation called N = 10^7 times through
// an object made by a dynamically loaded plugin and through the same class linked statically.
// Reports the median over repetitions and the ratio plugin / static (target ≤ 1.05).
//
// Usage: build/bin/bench_plugin_boundary [calls=10000000] [repetitions=9]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "contactlab/core/registry.hpp"
#include "hertz_force_law.hpp"

namespace {

using namespace contactlab;

// Both variants go through the ForceLaw interface, as the simulation does. noinline keeps the
// compiler from devirtualising the static one, which would measure inlining, not the boundary.
__attribute__((noinline)) double sweep(const ForceLaw& law, long calls) {
  ContactKinematics contact;
  contact.effective_modulus_Pa = 1.1e11;
  contact.effective_radius_m = 0.05;
  const ContactState state;
  double sum = 0.0;
  for (long i = 0; i < calls; ++i) {
    contact.penetration_m = 1e-6 * static_cast<double>(i & 1023);
    sum += law.normal_force(contact, state);
  }
  return sum;
}

double median_seconds(const ForceLaw& law, long calls, int repetitions, double& checksum) {
  std::vector<double> times;
  for (int r = 0; r < repetitions; ++r) {
    const auto start = std::chrono::steady_clock::now();
    checksum += sweep(law, calls);
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::atol(argv[1]) : 10000000L;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 9;

  core::PluginRegistry registry;
  const core::PluginInfo* info = registry.find(PluginKind::force_law, "hertz");
  if (!info) {
    std::fprintf(stderr, "the hertz plugin was not found\n");
    return 1;
  }
  std::map<std::string, ParameterValue> values{{"stiffness_scale", 1.0}};
  const ParameterValues params(values);
  auto loaded = registry.create<ForceLaw>(*info, params);
  const plugins::HertzForceLaw linked(params);

  double checksum = 0.0;
  // Warm up both, then alternate the order so neither always runs first.
  median_seconds(*loaded, calls / 10, 1, checksum);
  median_seconds(linked, calls / 10, 1, checksum);
  const double t_static = median_seconds(linked, calls, repetitions, checksum);
  const double t_plugin = median_seconds(*loaded, calls, repetitions, checksum);

  std::printf("plugin boundary: hertz normal_force, N = %ld calls, median of %d repetitions\n",
              calls, repetitions);
  std::printf("  %-28s %10.3f ms  %7.3f ns/call\n", "linked statically", t_static * 1e3,
              t_static / calls * 1e9);
  std::printf("  %-28s %10.3f ms  %7.3f ns/call\n", "through loaded plugin", t_plugin * 1e3,
              t_plugin / calls * 1e9);
  std::printf("  ratio plugin / static = %.3f (target <= 1.05)   [checksum %.6g]\n",
              t_plugin / t_static, checksum);
  return 0;
}
