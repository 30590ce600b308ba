// tracking_tx.h — the client MutationTx over an engine WriteTxn (seed 002 `trackingTx`, §3.2
// #1/#2/#3, M1 of 201-LOCAL-ONLY-TABLES). Holds per-invocation state: the captured WriteSet, the
// optional ReadLog, and the first engine failure.
//
// Shapes: keyed rows are JSON objects {column: value}; positional rows are full-width RowValues
// in the table's column order (TableSpec). A JSON object/array given for a `json` column is
// stored as its compact dump. Reads return full-width rows (keyed reads: every column).
//
// Validation (all InvalidArgument, naming the table/column and listing the valid names):
//   unknown table       — `unknown table "x" — tables: a, b`
//   unknown column      — `table "t": unknown column "c" — columns: id, title`
//   missing pk column   — update/delete/row/insert need every pk column
//   missing non-nullable column — insert/upsert/insertIgnore (full rows)
//   bad row             — TableSpec::CheckRow's message (width / type / null pk)
// M1: reading or writing a local-only table is FailedPrecondition naming the table.
// Raw write preconditions are checked HERE, before the engine is touched (Add: pk absent →
// else AlreadyExists; Remove: stored row equals → else FailedPrecondition; Edit: old equals the
// stored row and a moved-to pk is absent), so a refused write never reaches (or poisons) the
// engine's txn. If the engine nevertheless fails an op, the txn is rolled back by the engine and
// `failure()` keeps that status (the invocation must then fail even if the mutator swallowed it).
//
// Read trap (seed 002 §5, FOLDED-MUTATIONS-DESIGN §5): with trap_reads the PUBLIC Get / GetRow /
// Query fail with FailedPrecondition starting "fold-read: " (and the invocation fails even if the
// mutator swallows it); the keyed writers' internal probes stay legal (column preservation is not
// value derivation). Recording and the trap are never armed together.
// Recording: every write lands in the WriteSet (coalescing matrix, write_set.h); with a ReadLog
// the public Get/GetRow and the keyed writers' pre-existence probes record ReadRecords and Query
// records its AST. The internal precondition probes are not recorded.
// Probed tables: in EVERY mode (the trap path included — a set of table names, not a ReadLog),
// the tables whose rows a public read or a keyed writer's pre-existence probe looked up. A fold's
// probe branches on its row (seed 002 H-ii §3.2 #3), so it is part of the fold's footprint for
// flush-on-enqueue even when the write it guarded did nothing (folds.h).
// Staging (seed 002 302 §2, `trackingTx`'s `stage`): with Stage(map) — a room-DECLARED mutation's
// RoomTables::StagingMap — every engine access (reads, writes, one-shot Query ASTs) lands on the
// room's twin of an owned wire table; validation runs on the wire name (the twin shares the spec);
// the WriteSet, the ReadLog and probed() record the ENGINE name (what the engine holds, so the
// pending axis and flush-on-enqueue compare like with like). Tables outside the map: verbatim.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/db.h"
#include "engine/schema.h"
#include "optimistic/mutation_tx.h"
#include "optimistic/room_tables.h"
#include "optimistic/write_set.h"

namespace rindle {

inline constexpr char kFoldReadErrorPrefix[] = "fold-read: ";

class TrackingTx : public MutationTx {
 public:
  // All pointers must outlive this object. `reads` may be null (recording off).
  TrackingTx(WriteTxn* txn, const Schema* schema, const std::set<std::string>* local_tables,
             WriteSet* writes, ReadLog* reads);

  // Arms the folded read trap (see above).
  void TrapReads() { trap_reads_ = true; }
  // Arms staging (see above); `stage` (may be null: off) must outlive this object.
  void Stage(const RoomTableMap* stage) { stage_ = stage; }
  // True when a trapped read was attempted.
  bool fold_read() const { return fold_read_; }
  // Tables a public read or a keyed writer's probe looked up (see above).
  const std::set<std::string>& probed() const { return probed_; }

  absl::StatusOr<std::optional<RowValues>> Get(std::string_view table,
                                               const RowValues& pk) override;
  absl::StatusOr<std::optional<KeyedRow>> GetRow(std::string_view table,
                                                 const KeyedRow& pk) override;
  absl::StatusOr<std::vector<TreeNode>> Query(const Ast& ast) override;
  absl::Status Add(std::string_view table, const RowValues& row) override;
  absl::Status Remove(std::string_view table, const RowValues& row) override;
  absl::Status Edit(std::string_view table, const RowValues& old_row,
                    const RowValues& new_row) override;
  absl::Status Insert(std::string_view table, const KeyedRow& row) override;
  absl::Status Update(std::string_view table, const KeyedRow& row) override;
  absl::Status Upsert(std::string_view table, const KeyedRow& row) override;
  absl::Status InsertIgnore(std::string_view table, const KeyedRow& row) override;
  absl::Status Delete(std::string_view table, const KeyedRow& pk) override;

  // The first engine-level failure (the txn is dead after it), OK otherwise.
  const absl::Status& failure() const { return failure_; }

 private:
  absl::StatusOr<const TableSpec*> Spec(std::string_view table) const;
  absl::StatusOr<const TableSpec*> Access(std::string_view table, const char* what) const;
  absl::StatusOr<std::optional<RowValues>> RawGet(const std::string& table, const RowValues& pk);
  absl::StatusOr<std::optional<RowValues>> RecordedGet(const std::string& table,
                                                       const RowValues& pk);
  // Checks the keys of a keyed row: every key a column; `full` ⇒ every non-nullable column
  // present, else every pk column present.
  absl::Status CheckColumns(std::string_view table, const TableSpec& spec, const KeyedRow& row,
                            bool full) const;
  absl::StatusOr<RowValues> PkCells(std::string_view table, const TableSpec& spec,
                                    const KeyedRow& row) const;
  absl::StatusOr<RowValues> FullCells(std::string_view table, const TableSpec& spec,
                                      const KeyedRow& row) const;
  KeyedRow ToKeyed(const TableSpec& spec, const RowValues& row) const;
  absl::Status Engine(absl::Status s);
  // The engine table a wire-named access lands on.
  std::string Staged(std::string_view table) const;
  absl::Status Trap(const char* what);

  WriteTxn* txn_;
  const Schema* schema_;
  const std::set<std::string>* local_tables_;
  WriteSet* writes_;
  ReadLog* reads_;
  absl::Status failure_;
  bool trap_reads_ = false;
  bool fold_read_ = false;
  const RoomTableMap* stage_ = nullptr;
  std::set<std::string> probed_;
};

}  // namespace rindle
