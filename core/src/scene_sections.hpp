// Private to core/src: the readers of the experiment schema's sections, one file each, and the
// helpers they share. build_scene (scene.cpp) calls them in the order a reader of the YAML meets
// the sections; that order is also the order of the errors and of the defaults filled into the
// resolved configuration, so it is fixed there and nowhere else.
//
//   scene.cpp                 top level (name, description, duration_s, gravity_m_per_s2, output)
//   scene_materials.cpp       materials: {solids, pairs}
//   scene_plugin_choice.cpp   the `{type, params, library}` form of every plugin key; contact,
//                             integrator (sections that are plugin choices only)
//   scene_collision.cpp       collision: {broad_phase, narrow_phase, aabb_margin_m, sweep_boxes};
//                             collision groups; the checks every touching pair must pass
//   scene_bodies.cpp          bodies: [{name, parent, joint, joint_placement, mass, initial,
//                             geometry}]
//   scene_shapes.cpp          bodies[].geometry[].shape
//   scene_probes.cpp          metrics, probes
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "contactlab/core/scene.hpp"

namespace contactlab::core::scene_sections {

inline constexpr double infinity = std::numeric_limits<double>::infinity();

/// The items with `separator` between them ("a, b, c").
std::string join(const std::vector<std::string>& items, const std::string& separator);

// --- scene_plugin_choice.cpp ---

/// Reads a plugin choice written as `name` or `{type: name, params: {...}, library: path}` and
/// rewrites the node into the map form with the parameters filled in. `host_keys`, when given,
/// reads the keys the host accepts beside these (e.g. a joint's `can_collide`).
PluginChoice read_plugin_choice(ConfigNode& node, PluginKind kind, PluginRegistry& registry,
                                const std::filesystem::path& base_directory,
                                const std::function<void(MapReader&)>& host_keys = {});
/// `parent[key]`, an empty map inserted when absent (so the resolved file shows the section).
ConfigNode& ensure_map(ConfigNode& parent, const std::string& key);
/// `parent[key]`, the plugin name `default_type` inserted when absent.
ConfigNode& ensure_choice(ConfigNode& parent, const std::string& key,
                          const std::string& default_type);
/// `contact: {force_law, friction}`.
void read_contact(MapReader& top, Scene& scene, PluginRegistry& registry,
                  const std::filesystem::path& base_directory);
/// `integrator:`.
void read_integrator(MapReader& top, Scene& scene, PluginRegistry& registry,
                     const std::filesystem::path& base_directory);

// --- scene_materials.cpp ---

/// `materials: {solids: {Name: {...}}, pairs: [{materials: [A, B], ...}]}`.
MaterialPalette read_materials(ConfigNode& node);

// --- scene_collision.cpp ---

/// `collision:`: the broad phase, the narrow-phase chain, aabb_margin_m, sweep_boxes.
void read_collision(MapReader& top, Scene& scene, PluginRegistry& registry,
                    const std::filesystem::path& base_directory);
/// A geometry's `groups:` or `collides_with:`: a list of group names.
std::vector<std::string> read_group_names(const ConfigNode& list);
/// The bit of collision group `name`; `declare` adds unknown names (a geometry's `groups:`),
/// otherwise (`collides_with:`) an unknown name is an error with the known ones.
std::uint64_t group_bit(std::vector<std::string>& groups, const std::string& name,
                        const ConfigNode& node, bool declare);
/// Every pair of geometries that can touch has a narrow phase in the chain and a pair material;
/// `geometry_nodes[g]` is geometry g's entry (where a missing pair material is reported).
void check_touching_pairs(Scene& scene, PluginRegistry& registry,
                          const std::vector<const ConfigNode*>& geometry_nodes);

// --- scene_bodies.cpp ---

/// `bodies:` with their joints, mass properties, initial states and geometry (the materials must
/// have been read). Returns the node of each geometry, indexed like Scene::geometries.
std::vector<const ConfigNode*> read_bodies(MapReader& top, Scene& scene, PluginRegistry& registry,
                                           const std::filesystem::path& base_directory);

// --- scene_shapes.cpp ---

/// A geometry's `shape:`; a convex_hull's storage goes into scene.hulls, a warning into
/// scene.warnings when its points are not convex.
Shape read_shape(ConfigNode& node, Scene& scene, const std::filesystem::path& base_directory);

// --- scene_probes.cpp ---

/// `metrics: {restitution_pair}`.
void read_metrics(ConfigNode& node, Scene& scene);
/// `probes: [...]`.
void read_probes(ConfigNode& node, Scene& scene);

}  // namespace contactlab::core::scene_sections
