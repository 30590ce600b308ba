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

  RowIndexSet rows;
  struct Node {
    Row row;
    std::vector<std::unique_ptr<Window>> related;  // one per related edge, in AST order
  };
  // Levels with related children only: pk → node.
  absl::btree_map<RowValues, Node, RowKeyLess> nodes;
  // Per related edge: the parent-side correlation key → pks of the nodes with that key (rows
  // whose key has a null are absent: they have no children).
  std::vector<absl::btree_map<RowValues, absl::btree_set<RowValues, RowKeyLess>, RowKeyLess>>
      by_key;
};

using WindowDelta = absl::btree_map<RowValues, NetChange, RowKeyLess>;  // pk → (before, after)

// Fills an empty window from the level's current state: the first `limit` members of the
// partition `key` (nullptr = root), each with its children hydrated.
void HydrateWindow(const Level& level, const RowValues* key, Window& w);

// Applies the candidates (rows whose membership in this partition may have changed) to
// `w.rows` and returns the net delta of the window by pk. Does not touch `w.nodes`.
WindowDelta UpdateWindow(const Level& level, const RowValues* key,
                         const std::vector<const NetChange*>& candidates, Window& w);

// Creates the node of `row` (a row now in `w.rows`) with its children hydrated.
void AttachNode(const Level& level, Window& w, const Row& row);
// Drops the node of `row` (as it was attached) and its subtree.
void DetachNode(const Level& level, Window& w, const Row& row);

// The result tree of one row / of the whole window.
TreeNode NodeTree(const Level& level, const Window& w, const Row& row);
std::vector<TreeNode> WindowTree(const Level& level, const Window& w);

}  // namespace rindle
