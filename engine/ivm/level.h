// level.h — one compiled level of a query's AST (the root, a `related` child, or an EXISTS
// subquery): its source (table + ordered index), filter (filter.h, EXISTS leaves included),
// start cursor, limit, and the edges to its child levels. Holds no result state; it holds the
// table indexes it reads for its lifetime (released in the destructor).
//
// Membership of a row at a level is evaluated in the tables' CURRENT state: the row-local
// filter, each EXISTS leaf (at least one child row with the correlated key is a member of the
// subquery level — its `orderBy` never matters and its `limit` only when 0), then the start
// cursor over the completed sort (a sort column the cursor leaves out compares as null).
// Correlation: child.childField[i] == parent.parentField[i] for every i; a null on either side
// never correlates (SPEC §2.1; the oracle's rule).
//
// Indexes: a root level scans its table in its completed sort; a child level scans by
// (childField..., completed sort) so the children of one parent are one contiguous run
// (Zero's `fetch` with a `constraint`). An EXISTS edge also holds an index of the PARENT table
// leading with parentField so a child change finds the parents it may flip without a scan. A
// level whose scans never stop early (EXISTS, or keyed without a limit) and the parent indexes
// need only the runs contiguous, so they share any index leading with the key columns
// (table.h AcquireRunIndex); indexes drop a repeated column, so key probes compare each
// column's first occurrence only (FirstOccurrences).
//
// Errors (Build): unknown table/column in the AST or its correlation, mismatched
// parentField/childField lengths, and whatever the filter's compile reports — each naming the
// `$.` path into the AST. Source: seed 000 §2 (query surface), ARCHITECTURE.md §7.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/change.h"
#include "engine/ivm/filter.h"
#include "engine/query_shape.h"
#include "engine/table.h"

namespace rindle {

class Level;

// A parent→child correlation: `related` (children shown under `alias`) or EXISTS (a filter leaf).
struct LevelEdge {
  std::string alias;
  std::vector<int> parent_cols;  // in the parent level's table
  std::vector<int> child_cols;   // in the child level's table
  std::unique_ptr<Level> child;
  // The parent table ordered by (parent_cols..., pk): held by every EXISTS edge, and by a
  // related edge under a child level (to find which partitions a deeper change passes through).
  std::vector<SortPart> parent_index_sort;
  const RowIndexSet* parent_index = nullptr;
  // Key probes (table.h KeyProbe cols). Indexes drop a repeated column, so a probe compares only
  // each column's first occurrence: `exists_probe` = the parent-row cells matching the child
  // index's leading columns; `parent_probe` = the positions in a parent-side key matching the
  // parent index's leading columns.
  std::vector<int> exists_probe;
  std::vector<int> parent_probe;
  // Related edges: (parent_cols..., parent pk) ascending, repeats dropped — the order of a
  // window's node rows by correlation key (window.h Window::by_key). Stable address.
  std::unique_ptr<std::vector<SortPart>> node_key_sort;
};

// Per-Process scratch: the rows of a level whose membership may have changed, pk → (before,
// after) (before == after for a row whose EXISTS may have flipped without it changing).
struct LevelCandidates {
  // Whether this level's table or any level below it has a change in this Process call.
  bool touched = false;
  // By pk (keyed by a row at that pk under its table's pk sort): the level table's own net
  // changes (pointing into the Process call's NetChangeSet) and EXISTS-flip candidates (in
  // `flips`, whose addresses are stable).
  absl::btree_map<IndexEntry, const NetChange*, EntryLess> by_pk;
  std::deque<NetChange> flips;
  // Child levels only: correlation key → the candidates whose before or after row has that key.
  absl::btree_map<RowValues, std::vector<const NetChange*>, RowKeyLess> by_key;
  // Child levels only: the keys of every partition that needs a visit — those with candidates
  // and those holding a row that parents a partition needing a visit deeper down.
  absl::btree_set<RowValues, RowKeyLess> visit;
};

class Level : public ExistsEvaluator {
 public:
  using TableFinder = std::function<Table*(std::string_view)>;

  // `key_cols` are the child correlation columns for a child level (nullptr for the root);
  // `for_exists` builds an EXISTS subquery level (its `related` are ignored: never shown).
  static absl::StatusOr<std::unique_ptr<Level>> Build(const Ast& ast,
                                                      const std::vector<int>* key_cols,
                                                      bool for_exists, const TableFinder& find,
                                                      const std::string& path);
  ~Level() override;
  Level(const Level&) = delete;
  Level& operator=(const Level&) = delete;

  Table* table() const { return table_; }
  const TableSpec& spec() const { return table_->spec(); }
  const std::vector<SortPart>& sort() const { return *sort_; }
  const std::optional<int64_t>& limit() const { return limit_; }
  std::vector<LevelEdge>& related() { return related_; }
  const std::vector<LevelEdge>& related() const { return related_; }
  std::vector<LevelEdge>& exists() { return exists_; }
  const std::vector<LevelEdge>& exists() const { return exists_; }
  const QueryShape& shape() const { return *shape_; }
  std::shared_ptr<const QueryShape> shared_shape() const { return shape_; }
  bool keyed() const { return !key_cols_.empty(); }

  // Filter + start cursor, in the current state. `row` may be null (→ false).
  bool Member(const Row& row) const;
  // For a keyed level: also requires the row's key to equal `key` (nullptr = root level: any).
  bool MemberUnder(const Row& row, const RowValues* key) const;
  // ExistsEvaluator: some member child correlates with `row` through exists edge `edge`.
  bool Exists(int edge, const RowValues& row) const override;

  // The correlation key of `row` over `cols`; nullopt when a cell is null (never correlates).
  static std::optional<RowValues> KeyOf(const RowValues& row, const std::vector<int>& cols);
  // The positions i whose cols[i] does not occur before i (what a key probe compares).
  static std::vector<int> FirstOccurrences(const std::vector<int>& cols);
  const std::vector<int>& key_cols() const { return key_cols_; }

  // The level's source in scan order: the first row at or after the window's start (for a
  // keyed level, the first row with `key`), and the row after `bound`.
  RowIndexSet::const_iterator ScanBegin(const RowValues* key) const;
  RowIndexSet::const_iterator ScanAfter(const Row& bound) const;
  RowIndexSet::const_iterator ScanEnd() const { return index_->end(); }
  // Whether a scanned row still belongs to `key`'s run (always true for the root).
  bool InRun(const Row& row, const RowValues* key) const;

  // Scratch for one Process call (pipeline.cc fills and clears it).
  LevelCandidates& candidates() const { return candidates_; }

 private:
  Level() = default;
  // Build's steps: the completed sort, scan order and index; the where (EXISTS edges + filter);
  // the start cursor; the related edges (appended to `shape`).
  absl::Status InitSource(const Ast& ast, bool for_exists, const std::string& path);
  absl::Status CompileWhere(const Ast& ast, const TableFinder& find, const std::string& path);
  absl::Status InitStart(const Ast& ast, const std::string& path);
  absl::Status BuildRelated(const Ast& ast, const TableFinder& find, const std::string& path,
                            QueryShape* shape);
  // The parent table ordered by (parent_cols..., pk), held by `edge` until the destructor.
  void AcquireParentIndex(LevelEdge* edge);
  bool KeyEquals(const RowValues& row, const RowValues& key) const;

  Table* table_ = nullptr;
  std::vector<int> key_cols_;
  std::vector<int> key_probe_;  // FirstOccurrences(key_cols_)
  std::unique_ptr<std::vector<SortPart>> sort_;        // completed sort (stable address)
  std::unique_ptr<std::vector<SortPart>> scan_sort_;   // key cols + completed sort
  const RowIndexSet* index_ = nullptr;
  Filter filter_;
  std::vector<std::pair<int, Value>> start_values_;  // over the completed sort
  bool has_start_ = false;
  bool start_exclusive_ = false;
  std::optional<int64_t> limit_;
  std::vector<LevelEdge> related_;
  std::vector<LevelEdge> exists_;
  std::shared_ptr<const QueryShape> shape_;
  mutable LevelCandidates candidates_;
};

// The completed sort of one level: orderBy, then the pk columns not already ordered (asc).
std::vector<SortPart> CompletedSort(const Ast& ast, const TableSpec& spec);

}  // namespace rindle
