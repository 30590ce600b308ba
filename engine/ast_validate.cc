#include "engine/ast_validate.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/str_util.h"

namespace rindle {
namespace {

absl::Status Err(std::string_view path, std::string_view msg) {
  return absl::InvalidArgumentError(StrCat(path, ": ", msg));
}

absl::StatusOr<int> ResolveColumn(const std::string& col, std::string_view table,
                                  const TableSpec& spec, std::string_view path) {
  const int idx = spec.ColumnIndex(col);
  if (idx < 0) {
    return Err(path, StrCat("unknown column \"", col, "\" in table \"", table,
                            "\" (columns: ", spec.ColumnNames(), ")"));
  }
  return idx;
}

bool LiteralFitsColumn(const TableSpec& spec, int col, const Value& v) {
  if (v.is_null()) return true;  // comparisons with null are legal (false / IS)
  switch (spec.columns[col].type) {
    case ColumnType::kString:
    case ColumnType::kJson: return v.is_string();
    case ColumnType::kNumber: return v.is_number();
    case ColumnType::kBoolean: return v.is_bool();
  }
  return false;
}

bool IsStringType(ColumnType t) { return t == ColumnType::kString || t == ColumnType::kJson; }

bool IsLikeOp(SimpleOp op) {
  return op == SimpleOp::kLike || op == SimpleOp::kNotLike || op == SimpleOp::kILike ||
         op == SimpleOp::kNotILike;
}

std::string TypeMismatch(const TableSpec& spec, int col, const Value& v) {
  return StrCat("type mismatch: column \"", spec.columns[col].name, "\" is ",
                ColumnTypeName(spec.columns[col].type), ", got ", v.DebugString());
}

// The literal on `side` compared with column `col` (-1: no column on the other side): every
// element of an IN list, or the single literal, fits the column; a LIKE pattern is a string.
absl::Status CheckLiteralSide(const Condition& c, const TableSpec& spec, int col,
                              const ValuePosition& lit, std::string_view side,
                              std::string_view path) {
  if (col < 0 || lit.kind != ValuePosition::Kind::kLiteral) return absl::OkStatus();
  const std::string lpath = StrCat(path, ".", side, ".value");
  if (lit.is_list) {
    for (size_t i = 0; i < lit.list.size(); ++i) {
      if (!LiteralFitsColumn(spec, col, lit.list[i])) {
        return Err(StrCat(lpath, "[", i, "]"), TypeMismatch(spec, col, lit.list[i]));
      }
    }
    return absl::OkStatus();
  }
  if (IsLikeOp(c.op) && !lit.literal.is_string() && !lit.literal.is_null()) {
    return Err(lpath, StrCat(SimpleOpName(c.op), " expects a string pattern, got ",
                             lit.literal.DebugString()));
  }
  if (!LiteralFitsColumn(spec, col, lit.literal)) {
    return Err(lpath, TypeMismatch(spec, col, lit.literal));
  }
  return absl::OkStatus();
}

absl::Status ValidateSimple(const Condition& c, std::string_view table, const TableSpec& spec,
                            std::string_view path) {
  int lcol = -1, rcol = -1;
  if (c.left.kind == ValuePosition::Kind::kColumn) {
    ASSIGN_OR_RETURN(lcol, ResolveColumn(c.left.column, table, spec, StrCat(path, ".left.name")));
  }
  if (c.right.kind == ValuePosition::Kind::kColumn) {
    ASSIGN_OR_RETURN(rcol,
                     ResolveColumn(c.right.column, table, spec, StrCat(path, ".right.name")));
  }
  if (lcol >= 0 && rcol >= 0) {
    const ColumnType a = spec.columns[lcol].type, b = spec.columns[rcol].type;
    if (a != b && !(IsStringType(a) && IsStringType(b))) {
      return Err(path, StrCat("cannot compare column \"", c.left.column, "\" (",
                              ColumnTypeName(a), ") with column \"", c.right.column, "\" (",
                              ColumnTypeName(b), ")"));
    }
  }
  RETURN_IF_ERROR(CheckLiteralSide(c, spec, lcol, c.right, "right", path));
  RETURN_IF_ERROR(CheckLiteralSide(c, spec, rcol, c.left, "left", path));
  if (IsLikeOp(c.op)) {
    const int col = lcol >= 0 ? lcol : rcol;
    if (col >= 0 && !IsStringType(spec.columns[col].type)) {
      return Err(path, StrCat(SimpleOpName(c.op), " needs a string column, \"",
                              spec.columns[col].name, "\" is ",
                              ColumnTypeName(spec.columns[col].type)));
    }
  }
  return absl::OkStatus();
}

// A related or EXISTS subquery under `rpath`: its child table, each correlation pair (resolved
// on both sides, of one type), then the subquery itself.
absl::Status ValidateCorrelatedSubquery(const CorrelatedSubquery& rel, std::string_view table,
                                        const TableSpec& spec, const TableLookup& lookup,
                                        std::string_view rpath) {
  const Ast& sub = *rel.subquery;
  const TableSpec* child = lookup(sub.table);
  if (child == nullptr) {
    return Err(StrCat(rpath, ".subquery.table"), StrCat("unknown table \"", sub.table, "\""));
  }
  const auto& corr = rel.correlation;
  for (size_t i = 0; i < corr.parent_field.size(); ++i) {
    ASSIGN_OR_RETURN(int p, ResolveColumn(corr.parent_field[i], table, spec,
                                          StrCat(rpath, ".correlation.parentField[", i, "]")));
    ASSIGN_OR_RETURN(int ch, ResolveColumn(corr.child_field[i], sub.table, *child,
                                           StrCat(rpath, ".correlation.childField[", i, "]")));
    if (spec.columns[p].type != child->columns[ch].type) {
      return Err(StrCat(rpath, ".correlation"),
                 StrCat("parentField \"", corr.parent_field[i], "\" (",
                        ColumnTypeName(spec.columns[p].type), ") and childField \"",
                        corr.child_field[i], "\" (", ColumnTypeName(child->columns[ch].type),
                        ") differ in type"));
    }
  }
  return ValidateAst(sub, lookup, StrCat(rpath, ".subquery"));
}

// The path of the first correlatedSubquery in `c`, or "" when there is none.
std::string FirstSubqueryPath(const Condition& c, std::string_view path) {
  if (c.type == Condition::Type::kCorrelatedSubquery) return std::string(path);
  if (c.type == Condition::Type::kAnd || c.type == Condition::Type::kOr) {
    for (size_t i = 0; i < c.conditions.size(); ++i) {
      std::string p = FirstSubqueryPath(c.conditions[i], StrCat(path, ".conditions[", i, "]"));
      if (!p.empty()) return p;
    }
  }
  return "";
}

absl::Status ValidateOrderBy(const Ast& ast, const TableSpec& spec, std::string_view path) {
  std::set<std::string> seen_order;
  for (size_t i = 0; i < ast.order_by.size(); ++i) {
    const std::string opath = StrCat(path, ".orderBy[", i, "]");
    RETURN_IF_ERROR(ResolveColumn(ast.order_by[i].column, ast.table, spec, opath).status());
    if (!seen_order.insert(ast.order_by[i].column).second) {
      return Err(opath, StrCat("column \"", ast.order_by[i].column, "\" is ordered twice"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateStart(const Ast& ast, const TableSpec& spec, std::string_view path) {
  if (!ast.start) return absl::OkStatus();
  for (const auto& [col, v] : ast.start->row) {
    const std::string spath = StrCat(path, ".start.row.", col);
    ASSIGN_OR_RETURN(int idx, ResolveColumn(col, ast.table, spec, spath));
    if (!LiteralFitsColumn(spec, idx, v)) {
      return Err(spath, StrCat("type mismatch: column \"", col, "\" is ",
                               ColumnTypeName(spec.columns[idx].type), ", got ",
                               v.DebugString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateCondition(const Condition& c, std::string_view table, const TableSpec& spec,
                               const TableLookup& lookup, std::string_view path) {
  switch (c.type) {
    case Condition::Type::kSimple:
      return ValidateSimple(c, table, spec, path);
    case Condition::Type::kAnd:
    case Condition::Type::kOr:
      for (size_t i = 0; i < c.conditions.size(); ++i) {
        RETURN_IF_ERROR(ValidateCondition(c.conditions[i], table, spec, lookup,
                                          StrCat(path, ".conditions[", i, "]")));
      }
      return absl::OkStatus();
    case Condition::Type::kCorrelatedSubquery:
      return ValidateCorrelatedSubquery(c.related, table, spec, lookup,
                                        StrCat(path, ".related"));
  }
  return absl::OkStatus();
}

absl::Status ValidateRowLocalCondition(const Condition& c, std::string_view table,
                                       const TableSpec& spec, std::string_view path) {
  const std::string sub = FirstSubqueryPath(c, path);
  if (!sub.empty()) {
    return Err(sub, "a correlated subquery (EXISTS / NOT EXISTS) is not allowed in a row-local "
                    "predicate (expected only simple, and, or conditions on the row's own "
                    "columns)");
  }
  const TableLookup none = [](std::string_view) -> const TableSpec* { return nullptr; };
  return ValidateCondition(c, table, spec, none, path);
}

absl::Status ValidateAst(const Ast& ast, const TableLookup& lookup, std::string_view path) {
  const TableSpec* spec = lookup(ast.table);
  if (spec == nullptr) {
    return Err(StrCat(path, ".table"), StrCat("unknown table \"", ast.table, "\""));
  }
  if (ast.where) {
    RETURN_IF_ERROR(
        ValidateCondition(*ast.where, ast.table, *spec, lookup, StrCat(path, ".where")));
  }
  RETURN_IF_ERROR(ValidateOrderBy(ast, *spec, path));
  RETURN_IF_ERROR(ValidateStart(ast, *spec, path));
  if (ast.select) {
    for (size_t i = 0; i < ast.select->size(); ++i) {
      RETURN_IF_ERROR(ResolveColumn((*ast.select)[i], ast.table, *spec,
                                    StrCat(path, ".select[", i, "]"))
                          .status());
    }
  }
  for (size_t i = 0; i < ast.related.size(); ++i) {
    RETURN_IF_ERROR(ValidateCorrelatedSubquery(ast.related[i], ast.table, *spec, lookup,
                                               StrCat(path, ".related[", i, "]")));
  }
  return absl::OkStatus();
}

}  // namespace rindle
