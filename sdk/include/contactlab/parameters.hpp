// Plugin parameter schemas and validated parameter values.
//
// A plugin declares the parameters it accepts (name, type, default, range, unit, documentation).
// The host validates the user's `params:` against the schema before calling the plugin's factory:
// unknown keys, wrong types and out-of-range values never reach plugin code, and every parameter
// the factory reads is present (defaults filled in).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "contactlab/errors.hpp"
#include "contactlab/export.hpp"

namespace contactlab {

enum class ParameterType : std::int32_t {
  real = 0,     ///< double; unit in ParameterSpec::unit
  integer = 1,  ///< 64-bit signed integer
  boolean = 2,  ///< true / false
  choice = 3,   ///< one string out of ParameterSpec::choices
  text = 4,     ///< free string (e.g. a file name)
};

inline const char* parameter_type_name(ParameterType type) {
  switch (type) {
    case ParameterType::real:
      return "real";
    case ParameterType::integer:
      return "integer";
    case ParameterType::boolean:
      return "boolean";
    case ParameterType::choice:
      return "choice";
    case ParameterType::text:
      return "text";
  }
  return "unknown";
}

using ParameterValue = std::variant<double, std::int64_t, bool, std::string>;

/// One declared parameter. The range is inclusive unless the exclusive flags say otherwise.
struct ParameterSpec {
  std::string
      name;  ///< key under `params:`; dimensional keys carry their unit (`stiffness_N_per_m`)
  ParameterType type = ParameterType::real;
  ParameterValue default_value = 0.0;  ///< must hold the alternative matching `type`
  double minimum = -std::numeric_limits<double>::infinity();  ///< for real and integer
  double maximum = std::numeric_limits<double>::infinity();   ///< for real and integer
  bool minimum_exclusive = false;
  bool maximum_exclusive = false;
  std::string unit;                  ///< SI unit, empty when dimensionless
  std::string doc;                   ///< one sentence for `contactlab plugins`
  std::vector<std::string> choices;  ///< for ParameterType::choice
};

using ParameterSchema = std::vector<ParameterSpec>;

/// Builder helpers so that schemas read as a table in plugin code.
inline ParameterSpec real_parameter(std::string name, double default_value, double minimum,
                                    double maximum, std::string unit, std::string doc) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.type = ParameterType::real;
  spec.default_value = default_value;
  spec.minimum = minimum;
  spec.maximum = maximum;
  spec.unit = std::move(unit);
  spec.doc = std::move(doc);
  return spec;
}

inline ParameterSpec integer_parameter(std::string name, std::int64_t default_value,
                                       std::int64_t minimum, std::int64_t maximum,
                                       std::string doc) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.type = ParameterType::integer;
  spec.default_value = default_value;
  spec.minimum = static_cast<double>(minimum);
  spec.maximum = static_cast<double>(maximum);
  spec.doc = std::move(doc);
  return spec;
}

inline ParameterSpec boolean_parameter(std::string name, bool default_value, std::string doc) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.type = ParameterType::boolean;
  spec.default_value = default_value;
  spec.doc = std::move(doc);
  return spec;
}

inline ParameterSpec choice_parameter(std::string name, std::string default_value,
                                      std::vector<std::string> choices, std::string doc) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.type = ParameterType::choice;
  spec.default_value = std::move(default_value);
  spec.choices = std::move(choices);
  spec.doc = std::move(doc);
  return spec;
}

/// Validated parameter values handed to a plugin factory: every declared parameter is present.
class ParameterValues {
 public:
  ParameterValues() = default;
  explicit ParameterValues(std::map<std::string, ParameterValue> values)
      : values_(std::move(values)) {}

  double real(const std::string& name) const { return get<double>(name); }
  std::int64_t integer(const std::string& name) const { return get<std::int64_t>(name); }
  bool boolean(const std::string& name) const { return get<bool>(name); }
  const std::string& text(const std::string& name) const { return get<std::string>(name); }

  /// The schema's defaults with `overrides` applied (each must name a declared parameter), for
  /// code that constructs a plugin class directly: tests, benchmarks, static linking.
  static ParameterValues defaults(const ParameterSchema& schema,
                                  const std::map<std::string, ParameterValue>& overrides = {}) {
    std::map<std::string, ParameterValue> values;
    for (const ParameterSpec& spec : schema) values[spec.name] = spec.default_value;
    for (const auto& [name, value] : overrides) {
      if (!values.count(name)) throw Error("parameter '" + name + "' is not in the schema");
      values[name] = value;
    }
    return ParameterValues(std::move(values));
  }

  bool contains(const std::string& name) const { return values_.count(name) != 0; }
  const std::map<std::string, ParameterValue>& all() const { return values_; }

 private:
  template <class T>
  const T& get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) throw Error("parameter '" + name + "' was not declared in the schema");
    if (const T* value = std::get_if<T>(&it->second)) return *value;
    throw Error("parameter '" + name + "' read with the wrong type");
  }

  std::map<std::string, ParameterValue> values_;
};

}  // namespace contactlab
