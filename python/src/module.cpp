// _contactlab: the compiled half of the Python module `contactlab` (python/contactlab/__init__.py
// is the API users see; this file gives it the host's own code paths, so that nothing is
// reimplemented in Python): loading and checking an experiment (load_experiment), running it
// (run_experiment), reading its run directory back (run_files), the plugin listing (plugins_json,
// as `contactlab plugins --json`), shapes and narrow-phase choices parsed by the experiment's own
// readers (read_shape, read_plugin_choice), and narrow-phase queries through the plugin registry.
//
// Values arrive as YAML text (the package turns Python values into YAML), so a shape dictionary
// or an override meets the same parser, the same defaults and the same located errors as a file.
//
// Errors: contactlab::InputError, PluginError and SimulationError become contactlab.InputError
// (a ValueError), PluginError and SimulationError (RuntimeErrors), all contactlab.Error.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "contactlab/core/compare.hpp"
#include "contactlab/core/config.hpp"
#include "contactlab/core/experiment.hpp"
#include "contactlab/core/plugins_json.hpp"
#include "contactlab/core/registry.hpp"
#include "contactlab/core/run_files.hpp"
#include "contactlab/core/scene.hpp"
#include "contactlab/narrow_phase.hpp"
#include "contactlab/version.hpp"
#include "scene_sections.hpp"  // core/src: read_shape, read_plugin_choice (exported by the core)

namespace py = pybind11;
namespace fs = std::filesystem;
using namespace contactlab;
using namespace contactlab::core;

namespace {

// The module's exception classes; created once at import and kept for the process (a module is
// never unloaded), so the translator can refer to them without reference counting.
PyObject* error_type = nullptr;
PyObject* input_error_type = nullptr;
PyObject* plugin_error_type = nullptr;
PyObject* simulation_error_type = nullptr;

PyObject* new_exception(const char* name, const char* doc, py::tuple bases) {
  PyObject* type = PyErr_NewExceptionWithDoc(name, doc, bases.ptr(), nullptr);
  if (type == nullptr) throw py::error_already_set();
  return type;
}

std::shared_ptr<PluginRegistry> make_registry(const std::vector<fs::path>& trusted_libraries) {
  // One registry per experiment, as one per CLI command: CONTACTLAB_PLUGIN_PATH and
  // CONTACTLAB_TRUSTED_LIBRARIES are read when it is made, so a script may change them between
  // loads. Libraries already loaded stay loaded; dlopen of one again only counts a reference.
  auto registry = std::make_shared<PluginRegistry>();
  for (const fs::path& file : trusted_libraries) registry->trust_library(fs::absolute(file));
  return registry;
}

/// A YAML text given by the package (a Python value turned into YAML), parsed as `label`, its
/// root at dotted path `path` so that messages name the argument ("(at shape_a.radius_m)").
ConfigNode parse_argument(const std::string& yaml, const std::string& label,
                          const std::string& path) {
  ConfigNode node = parse_yaml(yaml, label);
  node.rebase_path(path);
  return node;
}

// --- experiments ---

/// A loaded, checked experiment. The scene refers into the registry (its plugin infos), so the
/// registry is declared first and destroyed last.
struct Experiment {
  std::shared_ptr<PluginRegistry> registry;
  std::unique_ptr<Scene> scene;
  fs::path file;
  std::vector<std::string> overrides;
};

std::shared_ptr<Experiment> load(const fs::path& file, const std::vector<std::string>& overrides,
                                 const std::vector<fs::path>& trusted_libraries) {
  auto experiment = std::make_shared<Experiment>();
  experiment->file = file;
  experiment->overrides = overrides;
  py::gil_scoped_release release;  // building a scene may hull meshes and load plugins
  experiment->registry = make_registry(trusted_libraries);
  experiment->scene =
      std::make_unique<Scene>(load_experiment(file, overrides, *experiment->registry));
  return experiment;
}

std::vector<std::string> body_names(const Scene& scene, bool moving_only) {
  std::vector<std::string> names;
  for (const BodyModel& body : scene.bodies)
    if (!moving_only || body.moves()) names.push_back(body.name);
  return names;
}

const char* integration_status_name(IntegrationStatus status) {
  switch (status) {
    case IntegrationStatus::completed:
      return "complete";
    case IntegrationStatus::interrupted:
      return "incomplete";
    case IntegrationStatus::failed:
      return "failed";
    case IntegrationStatus::restart_requested:
      break;  // never the outcome of a whole run
  }
  return "?";
}

/// Runs the experiment into `directory` and returns summary.json's status ("complete", or
/// "incomplete" when stopped). The simulation runs on a worker thread while this (Python's)
/// thread, without the GIL, waits for it in slices of `poll_s`: between slices it takes the GIL
/// back to run Python's signal handlers (PyErr_CheckSignals: Ctrl-C raises KeyboardInterrupt
/// there, and only on the main thread) and the progress callback. Either stops the run through
/// the same flag the CLI's SIGINT handler sets, so the run directory is closed and marked
/// incomplete, as the CLI's; the KeyboardInterrupt (or the callback's exception) is raised once
/// the worker has finished. The callback gets (time_s, steps) and may return False to stop.
std::string run(Experiment& experiment, const fs::path& directory, py::object progress,
                double poll_s) {
  std::atomic<bool> stop{false};
  RunProgress run_progress;
  std::mutex mutex;
  std::condition_variable finished_signal;
  bool finished = false;
  std::exception_ptr failure;
  IntegrationStatus status = IntegrationStatus::completed;

  std::thread worker([&] {
    try {
      const RunOutcome outcome =
          run_experiment(*experiment.scene, *experiment.registry, directory, &stop, &run_progress);
      status = outcome.result.status;
    } catch (...) {
      failure = std::current_exception();
    }
    const std::lock_guard lock(mutex);
    finished = true;
    finished_signal.notify_all();
  });

  std::optional<py::error_already_set> raised;  // KeyboardInterrupt, or the callback's error
  const auto slice = std::chrono::duration<double>(poll_s);
  for (;;) {
    {
      py::gil_scoped_release release;
      std::unique_lock lock(mutex);
      if (finished_signal.wait_for(lock, slice, [&] { return finished; })) break;
    }
    if (raised) continue;  // already stopping: wait for the worker
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (!progress.is_none()) {
        const py::object answer = progress(run_progress.time_s.load(), run_progress.steps.load());
        if (answer.is(py::bool_(false))) stop = true;
      }
    } catch (py::error_already_set& error) {
      raised.emplace(std::move(error));
      stop = true;
    }
  }
  worker.join();
  if (raised) throw std::move(*raised);
  if (failure) std::rethrow_exception(failure);
  return integration_status_name(status);
}

// --- reading a run directory ---

py::array_t<double> matrix(std::size_t rows, std::size_t columns) {
  return py::array_t<double>({rows, columns});
}

/// trajectory.csv as {"time_s": (n,), "bodies": {name: {"position": (n,3), "quaternion_wxyz":
/// (n,4), "velocity": (n,3), "angular_velocity": (n,3)}}, "incomplete_rows": k}.
py::dict trajectory(const fs::path& file) {
  const Trajectory t = [&] {
    py::gil_scoped_release release;  // a long run's file takes a while to parse
    return read_trajectory(file);
  }();
  const std::size_t n = t.frame_count();
  py::array_t<double> time(n);
  auto time_view = time.mutable_unchecked<1>();
  for (std::size_t i = 0; i < n; ++i) time_view(i) = t.times_s[i];
  py::dict bodies;
  for (std::size_t b = 0; b < t.bodies.size(); ++b) {
    py::array_t<double> p = matrix(n, 3), q = matrix(n, 4), v = matrix(n, 3), w = matrix(n, 3);
    auto pv = p.mutable_unchecked<2>(), qv = q.mutable_unchecked<2>(),
         vv = v.mutable_unchecked<2>(), wv = w.mutable_unchecked<2>();
    for (std::size_t i = 0; i < n; ++i) {
      const TrajectoryState& s = t.state(i, b);
      for (int k = 0; k < 3; ++k) {
        pv(i, k) = s.p_WCm[k];
        vv(i, k) = s.v_WCm[k];
        wv(i, k) = s.w_WB[k];
      }
      qv(i, 0) = s.q_WB.w;
      qv(i, 1) = s.q_WB.x;
      qv(i, 2) = s.q_WB.y;
      qv(i, 3) = s.q_WB.z;
    }
    py::dict body;
    body["position"] = p;
    body["quaternion_wxyz"] = q;
    body["velocity"] = v;
    body["angular_velocity"] = w;
    bodies[py::str(t.bodies[b])] = body;
  }
  py::dict out;
  out["time_s"] = time;
  out["bodies"] = bodies;
  out["incomplete_rows"] = t.incomplete_rows;
  return out;
}

/// contacts.csv as columns: time_s, distance_m, normal_force_N (m,); normal, point,
/// tangential_force_N (m,3); geometry_a, geometry_b (lists of names).
py::dict contacts(const fs::path& file) {
  const std::vector<ContactRow> rows = [&] {
    py::gil_scoped_release release;
    return read_contacts(file);
  }();
  const std::size_t m = rows.size();
  py::array_t<double> time(m), distance(m), normal_force(m);
  py::array_t<double> normal = matrix(m, 3), point = matrix(m, 3), tangential = matrix(m, 3);
  auto tv = time.mutable_unchecked<1>(), dv = distance.mutable_unchecked<1>(),
       fv = normal_force.mutable_unchecked<1>();
  auto nv = normal.mutable_unchecked<2>(), pv = point.mutable_unchecked<2>(),
       ftv = tangential.mutable_unchecked<2>();
  py::list a, b;
  for (std::size_t i = 0; i < m; ++i) {
    const ContactRow& r = rows[i];
    tv(i) = r.time_s;
    dv(i) = r.distance_m;
    fv(i) = r.normal_force_N;
    for (int k = 0; k < 3; ++k) {
      nv(i, k) = r.normal[k];
      pv(i, k) = r.point_m[k];
      ftv(i, k) = r.tangential_force_N[k];
    }
    a.append(r.geometry_a);
    b.append(r.geometry_b);
  }
  py::dict out;
  out["time_s"] = time;
  out["geometry_a"] = a;
  out["geometry_b"] = b;
  out["distance_m"] = distance;
  out["normal"] = normal;
  out["point"] = point;
  out["normal_force_N"] = normal_force;
  out["tangential_force_N"] = tangential;
  return out;
}

// --- shapes and narrow phases ---

/// A shape read by the experiment's `shape:` reader. Its scene owns a convex hull's storage (the
/// Shape points into it) and collects the reader's warnings.
struct ShapeHandle {
  std::shared_ptr<Scene> storage = std::make_shared<Scene>();
  Shape shape;
};

ShapeHandle make_shape(const std::string& yaml, const std::string& label, const std::string& path,
                       const fs::path& base_directory) {
  ShapeHandle handle;
  ConfigNode node = parse_argument(yaml, label, path);
  handle.shape = scene_sections::read_shape(node, *handle.storage, base_directory);
  return handle;
}

/// One narrow-phase plugin instance, chosen as an experiment's `collision.narrow_phase` entry is
/// (a name, or {type, params, library}).
struct NarrowPhaseHandle {
  std::shared_ptr<PluginRegistry> registry;
  PluginChoice choice;
  std::shared_ptr<NarrowPhase> narrow_phase;
};

std::shared_ptr<NarrowPhaseHandle> make_narrow_phase(
    const std::string& yaml, const std::string& label, const std::string& path,
    const fs::path& base_directory, const std::vector<fs::path>& trusted_libraries) {
  auto handle = std::make_shared<NarrowPhaseHandle>();
  handle->registry = make_registry(trusted_libraries);
  ConfigNode node = parse_argument(yaml, label, path);
  // Unknown names are an InputError listing the known ones (the registry's message).
  handle->choice = scene_sections::read_plugin_choice(node, PluginKind::narrow_phase,
                                                      *handle->registry, base_directory);
  handle->narrow_phase =
      handle->registry->create<NarrowPhase>(*handle->choice.info, handle->choice.params);
  return handle;
}

/// The narrow phases of the registry that answer types a and b, with their default parameters.
std::vector<std::string> narrow_phases_supporting(PluginRegistry& registry, ShapeType a,
                                                  ShapeType b) {
  std::vector<std::string> names;
  for (const PluginInfo& info : registry.plugins()) {
    if (info.kind != PluginKind::narrow_phase) continue;
    try {
      const auto instance =
          registry.create<NarrowPhase>(info, ParameterValues::defaults(info.schema));
      if (instance->supports(a, b)) names.push_back(info.name);
    } catch (const std::exception&) {
      // A plugin that cannot be made with its defaults answers nothing here.
    }
  }
  return names;
}

/// The manifold of shape A at (R_a, p_a) and shape B at (R_b, p_b), deepest point first, as
/// arrays: distance_m (k,), normal, point_a, point_b (k,3). A pair the plugin does not answer is
/// an InputError naming the plugins that do.
py::dict query(NarrowPhaseHandle& handle, const ShapeHandle& a, const Mat3& R_a, const Vec3& p_a,
               const ShapeHandle& b, const Mat3& R_b, const Vec3& p_b, NarrowPhaseCache* cache) {
  if (!handle.narrow_phase->supports(a.shape.type, b.shape.type)) {
    const std::vector<std::string> others =
        narrow_phases_supporting(*handle.registry, a.shape.type, b.shape.type);
    throw InputError("narrow phase '" + handle.choice.type + "' does not answer the pair " +
                     shape_type_name(a.shape.type) + " (shape A) – " +
                     shape_type_name(b.shape.type) + " (shape B); " +
                     (others.empty()
                          ? std::string("no installed narrow phase does")
                          : "narrow phases that do: " + scene_sections::join(others, ", ")));
  }
  NarrowPhaseCache cold;
  ContactManifold manifold;
  handle.narrow_phase->query(a.shape, Pose{R_a, p_a}, b.shape, Pose{R_b, p_b},
                             cache != nullptr ? *cache : cold, manifold);
  const auto k = static_cast<std::size_t>(std::clamp(manifold.count, 1, max_manifold_points));
  py::array_t<double> distance(k);
  py::array_t<double> normal = matrix(k, 3), point_a = matrix(k, 3), point_b = matrix(k, 3);
  auto dv = distance.mutable_unchecked<1>();
  auto nv = normal.mutable_unchecked<2>(), av = point_a.mutable_unchecked<2>(),
       bv = point_b.mutable_unchecked<2>();
  for (std::size_t i = 0; i < k; ++i) {
    const ContactGeometry& g = manifold.points[i];
    dv(i) = g.distance_m;
    for (int c = 0; c < 3; ++c) {
      nv(i, c) = g.normal_W[c];
      av(i, c) = g.point_a_W[c];
      bv(i, c) = g.point_b_W[c];
    }
  }
  py::dict out;
  out["distance"] = distance;
  out["normal"] = normal;
  out["point_a"] = point_a;
  out["point_b"] = point_b;
  return out;
}

ShapeType shape_type_from_name(const std::string& name) {
  for (int t = 0; t < shape_type_count; ++t)
    if (name == shape_type_name(static_cast<ShapeType>(t))) return static_cast<ShapeType>(t);
  std::vector<std::string> names;
  for (int t = 0; t < shape_type_count; ++t)
    names.emplace_back(shape_type_name(static_cast<ShapeType>(t)));
  throw InputError("unknown shape type '" + name + "'; one of " +
                   scene_sections::join(names, ", "));
}

}  // namespace

PYBIND11_MODULE(_contactlab, m) {
  m.doc() = "contactlab's compiled core; use the package `contactlab`, not this module.";
  m.attr("__version__") = version_string;

  error_type = new_exception("contactlab.Error", "Base of every contactlab error.",
                             py::make_tuple(py::handle(PyExc_Exception)));
  input_error_type = new_exception(
      "contactlab.InputError",
      "Bad input: a file, YAML, schema or override problem (the CLI's exit code 2). The message "
      "keeps file:line:col and the dotted key path.",
      py::make_tuple(py::handle(error_type), py::handle(PyExc_ValueError)));
  plugin_error_type =
      new_exception("contactlab.PluginError",
                    "A plugin library could not be loaded or was refused (the CLI's exit code 3).",
                    py::make_tuple(py::handle(error_type), py::handle(PyExc_RuntimeError)));
  simulation_error_type = new_exception(
      "contactlab.SimulationError",
      "The simulation could not continue: non-finite state, integrator failure (exit code 4).",
      py::make_tuple(py::handle(error_type), py::handle(PyExc_RuntimeError)));
  m.attr("Error") = py::handle(error_type);
  m.attr("InputError") = py::handle(input_error_type);
  m.attr("PluginError") = py::handle(plugin_error_type);
  m.attr("SimulationError") = py::handle(simulation_error_type);
  py::register_exception_translator([](std::exception_ptr pointer) {
    try {
      if (pointer) std::rethrow_exception(pointer);
    } catch (const InputError& e) {
      PyErr_SetString(input_error_type, e.what());
    } catch (const PluginError& e) {
      PyErr_SetString(plugin_error_type, e.what());
    } catch (const SimulationError& e) {
      PyErr_SetString(simulation_error_type, e.what());
    } catch (const contactlab::Error& e) {
      PyErr_SetString(error_type, e.what());
    }
  });

  py::class_<Experiment, std::shared_ptr<Experiment>>(m, "Experiment")
      .def_property_readonly("name", [](const Experiment& e) { return e.scene->name; })
      .def_property_readonly("file", [](const Experiment& e) { return e.file; })
      .def_property_readonly("overrides", [](const Experiment& e) { return e.overrides; })
      .def_property_readonly("duration_s", [](const Experiment& e) { return e.scene->duration_s; })
      .def_property_readonly("output_interval_s",
                             [](const Experiment& e) { return e.scene->output_interval_s; })
      .def_property_readonly("bodies",
                             [](const Experiment& e) { return body_names(*e.scene, false); })
      .def_property_readonly("moving_bodies",
                             [](const Experiment& e) { return body_names(*e.scene, true); })
      .def_property_readonly("geometries",
                             [](const Experiment& e) {
                               std::vector<std::string> names;
                               for (const GeometryModel& g : e.scene->geometries)
                                 names.push_back(g.name);
                               return names;
                             })
      .def_property_readonly("resolved_yaml",
                             [](const Experiment& e) { return to_yaml(e.scene->resolved); })
      .def_property_readonly("warnings", [](const Experiment& e) { return e.scene->warnings; })
      .def("run", &run, py::arg("directory"), py::arg("progress") = py::none(),
           py::arg("poll_s") = 0.05);
  m.def("load", &load, py::arg("file"), py::arg("overrides"), py::arg("trusted_libraries"));
  m.def("default_run_directory", &default_run_directory, py::arg("name"));
  // As the experiment's `orientation: {quaternion_wxyz}` (scene_bodies.cpp): normalised first.
  m.def(
      "rotation_from_quaternion",
      [](double w, double x, double y, double z) -> Mat3 {
        const Eigen::Quaterniond q(w, x, y, z);
        if (q.norm() < 1e-12) throw InputError("the quaternion has zero length");
        return q.normalized().toRotationMatrix();
      },
      py::arg("w"), py::arg("x"), py::arg("y"), py::arg("z"));

  // The comparison file read as `contactlab compare` reads it (overrides applied): its name (for
  // the default directory, named as the CLI names it) and variants, without running anything.
  m.def(
      "comparison_variants",
      [](const fs::path& file, const std::vector<std::string>& overrides) {
        const ComparisonSpec spec = load_comparison(file, overrides);
        py::list variants;
        for (const Variant& variant : spec.variants) {
          py::dict values;
          for (const VariantSetting& setting : variant.settings)
            values[py::str(spec.axes[setting.axis].path)] = setting.text;
          py::dict entry;
          entry["name"] = variant.name;
          entry["values"] = values;
          variants.append(entry);
        }
        py::dict out;
        out["name"] = spec.name;
        out["columns"] = spec.columns;
        out["variants"] = variants;
        return out;
      },
      py::arg("file"), py::arg("overrides"));

  m.def("read_trajectory", &trajectory, py::arg("file"));
  m.def("read_contacts", &contacts, py::arg("file"));

  m.def(
      "plugins_json",
      [](const std::vector<fs::path>& trusted_libraries) {
        const auto registry = make_registry(trusted_libraries);
        return plugins_json(*registry).dump();
      },
      py::arg("trusted_libraries"));

  py::class_<ShapeHandle>(m, "Shape")
      .def(py::init(&make_shape), py::arg("yaml"), py::arg("label"), py::arg("path"),
           py::arg("base_directory"))
      .def_property_readonly("type",
                             [](const ShapeHandle& s) { return shape_type_name(s.shape.type); })
      .def_property_readonly("warnings", [](const ShapeHandle& s) { return s.storage->warnings; })
      .def_property_readonly("vertex_count", [](const ShapeHandle& s) {
        return s.shape.hull ? s.shape.hull->vertex_count : 0u;
      });

  py::class_<NarrowPhaseCache>(m, "NarrowPhaseCache").def(py::init<>());

  py::class_<NarrowPhaseHandle, std::shared_ptr<NarrowPhaseHandle>>(m, "NarrowPhase")
      .def(py::init(&make_narrow_phase), py::arg("yaml"), py::arg("label"), py::arg("path"),
           py::arg("base_directory"), py::arg("trusted_libraries"))
      .def_property_readonly("name", [](const NarrowPhaseHandle& h) { return h.choice.type; })
      .def_property_readonly("version",
                             [](const NarrowPhaseHandle& h) { return h.choice.info->version; })
      .def_property_readonly("library",
                             [](const NarrowPhaseHandle& h) { return h.choice.info->library_path; })
      .def_property_readonly("params",
                             [](const NarrowPhaseHandle& h) { return h.choice.params.all(); })
      .def("supports",
           [](const NarrowPhaseHandle& h, const std::string& a, const std::string& b) {
             return h.narrow_phase->supports(shape_type_from_name(a), shape_type_from_name(b));
           })
      .def("statistics",
           [](const NarrowPhaseHandle& h) {
             const NarrowPhaseStatistics s = h.narrow_phase->statistics();
             py::dict out;
             out["queries"] = s.queries;
             out["iteration_limit_hits"] = s.iteration_limit_hits;
             out["degenerate_cases"] = s.degenerate_cases;
             out["total_iterations"] = s.total_iterations;
             out["max_iterations_used"] = s.max_iterations_used;
             return out;
           })
      .def("query", &query, py::arg("a"), py::arg("R_a"), py::arg("p_a"), py::arg("b"),
           py::arg("R_b"), py::arg("p_b"), py::arg("cache") = nullptr);
}
