// The dynamic bounding-volume tree of the aabb_tree broad phase (see aabb_tree.hpp): insertion,
// removal, rotations, the top-down build and the structural checks.
#include "aabb_tree.hpp"

#include <string>

#include <contactlab/errors.hpp>

namespace contactlab::plugins::aabb_tree {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

}  // namespace

void Tree::reserve_leaves(std::size_t count) {
  if (leaf_parent_.size() < count) leaf_parent_.resize(count, no_node);
  reserve_geometrically(build_, count);
}

std::int32_t Tree::allocate_node() {
  if (free_list_ == no_node) {
    nodes_.push_back(Node{});
    return static_cast<std::int32_t>(nodes_.size() - 1);
  }
  const std::int32_t node = free_list_;
  free_list_ = nodes_[node].parent;
  return node;
}

void Tree::free_node(std::int32_t node) {
  nodes_[node].height = -1;
  nodes_[node].parent = free_list_;
  free_list_ = node;
}

void Tree::set_parent(std::int32_t ref, std::int32_t parent) {
  if (is_leaf(ref))
    leaf_parent_[proxy_of(ref)] = parent;
  else
    nodes_[ref].parent = parent;
}

void Tree::update_height(std::int32_t node) {
  Node& n = nodes_[node];
  n.height = 1 + std::max(height_of(n.child[0]), height_of(n.child[1]));
}

TreeBox Tree::node_box(std::int32_t node) const {
  const Node& n = nodes_[node];
  if (n.parent == no_node) return merged(n.box[0], n.box[1]);
  const Node& p = nodes_[n.parent];
  return p.box[slot_of(p, node)];
}

void Tree::move(ProxyId id, const std::vector<Box>& fat) {
  // A proxy that left its fat box has usually moved by about the margin, so its new place is near
  // the old one: the sibling search starts at the lowest former ancestor whose box contains the
  // new fat box (btDbvt::update restarts its insertion a fixed number of levels up instead). No
  // box above that ancestor grows, and the descent from the root is saved.
  std::int32_t start = remove_leaf(id);
  const TreeBox box = tree_box(fat[id]);
  while (start != no_node && !contains(node_box(start), box)) start = nodes_[start].parent;
  insert_leaf(id, start, fat);
}

void Tree::insert_leaf(ProxyId id, std::int32_t start, const std::vector<Box>& fat) {
  const std::int32_t leaf = leaf_ref(id);
  const TreeBox box = tree_box(fat[id]);
  if (root_ == no_ref) {
    root_ = leaf;
    leaf_parent_[id] = no_node;
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
    sibling_box = tree_box(fat[proxy_of(sibling)]);
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
      is_leaf(sibling) ? leaf_parent_[proxy_of(sibling)] : nodes_[sibling].parent;
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
  leaf_parent_[id] = parent;
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

std::int32_t Tree::remove_leaf(ProxyId id) {
  const std::int32_t leaf = leaf_ref(id);
  if (root_ == leaf) {
    root_ = no_ref;
    return no_node;
  }
  const std::int32_t parent = leaf_parent_[id];
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

bool Tree::rotate(std::int32_t a) {
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

void Tree::clear() {
  nodes_.clear();  // keeps the capacity
  free_list_ = no_node;
  root_ = no_ref;
  build_.clear();
}

void Tree::add_to_build(ProxyId id, const TreeBox& box) {
  BuildItem item;
  item.box = box;
  for (int i = 0; i < 3; ++i) item.centre[i] = 0.5f * (item.box.lo[i] + item.box.hi[i]);
  item.id = id;
  build_.push_back(item);
}

void Tree::build() {
  if (build_.empty()) return;
  TreeBox box;
  root_ = build(0, build_.size(), no_node, 0, box);
  // The query stack holds at most height + 1 entries; room for twice that, and for any tree up to
  // 127 levels, keeps later reinsertions from having to grow it.
  const std::size_t needed = 2 * static_cast<std::size_t>(height_of(root_) + 1);
  stack_.resize(std::max({stack_.size(), needed, std::size_t{128}}));
}

std::int32_t Tree::build(std::size_t begin, std::size_t end, std::int32_t parent, int depth,
                         TreeBox& box) {
  // Top-down construction with the binned surface-area heuristic (Wald, "On fast Construction of
  // SAH-based Bounding Volume Hierarchies", IEEE RT 2007): the centres are binned along the axis
  // of their largest spread and the range is split at the bin boundary that minimises
  // area × count summed over both sides. From depth 48 on, splits are at the median, which bounds
  // the recursion depth by 48 + log2(n) whatever the distribution.
  if (end - begin == 1) {
    const BuildItem& item = build_[begin];
    leaf_parent_[item.id] = parent;
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

std::size_t Tree::check_invariants(
    const std::function<void(ProxyId, const TreeBox*)>& check_leaf) const {
  const auto fail = [](const std::string& what) {
    throw Error("aabb_tree broad phase: invariant violated: " + what);
  };
  const auto check_parent = [&](std::int32_t ref, std::int32_t parent) {
    const ProxyId id = proxy_of(ref);
    if (id >= leaf_parent_.size() || leaf_parent_[id] != parent)
      fail("leaf of proxy " + std::to_string(id) + ": wrong parent");
  };
  std::size_t reachable = 0;
  std::size_t leaves = 0;
  if (is_leaf(root_) && root_ != no_ref) {
    check_leaf(proxy_of(root_), nullptr);
    check_parent(root_, no_node);
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
          check_leaf(proxy_of(c), &node.box[k]);
          check_parent(c, index);
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
  return leaves;
}

}  // namespace contactlab::plugins::aabb_tree
