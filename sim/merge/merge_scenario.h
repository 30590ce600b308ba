// merge_scenario.h — the scenario of the `--target merge` campaign (issue 14): one engine Db over
// the app schema, its merge driven by a flat list of actions. Stateless value types and their
// JSON form (read strictly: a bad file is an input error, exit 2 at the CLI).
//
// JSON (keys in any order; unknown keys are errors):
//   {"rindle_merge_scenario": 1, "target": "merge", "seed": N,
//    "expect": "pass"|"fail", "property": "<name>" (with expect fail), "note": "...",
//    "actions": [ACTION...]}
//   ACTION = {"op": OP, ...fields, "error": "<kind>" (optional: the error path the generator
//            meant to exercise; only counted, never an expectation)}
//   OP and fields:
//     "query"            qid, ast (wire AST JSON)
//     "add_room"         table, room, scope {"kind": "all"|"none"} | {"kind": "colEq", "col": I,
//                        "value": V} | {"kind": "predicate", "where": CONDITION}
//     "remove_room"      table, room
//     "server_batch"     source, deltas [OP_ROW...], inside [ACTION of op write|drop ...]
//     "write"            ops [OP_ROW...]            (one optimistic write txn)
//     "hold_back"        table, source, row
//     "hold_back_absent" table, source, row         (the pre-image row)
//     "drop"             table, source, row         (the probe)
//     "freeze"           table, source
//     "writable_matches" table, source (the room), row
//     "provenance"       table, row
//   OP_ROW = {"table": T, "type": "add"|"remove"|"edit", "row": [...], "old_row": [...] (edit)}
// Errors: InvalidArgument naming the JSON path (e.g. "$.actions[3].deltas[0].row").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/value.h"
#include "nlohmann/json.hpp"
#include "oracles/merge_model.h"

namespace rindle::sim {

inline constexpr int kMergeScenarioFormat = 1;

struct MergeAction {
  enum class Op {
    kQuery, kAddRoom, kRemoveRoom, kServerBatch, kWrite, kHoldBack, kHoldBackAbsent, kDrop,
    kFreeze, kWritableMatches, kProvenance
  };
  Op op = Op::kWrite;
  std::string table;
  std::string source;  // room / source key
  RowValues row;
  int64_t qid = 0;
  nlohmann::json ast;              // kQuery: the wire AST
  ModelScope scope;                // kAddRoom
  std::vector<ModelOp> ops;        // kWrite: the txn; kServerBatch: the deltas
  std::vector<MergeAction> inside; // kServerBatch: writes and drops inside the cycle
  std::string error;               // the intended error path ("" = none)
};

struct MergeScenario {
  uint64_t seed = 0;
  bool expect_fail = false;
  std::string property;
  std::string note;
  std::vector<MergeAction> actions;
};

std::string_view MergeOpName(MergeAction::Op op);

nlohmann::json MergeScenarioToJson(const MergeScenario& s);
absl::StatusOr<MergeScenario> MergeScenarioFromJson(const nlohmann::json& j);
// Reads and parses a file; errors name the path.
absl::StatusOr<MergeScenario> ReadMergeScenarioFile(const std::string& path);
// True when `j` is a merge scenario ("target": "merge").
bool IsMergeScenarioJson(const nlohmann::json& j);

nlohmann::json ModelOpToJson(const ModelOp& op);
nlohmann::json ModelScopeToJson(const ModelScope& s);

}  // namespace rindle::sim
