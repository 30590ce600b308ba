// filter.h — a level's compiled `where`: row-local comparisons under and/or, with correlated
// EXISTS / NOT EXISTS leaves anywhere in the tree (SPEC §2.1; ARCHITECTURE.md §7 Filter/Exists).
// Stateless after construction.
//
// Maximal subtrees without a subquery compile to one Predicate (predicate.h); an EXISTS leaf is
// a number — the index of the level's exists edge (level.h) — evaluated through the
// ExistsEvaluator the caller passes, so the filter itself never reads a table. `flip` is a
// planner hint and is ignored: it never changes a result. SQL semantics as predicate.h; an empty
// `and` is true, an empty `or` false.
//
// Errors (Compile): whatever Predicate::Compile reports for a leaf, naming `path`; `add_exists`
// may fail (unknown child table, bad correlation) and its Status is returned unchanged.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "engine/ivm/predicate.h"
#include "engine/schema.h"

namespace rindle {

// Answers "does at least one child correlate with `row` through exists edge `edge`?" in the
// current (post-write) state of the tables.
class ExistsEvaluator {
 public:
  virtual ~ExistsEvaluator() = default;
  virtual bool Exists(int edge, const RowValues& row) const = 0;
};

class Filter {
 public:
  // Registers one correlatedSubquery leaf (its path given) and returns its edge index.
  using AddExists = std::function<absl::StatusOr<int>(const Condition& c, const std::string& path)>;

  Filter() = default;  // always true
  static absl::StatusOr<Filter> Compile(const Condition& c, const TableSpec& spec,
                                        const std::string& path, const AddExists& add_exists);

  bool Eval(const RowValues& row, const ExistsEvaluator& exists) const;
  bool always_true() const { return root_ == nullptr; }

 private:
  struct Node {
    enum class Kind { kPredicate, kAnd, kOr, kExists };
    Kind kind = Kind::kPredicate;
    Predicate predicate;       // kPredicate
    std::vector<Node> kids;    // kAnd / kOr
    int edge = -1;             // kExists
    bool not_exists = false;   // kExists
  };
  static absl::StatusOr<Node> CompileNode(const Condition& c, const TableSpec& spec,
                                          const std::string& path, const AddExists& add_exists);
  static bool EvalNode(const Node& n, const RowValues& row, const ExistsEvaluator& exists);

  std::shared_ptr<const Node> root_;
};

}  // namespace rindle
