// case_check.h — runs one rindle-wasm peer case (peer_case.h) through our engine and compares
// it with what the real engine recorded. Stateless (each call builds its own Db).
//
// Steps: "hydrate" (tables registered, initial rows written in one txn, the query registered),
// then "txn 0", "txn 1", ... (one write txn each). At every step:
//   1. events==view: our change events folded in order (engine/ivm/view.h) must present exactly
//      like the engine's own materialization of the query;
//   2. data: that presentation (engine/presentation.h) must equal the recorded `data`, or,
//      where the recording's checks.mismatches names the step (the real engine's incremental
//      result was wrong there), the recorded fresh `requery` — compared by projection: every
//      column the requery presents must match, columns it omits (sort columns outside `select`)
//      are not compared, row counts and order must match.
// The first failing step ends the case. The engine refusing the case's initial rows or its AST
// (anything but Unimplemented: a duplicate pk, a table the schema lacks) is an input error
// (CaseResult::input_error with the JSON path "$.rows" or "$.ast"); an unsupported feature, a
// refused write (the real engine recorded it) or an event that does not fold fails that step
// with the error. Never throws.
// Source: fixtures/README.md ("rindle-wasm/ cases"); issue 3 "Conformance suites".
#pragma once

#include "conformance/case_result.h"
#include "conformance/peer_case.h"
#include "nlohmann/json.hpp"

namespace rindle::conformance {

CaseResult CheckPeerCase(const PeerCase& c, const PeerExpected& expected);

// `actual` reduced to the object keys `shape` has, recursively (arrays element by element;
// extra elements are kept so length differences still show). Used to compare against a
// requery, which presents fewer columns than view data.
nlohmann::json ProjectOnto(const nlohmann::json& actual, const nlohmann::json& shape);

}  // namespace rindle::conformance
