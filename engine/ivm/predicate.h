// predicate.h — a compiled row-local condition (simple comparisons under and/or) evaluated on one
// full positional row of a known table. Stateless after construction.
//
// SQL semantics (SPEC §2.1): a comparison involving null is false, except IS / IS NOT (null-safe
// equality); LIKE/ILIKE via like.h; IN / NOT IN over an array literal (false for a null left side;
// NOT IN is false when the left side is null). Compile() resolves column names to indices and
// rejects a correlatedSubquery with InvalidArgument naming the path (live queries evaluate EXISTS
// through filter.h; a place that needs a row-local condition, such as seed 000's writable-scope
// predicate, uses Predicate directly). Callers validate the condition first (ValidateCondition).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/schema.h"

namespace rindle {

class Predicate {
 public:
  // Always-true predicate.
  Predicate();
  static absl::StatusOr<Predicate> Compile(const Condition& c, const TableSpec& spec,
                                           std::string_view path);
  bool Eval(const RowValues& row) const;
  bool always_true() const { return root_ == nullptr; }

  struct Node;  // compiled form (predicate.cc)

 private:
  std::shared_ptr<const Node> root_;
};

// Evaluates one simple comparison on two values (exposed for tests and the cursor code).
bool EvalSimple(SimpleOp op, const Value& left, const Value& right);

}  // namespace rindle
