#include "engine/ivm/filter.h"

#include "base/status_macros.h"
#include "base/str_util.h"

namespace rindle {

absl::StatusOr<Filter> Filter::Compile(const Condition& c, const TableSpec& spec,
                                       const std::string& path, const AddExists& add_exists) {
  Filter f;
  ASSIGN_OR_RETURN(Node root, CompileNode(c, spec, path, add_exists));
  f.root_ = std::make_shared<const Node>(std::move(root));
  return f;
}

absl::StatusOr<Filter::Node> Filter::CompileNode(const Condition& c, const TableSpec& spec,
                                                 const std::string& path,
                                                 const AddExists& add_exists) {
  Node n;
  if (!ConditionHasSubquery(c)) {
    n.kind = Node::Kind::kPredicate;
    ASSIGN_OR_RETURN(n.predicate, Predicate::Compile(c, spec, path));
    return n;
  }
  switch (c.type) {
    case Condition::Type::kCorrelatedSubquery: {
      n.kind = Node::Kind::kExists;
      n.not_exists = c.not_exists;
      ASSIGN_OR_RETURN(n.edge, add_exists(c, path));
      return n;
    }
    case Condition::Type::kAnd:
    case Condition::Type::kOr: {
      n.kind = c.type == Condition::Type::kAnd ? Node::Kind::kAnd : Node::Kind::kOr;
      for (size_t i = 0; i < c.conditions.size(); ++i) {
        ASSIGN_OR_RETURN(Node kid, CompileNode(c.conditions[i], spec,
                                               StrCat(path, ".conditions[", i, "]"), add_exists));
        n.kids.push_back(std::move(kid));
      }
      return n;
    }
    case Condition::Type::kSimple:
      break;  // has no subquery: handled above
  }
  return n;
}

bool Filter::Eval(const RowValues& row, const ExistsEvaluator& exists) const {
  return root_ == nullptr || EvalNode(*root_, row, exists);
}

bool Filter::EvalNode(const Node& n, const RowValues& row, const ExistsEvaluator& exists) {
  switch (n.kind) {
    case Node::Kind::kPredicate:
      return n.predicate.Eval(row);
    case Node::Kind::kAnd:
      // Row-local conjuncts first: they are cheap and usually decide (the compiler keeps order,
      // so evaluate predicates before exists leaves).
      for (const Node& k : n.kids) {
        if (k.kind == Node::Kind::kPredicate && !EvalNode(k, row, exists)) return false;
      }
      for (const Node& k : n.kids) {
        if (k.kind != Node::Kind::kPredicate && !EvalNode(k, row, exists)) return false;
      }
      return true;
    case Node::Kind::kOr:
      for (const Node& k : n.kids) {
        if (k.kind == Node::Kind::kPredicate && EvalNode(k, row, exists)) return true;
      }
      for (const Node& k : n.kids) {
        if (k.kind != Node::Kind::kPredicate && EvalNode(k, row, exists)) return true;
      }
      return false;
    case Node::Kind::kExists:
      return exists.Exists(n.edge, row) != n.not_exists;
  }
  return false;
}

}  // namespace rindle
