#include "base/str_util.h"
#include "engine/ast.h"

#include <set>

namespace rindle {

std::string_view SimpleOpName(SimpleOp op) {
  switch (op) {
    case SimpleOp::kEq: return "=";
    case SimpleOp::kNe: return "!=";
    case SimpleOp::kLt: return "<";
    case SimpleOp::kLe: return "<=";
    case SimpleOp::kGt: return ">";
    case SimpleOp::kGe: return ">=";
    case SimpleOp::kIs: return "IS";
    case SimpleOp::kIsNot: return "IS NOT";
    case SimpleOp::kLike: return "LIKE";
    case SimpleOp::kNotLike: return "NOT LIKE";
    case SimpleOp::kILike: return "ILIKE";
    case SimpleOp::kNotILike: return "NOT ILIKE";
    case SimpleOp::kIn: return "IN";
    case SimpleOp::kNotIn: return "NOT IN";
  }
  return "?";
}

bool ConditionHasSubquery(const Condition& c) {
  switch (c.type) {
    case Condition::Type::kSimple: return false;
    case Condition::Type::kCorrelatedSubquery: return true;
    case Condition::Type::kAnd:
    case Condition::Type::kOr:
      for (const auto& x : c.conditions) {
        if (ConditionHasSubquery(x)) return true;
      }
      return false;
  }
  return false;
}

namespace {
void CollectTables(const Ast& ast, std::set<std::string>& out);
void CollectConditionTables(const Condition& c, std::set<std::string>& out) {
  if (c.type == Condition::Type::kCorrelatedSubquery) {
    CollectTables(*c.related.subquery, out);
  } else {
    for (const auto& x : c.conditions) CollectConditionTables(x, out);
  }
}
void CollectTables(const Ast& ast, std::set<std::string>& out) {
  out.insert(ast.table);
  if (ast.where) CollectConditionTables(*ast.where, out);
  for (const auto& r : ast.related) CollectTables(*r.subquery, out);
}
}  // namespace

std::vector<std::string> AstTables(const Ast& ast) {
  std::set<std::string> s;
  CollectTables(ast, s);
  return {s.begin(), s.end()};
}

}  // namespace rindle
