// The narrow-phase chain's dispatch table, built from stand-in narrow phases (no plugins): the
// first member supporting an ordered pair of shape types answers it.
#include <catch2/catch.hpp>

#include "contactlab/core/narrow_phase_chain.hpp"

using namespace contactlab;
using namespace contactlab::core;

namespace {

/// Supports the ordered pairs it is given.
class Supports final : public NarrowPhase {
 public:
  explicit Supports(std::vector<std::pair<ShapeType, ShapeType>> pairs)
      : pairs_(std::move(pairs)) {}
  bool supports(ShapeType a, ShapeType b) const override {
    for (const auto& [x, y] : pairs_)
      if (x == a && y == b) return true;
    return false;
  }
  void query(const Shape&, const Pose&, const Shape&, const Pose&, NarrowPhaseCache&,
             ContactManifold&) override {}

 private:
  std::vector<std::pair<ShapeType, ShapeType>> pairs_;
};

}  // namespace

TEST_CASE(
    "narrow-phase dispatch: each ordered shape pair goes to the first member supporting it, "
    "none when no member does") {
  const auto S = ShapeType::sphere, B = ShapeType::box, H = ShapeType::half_space;
  const std::vector<std::shared_ptr<NarrowPhase>> chain{
      std::make_shared<Supports>(std::vector<std::pair<ShapeType, ShapeType>>{{S, S}, {S, H}}),
      std::make_shared<Supports>(
          std::vector<std::pair<ShapeType, ShapeType>>{{S, S}, {B, S}, {S, B}, {B, B}})};
  const NarrowPhaseDispatch dispatch(chain);
  CHECK(dispatch.member(S, S) == 0);  // both support it: the first wins
  CHECK(dispatch.member(S, H) == 0);
  CHECK(dispatch.member(B, S) == 1);
  CHECK(dispatch.member(S, B) == 1);
  CHECK(dispatch.member(B, B) == 1);
  CHECK(dispatch.member(H, S) == NarrowPhaseDispatch::none);  // only the other order is declared
  CHECK(dispatch.member(B, H) == NarrowPhaseDispatch::none);
  CHECK(NarrowPhaseDispatch().member(S, S) == NarrowPhaseDispatch::none);
}
