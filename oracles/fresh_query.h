// fresh_query.h — the fresh-query oracle: a deliberately naive, brute-force evaluator of the
// whole Zero wire AST (SPEC §2.1 "Queries") over plain table contents. Stateless.
//
// It shares no code with the engine's pipeline — only the value, schema and AST types — so a
// view that disagrees with it points at one of the two. Every level scans its whole table.
//
// Semantics, per level (root or related subquery):
//   1. candidates: every row of the table; for a related/EXISTS child level only rows whose
//      childField cells equal the parent's parentField cells (a null parent cell never
//      correlates);
//   2. where: simple ops with SQL null semantics (any comparison with null is false, except IS /
//      IS NOT, which are null-safe equality); LIKE / NOT LIKE with `%` (any run), `_` (one code
//      point) and `\` escaping the next character, case-sensitive; ILIKE / NOT ILIKE the same
//      after lowercasing both sides (ASCII, Latin-1, Latin Extended-A, Greek, Cyrillic); IN /
//      NOT IN against an array literal whose null elements never match; and / or (empty and =
//      true, empty or = false); correlatedSubquery EXISTS / NOT EXISTS over the child level
//      (its own where, start and limit; limit 0 matches nothing; `flip` is ignored);
//   3. order: orderBy completed with the pk columns ascending (those not already ordered);
//   4. start: keep rows whose sort key is after the cursor (exclusive) or at-or-after it, over
//      the whole completed sort; a sort column the cursor row does not name compares as null
//      (Zero's undefined → null; the real engine returns no rows for `orderBy createdAt desc,
//      start {title: "x"}`, fixtures/rindle-wasm/errors.json). Cursor columns outside the sort
//      are ignored (but must exist);
//   5. limit (`one` means limit 1);
//   6. related, in AST order, to any depth; `hidden` and `aggregate: "count"` levels are
//      ordinary levels here (presentation lifts / counts them).
// Result: the raw tree — TreeNode{full positional row, relationships: (alias, children) per
// `related` entry in AST order}.
//
// Errors (InvalidArgument, naming the AST path, e.g. "$.where.conditions[1].right.value"),
// found by a static pass over the AST before any row is read, so they never depend on the data:
// unknown table (listing known ones), unknown column (listing the table's columns), a literal or
// cursor value whose kind does not fit its column's type, a column-vs-column comparison or a
// correlation across different types, LIKE on a non-string column or with a non-string
// pattern, malformed correlations. At evaluation, stored values of mixed kinds in a compared or
// sorted column are an error too. A table in the schema but absent from `tables` is empty.
// Source: SPEC §2.1 "Queries", §3 "Fresh-query evaluator".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/change.h"
#include "engine/schema.h"
#include "oracles/plain_store.h"

namespace rindle {

absl::StatusOr<std::vector<TreeNode>> FreshQuery(const Ast& ast, const PlainTables& tables,
                                                 const Schema& schema);

}  // namespace rindle
