// `contactlab view RUN_DIR` (and `run --view`): RUN_DIR/replay.html, one self-contained page that
// replays the run in a browser — the geometries as their true shapes, the bodies moving along
// trajectory.csv, the contacts of contacts.csv — with three.js inlined (nothing is fetched when it
// opens). The page's script is core/app/replay/replay.js, bundled with three.js by esbuild at
// build time into <share>/contactlab/replay.js.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "contactlab/core/registry.hpp"

namespace contactlab::core {

struct ReplayOptions {
  /// At most this many frames go into the page: a longer trajectory keeps every k-th output time
  /// (and the last), and the page says so.
  std::size_t max_frames = 2000;
  int segments = 32;  ///< tessellation of round surfaces (TessellationOptions::segments)
};

struct ReplayOutcome {
  std::filesystem::path file;  ///< RUN_DIR/replay.html
  std::size_t frames = 0;      ///< frames in the page
  std::size_t output_times = 0;
  std::size_t stride = 1;  ///< every stride-th output time was kept
  std::string status;      ///< the run's summary.json status
  std::size_t bytes = 0;
};

/// Where the page's template and script are, first found of: $CONTACTLAB_REPLAY_DIR;
/// <the running executable's directory>/../share/contactlab/ (the install layout, mirrored by
/// the build tree). Throws InputError naming the places looked in when neither has them.
std::filesystem::path find_replay_assets();

/// Writes `directory`/replay.html. The scene comes from the run's config.resolved.yaml (loaded
/// through `registry`, so its plugins must be installed), the motion from trajectory.csv, the
/// contacts from contacts.csv. Throws InputError for a directory that is not a run directory.
ReplayOutcome write_replay(const std::filesystem::path& directory, PluginRegistry& registry,
                           const ReplayOptions& options = {});

}  // namespace contactlab::core
