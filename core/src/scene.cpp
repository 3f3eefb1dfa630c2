// Building the Scene from a configuration tree: the experiment's top-level keys (name,
// description, duration_s, gravity_m_per_s2, output: {interval_s, contacts,
// contact_problems, contact_problems_every}) and the order in
// which the sections are read; each section has its own file (see scene_sections.hpp). Errors
// here: a duration that is not > 0, a malformed gravity vector, an output interval that is not
// > 0, a missing `bodies:`, and any top-level key nobody reads (with "did you mean").
#include "contactlab/core/scene.hpp"

#include "scene_sections.hpp"

namespace contactlab::core {

namespace fs = std::filesystem;

Scene build_scene(ConfigNode config, const fs::path& source_file, PluginRegistry& registry) {
  using namespace scene_sections;
  Scene scene;
  scene.source_file = source_file;
  scene.resolved = std::move(config);
  ConfigNode& root = scene.resolved;
  const fs::path base_directory = source_file.parent_path();
  MapReader top(root);

  scene.name = top.string_or("name", source_file.stem().string());
  if (top.has("description")) as_string(top.required("description"));
  scene.duration_s = top.real_in("duration_s", 0.0, infinity, true);
  scene.gravity_W = top.vec3_or("gravity_m_per_s2", Vec3(0.0, 0.0, -9.81));
  const ConfigNode* contact_problems_node = nullptr;
  {
    if (!top.has("output")) root.set("output", ConfigNode(ConfigNode::Kind::map, {}, ""));
    MapReader output(top.required("output"));
    scene.output_interval_s = output.real_in_or("interval_s", 1e-3, 0.0, infinity, true);
    scene.record_contacts = output.boolean_or("contacts", true);
    if (ConfigNode* problems = output.optional("contact_problems")) {
      scene.contact_problems = as_boolean(*problems);
      contact_problems_node = problems;
    }
    if (ConfigNode* every = output.optional("contact_problems_every")) {
      scene.contact_problems_every = as_integer(*every);
      if (scene.contact_problems_every < 1)
        fail_at(*every, "must be an integer >= 1 (write every k-th step's problem), got " +
                            std::to_string(scene.contact_problems_every));
    }
    output.finish();
  }

  if (ConfigNode* materials = top.optional("materials"))
    scene.materials = read_materials(*materials);

  // Plugin choices, defaults filled in so the resolved file shows them.
  read_collision(top, scene, registry, base_directory);
  // The integrator before `contact:`: a time-stepping integrator takes no penalty law.
  read_integrator(top, scene, registry, base_directory);
  read_contact(top, scene, registry, base_directory);
  if (scene.contact_problems && !scene.time_stepping)
    fail_at(*contact_problems_node,
            "output.contact_problems asks for the local contact problems of a time-stepping "
            "integrator, but integrator '" +
                scene.integrator.type + "' integrates penalty forces (choose e.g. pgs)");

  const std::vector<const ConfigNode*> geometry_nodes =
      read_bodies(top, scene, registry, base_directory);
  // Every pair that can touch needs a narrow phase and a pair material.
  check_touching_pairs(scene, registry, geometry_nodes);

  // Metrics and probes name bodies and geometries: read last.
  if (ConfigNode* metrics = top.optional("metrics")) read_metrics(*metrics, scene);
  if (ConfigNode* probes = top.optional("probes")) read_probes(*probes, scene);
  top.finish();
  return scene;
}

}  // namespace contactlab::core
