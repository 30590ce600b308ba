// write_txn.h — a write transaction on the engine's Db (seed 000 `package/pkg/rindle.d.ts`
// write/commit, SPEC §2.1 "Write transactions"). Holds state: the undo log of its staged writes
// and the source each write routed through. Opened only by Db::Write(); not thread-safe.
//
// Staging: Add (error if the pk exists), Remove (error if absent or the stored row differs), Edit
// (old must equal the stored row; the pk may change: a remove at the old pk plus an add at the
// new) write straight into the tables' head — optimistically, so a tracked table's sync baseline
// keeps the pre-write row — and into the Db's undelivered net change. Get and Query read the
// txn's own writes.
// Undo: each staged head write records the previous head row, overlay entry and net change, so
// Rollback (or the destructor of an uncommitted txn, or any failing operation) restores all
// three exactly: the engine is as if the txn never ran.
// Commit: outside a rebase cycle delivers the net change as [{query_id, events}] for every query
// it changed (change.h); inside a cycle the change stays buffered for ServerBatchEnd and Commit
// returns no batches. CommitTrackedWrites also returns each staged write's source key.
//
// At most one txn is open per Db: a txn opened while another is open (or on a poisoned Db) is
// closed from the start, and every operation on it returns FailedPrecondition saying why.
// Errors: unknown table (listing the tables), width/type error, a failed precondition — each
// rolls the whole txn back and is returned; any call on a closed txn is FailedPrecondition.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/change.h"
#include "engine/table.h"

namespace rindle {

class Db;

struct CommitTracked {
  std::vector<QueryBatch> batches;
  // Per staged write: the source it routed through — the pk's provenance captured before the
  // apply ("daemon" for a new pk or a Collapsed table; merge.h RouteOf).
  std::vector<std::string> sources;
};

class WriteTxn {
 public:
  ~WriteTxn();  // rolls back when neither committed nor rolled back
  WriteTxn(const WriteTxn&) = delete;
  WriteTxn& operator=(const WriteTxn&) = delete;

  absl::Status Add(std::string_view table, RowValues row);
  absl::Status Remove(std::string_view table, const RowValues& row);
  absl::Status Edit(std::string_view table, const RowValues& old_row, RowValues new_row);
  // The row at `pk` as this txn sees it (its own writes included); nullopt when absent.
  absl::StatusOr<std::optional<RowValues>> Get(std::string_view table, const RowValues& pk) const;
  // One-shot read of the txn's view: the result tree of `ast`, in order.
  absl::StatusOr<std::vector<TreeNode>> Query(const Ast& ast) const;
  // Applies the txn; inside a server batch the events buffer and this returns no batches.
  absl::StatusOr<std::vector<QueryBatch>> Commit();
  absl::StatusOr<CommitTracked> CommitTrackedWrites();
  void Rollback();
  bool open() const { return open_; }

 private:
  friend class Db;
  explicit WriteTxn(Db* db);
  absl::Status Fail(absl::Status s);  // rolls back, returns s
  absl::Status CheckOpen() const;
  absl::StatusOr<Table*> FindTable(std::string_view table) const;
  // Writes head[pk] = row optimistically, recording its undo and its net change.
  void Stage(Table* table, const RowValues& pk, Row row);
  // Records the source one Add/Remove/Edit at `pk` routes through (merge.h RouteOf), captured
  // before the write applies.
  void RecordStaged(const Table& table, const RowValues& pk);
  absl::StatusOr<CommitTracked> CommitImpl(bool with_sources);
  void ClearSources();
  // Restores every staged write, newest first.
  void UndoAll();
  void Close();

  struct UndoRecord {
    Table* table;
    RowValues pk;
    Row old_row;
    std::optional<Row> old_overlay;
    bool had_accum = false;
    NetChange old_accum;
  };
  // One staged write, newest last. A write of a row at a pk absent from the table, its sync
  // overlay and the undelivered net change (every row of a bulk load) keeps only the row: its
  // undo erases the pk (recomputed from the row) from all three. Any other write's full record
  // is undo_[full]. Why: a 600k-row load kept 600k full records (~190 bytes each) alive.
  struct UndoStep {
    Table* table;
    Row added;                  // fresh writes only
    int64_t full = -1;          // index into undo_, or -1
  };
  Db* db_;
  bool open_ = true;
  std::vector<UndoStep> steps_;
  std::vector<UndoRecord> undo_;
  // Per staged write, its source as an index into source_names_ (a load of 600k rows routed
  // through one source kept 600k copies of its key: ~19 MB at 100k issues; issue 16). Only a
  // lookup table, never iterated.
  std::vector<uint32_t> staged_sources_;
  std::vector<std::string> source_names_;
  absl::flat_hash_map<std::string, uint32_t> source_ids_;
};

}  // namespace rindle
