#include "oracles/fresh_query.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "base/str_util.h"
#include "oracles/like_match.h"

namespace rindle {
namespace {

// A lazily rendered AST path ("$.where.conditions[1].left"): a chain of stack nodes, each
// pointing at its parent, rendered only when an error message needs it (the evaluator walks
// every row, so building strings eagerly would dominate its cost).
class Path {
 public:
  static Path Root() { return Path(nullptr, "$", -1); }
  Path Key(std::string_view seg) const { return Path(this, seg, -1); }
  Path Index(std::string_view seg, size_t i) const {
    return Path(this, seg, static_cast<int64_t>(i));
  }
  std::string Str() const {
    std::string out = parent_ == nullptr ? std::string() : parent_->Str();
    out.append(seg_.data(), seg_.size());
    if (index_ >= 0) out.append("[").append(std::to_string(index_)).append("]");
    return out;
  }

 private:
  Path(const Path* parent, std::string_view seg, int64_t index)
      : parent_(parent), seg_(seg), index_(index) {}
  const Path* parent_;
  std::string_view seg_;
  int64_t index_;
};

// ---------------------------------------------------------------------------------------------
// Evaluation

class Evaluator {
 public:
  Evaluator(const PlainTables& tables, const Schema& schema) : tables_(tables), schema_(schema) {}

  // One level: candidate rows (correlation-constrained), filtered, ordered, started, limited.
  // `constraint` pairs a child column index with the value it must equal.
  absl::StatusOr<std::vector<const RowValues*>> LevelRows(
      const Ast& ast, const std::vector<std::pair<int, Value>>& constraint,
      const Path& path) {
    ASSIGN_OR_RETURN(const TableSpec* spec, SpecOf(ast.table, path));
    std::vector<const RowValues*> rows;
    auto tit = tables_.find(ast.table);
    if (tit != tables_.end()) {
      for (const RowValues* rowp : Candidates(ast.table, tit->second, constraint)) {
        const RowValues& row = *rowp;
        bool ok = true;
        for (const auto& [col, v] : constraint) {
          if (row[col].is_null() || !ComparableKinds(row[col], v) ||
              CompareValues(row[col], v) != 0) {
            ok = false;
            break;
          }
        }
        if (!ok) continue;
        if (ast.where) {
          ASSIGN_OR_RETURN(bool keep, EvalCondition(*ast.where, ast.table, *spec, row,
                                                    path.Key(".where")));
          if (!keep) continue;
        }
        rows.push_back(&row);
      }
    }
    // Completed sort.
    std::vector<std::pair<int, bool>> sort;  // column, desc
    for (size_t i = 0; i < ast.order_by.size(); ++i) {
      ASSIGN_OR_RETURN(int c, ColumnOf(ast.table, *spec, ast.order_by[i].column,
                                       path.Index(".orderBy", i)));
      sort.emplace_back(c, ast.order_by[i].desc);
    }
    for (int pkc : spec->primary_key) {
      bool present = false;
      for (const auto& s : sort) present = present || s.first == pkc;
      if (!present) sort.emplace_back(pkc, false);
    }
    // Reject kind-mixed sort columns up front (a schema error, SPEC §2.1).
    for (const auto& [col, desc] : sort) {
      const Value* first = nullptr;
      for (const RowValues* r : rows) {
        const Value& v = (*r)[col];
        if (v.is_null()) continue;
        if (first == nullptr) {
          first = &v;
        } else if (!ComparableKinds(*first, v)) {
          return absl::InvalidArgumentError(StrCat(
              path.Str(), ": table \"", ast.table, "\": column \"", spec->columns[col].name,
              "\" mixes value kinds (", first->DebugString(), " vs ", v.DebugString(), ")"));
        }
      }
    }
    std::stable_sort(rows.begin(), rows.end(), [&](const RowValues* a, const RowValues* b) {
      for (const auto& [col, desc] : sort) {
        int c = CompareValues((*a)[col], (*b)[col]);
        if (c != 0) return desc ? c > 0 : c < 0;
      }
      return false;
    });
    if (ast.start) {
      std::vector<std::pair<int, std::pair<Value, bool>>> cursor;  // col, (value, desc)
      // Over the whole completed sort; a sort column the cursor does not give compares as null
      // (Zero normalizes an undefined cursor field to null; the real engine agrees:
      // fixtures/rindle-wasm/errors.json "start cursor without the sort columns").
      for (const auto& [col, desc] : sort) {
        Value v;
        for (const auto& [name, given] : ast.start->row) {
          if (spec->columns[col].name == name) v = given;
        }
        cursor.push_back({col, {v, desc}});
      }
      std::vector<const RowValues*> kept;
      for (const RowValues* r : rows) {
        int cmp = 0;
        for (const auto& [col, vd] : cursor) {
          if (!ComparableKinds((*r)[col], vd.first)) {
            return absl::InvalidArgumentError(StrCat(
                path.Str(), ".start.row.", spec->columns[col].name, ": type mismatch with column \"",
                spec->columns[col].name, "\" of table \"", ast.table, "\""));
          }
          int c = CompareValues((*r)[col], vd.first);
          if (vd.second) c = -c;
          if (c != 0) {
            cmp = c;
            break;
          }
        }
        if (cmp > 0 || (cmp == 0 && !ast.start->exclusive)) kept.push_back(r);
      }
      rows = std::move(kept);
    }
    std::optional<int64_t> limit = ast.limit;
    if (ast.one) limit = limit ? std::min<int64_t>(*limit, 1) : 1;
    if (limit && static_cast<int64_t>(rows.size()) > *limit) {
      rows.resize(static_cast<size_t>(*limit));
    }
    return rows;
  }

  // Resolves every table and column the AST names and checks literal kinds against column
  // types, so that errors do not depend on the data (an empty table still rejects a bad AST).
  absl::Status StaticCheck(const Ast& ast, const Path& path) {
    ASSIGN_OR_RETURN(const TableSpec* spec, SpecOf(ast.table, path));
    if (ast.where) RETURN_IF_ERROR(CheckCondition(*ast.where, ast.table, *spec, path.Key(".where")));
    for (size_t i = 0; i < ast.order_by.size(); ++i) {
      RETURN_IF_ERROR(
          ColumnOf(ast.table, *spec, ast.order_by[i].column, path.Index(".orderBy", i)).status());
    }
    if (ast.start) {
      for (const auto& [name, v] : ast.start->row) {
        // Keep the parent segment alive: a Path points at its parent.
        const Path start_row = path.Key(".start.row.");
        const Path p = start_row.Key(name);
        ASSIGN_OR_RETURN(int c, ColumnOf(ast.table, *spec, name, p));
        RETURN_IF_ERROR(CheckLiteral(*spec, c, v, p));
      }
    }
    if (ast.select) {
      for (size_t i = 0; i < ast.select->size(); ++i) {
        RETURN_IF_ERROR(
            ColumnOf(ast.table, *spec, (*ast.select)[i], path.Index(".select", i)).status());
      }
    }
    for (size_t i = 0; i < ast.related.size(); ++i) {
      RETURN_IF_ERROR(CheckRelated(ast.related[i], ast.table, *spec, path.Index(".related", i)));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<TreeNode>> Level(const Ast& ast,
                                              const std::vector<std::pair<int, Value>>& constraint,
                                              const Path& path) {
    ASSIGN_OR_RETURN(std::vector<const RowValues*> rows, LevelRows(ast, constraint, path));
    ASSIGN_OR_RETURN(const TableSpec* spec, SpecOf(ast.table, path));
    std::vector<TreeNode> out;
    out.reserve(rows.size());
    for (const RowValues* r : rows) {
      TreeNode node;
      node.row = MakeRow(*r);
      for (size_t i = 0; i < ast.related.size(); ++i) {
        const CorrelatedSubquery& rel = ast.related[i];
        const Path rpath = path.Index(".related", i);
        std::vector<std::pair<int, Value>> child_constraint;
        ASSIGN_OR_RETURN(bool correlates, ChildConstraint(rel, ast.table, *spec, *r, rpath,
                                                          &child_constraint));
        std::vector<TreeNode> children;
        if (correlates) {
          ASSIGN_OR_RETURN(children,
                           Level(*rel.subquery, child_constraint, rpath.Key(".subquery")));
        }
        node.relationships.emplace_back(rel.subquery->alias.value_or(""), std::move(children));
      }
      out.push_back(std::move(node));
    }
    return out;
  }

 private:
  absl::StatusOr<const TableSpec*> SpecOf(const std::string& table, const Path& path) {
    auto it = schema_.find(table);
    if (it == schema_.end()) {
      std::vector<std::string> names;
      for (const auto& [n, s] : schema_) names.push_back(n);
      return absl::InvalidArgumentError(StrCat(path.Str(), ".table: unknown table \"", table,
                                                     "\" (tables: ", absl::StrJoin(names, ", "),
                                                     ")"));
    }
    return &it->second;
  }

  static absl::StatusOr<int> ColumnOf(const std::string& table, const TableSpec& spec,
                                      const std::string& name, const Path& path) {
    const int c = spec.ColumnIndex(name);
    if (c < 0) {
      return absl::InvalidArgumentError(StrCat(path.Str(), ": unknown column \"", name,
                                                     "\" of table \"", table, "\" (columns: ",
                                                     spec.ColumnNames(), ")"));
    }
    return c;
  }

  // Builds the child's (column, value) constraint from the parent row; false when a parent cell
  // is null (null never correlates).
  absl::StatusOr<bool> ChildConstraint(const CorrelatedSubquery& rel, const std::string& table,
                                       const TableSpec& spec, const RowValues& row,
                                       const Path& path,
                                       std::vector<std::pair<int, Value>>* out) {
    const Ast& sub = *rel.subquery;
    ASSIGN_OR_RETURN(const TableSpec* child, SpecOf(sub.table, path.Key(".subquery")));
    if (rel.correlation.parent_field.size() != rel.correlation.child_field.size()) {
      return absl::InvalidArgumentError(
          StrCat(path.Str(), ".correlation: parentField and childField differ in length"));
    }
    bool correlates = true;
    for (size_t k = 0; k < rel.correlation.parent_field.size(); ++k) {
      ASSIGN_OR_RETURN(int p, ColumnOf(table, spec, rel.correlation.parent_field[k],
                                       path.Key(".correlation").Index(".parentField", k)));
      ASSIGN_OR_RETURN(int c, ColumnOf(sub.table, *child, rel.correlation.child_field[k],
                                       path.Key(".correlation").Index(".childField", k)));
      if (row[p].is_null()) correlates = false;
      out->emplace_back(c, row[p]);
    }
    return correlates;
  }

  static bool KindFits(ColumnType t, const Value& v) {
    if (v.is_null()) return true;
    switch (t) {
      case ColumnType::kString:
      case ColumnType::kJson: return v.is_string();
      case ColumnType::kNumber: return v.is_number();
      case ColumnType::kBoolean: return v.is_bool();
    }
    return false;
  }

  static absl::Status CheckLiteral(const TableSpec& spec, int col, const Value& v,
                                   const Path& path) {
    if (KindFits(spec.columns[col].type, v)) return absl::OkStatus();
    return absl::InvalidArgumentError(StrCat(path.Str(), ": column \"", spec.columns[col].name,
                                             "\" is ", ColumnTypeName(spec.columns[col].type),
                                             ", got ", v.DebugString()));
  }

  absl::Status CheckRelated(const CorrelatedSubquery& rel, const std::string& table,
                            const TableSpec& spec, const Path& path) {
    const Ast& sub = *rel.subquery;
    const Path sub_path = path.Key(".subquery");
    ASSIGN_OR_RETURN(const TableSpec* child, SpecOf(sub.table, sub_path));
    if (rel.correlation.parent_field.size() != rel.correlation.child_field.size() ||
        rel.correlation.parent_field.empty()) {
      return absl::InvalidArgumentError(StrCat(
          path.Str(), ".correlation: parentField and childField must be non-empty and equally long"));
    }
    for (size_t k = 0; k < rel.correlation.parent_field.size(); ++k) {
      ASSIGN_OR_RETURN(int p, ColumnOf(table, spec, rel.correlation.parent_field[k],
                                       path.Key(".correlation").Index(".parentField", k)));
      ASSIGN_OR_RETURN(int c, ColumnOf(sub.table, *child, rel.correlation.child_field[k],
                                       path.Key(".correlation").Index(".childField", k)));
      const ColumnType pt = spec.columns[p].type, ct = child->columns[c].type;
      const bool stringish = (pt == ColumnType::kString || pt == ColumnType::kJson) &&
                             (ct == ColumnType::kString || ct == ColumnType::kJson);
      if (pt != ct && !stringish) {
        return absl::InvalidArgumentError(StrCat(path.Str(), ".correlation: parentField \"",
                                                 spec.columns[p].name, "\" (", ColumnTypeName(pt),
                                                 ") and childField \"", child->columns[c].name,
                                                 "\" (", ColumnTypeName(ct), ") differ in type"));
      }
    }
    return StaticCheck(sub, sub_path);
  }

  absl::Status CheckCondition(const Condition& c, const std::string& table, const TableSpec& spec,
                              const Path& path) {
    switch (c.type) {
      case Condition::Type::kAnd:
      case Condition::Type::kOr:
        for (size_t i = 0; i < c.conditions.size(); ++i) {
          RETURN_IF_ERROR(CheckCondition(c.conditions[i], table, spec, path.Index(".conditions", i)));
        }
        return absl::OkStatus();
      case Condition::Type::kCorrelatedSubquery:
        return CheckRelated(c.related, table, spec, path.Key(".related"));
      case Condition::Type::kSimple: break;
    }
    // Column operands resolve; a literal facing a column must fit its type.
    std::optional<int> left_col, right_col;
    if (c.left.kind == ValuePosition::Kind::kColumn) {
      ASSIGN_OR_RETURN(left_col, ColumnOf(table, spec, c.left.column, path.Key(".left").Key(".name")));
    }
    if (c.right.kind == ValuePosition::Kind::kColumn) {
      ASSIGN_OR_RETURN(right_col,
                       ColumnOf(table, spec, c.right.column, path.Key(".right").Key(".name")));
    }
    const bool like = c.op == SimpleOp::kLike || c.op == SimpleOp::kNotLike ||
                      c.op == SimpleOp::kILike || c.op == SimpleOp::kNotILike;
    auto check_side = [&](const std::optional<int>& col, const ValuePosition& other,
                          const Path& other_path) -> absl::Status {
      if (!col || other.kind != ValuePosition::Kind::kLiteral) return absl::OkStatus();
      if (other.is_list) {
        for (size_t i = 0; i < other.list.size(); ++i) {
          RETURN_IF_ERROR(CheckLiteral(spec, *col, other.list[i], other_path.Index(".value", i)));
        }
        return absl::OkStatus();
      }
      return CheckLiteral(spec, *col, other.literal, other_path.Key(".value"));
    };
    if (like) {
      for (const auto& col : {left_col, right_col}) {
        if (col && spec.columns[*col].type != ColumnType::kString &&
            spec.columns[*col].type != ColumnType::kJson) {
          return absl::InvalidArgumentError(StrCat(path.Str(), ": ", SimpleOpName(c.op),
                                                   " needs a string column, \"",
                                                   spec.columns[*col].name, "\" is ",
                                                   ColumnTypeName(spec.columns[*col].type)));
        }
      }
      if (c.right.kind == ValuePosition::Kind::kLiteral && !c.right.is_list &&
          !c.right.literal.is_null() && !c.right.literal.is_string()) {
        return absl::InvalidArgumentError(
            StrCat(path.Str(), ".right.value: a ", SimpleOpName(c.op), " pattern must be a string"));
      }
    }
    if (left_col && right_col) {
      const ColumnType lt = spec.columns[*left_col].type, rt = spec.columns[*right_col].type;
      const bool stringish = (lt == ColumnType::kString || lt == ColumnType::kJson) &&
                             (rt == ColumnType::kString || rt == ColumnType::kJson);
      if (lt != rt && !stringish) {
        return absl::InvalidArgumentError(StrCat(path.Str(), ": cannot compare column \"",
                                                 spec.columns[*left_col].name, "\" (",
                                                 ColumnTypeName(lt), ") with column \"",
                                                 spec.columns[*right_col].name, "\" (",
                                                 ColumnTypeName(rt), ")"));
      }
    }
    RETURN_IF_ERROR(check_side(left_col, c.right, path.Key(".right")));
    RETURN_IF_ERROR(check_side(right_col, c.left, path.Key(".left")));
    return absl::OkStatus();
  }

  absl::StatusOr<const Value*> Operand(const ValuePosition& vp, const std::string& table,
                                const TableSpec& spec, const RowValues& row,
                                const Path& path) {
    if (vp.kind == ValuePosition::Kind::kColumn) {
      ASSIGN_OR_RETURN(int c, ColumnOf(table, spec, vp.column, path.Key(".name")));
      return &row[c];
    }
    return &vp.literal;
  }

  static absl::Status KindMismatch(const Path& path, const Value& a, const Value& b) {
    return absl::InvalidArgumentError(StrCat(path.Str(), ": cannot compare ", a.DebugString(),
                                                   " with ", b.DebugString(),
                                                   " (different kinds)"));
  }

  absl::StatusOr<bool> EvalCondition(const Condition& c, const std::string& table,
                                     const TableSpec& spec, const RowValues& row,
                                     const Path& path) {
    switch (c.type) {
      case Condition::Type::kAnd:
        for (size_t i = 0; i < c.conditions.size(); ++i) {
          ASSIGN_OR_RETURN(bool b, EvalCondition(c.conditions[i], table, spec, row,
                                                 path.Index(".conditions", i)));
          if (!b) return false;
        }
        return true;
      case Condition::Type::kOr:
        for (size_t i = 0; i < c.conditions.size(); ++i) {
          ASSIGN_OR_RETURN(bool b, EvalCondition(c.conditions[i], table, spec, row,
                                                 path.Index(".conditions", i)));
          if (b) return true;
        }
        return false;
      case Condition::Type::kCorrelatedSubquery: {
        const Path rpath = path.Key(".related");
        std::vector<std::pair<int, Value>> constraint;
        ASSIGN_OR_RETURN(bool correlates,
                         ChildConstraint(c.related, table, spec, row, rpath, &constraint));
        bool exists = false;
        if (correlates) {
          ASSIGN_OR_RETURN(std::vector<const RowValues*> rows,
                           LevelRows(*c.related.subquery, constraint,
                                     rpath.Key(".subquery")));
          exists = !rows.empty();
        }
        return c.not_exists ? !exists : exists;
      }
      case Condition::Type::kSimple: break;
    }
    ASSIGN_OR_RETURN(const Value* left_ptr, Operand(c.left, table, spec, row, path.Key(".left")));
    const Value& left = *left_ptr;
    if (c.op == SimpleOp::kIn || c.op == SimpleOp::kNotIn) {
      if (!(c.right.kind == ValuePosition::Kind::kLiteral && c.right.is_list)) {
        return absl::InvalidArgumentError(
            StrCat(path.Str(), ".right: ", SimpleOpName(c.op), " expects an array literal"));
      }
      if (left.is_null()) return false;
      bool found = false;
      for (const Value& v : c.right.list) {
        if (v.is_null()) continue;
        if (!ComparableKinds(left, v)) return KindMismatch(path, left, v);
        found = found || CompareValues(left, v) == 0;
      }
      return c.op == SimpleOp::kIn ? found : !found;
    }
    if (c.right.kind == ValuePosition::Kind::kLiteral && c.right.is_list) {
      return absl::InvalidArgumentError(
          StrCat(path.Str(), ".right: an array literal needs IN or NOT IN"));
    }
    ASSIGN_OR_RETURN(const Value* right_ptr,
                     Operand(c.right, table, spec, row, path.Key(".right")));
    const Value& right = *right_ptr;
    if (c.op == SimpleOp::kIs || c.op == SimpleOp::kIsNot) {
      bool same;
      if (left.is_null() || right.is_null()) {
        same = left.is_null() && right.is_null();
      } else {
        if (!ComparableKinds(left, right)) return KindMismatch(path, left, right);
        same = CompareValues(left, right) == 0;
      }
      return c.op == SimpleOp::kIs ? same : !same;
    }
    if (left.is_null() || right.is_null()) return false;
    if (!ComparableKinds(left, right)) return KindMismatch(path, left, right);
    switch (c.op) {
      case SimpleOp::kEq: return CompareValues(left, right) == 0;
      case SimpleOp::kNe: return CompareValues(left, right) != 0;
      case SimpleOp::kLt: return CompareValues(left, right) < 0;
      case SimpleOp::kLe: return CompareValues(left, right) <= 0;
      case SimpleOp::kGt: return CompareValues(left, right) > 0;
      case SimpleOp::kGe: return CompareValues(left, right) >= 0;
      case SimpleOp::kLike:
      case SimpleOp::kNotLike:
      case SimpleOp::kILike:
      case SimpleOp::kNotILike: {
        if (!left.is_string() || !right.is_string()) {
          return absl::InvalidArgumentError(StrCat(
              path.Str(), ": ", SimpleOpName(c.op), " needs strings, got ", left.DebugString(), " and ",
              right.DebugString()));
        }
        const bool ci = c.op == SimpleOp::kILike || c.op == SimpleOp::kNotILike;
        const bool m = LikeMatch(left.as_string(), right.as_string(), ci);
        return (c.op == SimpleOp::kLike || c.op == SimpleOp::kILike) ? m : !m;
      }
      default: break;
    }
    return absl::InternalError(StrCat(path.Str(), ": unhandled operator ", SimpleOpName(c.op)));
  }

  // The rows of `table` that may satisfy `constraint`: for a constrained level, the rows whose
  // constrained cells equal the first row's of the same key, grouped once per evaluation (the
  // naive per-parent scan made nested queries quadratic); the exact check stays in LevelRows.
  const std::vector<const RowValues*>& Candidates(
      const std::string& table, const PlainTable& rows,
      const std::vector<std::pair<int, Value>>& constraint) {
    std::vector<int> cols;
    RowValues key;
    for (const auto& [col, v] : constraint) {
      cols.push_back(col);
      key.push_back(v);
    }
    Group& g = groups_[{table, cols}];
    if (!g.built) {
      g.built = true;
      for (const auto& [pk, row] : rows) {
        RowValues k;
        for (int c : cols) k.push_back(row[c]);
        g.by_key[k].push_back(&row);
      }
    }
    auto it = g.by_key.find(key);
    static const std::vector<const RowValues*> kNone;
    return it == g.by_key.end() ? kNone : it->second;
  }
  struct Group {
    bool built = false;
    std::map<RowValues, std::vector<const RowValues*>, PkLess> by_key;
  };

  const PlainTables& tables_;
  const Schema& schema_;
  std::map<std::pair<std::string, std::vector<int>>, Group> groups_;
};

}  // namespace

absl::StatusOr<std::vector<TreeNode>> FreshQuery(const Ast& ast, const PlainTables& tables,
                                                 const Schema& schema) {
  Evaluator ev(tables, schema);
  const Path root = Path::Root();
  RETURN_IF_ERROR(ev.StaticCheck(ast, root));
  return ev.Level(ast, {}, root);
}

}  // namespace rindle
