#include "engine/str_util.h"
#include "engine/db.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "engine/ast_json.h"
#include "engine/check.h"
#include "engine/pipeline.h"
#include "engine/status_macros.h"

namespace rindle {

struct Db::QueryEntry {
  Ast ast;
  std::unique_ptr<Pipeline> pipeline;
};

Db::Db() = default;
Db::~Db() = default;

Table* Db::FindTable(std::string_view name) const {
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : it->second.get();
}

absl::Status Db::CheckUsable() const {
  if (poisoned_) {
    return absl::FailedPreconditionError(
        "db is poisoned by an earlier error inside a server batch; discard it and re-hydrate");
  }
  return absl::OkStatus();
}

absl::Status Db::RegisterTable(const std::string& name, const TableSpec& spec, bool local) {
  RETURN_IF_ERROR(CheckUsable());
  RETURN_IF_ERROR(spec.Validate(name));
  if (Table* t = FindTable(name)) {
    if (t->spec() == spec && t->local() == local) return absl::OkStatus();
    return absl::AlreadyExistsError(StrCat(
        "table \"", name, "\" is already registered with a different schema or locality"));
  }
  if (in_batch_ || txn_open_) {
    return absl::FailedPreconditionError("registerTable inside an open write or server batch");
  }
  tables_.emplace(name, std::make_unique<Table>(name, spec, local));
  return absl::OkStatus();
}

absl::Status Db::UnregisterTable(const std::string& name) {
  RETURN_IF_ERROR(CheckUsable());
  Table* t = FindTable(name);
  if (t == nullptr) return absl::NotFoundError(StrCat("unknown table \"", name, "\""));
  if (in_batch_ || txn_open_) {
    return absl::FailedPreconditionError("unregisterTable inside an open write or server batch");
  }
  for (const auto& [qid, q] : queries_) {
    for (const auto& tn : q->pipeline->tables()) {
      if (tn == name) {
        return absl::FailedPreconditionError(
            StrCat("table \"", name, "\" is read by live query ", qid));
      }
    }
  }
  tables_.erase(tables_.find(name));
  return absl::OkStatus();
}

const TableSpec* Db::GetTableSpec(std::string_view name) const {
  Table* t = FindTable(name);
  return t == nullptr ? nullptr : &t->spec();
}

bool Db::IsLocal(std::string_view name) const {
  Table* t = FindTable(name);
  return t != nullptr && t->local();
}

std::vector<std::string> Db::TableNames() const {
  std::vector<std::string> out;
  for (const auto& [name, t] : tables_) out.push_back(name);
  return out;
}

TableLookup Db::Lookup() const {
  return [this](std::string_view name) { return GetTableSpec(name); };
}

absl::StatusOr<QuerySnapshot> Db::RegisterQuery(int64_t qid, const Ast& ast) {
  RETURN_IF_ERROR(CheckUsable());
  if (queries_.contains(qid)) {
    return absl::AlreadyExistsError(StrCat("query id ", qid, " is already registered"));
  }
  if (in_batch_ || txn_open_) {
    return absl::FailedPreconditionError("query registration inside an open write or server batch");
  }
  RETURN_IF_ERROR(ValidateAst(ast, Lookup()));
  ASSIGN_OR_RETURN(std::unique_ptr<Pipeline> pipeline,
                   Pipeline::Build(ast, [this](std::string_view n) { return FindTable(n); }));
  QuerySnapshot snap;
  snap.shape = pipeline->shape();
  snap.events = pipeline->Hydrate();
  auto entry = std::make_unique<QueryEntry>();
  entry->ast = ast;
  entry->pipeline = std::move(pipeline);
  queries_.emplace(qid, std::move(entry));
  return snap;
}

void Db::DestroyQuery(int64_t qid) { queries_.erase(qid); }

bool Db::HasQuery(int64_t qid) const { return queries_.contains(qid); }

std::vector<int64_t> Db::QueryIds() const {
  std::vector<int64_t> out;
  for (const auto& [qid, q] : queries_) out.push_back(qid);
  return out;
}

const Ast* Db::QueryAst(int64_t qid) const {
  auto it = queries_.find(qid);
  return it == queries_.end() ? nullptr : &it->second->ast;
}

absl::StatusOr<std::vector<TreeNode>> Db::QueryResult(int64_t qid) const {
  auto it = queries_.find(qid);
  if (it == queries_.end()) return absl::NotFoundError(StrCat("unknown query ", qid));
  return it->second->pipeline->Result();
}

std::unique_ptr<WriteTxn> Db::Write() { return std::unique_ptr<WriteTxn>(new WriteTxn(this)); }

std::vector<QueryBatch> Db::Deliver() {
  std::vector<QueryBatch> out;
  // Drop pks whose net change is nothing (written and restored).
  for (auto& [name, changes] : accum_) {
    for (auto it = changes.begin(); it != changes.end();) {
      const NetChange& c = it->second;
      const bool same = (!c.before && !c.after) ||
                        (c.before && c.after && CompareRowValues(*c.before, *c.after) == 0);
      if (same) {
        it = changes.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& [qid, q] : queries_) {
    std::vector<ChangeEvent> events = q->pipeline->Process(accum_);
    if (!events.empty()) out.push_back({qid, std::move(events)});
  }
  accum_.clear();
  return out;
}

absl::Status Db::ServerBatchBegin(std::string_view source_key,
                                  const std::vector<ServerDeltaOp>& deltas) {
  RETURN_IF_ERROR(CheckUsable());
  if (in_batch_) return absl::FailedPreconditionError("serverBatchBegin: a cycle is already open");
  if (txn_open_) return absl::FailedPreconditionError("serverBatchBegin: a write txn is open");
  if (source_key != "daemon") {
    return absl::InvalidArgumentError(StrCat(
        "serverBatchBegin: unknown source key \"", source_key, "\" (only \"daemon\" is attached)"));
  }
  // Phase 1 (nothing mutated yet): validate and compute the target sync state for every pk that
  // may differ: the overlay's (optimistically written) pks and the delta's pks.
  std::map<std::string, absl::btree_map<RowValues, Row, RowKeyLess>, std::less<>> target;
  for (const auto& [name, table] : tables_) {
    if (table->local()) continue;
    auto& tt = target[name];
    for (const auto& [pk, sync_row] : table->sync_overlay()) tt[pk] = sync_row;
  }
  for (size_t i = 0; i < deltas.size(); ++i) {
    const ServerDeltaOp& d = deltas[i];
    const std::string where = StrCat("serverBatchBegin: delta[", i, "] (", d.table, ")");
    Table* t = FindTable(d.table);
    if (t == nullptr) {
      return absl::NotFoundError(StrCat(where, ": unknown table \"", d.table, "\""));
    }
    if (t->local()) {
      return absl::InvalidArgumentError(
          StrCat(where, ": table \"", d.table, "\" is local-only and never server-driven"));
    }
    auto& tt = target[d.table];
    auto sync_at = [&](const RowValues& pk) -> Row {
      auto it = tt.find(pk);
      if (it != tt.end()) return it->second;
      return t->SyncFind(pk);
    };
    const TableSpec& spec = t->spec();
    RETURN_IF_ERROR(spec.CheckRow(where, d.row));
    switch (d.type) {
      case ServerDeltaOp::Type::kAdd: {
        RowValues pk = spec.PkOf(d.row);
        if (sync_at(pk)) {
          return absl::FailedPreconditionError(
              StrCat(where, ": add of existing pk ", RowDebugString(pk)));
        }
        tt[pk] = MakeRow(d.row);
        break;
      }
      case ServerDeltaOp::Type::kRemove: {
        RowValues pk = spec.PkOf(d.row);
        Row cur = sync_at(pk);
        if (!cur || CompareRowValues(*cur, d.row) != 0) {
          return absl::FailedPreconditionError(
              StrCat(where, ": remove of a row not in sync: ", RowDebugString(d.row)));
        }
        tt[pk] = nullptr;
        break;
      }
      case ServerDeltaOp::Type::kEdit: {
        RETURN_IF_ERROR(spec.CheckRow(where, d.old_row));
        RowValues old_pk = spec.PkOf(d.old_row), new_pk = spec.PkOf(d.row);
        Row cur = sync_at(old_pk);
        if (!cur || CompareRowValues(*cur, d.old_row) != 0) {
          return absl::FailedPreconditionError(
              StrCat(where, ": edit of a row not in sync: ", RowDebugString(d.old_row)));
        }
        if (CompareRowValues(old_pk, new_pk) != 0) {
          if (sync_at(new_pk)) {
            return absl::FailedPreconditionError(
                StrCat(where, ": edit moves onto existing pk ", RowDebugString(new_pk)));
          }
          tt[old_pk] = nullptr;
        }
        tt[new_pk] = MakeRow(d.row);
        break;
      }
    }
  }
  // Phase 2: rewind head to the target and re-fork sync (the overlay empties: head == sync).
  for (auto& [name, tt] : target) {
    Table* t = FindTable(name);
    for (auto& [pk, row] : tt) {
      Row head = t->Find(pk);
      const bool same = (!head && !row) ||
                        (head && row && CompareRowValues(*head, *row) == 0);
      if (same) continue;
      Row old = t->Put(pk, row, /*optimistic=*/false);
      auto& acc = accum_[name];
      auto it = acc.find(pk);
      if (it == acc.end()) {
        acc.emplace(pk, NetChange{old, row});
      } else {
        it->second.after = row;
      }
    }
    t->ClearSyncOverlay();
  }
  in_batch_ = true;
  batch_source_ = std::string(source_key);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<QueryBatch>> Db::ServerBatchEnd() {
  RETURN_IF_ERROR(CheckUsable());
  if (!in_batch_) return absl::FailedPreconditionError("serverBatchEnd: no cycle is open");
  if (txn_open_) return absl::FailedPreconditionError("serverBatchEnd: a write txn is still open");
  in_batch_ = false;
  return Deliver();
}

absl::StatusOr<std::vector<RowValues>> Db::TableRows(std::string_view table) const {
  Table* t = FindTable(table);
  if (t == nullptr) return absl::NotFoundError(StrCat("unknown table \"", table, "\""));
  return t->HeadRows();
}

absl::StatusOr<std::vector<RowValues>> Db::SyncRows(std::string_view table) const {
  Table* t = FindTable(table);
  if (t == nullptr) return absl::NotFoundError(StrCat("unknown table \"", table, "\""));
  if (t->local()) {
    return absl::FailedPreconditionError(
        StrCat("table \"", table, "\" is local-only: it has no sync baseline"));
  }
  return t->SyncRows();
}

absl::StatusOr<std::optional<RowValues>> Db::Get(std::string_view table,
                                                 const RowValues& pk) const {
  Table* t = FindTable(table);
  if (t == nullptr) return absl::NotFoundError(StrCat("unknown table \"", table, "\""));
  Row r = t->Find(pk);
  if (!r) return std::optional<RowValues>();
  return std::optional<RowValues>(*r);
}

// ---------------------------------------------------------------------------------------------
// WriteTxn

WriteTxn::WriteTxn(Db* db) : db_(db) {
  if (db_->txn_open_ || db_->poisoned_) {
    open_ = false;  // every op will report why
  } else {
    db_->txn_open_ = true;
  }
}

WriteTxn::~WriteTxn() {
  if (open_) Rollback();
}

absl::Status WriteTxn::CheckOpen() const {
  RETURN_IF_ERROR(db_->CheckUsable());
  if (!open_) {
    return absl::FailedPreconditionError(
        "write txn is closed (committed, rolled back, failed, or another txn was already open)");
  }
  return absl::OkStatus();
}

absl::StatusOr<Table*> WriteTxn::FindTable(std::string_view table) const {
  Table* t = db_->FindTable(table);
  if (t == nullptr) {
    std::string names;
    for (const auto& n : db_->TableNames()) StrAppend(&names, names.empty() ? "" : ", ", n);
    return absl::NotFoundError(
        StrCat("unknown table \"", table, "\" (tables: ", names, ")"));
  }
  return t;
}

absl::Status WriteTxn::Fail(absl::Status s) {
  Rollback();
  return s;
}

void WriteTxn::Apply(Table* table, const RowValues& pk, Row row) {
  UndoRecord u;
  u.table = table;
  u.pk = pk;
  u.old_overlay = table->OverlayEntry(pk);
  auto& acc = db_->accum_[table->name()];
  auto it = acc.find(pk);
  if (it != acc.end()) {
    u.had_accum = true;
    u.old_accum = it->second;
  }
  u.old_row = table->Put(pk, row, /*optimistic=*/true);
  if (it == acc.end()) {
    acc.emplace(pk, NetChange{u.old_row, row});
  } else {
    it->second.after = row;
  }
  undo_.push_back(std::move(u));
}

absl::Status WriteTxn::Add(std::string_view table, RowValues row) {
  RETURN_IF_ERROR(CheckOpen());
  auto t = FindTable(table);
  if (!t.ok()) return Fail(t.status());
  if (auto s = (*t)->spec().CheckRow(table, row); !s.ok()) return Fail(s);
  RowValues pk = (*t)->spec().PkOf(row);
  if ((*t)->Find(pk)) {
    return Fail(absl::AlreadyExistsError(StrCat("add: table \"", table, "\" already has pk ",
                                                      RowDebugString(pk))));
  }
  Apply(*t, pk, MakeRow(std::move(row)));
  sources_.push_back("daemon");
  return absl::OkStatus();
}

absl::Status WriteTxn::Remove(std::string_view table, const RowValues& row) {
  RETURN_IF_ERROR(CheckOpen());
  auto t = FindTable(table);
  if (!t.ok()) return Fail(t.status());
  if (auto s = (*t)->spec().CheckRow(table, row); !s.ok()) return Fail(s);
  RowValues pk = (*t)->spec().PkOf(row);
  Row cur = (*t)->Find(pk);
  if (!cur) {
    return Fail(absl::NotFoundError(
        StrCat("remove: table \"", table, "\" has no row at pk ", RowDebugString(pk))));
  }
  if (CompareRowValues(*cur, row) != 0) {
    return Fail(absl::FailedPreconditionError(
        StrCat("remove: table \"", table, "\" row differs: stored ", RowDebugString(*cur),
                     ", given ", RowDebugString(row))));
  }
  Apply(*t, pk, nullptr);
  sources_.push_back("daemon");
  return absl::OkStatus();
}

absl::Status WriteTxn::Edit(std::string_view table, const RowValues& old_row, RowValues new_row) {
  RETURN_IF_ERROR(CheckOpen());
  auto t = FindTable(table);
  if (!t.ok()) return Fail(t.status());
  const TableSpec& spec = (*t)->spec();
  if (auto s = spec.CheckRow(table, old_row); !s.ok()) return Fail(s);
  if (auto s = spec.CheckRow(table, new_row); !s.ok()) return Fail(s);
  RowValues old_pk = spec.PkOf(old_row), new_pk = spec.PkOf(new_row);
  Row cur = (*t)->Find(old_pk);
  if (!cur) {
    return Fail(absl::NotFoundError(
        StrCat("edit: table \"", table, "\" has no row at pk ", RowDebugString(old_pk))));
  }
  if (CompareRowValues(*cur, old_row) != 0) {
    return Fail(absl::FailedPreconditionError(
        StrCat("edit: table \"", table, "\" old row differs: stored ", RowDebugString(*cur),
                     ", given ", RowDebugString(old_row))));
  }
  if (CompareRowValues(old_pk, new_pk) != 0) {
    if ((*t)->Find(new_pk)) {
      return Fail(absl::AlreadyExistsError(StrCat(
          "edit: table \"", table, "\" already has the new pk ", RowDebugString(new_pk))));
    }
    Apply(*t, old_pk, nullptr);
  }
  Apply(*t, new_pk, MakeRow(std::move(new_row)));
  sources_.push_back("daemon");
  return absl::OkStatus();
}

absl::StatusOr<std::optional<RowValues>> WriteTxn::Get(std::string_view table,
                                                       const RowValues& pk) const {
  RETURN_IF_ERROR(CheckOpen());
  ASSIGN_OR_RETURN(Table * t, FindTable(table));
  if (pk.size() != t->spec().primary_key.size()) {
    return absl::InvalidArgumentError(StrCat("get: table \"", table, "\" pk has ",
                                                   t->spec().primary_key.size(),
                                                   " columns, got ", pk.size()));
  }
  Row r = t->Find(pk);
  if (!r) return std::optional<RowValues>();
  return std::optional<RowValues>(*r);
}

absl::StatusOr<std::vector<TreeNode>> WriteTxn::Query(const Ast& ast) const {
  RETURN_IF_ERROR(CheckOpen());
  RETURN_IF_ERROR(ValidateAst(ast, db_->Lookup()));
  ASSIGN_OR_RETURN(std::unique_ptr<Pipeline> p,
                   Pipeline::Build(ast, [this](std::string_view n) { return db_->FindTable(n); }));
  p->Hydrate();
  return p->Result();
}

absl::StatusOr<std::vector<QueryBatch>> WriteTxn::Commit() {
  ASSIGN_OR_RETURN(CommitTracked c, CommitTrackedWrites());
  return std::move(c.batches);
}

absl::StatusOr<CommitTracked> WriteTxn::CommitTrackedWrites() {
  RETURN_IF_ERROR(CheckOpen());
  open_ = false;
  db_->txn_open_ = false;
  undo_.clear();
  CommitTracked out;
  out.sources = std::move(sources_);
  if (!db_->in_batch_) out.batches = db_->Deliver();
  return out;
}

void WriteTxn::Rollback() {
  if (!open_) return;
  for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) {
    it->table->Put(it->pk, it->old_row, /*optimistic=*/false);
    it->table->SetOverlayEntry(it->pk, it->old_overlay);
    auto& acc = db_->accum_[it->table->name()];
    if (it->had_accum) {
      acc[it->pk] = it->old_accum;
    } else {
      acc.erase(it->pk);
    }
  }
  undo_.clear();
  sources_.clear();
  open_ = false;
  db_->txn_open_ = false;
}

}  // namespace rindle
