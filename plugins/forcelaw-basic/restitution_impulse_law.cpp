#include "restitution_impulse_law.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>

#include <contactlab/errors.hpp>
#include <contactlab/law_support.hpp>

#include "hertz_force_law.hpp"
#include "hunt_crossley_force_law.hpp"
#include "linear_force_law.hpp"

namespace contactlab::plugins {

namespace {

/// One penalty law that may hold a contact below the resting velocity.
struct RestingLawChoice {
  const char* name;
  ParameterSchema (*schema)();
  std::unique_ptr<ForceLaw> (*make)(const ParameterValues& params);
};

template <class Law>
constexpr RestingLawChoice resting_law_choice(const char* name) {
  return {name, &Law::schema, [](const ParameterValues& params) -> std::unique_ptr<ForceLaw> {
            return std::make_unique<Law>(params);
          }};
}

/// The resting_law choices; the first is the default. Adding a penalty law is one line here (plus
/// its #include): its parameters are forwarded as resting_<name> by schema() automatically.
constexpr RestingLawChoice resting_law_choices[] = {
    resting_law_choice<LinearForceLaw>("linear"),
    resting_law_choice<HertzForceLaw>("hertz"),
    resting_law_choice<HuntCrossleyForceLaw>("hunt_crossley"),
};

std::string forwarded_name(const std::string& name) {
  return RestitutionImpulseLaw::resting_prefix + name;
}

const RestingLawChoice& choice_named(const std::string& name) {
  for (const RestingLawChoice& choice : resting_law_choices) {
    if (name == choice.name) return choice;
  }
  std::string known;
  for (const RestingLawChoice& choice : resting_law_choices) {
    known += known.empty() ? "" : ", ";
    known += choice.name;
  }
  throw InputError("restitution_impulse: params.resting_law is '" + name + "'; expected one of " +
                   known);
}

bool declares(const ParameterSchema& schema, const std::string& name) {
  for (const ParameterSpec& spec : schema) {
    if (spec.name == name) return true;
  }
  return false;
}

/// The chosen law's parameters from the resting_* values; refuses a resting_* parameter that only
/// other resting laws declare and that differs from its default (it would be silently ignored).
ParameterValues resting_parameters(const ParameterValues& params, const std::string& law_name) {
  const ParameterSchema own = choice_named(law_name).schema();
  std::map<std::string, ParameterValue> values;
  for (const ParameterSpec& spec : own) {
    const auto it = params.all().find(forwarded_name(spec.name));
    if (it == params.all().end()) {
      throw InputError("restitution_impulse: params." + forwarded_name(spec.name) +
                       " is missing (resting_law " + law_name + " needs it)");
    }
    values[spec.name] = it->second;
  }
  for (const RestingLawChoice& other : resting_law_choices) {
    if (law_name == other.name) continue;
    for (const ParameterSpec& spec : other.schema()) {
      if (declares(own, spec.name)) continue;
      const auto it = params.all().find(forwarded_name(spec.name));
      if (it != params.all().end() && !(it->second == spec.default_value)) {
        throw InputError("restitution_impulse: params." + forwarded_name(spec.name) +
                         " is set, but it belongs to resting_law " + other.name +
                         " and resting_law is " + law_name);
      }
    }
  }
  return ParameterValues(std::move(values));
}

}  // namespace

RestitutionImpulseLaw::RestitutionImpulseLaw(const ParameterValues& params)
    : restitution_override_(params.real("restitution")),
      resting_velocity_m_per_s_(params.real("resting_velocity_m_per_s")) {
  if (!(restitution_override_ == -1.0 ||
        (restitution_override_ >= 0.0 && restitution_override_ <= 1.0))) {
    throw InputError("restitution_impulse: params.restitution is " +
                     format_number(restitution_override_) +
                     "; give e in [0, 1], or -1 (the default) to use the pair material's "
                     "restitution");
  }
  if (!(std::isfinite(resting_velocity_m_per_s_) && resting_velocity_m_per_s_ >= 0.0)) {
    throw InputError("restitution_impulse: params.resting_velocity_m_per_s is " +
                     format_number(resting_velocity_m_per_s_) + "; it must be finite and >= 0 m/s");
  }
  const std::string& law_name = params.text("resting_law");
  resting_law_ = choice_named(law_name).make(resting_parameters(params, law_name));
}

ParameterSchema RestitutionImpulseLaw::schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec resting_velocity = real_parameter(
      "resting_velocity_m_per_s", 0.01, 0.0, inf, "m/s",
      "Approach speeds at least this large get Newton's velocity jump; slower contacts are held "
      "by resting_law.");
  resting_velocity.maximum_exclusive = true;
  std::vector<std::string> names = resting_law_names();
  ParameterSchema schema{
      real_parameter("restitution", -1.0, -1.0, 1.0, "",
                     "Newton's coefficient of restitution e in [0, 1]; -1 (default) uses the pair "
                     "material's restitution."),
      resting_velocity,
      choice_parameter("resting_law", names.front(), names,
                       "Penalty law holding contacts slower than resting_velocity_m_per_s; its "
                       "parameters are the resting_* ones."),
  };
  // The resting laws' parameters, prefixed; a name several laws declare appears once (the first
  // law's spec) and its doc lists the laws.
  const std::size_t own_count = schema.size();
  for (const RestingLawChoice& choice : resting_law_choices) {
    for (ParameterSpec spec : choice.schema()) {
      spec.name = forwarded_name(spec.name);
      bool merged = false;
      for (std::size_t i = own_count; i < schema.size(); ++i) {
        if (schema[i].name == spec.name) {
          const std::size_t close = schema[i].doc.find(']');
          schema[i].doc.insert(close, std::string(", ") + choice.name);
          merged = true;
        }
      }
      if (merged) continue;
      spec.doc = std::string("[resting_law ") + choice.name + "] " + spec.doc;
      schema.push_back(std::move(spec));
    }
  }
  return schema;
}

std::vector<std::string> RestitutionImpulseLaw::resting_law_names() {
  std::vector<std::string> names;
  for (const RestingLawChoice& choice : resting_law_choices) names.emplace_back(choice.name);
  return names;
}

ForceLawRequirements RestitutionImpulseLaw::requirements() const {
  ForceLawRequirements requirements = resting_law_->requirements();
  requirements.impulsive = true;
  return requirements;
}

double RestitutionImpulseLaw::normal_force(const ContactKinematics& contact,
                                           const ContactState& state) const {
  return resting_law_->normal_force(contact, state);
}

double RestitutionImpulseLaw::potential_energy(const ContactKinematics& contact,
                                               const ContactState& state) const {
  return resting_law_->potential_energy(contact, state);
}

double RestitutionImpulseLaw::activation_distance_m() const {
  return resting_law_->activation_distance_m();
}

double RestitutionImpulseLaw::impact_restitution(const ContactKinematics& contact) const {
  // Not `v < v_rest`: a NaN approach speed gets no impulse.
  if (!(contact.penetration_rate_m_per_s >= resting_velocity_m_per_s_)) return no_impulse;
  if (restitution_override_ >= 0.0) return restitution_override_;
  return checked_restitution(contact, "restitution_impulse", " (or set params.restitution)");
}

ContactLawLayout RestitutionImpulseLaw::layout() const {
  return resting_law_->layout();
}

void RestitutionImpulseLaw::on_birth(const ContactKinematics& contact, LawMemory& memory) const {
  resting_law_->on_birth(contact, memory);
}

void RestitutionImpulseLaw::continuous_rate(const ContactKinematics& contact, double normal_force_N,
                                            const LawMemory& memory, std::span<double> rate) const {
  resting_law_->continuous_rate(contact, normal_force_N, memory, rate);
}

void RestitutionImpulseLaw::event_functions(const ContactKinematics& contact, double normal_force_N,
                                            const LawMemory& memory, std::span<double> g) const {
  resting_law_->event_functions(contact, normal_force_N, memory, g);
}

const char* RestitutionImpulseLaw::event_name(int index) const {
  return resting_law_->event_name(index);
}

void RestitutionImpulseLaw::on_event(int index, const ContactKinematics& contact,
                                     double normal_force_N, LawMemory& memory) const {
  resting_law_->on_event(index, contact, normal_force_N, memory);
}

}  // namespace contactlab::plugins
