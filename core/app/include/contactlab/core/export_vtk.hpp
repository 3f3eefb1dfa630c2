// `contactlab export --vtk RUN_DIR`: the run as ParaView time series of VTK XML PolyData files,
// written by hand (no VTK library needed to write them; ParaView and VTK's readers read them).
//
//   OUT/<name>_bodies.pvd    every geometry's surface (core::tessellate) in world coordinates
//   OUT/<name>_contacts.pvd  the contact points of contacts.csv with their normals and forces
//   OUT/<name>/bodies_NNNNNN.vtp, OUT/<name>/contacts_NNNNNN.vtp   one of each per kept output time
//
// Two collections rather than one with two `part`s: ParaView's PVD reader turns parts into the
// blocks of one multiblock source, so the contacts could not be glyphed or coloured on their own
// without an Extract Block; two files are two pipeline sources on the same time steps.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "contactlab/core/registry.hpp"

namespace contactlab::core {

struct VtkExportOptions {
  std::filesystem::path out;  ///< output directory; empty: RUN_DIR/vtk
  std::size_t every = 1;      ///< keep every N-th output time (and always the last)
  int segments = 32;          ///< TessellationOptions::segments
};

struct VtkExportOutcome {
  std::filesystem::path bodies_pvd;
  std::filesystem::path contacts_pvd;
  std::size_t frames = 0;        ///< time steps written
  std::size_t output_times = 0;  ///< rows of trajectory.csv
  std::size_t contact_points = 0;
  std::string status;                 ///< summary.json's status
  std::vector<std::string> warnings;  ///< for stderr: an incomplete run, dropped rows
};

/// Exports `run_directory` (see the file comment). The scene comes from its config.resolved.yaml,
/// loaded through `registry` (so its plugins must be installed), the motion from trajectory.csv,
/// the contacts from contacts.csv. Throws InputError for a directory that is not a run directory
/// (no summary.json, config.resolved.yaml or trajectory.csv, or no output time in it) and for
/// files that cannot be written.
VtkExportOutcome export_vtk(const std::filesystem::path& run_directory, PluginRegistry& registry,
                            const VtkExportOptions& options = {});

/// `contactlab export`: runs export_vtk when `vtk` is set (the only format so far; InputError
/// without it), prints the warnings to stderr and the files to stdout. Returns the exit code.
int export_run(const std::filesystem::path& run_directory, bool vtk, PluginRegistry& registry,
               const VtkExportOptions& options);

}  // namespace contactlab::core
