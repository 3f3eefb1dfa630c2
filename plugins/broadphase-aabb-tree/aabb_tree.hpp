// The dynamic bounding-volume tree of the aabb_tree broad phase: insertion by the surface-area
// heuristic with branch and bound, removal, refits, tree rotations, a top-down binned-SAH build,
// box queries and the self traversal that finds every overlapping pair of leaves. Its leaves are
// proxy ids; it knows nothing of live or dirty proxies, unbounded boxes or candidate pairs, which
// are the adapter's (aabb_tree_broad_phase.hpp, where the ideas and their sources are listed).
//
// A leaf's box is held by its parent node, rounded outwards to float. Where no parent holds it
// (a leaf being inserted, a leaf at the root) the tree reads it from the owner's fat boxes, which
// the operations that may need it take as `fat` (indexed by id).
//
// The box helpers and the queries are inline here: the adapter's pair loops call them per node
// and per pair, and must not pay a call across translation units for each.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include <contactlab/broad_phase.hpp>

namespace contactlab::plugins::aabb_tree {

/// Closed axis-aligned box in double precision: the exact and the fat box of a proxy.
struct Box {
  double lo[3];
  double hi[3];
};

/// A box rounded outwards to float, as stored in the tree.
struct TreeBox {
  float lo[3];
  float hi[3];
};

/// An internal node of the tree, 64 bytes: the boxes and references of its two children, its
/// parent and its height (1 + the larger child height; a leaf has height 0). A child reference
/// c >= 0 is an internal node, c < 0 the leaf of proxy ~c. A free node has height −1 and
/// `parent` links the free list.
struct Node {
  TreeBox box[2];
  std::int32_t child[2];
  std::int32_t parent;
  std::int32_t height;
};

/// Boxes with a bound beyond this (or infinite) stay out of the tree: float holds it (FLT_MAX is
/// 3.4e38), and areas of boxes within it are finite in double.
inline constexpr double tree_limit = 1e38;

/// Weight of the squared edge sum in cost(); see there.
inline constexpr double degenerate_weight = 1e-3;

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
inline TreeBox tree_box(const Box& box) {
  TreeBox t;
  for (int i = 0; i < 3; ++i) {
    t.lo[i] = static_cast<float>(box.lo[i]);
    if (double(t.lo[i]) > box.lo[i]) t.lo[i] = std::nextafter(t.lo[i], -HUGE_VALF);
    t.hi[i] = static_cast<float>(box.hi[i]);
    if (double(t.hi[i]) < box.hi[i]) t.hi[i] = std::nextafter(t.hi[i], HUGE_VALF);
  }
  return t;
}

/// Whether `b` may enter the tree (every bound finite and within ±tree_limit).
inline bool fits_tree(const Box& b) {
  for (int i = 0; i < 3; ++i)
    if (!(std::abs(b.lo[i]) <= tree_limit) || !(std::abs(b.hi[i]) <= tree_limit)) return false;
  return true;
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

/// Capacity for `size` elements, doubling (reserve() alone would reallocate on every insert of
/// ids counting up).
template <class T>
void reserve_geometrically(std::vector<T>& vector, std::size_t size) {
  if (vector.capacity() < size) vector.reserve(std::max(size, 2 * vector.capacity()));
}

/// The tree over the leaves (proxy ids) it was given. Not thread-safe; no allocation once its
/// buffers have grown.
class Tree {
 public:
  static constexpr std::int32_t no_node = -1;  ///< a missing parent or free-list end

  /// Makes room for leaves with ids below `count`; every id given to the tree must be below it.
  void reserve_leaves(std::size_t count);

  /// Inserts leaf `id` with the box tree_box(fat[id]), descending from the root.
  void insert(ProxyId id, const std::vector<Box>& fat) { insert_leaf(id, no_node, fat); }
  /// Removes leaf `id`.
  void remove(ProxyId id) { remove_leaf(id); }
  /// Moves leaf `id` to its new box tree_box(fat[id]).
  void move(ProxyId id, const std::vector<Box>& fat);

  /// Starts a rebuild: the tree becomes empty, and collects leaves with add_to_build().
  void clear();
  void add_to_build(ProxyId id, const TreeBox& box);
  /// Builds the tree over the leaves added since clear().
  void build();

  /// Height as the number of edges on the longest root-to-leaf path (0: empty or a single leaf).
  int height() const { return root_ == no_ref ? 0 : height_of(root_); }

  /// Calls visit(id) for every leaf whose box overlaps `box`.
  template <class Visit>
  void query(const TreeBox& box, const std::vector<Box>& fat, Visit&& visit);
  /// Calls visit(a, b) once for every pair of leaves whose boxes overlap.
  template <class Visit>
  void overlapping_leaves(Visit&& visit);

  /// Checks the structure and throws contactlab::Error naming the first violation: parent and
  /// child links agree, every box a node holds for an internal child is the union of that
  /// child's boxes, heights are consistent, nodes are in the tree or free. For each leaf it
  /// calls check_leaf(id, held) with the box its parent holds (null at the root), to check
  /// against the owner's view. Returns the number of leaves. For tests; O(n).
  std::size_t check_invariants(
      const std::function<void(ProxyId, const TreeBox*)>& check_leaf) const;

 private:
  static constexpr std::int32_t no_ref = std::numeric_limits<std::int32_t>::min();  ///< empty tree

  // A "ref" is a child reference as in Node::child.
  std::int32_t allocate_node();
  void free_node(std::int32_t node);
  std::int32_t height_of(std::int32_t ref) const { return is_leaf(ref) ? 0 : nodes_[ref].height; }
  void set_parent(std::int32_t ref, std::int32_t parent);
  void update_height(std::int32_t node);
  /// The box of internal node `node` (held by its parent, or the union of its children's boxes
  /// for the root).
  TreeBox node_box(std::int32_t node) const;
  /// Inserts the leaf of `id` with its fat box into the subtree of `start` (no_node: the root).
  void insert_leaf(ProxyId id, std::int32_t start, const std::vector<Box>& fat);
  /// Removes the leaf of `id`; returns its former grandparent (no_node if none).
  std::int32_t remove_leaf(ProxyId id);
  /// Makes the best area-reducing swap of a child and a grandchild of `node`; true if it swapped.
  bool rotate(std::int32_t node);
  /// Builds the subtree over build_[begin, end) below `parent`; returns its ref and box.
  std::int32_t build(std::size_t begin, std::size_t end, std::int32_t parent, int depth,
                     TreeBox& box);

  std::vector<Node> nodes_;
  std::int32_t root_ = no_ref;
  std::int32_t free_list_ = no_node;
  std::vector<std::int32_t> leaf_parent_;  ///< by id: the parent node of the leaf (no_node: root)
  std::vector<std::int32_t> stack_;        ///< query traversal (sized, not pushed)
  struct SelfTask {  ///< self traversal: a == b for all pairs within subtree a
    std::int32_t a;
    std::int32_t b;
    TreeBox box_a;
    TreeBox box_b;
  };
  std::vector<SelfTask> self_stack_;
  struct BuildItem {  ///< a leaf for build()
    TreeBox box;
    float centre[3];
    ProxyId id;
  };
  std::vector<BuildItem> build_;
};

template <class Visit>
void Tree::query(const TreeBox& box, const std::vector<Box>& fat, Visit&& visit) {
  if (root_ == no_ref) return;
  if (is_leaf(root_)) {
    if (overlaps(tree_box(fat[proxy_of(root_)]), box)) visit(proxy_of(root_));
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

template <class Visit>
void Tree::overlapping_leaves(Visit&& visit) {
  // Self traversal of the tree (Bullet's collideTT(root, root)): a task (x, x) stands for the
  // pairs within x's subtree, (x, y) with x ≠ y for the pairs between two disjoint subtrees whose
  // boxes overlap; such a task splits the larger of the two.
  if (root_ == no_ref || is_leaf(root_)) return;
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
      visit(proxy_of(task.a), proxy_of(task.b));
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

}  // namespace contactlab::plugins::aabb_tree
