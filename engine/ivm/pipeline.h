// pipeline.h — one live query's incremental dataflow (ARCHITECTURE.md §7): a tree of compiled
// levels (level.h: source, filter with EXISTS, start, limit) and, per visible partition, the
// Take state (window.h). Holds state: the materialized result and the indexes it reads.
//
// Build() compiles a validated AST. Hydrate() fills the result and returns one add event per root
// row (each carrying its whole subtree). Process() takes the NET change of every table since the
// last call (pk → before/after, nullptr = absent; the tables already hold the after state) and
// returns the flat events (change.h) that turn the previous result into the new one, at every
// depth:
//   1. candidates: per level, the changed rows of its table; then, bottom-up through each EXISTS
//      edge, the parent rows correlated with a candidate child (before or after key) — the only
//      rows whose EXISTS can have flipped;
//   2. the root window applies its candidates (window.h); per window: removes, then edits, then
//      the children's events under each surviving node (path = the node's new row), then adds
//      (each add carries its subtree, hydrated from the current state). An edit that changes a
//      row's correlation key for some relationship is emitted as remove + add of the whole node.
// Cost: O(log n) per candidate per level plus the size of the change; no rescans. Errors
// (Build): as level.h, naming the `$.` path into the AST.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/change.h"
#include "engine/ivm/level.h"
#include "engine/query_shape.h"
#include "engine/table.h"
#include "engine/ivm/window.h"

namespace rindle {

class Pipeline {
 public:
  using TableFinder = Level::TableFinder;
  static absl::StatusOr<std::unique_ptr<Pipeline>> Build(const Ast& ast, const TableFinder& find);
  ~Pipeline();

  const QueryShape& shape() const { return root_->shape(); }
  // Tables this pipeline reads (sorted, unique).
  const std::vector<std::string>& tables() const { return tables_; }

  std::vector<ChangeEvent> Hydrate();
  std::vector<ChangeEvent> Process(const NetChangeSet& changes);
  std::vector<TreeNode> Result() const;

 private:
  Pipeline() = default;

  std::unique_ptr<Level> root_;
  std::unique_ptr<Window> window_;  // destroyed before root_ (its comparators point into it)
  std::vector<std::string> tables_;
};

}  // namespace rindle
