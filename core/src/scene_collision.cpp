// The experiment's `collision:` section (`broad_phase`, `narrow_phase` — one choice or a chain,
// the first member supporting a shape pair answers it — `aabb_margin_m`, `sweep_boxes`), the
// collision groups that geometries declare (`groups:`, `collides_with:`), the collision filter,
// and the checks every pair of geometries that can touch must pass. Errors: an empty narrow-phase
// chain, an unknown collision group in `collides_with` (with the known ones), more than 64 groups,
// a touching pair no member of the chain supports (naming the chain, the shapes and the
// geometries), a touching pair without a pair material.
#include "scene_sections.hpp"

namespace contactlab::core {

namespace fs = std::filesystem;

namespace scene_sections {

void read_collision(MapReader& top, Scene& scene, PluginRegistry& registry,
                    const fs::path& base_directory) {
  top.has("collision");
  ConfigNode& collision = ensure_map(top.node(), "collision");
  MapReader reader(collision);
  reader.has("broad_phase");
  reader.has("narrow_phase");
  scene.aabb_margin_m = reader.real_in_or("aabb_margin_m", 0.0, 0.0, infinity);
  scene.sweep_boxes = reader.boolean_or("sweep_boxes", false);
  reader.finish();
  scene.broad_phase = read_plugin_choice(ensure_choice(collision, "broad_phase", "brute_force"),
                                         PluginKind::broad_phase, registry, base_directory);
  ConfigNode& narrow = ensure_choice(collision, "narrow_phase", "primitive");
  if (!narrow.is_sequence()) {
    // A single choice is a chain of one.
    ConfigNode chain(ConfigNode::Kind::sequence, narrow.location(), narrow.path());
    chain.push_back(narrow);
    narrow = std::move(chain);
    narrow.rebase_path(narrow.path());
  }
  if (narrow.size() == 0) fail_at(narrow, "the narrow-phase chain is empty");
  for (std::size_t i = 0; i < narrow.size(); ++i)
    scene.narrow_phase.push_back(
        read_plugin_choice(narrow.at(i), PluginKind::narrow_phase, registry, base_directory));
}

/// A geometry's `groups:` or `collides_with:`: a list of group names.
std::vector<std::string> read_group_names(const ConfigNode& list) {
  if (!list.is_sequence()) fail_at(list, "must be a list of collision group names");
  std::vector<std::string> names;
  for (std::size_t k = 0; k < list.size(); ++k) names.push_back(as_string(list.at(k)));
  return names;
}

/// The bit of collision group `name`; `declare` adds unknown names (a geometry's `groups:`),
/// otherwise (`collides_with:`) an unknown name is an error with the known ones.
std::uint64_t group_bit(std::vector<std::string>& groups, const std::string& name,
                        const ConfigNode& node, bool declare) {
  for (std::size_t k = 0; k < groups.size(); ++k)
    if (groups[k] == name) return std::uint64_t{1} << k;
  if (!declare) {
    const std::string suggestion = did_you_mean(name, groups);
    fail_at(node,
            "unknown collision group '" + name + "'" +
                (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)") +
                "; groups are declared by geometries' `groups:`; known: " + join(groups, ", "));
  }
  if (groups.size() == 64) fail_at(node, "more than 64 collision groups");
  groups.push_back(name);
  return std::uint64_t{1} << (groups.size() - 1);
}

void check_touching_pairs(Scene& scene, PluginRegistry& registry,
                          const std::vector<const ConfigNode*>& geometry_nodes) {
  ConfigNode& narrow_node = *scene.resolved.find("collision")->find("narrow_phase");
  // The chain's members say what they support; the table built from their answers is the one
  // every run of this scene dispatches through.
  scene.narrow_phase_dispatch = NarrowPhaseChain(scene.narrow_phase, registry).dispatch();
  for (std::size_t i = 0; i < scene.geometries.size(); ++i) {
    for (std::size_t j = i + 1; j < scene.geometries.size(); ++j) {
      const GeometryModel& a = scene.geometries[i];
      const GeometryModel& b = scene.geometries[j];
      if (!a.collidable || !b.collidable || !collision_admitted(scene, i, j)) continue;
      if (scene.narrow_phase_dispatch.member(a.shape.type, b.shape.type) ==
          NarrowPhaseDispatch::none) {
        std::vector<std::string> chain;
        for (const auto& choice : scene.narrow_phase) chain.push_back(choice.type);
        fail_at(narrow_node, std::string("no narrow phase in the chain [") + join(chain, ", ") +
                                 "] supports the shape pair " + shape_type_name(a.shape.type) +
                                 "–" + shape_type_name(b.shape.type) + " (geometries '" + a.name +
                                 "' and '" + b.name + "')");
      }
      if (!scene.materials.find_pair(a.material, b.material))
        fail_at(*geometry_nodes[j], "missing pair material (" + a.material + ", " + b.material +
                                        ") for geometries '" + a.name + "' and '" + b.name +
                                        "'; add it under materials.pairs");
    }
  }
}

}  // namespace scene_sections

bool collision_admitted(const Scene& scene, std::size_t geometry_a, std::size_t geometry_b) {
  const GeometryModel& a = scene.geometries[geometry_a];
  const GeometryModel& b = scene.geometries[geometry_b];
  if (a.body == b.body) return false;
  const BodyModel& body_a = scene.bodies[a.body];
  const BodyModel& body_b = scene.bodies[b.body];
  if (!body_a.moves() && !body_b.moves()) return false;
  // Two bodies joined by a joint touch only when that joint allows it (can_collide: true).
  if (body_a.parent == static_cast<int>(b.body) && !body_a.joint_can_collide) return false;
  if (body_b.parent == static_cast<int>(a.body) && !body_b.joint_can_collide) return false;
  return (a.groups & b.collides_with) != 0 && (b.groups & a.collides_with) != 0;
}

}  // namespace contactlab::core
