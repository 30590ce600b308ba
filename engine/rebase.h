// rebase.h — the rebase cycle (seed 000 serverBatchBegin/serverBatchEnd, SPEC §2.1 "Rebase"):
// one server delta from one sync source, folded into the confirmed baseline. Holds state: whether
// a cycle is open and which source opened it; the tables and the undelivered net change it writes
// belong to the Db that owns it.
//
// Begin(source_key, deltas), in named steps:
//   1. plan   — nothing mutated yet: seed the target sync state with the optimistic layer's pks
//               (every tracked table's sync overlay, i.e. the rows to rewind), then fold each delta
//               op into it, checking its precondition against sync (an add's pk absent, a
//               remove's / edit's old row equal to the sync row, an edit's new pk free);
//   2. rewind — write head := target for every planned pk whose head differs, buffering each
//               write's net change in the Db's change set, and empty every overlay (head == sync:
//               the delta is now the confirmed baseline);
//   3. buffer — the cycle stays open; the re-invoked mutators run as ordinary write txns whose
//               commits buffer into the same change set.
// End() closes the cycle; the Db then delivers the whole cycle as ONE coalesced batch per
// affected query (an exactly confirmed prediction nets to nothing and delivers nothing).
//
// Per source (merge.h): the key names the sync source the delta comes from (source_key.h). The
// daemon's baseline is every Collapsed tracked table's sync plus the daemon slice of every Merged
// table; a room's baseline is its slice of each table it is attached to. A delta op on a Merged
// table folds into the source's slice only (preconditions against that slice's baseline); then
// the source's hold-backs that its new baseline has caught up with drop (merge.h ApplyFold) and
// every affected pk's visible winner becomes its sync target. The whole optimistic layer (every
// tracked table's overlay) rewinds on every source's batch: the client re-invokes every pending
// mutator after any batch.
//
// Errors (all before anything is mutated): an unknown source key (neither the daemon nor a room
// attached to some table), an unknown or local table, a Collapsed table in a room's delta or a
// Merged table the room is not attached to, a frozen source, a width/type error, a delta op whose
// precondition fails — each names the source, delta[i] and its table.
// Callers guarantee: no cycle is open and no write txn is open when Begin runs (the Db checks
// both and returns FailedPrecondition); every undelivered change was delivered before Begin.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "engine/merge.h"
#include "engine/table.h"

namespace rindle {

// One base-table row op of a coherent server delta (seed 000 ServerDeltaOp).
struct ServerDeltaOp {
  enum class Type { kAdd, kRemove, kEdit };
  std::string table;
  Type type = Type::kAdd;
  RowValues row;      // add: the row; remove: the row; edit: the new row
  RowValues old_row;  // edit only
};

class Rebase {
 public:
  // `tables`, `accum` and `merge` are the owning Db's; all must outlive this.
  Rebase(TableMap* tables, NetChangeSet* accum, Merge* merge);
  Rebase(const Rebase&) = delete;
  Rebase& operator=(const Rebase&) = delete;

  // Opens a cycle for `source_key` (see the steps above). On error nothing changed and no cycle
  // is open. Precondition (CHECKed): no cycle is open and `accum` holds no net change.
  absl::Status Begin(std::string_view source_key, const std::vector<ServerDeltaOp>& deltas);
  // Closes the open cycle (CHECKed). The caller delivers the buffered change set.
  void End();

  bool open() const { return open_; }
  // The source key of the open cycle; empty when none is open.
  const std::string& source() const { return source_; }

 private:
  absl::Status FoldAndRewind(std::string_view source_key, const std::vector<ServerDeltaOp>& deltas);

  TableMap* tables_;
  NetChangeSet* accum_;
  Merge* merge_;
  bool open_ = false;
  std::string source_;
};

// True when `changes` holds no net change for any table (an entry may exist but be empty).
bool NoNetChange(const NetChangeSet& changes);

}  // namespace rindle
