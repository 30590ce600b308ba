// db.h — the engine's `Db` (seed 000 `package/pkg/rindle.d.ts`): the facade over tables, live
// queries, write transactions (write_txn.h) and the rebase cycle (rebase.h). Holds state; not
// thread-safe.
//
// Tables: RegisterTable(name, spec, local). A tracked (non-local) table keeps, beside the live
// `head`, the authoritative baseline `sync`; optimistic writes change only head. A local table is
// never rebased and a server delta naming it is an error.
//
// Queries: RegisterQuery(qid, ast) validates the AST against the tables, builds its pipeline and
// hydrates: the snapshot is the result shape plus one add event per root row. Every commit
// returns [{query_id, events}] for the queries it changed (change.h); a query the commit did not
// change is absent. The engine is incremental: a one-row write costs O(log n) index work plus the
// size of the change in each affected query (no rescans).
//
// Write transactions: Write() opens a WriteTxn (write_txn.h: Add, Remove, Edit, Get, Query,
// Commit / CommitTrackedWrites, Rollback). Any failing operation returns its Status and rolls the
// whole transaction back: the engine is as if it never ran.
//
// Rebase (seed 000 serverBatchBegin/End, SPEC §2.1 "Rebase"): ServerBatchBegin(source_key,
// deltas) folds the delta into that source's confirmed baseline only (rebase.h), rewinds head to
// the confirmed layer for every tracked table and starts buffering; re-invocations run as
// ordinary write txns whose Commit returns no batches; ServerBatchEnd delivers the whole cycle as
// ONE coalesced batch per affected query, visible changes only (an exactly confirmed prediction,
// or a room row hidden behind another source's winner, delivers nothing). Errors: a cycle
// already open, a write txn open, an unknown or unattached source key, an unknown or local
// table, a frozen source, a delta whose precondition fails (nothing changes on an error).
// A poisoned Db fails every call (recovery is a rebuild); no path poisons it today.
//
// Multi-source merge (seed 000 §merge; merge.h, source_set.h): a table starts Collapsed (the
// daemon only: the code path above, unchanged). AddRoomSource promotes it to Merged: per
// physical source ("daemon", "room:doc:X") a slice with its own baseline, hold-backs and frozen
// flag; the room seeds empty, so nothing visible changes. The confirmed row per pk is the winner
// over the slices (source_set.h tiering); optimistic writes sit on top as for a Collapsed table.
// HoldBack / HoldBackAbsent park a row / a tombstone (installing never emits); DropHeldBack,
// FreezeSource and RemoveRoomSource deliver the compensating visible deltas (returned outside a
// cycle, folded into an open one). HeldBackState, ProvenanceOf, WritableMatches and SourceRows
// are read-only probes. The writing merge calls fail inside an open write txn.
//
// Invariant (CHECKed at each boundary): outside a write txn and a rebase cycle every net change
// has been delivered.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/ast_json.h"
#include "engine/change.h"
#include "engine/query_shape.h"
#include "engine/merge.h"
#include "engine/rebase.h"
#include "engine/schema.h"
#include "engine/source_set.h"
#include "base/source_key.h"
#include "engine/table.h"
#include "engine/write_txn.h"

namespace rindle {

class Pipeline;

struct QuerySnapshot {
  QueryShape shape;
  std::vector<ChangeEvent> events;  // one add per root row, in order
};

class Db {
 public:
  Db();
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // Re-registering an identical spec is a no-op; a different spec or locality is an error.
  absl::Status RegisterTable(const std::string& name, const TableSpec& spec, bool local);
  // Fails while a live query reads the table, or inside a server batch.
  absl::Status UnregisterTable(const std::string& name);
  const TableSpec* GetTableSpec(std::string_view name) const;
  bool IsLocal(std::string_view name) const;
  std::vector<std::string> TableNames() const;  // sorted
  TableLookup Lookup() const;

  // Fails on a duplicate qid, an invalid AST (the Status names the path into the AST) or inside
  // an open server batch. Registers nothing on failure.
  absl::StatusOr<QuerySnapshot> RegisterQuery(int64_t qid, const Ast& ast);
  // A no-op for an unknown qid.
  void DestroyQuery(int64_t qid);
  bool HasQuery(int64_t qid) const;
  std::vector<int64_t> QueryIds() const;  // sorted
  const Ast* QueryAst(int64_t qid) const;
  // The current materialized result of a live query (raw tree, for checks).
  absl::StatusOr<std::vector<TreeNode>> QueryResult(int64_t qid) const;

  // Opens a write transaction. At most one may be open at a time.
  std::unique_ptr<WriteTxn> Write();

  absl::Status ServerBatchBegin(std::string_view source_key,
                                const std::vector<ServerDeltaOp>& deltas);
  absl::Status ServerBatchBegin(const std::vector<ServerDeltaOp>& deltas) {
    return ServerBatchBegin(kDaemonSource, deltas);
  }
  absl::StatusOr<std::vector<QueryBatch>> ServerBatchEnd();
  bool in_server_batch() const { return rebase_.open(); }
  bool poisoned() const { return poisoned_; }

  // Read access (head state, pk order). Unknown table → NotFound.
  absl::StatusOr<std::vector<RowValues>> TableRows(std::string_view table) const;
  // The sync baseline of a tracked table (pk order); a local table → FailedPrecondition.
  absl::StatusOr<std::vector<RowValues>> SyncRows(std::string_view table) const;
  absl::StatusOr<std::optional<RowValues>> Get(std::string_view table, const RowValues& pk) const;

  // --- the multi-source merge (seed 000 §merge; merge.h, source_set.h) ---
  // Rows are full-width positional; the pk derives from the row. Every error names the table,
  // the source and the row; a failure leaves the Db unchanged.
  absl::Status AddRoomSource(std::string_view table, std::string_view room_key,
                             const WritableScope& w);
  absl::StatusOr<std::vector<QueryBatch>> RemoveRoomSource(std::string_view table,
                                                           std::string_view room_key);
  absl::Status HoldBack(std::string_view table, std::string_view source_key, const RowValues& row);
  absl::Status HoldBackAbsent(std::string_view table, std::string_view source_key,
                              const RowValues& old_row);
  // Delivered batches (empty when folded into an open server-batch cycle, or nothing parked).
  absl::StatusOr<std::vector<QueryBatch>> DropHeldBack(std::string_view table,
                                                       std::string_view source_key,
                                                       const RowValues& probe);
  absl::StatusOr<std::optional<HeldBackInfo>> HeldBackState(std::string_view table,
                                                            std::string_view source_key,
                                                            const RowValues& probe);
  absl::StatusOr<std::vector<QueryBatch>> FreezeSource(std::string_view table,
                                                       std::string_view source_key);
  absl::StatusOr<std::optional<std::string>> ProvenanceOf(std::string_view table,
                                                          const RowValues& row);
  absl::StatusOr<bool> WritableMatches(std::string_view table, std::string_view room_key,
                                       const RowValues& row);
  // Debug/oracle probe (read-only): one source's confirmed baseline rows (pk order). A Collapsed
  // table's only source is the daemon (its sync rows).
  absl::StatusOr<std::vector<RowValues>> SourceRows(std::string_view table,
                                                    std::string_view source_key) const;
  bool IsMerged(std::string_view table) const { return merge_.IsMerged(table); }

 private:
  friend class WriteTxn;
  struct QueryEntry;
  Table* FindTable(std::string_view name) const;
  absl::Status CheckUsable() const;
  // CHECKs the invariant: outside a write txn and a rebase cycle nothing is left undelivered.
  void CheckDelivered() const;
  // Delivers the net change accumulated since the last delivery to every live pipeline.
  std::vector<QueryBatch> Deliver();
  // Deliver() outside a rebase cycle; inside one the change waits for ServerBatchEnd.
  std::vector<QueryBatch> DeliverUnlessCycle();
  // The merge's writing calls fail on a poisoned Db and inside an open write txn.
  absl::Status CheckMergeMutable(std::string_view call) const;

  TableMap tables_;
  std::map<int64_t, std::unique_ptr<QueryEntry>> queries_;
  NetChangeSet accum_;  // net change since the last delivery
  bool txn_open_ = false;
  bool poisoned_ = false;
  Merge merge_{&tables_, &accum_};
  Rebase rebase_{&tables_, &accum_, &merge_};  // after the members it points at
};

}  // namespace rindle
