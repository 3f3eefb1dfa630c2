// The experiment's `bodies:` section: each body's name, `parent` (world or a body), `joint` (a
// plugin choice, with the host key `can_collide`), `joint_placement`, `mass` (or mass properties
// from the geometry and the materials' densities), `initial` state in world coordinates (realised
// by the joint's coordinates relative to the parent) and its `geometry` entries (shape, pose,
// material, contact options, collision groups). Bodies are read in two passes: as written, then
// parents before children. Errors: an empty list, a name used twice or 'world', an unknown parent
// (with "did you mean") or a cycle of parents, a joint reporting impossible sizes, a non-positive
// or non-physical mass or inertia, a half_space on a moving body, a moving body of zero mass, an
// initial state the joint cannot realise, an unknown solid material.
#include <Eigen/Eigenvalues>
#include <deque>
#include <map>
#include <numbers>
#include <set>

#include "scene_sections.hpp"

namespace contactlab::core::scene_sections {

namespace fs = std::filesystem;

namespace {

/// `parent: world` (the default) hangs a body from the world frame.
const std::string world_name = "world";

/// `orientation: {quaternion_wxyz: [w, x, y, z]}` or `{axis: [x, y, z], angle_deg: a}`.
Mat3 read_orientation(ConfigNode& node) {
  MapReader reader(node);
  Mat3 R = Mat3::Identity();
  const bool has_quaternion = reader.has("quaternion_wxyz");
  const bool has_axis = reader.has("axis") || reader.has("angle_deg");
  if (has_quaternion && has_axis)
    fail_at(node, "give either quaternion_wxyz or axis with angle_deg, not both");
  if (has_quaternion) {
    ConfigNode& q = reader.required("quaternion_wxyz");
    if (!q.is_sequence() || q.size() != 4) fail_at(q, "must be a list of 4 numbers [w, x, y, z]");
    Eigen::Quaterniond quaternion(as_real(q.at(0)), as_real(q.at(1)), as_real(q.at(2)),
                                  as_real(q.at(3)));
    if (quaternion.norm() < 1e-12) fail_at(q, "the quaternion has zero length");
    R = quaternion.normalized().toRotationMatrix();
  } else if (has_axis) {
    Vec3 axis = reader.vec3("axis");
    if (axis.norm() < 1e-12) fail_at(reader.required("axis"), "the rotation axis has zero length");
    const double angle_deg = reader.real("angle_deg");
    R = Eigen::AngleAxisd(angle_deg * std::numbers::pi / 180.0, axis.normalized())
            .toRotationMatrix();
  }
  reader.finish();
  return R;
}

Pose read_pose(ConfigNode& node) {
  MapReader reader(node);
  Pose X;
  X.p = reader.vec3_or("position_m", Vec3::Zero());
  if (ConfigNode* orientation = reader.optional("orientation"))
    X.R = read_orientation(*orientation);
  reader.finish();
  return X;
}

}  // namespace

std::vector<const ConfigNode*> read_bodies(MapReader& top, Scene& scene, PluginRegistry& registry,
                                           const fs::path& base_directory) {
  // --- bodies and geometries ---
  // Pass 1, in the order written: names, parents, joints, joint placements, geometry. Pass 2, in
  // topological order (a parent before its children): mobility, mass properties, initial state.
  ConfigNode& bodies = top.required("bodies");
  if (!bodies.is_sequence() || bodies.size() == 0)
    fail_at(bodies, "must be a non-empty list of bodies");
  std::set<std::string> geometry_names;
  std::map<std::string, std::size_t> body_index;  // name → index as written
  std::vector<std::string> solid_names;
  for (const auto& [name, solid] : scene.materials.solids) solid_names.push_back(name);
  std::vector<const ConfigNode*> geometry_nodes;
  // collides_with may name groups declared by later geometries: resolved after all are read.
  std::vector<std::pair<std::size_t, ConfigNode*>> collides_with_nodes;

  struct WrittenBody {
    BodyModel model;
    std::shared_ptr<Joint> joint;
    ConfigNode* node = nullptr;
    ConfigNode* parent_node = nullptr;  ///< `parent:` (null: the world)
    std::string parent_name;
    bool has_placement = false;
  };
  std::vector<WrittenBody> written(bodies.size());
  std::deque<MapReader> readers;  // kept until pass 2 has read every key

  for (std::size_t b = 0; b < bodies.size(); ++b) {
    ConfigNode& body_node = bodies.at(b);
    MapReader& reader = readers.emplace_back(body_node);
    WrittenBody& entry = written[b];
    BodyModel& body = entry.model;
    entry.node = &body_node;
    ConfigNode& name_node = reader.required("name");
    body.name = as_string(name_node);
    if (body.name == world_name)
      fail_at(name_node, "the body name 'world' is reserved for the world frame (`parent: world`)");
    if (!body_index.emplace(body.name, b).second)
      fail_at(name_node, "body name '" + body.name + "' is used twice");
    if (ConfigNode* parent = reader.optional("parent")) {
      entry.parent_name = as_string(*parent);
      if (entry.parent_name != world_name) entry.parent_node = parent;
    }

    body.joint = read_plugin_choice(ensure_choice(body_node, "joint", "free"), PluginKind::joint,
                                    registry, base_directory, [&](MapReader& joint_reader) {
                                      // A host key of the joint choice, never a plugin parameter.
                                      body.joint_can_collide =
                                          joint_reader.boolean_or("can_collide", false);
                                    });
    reader.has("joint");
    entry.joint = registry.create<Joint>(*body.joint.info, body.joint.params);
    body.nq = entry.joint->nq();
    body.nv = entry.joint->nv();
    if (body.nv < 0 || body.nv > 6 || body.nq < 0 || body.nq < body.nv)
      throw PluginError(
          "joint '" + body.joint.type + "' from '" + body.joint.info->library_path.string() +
          "' reports nq = " + std::to_string(body.nq) + ", nv = " + std::to_string(body.nv) +
          "; a joint has 0 ≤ nv ≤ 6 and nq ≥ nv");
    if (ConfigNode* placement = reader.optional("joint_placement")) {
      body.X_PJ = read_pose(*placement);
      entry.has_placement = true;
    }

    // Geometry.
    if (ConfigNode* geometry_list = reader.optional("geometry")) {
      if (!geometry_list->is_sequence()) fail_at(*geometry_list, "must be a list of geometries");
      for (std::size_t g = 0; g < geometry_list->size(); ++g) {
        ConfigNode& geometry_node = geometry_list->at(g);
        MapReader gr(geometry_node);
        GeometryModel geometry;
        ConfigNode& geometry_name = gr.required("name");
        geometry.name = as_string(geometry_name);
        if (!geometry_names.insert(geometry.name).second)
          fail_at(geometry_name, "geometry name '" + geometry.name + "' is used twice");
        geometry.body = b;  // the index as written; renumbered after the topological sort
        geometry.shape = read_shape(gr.required("shape"), scene, base_directory);
        if (ConfigNode* pose = gr.optional("pose")) geometry.X_BG = read_pose(*pose);
        ConfigNode& material = gr.required("material");
        geometry.material = as_string(material);
        if (!scene.materials.solids.count(geometry.material)) {
          std::string suggestion = did_you_mean(geometry.material, solid_names);
          fail_at(material,
                  "unknown solid material '" + geometry.material + "'" +
                      (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)") +
                      (solid_names.empty() ? "; the palette has no solids (include "
                                             "configs/materials.yaml?)"
                                           : "; known solids: " + join(solid_names, ", ")));
        }
        geometry.collidable = gr.boolean_or("collidable", true);
        if (ConfigNode* radius = gr.optional("contact_radius_m")) {
          geometry.shape.contact_radius_m = as_real(*radius);
          check_range(*radius, geometry.shape.contact_radius_m, 0.0, infinity, true, false, "m");
        }
        if (ConfigNode* flat = gr.optional("flat")) geometry.shape.flat = as_boolean(*flat);
        if (ConfigNode* groups = gr.optional("groups")) {
          geometry.groups = 0;
          for (const std::string& group : read_group_names(*groups))
            geometry.groups |= group_bit(scene.collision_groups, group, *groups, true);
        }
        if (ConfigNode* with = gr.optional("collides_with"))
          collides_with_nodes.emplace_back(scene.geometries.size(), with);
        gr.finish();
        body.geometries.push_back(scene.geometries.size());
        scene.geometries.push_back(geometry);
        geometry_nodes.push_back(&geometry_node);
      }
    }
  }

  // Topological order: every body after its parent; bodies already in such an order keep it.
  std::vector<std::size_t> order;  // written indices
  {
    std::vector<std::string> names;
    for (const WrittenBody& entry : written) names.push_back(entry.model.name);
    std::vector<int> parent_of(written.size(), -1);
    for (std::size_t b = 0; b < written.size(); ++b) {
      const WrittenBody& entry = written[b];
      if (!entry.parent_node) continue;
      auto found = body_index.find(entry.parent_name);
      if (found == body_index.end()) {
        const std::string suggestion = did_you_mean(entry.parent_name, names);
        fail_at(
            *entry.parent_node,
            "body '" + entry.model.name + "' names an unknown parent '" + entry.parent_name + "'" +
                (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)") +
                "; a parent is `world` (the default) or one of the bodies: " + join(names, ", "));
      }
      parent_of[b] = static_cast<int>(found->second);
    }
    enum class Mark { none, on_path, done };
    std::vector<Mark> mark(written.size(), Mark::none);
    for (std::size_t start = 0; start < written.size(); ++start) {
      // Walk up to the first ancestor already placed (or the world), then place the path from
      // the top down.
      std::vector<std::size_t> path;
      int b = static_cast<int>(start);
      while (b >= 0 && mark[static_cast<std::size_t>(b)] != Mark::done) {
        const auto u = static_cast<std::size_t>(b);
        if (mark[u] == Mark::on_path) {
          std::string cycle = names[u];
          for (int k = parent_of[u]; k != b; k = parent_of[static_cast<std::size_t>(k)])
            cycle += " → " + names[static_cast<std::size_t>(k)];
          cycle += " → " + names[u];
          fail_at(*written[u].parent_node,
                  "body '" + names[u] + "' is its own ancestor: the parents form a cycle (" +
                      cycle + "); bodies form a tree whose roots hang from the world");
        }
        mark[u] = Mark::on_path;
        path.push_back(u);
        b = parent_of[u];
      }
      for (auto it = path.rbegin(); it != path.rend(); ++it) {
        mark[*it] = Mark::done;
        order.push_back(*it);
      }
    }
    std::vector<int> new_index(written.size(), -1);
    for (std::size_t i = 0; i < order.size(); ++i) new_index[order[i]] = static_cast<int>(i);
    for (std::size_t i = 0; i < order.size(); ++i) {
      const int parent = parent_of[order[i]];
      written[order[i]].model.parent =
          parent < 0 ? -1 : new_index[static_cast<std::size_t>(parent)];
    }
    for (GeometryModel& geometry : scene.geometries)
      geometry.body = static_cast<std::size_t>(new_index[geometry.body]);
  }

  // Pass 2. The realised world state of each placed body, for its children's relative state.
  std::vector<Pose> X_WB_of(order.size());
  std::vector<Vec3> v_WBo_of(order.size()), w_WB_of(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    WrittenBody& entry = written[order[i]];
    MapReader& reader = readers[order[i]];
    ConfigNode& body_node = *entry.node;
    BodyModel body = std::move(entry.model);
    const Joint& joint = *entry.joint;
    const bool has_parent = body.parent >= 0;
    const auto parent = static_cast<std::size_t>(body.parent);
    body.mobile = body.nv > 0 || (has_parent && scene.bodies[parent].mobile);

    // Mass properties: given, or from geometry and density.
    if (ConfigNode* mass_node = reader.optional("mass")) {
      MapReader mr(*mass_node);
      ConfigNode& m = mr.required("mass_kg");
      body.mass.mass_kg = as_real(m);
      if (!(body.mass.mass_kg > 0.0)) fail_at(m, "mass must be > 0 kg, got " + m.scalar());
      body.mass.p_BCm = mr.vec3_or("center_of_mass_m", Vec3::Zero());
      ConfigNode& inertia = mr.required("inertia_kg_m2");
      if (!inertia.is_sequence() || (inertia.size() != 3 && inertia.size() != 6))
        fail_at(inertia,
                "must be [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] about the "
                "centre of mass, body axes");
      std::vector<double> I;
      for (std::size_t k = 0; k < inertia.size(); ++k) I.push_back(as_real(inertia.at(k)));
      if (I.size() == 3) I.insert(I.end(), {0.0, 0.0, 0.0});
      body.mass.inertia_Cm_B << I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2];
      Eigen::SelfAdjointEigenSolver<Mat3> eigen(body.mass.inertia_Cm_B);
      const Vec3 principal = eigen.eigenvalues();
      if (!(principal.minCoeff() > 0.0)) fail_at(inertia, "the inertia must be positive definite");
      if (principal[0] + principal[1] < principal[2] * (1.0 - 1e-12))
        fail_at(inertia, "the principal moments violate the triangle inequality");
      mr.finish();
    } else if (body.moves()) {
      double total = 0.0;
      Vec3 first_moment = Vec3::Zero();
      for (std::size_t g : body.geometries) {
        const GeometryModel& geometry = scene.geometries[g];
        if (geometry.shape.type == ShapeType::half_space)
          fail_at(*geometry_nodes[g],
                  "a half_space has infinite mass; put it on a body welded to the world (a "
                  "fixed joint whose parents, if any, are fixed too)");
        const double density = scene.materials.solids.at(geometry.material).density_kg_per_m3;
        const MassProperties part = shape_mass_properties(geometry.shape, density);
        total += part.mass_kg;
        first_moment += part.mass_kg * geometry.X_BG.transform_point(part.p_BCm);
      }
      // A massless body is refused when its own joint moves it; one welded to a moving parent
      // (nv = 0) may be a massless frame.
      if (!(total > 0.0) && body.nv > 0)
        fail_at(body_node, "body '" + body.name +
                               "' has zero mass: give it geometry with a material, or a `mass:` "
                               "entry with mass_kg and inertia_kg_m2");
      body.mass.mass_kg = total;
      body.mass.p_BCm = total > 0.0 ? Vec3(first_moment / total) : Vec3::Zero();
      Mat3 inertia = Mat3::Zero();
      for (std::size_t g : body.geometries) {
        const GeometryModel& geometry = scene.geometries[g];
        const double density = scene.materials.solids.at(geometry.material).density_kg_per_m3;
        const MassProperties part = shape_mass_properties(geometry.shape, density);
        const Vec3 d = geometry.X_BG.transform_point(part.p_BCm) - body.mass.p_BCm;
        // Rotate into body axes, then parallel-axis shift to the body's centre of mass.
        inertia += geometry.X_BG.R * part.inertia_Cm_B * geometry.X_BG.R.transpose() +
                   part.mass_kg * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
      }
      body.mass.inertia_Cm_B = inertia;
    }

    // Initial state: `initial` is in world coordinates; the joint's q and v realise it relative
    // to the parent: X_JB = X_PJ⁻¹·X_WP⁻¹·X_WB, and the velocities relative to the parent in J
    // axes. Without `initial` the joint starts at its neutral configuration, at rest relative
    // to its parent.
    const Pose X_WP = has_parent ? X_WB_of[parent] : Pose::identity();
    const Vec3 v_WPo = has_parent ? v_WBo_of[parent] : Vec3::Zero();
    const Vec3 w_WP = has_parent ? w_WB_of[parent] : Vec3::Zero();
    ConfigNode* initial = reader.optional("initial");
    Pose X_WB_given;
    Vec3 v_WCm = Vec3::Zero(), w_WB = Vec3::Zero();
    if (initial) {
      MapReader ir(*initial);
      X_WB_given.p = ir.vec3_or("position_m", Vec3::Zero());
      if (ConfigNode* orientation = ir.optional("orientation"))
        X_WB_given.R = read_orientation(*orientation);
      v_WCm = ir.vec3_or("velocity_m_per_s", Vec3::Zero());
      w_WB = ir.vec3_or("angular_velocity_rad_per_s", Vec3::Zero());
      ir.finish();
    }
    body.q_initial.assign(body.nq, 0.0);
    body.v_initial.assign(body.nv, 0.0);
    joint.neutral_configuration(body.q_initial);
    auto cannot_realise = [&]() {
      fail_at(initial ? *initial : body_node,
              "a " + body.joint.type +
                  " joint cannot realise the initial pose and velocity "
                  "of body '" +
                  body.name + "'" +
                  (has_parent ? " relative to its parent '" + scene.bodies[parent].name + "'"
                              : std::string()));
    };
    if (body.nq == 0 && body.nv == 0) {
      // A joint without coordinates places the body where `initial` says, for good (unless
      // joint_placement says where the joint is); it moves only with its parent.
      if (initial && (v_WCm.norm() > 0.0 || w_WB.norm() > 0.0))
        fail_at(*initial, "body '" + body.name + "' has a " + body.joint.type +
                              " joint and cannot have an initial velocity");
      const Pose X_JB = joint.transform(body.q_initial);
      if (!entry.has_placement) {
        if (initial) body.X_PJ = X_WP.inverse() * X_WB_given * X_JB.inverse();
      } else if (initial &&
                 !joint.from_pose(body.X_PJ.inverse() * X_WP.inverse() * X_WB_given, Vec3::Zero(),
                                  Vec3::Zero(), body.q_initial, body.v_initial)) {
        cannot_realise();
      }
    } else if (initial) {
      const Pose X_WJ = X_WP * body.X_PJ;
      const Vec3 v_WBo = v_WCm - w_WB.cross(X_WB_given.R * body.mass.p_BCm);
      // Velocity of B's origin relative to the parent's frame (and so to J), and B's angular
      // velocity relative to the parent, in J axes.
      const Vec3 v_relative_W = v_WBo - v_WPo - w_WP.cross(X_WB_given.p - X_WP.p);
      const Vec3 w_relative_W = w_WB - w_WP;
      if (!joint.from_pose(X_WJ.inverse() * X_WB_given, X_WJ.R.transpose() * v_relative_W,
                           X_WJ.R.transpose() * w_relative_W, body.q_initial, body.v_initial))
        cannot_realise();
    }
    // The realised world state (from q and v), for the children and for BodyModel.
    {
      const Pose X_WJ = X_WP * body.X_PJ;
      const Pose X_WB = X_WJ * joint.transform(body.q_initial);
      Vec3 v_J = Vec3::Zero(), w_J = Vec3::Zero();
      if (body.nv > 0) {
        std::vector<double> S(6 * static_cast<std::size_t>(body.nv));
        joint.motion_subspace(body.q_initial, S);
        for (int k = 0; k < body.nv; ++k) {
          v_J += Vec3(S[6 * k], S[6 * k + 1], S[6 * k + 2]) * body.v_initial[k];
          w_J += Vec3(S[6 * k + 3], S[6 * k + 4], S[6 * k + 5]) * body.v_initial[k];
        }
      }
      X_WB_of[i] = X_WB;
      w_WB_of[i] = w_WP + X_WJ.R * w_J;
      v_WBo_of[i] = v_WPo + w_WP.cross(X_WB.p - X_WP.p) + X_WJ.R * v_J;
    }
    if (initial) {
      body.X_WB_initial = X_WB_given;
      body.v_WCm_initial = v_WCm;
      body.w_WB_initial = w_WB;
    } else {
      body.X_WB_initial = X_WB_of[i];
      body.w_WB_initial = w_WB_of[i];
      body.v_WCm_initial = v_WBo_of[i] + w_WB_of[i].cross(X_WB_of[i].R * body.mass.p_BCm);
    }
    reader.finish();
    scene.bodies.push_back(std::move(body));
  }

  for (auto& [g, node] : collides_with_nodes) {
    scene.geometries[g].collides_with = 0;
    for (const std::string& group : read_group_names(*node))
      scene.geometries[g].collides_with |= group_bit(scene.collision_groups, group, *node, false);
  }
  return geometry_nodes;
}

}  // namespace contactlab::core::scene_sections
