// change.h — flat change events and result-tree nodes (SPEC §2.1 "Result and change shape").
// Stateless value types.
//
// A query result is a tree: ordered rows, each with its related children per alias. Every commit
// yields, per affected query, an ordered list of flat events {path, op}:
//   path: root→leaf list of (relationship alias, parent row) — the row as it is in the result at
//         the moment the event applies (a parent edit is always emitted before its children's
//         events, so the path carries the parent's new row);
//   op:   add(node with its whole subtree) | remove(row) | edit(old row, new row).
// Rows are full-width positional cells of their table (no projection). Folding the events in
// order into the previous result gives exactly the fresh result (view.h does the fold).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/row.h"
#include "engine/value.h"
#include "nlohmann/json.hpp"

namespace rindle {

// Rows are immutable and shared between tables, indexes, operators and events (row.h).

struct TreeNode {
  Row row;
  // One entry per relationship of the node's level, in AST order: (alias, children in order).
  std::vector<std::pair<std::string, std::vector<TreeNode>>> relationships;
};

struct PathStep {
  std::string alias;
  Row parent_row;
  // Index of the relationship among the parent level's relationships (AST order); -1 = find it
  // by alias. Needed when two relationships share an alias.
  int relationship = -1;
};

struct ChangeOp {
  enum class Kind { kAdd, kRemove, kEdit };
  Kind kind = Kind::kAdd;
  TreeNode node;  // kAdd
  Row row;        // kRemove
  Row old_row;    // kEdit
  Row new_row;    // kEdit
};

struct ChangeEvent {
  std::vector<PathStep> path;
  ChangeOp op;
};

struct QueryBatch {
  int64_t query_id = 0;
  std::vector<ChangeEvent> events;
};

// {"row":[...],"rels":{"alias":[...]}} — the raw tree form used by oracles and tests.
nlohmann::json TreeNodeToJson(const TreeNode& node);
nlohmann::json TreeToJson(const std::vector<TreeNode>& nodes);
// Structural equality: same rows (cell by cell) in the same order, same relationships (alias and
// children, in order) at every depth. Cheap; build JSON only to explain a difference.
bool TreesEqual(const std::vector<TreeNode>& a, const std::vector<TreeNode>& b);
// {"path":[["alias",[row]]...],"op":"add"|"remove"|"edit", ...} — for traces and debugging.
nlohmann::json ChangeEventToJson(const ChangeEvent& e);

}  // namespace rindle
