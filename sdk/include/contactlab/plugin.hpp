// Plugin libraries: the descriptor a library exports, and the one macro that exports it.
//
// A plugin library defines its plugin classes (each constructible from ParameterValues and with a
// static `ParameterSchema schema()`), lists them in an array of PluginEntry made by plugin_entry<>,
// and ends with CONTACTLAB_PLUGIN_LIBRARY(...). The host reads the descriptor's first three fields
// (magic, SDK ABI version, descriptor size) before anything else, then the struct layouts and the
// build fingerprint, and refuses the library on any difference.
#pragma once

#include <boost/dll/alias.hpp>
#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>

#include "contactlab/broad_phase.hpp"
#include "contactlab/contact.hpp"
#include "contactlab/force_law.hpp"
#include "contactlab/friction.hpp"
#include "contactlab/integrator.hpp"
#include "contactlab/joint.hpp"
#include "contactlab/mechanics.hpp"
#include "contactlab/narrow_phase.hpp"
#include "contactlab/parameters.hpp"
#include "contactlab/shapes.hpp"
#include "contactlab/version.hpp"

namespace contactlab {

inline constexpr std::uint32_t plugin_descriptor_magic = 0x42414c43u;  // "CLAB"

enum class PluginKind : std::int32_t {
  broad_phase = 0,
  narrow_phase = 1,
  force_law = 2,
  friction = 3,
  integrator = 4,
  joint = 5,
};
inline constexpr int plugin_kind_count = 6;

/// The YAML/CLI spelling of a kind.
inline const char* plugin_kind_name(PluginKind kind) {
  switch (kind) {
    case PluginKind::broad_phase:
      return "broad_phase";
    case PluginKind::narrow_phase:
      return "narrow_phase";
    case PluginKind::force_law:
      return "force_law";
    case PluginKind::friction:
      return "friction";
    case PluginKind::integrator:
      return "integrator";
    case PluginKind::joint:
      return "joint";
  }
  return "unknown";
}

template <class Interface>
struct plugin_kind_of;
template <>
struct plugin_kind_of<BroadPhase> : std::integral_constant<PluginKind, PluginKind::broad_phase> {};
template <>
struct plugin_kind_of<NarrowPhase> : std::integral_constant<PluginKind, PluginKind::narrow_phase> {
};
template <>
struct plugin_kind_of<ForceLaw> : std::integral_constant<PluginKind, PluginKind::force_law> {};
template <>
struct plugin_kind_of<Friction> : std::integral_constant<PluginKind, PluginKind::friction> {};
template <>
struct plugin_kind_of<Integrator> : std::integral_constant<PluginKind, PluginKind::integrator> {};
template <>
struct plugin_kind_of<Joint> : std::integral_constant<PluginKind, PluginKind::joint> {};

/// Creates an instance: returns the Interface* (as void*) or nullptr with `error` set. Never
/// throws.
using PluginCreateFunction = void* (*)(const ParameterValues& params, std::string& error) noexcept;
/// Destroys an instance made by the matching create function. Never throws.
using PluginDestroyFunction = void (*)(void* instance) noexcept;
/// Fills the parameter schema. Returns false (and sets `error`) if building it failed.
using PluginSchemaFunction = bool (*)(ParameterSchema& out, std::string& error) noexcept;

struct PluginEntry {
  PluginKind kind;
  const char* name;         ///< unique within its kind, e.g. "hertz"
  const char* description;  ///< one line for `contactlab plugins`
  const char* version;      ///< the plugin's own semantic version
  PluginSchemaFunction schema;
  PluginCreateFunction create;
  PluginDestroyFunction destroy;
};

/// sizeof/alignof of every struct that crosses the boundary, as the plugin was compiled.
struct PluginLayout {
  std::uint32_t pose_size, pose_align;
  std::uint32_t shape_size, shape_align;
  std::uint32_t aabb_size, aabb_align;
  std::uint32_t contact_geometry_size, contact_geometry_align;
  std::uint32_t contact_kinematics_size, contact_kinematics_align;
  std::uint32_t contact_state_size, contact_state_align;
  std::uint32_t narrow_phase_cache_size, narrow_phase_cache_align;
  std::uint32_t contact_manifold_size, convex_hull_size;
  std::uint32_t narrow_phase_statistics_size, mechanics_contact_point_size;
  std::uint32_t parameter_spec_size, parameter_values_size;
  std::uint32_t integration_result_size, plugin_entry_size;

  static constexpr PluginLayout current() {
    return {sizeof(Pose),
            alignof(Pose),
            sizeof(Shape),
            alignof(Shape),
            sizeof(Aabb),
            alignof(Aabb),
            sizeof(ContactGeometry),
            alignof(ContactGeometry),
            sizeof(ContactKinematics),
            alignof(ContactKinematics),
            sizeof(ContactState),
            alignof(ContactState),
            sizeof(NarrowPhaseCache),
            alignof(NarrowPhaseCache),
            sizeof(ContactManifold),
            sizeof(ConvexHull),
            sizeof(NarrowPhaseStatistics),
            sizeof(MechanicsContactPoint),
            sizeof(ParameterSpec),
            sizeof(ParameterValues),
            sizeof(IntegrationResult),
            sizeof(PluginEntry)};
  }
};

struct PluginDescriptor {
  // --- read first; everything below only after these match ---
  std::uint32_t magic;            ///< plugin_descriptor_magic
  std::uint32_t sdk_abi_version;  ///< CONTACTLAB_SDK_ABI_VERSION the library was built with
  std::uint32_t descriptor_size;  ///< sizeof(PluginDescriptor) in the library
  // --- the rest ---
  PluginLayout layout;
  const char* build_fingerprint;  ///< CONTACTLAB_BUILD_FINGERPRINT in the library
  const char* library_name;
  const char* library_version;
  const PluginEntry* entries;
  std::uint32_t entry_count;
};

/// Signature of the exported entry, found under the alias name "contactlab_plugin_descriptor".
using PluginDescriptorFunction = const PluginDescriptor*() noexcept;
inline constexpr const char* plugin_entry_symbol = "contactlab_plugin_descriptor";

namespace detail {

template <class Interface, class Impl>
void* create_plugin(const ParameterValues& params, std::string& error) noexcept {
  try {
    Interface* instance = new Impl(params);
    return static_cast<void*>(instance);
  } catch (const std::exception& e) {
    try {
      error = e.what();
    } catch (...) {
    }
  } catch (...) {
    try {
      error = "unknown exception";
    } catch (...) {
    }
  }
  return nullptr;
}

template <class Interface>
void destroy_plugin(void* instance) noexcept {
  delete static_cast<Interface*>(instance);
}

template <class Impl>
bool plugin_schema(ParameterSchema& out, std::string& error) noexcept {
  try {
    out = Impl::schema();
    return true;
  } catch (const std::exception& e) {
    try {
      error = e.what();
    } catch (...) {
    }
  } catch (...) {
  }
  return false;
}

}  // namespace detail

/// The table row for plugin class Impl implementing Interface (BroadPhase, NarrowPhase, ...).
template <class Interface, class Impl>
constexpr PluginEntry plugin_entry(const char* name, const char* description, const char* version) {
  static_assert(std::is_base_of_v<Interface, Impl>, "Impl must implement Interface");
  return PluginEntry{plugin_kind_of<Interface>::value,
                     name,
                     description,
                     version,
                     &detail::plugin_schema<Impl>,
                     &detail::create_plugin<Interface, Impl>,
                     &detail::destroy_plugin<Interface>};
}

}  // namespace contactlab

/// Exports the descriptor of this plugin library. Use once per library, at namespace scope, after
/// the array of entries: CONTACTLAB_PLUGIN_LIBRARY("forcelaw-basic", "1.0.0", entries).
#define CONTACTLAB_PLUGIN_LIBRARY(library_name, library_version, entry_array)      \
  namespace contactlab_plugin_glue {                                               \
  const ::contactlab::PluginDescriptor* descriptor() noexcept {                    \
    static const ::contactlab::PluginDescriptor value{                             \
        ::contactlab::plugin_descriptor_magic,                                     \
        CONTACTLAB_SDK_ABI_VERSION,                                                \
        static_cast<std::uint32_t>(sizeof(::contactlab::PluginDescriptor)),        \
        ::contactlab::PluginLayout::current(),                                     \
        CONTACTLAB_BUILD_FINGERPRINT,                                              \
        library_name,                                                              \
        library_version,                                                           \
        entry_array,                                                               \
        static_cast<std::uint32_t>(sizeof(entry_array) / sizeof(entry_array[0]))}; \
    return &value;                                                                 \
  }                                                                                \
  }                                                                                \
  BOOST_DLL_ALIAS(contactlab_plugin_glue::descriptor, contactlab_plugin_descriptor)
