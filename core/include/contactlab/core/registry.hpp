// Plugin registry: finds plugin libraries, checks their descriptors before anything else, and
// creates plugin objects whose deleters keep their library loaded.
//
// Search order (earlier tiers shadow later ones): an explicit `library:` path given in the
// experiment; each directory of CONTACTLAB_PLUGIN_PATH (colon-separated); the plugin folder next
// to the core library (<dir of libcontactlab_core>/contactlab/plugins), which is both the build
// tree's lib/contactlab/plugins and an install prefix's lib/contactlab/plugins.
//
// Trust: loading a library runs its code (static constructors run inside dlopen, before any
// descriptor check), so an experiment file must not choose what runs. The search directories are
// trusted (the scan loads every library in them anyway); an explicit `library:` is loaded only if
// it lies directly in one of them or was trusted by the user (trust_library: the CLI's
// --trust-library, or CONTACTLAB_TRUSTED_LIBRARIES). load_library() itself checks no trust: it
// is for programs whose user names the file on their own command line (the conformance suites).
#pragma once

#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contactlab/plugin.hpp"

namespace contactlab::core {

class LoadedLibrary;

/// One plugin of one library, as listed by `contactlab plugins`.
struct PluginInfo {
  PluginKind kind = PluginKind::force_law;
  std::string name;
  std::string description;
  std::string version;
  ParameterSchema schema;
  std::filesystem::path library_path;
  std::string library_name;
  std::string library_version;
  int tier = 0;  ///< search tier the library was found in (0 = explicit path)
  const PluginEntry* entry = nullptr;
  std::shared_ptr<LoadedLibrary> library;
};

/// A library that could not be loaded or was refused, and why.
struct LibraryProblem {
  std::filesystem::path library_path;
  std::string reason;
};

class PluginRegistry {
 public:
  /// Uses default_search_directories() and trusts default_trusted_libraries().
  PluginRegistry();
  /// Trusts no library beyond those in `search_directories` until trust_library() is called.
  explicit PluginRegistry(std::vector<std::filesystem::path> search_directories);
  ~PluginRegistry();
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  /// CONTACTLAB_PLUGIN_PATH entries, then the folder beside the core library.
  static std::vector<std::filesystem::path> default_search_directories();
  const std::vector<std::filesystem::path>& search_directories() const { return directories_; }

  /// CONTACTLAB_TRUSTED_LIBRARIES entries (colon-separated library files).
  static std::vector<std::filesystem::path> default_trusted_libraries();
  /// Lets an explicit `library:` load `file` (compared after resolving symbolic links).
  void trust_library(const std::filesystem::path& file);
  /// Whether an explicit `library:` may load `file`: it lies directly in a search directory, or it
  /// was trusted with trust_library().
  bool trusts(const std::filesystem::path& file) const;
  /// Why `file` is not loaded and how to trust it (for an untrusted `library:`).
  std::string untrusted_library_message(const std::filesystem::path& file) const;

  /// Loads one library and checks its descriptor; throws PluginError naming the file and every
  /// reason for refusal. Libraries are pinned until the registry and all objects made from them
  /// are gone. Loading the same file twice returns the same library.
  std::vector<PluginInfo> load_library(const std::filesystem::path& file, int tier = 0);

  /// Loads every shared library in the search directories (once). Refused libraries are kept in
  /// problems() rather than thrown, so one bad file does not hide the good ones.
  void scan();
  const std::deque<PluginInfo>& plugins();
  const std::vector<LibraryProblem>& problems();

  /// The plugin `name` of `kind`. With `explicit_library`, only that file is considered. Throws
  /// PluginError when two libraries of the same tier both provide the name, or when the explicit
  /// library is untrusted (it is then not loaded) or refused; returns nullptr when the name is
  /// unknown (see unknown_plugin_message).
  const PluginInfo* find(PluginKind kind, const std::string& name,
                         const std::optional<std::filesystem::path>& explicit_library = {});
  /// "unknown force_law 'hertzz' (did you mean 'hertz'?); known force_law plugins: hertz, linear"
  std::string unknown_plugin_message(PluginKind kind, const std::string& name);

  /// Creates an instance; the parameters must already be validated against info.schema. Throws
  /// PluginError with the factory's message if it fails.
  template <class Interface>
  std::shared_ptr<Interface> create(const PluginInfo& info, const ParameterValues& params) {
    if (info.kind != plugin_kind_of<Interface>::value)
      throw PluginError("plugin '" + info.name + "' is a " + plugin_kind_name(info.kind) +
                        ", not a " + plugin_kind_name(plugin_kind_of<Interface>::value));
    void* raw = create_raw(info, params);
    auto library = info.library;
    auto destroy = info.entry->destroy;
    return std::shared_ptr<Interface>(
        static_cast<Interface*>(raw),
        [library, destroy](Interface* object) { destroy(static_cast<void*>(object)); });
  }

 private:
  void* create_raw(const PluginInfo& info, const ParameterValues& params);

  std::vector<std::filesystem::path> directories_;
  std::vector<std::filesystem::path> trusted_;  // resolved (weakly canonical) library files
  bool scanned_ = false;
  std::deque<PluginInfo> plugins_;  // deque: find() hands out stable pointers
  std::vector<LibraryProblem> problems_;
  std::vector<std::shared_ptr<LoadedLibrary>> libraries_;
};

/// Directory of the file holding the core library (libcontactlab_core.so).
std::filesystem::path core_library_directory();

}  // namespace contactlab::core
