#include "oracles/plain_store.h"

#include <utility>

#include "base/str_util.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "oracles/fresh_query.h"

namespace rindle {
namespace {

std::string PkString(const RowValues& pk) { return RowDebugString(pk); }

}  // namespace

bool PlainTablesEqual(const PlainTables& a, const PlainTables& b) {
  if (a.size() != b.size()) return false;
  auto ia = a.begin();
  auto ib = b.begin();
  for (; ia != a.end(); ++ia, ++ib) {
    if (ia->first != ib->first || ia->second.size() != ib->second.size()) return false;
    auto ra = ia->second.begin();
    auto rb = ib->second.begin();
    for (; ra != ia->second.end(); ++ra, ++rb) {
      if (CompareRowValues(ra->first, rb->first) != 0) return false;
      if (CompareRowValues(ra->second, rb->second) != 0) return false;
      // CompareValues treats 3 and 3.0 alike; both are normalized to Int by Value::Number.
      for (size_t i = 0; i < ra->second.size(); ++i) {
        if (ra->second[i].kind() != rb->second[i].kind()) return false;
      }
    }
  }
  return true;
}

nlohmann::json PlainTablesToJson(const PlainTables& tables) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, rows] : tables) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& [pk, row] : rows) arr.push_back(RowToJson(row));
    out[name] = std::move(arr);
  }
  return out;
}

PlainStore::PlainStore(Schema schema) : schema_(std::move(schema)) {
  for (const auto& [name, spec] : schema_) tables_[name];
}

absl::StatusOr<const TableSpec*> PlainStore::Spec(std::string_view table) const {
  auto it = schema_.find(std::string(table));
  if (it == schema_.end()) {
    std::vector<std::string> names;
    for (const auto& [name, spec] : schema_) names.push_back(name);
    return absl::InvalidArgumentError(StrCat("unknown table \"", table,
                                                   "\" (tables: ", absl::StrJoin(names, ", "),
                                                   ")"));
  }
  return &it->second;
}

absl::Status PlainStore::Add(std::string_view table, const RowValues& row) {
  ASSIGN_OR_RETURN(const TableSpec* spec, Spec(table));
  RETURN_IF_ERROR(spec->CheckRow(table, row));
  return AddChecked(table, spec, row);
}

absl::Status PlainStore::AddStored(std::string_view table, const RowValues& row) {
  ASSIGN_OR_RETURN(const TableSpec* spec, Spec(table));
  RETURN_IF_ERROR(spec->CheckRowCarryingAbsent(table, row, row));
  return AddChecked(table, spec, row);
}

absl::Status PlainStore::AddChecked(std::string_view table, const TableSpec* spec,
                                    const RowValues& row) {
  PlainTable& t = tables_[std::string(table)];
  RowValues pk = spec->PkOf(row);
  if (t.count(pk) != 0) {
    return absl::FailedPreconditionError(StrCat("table \"", table, "\": add of pk ",
                                                      PkString(pk), ": a row with that pk exists"));
  }
  t.emplace(std::move(pk), row);
  return absl::OkStatus();
}

absl::Status PlainStore::Remove(std::string_view table, const RowValues& row) {
  ASSIGN_OR_RETURN(const TableSpec* spec, Spec(table));
  RETURN_IF_ERROR(spec->CheckRowCarryingAbsent(table, row, row));
  PlainTable& t = tables_[std::string(table)];
  const RowValues pk = spec->PkOf(row);
  auto it = t.find(pk);
  if (it == t.end()) {
    return absl::FailedPreconditionError(
        StrCat("table \"", table, "\": remove of pk ", PkString(pk), ": no such row"));
  }
  if (CompareRowValues(it->second, row) != 0) {
    return absl::FailedPreconditionError(StrCat(
        "table \"", table, "\": remove of pk ", PkString(pk), ": stored row ",
        RowDebugString(it->second), " differs from the given row ", RowDebugString(row)));
  }
  t.erase(it);
  return absl::OkStatus();
}

absl::Status PlainStore::Edit(std::string_view table, const RowValues& old_row,
                              const RowValues& new_row) {
  ASSIGN_OR_RETURN(const TableSpec* spec, Spec(table));
  RETURN_IF_ERROR(spec->CheckRowCarryingAbsent(table, old_row, old_row));
  RETURN_IF_ERROR(spec->CheckRowCarryingAbsent(table, new_row, old_row));
  PlainTable& t = tables_[std::string(table)];
  const RowValues old_pk = spec->PkOf(old_row);
  auto it = t.find(old_pk);
  if (it == t.end()) {
    return absl::FailedPreconditionError(
        StrCat("table \"", table, "\": edit of pk ", PkString(old_pk), ": no such row"));
  }
  if (CompareRowValues(it->second, old_row) != 0) {
    return absl::FailedPreconditionError(StrCat(
        "table \"", table, "\": edit of pk ", PkString(old_pk), ": stored row ",
        RowDebugString(it->second), " differs from the given old row ", RowDebugString(old_row)));
  }
  RowValues new_pk = spec->PkOf(new_row);
  if (CompareRowValues(new_pk, old_pk) != 0 && t.count(new_pk) != 0) {
    return absl::FailedPreconditionError(
        StrCat("table \"", table, "\": edit moves pk ", PkString(old_pk), " to ",
                     PkString(new_pk), ", which is already taken"));
  }
  t.erase(it);
  t.emplace(std::move(new_pk), new_row);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<RowValues>> PlainStore::Get(std::string_view table,
                                                         const RowValues& pk) const {
  ASSIGN_OR_RETURN(const TableSpec* spec, Spec(table));
  if (pk.size() != spec->primary_key.size()) {
    return absl::InvalidArgumentError(StrCat("table \"", table, "\": pk has ", pk.size(),
                                                   " cells, expected ",
                                                   spec->primary_key.size()));
  }
  auto t = tables_.find(std::string(table));
  if (t == tables_.end()) return std::optional<RowValues>();
  auto it = t->second.find(pk);
  if (it == t->second.end()) return std::optional<RowValues>();
  return std::optional<RowValues>(it->second);
}

absl::Status PlainStore::CheckKeyedColumns(std::string_view table, const TableSpec& spec,
                                           const nlohmann::json& keyed,
                                           const std::vector<int>& required) const {
  if (!keyed.is_object()) {
    return absl::InvalidArgumentError(
        StrCat("table \"", table, "\": expected a keyed row {column: value}, got ",
                     keyed.dump()));
  }
  for (const auto& [k, v] : keyed.items()) {
    if (spec.ColumnIndex(k) < 0) {
      return absl::InvalidArgumentError(StrCat("table \"", table, "\": unknown column \"",
                                                     k, "\" (columns: ", spec.ColumnNames(),
                                                     ")"));
    }
  }
  for (int c : required) {
    if (!keyed.contains(spec.columns[c].name)) {
      return absl::InvalidArgumentError(StrCat("table \"", table, "\": missing column \"",
                                                     spec.columns[c].name, "\""));
    }
  }
  return absl::OkStatus();
}

namespace {
absl::StatusOr<Value> CellFromJson(std::string_view table, const TableSpec& spec, int col,
                                   const nlohmann::json& v) {
  if (spec.columns[col].type == ColumnType::kJson && (v.is_object() || v.is_array())) {
    return Value::String(v.dump());
  }
  return Value::FromJson(v, StrCat("table \"", table, "\": column \"",
                                         spec.columns[col].name, "\""));
}
}  // namespace

absl::StatusOr<RowValues> PlainStore::RowFromKeyed(std::string_view table,
                                                   const nlohmann::json& keyed) const {
  ASSIGN_OR_RETURN(const TableSpec* spec, Spec(table));
  std::vector<int> required;
  for (size_t i = 0; i < spec->columns.size(); ++i) {
    if (!spec->columns[i].nullable) required.push_back(static_cast<int>(i));
  }
  RETURN_IF_ERROR(CheckKeyedColumns(table, *spec, keyed, required));
  RowValues row(spec->columns.size());
  for (size_t i = 0; i < spec->columns.size(); ++i) {
    auto it = keyed.find(spec->columns[i].name);
    if (it == keyed.end()) continue;
    ASSIGN_OR_RETURN(row[i], CellFromJson(table, *spec, static_cast<int>(i), *it));
  }
  RETURN_IF_ERROR(spec->CheckRow(table, row));
  return row;
}

absl::StatusOr<RowValues> PlainStore::PkFromKeyed(std::string_view table,
                                                  const nlohmann::json& keyed) const {
  ASSIGN_OR_RETURN(const TableSpec* spec, Spec(table));
  RETURN_IF_ERROR(CheckKeyedColumns(table, *spec, keyed, spec->primary_key));
  RowValues pk;
  for (int c : spec->primary_key) {
    ASSIGN_OR_RETURN(Value v, CellFromJson(table, *spec, c, keyed[spec->columns[c].name]));
    if (!spec->Accepts(c, v) || v.is_null()) {
      return absl::InvalidArgumentError(StrCat(
          "table \"", table, "\": primary-key column \"", spec->columns[c].name, "\" expects ",
          ColumnTypeName(spec->columns[c].type), ", got ", v.DebugString()));
    }
    pk.push_back(std::move(v));
  }
  return pk;
}

absl::StatusOr<RowValues> PlainStore::MergeKeyed(std::string_view table, const RowValues& current,
                                                 const nlohmann::json& keyed) const {
  ASSIGN_OR_RETURN(const TableSpec* spec, Spec(table));
  RETURN_IF_ERROR(CheckKeyedColumns(table, *spec, keyed, spec->primary_key));
  RowValues row = current;
  for (size_t i = 0; i < spec->columns.size(); ++i) {
    auto it = keyed.find(spec->columns[i].name);
    if (it == keyed.end()) continue;
    ASSIGN_OR_RETURN(row[i], CellFromJson(table, *spec, static_cast<int>(i), *it));
    // A named cell is written: strict. Unnamed cells are carried (a projected row's ABSENT
    // NOT NULL cells stay null — TableSpec::CheckRowCarryingAbsent).
    if (!spec->Accepts(static_cast<int>(i), row[i])) {
      return absl::InvalidArgumentError(StrCat("table \"", table, "\": column \"",
                                               spec->columns[i].name, "\" expects ",
                                               spec->columns[i].nullable ? "" : "non-null ",
                                               ColumnTypeName(spec->columns[i].type), ", got ",
                                               row[i].DebugString()));
    }
  }
  RETURN_IF_ERROR(spec->CheckRowCarryingAbsent(table, row, current));
  return row;
}

absl::StatusOr<nlohmann::json> PlainStore::ToKeyed(std::string_view table,
                                                   const RowValues& row) const {
  ASSIGN_OR_RETURN(const TableSpec* spec, Spec(table));
  RETURN_IF_ERROR(spec->CheckRowCarryingAbsent(table, row, row));
  nlohmann::json out = nlohmann::json::object();
  for (size_t i = 0; i < spec->columns.size(); ++i) out[spec->columns[i].name] = row[i].ToJson();
  return out;
}

absl::StatusOr<std::vector<TreeNode>> PlainStore::Query(const Ast& ast) const {
  return FreshQuery(ast, tables_, schema_);
}

// ---------------------------------------------------------------------------------------------
// PlainMutationTx

PlainMutationTx::PlainMutationTx(PlainStore* store) : store_(store), staged_(*store) {
  RINDLE_CHECK(store != nullptr);
}

absl::StatusOr<std::optional<RowValues>> PlainMutationTx::Get(std::string_view table,
                                                              const RowValues& pk) {
  RINDLE_CHECK(!committed_);
  return staged_.Get(table, pk);
}

absl::StatusOr<std::optional<KeyedRow>> PlainMutationTx::GetRow(std::string_view table,
                                                                const KeyedRow& pk) {
  RINDLE_CHECK(!committed_);
  ASSIGN_OR_RETURN(RowValues pkc, staged_.PkFromKeyed(table, pk));
  ASSIGN_OR_RETURN(std::optional<RowValues> row, staged_.Get(table, pkc));
  if (!row) return std::optional<KeyedRow>();
  ASSIGN_OR_RETURN(KeyedRow keyed, staged_.ToKeyed(table, *row));
  return std::optional<KeyedRow>(std::move(keyed));
}

absl::StatusOr<std::vector<TreeNode>> PlainMutationTx::Query(const Ast& ast) {
  RINDLE_CHECK(!committed_);
  return staged_.Query(ast);
}

absl::Status PlainMutationTx::Add(std::string_view table, const RowValues& row) {
  RINDLE_CHECK(!committed_);
  return staged_.Add(table, row);
}

absl::Status PlainMutationTx::Remove(std::string_view table, const RowValues& row) {
  RINDLE_CHECK(!committed_);
  return staged_.Remove(table, row);
}

absl::Status PlainMutationTx::Edit(std::string_view table, const RowValues& old_row,
                                   const RowValues& new_row) {
  RINDLE_CHECK(!committed_);
  return staged_.Edit(table, old_row, new_row);
}

absl::Status PlainMutationTx::Insert(std::string_view table, const KeyedRow& row) {
  RINDLE_CHECK(!committed_);
  ASSIGN_OR_RETURN(RowValues cells, staged_.RowFromKeyed(table, row));
  return staged_.Add(table, cells);
}

absl::Status PlainMutationTx::Update(std::string_view table, const KeyedRow& row) {
  RINDLE_CHECK(!committed_);
  ASSIGN_OR_RETURN(RowValues pk, staged_.PkFromKeyed(table, row));
  ASSIGN_OR_RETURN(std::optional<RowValues> current, staged_.Get(table, pk));
  // PkFromKeyed validated every column name; an absent row is a rebase-friendly no-op.
  if (!current) return absl::OkStatus();
  ASSIGN_OR_RETURN(RowValues next, staged_.MergeKeyed(table, *current, row));
  return staged_.Edit(table, *current, next);
}

absl::Status PlainMutationTx::Upsert(std::string_view table, const KeyedRow& row) {
  RINDLE_CHECK(!committed_);
  ASSIGN_OR_RETURN(RowValues cells, staged_.RowFromKeyed(table, row));
  ASSIGN_OR_RETURN(const TableSpec* spec, staged_.Spec(table));
  ASSIGN_OR_RETURN(std::optional<RowValues> current, staged_.Get(table, spec->PkOf(cells)));
  if (current) return staged_.Edit(table, *current, cells);
  return staged_.Add(table, cells);
}

absl::Status PlainMutationTx::InsertIgnore(std::string_view table, const KeyedRow& row) {
  RINDLE_CHECK(!committed_);
  ASSIGN_OR_RETURN(RowValues cells, staged_.RowFromKeyed(table, row));
  ASSIGN_OR_RETURN(const TableSpec* spec, staged_.Spec(table));
  ASSIGN_OR_RETURN(std::optional<RowValues> current, staged_.Get(table, spec->PkOf(cells)));
  if (current) return absl::OkStatus();
  return staged_.Add(table, cells);
}

absl::Status PlainMutationTx::Delete(std::string_view table, const KeyedRow& pk) {
  RINDLE_CHECK(!committed_);
  ASSIGN_OR_RETURN(RowValues pkc, staged_.PkFromKeyed(table, pk));
  ASSIGN_OR_RETURN(std::optional<RowValues> current, staged_.Get(table, pkc));
  if (!current) return absl::OkStatus();
  return staged_.Remove(table, *current);
}

void PlainMutationTx::Commit() {
  RINDLE_CHECK(!committed_);
  committed_ = true;
  *store_ = std::move(staged_);
}

}  // namespace rindle
