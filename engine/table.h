// table.h — one table's storage (a "source" in Zero's terms): the live `head` rows keyed by
// primary key, ordered secondary indexes created on demand per sort, and — for a tracked
// (non-local) table — the `sync` baseline kept as an overlay of the rows where sync differs from
// head. Holds state; not thread-safe.
//
// Rows are full-width positional (schema.h) and shared (row.h Row); head, indexes and overlay
// hold references to them, never copies of their cells, as row_index.h entries: (the order image
// of the first sort cell, the row), so a search compares integers and reads rows only on image
// ties (head and overlay are ordered by the pk and searched by the pk's cells). An index orders
// rows by a SortPart list that always ends with the pk columns, so every index is a total order.
// Writes go through Put(pk, new) which keeps every index in step and reports the previous row.
// Put never validates: the Db checks preconditions first. Source: ARCHITECTURE.md §7 "Sources"; seed 000
// §1.3 (sync beside head).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "engine/change.h"
#include "engine/query_shape.h"
#include "engine/row_index.h"
#include "engine/schema.h"

namespace rindle {

struct RowKeyLess {
  bool operator()(const RowValues& a, const RowValues& b) const {
    return CompareRowValues(a, b) < 0;
  }
};

// A table's index: its rows as entries carrying their first sort cell's image (row_index.h).
using RowIndexSet = RowIndex;

// Compares a row's pk cells (at the table's pk columns) with a pk's cells.
struct RowPkLess {
  using is_transparent = void;
  const std::vector<int>* pk;  // the table's pk columns (TableSpec::primary_key)
  int Compare(const RowValues& row, const RowValues& pk_cells) const;
  bool operator()(const Row& a, const Row& b) const;
  bool operator()(const Row& a, const RowValues& k) const { return Compare(*a, k) < 0; }
  bool operator()(const RowValues& k, const Row& a) const { return Compare(*a, k) > 0; }
};
// pk → sync row, keyed by an entry (row_index.h) of a row holding that pk's cells (the sync row
// or a head row at the pk) under the pk sort: searched by pk through its image without a copy.
using SyncOverlay = absl::btree_map<IndexEntry, Row, EntryLess>;

// The net change of one pk over a span of writes (nullptr = absent).
struct NetChange {
  Row before;
  Row after;
};
using TableNetChanges = absl::btree_map<RowValues, NetChange, RowKeyLess>;
using NetChangeSet = std::map<std::string, TableNetChanges, std::less<>>;

class Table;
// The Db's tables by name (name order: a rebase walks them in it).
using TableMap = std::map<std::string, std::unique_ptr<Table>, std::less<>>;

class Table {
 public:
  Table(std::string name, TableSpec spec, bool local);
  // The comparators point into spec_: a Table never moves (TableMap holds it by pointer).
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  const std::string& name() const { return name_; }
  const TableSpec& spec() const { return spec_; }
  bool local() const { return local_; }
  size_t size() const { return rows_.size(); }

  // The head row at pk, or nullptr.
  Row Find(const RowValues& pk) const;
  // Sets head[pk] = row (nullptr erases) in every index; returns the previous row (or nullptr).
  // For a tracked table, `optimistic` writes record the pre-write row into the sync overlay the
  // first time a pk is touched; rebase writes (optimistic=false) do not. `old_overlay`, when
  // given, receives OverlayEntry(pk) as it was before the write (a txn's undo record; found by
  // the same search).
  Row Put(const RowValues& pk, Row row, bool optimistic,
          std::optional<Row>* old_overlay = nullptr);

  // An index ordered by `sort` (which must end with the pk columns); created on first acquire,
  // dropped when the last holder releases it.
  // A repeated column is dropped (it cannot change the order), so `(id, id)` shares `(id)`.
  const RowIndexSet& AcquireIndex(const std::vector<SortPart>& sort);
  // For a reader that only needs each key's run contiguous (order within a run irrelevant): any
  // live index whose sort leads with `lead` ascending (the first in sort-key order), else a new
  // one ordered by (lead..., pk). `*held` receives the sort to hand to ReleaseIndex.
  const RowIndexSet& AcquireRunIndex(const std::vector<int>& lead, std::vector<SortPart>* held);
  void ReleaseIndex(const std::vector<SortPart>& sort);
  // Sort parts of the pk, ascending.
  std::vector<SortPart> PkSort() const;
  // The same, at a stable address (the table never moves): head's order, and the order of the
  // operators' per-pk maps (engine/ivm/window.h).
  const std::vector<SortPart>& pk_sort() const { return pk_sort_; }

  // Head rows in pk order.
  std::vector<RowValues> HeadRows() const;
  // Sync rows in pk order (head with the overlay applied).
  std::vector<RowValues> SyncRows() const;
  // The sync row at pk (nullptr when absent in sync).
  Row SyncFind(const RowValues& pk) const;
  // pk → sync row for every pk where sync may differ from head (the key is a row at that pk:
  // read its pk with spec().PkOf).
  const SyncOverlay& sync_overlay() const { return overlay_; }
  void ClearSyncOverlay() { overlay_.clear(); }
  // Restores an overlay entry (txn rollback): nullopt removes it.
  void SetOverlayEntry(const RowValues& pk, std::optional<Row> sync_row);
  std::optional<Row> OverlayEntry(const RowValues& pk) const;

  size_t live_index_refs() const;

 private:
  struct Index {
    std::unique_ptr<std::vector<SortPart>> sort;  // stable address for the comparator
    std::unique_ptr<RowIndex> set;
    int refs = 0;
  };
  static std::vector<SortPart> Normalized(const std::vector<SortPart>& sort);
  static std::string SortKey(const std::vector<SortPart>& sort);

  // A row whose pk cells are `pk` (for an overlay key when neither head nor sync has a row).
  Row KeyRow(const RowValues& pk) const;
  // The head entry at `pk`, or rows_.end(); `*at` receives the lower bound (an insert hint).
  RowIndex::const_iterator FindHead(const RowValues& pk, RowIndex::const_iterator* at) const;
  SyncOverlay::iterator FindOverlay(const RowValues& pk, SyncOverlay::iterator* at);
  SyncOverlay::const_iterator FindOverlay(const RowValues& pk) const;

  std::string name_;
  TableSpec spec_;
  bool local_;
  std::vector<SortPart> pk_sort_;  // the pk columns ascending: head's and the overlay's order
  // Head rows by pk: references only (issue 16: a pk copy per row was ~90 bytes at 100k).
  RowIndex rows_;
  std::map<std::string, Index> indexes_;
  SyncOverlay overlay_;  // sync value (nullptr = absent in sync)
};

}  // namespace rindle
