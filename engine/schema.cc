#include "base/str_util.h"
#include "engine/schema.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rindle {

std::string_view ColumnTypeName(ColumnType t) {
  switch (t) {
    case ColumnType::kString: return "string";
    case ColumnType::kNumber: return "number";
    case ColumnType::kBoolean: return "boolean";
    case ColumnType::kJson: return "json";
  }
  return "?";
}

absl::StatusOr<ColumnType> ColumnTypeFromName(std::string_view name) {
  if (name == "string") return ColumnType::kString;
  if (name == "number") return ColumnType::kNumber;
  if (name == "boolean") return ColumnType::kBoolean;
  if (name == "json") return ColumnType::kJson;
  return absl::InvalidArgumentError(
      StrCat("unknown column type \"", name, "\" (expected string, number, boolean or json)"));
}

int TableSpec::ColumnIndex(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::string TableSpec::ColumnNames() const {
  std::vector<std::string> names;
  for (const auto& c : columns) names.push_back(c.name);
  return absl::StrJoin(names, ", ");
}

absl::Status TableSpec::Validate(std::string_view table) const {
  if (columns.empty()) {
    return absl::InvalidArgumentError(StrCat("table \"", table, "\": no columns"));
  }
  std::set<std::string> seen;
  for (const auto& c : columns) {
    if (c.name.empty()) {
      return absl::InvalidArgumentError(StrCat("table \"", table, "\": empty column name"));
    }
    if (!seen.insert(c.name).second) {
      return absl::InvalidArgumentError(
          StrCat("table \"", table, "\": duplicate column \"", c.name, "\""));
    }
  }
  if (primary_key.empty()) {
    return absl::InvalidArgumentError(
        StrCat("table \"", table, "\": primaryKey must name at least one column"));
  }
  std::set<int> pk;
  for (int i : primary_key) {
    if (i < 0 || i >= static_cast<int>(columns.size())) {
      return absl::InvalidArgumentError(StrCat("table \"", table, "\": primaryKey index ", i,
                                                     " is out of range (", columns.size(),
                                                     " columns)"));
    }
    if (!pk.insert(i).second) {
      return absl::InvalidArgumentError(
          StrCat("table \"", table, "\": primaryKey repeats column ", columns[i].name));
    }
  }
  return absl::OkStatus();
}

bool TableSpec::Accepts(int col, const Value& v) const {
  const ColumnSpec& c = columns[col];
  if (v.is_null()) return c.nullable;
  switch (c.type) {
    case ColumnType::kString:
    case ColumnType::kJson: return v.is_string();
    case ColumnType::kNumber: return v.is_number();
    case ColumnType::kBoolean: return v.is_bool();
  }
  return false;
}

absl::Status TableSpec::CheckRowCarryingAbsent(std::string_view table, const RowValues& row,
                                               const RowValues& carried_from) const {
  if (carried_from.size() != row.size()) return CheckRow(table, row);
  TableSpec relaxed = *this;
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i].is_null() && carried_from[i].is_null()) relaxed.columns[i].nullable = true;
  }
  for (int pk : primary_key) relaxed.columns[pk].nullable = false;
  return relaxed.CheckRow(table, row);
}

absl::Status TableSpec::CheckRow(std::string_view table, const RowValues& row) const {
  if (row.size() != columns.size()) {
    return absl::InvalidArgumentError(StrCat("table \"", table, "\": row has ", row.size(),
                                                   " cells, expected ", columns.size(), " (",
                                                   ColumnNames(), ")"));
  }
  for (int pk : primary_key) {
    if (row[pk].is_null()) {
      return absl::InvalidArgumentError(StrCat("table \"", table, "\": primary-key column \"",
                                                     columns[pk].name, "\" is null"));
    }
  }
  for (size_t i = 0; i < row.size(); ++i) {
    if (!Accepts(static_cast<int>(i), row[i])) {
      const ColumnSpec& c = columns[i];
      return absl::InvalidArgumentError(StrCat(
          "table \"", table, "\": column \"", c.name, "\" expects ",
          c.nullable ? "" : "non-null ", ColumnTypeName(c.type), ", got ", row[i].DebugString()));
    }
  }
  return absl::OkStatus();
}

RowValues TableSpec::PkOf(const RowValues& row) const {
  RowValues pk;
  pk.reserve(primary_key.size());
  for (int i : primary_key) pk.push_back(row[i]);
  return pk;
}

absl::StatusOr<TableSpec> TableSpecFromJson(const nlohmann::json& j, std::string_view where) {
  if (!j.is_object() || !j.contains("columns") || !j["columns"].is_array()) {
    return absl::InvalidArgumentError(StrCat(where, ": expected {columns: [...], primaryKey: [...]}"));
  }
  TableSpec spec;
  for (size_t i = 0; i < j["columns"].size(); ++i) {
    const auto& c = j["columns"][i];
    const std::string cw = StrCat(where, ".columns[", i, "]");
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string()) {
      return absl::InvalidArgumentError(StrCat(cw, ": expected {name, type, nullable}"));
    }
    ColumnSpec col;
    col.name = c["name"].get<std::string>();
    if (c.contains("type")) {
      if (!c["type"].is_string()) {
        return absl::InvalidArgumentError(StrCat(cw, ".type: expected a string"));
      }
      auto t = ColumnTypeFromName(c["type"].get<std::string>());
      if (!t.ok()) return absl::InvalidArgumentError(StrCat(cw, ".type: ", t.status().message()));
      col.type = *t;
    }
    if (c.contains("nullable")) {
      if (!c["nullable"].is_boolean()) {
        return absl::InvalidArgumentError(StrCat(cw, ".nullable: expected a boolean"));
      }
      col.nullable = c["nullable"].get<bool>();
    }
    spec.columns.push_back(std::move(col));
  }
  if (!j.contains("primaryKey") || !j["primaryKey"].is_array()) {
    return absl::InvalidArgumentError(StrCat(where, ".primaryKey: expected an array of column names"));
  }
  for (const auto& p : j["primaryKey"]) {
    if (!p.is_string()) {
      return absl::InvalidArgumentError(StrCat(where, ".primaryKey: expected column names"));
    }
    const int idx = spec.ColumnIndex(p.get<std::string>());
    if (idx < 0) {
      return absl::InvalidArgumentError(StrCat(where, ".primaryKey: unknown column \"",
                                                     p.get<std::string>(), "\" (columns: ",
                                                     spec.ColumnNames(), ")"));
    }
    spec.primary_key.push_back(idx);
  }
  for (int pk : spec.primary_key) spec.columns[pk].nullable = false;
  if (auto s = spec.Validate(where); !s.ok()) return s;
  return spec;
}

absl::StatusOr<Schema> SchemaFromJson(const nlohmann::json& j, std::string_view where) {
  if (!j.is_object() || !j.contains("tables") || !j["tables"].is_object()) {
    return absl::InvalidArgumentError(StrCat(where, ": expected {\"tables\": {...}}"));
  }
  Schema schema;
  for (const auto& [name, t] : j["tables"].items()) {
    if (name.find('@') != std::string::npos) {  // `@` namespaces the client's room tables
      return absl::InvalidArgumentError(
          StrCat(where, ": tables.", name, ": '@' is reserved (room table namespace)"));
    }
    auto spec = TableSpecFromJson(t, StrCat(where, ": tables.", name));
    if (!spec.ok()) return spec.status();
    schema.emplace(name, std::move(*spec));
  }
  return schema;
}

nlohmann::json TableSpecToJson(const TableSpec& spec) {
  nlohmann::json cols = nlohmann::json::array();
  for (const auto& c : spec.columns) {
    cols.push_back({{"name", c.name}, {"type", ColumnTypeName(c.type)}, {"nullable", c.nullable}});
  }
  nlohmann::json pk = nlohmann::json::array();
  for (int i : spec.primary_key) pk.push_back(spec.columns[i].name);
  return {{"columns", cols}, {"primaryKey", pk}};
}

}  // namespace rindle
