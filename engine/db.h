// db.h — the engine's `Db` (seed 000 `package/pkg/rindle.d.ts`): tables, live queries, write
// transactions with per-query change events, and the rebase cycle. Holds state; not thread-safe.
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
// Write transactions (WriteTxn): Add (error if the pk exists), Remove (error if absent or the
// stored row differs), Edit (old must equal the stored row; the pk may change), Get
// (read-your-writes), Query (one-shot read of the txn's view), Commit / CommitTracked, Rollback.
// Any failing operation (unknown table, width/type error, failed precondition) returns its Status
// and rolls the whole transaction back: the engine is as if it never ran.
//
// Rebase (seed 000 serverBatchBegin/End, SPEC §2.1 "Rebase"): ServerBatchBegin(source_key,
// deltas) rewinds head to sync ⊕ deltas for every tracked table, makes that the new sync and
// starts buffering; re-invocations run as ordinary write txns whose Commit returns no batches;
// ServerBatchEnd delivers the whole cycle as ONE coalesced batch per affected query (an exactly
// confirmed prediction delivers nothing). Errors: a cycle already open, an unknown or local
// table, a delta whose precondition fails. An error inside a cycle poisons the Db (every later
// call fails; recovery is a rebuild).
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
#include "engine/schema.h"
#include "engine/table.h"

namespace rindle {

class Pipeline;
class WriteTxn;

// One base-table row op of a coherent server delta (seed 000 ServerDeltaOp).
struct ServerDeltaOp {
  enum class Type { kAdd, kRemove, kEdit };
  std::string table;
  Type type = Type::kAdd;
  RowValues row;      // add: the row; remove: the row; edit: the new row
  RowValues old_row;  // edit only
};

struct QuerySnapshot {
  QueryShape shape;
  std::vector<ChangeEvent> events;  // one add per root row, in order
};

struct CommitTracked {
  std::vector<QueryBatch> batches;
  std::vector<std::string> sources;  // per staged write: the source it routed through ("daemon")
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
    return ServerBatchBegin("daemon", deltas);
  }
  absl::StatusOr<std::vector<QueryBatch>> ServerBatchEnd();
  bool in_server_batch() const { return in_batch_; }
  bool poisoned() const { return poisoned_; }

  // Read access (head state, pk order). Unknown table → NotFound.
  absl::StatusOr<std::vector<RowValues>> TableRows(std::string_view table) const;
  // The sync baseline of a tracked table (pk order); a local table → FailedPrecondition.
  absl::StatusOr<std::vector<RowValues>> SyncRows(std::string_view table) const;
  absl::StatusOr<std::optional<RowValues>> Get(std::string_view table, const RowValues& pk) const;

 private:
  friend class WriteTxn;
  struct QueryEntry;
  Table* FindTable(std::string_view name) const;
  absl::Status CheckUsable() const;
  // Delivers the net change accumulated since the last delivery to every live pipeline.
  std::vector<QueryBatch> Deliver();

  std::map<std::string, std::unique_ptr<Table>, std::less<>> tables_;
  std::map<int64_t, std::unique_ptr<QueryEntry>> queries_;
  NetChangeSet accum_;  // net change since the last delivery
  bool txn_open_ = false;
  bool in_batch_ = false;
  bool poisoned_ = false;
  std::string batch_source_;
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
  void Apply(Table* table, const RowValues& pk, Row row);
  struct UndoRecord {
    Table* table;
    RowValues pk;
    Row old_row;
    std::optional<Row> old_overlay;
    bool had_accum = false;
    NetChange old_accum;
  };
  Db* db_;
  bool open_ = true;
  std::vector<UndoRecord> undo_;
  std::vector<std::string> sources_;
};

}  // namespace rindle
