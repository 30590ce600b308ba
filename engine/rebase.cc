#include "engine/rebase.h"

#include <map>

#include "absl/container/btree_map.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/source_key.h"
#include "base/status_macros.h"
#include "base/str_util.h"

namespace rindle {
namespace {

// pk → the sync row the rebase ends with (nullptr = absent), for every pk where head may change.
using TableTarget = absl::btree_map<RowValues, Row, RowKeyLess>;
using SyncTarget = std::map<std::string, TableTarget, std::less<>>;

Table* FindIn(const TableMap& tables, std::string_view name) {
  auto it = tables.find(name);
  return it == tables.end() ? nullptr : it->second.get();
}

bool SameRow(const Row& a, const Row& b) {
  return (!a && !b) || (a && b && CompareRowValues(*a, *b) == 0);
}

// Step 1a — the optimistic layer to rewind: every pk an optimistic write touched targets its
// sync row. Every tracked table gets an entry, so step 2 empties every overlay.
SyncTarget SeedWithOverlay(const TableMap& tables) {
  SyncTarget target;
  for (const auto& [name, table] : tables) {
    if (table->local()) continue;
    TableTarget& tt = target[name];
    for (const auto& [key, sync_row] : table->sync_overlay()) {
      tt[table->spec().PkOf(*key)] = sync_row;
    }
  }
  return target;
}

// One delta op being folded into its table's target; `where` names the op in errors. For a
// Merged table the target is the source's slice and `baseline` its confirmed rows; for a
// Collapsed table (baseline == nullptr) the target is the table's sync.
struct DeltaFold {
  const Table& table;
  TableTarget& target;
  const std::string& where;
  const PkRowMap* baseline = nullptr;

  // The source's confirmed row at pk as the delta has made it so far.
  Row SyncAt(const RowValues& pk) const {
    auto it = target.find(pk);
    if (it != target.end()) return it->second;
    if (baseline == nullptr) return table.SyncFind(pk);
    auto b = baseline->find(pk);
    return b == baseline->end() ? nullptr : b->second;
  }
};

absl::Status FoldAdd(const DeltaFold& f, const ServerDeltaOp& d) {
  RowValues pk = f.table.spec().PkOf(d.row);
  if (f.SyncAt(pk)) {
    return absl::FailedPreconditionError(
        StrCat(f.where, ": add of existing pk ", RowDebugString(pk)));
  }
  f.target[pk] = MakeRow(d.row);
  return absl::OkStatus();
}

absl::Status FoldRemove(const DeltaFold& f, const ServerDeltaOp& d) {
  RowValues pk = f.table.spec().PkOf(d.row);
  Row cur = f.SyncAt(pk);
  if (!cur || CompareRowValues(*cur, d.row) != 0) {
    return absl::FailedPreconditionError(
        StrCat(f.where, ": remove of a row not in sync: ", RowDebugString(d.row)));
  }
  f.target[pk] = nullptr;
  return absl::OkStatus();
}

absl::Status FoldEdit(const DeltaFold& f, const ServerDeltaOp& d) {
  const TableSpec& spec = f.table.spec();
  RETURN_IF_ERROR(spec.CheckRow(f.where, d.old_row));
  RowValues old_pk = spec.PkOf(d.old_row), new_pk = spec.PkOf(d.row);
  Row cur = f.SyncAt(old_pk);
  if (!cur || CompareRowValues(*cur, d.old_row) != 0) {
    return absl::FailedPreconditionError(
        StrCat(f.where, ": edit of a row not in sync: ", RowDebugString(d.old_row)));
  }
  if (CompareRowValues(old_pk, new_pk) != 0) {
    if (f.SyncAt(new_pk)) {
      return absl::FailedPreconditionError(
          StrCat(f.where, ": edit moves onto existing pk ", RowDebugString(new_pk)));
    }
    f.target[old_pk] = nullptr;
  }
  f.target[new_pk] = MakeRow(d.row);
  return absl::OkStatus();
}

// What step 1b folds into: the Collapsed tables' sync target (the daemon only) and, per Merged
// table, the source's slice target (merge.h ApplyFold writes it into its slice).
struct FoldPlan {
  const TableMap& tables;
  const Merge& merge;
  std::string_view source;
  SyncTarget* target;
  SyncTarget* slice_target;
};

// Step 1b — folds delta[i] into the target, checking its precondition against the source's
// confirmed rows.
absl::Status FoldDelta(const FoldPlan& plan, size_t i, const ServerDeltaOp& d) {
  const std::string where = StrCat("serverBatchBegin(\"", plan.source, "\"): delta[", i, "] (",
                                   d.table, ")");
  Table* t = FindIn(plan.tables, d.table);
  if (t == nullptr) {
    return absl::NotFoundError(StrCat(where, ": unknown table \"", d.table, "\""));
  }
  if (t->local()) {
    return absl::InvalidArgumentError(
        StrCat(where, ": table \"", d.table, "\" is local-only and never server-driven"));
  }
  RETURN_IF_ERROR(t->spec().CheckRow(where, d.row));
  const PkRowMap* baseline = nullptr;
  if (plan.merge.IsMerged(d.table)) {
    ASSIGN_OR_RETURN(baseline, plan.merge.FoldBaseline(where, d.table, plan.source));
  } else if (!IsDaemonSource(plan.source)) {
    return absl::NotFoundError(StrCat(where, ": table \"", d.table,
                                      "\" has no room source \"", plan.source, "\" attached"));
  }
  // A tracked table was seeded in step 1a, so this finds its entry.
  const DeltaFold fold{*t, baseline ? (*plan.slice_target)[d.table] : (*plan.target)[d.table],
                       where, baseline};
  switch (d.type) {
    case ServerDeltaOp::Type::kAdd: return FoldAdd(fold, d);
    case ServerDeltaOp::Type::kRemove: return FoldRemove(fold, d);
    case ServerDeltaOp::Type::kEdit: return FoldEdit(fold, d);
  }
  return absl::OkStatus();
}

// Step 2 — head := target wherever they differ, buffering each write's net change; then the
// overlay empties (head == sync: the folded delta is the confirmed baseline).
void RewindHeadToTarget(const TableMap& tables, const SyncTarget& target, NetChangeSet* accum) {
  for (const auto& [name, tt] : target) {
    Table* t = FindIn(tables, name);
    RINDLE_CHECK_MSG(t != nullptr, StrCat("planned table \"", name, "\" is not registered"));
    for (const auto& [pk, row] : tt) {
      if (SameRow(t->Find(pk), row)) continue;
      Row old = t->Put(pk, row, /*optimistic=*/false);
      TableNetChanges& acc = (*accum)[name];
      auto it = acc.find(pk);
      if (it == acc.end()) {
        acc.emplace(pk, NetChange{old, row});
      } else {
        it->second.after = row;
      }
    }
    t->ClearSyncOverlay();
  }
}

}  // namespace

bool NoNetChange(const NetChangeSet& changes) {
  for (const auto& [name, table_changes] : changes) {
    if (!table_changes.empty()) return false;
  }
  return true;
}

Rebase::Rebase(TableMap* tables, NetChangeSet* accum, Merge* merge)
    : tables_(tables), accum_(accum), merge_(merge) {
  RINDLE_CHECK(tables_ != nullptr);
  RINDLE_CHECK(merge_ != nullptr);
  RINDLE_CHECK(accum_ != nullptr);
}

absl::Status Rebase::Begin(std::string_view source_key,
                           const std::vector<ServerDeltaOp>& deltas) {
  RINDLE_CHECK_MSG(!open_, StrCat("a cycle for \"", source_, "\" is already open"));
  // Outside a cycle and a write txn every change was delivered: a leftover would be delivered
  // again with this cycle's batch.
  RINDLE_CHECK(NoNetChange(*accum_));
  // Per source: the daemon is always attached; a room only once addRoomSource attached it to a
  // table.
  if (!IsDaemonSource(source_key) && !merge_->HasSource(source_key)) {
    return absl::InvalidArgumentError(StrCat("serverBatchBegin: unknown source key \"",
                                             source_key, "\" (not \"", kDaemonSource,
                                             "\" and attached to no table by addRoomSource)"));
  }
  RETURN_IF_ERROR(FoldAndRewind(source_key, deltas));
  open_ = true;
  source_ = std::string(source_key);
  return absl::OkStatus();
}

// Plans every delta op (nothing mutated on an error), then folds the Merged tables' slices and
// rewinds head to the planned target.
absl::Status Rebase::FoldAndRewind(std::string_view source_key,
                                   const std::vector<ServerDeltaOp>& deltas) {
  SyncTarget target = SeedWithOverlay(*tables_);
  SyncTarget slice_target;
  const FoldPlan plan{*tables_, *merge_, source_key, &target, &slice_target};
  for (size_t i = 0; i < deltas.size(); ++i) RETURN_IF_ERROR(FoldDelta(plan, i, deltas[i]));
  if (merge_->any_merged()) merge_->ApplyFold(source_key, slice_target, &target);
  RewindHeadToTarget(*tables_, target, accum_);
  for (const auto& [name, table] : *tables_) {
    RINDLE_CHECK_MSG(table->local() || table->sync_overlay().empty(),
                     StrCat("table \"", name, "\": head != sync after the rewind"));
  }
  return absl::OkStatus();
}

void Rebase::End() {
  RINDLE_CHECK_MSG(open_, "Rebase::End without an open cycle");
  open_ = false;
  source_.clear();
}

}  // namespace rindle
