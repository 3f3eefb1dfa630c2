#include "bilinear_force_law.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <contactlab/errors.hpp>
#include <contactlab/law_support.hpp>

namespace contactlab::plugins {

namespace {

constexpr double inactive = -1.0;  // an event function that does not apply: never armed

}  // namespace

BilinearForceLaw::BilinearForceLaw(const ParameterValues& params)
    : loading_stiffness_N_per_m_(params.real("stiffness_N_per_m")),
      restitution_override_(params.real("restitution")),
      variant_(params.text("variant") == "chatterjee" ? Variant::chatterjee : Variant::stronge) {
  const std::string& variant = params.text("variant");
  if (variant != "stronge" && variant != "chatterjee") {
    throw InputError("bilinear: params.variant is '" + variant +
                     "'; expected 'stronge' or 'chatterjee'");
  }
  if (!(std::isfinite(loading_stiffness_N_per_m_) && loading_stiffness_N_per_m_ > 0.0)) {
    throw InputError("bilinear: params.stiffness_N_per_m is " +
                     format_number(loading_stiffness_N_per_m_) + "; it must be finite and > 0 N/m");
  }
  if (!(restitution_override_ == -1.0 ||
        (restitution_override_ >= 0.0 && restitution_override_ <= 1.0))) {
    throw InputError("bilinear: params.restitution is " + format_number(restitution_override_) +
                     "; give e in [0, 1], or -1 (the default) to use the pair material's "
                     "restitution");
  }
}

ParameterSchema BilinearForceLaw::schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ParameterSpec stiffness =
      real_parameter("stiffness_N_per_m", 1e6, 0.0, inf, "N/m",
                     "Loading stiffness k1 in f = k1*delta (unloading: k1/e^2 for stronge, "
                     "e^2*k1 for chatterjee).");
  stiffness.minimum_exclusive = true;
  stiffness.maximum_exclusive = true;
  return {stiffness,
          real_parameter("restitution", -1.0, -1.0, 1.0, "",
                         "Coefficient of restitution e in [0, 1]; -1 (default) uses the pair "
                         "material's restitution."),
          choice_parameter("variant", "stronge", {"stronge", "chatterjee"},
                           "stronge: unloading line k1/e^2 ending at the residual indentation "
                           "(continuous force); chatterjee: both lines through the origin, the "
                           "force jumps down to e^2*k1*delta at maximum compression.")};
}

ForceLawRequirements BilinearForceLaw::requirements() const {
  return {};
}

double BilinearForceLaw::restitution(const ContactKinematics& contact) const {
  if (restitution_override_ >= 0.0) return restitution_override_;
  return checked_restitution(contact, "bilinear", " (or set params.restitution)");
}

double BilinearForceLaw::normal_force(const ContactKinematics& contact,
                                      const ContactState& state) const {
  const double delta_m = contact.penetration_m;
  const LawMemory& memory = state.law;
  const double k1 = loading_stiffness_N_per_m_;
  if (delta_m <= 0.0) return 0.0;
  if (variant_ == Variant::chatterjee) {
    return memory.mode == loading ? k1 * delta_m : memory.data[unloading_stiffness_slot] * delta_m;
  }
  const double delta_max_m = memory.data[max_compression_slot];
  const double delta_r_m = memory.data[residual_indentation_slot];
  if (delta_m >= delta_max_m) return k1 * delta_m;  // loading line (δ_max = 0 before the switch)
  if (delta_m <= delta_r_m) return 0.0;             // released: below the residual indentation
  // The unloading line through (δ_r, 0) and (δ_max, k₁·δ_max): slope k₂ = k₁/e² (δ_r < δ_max here,
  // so e > 0), taken from the memory so that it meets the loading line exactly at δ_max.
  return k1 * delta_max_m * (delta_m - delta_r_m) / (delta_max_m - delta_r_m);
}

double BilinearForceLaw::potential_energy(const ContactKinematics& contact,
                                          const ContactState& state) const {
  return stored_energy(contact, state.law);
}

double BilinearForceLaw::stored_energy(const ContactKinematics& contact,
                                       const LawMemory& memory) const {
  const double delta_m = contact.penetration_m;
  const double k1 = loading_stiffness_N_per_m_;
  if (delta_m <= 0.0) return 0.0;
  if (variant_ == Variant::chatterjee) {
    const double stiffness = memory.mode == loading ? k1 : memory.data[unloading_stiffness_slot];
    return 0.5 * stiffness * delta_m * delta_m;
  }
  const double delta_max_m = memory.data[max_compression_slot];
  const double delta_r_m = memory.data[residual_indentation_slot];
  // Loading line: ½k₁δ² less the loss (1 − e²)·½k₁δ_max² = ½k₁·δ_r·δ_max booked at the last switch.
  if (delta_m >= delta_max_m) return 0.5 * k1 * (delta_m * delta_m - delta_r_m * delta_max_m);
  if (delta_m <= delta_r_m) return 0.0;
  // Unloading line: the triangle ½·f·(δ − δ_r) = ½k₂(δ − δ_r)².
  const double force_N = k1 * delta_max_m * (delta_m - delta_r_m) / (delta_max_m - delta_r_m);
  return 0.5 * force_N * (delta_m - delta_r_m);
}

ContactLawLayout BilinearForceLaw::layout() const {
  ContactLawLayout layout;
  layout.event_functions = variant_ == Variant::stronge ? 3 : 1;
  return layout;
}

void BilinearForceLaw::on_birth(const ContactKinematics& /*contact*/, LawMemory& memory) const {
  memory.mode = loading;
  memory.data.fill(0.0);
}

void BilinearForceLaw::event_functions(const ContactKinematics& contact, double /*normal_force_N*/,
                                       const LawMemory& memory, std::span<double> g) const {
  const double delta_m = contact.penetration_m;
  const double rate_m_per_s = contact.penetration_rate_m_per_s;
  if (variant_ == Variant::chatterjee) {
    g[max_compression_event] = memory.mode == loading ? rate_m_per_s : inactive;
    return;
  }
  const double delta_max_m = memory.data[max_compression_slot];
  const double delta_r_m = memory.data[residual_indentation_slot];
  const bool switched = delta_max_m > 0.0;
  // On the loading line (δ ≥ δ_max, which is every δ before the first switch) the next maximum
  // compression is where δ̇ falls to zero. Right after a switch g = δ̇ ≤ 0, which disarms it.
  g[max_compression_event] = delta_m >= delta_max_m ? rate_m_per_s : inactive;
  // The unloading line's force, negative below δ_r (there is no such line when e = 0).
  g[force_zero_event] = switched && delta_max_m > delta_r_m
                            ? loading_stiffness_N_per_m_ * delta_max_m * (delta_m - delta_r_m) /
                                  (delta_max_m - delta_r_m)
                            : inactive;
  g[reloading_event] = switched ? delta_max_m - delta_m : inactive;
}

const char* BilinearForceLaw::event_name(int index) const {
  switch (index) {
    case max_compression_event:
      return "max_compression";
    case force_zero_event:
      return "force_zero";
    case reloading_event:
      return "reloading";
    default:
      return "law_event";
  }
}

void BilinearForceLaw::on_event(int index, const ContactKinematics& contact,
                                double /*normal_force_N*/, LawMemory& memory) const {
  const double k1 = loading_stiffness_N_per_m_;
  switch (index) {
    case max_compression_event: {
      const double e = restitution(contact);
      const double delta_max_m = std::max(0.0, contact.penetration_m);
      memory.data[max_compression_slot] = delta_max_m;
      memory.data[restitution_slot] = e;
      if (variant_ == Variant::chatterjee) {
        memory.data[residual_indentation_slot] = 0.0;
        memory.data[unloading_stiffness_slot] = e * e * k1;
        memory.mode = unloading;
        return;
      }
      // k₂(δ_max − δ_r) = k₁·δ_max with k₂ = k₁/e²  ⇒  δ_r = δ_max·(1 − e²).
      memory.data[residual_indentation_slot] = delta_max_m * (1.0 - e * e);
      memory.data[unloading_stiffness_slot] =
          e > 0.0 ? k1 / (e * e) : std::numeric_limits<double>::infinity();
      memory.mode = e > 0.0 ? unloading : released;
      return;
    }
    case force_zero_event:
      memory.mode = released;
      return;
    case reloading_event:
      memory.mode = loading;
      return;
    default:
      return;
  }
}

}  // namespace contactlab::plugins
