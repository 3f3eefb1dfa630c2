// The experiment's `materials:` section: solid materials by name (`solids: {Steel:
// {density_kg_per_m3, youngs_modulus_Pa, poisson_ratio}}`) and pair materials (`pairs: [{materials:
// [A, B], restitution, friction_kinetic, friction_static, rolling_friction}]`), looked up by
// unordered pair. Errors: a value out of range, a pair naming an unknown solid (with "did you mean"
// and the known solids), friction_static below friction_kinetic, a pair given twice; at run time, a
// missing pair material names the pair.
#include "scene_sections.hpp"

namespace contactlab::core {

namespace {

std::pair<std::string, std::string> sorted_pair(const std::string& a, const std::string& b) {
  return a < b ? std::make_pair(a, b) : std::make_pair(b, a);
}

}  // namespace

namespace scene_sections {

MaterialPalette read_materials(ConfigNode& node) {
  MaterialPalette palette;
  MapReader reader(node);
  if (ConfigNode* solids = reader.optional("solids")) {
    MapReader solids_reader(*solids);
    for (auto& [name, entry] : solids->entries()) {
      solids_reader.has(name);
      MapReader m(entry);
      SolidMaterial material;
      material.density_kg_per_m3 = m.real_in("density_kg_per_m3", 0.0, infinity, true);
      material.youngs_modulus_Pa = m.real_in("youngs_modulus_Pa", 0.0, infinity, true);
      material.poisson_ratio = m.real_in("poisson_ratio", 0.0, 0.5, false, true);
      m.finish();
      palette.solids[name] = material;
    }
    solids_reader.finish();
  }
  if (ConfigNode* pairs = reader.optional("pairs")) {
    if (!pairs->is_sequence()) fail_at(*pairs, "must be a list of pair materials");
    for (std::size_t i = 0; i < pairs->size(); ++i) {
      ConfigNode& entry = pairs->at(i);
      MapReader m(entry);
      ConfigNode& names = m.required("materials");
      if (!names.is_sequence() || names.size() != 2)
        fail_at(names, "must be a list of two solid material names [A, B]");
      std::vector<std::string> known;
      for (const auto& [name, solid] : palette.solids) known.push_back(name);
      for (std::size_t k = 0; k < 2; ++k) {
        const std::string name = as_string(names.at(k));
        if (!palette.solids.count(name)) {
          std::string suggestion = did_you_mean(name, known);
          fail_at(names.at(k),
                  "unknown solid material '" + name + "'" +
                      (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)") +
                      "; known solids: " + join(known, ", "));
        }
      }
      PairMaterial material;
      material.restitution = m.real_in("restitution", 0.0, 1.0);
      material.friction_kinetic = m.real_in_or("friction_kinetic", 0.0, 0.0, infinity);
      material.friction_static =
          m.real_in_or("friction_static", material.friction_kinetic, 0.0, infinity);
      material.rolling_friction = m.real_in_or("rolling_friction", 0.0, 0.0, infinity);
      m.finish();
      if (material.friction_static < material.friction_kinetic)
        fail_at(entry, "friction_static must be ≥ friction_kinetic");
      auto key = sorted_pair(as_string(names.at(0)), as_string(names.at(1)));
      if (palette.pairs.count(key))
        fail_at(entry, "pair material (" + key.first + ", " + key.second + ") is given twice");
      palette.pairs[key] = material;
    }
  }
  reader.finish();
  return palette;
}

}  // namespace scene_sections

const PairMaterial* MaterialPalette::find_pair(const std::string& a, const std::string& b) const {
  auto it = pairs.find(sorted_pair(a, b));
  return it == pairs.end() ? nullptr : &it->second;
}

const PairMaterial& MaterialPalette::pair(const std::string& a, const std::string& b) const {
  if (const PairMaterial* found = find_pair(a, b)) return *found;
  throw InputError("missing pair material (" + a + ", " + b + ")");
}

}  // namespace contactlab::core
