// Plots through tools/plot.py (python3 + matplotlib): a run directory's energy, penetration and
// force–penetration plots, and a comparison's bar charts, as PNG and SVG in <directory>/plots/.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace contactlab::core {

/// Where plot.py is, first found of: $CONTACTLAB_PLOT_SCRIPT; <the running executable's
/// directory>/../share/contactlab/plot.py (the install layout, mirrored by the build tree);
/// the source tree's tools/plot.py. Empty when none exists.
std::filesystem::path find_plot_script();

struct PlotOutcome {
  bool ok = false;
  std::string message;                       ///< why not (ok = false), or the python used
  std::vector<std::filesystem::path> files;  ///< the files written
};

/// Runs `plot.py <mode> <directory>` (mode: "run" or "compare") with the first python that has
/// matplotlib: $CONTACTLAB_PYTHON when set (only it), otherwise python3 on the PATH, then
/// /usr/bin/python3. Never throws for a plotting failure: `ok` is false and `message` says why
/// (no script, no python, no matplotlib, the script's own error).
PlotOutcome make_plots(const std::string& mode, const std::filesystem::path& directory);

}  // namespace contactlab::core
