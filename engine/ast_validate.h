// ast_validate.h — checks a parsed AST (ast.h) against table specs (SPEC §2.1 "Queries").
// Stateless. ast_json.h parses the grammar; this checks the meaning.
//
// ValidateAst: unknown tables and columns (listing the valid ones), literal types against column
// types (null fits any column), LIKE patterns and columns are strings, column-to-column
// comparisons of one type, correlation field counts and types on both sides, an orderBy column at
// most once, cursor columns and their literal types, select columns; related and correlated
// subqueries recursively. Every error is InvalidArgument naming the JSON path into the AST
// ("$.where.conditions[1].left.name: unknown column ...") and what was expected.
#pragma once

#include <functional>
#include <string_view>

#include "absl/status/status.h"
#include "engine/ast.h"
#include "engine/schema.h"

namespace rindle {

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
