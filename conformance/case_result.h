// case_result.h — the outcome of running one conformance case through our engine. Value type.
//
// `ok` is true when every checked step matched. Otherwise `step` names the first failing step
// ("hydrate", "txn 3", "push 2", "load") and `detail` says why: a readable JSON diff
// (oracles/diff.h; "expected" is the recorded data, "got" ours) or the engine's error.
// Source: issue 3 ("check-case ... prints one line per case: pass, or the first step and a
// readable diff").
#pragma once

#include <string>

namespace rindle::conformance {

struct CaseResult {
  std::string name;        // the case's name (file stem for zql-diff cases)
  bool ok = false;
  std::string step;        // first failing step; "" when ok
  std::string detail;      // why it failed; "" when ok
  int steps_checked = 0;   // steps compared (hydrate + each txn / push)
  // The engine refused the case's own initial rows or AST (a duplicate pk, a table the schema
  // lacks): a malformed case, reported as an input error (exit 2), not a conformance failure.
  // `input_path` is the JSON path of that input ("$.rows" or "$.ast").
  bool input_error = false;
  std::string input_path;
};

}  // namespace rindle::conformance
