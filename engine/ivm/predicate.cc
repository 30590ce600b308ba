#include "base/str_util.h"
#include "engine/ivm/predicate.h"

#include "absl/strings/str_cat.h"
#include "engine/ivm/like.h"
#include "base/status_macros.h"

namespace rindle {

struct Predicate::Node {
  Condition::Type type = Condition::Type::kAnd;
  SimpleOp op = SimpleOp::kEq;
  int left_col = -1, right_col = -1;
  Value left_lit, right_lit;
  std::vector<Value> list;
  std::vector<Node> children;
};

Predicate::Predicate() = default;

namespace {

absl::StatusOr<Predicate::Node> CompileNode(const Condition& c, const TableSpec& spec,
                                            std::string_view path);
}

bool EvalSimple(SimpleOp op, const Value& l, const Value& r) {
  switch (op) {
    case SimpleOp::kIs: return CompareValues(l, r) == 0;
    case SimpleOp::kIsNot: return CompareValues(l, r) != 0;
    default: break;
  }
  if (l.is_null() || r.is_null()) return false;
  switch (op) {
    case SimpleOp::kEq: return CompareValues(l, r) == 0;
    case SimpleOp::kNe: return CompareValues(l, r) != 0;
    case SimpleOp::kLt: return CompareValues(l, r) < 0;
    case SimpleOp::kLe: return CompareValues(l, r) <= 0;
    case SimpleOp::kGt: return CompareValues(l, r) > 0;
    case SimpleOp::kGe: return CompareValues(l, r) >= 0;
    case SimpleOp::kLike:
    case SimpleOp::kNotLike:
    case SimpleOp::kILike:
    case SimpleOp::kNotILike: {
      if (!l.is_string() || !r.is_string()) return false;
      const bool ci = op == SimpleOp::kILike || op == SimpleOp::kNotILike;
      const bool m = SqlLikeMatch(l.as_string(), r.as_string(), ci);
      return (op == SimpleOp::kLike || op == SimpleOp::kILike) ? m : !m;
    }
    default: return false;
  }
}

struct PredicateEval {
  static bool Eval(const Predicate::Node& n, const RowValues& row) {
    switch (n.type) {
      case Condition::Type::kAnd:
        for (const auto& c : n.children) {
          if (!Eval(c, row)) return false;
        }
        return true;
      case Condition::Type::kOr:
        for (const auto& c : n.children) {
          if (Eval(c, row)) return true;
        }
        return false;
      case Condition::Type::kSimple: {
        const Value& l = n.left_col >= 0 ? row[n.left_col] : n.left_lit;
        if (n.op == SimpleOp::kIn || n.op == SimpleOp::kNotIn) {
          if (l.is_null()) return false;
          bool found = false;
          for (const Value& v : n.list) {
            if (!v.is_null() && CompareValues(l, v) == 0) { found = true; break; }
          }
          return n.op == SimpleOp::kIn ? found : !found;
        }
        const Value& r = n.right_col >= 0 ? row[n.right_col] : n.right_lit;
        return EvalSimple(n.op, l, r);
      }
      case Condition::Type::kCorrelatedSubquery: return false;
    }
    return false;
  }
};

namespace {
absl::StatusOr<Predicate::Node> CompileNode(const Condition& c, const TableSpec& spec,
                                            std::string_view path) {
  Predicate::Node n;
  n.type = c.type;
  switch (c.type) {
    case Condition::Type::kSimple: {
      n.op = c.op;
      auto resolve = [&](const ValuePosition& vp, int& col, Value& lit,
                         std::string_view side) -> absl::Status {
        if (vp.kind == ValuePosition::Kind::kColumn) {
          col = spec.ColumnIndex(vp.column);
          if (col < 0) {
            return absl::InvalidArgumentError(StrCat(path, ".", side, ".name: unknown column \"",
                                                           vp.column, "\""));
          }
        } else {
          lit = vp.literal;
        }
        return absl::OkStatus();
      };
      RETURN_IF_ERROR(resolve(c.left, n.left_col, n.left_lit, "left"));
      if (c.right.kind == ValuePosition::Kind::kLiteral && c.right.is_list) {
        n.list = c.right.list;
      } else {
        RETURN_IF_ERROR(resolve(c.right, n.right_col, n.right_lit, "right"));
      }
      return n;
    }
    case Condition::Type::kAnd:
    case Condition::Type::kOr:
      for (size_t i = 0; i < c.conditions.size(); ++i) {
        ASSIGN_OR_RETURN(Predicate::Node child,
                         CompileNode(c.conditions[i], spec, StrCat(path, ".conditions[", i, "]")));
        n.children.push_back(std::move(child));
      }
      return n;
    case Condition::Type::kCorrelatedSubquery:
      return absl::InvalidArgumentError(StrCat(
          path, ": a correlatedSubquery (EXISTS / NOT EXISTS) cannot appear here: a row-local "
                "condition (comparisons under and/or) is required"));
  }
  return n;
}
}  // namespace

absl::StatusOr<Predicate> Predicate::Compile(const Condition& c, const TableSpec& spec,
                                             std::string_view path) {
  ASSIGN_OR_RETURN(Node n, CompileNode(c, spec, path));
  Predicate p;
  p.root_ = std::make_shared<const Node>(std::move(n));
  return p;
}

bool Predicate::Eval(const RowValues& row) const {
  if (root_ == nullptr) return true;
  return PredicateEval::Eval(*root_, row);
}

}  // namespace rindle
