// The immutable model of one experiment, built from a configuration tree: bodies, geometries,
// materials, plugin choices (resolved against the registry, parameters validated).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "contactlab/core/config.hpp"
#include "contactlab/core/narrow_phase_chain.hpp"
#include "contactlab/core/registry.hpp"
#include "contactlab/core/shape_library.hpp"
#include "contactlab/materials.hpp"
#include "contactlab/plugin.hpp"

namespace contactlab::core {

/// One plugin chosen in the experiment, with validated parameters.
struct PluginChoice {
  PluginKind kind = PluginKind::force_law;
  std::string type;                              ///< plugin name
  std::optional<std::filesystem::path> library;  ///< explicit `library:` (resolved path)
  ParameterValues params;                        ///< validated, defaults filled
  const PluginInfo* info = nullptr;              ///< the registry's entry
  std::string config_path;                       ///< dotted path, for messages
};

struct GeometryModel {
  std::string name;
  std::size_t body = 0;  ///< index into Scene::bodies
  Shape shape;
  Pose X_BG;  ///< pose of the geometry frame in the body frame
  std::string material;
  bool collidable = true;                           ///< false: never a broad-phase proxy
  std::uint64_t groups = 1;                         ///< bit k: member of Scene::collision_groups[k]
  std::uint64_t collides_with = ~std::uint64_t{0};  ///< bit k: may touch members of group k
};

/// One body and the joint that connects it to its parent (a body, or the world). Scene::bodies
/// is in topological order: a body's parent comes before it.
struct BodyModel {
  std::string name;
  /// Index of the parent body in Scene::bodies (always smaller than the body's own), −1: world.
  int parent = -1;
  PluginChoice joint;
  /// The joint's `can_collide: true`: the geometries of this body and of its parent may touch.
  bool joint_can_collide = false;
  int nq = 0;
  int nv = 0;
  /// X_PJ: the joint frame J in the parent's body frame (the world for a root), from
  /// `joint_placement`; for a joint without coordinates and without `joint_placement`, where
  /// `initial` puts the body.
  Pose X_PJ;
  /// Its joint or an ancestor's has velocities (false: welded to the world).
  bool mobile = false;
  MassProperties mass;
  Pose X_WB_initial;                  ///< initial pose of the body frame (world)
  Vec3 v_WCm_initial = Vec3::Zero();  ///< initial velocity of the centre of mass [m/s]
  Vec3 w_WB_initial = Vec3::Zero();   ///< initial angular velocity [rad/s]
  std::vector<double> q_initial;      ///< joint coordinates realising the initial state
  std::vector<double> v_initial;
  std::vector<std::size_t> geometries;
  bool moves() const { return mobile; }
};

struct MaterialPalette {
  std::map<std::string, SolidMaterial> solids;
  std::map<std::pair<std::string, std::string>, PairMaterial> pairs;  ///< key: sorted names
  /// The pair's material; throws InputError naming the pair when the palette lacks it.
  const PairMaterial& pair(const std::string& a, const std::string& b) const;
  const PairMaterial* find_pair(const std::string& a, const std::string& b) const;
};

/// Geometries named by one side of a pair in `metrics:` or `probes:` — a geometry's name, or a
/// body's name standing for all its geometries.
struct GeometrySet {
  std::string name;                     ///< as written
  std::vector<std::size_t> geometries;  ///< indices into Scene::geometries, sorted
  bool contains(std::size_t geometry) const;
};

/// A named pair of geometry sets; matches a contact of geometry a and b in either order.
struct PairSelector {
  GeometrySet first, second;
  bool matches(std::size_t geometry_a, std::size_t geometry_b) const;
};

/// `probes:` — a quantity recorded into summary.json's `probes`.
struct ProbeModel {
  enum class Kind { body_state, contact_extreme };
  enum class Quantity {
    position,          ///< centre of mass, world [m]
    velocity,          ///< centre-of-mass velocity, world [m/s]
    angular_velocity,  ///< world [rad/s]
    orientation,       ///< quaternion of the body frame (w, x, y, z)
    max_normal_force,  ///< largest normal force of the pair over the output times [N]
    max_penetration,   ///< largest penetration of the pair over the output times [m]
  };
  std::string name;
  Kind kind = Kind::body_state;
  Quantity quantity = Quantity::position;
  std::string quantity_name;  ///< as written
  std::size_t body = 0;       ///< body_state: index into Scene::bodies
  /// body_state: 0..2 = x, y, z (orientation: 0..3 = w, x, y, z); 3 = the vector's norm.
  int component = 0;
  std::string component_name;
  double at_s = 0.0;              ///< body_state: the output time asked for [s]
  std::int64_t output_index = 0;  ///< body_state: at_s = output_index · output interval
  PairSelector pair;              ///< contact_extreme
  std::string unit;               ///< SI unit of the value ("1" for a quaternion component)
  std::string config_path;        ///< dotted path, for messages
};

/// `metrics:` — metrics computed from a run beyond the built-in ones.
struct MetricsModel {
  /// `restitution_pair: [a, b]`: the restitution of the pair's first impact.
  std::optional<PairSelector> restitution_pair;
};

struct Scene {
  std::string name;
  std::filesystem::path source_file;
  double duration_s = 1.0;
  Vec3 gravity_W = Vec3(0.0, 0.0, -9.81);
  double output_interval_s = 1e-3;
  bool record_contacts = true;
  /// output.contact_problems: a time-stepping run writes its local contact problems (Siconos
  /// format) every contact_problems_every-th step.
  bool contact_problems = false;
  std::int64_t contact_problems_every = 1;
  MaterialPalette materials;
  std::vector<BodyModel> bodies;
  std::vector<GeometryModel> geometries;
  PluginChoice broad_phase;
  double aabb_margin_m = 0.0;  ///< every box enlarged by this much on each side (loose boxes)
  bool sweep_boxes = false;    ///< boxes cover the motion since the last accepted step
  std::vector<std::string> collision_groups = {"default"};  ///< names of the group bits
  std::vector<PluginChoice> narrow_phase;  ///< chain: the first supporting a shape pair wins
  /// Which member of `narrow_phase` answers each ordered pair of shape types (built once, by
  /// build_scene; the runs dispatch through it).
  NarrowPhaseDispatch narrow_phase_dispatch;
  /// The integrator solves rigid contact by time stepping (its capabilities include
  /// needs_mechanics_view): force_law and friction are then empty (info null).
  bool time_stepping = false;
  PluginChoice force_law;
  PluginChoice friction;
  PluginChoice integrator;
  ConfigNode resolved;                              ///< the configuration with defaults filled in
  std::vector<std::unique_ptr<HullStorage>> hulls;  ///< owned data of convex_hull shapes
  std::vector<std::string> warnings;  ///< things the user should know (e.g. a mesh was hulled)
  MetricsModel metrics;
  std::vector<ProbeModel> probes;
};

/// Builds and checks the scene. Input problems throw InputError (file:line:col, dotted path);
/// plugin loading problems throw PluginError.
Scene build_scene(ConfigNode config, const std::filesystem::path& source_file,
                  PluginRegistry& registry);

/// The collision filter, applied after the broad phase and the same whatever broad phase runs:
/// false within one body, between two bodies that cannot move, between a body and its parent
/// body unless their joint says `can_collide: true`, and when the geometries' groups do not
/// admit each other (each must be in a group the other collides with).
bool collision_admitted(const Scene& scene, std::size_t geometry_a, std::size_t geometry_b);

/// Validates `params` (may be null) against `schema` and fills defaults into the tree; errors are
/// InputErrors located at the offending key.
ParameterValues validate_parameters(const ParameterSchema& schema, ConfigNode& params,
                                    const std::string& plugin_description);

}  // namespace contactlab::core
