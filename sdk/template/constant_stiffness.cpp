// An example force law: a spring of constant stiffness with a viscous term that never pulls,
// f = max(0, k·δ + c·δ̇). Everything a plugin needs comes from <contactlab/contactlab.hpp>.
#include <algorithm>
#include <contactlab/contactlab.hpp>
#include <limits>

namespace {

class ConstantStiffness final : public contactlab::ForceLaw {
 public:
  explicit ConstantStiffness(const contactlab::ParameterValues& params)
      : stiffness_N_per_m_(params.real("stiffness_N_per_m")),
        damping_N_s_per_m_(params.real("damping_N_s_per_m")) {}

  /// Declared parameters: the host validates the user's `params:` against these.
  static contactlab::ParameterSchema schema() {
    const double inf = std::numeric_limits<double>::infinity();
    auto stiffness = contactlab::real_parameter("stiffness_N_per_m", 1.0e6, 0.0, inf, "N/m",
                                                "spring stiffness k");
    stiffness.minimum_exclusive = true;
    return {stiffness, contactlab::real_parameter("damping_N_s_per_m", 0.0, 0.0, inf, "N·s/m",
                                                  "viscous damping c")};
  }

  contactlab::ForceLawRequirements requirements() const override { return {}; }

  double normal_force(const contactlab::ContactKinematics& contact,
                      const contactlab::ContactState&) const override {
    return std::max(0.0, stiffness_N_per_m_ * contact.penetration_m +
                             damping_N_s_per_m_ * contact.penetration_rate_m_per_s);
  }

  double potential_energy(const contactlab::ContactKinematics& contact,
                          const contactlab::ContactState&) const override {
    return 0.5 * stiffness_N_per_m_ * contact.penetration_m * contact.penetration_m;
  }

 private:
  double stiffness_N_per_m_;
  double damping_N_s_per_m_;
};

const contactlab::PluginEntry entries[] = {
    contactlab::plugin_entry<contactlab::ForceLaw, ConstantStiffness>(
        "example_constant_stiffness", "example: f = max(0, k·δ + c·δ̇)", "1.0.0"),
};

}  // namespace

CONTACTLAB_PLUGIN_LIBRARY("example-plugins", "1.0.0", entries)
