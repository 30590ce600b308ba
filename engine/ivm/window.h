// window.h — the Take operator's state for one partition of a level (ARCHITECTURE.md §7
// "Take"): the root's rows, or the children of one parent node under one relationship. Holds
// state: the rows in the window (in the level's completed sort) and, for a level with `related`
// children, one node per row holding its children's windows.
//
// Guarantees: a window holds exactly the first `limit` members (level.h Member) of its
// partition in sort order — never more, even between the steps of UpdateWindow. Cost of
// UpdateWindow: O(log n) per candidate, plus a refill scan from the old bound when a full window
// loses rows (rows skipped by the scan are non-members). Hydration reads the partition's run of
// the level's index. Nothing here emits events: pipeline.cc turns window deltas into them.
#pragma once

#include <memory>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "engine/change.h"
#include "engine/ivm/level.h"
#include "engine/table.h"

namespace rindle {

struct Window {
  explicit Window(const Level& level);
  Window(Window&&) = default;
  Window& operator=(Window&&) = default;

  RowIndex rows;  // the members, in the level's completed sort
  // Levels with related children only: per member row (keyed by the row under its table's pk
  // sort, so a lookup by row or pk copies nothing), the child windows, one per related edge in
  // AST order. The windows live in the vector's heap block: they do not move when the map does.
  using Children = std::vector<Window>;
  absl::btree_map<IndexEntry, Children, EntryLess> nodes;
  // Per related edge r: the member rows whose parent-side correlation key has no null, ordered
  // by (parent_cols..., pk) (LevelEdge::node_key_sort): the nodes of one key are one run.
  std::vector<RowIndex> by_key;
};

// pk → (before, after), keyed by a row at that pk under its table's pk sort: pk order.
using WindowDelta = absl::btree_map<IndexEntry, NetChange, EntryLess>;

// The children of `row`'s node in `w` (which must have one).
Window::Children& NodeChildren(const Level& level, Window& w, const Row& row);

// Fills an empty window from the level's current state: the first `limit` members of the
// partition `key` (nullptr = root), each with its children hydrated.
void HydrateWindow(const Level& level, const RowValues* key, Window& w);

// Applies the candidates (rows whose membership in this partition may have changed) to
// `w.rows` and returns the net delta of the window by pk. Does not touch `w.nodes`/`w.by_key`.
WindowDelta UpdateWindow(const Level& level, const RowValues* key,
                         const std::vector<const NetChange*>& candidates, Window& w);

// Creates the node of `row` (a row now in `w.rows`) with its children hydrated.
void AttachNode(const Level& level, Window& w, const Row& row);
// Drops the node of `row` (as it was attached) and its subtree.
void DetachNode(const Level& level, Window& w, const Row& row);
// Points the node of `before` at `after`: the same pk and the same correlation keys (an edit
// that leaves every relationship's children where they are).
void ReplaceNodeRow(const Level& level, Window& w, const Row& before, const Row& after);

// The result tree of one row / of the whole window.
TreeNode NodeTree(const Level& level, const Window& w, const Row& row);
std::vector<TreeNode> WindowTree(const Level& level, const Window& w);

}  // namespace rindle
