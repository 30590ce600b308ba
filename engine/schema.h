// schema.h — table specifications: ordered typed columns and a primary key. Stateless values.
//
// A row is positional against `columns`. `primary_key` lists column indices (non-empty, distinct).
// Column types follow the app schema (fixtures/app/app-schema.json): "string", "number" (int or
// double, compared numerically), "boolean", "json" (carried as a string). A non-nullable column
// rejects null; pk columns are never null. Source: SPEC §2.1 "Tables"; seed 000 registerTable.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/value.h"
#include "nlohmann/json.hpp"

namespace rindle {

enum class ColumnType { kString, kNumber, kBoolean, kJson };

std::string_view ColumnTypeName(ColumnType t);
absl::StatusOr<ColumnType> ColumnTypeFromName(std::string_view name);

struct ColumnSpec {
  std::string name;
  ColumnType type = ColumnType::kString;
  bool nullable = true;
  bool operator==(const ColumnSpec&) const = default;
};

struct TableSpec {
  std::vector<ColumnSpec> columns;
  std::vector<int> primary_key;  // column indices
  bool operator==(const TableSpec&) const = default;

  // Index of `name`, or -1.
  int ColumnIndex(std::string_view name) const;
  // "id, title, status" — for error messages listing the valid names.
  std::string ColumnNames() const;
  // Structural validity: at least one column, unique names, non-empty pk of valid distinct
  // indices. InvalidArgument naming `table` otherwise.
  absl::Status Validate(std::string_view table) const;
  // Width, per-column type, nullability and non-null pk. InvalidArgument naming the table, the
  // column and what was expected.
  absl::Status CheckRow(std::string_view table, const RowValues& row) const;
  // CheckRow, except that a null in a NOT NULL non-pk column is accepted where `carried_from`
  // (the stored row `row` derives from) is null in the same column: an ABSENT cell of a
  // projected row (a column no query ships, PROJECTION-SUPPORT-DESIGN §5.3) carried over, not
  // written. `carried_from` == &row accepts a stored row as it is.
  absl::Status CheckRowCarryingAbsent(std::string_view table, const RowValues& row,
                                      const RowValues& carried_from) const;
  // Whether `v` may be stored in column `col` (type + nullability).
  bool Accepts(int col, const Value& v) const;
  RowValues PkOf(const RowValues& row) const;
};

// Table name → spec, ordered (deterministic iteration).
using Schema = std::map<std::string, TableSpec>;

// Parses one table of the app-schema format: {"columns":[{"name","type","nullable"}...],
// "primaryKey":[names]}. Errors name `where` (e.g. "app-schema.json: tables.issue").
absl::StatusOr<TableSpec> TableSpecFromJson(const nlohmann::json& j, std::string_view where);
// Parses {"tables": {NAME: table...}}.
absl::StatusOr<Schema> SchemaFromJson(const nlohmann::json& j, std::string_view where);
nlohmann::json TableSpecToJson(const TableSpec& spec);

}  // namespace rindle
