#include "oracles/fresh_query.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "engine/str_util.h"
#include "absl/strings/str_join.h"
#include "engine/status_macros.h"

namespace rindle {
namespace {

// ---------------------------------------------------------------------------------------------
// UTF-8 and lowercasing

// Decodes UTF-8; an invalid byte decodes as itself (0x80..0xFF) so nothing is lost.
std::vector<char32_t> DecodeUtf8(std::string_view s) {
  std::vector<char32_t> out;
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    int len = 0;
    char32_t cp = 0;
    if (b < 0x80) {
      len = 1;
      cp = b;
    } else if ((b & 0xE0) == 0xC0) {
      len = 2;
      cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
      len = 3;
      cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
      len = 4;
      cp = b & 0x07;
    }
    bool ok = len > 0 && i + len <= s.size();
    for (int k = 1; ok && k < len; ++k) {
      const unsigned char c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) {
        ok = false;
      } else {
        cp = (cp << 6) | (c & 0x3F);
      }
    }
    if (!ok) {
      out.push_back(b);
      i += 1;
    } else {
      out.push_back(cp);
      i += len;
    }
  }
  return out;
}

void AppendUtf8(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

char32_t LowerCodePoint(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c < 0xC0) return c;
  // Latin-1 Supplement: À..Þ except ×.
  if (c <= 0xDE) return c == 0xD7 ? c : c + 32;
  if (c < 0x100) return c;
  // Latin Extended-A.
  if (c <= 0x17F) {
    if (c == 0x130) return 'i';  // İ
    if (c == 0x178) return 0xFF;  // Ÿ
    if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return (c % 2 == 0) ? c + 1 : c;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c % 2 == 1) ? c + 1 : c;
    return c;
  }
  // Greek.
  if (c == 0x386) return 0x3AC;
  if (c >= 0x388 && c <= 0x38A) return c + 37;
  if (c == 0x38C) return 0x3CC;
  if (c == 0x38E || c == 0x38F) return c + 63;
  if ((c >= 0x391 && c <= 0x3A1) || (c >= 0x3A3 && c <= 0x3AB)) return c + 32;
  // Cyrillic.
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if ((c >= 0x460 && c <= 0x481) || (c >= 0x48A && c <= 0x4BF) || (c >= 0x4D0 && c <= 0x52F)) {
    return (c % 2 == 0) ? c + 1 : c;
  }
  if (c == 0x4C0) return 0x4CF;
  if (c >= 0x4C1 && c <= 0x4CE) return (c % 2 == 1) ? c + 1 : c;
  return c;
}

// ---------------------------------------------------------------------------------------------
// LIKE

struct PatternToken {
  enum Kind { kChar, kOne, kMany } kind;
  char32_t c = 0;
};

std::vector<PatternToken> TokenizePattern(const std::vector<char32_t>& p) {
  std::vector<PatternToken> out;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\') {
      if (i + 1 < p.size()) {
        out.push_back({PatternToken::kChar, p[++i]});
      } else {
        out.push_back({PatternToken::kChar, '\\'});
      }
    } else if (p[i] == '%') {
      out.push_back({PatternToken::kMany, 0});
    } else if (p[i] == '_') {
      out.push_back({PatternToken::kOne, 0});
    } else {
      out.push_back({PatternToken::kChar, p[i]});
    }
  }
  return out;
}

// Plain dynamic programming over (text position, pattern position): obviously correct.
bool MatchTokens(const std::vector<char32_t>& t, const std::vector<PatternToken>& p) {
  const size_t n = t.size(), m = p.size();
  // can[j] = pattern suffix p[j..] matches text suffix t[i..], for the current i (from the back).
  std::vector<char> next(m + 1, 0), cur(m + 1, 0);
  // i = n: only trailing %s match the empty text.
  next[m] = 1;
  for (size_t j = m; j-- > 0;) next[j] = p[j].kind == PatternToken::kMany && next[j + 1];
  for (size_t i = n; i-- > 0;) {
    cur[m] = 0;
    for (size_t j = m; j-- > 0;) {
      switch (p[j].kind) {
        case PatternToken::kChar: cur[j] = p[j].c == t[i] && next[j + 1]; break;
        case PatternToken::kOne: cur[j] = next[j + 1]; break;
        case PatternToken::kMany: cur[j] = cur[j + 1] || next[j]; break;
      }
    }
    std::swap(cur, next);
  }
  return next[0] != 0;
}

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
    if (index_ >= 0) out += "[" + std::to_string(index_) + "]";
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
      for (const auto& [pk, row] : tit->second) {
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
      for (const auto& [name, v] : ast.start->row) {
        ASSIGN_OR_RETURN(int c, ColumnOf(ast.table, *spec, name,
                                         path.Key(".start.row.").Key(name)));
        (void)c;
      }
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

  const PlainTables& tables_;
  const Schema& schema_;
};

}  // namespace

std::string Utf8Lower(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  // Re-encode code points; invalid bytes (decoded as 0x80..0xFF) are copied back as raw bytes.
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      out.push_back(static_cast<char>(LowerCodePoint(b)));
      ++i;
      continue;
    }
    int len = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
    bool ok = len > 0 && i + len <= text.size();
    for (int k = 1; ok && k < len; ++k) {
      ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    }
    if (!ok) {
      out.push_back(text[i]);
      ++i;
      continue;
    }
    const std::vector<char32_t> cps = DecodeUtf8(text.substr(i, len));
    AppendUtf8(LowerCodePoint(cps[0]), out);
    i += len;
  }
  return out;
}

bool LikeMatch(std::string_view text, std::string_view pattern, bool case_insensitive) {
  std::vector<char32_t> t, p;
  if (case_insensitive) {
    t = DecodeUtf8(Utf8Lower(text));
    p = DecodeUtf8(Utf8Lower(pattern));
  } else {
    t = DecodeUtf8(text);
    p = DecodeUtf8(pattern);
  }
  return MatchTokens(t, TokenizePattern(p));
}

absl::StatusOr<std::vector<TreeNode>> FreshQuery(const Ast& ast, const PlainTables& tables,
                                                 const Schema& schema) {
  Evaluator ev(tables, schema);
  return ev.Level(ast, {}, Path::Root());
}

}  // namespace rindle
