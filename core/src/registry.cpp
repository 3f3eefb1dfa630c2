// Plugin loading and checking (see registry.hpp for the search order and the rules).
#include "contactlab/core/registry.hpp"

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "contactlab/core/config.hpp"

namespace contactlab::core {

namespace fs = std::filesystem;

class LoadedLibrary {
 public:
  boost::dll::shared_library library;
  fs::path path;
  const PluginDescriptor* descriptor = nullptr;
};

namespace {

std::map<std::string, std::string> parse_fingerprint(const std::string& text) {
  std::map<std::string, std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ';')) {
    auto eq = item.find('=');
    if (eq == std::string::npos) {
      items[item] = "";
    } else {
      items[item.substr(0, eq)] = item.substr(eq + 1);
    }
  }
  return items;
}

std::vector<std::string> layout_differences(const PluginLayout& library, const PluginLayout& host) {
  std::vector<std::string> out;
  auto check = [&](const char* what, std::uint32_t in_library, std::uint32_t in_host) {
    if (in_library != in_host)
      out.push_back(std::string(what) + " is " + std::to_string(in_library) +
                    " in the library but " + std::to_string(in_host) + " in the host");
  };
  check("sizeof(Pose)", library.pose_size, host.pose_size);
  check("alignof(Pose)", library.pose_align, host.pose_align);
  check("sizeof(Shape)", library.shape_size, host.shape_size);
  check("alignof(Shape)", library.shape_align, host.shape_align);
  check("sizeof(Aabb)", library.aabb_size, host.aabb_size);
  check("alignof(Aabb)", library.aabb_align, host.aabb_align);
  check("sizeof(ContactGeometry)", library.contact_geometry_size, host.contact_geometry_size);
  check("alignof(ContactGeometry)", library.contact_geometry_align, host.contact_geometry_align);
  check("sizeof(ContactKinematics)", library.contact_kinematics_size, host.contact_kinematics_size);
  check("alignof(ContactKinematics)", library.contact_kinematics_align,
        host.contact_kinematics_align);
  check("sizeof(ContactState)", library.contact_state_size, host.contact_state_size);
  check("alignof(ContactState)", library.contact_state_align, host.contact_state_align);
  check("sizeof(NarrowPhaseCache)", library.narrow_phase_cache_size, host.narrow_phase_cache_size);
  check("alignof(NarrowPhaseCache)", library.narrow_phase_cache_align,
        host.narrow_phase_cache_align);
  check("sizeof(ContactManifold)", library.contact_manifold_size, host.contact_manifold_size);
  check("sizeof(ConvexHull)", library.convex_hull_size, host.convex_hull_size);
  check("sizeof(NarrowPhaseStatistics)", library.narrow_phase_statistics_size,
        host.narrow_phase_statistics_size);
  check("sizeof(MechanicsContactPoint)", library.mechanics_contact_point_size,
        host.mechanics_contact_point_size);
  check("sizeof(ParameterSpec)", library.parameter_spec_size, host.parameter_spec_size);
  check("sizeof(ParameterValues)", library.parameter_values_size, host.parameter_values_size);
  check("sizeof(IntegrationResult)", library.integration_result_size, host.integration_result_size);
  check("sizeof(PluginEntry)", library.plugin_entry_size, host.plugin_entry_size);
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

bool is_shared_library(const fs::path& file) {
  const std::string name = file.filename().string();
  return file.extension() == ".so" || name.find(".so.") != std::string::npos;
}

/// The entries of a colon-separated list of paths in an environment variable (none if unset).
std::vector<fs::path> environment_paths(const char* variable) {
  std::vector<fs::path> paths;
  if (const char* env = std::getenv(variable)) {
    std::stringstream stream(env);
    std::string entry;
    while (std::getline(stream, entry, ':'))
      if (!entry.empty()) paths.emplace_back(entry);
  }
  return paths;
}

/// Absolute, `..` removed and symbolic links resolved as far as the path exists: two spellings of
/// one file compare equal, and a link out of a trusted folder is judged by where it points.
fs::path resolved(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) return path.lexically_normal();
  fs::path canonical = fs::weakly_canonical(absolute, ec);
  return ec ? absolute.lexically_normal() : canonical;
}

}  // namespace

fs::path core_library_directory() {
  // this_line_location() is the file holding this function: libcontactlab_core.so.
  return fs::path(boost::dll::this_line_location().string()).parent_path();
}

PluginRegistry::PluginRegistry() : PluginRegistry(default_search_directories()) {
  for (const fs::path& file : default_trusted_libraries()) trust_library(file);
}

PluginRegistry::PluginRegistry(std::vector<fs::path> search_directories)
    : directories_(std::move(search_directories)) {}

PluginRegistry::~PluginRegistry() = default;

std::vector<fs::path> PluginRegistry::default_search_directories() {
  std::vector<fs::path> directories = environment_paths("CONTACTLAB_PLUGIN_PATH");
  directories.push_back(core_library_directory() / CONTACTLAB_PLUGIN_SUBDIR);
  return directories;
}

std::vector<fs::path> PluginRegistry::default_trusted_libraries() {
  return environment_paths("CONTACTLAB_TRUSTED_LIBRARIES");
}

void PluginRegistry::trust_library(const fs::path& file) {
  trusted_.push_back(resolved(file));
}

bool PluginRegistry::trusts(const fs::path& file) const {
  const fs::path target = resolved(file);
  if (std::find(trusted_.begin(), trusted_.end(), target) != trusted_.end()) return true;
  // Directly in a search directory, not below it: exactly the files scan() loads anyway, so
  // naming one runs no code the host would not run without the experiment. The folder is resolved
  // as the system will open it (`plugins/link/../x.so` is beside link's target, not in plugins).
  std::error_code ec;
  const fs::path absolute = fs::absolute(file, ec);
  const fs::path name = absolute.filename();
  if (ec || name.empty() || name == "." || name == "..") return false;
  const fs::path folder = resolved(absolute.parent_path());
  for (const fs::path& directory : directories_)
    if (resolved(directory) == folder) return true;
  return false;
}

std::string PluginRegistry::untrusted_library_message(const fs::path& file) const {
  std::vector<std::string> folders;
  for (const fs::path& directory : directories_) folders.push_back(resolved(directory).string());
  const std::string path = resolved(file).string();
  return "plugin library '" + path +
         "' is not trusted, so it was not loaded (loading a library runs its code): `library:` "
         "may name only a library in a plugin folder (" +
         (folders.empty() ? std::string("none") : join(folders, ", ")) +
         ") or one trusted explicitly. If you mean to run it, pass --trust-library " + path +
         " (run, validate, compare), list it in CONTACTLAB_TRUSTED_LIBRARIES, or add its folder "
         "to CONTACTLAB_PLUGIN_PATH";
}

std::vector<PluginInfo> PluginRegistry::load_library(const fs::path& file, int tier) {
  std::error_code ec;
  fs::path absolute = fs::weakly_canonical(fs::absolute(file, ec), ec);
  if (ec) absolute = fs::absolute(file);
  const std::string where = "plugin library '" + absolute.string() + "'";

  std::shared_ptr<LoadedLibrary> loaded;
  for (const auto& library : libraries_)
    if (library->path == absolute) loaded = library;

  if (!loaded) {
    if (!fs::exists(absolute)) throw PluginError(where + " refused: the file does not exist");
    loaded = std::make_shared<LoadedLibrary>();
    loaded->path = absolute;
    try {
      // Absolute path, resolve every symbol now, keep the library's symbols to itself.
      loaded->library.load(absolute.string(),
                           boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
      throw PluginError(where + " refused: cannot be loaded: " + e.what());
    }
    if (!loaded->library.has(plugin_entry_symbol))
      throw PluginError(where + " refused: it has no entry symbol '" +
                        std::string(plugin_entry_symbol) +
                        "' (not a contactlab plugin; plugins end with CONTACTLAB_PLUGIN_LIBRARY)");
    const PluginDescriptor* descriptor = nullptr;
    try {
      auto& function = loaded->library.get_alias<PluginDescriptorFunction>(plugin_entry_symbol);
      descriptor = function();
    } catch (const std::exception& e) {
      throw PluginError(where + " refused: cannot read its descriptor: " + e.what());
    }
    if (descriptor == nullptr) throw PluginError(where + " refused: its descriptor is null");
    // The first three fields are read before anything else.
    if (descriptor->magic != plugin_descriptor_magic)
      throw PluginError(where +
                        " refused: its descriptor does not start with the contactlab "
                        "magic number (corrupt or foreign library)");
    if (descriptor->sdk_abi_version != CONTACTLAB_SDK_ABI_VERSION)
      throw PluginError(
          where + " refused: it was built against SDK ABI version " +
          std::to_string(descriptor->sdk_abi_version) + ", but this contactlab supports version " +
          std::to_string(CONTACTLAB_SDK_ABI_VERSION) + "; rebuild the plugin against this SDK");
    if (descriptor->descriptor_size != sizeof(PluginDescriptor))
      throw PluginError(where + " refused: its descriptor is " +
                        std::to_string(descriptor->descriptor_size) + " bytes, the host's " +
                        std::to_string(sizeof(PluginDescriptor)));
    std::vector<std::string> reasons =
        layout_differences(descriptor->layout, PluginLayout::current());
    const auto library_fp =
        parse_fingerprint(descriptor->build_fingerprint ? descriptor->build_fingerprint : "");
    const auto host_fp = parse_fingerprint(CONTACTLAB_BUILD_FINGERPRINT);
    std::set<std::string> keys;
    for (const auto& [key, value] : library_fp) keys.insert(key);
    for (const auto& [key, value] : host_fp) keys.insert(key);
    for (const auto& key : keys) {
      auto in_library = library_fp.count(key) ? library_fp.at(key) : std::string("(missing)");
      auto in_host = host_fp.count(key) ? host_fp.at(key) : std::string("(missing)");
      if (in_library != in_host)
        reasons.push_back("build setting " + key + " is " + in_library + " in the library but " +
                          in_host + " in the host");
    }
    if (!reasons.empty())
      throw PluginError(where + " refused: it was built with different ABI-relevant settings: " +
                        join(reasons, "; "));
    if (descriptor->entry_count > 0 && descriptor->entries == nullptr)
      throw PluginError(where + " refused: its descriptor lists entries but has no table");
    loaded->descriptor = descriptor;
    libraries_.push_back(loaded);
  }

  std::vector<PluginInfo> infos;
  const PluginDescriptor& descriptor = *loaded->descriptor;
  for (std::uint32_t i = 0; i < descriptor.entry_count; ++i) {
    const PluginEntry& entry = descriptor.entries[i];
    if (entry.name == nullptr || entry.schema == nullptr || entry.create == nullptr ||
        entry.destroy == nullptr || static_cast<int>(entry.kind) < 0 ||
        static_cast<int>(entry.kind) >= plugin_kind_count)
      throw PluginError(where + " refused: entry " + std::to_string(i) + " is incomplete");
    PluginInfo info;
    info.kind = entry.kind;
    info.name = entry.name;
    info.description = entry.description ? entry.description : "";
    info.version = entry.version ? entry.version : "";
    std::string error;
    if (!entry.schema(info.schema, error))
      throw PluginError(where + " refused: the parameter schema of '" + info.name +
                        "' could not be built: " + error);
    info.library_path = loaded->path;
    info.library_name = descriptor.library_name ? descriptor.library_name : "";
    info.library_version = descriptor.library_version ? descriptor.library_version : "";
    info.tier = tier;
    info.entry = &entry;
    info.library = loaded;
    infos.push_back(std::move(info));
  }
  return infos;
}

void PluginRegistry::scan() {
  if (scanned_) return;
  scanned_ = true;
  for (std::size_t d = 0; d < directories_.size(); ++d) {
    std::error_code ec;
    if (!fs::is_directory(directories_[d], ec)) continue;
    std::vector<fs::path> files;
    for (const auto& item : fs::directory_iterator(directories_[d], ec))
      if (item.is_regular_file() && is_shared_library(item.path())) files.push_back(item.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      try {
        for (auto& info : load_library(file, static_cast<int>(d) + 1))
          plugins_.push_back(std::move(info));
      } catch (const PluginError& e) {
        problems_.push_back({file, e.what()});
      }
    }
  }
}

const std::deque<PluginInfo>& PluginRegistry::plugins() {
  scan();
  return plugins_;
}

const std::vector<LibraryProblem>& PluginRegistry::problems() {
  scan();
  return problems_;
}

const PluginInfo* PluginRegistry::find(PluginKind kind, const std::string& name,
                                       const std::optional<fs::path>& explicit_library) {
  if (explicit_library) {
    // An explicit library is loaded on demand and stays in this registry's list; never one the
    // user did not trust (its constructors would run before any check could refuse it).
    if (!trusts(*explicit_library)) throw PluginError(untrusted_library_message(*explicit_library));
    auto infos = load_library(*explicit_library, 0);
    for (auto& info : infos) {
      if (info.kind != kind || info.name != name) continue;
      for (const auto& known : plugins_)
        if (known.library_path == info.library_path && known.kind == kind && known.name == name)
          return &known;
      plugins_.push_back(std::move(info));
      return &plugins_.back();
    }
    std::vector<std::string> names;
    for (const auto& info : infos)
      if (info.kind == kind) names.push_back(info.name);
    throw PluginError("plugin library '" + explicit_library->string() + "' has no " +
                      plugin_kind_name(kind) + " named '" + name + "'" +
                      (names.empty()
                           ? std::string(" (it provides no ") + plugin_kind_name(kind) + " plugins)"
                           : "; it provides: " + join(names, ", ")));
  }
  scan();
  const PluginInfo* best = nullptr;
  for (const auto& info : plugins_) {
    if (info.kind != kind || info.name != name || info.tier == 0) continue;
    if (best == nullptr || info.tier < best->tier) {
      best = &info;
    } else if (info.tier == best->tier && info.library_path != best->library_path) {
      throw PluginError("two plugin libraries provide the " + std::string(plugin_kind_name(kind)) +
                        " '" + name + "': '" + best->library_path.string() + "' and '" +
                        info.library_path.string() +
                        "'; remove one, or choose one with `library:` in the experiment");
    }
  }
  return best;
}

std::string PluginRegistry::unknown_plugin_message(PluginKind kind, const std::string& name) {
  scan();
  std::vector<std::string> names;
  for (const auto& info : plugins_)
    if (info.kind == kind && std::find(names.begin(), names.end(), info.name) == names.end())
      names.push_back(info.name);
  std::sort(names.begin(), names.end());
  std::string message = "unknown " + std::string(plugin_kind_name(kind)) + " '" + name + "'";
  const std::string suggestion = did_you_mean(name, names);
  if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
  message +=
      names.empty()
          ? "; no " + std::string(plugin_kind_name(kind)) + " plugins were found in " +
                [&] {
                  std::vector<std::string> dirs;
                  for (const auto& d : directories_) dirs.push_back(d.string());
                  return join(dirs, ", ");
                }()
          : "; known " + std::string(plugin_kind_name(kind)) + " plugins: " + join(names, ", ");
  if (!problems_.empty())
    message += " (" + std::to_string(problems_.size()) +
               " plugin libraries were refused; `contactlab plugins` lists why)";
  return message;
}

void* PluginRegistry::create_raw(const PluginInfo& info, const ParameterValues& params) {
  std::string error;
  void* raw = info.entry->create(params, error);
  if (raw == nullptr)
    throw PluginError("plugin " + std::string(plugin_kind_name(info.kind)) + " '" + info.name +
                      "' from '" + info.library_path.string() +
                      "' failed to construct: " + (error.empty() ? "no reason given" : error));
  return raw;
}

}  // namespace contactlab::core
