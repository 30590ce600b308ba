// peer_case.h — the rindle-wasm differential case format: reading and writing the input
// (`rindle-peer-case/1`, case-NNNN.json) and reading the recorded result
// (`rindle-peer-expected/1`, case-NNNN.expected.json). Stateless codec.
//
// Input: {format, name, schema: {tables}, rows: {table: [row object]}, ast, txns: [[op]]} with
// op {"op":"add"|"remove","table","row"} or {"op":"edit","table","old","row"}; a row object
// gives every non-null column by name (a missing column is null). Other keys (generator, query,
// pkEdits) are descriptive and ignored. Rows become positional against the schema's columns.
// Expected: {format, hydrate: {data}, txns: [{data}] (one per input txn), checks: {mismatches}}.
// Each `checks.mismatches` entry is {"step": "hydrate"} or {"step": "txn", "txn": i} with
// `requery`: the real engine's fresh one-shot query at that step, which is the right answer
// there (its rows present only the columns the query selects; case_check.h compares by
// projection). Event streams (`snapshot`, `commit`) are the real engine's and are not read.
// Errors: InvalidArgument "<file>: <$.json.path>: <what was expected>, got <what>" — a wrong
// format tag, a missing or mistyped field, an unknown table or column, a value that is not a
// JSON scalar, an AST that does not parse (ast_json.h), an expected file whose txn count differs
// from its input's. NotFound when a file cannot be read.
// Source: fixtures/README.md ("rindle-wasm/ cases").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "conformance/engine_run.h"
#include "engine/ast.h"
#include "engine/schema.h"
#include "nlohmann/json.hpp"

namespace rindle::conformance {

inline constexpr char kPeerCaseFormat[] = "rindle-peer-case/1";
inline constexpr char kPeerExpectedFormat[] = "rindle-peer-expected/1";

struct PeerCase {
  std::string file;      // where it was read from ("" when built in memory)
  std::string name;
  Schema schema;
  nlohmann::json schema_json;  // as given (tables in the app-schema format)
  TableRows rows;              // table name order
  nlohmann::json ast_json;
  Ast ast;
  std::vector<std::vector<RowOp>> txns;
  nlohmann::json extra = nlohmann::json::object();  // descriptive keys (generator, query...)
};

struct ExpectedStep {
  nlohmann::json data;
  std::optional<nlohmann::json> requery;  // set when checks.mismatches names this step
};

struct PeerExpected {
  std::string file;
  ExpectedStep hydrate;
  std::vector<ExpectedStep> txns;
};

absl::StatusOr<PeerCase> ParsePeerCase(const nlohmann::json& j, const std::string& file);
absl::StatusOr<PeerCase> LoadPeerCase(const std::string& path);
// `for_case` fixes how many txns the expected file must hold.
absl::StatusOr<PeerExpected> ParsePeerExpected(const nlohmann::json& j, const std::string& file,
                                               const PeerCase& for_case);
absl::StatusOr<PeerExpected> LoadPeerExpected(const std::string& path, const PeerCase& for_case);

// "dir/case-0007.json" → "dir/case-0007.expected.json".
std::string ExpectedPathFor(const std::string& input_path);

// The input as JSON (rows as objects without null cells), the format LoadPeerCase reads.
nlohmann::json PeerCaseToJson(const PeerCase& c);

// Keyed row object → positional row of `spec` (`where` names it in errors).
absl::StatusOr<RowValues> RowFromObject(const TableSpec& spec, const nlohmann::json& obj,
                                        const std::string& where);
// Positional row → keyed object giving every non-null column.
nlohmann::json RowToObject(const TableSpec& spec, const RowValues& row);

}  // namespace rindle::conformance
