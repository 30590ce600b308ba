// engine_run.h — drives one query through our engine (engine/db.h) the way a conformance case
// describes it, and presents the result two ways. Holds state: a Db, the live query, and a
// ResultView folded from the query's change events.
//
// Sequence: Init(schema, initial rows) registers every table (name order) and writes the initial
// rows in ONE transaction; Register(ast) registers the query (qid 1) and folds its snapshot;
// Apply(ops) runs one write transaction and folds the commit's events for the query.
// Presentations (engine/presentation.h, the `data` of fixtures/README.md):
//   Folded()        — our change events folded in order (engine/ivm/view.h ResultView);
//   Materialized()  — the engine's own materialization of the live query (Db::QueryResult).
// Both must equal the recorded data; when they differ from each other the engine's event stream
// disagrees with its own state (the `events==view` property).
// Errors: Status from the engine (an unknown table, a failed precondition, an AST the engine
// rejects or does not support yet), with the op index prefixed ("op 2 (edit comment): ...");
// a view that cannot fold an event is FailedPrecondition naming the event.
// Source: fixtures/README.md ("rindle-wasm cases"), zql-diff ABOUT.md, SPEC §2.1.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/db.h"
#include "engine/schema.h"
#include "engine/ivm/view.h"
#include "nlohmann/json.hpp"

namespace rindle::conformance {

// One base-table write of a case: add `row`, remove `row`, or edit `old_row` → `row`.
struct RowOp {
  enum class Kind { kAdd, kRemove, kEdit };
  Kind kind = Kind::kAdd;
  std::string table;
  RowValues row;
  RowValues old_row;  // kEdit only
};

std::string_view RowOpKindName(RowOp::Kind kind);

// Initial contents: (table, rows) in the order they are written.
using TableRows = std::vector<std::pair<std::string, std::vector<RowValues>>>;

class EngineRun {
 public:
  EngineRun() = default;
  EngineRun(const EngineRun&) = delete;
  EngineRun& operator=(const EngineRun&) = delete;

  absl::Status Init(const Schema& schema, const TableRows& rows);
  absl::Status Register(const Ast& ast);
  absl::Status Apply(const std::vector<RowOp>& ops);

  absl::StatusOr<nlohmann::json> Folded() const;
  absl::StatusOr<nlohmann::json> Materialized() const;

  // Compares Folded() with Materialized(): "" when equal, else a readable diff
  // (expected = materialization, got = folded events).
  absl::StatusOr<std::string> EventsVsView() const;

 private:
  static constexpr int64_t kQueryId = 1;
  Db db_;
  Ast ast_;
  std::unique_ptr<ResultView> view_;
};

}  // namespace rindle::conformance
