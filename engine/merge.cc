#include "engine/merge.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/source_key.h"
#include "base/status_macros.h"
#include "base/str_util.h"

namespace rindle {
namespace {

std::string Where(std::string_view call, std::string_view table, std::string_view source) {
  return StrCat(call, "(\"", table, "\", \"", source, "\")");
}

bool SameRow(const Row& a, const Row& b) {
  return (!a && !b) || (a && b && CompareRowValues(*a, *b) == 0);
}

// A physical source key: the daemon or a well-formed room key.
absl::Status CheckSourceKey(std::string_view where, std::string_view key) {
  if (IsDaemonSource(key) || IsRoomSource(key)) return absl::OkStatus();
  return absl::InvalidArgumentError(StrCat(where, ": \"", key, "\" is not a source key (\"",
                                           kDaemonSource, "\" or \"", kRoomSourcePrefix,
                                           "<doc>\")"));
}

// A room key (not the daemon, which has no writable scope and is never added or removed).
absl::Status CheckRoomKey(std::string_view where, std::string_view key) {
  if (IsRoomSource(key)) return absl::OkStatus();
  return absl::InvalidArgumentError(StrCat(where, ": \"", key, "\" is not a room source key (\"",
                                           kRoomSourcePrefix, "<doc>\"; \"", kDaemonSource,
                                           "\" is always attached and has no writable scope)"));
}

std::vector<RowValues> SlicePks(const SourceSlice& slice) {
  PkRowMap all = slice.baseline;
  for (const auto& [pk, row] : slice.held) all.emplace(pk, row);
  std::vector<RowValues> out;
  out.reserve(all.size());
  for (const auto& [pk, row] : all) out.push_back(pk);
  return out;
}

}  // namespace

Merge::Merge(TableMap* tables, NetChangeSet* accum) : tables_(tables), accum_(accum) {
  RINDLE_CHECK(tables_ != nullptr);
  RINDLE_CHECK(accum_ != nullptr);
}

SourceSet* Merge::Find(std::string_view table) {
  auto it = sets_.find(table);
  return it == sets_.end() ? nullptr : &it->second;
}

const SourceSet* Merge::Find(std::string_view table) const {
  auto it = sets_.find(table);
  return it == sets_.end() ? nullptr : &it->second;
}

absl::StatusOr<Table*> Merge::TrackedTable(std::string_view where, std::string_view table) const {
  auto it = tables_->find(table);
  if (it == tables_->end()) {
    return absl::NotFoundError(StrCat(where, ": unknown table \"", table, "\""));
  }
  if (it->second->local()) {
    return absl::InvalidArgumentError(
        StrCat(where, ": table \"", table, "\" is local-only: it has no sync sources"));
  }
  return it->second.get();
}

absl::StatusOr<SourceSlice*> Merge::SliceOf(std::string_view where, std::string_view table,
                                            std::string_view source) {
  SourceSet* set = Find(table);
  if (set == nullptr) {
    return absl::FailedPreconditionError(StrCat(
        where, ": table \"", table, "\" is Collapsed (no room source attached): it has no slices"));
  }
  auto it = set->find(source);
  if (it == set->end()) {
    return absl::NotFoundError(
        StrCat(where, ": source \"", source, "\" is not attached to table \"", table, "\""));
  }
  return &it->second;
}

void Merge::SetConfirmed(Table* table, const RowValues& pk, Row sync, bool deliver) {
  if (table->OverlayEntry(pk).has_value()) {
    table->SetOverlayEntry(pk, sync);
    return;
  }
  Row head = table->Find(pk);
  if (SameRow(head, sync)) return;
  if (!deliver) {
    table->SetOverlayEntry(pk, sync);
    return;
  }
  table->Put(pk, sync, /*optimistic=*/false);
  TableNetChanges& acc = (*accum_)[table->name()];
  auto it = acc.find(pk);
  if (it == acc.end()) {
    acc.emplace(pk, NetChange{head, sync});
  } else {
    it->second.after = sync;
  }
}

void Merge::Reconcile(Table* table, const SourceSet& set, const std::vector<RowValues>& pks,
                      bool deliver) {
  for (const RowValues& pk : pks) SetConfirmed(table, pk, Winner(set, pk).row, deliver);
}

absl::Status Merge::AddRoomSource(std::string_view table, std::string_view room_key,
                                  const WritableScope& w) {
  const std::string where = Where("addRoomSource", table, room_key);
  RETURN_IF_ERROR(CheckRoomKey(where, room_key));
  ASSIGN_OR_RETURN(Table * t, TrackedTable(where, table));
  SourceSet* set = Find(table);
  if (set != nullptr && set->contains(room_key)) {
    return absl::AlreadyExistsError(
        StrCat(where, ": room \"", room_key, "\" is already attached to table \"", table, "\""));
  }
  ASSIGN_OR_RETURN(CompiledScope scope, CompiledScope::Compile(w, table, t->spec(), where));
  if (set == nullptr) {
    // Promotion Collapsed → Merged: the daemon's baseline is the table's confirmed rows.
    set = &sets_[std::string(table)];
    PkRowMap& daemon = (*set)[std::string(kDaemonSource)].baseline;
    for (RowValues& row : t->SyncRows()) {
      RowValues pk = t->spec().PkOf(row);
      daemon.emplace(std::move(pk), MakeRow(std::move(row)));
    }
  }
  // The room seeds empty: no winner changes, nothing visible changes.
  (*set)[std::string(room_key)].scope = std::move(scope);
  return absl::OkStatus();
}

absl::Status Merge::RemoveRoomSource(std::string_view table, std::string_view room_key) {
  const std::string where = Where("removeRoomSource", table, room_key);
  RETURN_IF_ERROR(CheckRoomKey(where, room_key));
  ASSIGN_OR_RETURN(Table * t, TrackedTable(where, table));
  ASSIGN_OR_RETURN(SourceSlice * slice, SliceOf(where, table, room_key));
  const std::vector<RowValues> pks = SlicePks(*slice);
  SourceSet& set = *Find(table);
  set.erase(set.find(room_key));
  // The table stays Merged (daemon only): its baseline already is the daemon slice.
  Reconcile(t, set, pks, /*deliver=*/true);
  return absl::OkStatus();
}

absl::Status Merge::HoldBack(std::string_view table, std::string_view source_key,
                             const RowValues& row) {
  return Park("holdBack", table, source_key, row, /*tombstone=*/false);
}

absl::Status Merge::HoldBackAbsent(std::string_view table, std::string_view source_key,
                                   const RowValues& old_row) {
  return Park("holdBackAbsent", table, source_key, old_row, /*tombstone=*/true);
}

absl::Status Merge::Park(std::string_view op, std::string_view table, std::string_view source_key,
                         const RowValues& row, bool tombstone) {
  const std::string where = Where(op, table, source_key);
  RETURN_IF_ERROR(CheckSourceKey(where, source_key));
  ASSIGN_OR_RETURN(Table * t, TrackedTable(where, table));
  RETURN_IF_ERROR(t->spec().CheckRow(where, row));
  ASSIGN_OR_RETURN(SourceSlice * slice, SliceOf(where, table, source_key));
  const RowValues pk = t->spec().PkOf(row);
  slice->held[pk] = tombstone ? nullptr : MakeRow(row);
  // Installing never changes what is visible: only the confirmed layer moves (the next rewind).
  Reconcile(t, *Find(table), {pk}, /*deliver=*/false);
  return absl::OkStatus();
}

absl::Status Merge::DropHeldBack(std::string_view table, std::string_view source_key,
                                 const RowValues& probe) {
  const std::string where = Where("dropHeldBack", table, source_key);
  RETURN_IF_ERROR(CheckSourceKey(where, source_key));
  ASSIGN_OR_RETURN(Table * t, TrackedTable(where, table));
  RETURN_IF_ERROR(t->spec().CheckRow(where, probe));
  // Nothing parked (a Collapsed table, a removed room, a state-match drop that raced the fence)
  // is a no-op.
  SourceSet* set = Find(table);
  if (set == nullptr) return absl::OkStatus();
  auto it = set->find(source_key);
  if (it == set->end()) return absl::OkStatus();
  const RowValues pk = t->spec().PkOf(probe);
  if (it->second.held.erase(pk) == 0) return absl::OkStatus();
  Reconcile(t, *set, {pk}, /*deliver=*/true);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<HeldBackInfo>> Merge::HeldBackState(std::string_view table,
                                                                 std::string_view source_key,
                                                                 const RowValues& probe) const {
  const std::string where = Where("heldBackState", table, source_key);
  ASSIGN_OR_RETURN(Table * t, TrackedTable(where, table));
  RETURN_IF_ERROR(t->spec().CheckRow(where, probe));
  // Non-failing on an unknown source (a removed room): pruning after a removal just works.
  const SourceSet* set = Find(table);
  if (set == nullptr) return std::optional<HeldBackInfo>();
  auto it = set->find(source_key);
  if (it == set->end()) return std::optional<HeldBackInfo>();
  const RowValues pk = t->spec().PkOf(probe);
  auto h = it->second.held.find(pk);
  if (h == it->second.held.end()) return std::optional<HeldBackInfo>();
  HeldBackInfo info;
  info.absent = h->second == nullptr;
  if (auto b = it->second.baseline.find(pk); b != it->second.baseline.end()) {
    info.baseline = *b->second;
  }
  return std::optional<HeldBackInfo>(std::move(info));
}

absl::Status Merge::FreezeSource(std::string_view table, std::string_view source_key) {
  const std::string where = Where("freezeSource", table, source_key);
  RETURN_IF_ERROR(CheckSourceKey(where, source_key));
  ASSIGN_OR_RETURN(Table * t, TrackedTable(where, table));
  ASSIGN_OR_RETURN(SourceSlice * slice, SliceOf(where, table, source_key));
  if (slice->frozen) return absl::OkStatus();
  slice->frozen = true;
  // Wins-if-present from now on: every pk it holds may change winner.
  Reconcile(t, *Find(table), SlicePks(*slice), /*deliver=*/true);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<std::string>> Merge::ProvenanceOf(std::string_view table,
                                                               const RowValues& row) const {
  const std::string where = StrCat("provenanceOf(\"", table, "\")");
  ASSIGN_OR_RETURN(Table * t, TrackedTable(where, table));
  RETURN_IF_ERROR(t->spec().CheckRow(where, row));
  const RowValues pk = t->spec().PkOf(row);
  // The confirmed layer only: neither an open txn's staged rows nor a committed optimistic
  // write is held by any source.
  const SourceSet* set = Find(table);
  if (set == nullptr) {
    if (!t->SyncFind(pk)) return std::optional<std::string>();
    return std::optional<std::string>(std::string(kDaemonSource));
  }
  const SourceWinner w = Winner(*set, pk);
  if (w.source == nullptr) return std::optional<std::string>();
  return std::optional<std::string>(*w.source);
}

absl::StatusOr<bool> Merge::WritableMatches(std::string_view table, std::string_view room_key,
                                            const RowValues& row) const {
  const std::string where = Where("writableMatches", table, room_key);
  ASSIGN_OR_RETURN(Table * t, TrackedTable(where, table));
  RETURN_IF_ERROR(CheckRoomKey(where, room_key));
  if (row.size() != t->spec().columns.size()) {
    return absl::InvalidArgumentError(StrCat(where, ": row ", RowDebugString(row), " has ",
                                             row.size(), " cells, table \"", table, "\" has ",
                                             t->spec().columns.size(), " columns"));
  }
  const SourceSet* set = Find(table);
  auto it = set == nullptr ? SourceSet::const_iterator() : set->find(room_key);
  if (set == nullptr || it == set->end()) {
    return absl::NotFoundError(
        StrCat(where, ": room \"", room_key, "\" is not attached to table \"", table, "\""));
  }
  // The same compiled scope the winner tiering uses; a frozen room still answers.
  return it->second.scope->Covers(row);
}

absl::StatusOr<std::vector<RowValues>> Merge::SourceRows(std::string_view table,
                                                         std::string_view source_key) const {
  const std::string where = Where("sourceRows", table, source_key);
  ASSIGN_OR_RETURN(Table * t, TrackedTable(where, table));
  const SourceSet* set = Find(table);
  if (set == nullptr && IsDaemonSource(source_key)) return t->SyncRows();
  auto it = set == nullptr ? SourceSet::const_iterator() : set->find(source_key);
  if (set == nullptr || it == set->end()) {
    return absl::NotFoundError(
        StrCat(where, ": source \"", source_key, "\" is not attached to table \"", table, "\""));
  }
  std::vector<RowValues> out;
  out.reserve(it->second.baseline.size());
  for (const auto& [pk, row] : it->second.baseline) out.push_back(*row);
  return out;
}

std::string Merge::RouteOf(const Table& table, const RowValues& pk) const {
  if (sets_.empty()) return std::string(kDaemonSource);
  const SourceSet* set = Find(table.name());
  if (set == nullptr) return std::string(kDaemonSource);
  const SourceWinner w = Winner(*set, pk);
  return w.source == nullptr ? std::string(kDaemonSource) : *w.source;
}

bool Merge::HasSource(std::string_view source) const {
  if (IsDaemonSource(source)) return true;
  for (const auto& [name, set] : sets_) {
    if (set.contains(source)) return true;
  }
  return false;
}

absl::StatusOr<const PkRowMap*> Merge::FoldBaseline(std::string_view where,
                                                    std::string_view table,
                                                    std::string_view source) const {
  const SourceSet* set = Find(table);
  RINDLE_CHECK(set != nullptr);
  auto it = set->find(source);
  if (it == set->end()) {
    return absl::NotFoundError(StrCat(where, ": source \"", source,
                                      "\" is not attached to table \"", table, "\""));
  }
  if (it->second.frozen) {
    return absl::FailedPreconditionError(StrCat(
        where, ": source \"", source, "\" is frozen on table \"", table, "\" (freezeSource)"));
  }
  return &it->second.baseline;
}

void Merge::ApplyFold(std::string_view source,
                      const std::map<std::string, PkRowMap, std::less<>>& fold,
                      std::map<std::string, PkRowMap, std::less<>>* target) {
  for (auto& [name, set] : sets_) {
    auto sit = set.find(source);
    if (sit == set.end()) continue;
    SourceSlice& slice = sit->second;
    std::vector<RowValues> affected;
    if (auto f = fold.find(name); f != fold.end()) {
      for (const auto& [pk, row] : f->second) {
        if (row) {
          slice.baseline[pk] = row;
        } else {
          slice.baseline.erase(pk);
        }
        affected.push_back(pk);
      }
    }
    // The hold-backs this source's re-forked baseline caught up with drop (§7.3): a parked row
    // now equal to the baseline row (the echo landed), a tombstone whose pk the baseline lacks.
    for (auto it = slice.held.begin(); it != slice.held.end();) {
      auto b = slice.baseline.find(it->first);
      const bool caught_up = it->second == nullptr ? b == slice.baseline.end()
                                                   : b != slice.baseline.end() &&
                                                         SameRow(b->second, it->second);
      if (!caught_up) {
        ++it;
        continue;
      }
      affected.push_back(it->first);
      it = slice.held.erase(it);
    }
    PkRowMap& tt = (*target)[name];
    for (const RowValues& pk : affected) tt[pk] = Winner(set, pk).row;
  }
}

}  // namespace rindle
