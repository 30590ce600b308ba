// presentation.h — turns a raw result tree (engine/change.h TreeNode, full positional rows) into
// the user-facing "data" JSON of fixtures/README.md ("rindle-wasm cases"). Stateless.
//
// Shared by engine views and the oracles, so both present through the same rule:
//   - a row is an object of its presented columns by name: every column when the level has no
//     `select`, otherwise select ∪ primary key ∪ orderBy columns (checked against all 40
//     rindle-wasm cases); other columns are omitted (not null). A null cell is JSON null;
//   - then each relationship under its alias, in AST order: an array of child objects; an object
//     or null for a `one` subquery; the number of children for `aggregate: "count"`;
//   - a `hidden` (junction) level never appears itself: each relationship of its rows is lifted
//     to the parent under the inner alias (arrays concatenated in order, counts summed, a `one`
//     inner level presents the first lifted child or null);
//   - EXISTS subqueries (where-conditions) never appear;
//   - the top-level result is an array, or for a `one` query the row or null (a count query is
//     the number of rows).
// The tree must have been produced for `ast` (one relationship entry per `related`, in order);
// `lookup` must know every table of the AST (a validated AST). Violations are programmer errors
// (CHECK). JSON objects use nlohmann::json's sorted keys, so key order is not significant.
// Source: fixtures/README.md, SPEC §2.1 "Result and change shape".
#pragma once

#include <vector>

#include "engine/ast.h"
#include "engine/ast_json.h"
#include "engine/change.h"
#include "nlohmann/json.hpp"

namespace rindle {

nlohmann::json PresentData(const std::vector<TreeNode>& tree, const Ast& ast,
                           const TableLookup& lookup);

// One row (with its relationships) of a level described by `ast`.
nlohmann::json PresentRow(const TreeNode& node, const Ast& ast, const TableLookup& lookup);

// The column indices a level presents, ascending (see header comment).
std::vector<int> PresentedColumns(const Ast& ast, const TableSpec& spec);

}  // namespace rindle
