#include "optimistic/tracking_tx.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace rindle {

namespace {

std::string Sv(std::string_view v) { return std::string(v); }

std::string TableList(const Schema& schema) {
  std::vector<std::string> names;
  for (const auto& [name, spec] : schema) names.push_back(name);
  return absl::StrJoin(names, ", ");
}

absl::StatusOr<Value> CellFromJson(const ColumnSpec& col, const nlohmann::json& j,
                                   std::string_view what) {
  if (col.type == ColumnType::kJson && (j.is_object() || j.is_array())) {
    return Value::String(j.dump());
  }
  return Value::FromJson(j, what);
}

}  // namespace

TrackingTx::TrackingTx(WriteTxn* txn, const Schema* schema,
                       const std::set<std::string>* local_tables, WriteSet* writes,
                       ReadLog* reads)
    : txn_(txn), schema_(schema), local_tables_(local_tables), writes_(writes), reads_(reads) {}

absl::StatusOr<const TableSpec*> TrackingTx::Spec(std::string_view table) const {
  auto it = schema_->find(std::string(table));
  if (it == schema_->end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown table \"", Sv(table), "\" — tables: ", TableList(*schema_)));
  }
  return &it->second;
}

absl::StatusOr<const TableSpec*> TrackingTx::Access(std::string_view table,
                                                    const char* what) const {
  ASSIGN_OR_RETURN(const TableSpec* spec, Spec(table));
  if (local_tables_->count(std::string(table)) > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("mutator may not ", what, " local-only table \"", Sv(table),
                     "\" (M1: a replayable mutator reads and writes synced tables only)"));
  }
  return spec;
}

absl::Status TrackingTx::Engine(absl::Status s) {
  if (!s.ok() && failure_.ok()) failure_ = s;
  return s;
}

std::string TrackingTx::Staged(std::string_view table) const {
  if (stage_ != nullptr) {
    if (auto it = stage_->find(std::string(table)); it != stage_->end()) return it->second;
  }
  return std::string(table);
}

absl::StatusOr<std::optional<RowValues>> TrackingTx::RawGet(const std::string& table,
                                                            const RowValues& pk) {
  auto r = txn_->Get(Staged(table), pk);
  if (!r.ok()) return Engine(r.status());
  return r;
}

absl::StatusOr<std::optional<RowValues>> TrackingTx::RecordedGet(const std::string& table,
                                                                 const RowValues& pk) {
  ASSIGN_OR_RETURN(std::optional<RowValues> row, RawGet(table, pk));
  probed_.insert(Staged(table));
  if (reads_ != nullptr) {
    reads_->reads.push_back(
        ReadRecord{Staged(table), pk, row ? ReadOutcome::kPresent : ReadOutcome::kAbsent});
  }
  return row;
}

absl::Status TrackingTx::CheckColumns(std::string_view table, const TableSpec& spec,
                                      const KeyedRow& row, bool full) const {
  if (!row.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("table \"", Sv(table),
                                                   "\": a keyed row must be an object {column: "
                                                   "value}, got ", row.dump()));
  }
  for (const auto& [key, value] : row.items()) {
    if (spec.ColumnIndex(key) < 0) {
      return absl::InvalidArgumentError(absl::StrCat("table \"", Sv(table), "\": unknown column \"",
                                                     key, "\" — columns: ", spec.ColumnNames()));
    }
  }
  if (full) {
    for (const auto& c : spec.columns) {
      if (!c.nullable && !row.contains(c.name)) {
        return absl::InvalidArgumentError(absl::StrCat("table \"", Sv(table),
                                                       "\": missing non-nullable column \"",
                                                       c.name, "\" — columns: ",
                                                       spec.ColumnNames()));
      }
    }
  } else {
    for (int i : spec.primary_key) {
      if (!row.contains(spec.columns[i].name)) {
        return absl::InvalidArgumentError(
            absl::StrCat("table \"", Sv(table), "\": missing primary-key column \"",
                         spec.columns[i].name, "\" — columns: ", spec.ColumnNames()));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<RowValues> TrackingTx::PkCells(std::string_view table, const TableSpec& spec,
                                              const KeyedRow& row) const {
  RowValues pk;
  for (int i : spec.primary_key) {
    const ColumnSpec& c = spec.columns[i];
    ASSIGN_OR_RETURN(Value v, CellFromJson(c, row.at(c.name), absl::StrCat(Sv(table), ".", c.name)));
    if (!spec.Accepts(i, v) || v.is_null()) {
      return absl::InvalidArgumentError(absl::StrCat("table \"", Sv(table), "\": primary-key column \"",
                                                     c.name, "\" expects non-null ",
                                                     Sv(ColumnTypeName(c.type)), ", got ",
                                                     v.DebugString()));
    }
    pk.push_back(std::move(v));
  }
  return pk;
}

absl::StatusOr<RowValues> TrackingTx::FullCells(std::string_view table, const TableSpec& spec,
                                                const KeyedRow& row) const {
  RowValues out;
  out.reserve(spec.columns.size());
  for (const auto& c : spec.columns) {
    auto it = row.find(c.name);
    if (it == row.end()) {
      out.push_back(Value::Null());
      continue;
    }
    ASSIGN_OR_RETURN(Value v, CellFromJson(c, *it, absl::StrCat(Sv(table), ".", c.name)));
    out.push_back(std::move(v));
  }
  return out;
}

KeyedRow TrackingTx::ToKeyed(const TableSpec& spec, const RowValues& row) const {
  KeyedRow out = nlohmann::json::object();
  for (size_t i = 0; i < spec.columns.size() && i < row.size(); ++i) {
    out[spec.columns[i].name] = row[i].ToJson();
  }
  return out;
}

absl::Status TrackingTx::Trap(const char* what) {
  // The trap fails the whole invocation even if the mutator swallows the status.
  absl::Status s = absl::FailedPreconditionError(absl::StrCat(
      kFoldReadErrorPrefix, what, " inside a folded mutator — folded mutators must be "
      "last-writer-wins, they may not read state to compute their write (FOLDED-MUTATIONS-DESIGN §5)"));
  fold_read_ = true;
  if (failure_.ok()) failure_ = s;
  return s;
}

absl::StatusOr<std::optional<RowValues>> TrackingTx::Get(std::string_view table,
                                                         const RowValues& pk) {
  if (trap_reads_) return Trap("tx.get");
  ASSIGN_OR_RETURN(const TableSpec* spec, Access(table, "read"));
  if (pk.size() != spec->primary_key.size()) {
    return absl::InvalidArgumentError(absl::StrCat("table \"", Sv(table), "\": get with ", pk.size(),
                                                   " pk cells, expected ",
                                                   spec->primary_key.size()));
  }
  return RecordedGet(std::string(table), pk);
}

absl::StatusOr<std::optional<KeyedRow>> TrackingTx::GetRow(std::string_view table,
                                                           const KeyedRow& pk) {
  if (trap_reads_) return Trap("tx.row");
  ASSIGN_OR_RETURN(const TableSpec* spec, Access(table, "read"));
  RETURN_IF_ERROR(CheckColumns(table, *spec, pk, /*full=*/false));
  ASSIGN_OR_RETURN(RowValues cells, PkCells(table, *spec, pk));
  ASSIGN_OR_RETURN(std::optional<RowValues> row, RecordedGet(std::string(table), cells));
  if (!row) return std::optional<KeyedRow>();
  return std::optional<KeyedRow>(ToKeyed(*spec, *row));
}

absl::StatusOr<std::vector<TreeNode>> TrackingTx::Query(const Ast& ast) {
  if (trap_reads_) return Trap("tx.query");
  for (const auto& t : AstTables(ast)) {
    RETURN_IF_ERROR(Access(t, "read").status());
  }
  const Ast staged = stage_ != nullptr ? RemapAstTables(ast, *stage_) : ast;
  if (reads_ != nullptr) reads_->queries.push_back(staged);
  auto r = txn_->Query(staged);
  if (!r.ok()) return Engine(r.status());
  return r;
}

absl::Status TrackingTx::Add(std::string_view table, const RowValues& row) {
  ASSIGN_OR_RETURN(const TableSpec* spec, Access(table, "write"));
  RETURN_IF_ERROR(spec->CheckRow(table, row));
  const std::string t(table);
  RowValues pk = spec->PkOf(row);
  ASSIGN_OR_RETURN(std::optional<RowValues> cur, RawGet(t, pk));
  if (cur) {
    return absl::AlreadyExistsError(absl::StrCat("table \"", Sv(table), "\": add of pk ",
                                                 RowDebugString(pk), " which already exists"));
  }
  RecordAdd(*writes_, Staged(t), pk, row);
  return Engine(txn_->Add(Staged(t), row));
}

absl::Status TrackingTx::Remove(std::string_view table, const RowValues& row) {
  ASSIGN_OR_RETURN(const TableSpec* spec, Access(table, "write"));
  RETURN_IF_ERROR(spec->CheckRowCarryingAbsent(table, row, row));
  const std::string t(table);
  RowValues pk = spec->PkOf(row);
  ASSIGN_OR_RETURN(std::optional<RowValues> cur, RawGet(t, pk));
  if (!cur || CompareRowValues(*cur, row) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("table \"", Sv(table), "\": remove of ", RowDebugString(row), ": ",
                     cur ? absl::StrCat("stored row is ", RowDebugString(*cur))
                         : std::string("no row with that pk")));
  }
  RecordRemove(*writes_, Staged(t), pk, cur, row);
  return Engine(txn_->Remove(Staged(t), row));
}

absl::Status TrackingTx::Edit(std::string_view table, const RowValues& old_row,
                              const RowValues& new_row) {
  ASSIGN_OR_RETURN(const TableSpec* spec, Access(table, "write"));
  // Stored rows of projected queries may carry ABSENT (null) NOT NULL cells; only what this edit
  // writes is checked strictly.
  RETURN_IF_ERROR(spec->CheckRowCarryingAbsent(table, old_row, old_row));
  RETURN_IF_ERROR(spec->CheckRowCarryingAbsent(table, new_row, old_row));
  const std::string t(table);
  RowValues old_pk = spec->PkOf(old_row);
  RowValues new_pk = spec->PkOf(new_row);
  ASSIGN_OR_RETURN(std::optional<RowValues> cur, RawGet(t, old_pk));
  if (!cur || CompareRowValues(*cur, old_row) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("table \"", Sv(table), "\": edit of ", RowDebugString(old_row), ": ",
                     cur ? absl::StrCat("stored row is ", RowDebugString(*cur))
                         : std::string("no row with that pk")));
  }
  std::optional<RowValues> visible_new = cur;
  if (CompareRowValues(old_pk, new_pk) != 0) {
    ASSIGN_OR_RETURN(visible_new, RawGet(t, new_pk));
    if (visible_new) {
      return absl::AlreadyExistsError(absl::StrCat("table \"", Sv(table), "\": edit moves pk ",
                                                   RowDebugString(old_pk), " onto existing pk ",
                                                   RowDebugString(new_pk)));
    }
  }
  RecordEdit(*writes_, Staged(t), new_pk, new_row, visible_new, old_row);
  return Engine(txn_->Edit(Staged(t), old_row, new_row));
}

absl::Status TrackingTx::Insert(std::string_view table, const KeyedRow& row) {
  ASSIGN_OR_RETURN(const TableSpec* spec, Access(table, "write"));
  RETURN_IF_ERROR(CheckColumns(table, *spec, row, /*full=*/true));
  ASSIGN_OR_RETURN(RowValues cells, FullCells(table, *spec, row));
  return Add(table, cells);
}

absl::Status TrackingTx::Update(std::string_view table, const KeyedRow& row) {
  ASSIGN_OR_RETURN(const TableSpec* spec, Access(table, "write"));
  RETURN_IF_ERROR(CheckColumns(table, *spec, row, /*full=*/false));
  ASSIGN_OR_RETURN(RowValues pk, PkCells(table, *spec, row));
  ASSIGN_OR_RETURN(std::optional<RowValues> cur, RecordedGet(std::string(table), pk));
  if (!cur) return absl::OkStatus();  // rebase-friendly: the row may have vanished upstream
  RowValues next = *cur;
  for (size_t i = 0; i < spec->columns.size(); ++i) {
    const ColumnSpec& c = spec->columns[i];
    auto it = row.find(c.name);
    if (it == row.end()) continue;
    ASSIGN_OR_RETURN(next[i], CellFromJson(c, *it, absl::StrCat(Sv(table), ".", c.name)));
    // A named cell is WRITTEN, so it is checked strictly (only carried cells may be absent).
    if (!spec->Accepts(static_cast<int>(i), next[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "table \"", Sv(table), "\": column \"", c.name, "\" expects ", c.nullable ? "" : "non-null ",
          std::string(ColumnTypeName(c.type)), ", got ", next[i].DebugString()));
    }
  }
  return Edit(table, *cur, next);
}

absl::Status TrackingTx::Upsert(std::string_view table, const KeyedRow& row) {
  ASSIGN_OR_RETURN(const TableSpec* spec, Access(table, "write"));
  RETURN_IF_ERROR(CheckColumns(table, *spec, row, /*full=*/true));
  ASSIGN_OR_RETURN(RowValues cells, FullCells(table, *spec, row));
  RETURN_IF_ERROR(spec->CheckRow(table, cells));
  ASSIGN_OR_RETURN(std::optional<RowValues> cur,
                   RecordedGet(std::string(table), spec->PkOf(cells)));
  if (cur) return Edit(table, *cur, cells);
  return Add(table, cells);
}

absl::Status TrackingTx::InsertIgnore(std::string_view table, const KeyedRow& row) {
  ASSIGN_OR_RETURN(const TableSpec* spec, Access(table, "write"));
  RETURN_IF_ERROR(CheckColumns(table, *spec, row, /*full=*/true));
  ASSIGN_OR_RETURN(RowValues cells, FullCells(table, *spec, row));
  RETURN_IF_ERROR(spec->CheckRow(table, cells));
  ASSIGN_OR_RETURN(std::optional<RowValues> cur,
                   RecordedGet(std::string(table), spec->PkOf(cells)));
  if (cur) return absl::OkStatus();
  return Add(table, cells);
}

absl::Status TrackingTx::Delete(std::string_view table, const KeyedRow& pk) {
  ASSIGN_OR_RETURN(const TableSpec* spec, Access(table, "write"));
  RETURN_IF_ERROR(CheckColumns(table, *spec, pk, /*full=*/false));
  ASSIGN_OR_RETURN(RowValues cells, PkCells(table, *spec, pk));
  ASSIGN_OR_RETURN(std::optional<RowValues> cur, RecordedGet(std::string(table), cells));
  if (!cur) return absl::OkStatus();  // rebase-friendly no-op
  return Remove(table, *cur);
}

}  // namespace rindle
