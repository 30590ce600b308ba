// merge.h — the multi-source merge of seed 000 (§merge, design §5/§7.3): which tables are
// Merged, their per-source slices (source_set.h), and the visible row per pk written into each
// Merged table's head/sync. Holds state (the SourceSets); the tables and the undelivered net
// change it writes belong to the owning Db. Sits below the query pipeline: it only writes table
// rows and net changes; the Db delivers them.
//
// Collapsed vs Merged: a table starts Collapsed (no SourceSet: today's daemon-only path, whose
// sync overlay IS the daemon baseline). AddRoomSource promotes it: the daemon slice's baseline is
// seeded with the table's current sync rows and the room seeds empty, so nothing visible changes.
// For a Merged table the Table's sync view (head ⊕ overlay) always equals the winner over the
// slices (Visible); the Table's overlay still records the optimistic layer to rewind.
//
// Errors name the call, the table, the source and the row; a failing call changes nothing.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/source_set.h"
#include "engine/table.h"

namespace rindle {

class Merge {
 public:
  // `tables` and `accum` are the owning Db's; both must outlive this.
  Merge(TableMap* tables, NetChangeSet* accum);
  Merge(const Merge&) = delete;
  Merge& operator=(const Merge&) = delete;

  bool IsMerged(std::string_view table) const { return sets_.contains(table); }
  // The SourceSet of a Merged table, or nullptr.
  SourceSet* Find(std::string_view table);
  const SourceSet* Find(std::string_view table) const;
  // Forgets a table (UnregisterTable).
  void Forget(std::string_view table) {
    if (auto it = sets_.find(table); it != sets_.end()) sets_.erase(it);
  }

  absl::Status AddRoomSource(std::string_view table, std::string_view room_key,
                             const WritableScope& w);
  // Buffers the compensating net change into accum (the Db delivers).
  absl::Status RemoveRoomSource(std::string_view table, std::string_view room_key);
  absl::Status HoldBack(std::string_view table, std::string_view source_key, const RowValues& row);
  absl::Status HoldBackAbsent(std::string_view table, std::string_view source_key,
                              const RowValues& old_row);
  // Buffers the compensating net change into accum (the Db delivers or the cycle folds it).
  absl::Status DropHeldBack(std::string_view table, std::string_view source_key,
                            const RowValues& probe);
  absl::StatusOr<std::optional<HeldBackInfo>> HeldBackState(std::string_view table,
                                                            std::string_view source_key,
                                                            const RowValues& probe) const;
  absl::Status FreezeSource(std::string_view table, std::string_view source_key);
  absl::StatusOr<std::optional<std::string>> ProvenanceOf(std::string_view table,
                                                          const RowValues& row) const;
  absl::StatusOr<bool> WritableMatches(std::string_view table, std::string_view room_key,
                                       const RowValues& row) const;
  absl::StatusOr<std::vector<RowValues>> SourceRows(std::string_view table,
                                                    std::string_view source_key) const;
  // The source a staged write at `pk` routes through, pre-apply: the pk's provenance, or the
  // daemon for a new pk or a Collapsed table.
  std::string RouteOf(const Table& table, const RowValues& pk) const;

  // --- the rebase's per-source fold (rebase.h) ---
  bool any_merged() const { return !sets_.empty(); }
  // True when `source` is attached to some Merged table (the daemon: always).
  bool HasSource(std::string_view source) const;
  // The confirmed baseline a delta op on Merged `table` folds against; an error (naming `where`)
  // when `source` is not attached to the table or is frozen.
  absl::StatusOr<const PkRowMap*> FoldBaseline(std::string_view where, std::string_view table,
                                               std::string_view source) const;
  // Applies a planned fold (Merged table → pk → the source's new baseline row, nullptr =
  // removed): writes the baselines, drops the source's hold-backs its baseline caught up with (a
  // parked row equal to the baseline row; a tombstone whose pk the baseline lacks), and sets
  // `target`[table][pk] to the new visible winner of every affected pk.
  void ApplyFold(std::string_view source, const std::map<std::string, PkRowMap, std::less<>>& fold,
                 std::map<std::string, PkRowMap, std::less<>>* target);

 private:
  // The tracked table `table`, or NotFound / InvalidArgument naming `where`.
  absl::StatusOr<Table*> TrackedTable(std::string_view where, std::string_view table) const;
  // The slice of `source` on Merged `table`, or an error naming `where` (Collapsed table:
  // FailedPrecondition; source not attached: NotFound).
  absl::StatusOr<SourceSlice*> SliceOf(std::string_view where, std::string_view table,
                                       std::string_view source);
  // Sets the confirmed (sync) row of `table` at pk. With an optimistic write or an undelivered
  // hold-back at pk the head keeps its row and only the overlay changes (the next rewind shows
  // it); otherwise `deliver` writes head and buffers the net change, and !deliver parks the new
  // sync row in the overlay so nothing visible changes now.
  void SetConfirmed(Table* table, const RowValues& pk, Row sync, bool deliver);
  // The one body of HoldBack / HoldBackAbsent (`op` names the call in errors): validates, then
  // parks `row` (or a tombstone for its pk) in the source's overlay without changing what is
  // visible.
  absl::Status Park(std::string_view op, std::string_view table, std::string_view source_key,
                    const RowValues& row, bool tombstone);
  // SetConfirmed(winner) for every pk.
  void Reconcile(Table* table, const SourceSet& set, const std::vector<RowValues>& pks,
                 bool deliver);

  TableMap* tables_;
  NetChangeSet* accum_;
  std::map<std::string, SourceSet, std::less<>> sets_;
};

}  // namespace rindle
