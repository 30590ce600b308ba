// ast_json.h — parse, validate and print the Zero wire AST JSON (SPEC §2.1). Stateless.
//
// ParseAst checks the grammar only (keys, node types, operators, value kinds); every error is
// InvalidArgument naming the JSON path into the AST ("$.where.conditions[1].left.name: ...") and
// what was expected. Unknown keys are rejected. JSON-library exceptions never escape.
// ValidateAst checks an AST against table specs: unknown tables and columns (listing the valid
// ones), literal types against column types, correlation field counts and types, cursor
// columns, limit ≥ 0, select/aggregate. Source: SPEC §2.1 "Queries".
#pragma once

#include <functional>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/schema.h"
#include "nlohmann/json.hpp"

namespace rindle {

absl::StatusOr<Ast> ParseAst(const nlohmann::json& j, std::string_view path = "$");
absl::StatusOr<Ast> ParseAstText(std::string_view text, std::string_view path = "$");
absl::StatusOr<Condition> ParseCondition(const nlohmann::json& j, std::string_view path);
nlohmann::json AstToJson(const Ast& ast);
nlohmann::json ConditionToJson(const Condition& c);

// Looks up a table spec by name; nullptr when unknown.
using TableLookup = std::function<const TableSpec*(std::string_view table)>;

absl::Status ValidateAst(const Ast& ast, const TableLookup& lookup, std::string_view path = "$");
// Validates the where of one level against its table; a correlatedSubquery in it is validated
// (correlation, child table, subquery) through `lookup`.
absl::Status ValidateCondition(const Condition& c, std::string_view table, const TableSpec& spec,
                               const TableLookup& lookup, std::string_view path);
// Validates a condition that must be row-local — evaluated on one row alone, such as seed 000's
// writable-scope `predicate` of addRoomSource. Like ValidateCondition, but a correlatedSubquery
// anywhere in it is InvalidArgument naming its path, e.g. "$.predicate.conditions[1]: a
// correlated subquery (EXISTS / NOT EXISTS) is not allowed in a row-local predicate ...".
absl::Status ValidateRowLocalCondition(const Condition& c, std::string_view table,
                                       const TableSpec& spec, std::string_view path);

}  // namespace rindle
