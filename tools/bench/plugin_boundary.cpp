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

double seconds(const ForceLaw& law, long calls, double& checksum) {
  const auto start = std::chrono::steady_clock::now();
  checksum += sweep(law, calls);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
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
  const ParameterValues params = ParameterValues::defaults(info->schema);
  auto loaded = registry.create<ForceLaw>(*info, params);
  const plugins::HertzForceLaw linked(params);

  double checksum = 0.0;
  // Warm up both; then alternate them within every repetition so that clock-frequency changes and
  // other load hit both alike, and take medians of the times and of the per-repetition ratios.
  seconds(*loaded, calls / 10, checksum);
  seconds(linked, calls / 10, checksum);
  std::vector<double> static_times, plugin_times, ratios;
  for (int r = 0; r < repetitions; ++r) {
    const bool static_first = r % 2 == 0;
    const double first =
        seconds(static_first ? static_cast<const ForceLaw&>(linked) : *loaded, calls, checksum);
    const double second =
        seconds(static_first ? *loaded : static_cast<const ForceLaw&>(linked), calls, checksum);
    static_times.push_back(static_first ? first : second);
    plugin_times.push_back(static_first ? second : first);
    ratios.push_back(plugin_times.back() / static_times.back());
  }
  const double t_static = median(static_times);
  const double t_plugin = median(plugin_times);
  std::printf("plugin boundary: hertz normal_force, N = %ld calls, median of %d repetitions\n",
              calls, repetitions);
  std::printf("  %-28s %10.3f ms  %7.3f ns/call\n", "linked statically", t_static * 1e3,
              t_static / calls * 1e9);
  std::printf("  %-28s %10.3f ms  %7.3f ns/call\n", "through loaded plugin", t_plugin * 1e3,
              t_plugin / calls * 1e9);
  std::printf(
      "  ratio plugin / static = %.3f (median of per-repetition ratios; target <= 1.05)"
      "   [checksum %.6g]\n",
      median(ratios), checksum);
  return 0;
}
