// merge_model.h — a deliberately naive model of the engine's multi-source merge (seed 000
// §merge: addRoomSource, removeRoomSource, holdBack, holdBackAbsent, dropHeldBack,
// heldBackState, freezeSource, provenanceOf, writableMatches, serverBatchBegin(sourceKey),
// commitTracked). Holds state: plain maps only. Shares no code with the engine but the AST,
// value and schema types; writable predicates are evaluated by the fresh-query oracle over a
// one-row table (fresh_query.h), never by the engine's filter code.
//
// Shapes: every tracked table has a daemon source ("daemon", base/source_key.h) and, once
// Merged (the first AddRoomSource), any number of rooms ("room:doc:X"). A source holds its
// confirmed baseline (pk → row), its hold-back overlay (pk → parked row, or nullopt for a
// tombstone) and a frozen flag; a room also its writable scope. Above the merge sits ONE
// optimistic layer per table (pk → row or nullopt = removed), cleared by every rewind.
//
// Winner rule, brute force per pk over the sources whose overlay-first copy holds it (the
// parked row or tombstone first, else the baseline row):
//   1. a frozen source;  2. a room whose scope covers ITS copy;  3. the daemon;  4. any room.
// Ties inside a tier: the daemon, then rooms in key order. Visible(pk) = the optimistic layer
// at pk if it has the pk, else the winner's copy. Provenance = the winner's key (the optimistic
// layer is not consulted: staged/optimistic rows have not routed). A write routes through the
// provenance of its pk before it applies, "daemon" for a pk no source holds or a Collapsed table.
//
// Rewind (ServerBatchBegin(S, deltas)): every table's optimistic layer is cleared; each delta
// op applies to S's baseline of its table (add: pk absent; remove: the equal row present; edit:
// the equal old row present, pk unchanged); then S's fences run: a tombstone drops where S's
// baseline lacks the pk; a parked row drops where S's baseline holds exactly that row.
// Installing a hold-back changes nothing visible only when the caller parks the visible row
// (or a tombstone at an invisible pk): the model does not enforce that (HoldBackChangesVisible
// tells the caller).
//
// Errors (the Status code and a message naming table, source and row; a failing call changes
// nothing): unknown table (NotFound); a local table where the merge needs a tracked one, a
// duplicate room, a source not attached, "daemon" where a room is required, a bad room key
// (FailedPrecondition / InvalidArgument); a bad row width or cell (InvalidArgument); a failed
// precondition of a delta or a write, a delta from a source frozen on its table
// (FailedPrecondition). HeldBackState and DropHeldBack never fail for a Collapsed table or an
// unattached source (nothing parked; the drop is a no-op). Source: seed 000 doc comments (000_*.txt); issue 14.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/schema.h"
#include "engine/value.h"
#include "oracles/plain_store.h"

namespace rindle {

// The model's own writable scope (mirrors seed WritableDescriptor, not the engine's type).
struct ModelScope {
  enum class Kind { kAll, kNone, kColEq, kPredicate };
  Kind kind = Kind::kAll;
  int col = -1;                    // kColEq
  Value value;                     // kColEq
  std::optional<Condition> where;  // kPredicate
};

// One row op: a server delta op or a staged optimistic write.
struct ModelOp {
  enum class Kind { kAdd, kRemove, kEdit };
  std::string table;
  Kind kind = Kind::kAdd;
  RowValues row;      // add / remove: the row; edit: the new row
  RowValues old_row;  // edit only
};

struct ModelHeldBackInfo {
  bool absent = false;
  std::optional<RowValues> baseline;
  bool operator==(const ModelHeldBackInfo&) const = default;
};

// Evaluates a row-local condition (simple column-vs-literal leaves under and/or) on `row` with
// the fresh-query oracle's semantics. A correlated subquery or an unknown column is
// InvalidArgument.
absl::StatusOr<bool> ModelRowMatches(const Condition& where, std::string_view table,
                                     const TableSpec& spec, const RowValues& row);

class MergeModel {
 public:
  using PkMap = std::map<RowValues, std::optional<RowValues>, PkLess>;
  struct Source {
    PlainTable baseline;
    PkMap held;  // nullopt = tombstone
    bool frozen = false;
    std::optional<ModelScope> scope;  // rooms only
  };
  struct TableState {
    bool local = false;
    bool merged = false;
    std::map<std::string, Source> sources;  // "daemon" always present
    PkMap optimistic;
  };

  MergeModel(const Schema& schema, const std::set<std::string>& local_tables);

  absl::Status AddRoomSource(std::string_view table, std::string_view room, const ModelScope& w);
  absl::Status RemoveRoomSource(std::string_view table, std::string_view room);
  absl::Status HoldBack(std::string_view table, std::string_view source, const RowValues& row);
  absl::Status HoldBackAbsent(std::string_view table, std::string_view source,
                              const RowValues& old_row);
  // Returns whether something was parked (false: a no-op).
  absl::StatusOr<bool> DropHeldBack(std::string_view table, std::string_view source,
                                    const RowValues& probe);
  absl::StatusOr<std::optional<ModelHeldBackInfo>> HeldBackState(std::string_view table,
                                                                 std::string_view source,
                                                                 const RowValues& probe) const;
  absl::Status FreezeSource(std::string_view table, std::string_view source);
  absl::StatusOr<std::optional<std::string>> ProvenanceOf(std::string_view table,
                                                          const RowValues& row) const;
  absl::StatusOr<bool> WritableMatches(std::string_view table, std::string_view room,
                                       const RowValues& row) const;

  // The rewind. Atomic: on an error nothing changed.
  absl::Status ServerBatchBegin(std::string_view source, const std::vector<ModelOp>& deltas);
  // One optimistic write txn, all or nothing; returns the routed source per op.
  absl::StatusOr<std::vector<std::string>> Commit(const std::vector<ModelOp>& ops);

  // What is visible, per table (local tables included: they hold their written rows).
  PlainTables Visible() const;
  PlainTable VisibleTable(std::string_view table) const;
  // Whether parking `row` (absent: a tombstone at its pk) on `source` would change the visible
  // rows (the caller must not do that: the engine delivers nothing at install).
  bool HoldBackChangesVisible(std::string_view table, std::string_view source,
                              const RowValues& row, bool absent) const;
  // Every pk any source, hold-back or optimistic write of `table` knows (for probes).
  std::vector<RowValues> KnownPks(std::string_view table) const;
  // Every (table, source, pk) with a parked hold-back: pk → nullopt tombstone / row.
  const std::map<std::string, TableState>& tables() const { return tables_; }
  const Schema& schema() const { return schema_; }
  // The row `source`'s copy shows at pk (overlay-first), or nullopt.
  std::optional<RowValues> CopyOf(const Source& s, const RowValues& pk) const;

 private:
  absl::StatusOr<const TableSpec*> SpecOf(std::string_view table) const;
  absl::StatusOr<TableState*> Tracked(std::string_view table, std::string_view what);
  absl::StatusOr<Source*> Attached(std::string_view table, std::string_view source,
                                   std::string_view what);
  absl::Status CheckRow(std::string_view table, const RowValues& row, std::string_view what) const;
  bool Covers(std::string_view table, const Source& s, const RowValues& row) const;
  // The winning source key at pk, or nullopt when no source holds it.
  std::optional<std::string> Winner(std::string_view table, const TableState& t,
                                    const RowValues& pk) const;
  std::optional<RowValues> VisibleAt(std::string_view table, const TableState& t,
                                     const RowValues& pk) const;
  absl::Status ApplyDelta(Source& s, const TableSpec& spec, const ModelOp& op);
  void RunFences(std::string_view source);

  Schema schema_;
  std::map<std::string, TableState> tables_;
};

}  // namespace rindle
