#include "aabb_tree_broad_phase.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <contactlab/errors.hpp>

namespace contactlab::plugins {

namespace {

using aabb_tree::Box;
using aabb_tree::Node;
using aabb_tree::TreeBox;

constexpr double infinity = std::numeric_limits<double>::infinity();

/// Boxes with a bound beyond this (or infinite) stay out of the tree: float holds it (FLT_MAX is
/// 3.4e38), and areas of boxes within it are finite in double.
constexpr double tree_limit = 1e38;

/// A hint to load the cache line of `address` (where the compiler offers one).
inline void prefetch(const void* address) {
#if defined(__GNUC__)
  __builtin_prefetch(address);
#else
  (void)address;
#endif
}

/// How many pairs ahead update_pairs() asks for the boxes it will test.
constexpr std::size_t prefetch_distance = 12;

/// Weight of the squared edge sum in cost(); see there.
constexpr double degenerate_weight = 1e-3;

/// The insertion and rotation cost of a box: half its surface area, plus a small multiple of the
/// squared sum of its edges. The second term (dimensionally an area too) shifts costs by about
/// 0.3 % for ordinary boxes; it matters only where areas vanish (boxes flat along two axes, e.g.
/// points on a line with no margin), where the area alone would make every choice tie and the
/// tree would lose its spatial coherence.
inline double cost(const TreeBox& b) {
  const double x = double(b.hi[0]) - double(b.lo[0]);
  const double y = double(b.hi[1]) - double(b.lo[1]);
  const double z = double(b.hi[2]) - double(b.lo[2]);
  const double sum = x + y + z;
  return x * y + y * z + z * x + degenerate_weight * sum * sum;
}

inline TreeBox merged(const TreeBox& a, const TreeBox& b) {
  TreeBox u;
  for (int i = 0; i < 3; ++i) {
    u.lo[i] = std::min(a.lo[i], b.lo[i]);
    u.hi[i] = std::max(a.hi[i], b.hi[i]);
  }
  return u;
}

/// Closed boxes: touching counts; infinite bounds compare correctly. Evaluated without
/// short-circuiting: in the tree loops the outcome is hard to predict, and a branch per axis
/// costs more than the comparisons it would skip.
template <class B>
inline bool overlaps(const B& a, const B& b) {
  return (a.lo[0] <= b.hi[0]) & (b.lo[0] <= a.hi[0]) & (a.lo[1] <= b.hi[1]) & (b.lo[1] <= a.hi[1]) &
         (a.lo[2] <= b.hi[2]) & (b.lo[2] <= a.hi[2]);
}

template <class B>
inline bool contains(const B& outer, const B& inner) {
  return (outer.lo[0] <= inner.lo[0]) & (outer.lo[1] <= inner.lo[1]) &
         (outer.lo[2] <= inner.lo[2]) & (inner.hi[0] <= outer.hi[0]) &
         (inner.hi[1] <= outer.hi[1]) & (inner.hi[2] <= outer.hi[2]);
}

template <class B>
inline bool same(const B& a, const B& b) {
  return contains(a, b) && contains(b, a);
}

/// The smallest float box that contains `box` (bounds beyond float range become ±infinity or
/// ±FLT_MAX, outwards either way).
TreeBox tree_box(const Box& box) {
  TreeBox t;
  for (int i = 0; i < 3; ++i) {
    t.lo[i] = static_cast<float>(box.lo[i]);
    if (double(t.lo[i]) > box.lo[i]) t.lo[i] = std::nextafter(t.lo[i], -HUGE_VALF);
    t.hi[i] = static_cast<float>(box.hi[i]);
    if (double(t.hi[i]) < box.hi[i]) t.hi[i] = std::nextafter(t.hi[i], HUGE_VALF);
  }
  return t;
}

inline bool fits_tree(const Box& b) {
  for (int i = 0; i < 3; ++i)
    if (!(std::abs(b.lo[i]) <= tree_limit) || !(std::abs(b.hi[i]) <= tree_limit)) return false;
  return true;
}

/// Bits 0..9 of v moved to bits 0, 3, 6, ..., 27 (one axis of a 30-bit Morton code).
inline std::uint64_t spread_bits(std::uint32_t v) {
  std::uint64_t x = v & 0x3ffu;
  x = (x | (x << 16)) & 0x30000ffu;
  x = (x | (x << 8)) & 0x300f00fu;
  x = (x | (x << 4)) & 0x30c30c3u;
  x = (x | (x << 2)) & 0x9249249u;
  return x;
}

inline bool is_leaf(std::int32_t ref) {
  return ref < 0;
}
inline std::int32_t leaf_ref(ProxyId id) {
  return ~static_cast<std::int32_t>(id);
}
inline ProxyId proxy_of(std::int32_t ref) {
  return static_cast<ProxyId>(~ref);
}
inline int slot_of(const Node& parent, std::int32_t ref) {
  return parent.child[0] == ref ? 0 : 1;
}

Box to_box(const Aabb& aabb) {
  Box box;
  for (int i = 0; i < 3; ++i) {
    box.lo[i] = aabb.min_W[i];
    box.hi[i] = aabb.max_W[i];
  }
  return box;
}

Aabb to_aabb(const Box& box) {
  Aabb aabb;
  for (int i = 0; i < 3; ++i) {
    aabb.min_W[i] = box.lo[i];
    aabb.max_W[i] = box.hi[i];
  }
  return aabb;
}

double real_or(const ParameterValues& params, const char* name, double fallback) {
  const double value = params.contains(name) ? params.real(name) : fallback;
  if (!(value >= 0.0) || !std::isfinite(value)) {
    throw InputError(std::string("aabb_tree broad phase: params.") + name + " is " +
                     std::to_string(value) + "; expected a finite value >= 0");
  }
  return value;
}

/// Capacity for `size` elements, doubling (reserve() alone would reallocate on every insert of
/// ids counting up).
template <class T>
void reserve_geometrically(std::vector<T>& vector, std::size_t size) {
  if (vector.capacity() < size) vector.reserve(std::max(size, 2 * vector.capacity()));
}

constexpr double default_fat_margin_m = 0.0;
constexpr double default_fat_margin_relative = 0.1;

}  // namespace

AabbTreeBroadPhase::AabbTreeBroadPhase(const ParameterValues& params)
    : fat_margin_m_(real_or(params, "fat_margin_m", default_fat_margin_m)),
      fat_margin_relative_(real_or(params, "fat_margin_relative", default_fat_margin_relative)) {}

ParameterSchema AabbTreeBroadPhase::schema() {
  ParameterSpec absolute = real_parameter(
      "fat_margin_m", default_fat_margin_m, 0.0, infinity, "m",
      "absolute part of the margin by which each proxy's box is enlarged in the tree; a proxy "
      "moves in the tree only when its box leaves the enlarged one. The margin is fat_margin_m + "
      "fat_margin_relative x (longest finite edge of the box)");
  absolute.maximum_exclusive = true;
  ParameterSpec relative = real_parameter(
      "fat_margin_relative", default_fat_margin_relative, 0.0, infinity, "",
      "part of the margin proportional to the longest finite edge of the proxy's box (0.1: a "
      "unit box gets Box2D's 0.1 m); larger margins mean fewer tree updates for moving proxies "
      "but more candidate pairs to filter");
  relative.maximum_exclusive = true;
  return {absolute, relative};
}

BroadPhaseCapabilities AabbTreeBroadPhase::capabilities() const {
  BroadPhaseCapabilities capabilities;
  capabilities.incremental = true;
  capabilities.box_distance = true;
  return capabilities;
}

// ---------------------------------------------------------------------------------------------
// Proxies

const Box& AabbTreeBroadPhase::live_exact(ProxyId id, const char* operation) const {
  if (id >= flags_.size() || (flags_[id] & live_flag) == 0)
    throw Error(std::string("aabb_tree broad phase: ") + operation + "(" + std::to_string(id) +
                "): no such proxy");
  return exact_[id];
}

Box AabbTreeBroadPhase::fatten(const Box& box) const {
  double longest = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double edge = box.hi[i] - box.lo[i];
    if (std::isfinite(edge)) longest = std::max(longest, edge);
  }
  const double margin = fat_margin_m_ + fat_margin_relative_ * longest;
  Box fat;
  for (int i = 0; i < 3; ++i) {  // an infinite bound stays infinite
    fat.lo[i] = box.lo[i] - margin;
    fat.hi[i] = box.hi[i] + margin;
  }
  return fat;
}

void AabbTreeBroadPhase::mark_dirty(ProxyId id) {
  if (flags_[id] & dirty_flag) return;
  flags_[id] |= dirty_flag;
  dirty_ids_.push_back(id);
}

void AabbTreeBroadPhase::attach(ProxyId id) {
  if (fits_tree(fat_[id])) {
    insert_leaf(id, no_node);
    flags_[id] |= in_tree_flag;
  } else {
    slot_[id] = static_cast<std::int32_t>(unbounded_.size());
    unbounded_.push_back(id);
    flags_[id] |= unbounded_flag;
  }
}

void AabbTreeBroadPhase::detach(ProxyId id) {
  if (flags_[id] & unbounded_flag) {
    const ProxyId last = unbounded_.back();
    unbounded_[slot_[id]] = last;
    slot_[last] = slot_[id];
    unbounded_.pop_back();
  } else if (flags_[id] & in_tree_flag) {
    remove_leaf(id);
  }
  flags_[id] &= static_cast<std::uint8_t>(~(unbounded_flag | in_tree_flag));
  slot_[id] = no_node;
}

void AabbTreeBroadPhase::insert(ProxyId id, const Aabb& box) {
  if (id >= static_cast<ProxyId>(std::numeric_limits<std::int32_t>::max()))
    throw Error("aabb_tree broad phase: insert(" + std::to_string(id) +
                "): ids must be below 2^31 - 1");
  if (id < flags_.size() && (flags_[id] & live_flag))
    throw Error("aabb_tree broad phase: insert(" + std::to_string(id) +
                "): the id is already in use");
  if (id >= flags_.size()) {
    const std::size_t size = static_cast<std::size_t>(id) + 1;
    exact_.resize(size);
    fat_.resize(size);
    slot_.resize(size, no_node);
    flags_.resize(size, 0);
    // At most one entry per id: set_box and collect_pairs never grow these.
    reserve_geometrically(dirty_ids_, size);
    reserve_geometrically(order_, size);
    reserve_geometrically(build_, size);
  }
  exact_[id] = to_box(box);
  fat_[id] = fatten(exact_[id]);
  flags_[id] |= live_flag;
  mark_dirty(id);  // enters the tree in the next collect_pairs
  ++live_count_;
}

void AabbTreeBroadPhase::remove(ProxyId id) {
  live_exact(id, "remove");
  flags_[id] &= static_cast<std::uint8_t>(~live_flag);
  mark_dirty(id);  // leaves the tree, and its pairs are dropped, in the next collect_pairs
  --live_count_;
}

void AabbTreeBroadPhase::set_box(ProxyId id, const Aabb& box) {
  live_exact(id, "set_box");
  exact_[id] = to_box(box);
  if (contains(fat_[id], exact_[id])) return;  // the common case: nothing moves in the tree
  fat_[id] = fatten(exact_[id]);
  mark_dirty(id);  // moves in the tree in the next collect_pairs
}

double AabbTreeBroadPhase::box_distance(ProxyId a, ProxyId b) const {
  return aabb_distance(to_aabb(live_exact(a, "box_distance")),
                       to_aabb(live_exact(b, "box_distance")));
}

// ---------------------------------------------------------------------------------------------
// Tree

std::int32_t AabbTreeBroadPhase::allocate_node() {
  if (free_list_ == no_node) {
    nodes_.push_back(Node{});
    return static_cast<std::int32_t>(nodes_.size() - 1);
  }
  const std::int32_t node = free_list_;
  free_list_ = nodes_[node].parent;
  return node;
}

void AabbTreeBroadPhase::free_node(std::int32_t node) {
  nodes_[node].height = -1;
  nodes_[node].parent = free_list_;
  free_list_ = node;
}

std::int32_t AabbTreeBroadPhase::height_of(std::int32_t ref) const {
  return is_leaf(ref) ? 0 : nodes_[ref].height;
}

void AabbTreeBroadPhase::set_parent(std::int32_t ref, std::int32_t parent) {
  if (is_leaf(ref))
    slot_[proxy_of(ref)] = parent;
  else
    nodes_[ref].parent = parent;
}

void AabbTreeBroadPhase::update_height(std::int32_t node) {
  Node& n = nodes_[node];
  n.height = 1 + std::max(height_of(n.child[0]), height_of(n.child[1]));
}

AabbTreeBroadPhase::TreeBox AabbTreeBroadPhase::node_box(std::int32_t node) const {
  const Node& n = nodes_[node];
  if (n.parent == no_node) return merged(n.box[0], n.box[1]);
  const Node& p = nodes_[n.parent];
  return p.box[slot_of(p, node)];
}

void AabbTreeBroadPhase::reinsert_leaf(ProxyId id) {
  // A proxy that left its fat box has usually moved by about the margin, so its new place is near
  // the old one: the sibling search starts at the lowest former ancestor whose box contains the
  // new fat box (btDbvt::update restarts its insertion a fixed number of levels up instead). No
  // box above that ancestor grows, and the descent from the root is saved.
  std::int32_t start = remove_leaf(id);
  const TreeBox box = tree_box(fat_[id]);
  while (start != no_node && !contains(node_box(start), box)) start = nodes_[start].parent;
  insert_leaf(id, start);
}

void AabbTreeBroadPhase::insert_leaf(ProxyId id, std::int32_t start) {
  const std::int32_t leaf = leaf_ref(id);
  const TreeBox box = tree_box(fat_[id]);
  if (root_ == no_ref) {
    root_ = leaf;
    slot_[id] = no_node;
    return;
  }
  // The sibling: branch and bound along one path (Box2D v3). Making node S the sibling costs the
  // area of S ∪ box plus the area added to every ancestor of S. Below a node whose ancestors
  // (itself included) already add `inherited`, no sibling can cost less than
  // cost(box) + inherited, which bounds the descent. Exact ties of cost (identical boxes, for
  // one) go to the candidate of smaller height, and the descent goes on while a tie could still
  // find a shorter candidate: many identical boxes then fill the tree level by level instead of
  // growing a chain.
  std::int32_t sibling = start == no_node ? root_ : start;
  TreeBox sibling_box;
  if (is_leaf(sibling)) {
    sibling_box = tree_box(fat_[proxy_of(sibling)]);
  } else {
    sibling_box = node_box(sibling);
    const double box_cost = cost(box);
    std::int32_t index = sibling;
    TreeBox index_box = sibling_box;
    double direct = cost(merged(index_box, box));  // area of index ∪ box
    double inherited = 0.0;
    double best_cost = direct;
    while (!is_leaf(index)) {
      inherited += direct - cost(index_box);
      const Node& n = nodes_[index];
      double child_direct[2];
      double lower[2];
      for (int k = 0; k < 2; ++k) {
        child_direct[k] = cost(merged(n.box[k], box));
        const double total = child_direct[k] + inherited;
        if (total < best_cost ||
            (total == best_cost && height_of(n.child[k]) < height_of(sibling))) {
          best_cost = total;
          sibling = n.child[k];
          sibling_box = n.box[k];
        }
        lower[k] = is_leaf(n.child[k]) ? infinity
                                       : box_cost + inherited + child_direct[k] - cost(n.box[k]);
      }
      const int k = lower[0] < lower[1] ? 0
                    : lower[1] < lower[0]
                        ? 1
                        : (height_of(n.child[0]) <= height_of(n.child[1]) ? 0 : 1);
      if (!(lower[k] < best_cost || (lower[k] == best_cost && !is_leaf(sibling)))) break;
      index = n.child[k];
      index_box = n.box[k];
      direct = child_direct[k];
    }
  }

  const std::int32_t parent = allocate_node();  // may move nodes_: no references held across
  const std::int32_t grandparent =
      is_leaf(sibling) ? slot_[proxy_of(sibling)] : nodes_[sibling].parent;
  {
    Node& p = nodes_[parent];
    p.box[0] = sibling_box;
    p.box[1] = box;
    p.child[0] = sibling;
    p.child[1] = leaf;
    p.parent = grandparent;
    p.height = 1 + height_of(sibling);
  }
  set_parent(sibling, parent);
  slot_[id] = parent;
  if (grandparent == no_node)
    root_ = parent;
  else
    nodes_[grandparent].child[slot_of(nodes_[grandparent], sibling)] = parent;

  // Refit the ancestors and let each rotate: the rotations are what keeps sorted input from
  // growing a chain. A rotation at a node looks at its children and grandchildren only, so once
  // two consecutive ancestors come out unchanged (same box, same height, no rotation) nothing
  // above can change or newly gain from a rotation, and the walk stops. With fat boxes that is
  // usually a few levels above the new leaf rather than at the root.
  bool below_changed = true;
  for (std::int32_t node = parent;;) {
    bool changed = rotate(node);
    const std::int32_t height_before = nodes_[node].height;
    update_height(node);
    changed = changed || node == parent || height_before != nodes_[node].height;
    const std::int32_t up = nodes_[node].parent;
    if (up == no_node) break;
    Node& u = nodes_[up];
    TreeBox& slot_box = u.box[slot_of(u, node)];
    const TreeBox refit = merged(nodes_[node].box[0], nodes_[node].box[1]);
    changed = changed || !same(refit, slot_box);
    slot_box = refit;
    if (!changed && !below_changed) break;
    below_changed = changed;
    node = up;
  }
}

std::int32_t AabbTreeBroadPhase::remove_leaf(ProxyId id) {
  const std::int32_t leaf = leaf_ref(id);
  if (root_ == leaf) {
    root_ = no_ref;
    return no_node;
  }
  const std::int32_t parent = slot_[id];
  const Node& p = nodes_[parent];
  const int k = slot_of(p, leaf);
  const std::int32_t sibling = p.child[1 - k];
  const TreeBox sibling_box = p.box[1 - k];
  const std::int32_t grandparent = p.parent;
  free_node(parent);
  set_parent(sibling, grandparent);
  if (grandparent == no_node) {
    root_ = sibling;
    return no_node;
  }
  {
    Node& g = nodes_[grandparent];
    const int j = slot_of(g, parent);
    g.child[j] = sibling;
    g.box[j] = sibling_box;
  }
  // The ancestors shrink; above the first one whose box and height stay the same nothing changes.
  for (std::int32_t node = grandparent;;) {
    const std::int32_t height_before = nodes_[node].height;
    update_height(node);
    const std::int32_t up = nodes_[node].parent;
    if (up == no_node) break;
    Node& u = nodes_[up];
    TreeBox& slot_box = u.box[slot_of(u, node)];
    const TreeBox refit = merged(nodes_[node].box[0], nodes_[node].box[1]);
    if (height_before == nodes_[node].height && same(refit, slot_box)) break;
    slot_box = refit;
    node = up;
  }
  return grandparent;
}

bool AabbTreeBroadPhase::rotate(std::int32_t a) {
  // Node a has children b and c. Swapping b with a child of c (or c with a child of b) leaves
  // a's box as it is and changes the box of the child that receives the swapped node; the swap
  // with the largest decrease of that box's area is made, if any decreases it (Kopta et al.
  // 2012).
  Node& n = nodes_[a];
  double best_gain = 0.0;
  int down = -1;  // the child of a that moves one level down
  int up = -1;    // the grandchild (below the other child) that moves up in its place
  for (int k = 0; k < 2; ++k) {
    if (is_leaf(n.child[1 - k])) continue;
    const Node& other = nodes_[n.child[1 - k]];
    const double other_cost = cost(n.box[1 - k]);
    for (int j = 0; j < 2; ++j) {
      // other would become (the moving child, the grandchild that stays).
      const double gain = other_cost - cost(merged(n.box[k], other.box[1 - j]));
      if (gain > best_gain) {
        best_gain = gain;
        down = k;
        up = j;
      }
    }
  }
  if (down < 0) return false;
  const std::int32_t other = n.child[1 - down];
  Node& o = nodes_[other];
  std::swap(n.child[down], o.child[up]);
  std::swap(n.box[down], o.box[up]);
  set_parent(n.child[down], a);
  set_parent(o.child[up], other);
  n.box[1 - down] = merged(o.box[0], o.box[1]);
  update_height(other);
  update_height(a);
  return true;
}

template <class Visit>
void AabbTreeBroadPhase::query(const TreeBox& box, Visit&& visit) {
  if (root_ == no_ref) return;
  if (is_leaf(root_)) {
    if (overlaps(tree_box(fat_[proxy_of(root_)]), box)) visit(proxy_of(root_));
    return;
  }
  // Depth first, pushing both children: the depths on the stack increase strictly from the
  // bottom except for the top two entries, so it never holds more than height + 1 nodes.
  const std::size_t capacity = static_cast<std::size_t>(nodes_[root_].height) + 1;
  if (stack_.size() < capacity) stack_.resize(2 * capacity);  // room for the tree to grow
  const Node* n = nodes_.data();
  std::int32_t* stack = stack_.data();
  std::size_t top = 0;
  stack[top++] = root_;
  while (top > 0) {
    const Node& node = n[stack[--top]];
    for (int k = 0; k < 2; ++k) {
      if (!overlaps(node.box[k], box)) continue;
      if (is_leaf(node.child[k]))
        visit(proxy_of(node.child[k]));
      else
        stack[top++] = node.child[k];
    }
  }
}

void AabbTreeBroadPhase::rebuild_tree() {
  nodes_.clear();  // keeps the capacity
  free_list_ = no_node;
  root_ = no_ref;
  unbounded_.clear();
  build_.clear();
  for (ProxyId id = 0; id < flags_.size(); ++id) {
    flags_[id] &= static_cast<std::uint8_t>(~(in_tree_flag | unbounded_flag));
    if ((flags_[id] & live_flag) == 0) continue;
    if (!fits_tree(fat_[id])) {
      attach(id);  // into the unbounded list
      continue;
    }
    flags_[id] |= in_tree_flag;
    BuildItem item;
    item.box = tree_box(fat_[id]);
    for (int i = 0; i < 3; ++i) item.centre[i] = 0.5f * (item.box.lo[i] + item.box.hi[i]);
    item.id = id;
    build_.push_back(item);
  }
  if (build_.empty()) return;
  TreeBox box;
  root_ = build(0, build_.size(), no_node, 0, box);
  // The query stack holds at most height + 1 entries; room for twice that, and for any tree up to
  // 127 levels, keeps later reinsertions from having to grow it.
  const std::size_t needed = 2 * static_cast<std::size_t>(height_of(root_) + 1);
  stack_.resize(std::max({stack_.size(), needed, std::size_t{128}}));
}

std::int32_t AabbTreeBroadPhase::build(std::size_t begin, std::size_t end, std::int32_t parent,
                                       int depth, TreeBox& box) {
  // Top-down construction with the binned surface-area heuristic (Wald, "On fast Construction of
  // SAH-based Bounding Volume Hierarchies", IEEE RT 2007): the centres are binned along the axis
  // of their largest spread and the range is split at the bin boundary that minimises
  // area × count summed over both sides. From depth 48 on, splits are at the median, which bounds
  // the recursion depth by 48 + log2(n) whatever the distribution.
  if (end - begin == 1) {
    const BuildItem& item = build_[begin];
    slot_[item.id] = parent;
    box = item.box;
    return leaf_ref(item.id);
  }
  float lo[3] = {HUGE_VALF, HUGE_VALF, HUGE_VALF};
  float hi[3] = {-HUGE_VALF, -HUGE_VALF, -HUGE_VALF};
  for (std::size_t i = begin; i < end; ++i) {
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], build_[i].centre[k]);
      hi[k] = std::max(hi[k], build_[i].centre[k]);
    }
  }
  int axis = 0;
  for (int k = 1; k < 3; ++k)
    if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
  const float extent = hi[axis] - lo[axis];
  const auto middle = build_.begin() + static_cast<std::ptrdiff_t>(begin + (end - begin) / 2);
  const auto first = build_.begin() + static_cast<std::ptrdiff_t>(begin);
  const auto last = build_.begin() + static_cast<std::ptrdiff_t>(end);
  auto split = middle;
  if (extent > 0.0f && depth < 48) {
    constexpr int bins = 16;
    const double to_bin = bins / double(extent);
    const auto bin_of = [&](const BuildItem& item) {
      return std::min(bins - 1, static_cast<int>((item.centre[axis] - lo[axis]) * to_bin));
    };
    std::size_t count[bins] = {};
    TreeBox bin_box[bins];
    for (std::size_t i = begin; i < end; ++i) {
      const int b = bin_of(build_[i]);
      bin_box[b] = count[b] == 0 ? build_[i].box : merged(bin_box[b], build_[i].box);
      ++count[b];
    }
    // right_cost[b]: area × count of bins b.. (the right side of a split before bin b).
    double right_cost[bins];
    TreeBox right_box{};
    std::size_t right_count = 0;
    for (int b = bins - 1; b > 0; --b) {
      if (count[b] > 0) {
        right_box = right_count == 0 ? bin_box[b] : merged(right_box, bin_box[b]);
        right_count += count[b];
      }
      right_cost[b] = right_count == 0 ? 0.0 : cost(right_box) * double(right_count);
    }
    TreeBox left_box{};
    std::size_t left_count = 0;
    double best = HUGE_VAL;
    int best_bin = -1;
    for (int b = 1; b < bins; ++b) {
      if (count[b - 1] > 0) {
        left_box = left_count == 0 ? bin_box[b - 1] : merged(left_box, bin_box[b - 1]);
        left_count += count[b - 1];
      }
      if (left_count == 0 || left_count == end - begin) continue;
      const double total = cost(left_box) * double(left_count) + right_cost[b];
      if (total < best) {
        best = total;
        best_bin = b;
      }
    }
    if (best_bin > 0)
      split = std::partition(first, last,
                             [&](const BuildItem& item) { return bin_of(item) < best_bin; });
  }
  if (split == middle) {
    std::nth_element(first, middle, last, [axis](const BuildItem& a, const BuildItem& b) {
      return a.centre[axis] < b.centre[axis];
    });
  }
  const std::int32_t node = allocate_node();
  const std::size_t mid = static_cast<std::size_t>(split - build_.begin());
  TreeBox child_box[2];
  const std::int32_t c0 = build(begin, mid, node, depth + 1, child_box[0]);
  const std::int32_t c1 = build(mid, end, node, depth + 1, child_box[1]);
  Node& n = nodes_[node];
  n.box[0] = child_box[0];
  n.box[1] = child_box[1];
  n.child[0] = c0;
  n.child[1] = c1;
  n.parent = parent;
  n.height = 1 + std::max(height_of(c0), height_of(c1));
  box = merged(child_box[0], child_box[1]);
  return node;
}

int AabbTreeBroadPhase::tree_height() const {
  return root_ == no_ref ? 0 : height_of(root_);
}

// ---------------------------------------------------------------------------------------------
// Pairs

void AabbTreeBroadPhase::add_pair(ProxyId a, ProxyId b, std::vector<ProxyPair>& out) {
  const ProxyPair pair = a < b ? ProxyPair{a, b} : ProxyPair{b, a};
  pairs_.push_back(pair);
  if (overlaps(exact_[a], exact_[b])) out.push_back(pair);
}

void AabbTreeBroadPhase::rebuild_pairs(std::vector<ProxyPair>& out) {
  pairs_.clear();
  // Self traversal of the tree (Bullet's collideTT(root, root)): a task (x, x) stands for the
  // pairs within x's subtree, (x, y) with x ≠ y for the pairs between two disjoint subtrees whose
  // boxes overlap; such a task splits the larger of the two.
  if (root_ != no_ref && !is_leaf(root_)) {
    const Node* n = nodes_.data();
    self_stack_.clear();
    self_stack_.push_back(SelfTask{root_, root_, {}, {}});
    while (!self_stack_.empty()) {
      const SelfTask task = self_stack_.back();
      self_stack_.pop_back();
      if (task.a == task.b) {
        const Node& node = n[task.a];
        for (int k = 0; k < 2; ++k)
          if (!is_leaf(node.child[k]))
            self_stack_.push_back(SelfTask{node.child[k], node.child[k], {}, {}});
        if (overlaps(node.box[0], node.box[1]))
          self_stack_.push_back(SelfTask{node.child[0], node.child[1], node.box[0], node.box[1]});
        continue;
      }
      const bool leaf_a = is_leaf(task.a);
      const bool leaf_b = is_leaf(task.b);
      if (leaf_a && leaf_b) {
        add_pair(proxy_of(task.a), proxy_of(task.b), out);
        continue;
      }
      const bool split_a = leaf_b || (!leaf_a && cost(task.box_a) >= cost(task.box_b));
      const std::int32_t split = split_a ? task.a : task.b;
      const std::int32_t other = split_a ? task.b : task.a;
      const TreeBox& other_box = split_a ? task.box_b : task.box_a;
      const Node& node = n[split];
      for (int k = 0; k < 2; ++k)
        if (overlaps(node.box[k], other_box))
          self_stack_.push_back(SelfTask{node.child[k], other, node.box[k], other_box});
    }
  }
  for (std::size_t i = 0; i < unbounded_.size(); ++i) {
    const ProxyId u = unbounded_[i];
    query(tree_box(fat_[u]), [&](ProxyId other) { add_pair(u, other, out); });
    for (std::size_t j = i + 1; j < unbounded_.size(); ++j)
      if (overlaps(fat_[u], fat_[unbounded_[j]])) add_pair(u, unbounded_[j], out);
  }
}

void AabbTreeBroadPhase::update_pairs(std::vector<ProxyPair>& out) {
  // A pair of two clean proxies keeps its fat boxes, hence its place in pairs_; it is reported
  // when the exact boxes overlap now. The pairs of dirty proxies are dropped and found again by
  // querying the tree with each dirty proxy's new fat box.
  const std::uint8_t* flags = flags_.data();
  const Box* exact = exact_.data();
  const ProxyPair* pairs = pairs_.data();
  const std::size_t count = pairs_.size();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < count; ++i) {
    // The boxes of a pair are at random places in exact_; asking for them a few pairs ahead
    // overlaps the cache misses (about 40 % less time per step at 10^5 proxies).
    if (i + prefetch_distance < count) {
      prefetch(&exact[pairs[i + prefetch_distance].a]);
      prefetch(&exact[pairs[i + prefetch_distance].b]);
    }
    const ProxyPair pair = pairs[i];
    if ((flags[pair.a] | flags[pair.b]) & dirty_flag) continue;
    pairs_[kept++] = pair;
    if (overlaps(exact[pair.a], exact[pair.b])) out.push_back(pair);
  }
  pairs_.erase(pairs_.begin() + static_cast<std::ptrdiff_t>(kept), pairs_.end());
  for (const ProxyId id : dirty_ids_) {
    if ((flags[id] & live_flag) == 0) continue;
    // When both proxies of a pair are dirty, both queries find it: the one from the smaller id
    // adds it.
    const auto visit = [&](ProxyId other) {
      if (other == id || ((flags[other] & dirty_flag) && other < id)) return;
      add_pair(id, other, out);
    };
    query(tree_box(fat_[id]), visit);
    for (const ProxyId other : unbounded_)
      if (overlaps(fat_[other], fat_[id])) visit(other);
  }
}

void AabbTreeBroadPhase::sort_dirty() {
  // Morton order of the fat-box centres on a 1024^3 grid over their bounding box; proxies that
  // stay out of the tree come last.
  double lo[3] = {infinity, infinity, infinity};
  double hi[3] = {-infinity, -infinity, -infinity};
  for (const ProxyId id : dirty_ids_) {
    const Box& f = fat_[id];
    if (!fits_tree(f)) continue;
    for (int i = 0; i < 3; ++i) {
      const double centre = 0.5 * (f.lo[i] + f.hi[i]);
      lo[i] = std::min(lo[i], centre);
      hi[i] = std::max(hi[i], centre);
    }
  }
  double scale[3];
  for (int i = 0; i < 3; ++i) scale[i] = hi[i] > lo[i] ? 1023.0 / (hi[i] - lo[i]) : 0.0;
  order_.clear();
  for (const ProxyId id : dirty_ids_) {
    const Box& f = fat_[id];
    std::uint64_t code = std::uint64_t{1} << 30;
    if (fits_tree(f)) {
      code = 0;
      for (int i = 0; i < 3; ++i) {
        const double cell = (0.5 * (f.lo[i] + f.hi[i]) - lo[i]) * scale[i];
        code |= spread_bits(static_cast<std::uint32_t>(cell)) << i;
      }
    }
    order_.push_back(code << 32 | id);
  }
  std::sort(order_.begin(), order_.end());
  for (std::size_t i = 0; i < order_.size(); ++i)
    dirty_ids_[i] = static_cast<ProxyId>(order_[i] & 0xffffffffu);
}

void AabbTreeBroadPhase::collect_pairs(std::vector<ProxyPair>& out) {
  out.clear();  // keeps the capacity
  // The tree catches up with the inserts, removals and escapes from fat boxes since the last
  // call. With more than 3/4 of the proxies dirty it is rebuilt: measured at 10^4 and 10^5
  // proxies, a rebuild costs about as much as reinserting half of them and half as much as
  // reinserting all. Otherwise the dirty proxies move one by one, in spatial order: consecutive
  // reinsertions and queries then walk mostly the same nodes, still in cache, whereas in the
  // host's order nearly every node visited is a cache miss once the tree outgrows the cache.
  if (4 * dirty_ids_.size() > 3 * live_count_) {
    rebuild_tree();
    rebuild_pairs(out);
  } else {
    sort_dirty();
    for (const ProxyId id : dirty_ids_) {
      if ((flags_[id] & (live_flag | in_tree_flag)) == (live_flag | in_tree_flag) &&
          fits_tree(fat_[id])) {
        reinsert_leaf(id);
      } else {
        detach(id);
        if (flags_[id] & live_flag) attach(id);
      }
    }
    update_pairs(out);
  }
  for (const ProxyId id : dirty_ids_) flags_[id] &= static_cast<std::uint8_t>(~dirty_flag);
  dirty_ids_.clear();
}

// ---------------------------------------------------------------------------------------------
// Invariants (tests)

void AabbTreeBroadPhase::check_invariants() const {
  const auto fail = [](const std::string& what) {
    throw Error("aabb_tree broad phase: invariant violated: " + what);
  };
  const auto check_leaf = [&](std::int32_t ref, std::int32_t parent, const TreeBox* held) {
    const ProxyId id = proxy_of(ref);
    const std::string name = "leaf of proxy " + std::to_string(id);
    if (id >= flags_.size() || (flags_[id] & live_flag) == 0) fail(name + ": not live");
    if ((flags_[id] & (unbounded_flag | in_tree_flag)) != in_tree_flag)
      fail(name + ": the proxy is not marked as in the tree");
    if (slot_[id] != parent) fail(name + ": wrong parent");
    if (held && !same(*held, tree_box(fat_[id]))) fail(name + ": box is not the fat box");
    if (!contains(fat_[id], exact_[id])) fail(name + ": fat box misses the exact box");
  };
  if (!dirty_ids_.empty()) fail("updates are pending (call collect_pairs first)");
  std::size_t reachable = 0;
  std::size_t leaves = 0;
  if (is_leaf(root_) && root_ != no_ref) {
    check_leaf(root_, no_node, nullptr);
    leaves = 1;
  } else if (root_ != no_ref) {
    if (nodes_[root_].parent != no_node) fail("the root has a parent");
    std::vector<std::int32_t> stack = {root_};
    while (!stack.empty()) {
      const std::int32_t index = stack.back();
      stack.pop_back();
      ++reachable;
      const Node& node = nodes_[index];
      const std::string name = "node " + std::to_string(index);
      if (node.height < 1) fail(name + " is reachable but free");
      for (int k = 0; k < 2; ++k) {
        const std::int32_t c = node.child[k];
        if (is_leaf(c)) {
          check_leaf(c, index, &node.box[k]);
          ++leaves;
          continue;
        }
        if (static_cast<std::size_t>(c) >= nodes_.size()) fail(name + " has a bad child");
        const Node& child = nodes_[c];
        if (child.parent != index) fail(name + "'s child does not name it as its parent");
        if (!same(node.box[k], merged(child.box[0], child.box[1])))
          fail(name + " holds a box that is not the union of its child's boxes");
        stack.push_back(c);
      }
      if (node.height != 1 + std::max(height_of(node.child[0]), height_of(node.child[1])))
        fail(name + " has a wrong height");
    }
  }
  std::size_t free_nodes = 0;
  for (std::int32_t f = free_list_; f != no_node; f = nodes_[f].parent) {
    if (nodes_[f].height != -1) fail("node " + std::to_string(f) + " is listed free but in use");
    if (++free_nodes > nodes_.size()) fail("the free list has a cycle");
  }
  if (reachable + free_nodes != nodes_.size())
    fail("nodes are lost (neither in the tree nor free)");
  std::size_t live = 0;
  std::size_t in_tree = 0;
  for (ProxyId id = 0; id < flags_.size(); ++id) {
    if ((flags_[id] & live_flag) == 0) {
      if (flags_[id] & (unbounded_flag | in_tree_flag)) fail("a dead proxy is in the tree");
      continue;
    }
    ++live;
    if (flags_[id] & in_tree_flag) {
      ++in_tree;
    } else if (slot_[id] < 0 || static_cast<std::size_t>(slot_[id]) >= unbounded_.size() ||
               unbounded_[slot_[id]] != id) {
      fail("unbounded proxy " + std::to_string(id) + " is not where its slot says");
    } else if (fits_tree(fat_[id])) {
      fail("unbounded proxy " + std::to_string(id) + " fits the tree");
    }
  }
  if (live != live_count_) fail("the live count is wrong");
  if (leaves != in_tree) fail("the tree's leaves are not the live proxies that fit the tree");
  if (live - in_tree != unbounded_.size()) fail("the unbounded list has extra entries");
}

}  // namespace contactlab::plugins
