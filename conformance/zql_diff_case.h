// zql_diff_case.h — the zql-diff fetch/push cases recorded from Zero's JavaScript ZQL engine
// (../shared/fixtures/zql-diff, never copied into the project): reading one case and running it
// through our engine. Stateless.
//
// A case: {kind: "fetch"|"push", input: {sources: {table: {columns: {name: {type}},
// primaryKeys}}, sourceContents: {table: [row object]}, ast, format, pushes?: [[table, {type:
// "add"|"remove"|"edit", row, oldRow?}]]}, expected: {data, pushes?}}. Columns are all nullable;
// a source's column order is its name order. `format` and `expected.pushes` (the JS engine's own
// event shapes) are not read: the result data is the contract.
// Checks (CheckZqlDiffCase): "hydrate" — for a fetch case our hydrated data equals
// expected.data; for a push case our folded events present like the engine's materialization.
// "push N" — each push is its own write txn; after it folded events == materialization; after
// the last push the data (folded events AND materialization) equals expected.data.
// Errors (LoadZqlDiffCase): NotFound for an unreadable file; InvalidArgument
// "<file>: <$.path>: expected ..., got ..." for a wrong kind, a missing or mistyped field, an
// unknown table or column, an AST that does not parse.
// Source: ../shared/fixtures/zql-diff/ABOUT.md; issue 3 "Conformance suites".
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "conformance/case_result.h"
#include "conformance/engine_run.h"
#include "engine/ast.h"
#include "engine/schema.h"
#include "nlohmann/json.hpp"

namespace rindle::conformance {

struct ZqlDiffCase {
  std::string file;
  std::string name;  // file stem
  bool push = false;  // kind "push" (else "fetch")
  Schema schema;
  TableRows rows;
  Ast ast;
  std::vector<RowOp> pushes;
  nlohmann::json expected_data;
};

absl::StatusOr<ZqlDiffCase> ParseZqlDiffCase(const nlohmann::json& j, const std::string& file);
absl::StatusOr<ZqlDiffCase> LoadZqlDiffCase(const std::string& path);

// True when `j` looks like a zql-diff case ({kind, input, expected}) rather than a peer case.
bool LooksLikeZqlDiffCase(const nlohmann::json& j);

CaseResult CheckZqlDiffCase(const ZqlDiffCase& c);

}  // namespace rindle::conformance
