// tree_diff.h — a readable diff of two query results (a view's tree against the oracle's), for
// view==fresh, consistent-view and events==view failures (issue 15 "Readable failures": name
// table, pk and column, never `$[1].row[1]`). Stateless.
//
// TreeDiff walks both trees level by level along the query's AST: rows of a level are matched
// by their table's primary key (when a row is full width; a projected row is matched by its
// whole value), and each difference is one line:
//   issue[id="i3"]: expected row {"id":"i3",...}, got (missing)        (or the reverse)
//   issue[id="i3"].title: expected "a", got "b"
//   issue[id="i3"].comments → comment[id="c1"].body: expected "x", got "y"
//   issue: same rows in another order: expected ["i1","i2"], got ["i2","i1"]
// Columns are named from the schema (full-width rows) or the AST's select (projected rows),
// else `#i`. At most `max_lines` lines. Returns "" exactly when TreesEqual(expected, actual);
// a difference it cannot place (e.g. a node without a row) falls back to JsonDiff's paths.
#pragma once

#include <string>
#include <vector>

#include "engine/ast.h"
#include "engine/change.h"
#include "engine/schema.h"

namespace rindle {

std::string TreeDiff(const std::vector<TreeNode>& expected, const std::vector<TreeNode>& actual,
                     const Ast& ast, const Schema& schema, int max_lines = 5);

}  // namespace rindle
