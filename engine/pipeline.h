// pipeline.h — one live query's incremental dataflow over the tables it reads (the operator
// graph of ARCHITECTURE.md §7: filter → skip (start cursor) → take (limit window) → view).
// Holds state: the materialized window and the indexes it holds on its table.
//
// Build() compiles the AST (validated by the caller) and acquires an index ordered by the
// completed sort. Hydrate() fetches the initial window and returns one add event per row.
// Process() takes the NET change of every table since the last call (pk → before/after, nullptr
// = absent) and returns the flat events that turn the previous result into the new one (removes,
// then edits, then adds). Cost per changed row: O(log n) in the window and index, plus — when a
// row leaves a full window — a refill scan from the old bound (ARCHITECTURE.md §7 Take). The
// window never exceeds `limit`. Currently one level: `related` and EXISTS are rejected with
// Unimplemented naming the AST path ("not yet supported").
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/change.h"
#include "engine/predicate.h"
#include "engine/query_shape.h"
#include "engine/table.h"

namespace rindle {

class Pipeline {
 public:
  using TableFinder = std::function<Table*(std::string_view)>;
  static absl::StatusOr<std::unique_ptr<Pipeline>> Build(const Ast& ast, const TableFinder& find);
  ~Pipeline();

  const QueryShape& shape() const { return shape_; }
  // Tables this pipeline reads (sorted).
  const std::vector<std::string>& tables() const { return tables_; }

  std::vector<ChangeEvent> Hydrate();
  std::vector<ChangeEvent> Process(const NetChangeSet& changes);
  std::vector<TreeNode> Result() const;

 private:
  Pipeline() = default;
  bool Member(const Row& row) const;  // filter + start cursor

  QueryShape shape_;
  std::vector<std::string> tables_;
  Table* table_ = nullptr;
  std::unique_ptr<std::vector<SortPart>> sort_;  // stable address for comparators
  Predicate where_;
  std::vector<std::pair<int, Value>> start_values_;  // leading sort columns of the cursor
  bool has_start_ = false;
  bool start_exclusive_ = false;
  std::optional<int64_t> limit_;
  const RowIndexSet* index_ = nullptr;
  std::unique_ptr<RowIndexSet> window_;
};

// The completed sort of one level: orderBy, then the pk columns not already ordered (asc).
std::vector<SortPart> CompletedSort(const Ast& ast, const TableSpec& spec);

}  // namespace rindle
