#include "engine/write_txn.h"

#include "absl/strings/str_cat.h"
#include "engine/ast_json.h"
#include "base/check.h"
#include "engine/db.h"
#include "engine/ivm/pipeline.h"
#include "engine/rebase.h"
#include "base/source_key.h"
#include "base/status_macros.h"
#include "base/str_util.h"

namespace rindle {

WriteTxn::WriteTxn(Db* db) : db_(db) {
  RINDLE_CHECK(db_ != nullptr);
  if (db_->txn_open_ || db_->poisoned_) {
    open_ = false;  // every op will report why
  } else {
    db_->txn_open_ = true;
  }
  // Outside a rebase cycle a new txn starts with nothing undelivered: its commit delivers only
  // its own writes.
  RINDLE_CHECK(!open_ || db_->in_server_batch() || NoNetChange(db_->accum_));
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
  // An open txn is the Db's one open txn.
  RINDLE_CHECK(db_->txn_open_);
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

void WriteTxn::Stage(Table* table, const RowValues& pk, Row row) {
  RINDLE_CHECK(table != nullptr);
  UndoRecord u;
  u.table = table;
  auto& acc = db_->accum_[table->name()];
  auto it = acc.find(pk);
  if (it != acc.end()) {
    u.had_accum = true;
    u.old_accum = it->second;
  }
  u.old_row = table->Put(pk, row, /*optimistic=*/true, &u.old_overlay);
  if (it == acc.end()) {
    acc.emplace(pk, NetChange{u.old_row, row});
  } else {
    it->second.after = row;
  }
  if (row && !u.old_row && !u.old_overlay.has_value() && !u.had_accum) {
    steps_.push_back({table, std::move(row), -1});
    return;
  }
  u.pk = pk;
  steps_.push_back({table, nullptr, static_cast<int64_t>(undo_.size())});
  undo_.push_back(std::move(u));
}

void WriteTxn::RecordStaged(const Table& table, const RowValues& pk) {
  std::string source = db_->merge_.RouteOf(table, pk);
  auto [it, fresh] = source_ids_.try_emplace(source, static_cast<uint32_t>(source_names_.size()));
  if (fresh) source_names_.push_back(std::move(source));
  staged_sources_.push_back(it->second);
  // Every earlier staged operation left at least one undo record (this one stages next).
  RINDLE_CHECK_LE(staged_sources_.size(), steps_.size() + 1);
}

absl::Status WriteTxn::Add(std::string_view table, RowValues row) {
  RETURN_IF_ERROR(CheckOpen());
  auto t = FindTable(table);
  if (!t.ok()) return Fail(t.status());
  if (auto s = (*t)->spec().CheckRow(table, row); !s.ok()) return Fail(s);
  RowValues pk = (*t)->spec().PkOf(row);
  if ((*t)->Find(pk)) {
    return Fail(absl::AlreadyExistsError(
        StrCat("add: table \"", table, "\" already has pk ", RowDebugString(pk))));
  }
  RecordStaged(**t, pk);
  Stage(*t, pk, MakeRow(std::move(row)));
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
  RecordStaged(**t, pk);
  Stage(*t, pk, nullptr);
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
  }
  // The edited row's pk routes the write (its provenance before the apply).
  RecordStaged(**t, old_pk);
  if (CompareRowValues(old_pk, new_pk) != 0) Stage(*t, old_pk, nullptr);
  Stage(*t, new_pk, MakeRow(std::move(new_row)));
  return absl::OkStatus();
}

absl::StatusOr<std::optional<RowValues>> WriteTxn::Get(std::string_view table,
                                                       const RowValues& pk) const {
  RETURN_IF_ERROR(CheckOpen());
  ASSIGN_OR_RETURN(Table * t, FindTable(table));
  if (pk.size() != t->spec().primary_key.size()) {
    return absl::InvalidArgumentError(StrCat("get: table \"", table, "\" pk has ",
                                             t->spec().primary_key.size(), " columns, got ",
                                             pk.size()));
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
  ASSIGN_OR_RETURN(CommitTracked c, CommitImpl(/*with_sources=*/false));
  return std::move(c.batches);
}

absl::StatusOr<CommitTracked> WriteTxn::CommitTrackedWrites() {
  return CommitImpl(/*with_sources=*/true);
}

absl::StatusOr<CommitTracked> WriteTxn::CommitImpl(bool with_sources) {
  RETURN_IF_ERROR(CheckOpen());
  Close();
  steps_.clear();
  undo_.clear();
  CommitTracked out;
  if (with_sources) {
    out.sources.reserve(staged_sources_.size());
    for (uint32_t id : staged_sources_) out.sources.push_back(source_names_[id]);
  }
  ClearSources();
  if (!db_->in_server_batch()) out.batches = db_->Deliver();
  return out;
}

void WriteTxn::ClearSources() {
  staged_sources_.clear();
  source_names_.clear();
  source_ids_.clear();
}

void WriteTxn::UndoAll() {
  for (auto step = steps_.rbegin(); step != steps_.rend(); ++step) {
    Table* table = step->table;
    auto& acc = db_->accum_[table->name()];
    if (step->full < 0) {  // a fresh write: nothing was there before it
      const RowValues pk = table->spec().PkOf(*step->added);
      table->Put(pk, nullptr, /*optimistic=*/false);
      table->SetOverlayEntry(pk, std::nullopt);
      acc.erase(pk);
      continue;
    }
    const UndoRecord& u = undo_[static_cast<size_t>(step->full)];
    table->Put(u.pk, u.old_row, /*optimistic=*/false);
    table->SetOverlayEntry(u.pk, u.old_overlay);
    if (u.had_accum) {
      acc[u.pk] = u.old_accum;
    } else {
      acc.erase(u.pk);
    }
  }
  steps_.clear();
  undo_.clear();
}

void WriteTxn::Rollback() {
  if (!open_) return;
  RINDLE_CHECK(db_->txn_open_);
  UndoAll();
  ClearSources();
  Close();
  // Outside a rebase cycle everything before this txn was delivered, so undoing every staged
  // write leaves no net change behind.
  RINDLE_CHECK(db_->in_server_batch() || NoNetChange(db_->accum_));
}

void WriteTxn::Close() {
  RINDLE_CHECK(open_);
  RINDLE_CHECK(db_->txn_open_);
  open_ = false;
  db_->txn_open_ = false;
}

}  // namespace rindle
