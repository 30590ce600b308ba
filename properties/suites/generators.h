// generators.h — RapidCheck generators for the engine-level properties (SPEC §4 item 7): random
// table specs, rows over small value domains (so collisions, equal sort keys and nulls are
// common), random single-table ASTs, and random write transactions against a known state.
// Header-only (the generators are templates over RapidCheck's Gen<T>); stateless.
//
// Value domains: strings {"a","b","B","ab","%","_x",""}, numbers {-1,0,1,2.5,3}, booleans; a
// nullable column is null about one time in five.
//
// Write transactions are generated against a PlainTables model that the generator advances op
// by op, so a "valid" txn is valid in sequence (including pk-changing edits); an "invalid" op is
// one of: duplicate add, remove of an absent row, remove with wrong cells, edit with a wrong old
// row, edit onto an existing pk, wrong width, wrong type (or null in a non-nullable column).
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "engine/ast.h"
#include "engine/ast_json.h"
#include "engine/db.h"
#include "engine/schema.h"
#include "engine/value.h"
#include "oracles/plain_store.h"

namespace rindle::props {

// ---------------------------------------------------------------------------------------------
// Value domains

inline const std::vector<std::string>& StringDomain() {
  static const std::vector<std::string> d = {"a", "b", "B", "ab", "%", "_x", ""};
  return d;
}
inline const std::vector<double>& NumberDomain() {
  static const std::vector<double> d = {-1, 0, 1, 2.5, 3};
  return d;
}

// A non-null value of `type`.
inline rc::Gen<Value> GenNonNullValue(ColumnType type) {
  switch (type) {
    case ColumnType::kNumber:
      return rc::gen::map(rc::gen::elementOf(NumberDomain()),
                          [](double d) { return Value::Number(d); });
    case ColumnType::kBoolean:
      return rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return Value::Bool(b); });
    case ColumnType::kString:
    case ColumnType::kJson:
    default:
      return rc::gen::map(rc::gen::elementOf(StringDomain()),
                          [](const std::string& s) { return Value::String(s); });
  }
}

inline rc::Gen<Value> GenCell(const ColumnSpec& col) {
  if (!col.nullable) return GenNonNullValue(col.type);
  return rc::gen::weightedOneOf<Value>(
      {{1, rc::gen::just(Value::Null())}, {4, GenNonNullValue(col.type)}});
}

// A value of a kind the column does not accept (wrong type, or null in a non-nullable column).
inline rc::Gen<Value> GenWrongCell(const ColumnSpec& col) {
  std::vector<rc::Gen<Value>> gens;
  if (!col.nullable) gens.push_back(rc::gen::just(Value::Null()));
  if (col.type != ColumnType::kString && col.type != ColumnType::kJson)
    gens.push_back(GenNonNullValue(ColumnType::kString));
  if (col.type != ColumnType::kNumber) gens.push_back(GenNonNullValue(ColumnType::kNumber));
  if (col.type != ColumnType::kBoolean) gens.push_back(GenNonNullValue(ColumnType::kBoolean));
  return rc::gen::join(rc::gen::elementOf(gens));
}

// ---------------------------------------------------------------------------------------------
// Table specs and rows

inline rc::Gen<TableSpec> GenTableSpec() {
  return rc::gen::exec([] {
    TableSpec spec;
    const int ncols = *rc::gen::inRange(2, 6);
    for (int i = 0; i < ncols; ++i) {
      ColumnSpec c;
      c.name = std::string("c").append(std::to_string(i));
      c.type = *rc::gen::element(ColumnType::kString, ColumnType::kNumber, ColumnType::kBoolean);
      c.nullable = *rc::gen::arbitrary<bool>();
      spec.columns.push_back(c);
    }
    const int npk = *rc::gen::inRange(1, 3);
    std::vector<int> idx(ncols);
    for (int i = 0; i < ncols; ++i) idx[i] = i;
    // pk columns: a random ordered choice of npk distinct columns.
    std::vector<int> pk;
    while (static_cast<int>(pk.size()) < npk) {
      const int k = *rc::gen::inRange(0, static_cast<int>(idx.size()));
      pk.push_back(idx[k]);
      idx.erase(idx.begin() + k);
    }
    for (int p : pk) spec.columns[p].nullable = false;
    spec.primary_key = pk;
    return spec;
  });
}

inline rc::Gen<RowValues> GenRow(const TableSpec& spec) {
  return rc::gen::exec([spec] {
    RowValues row;
    for (const auto& c : spec.columns) row.push_back(*GenCell(c));
    return row;
  });
}

// Rows with distinct pks (duplicates by pk are dropped, first wins).
inline rc::Gen<PlainTable> GenRows(const TableSpec& spec, int max_rows) {
  return rc::gen::exec([spec, max_rows] {
    const int n = *rc::gen::inRange(0, max_rows + 1);
    PlainTable t;
    for (int i = 0; i < n; ++i) {
      RowValues r = *GenRow(spec);
      t.emplace(spec.PkOf(r), r);
    }
    return t;
  });
}

// A schema of 1–2 tables "t0", "t1".
inline rc::Gen<Schema> GenSchema() {
  return rc::gen::exec([] {
    Schema s;
    const int n = *rc::gen::inRange(1, 3);
    for (int i = 0; i < n; ++i) s[std::string("t").append(std::to_string(i))] = *GenTableSpec();
    return s;
  });
}

inline rc::Gen<PlainTables> GenTables(const Schema& schema, int max_rows) {
  return rc::gen::exec([schema, max_rows] {
    PlainTables tables;
    for (const auto& [name, spec] : schema) tables[name] = *GenRows(spec, max_rows);
    return tables;
  });
}

// ---------------------------------------------------------------------------------------------
// Single-table ASTs

inline ValuePosition ColumnVP(const std::string& name) {
  ValuePosition vp;
  vp.kind = ValuePosition::Kind::kColumn;
  vp.column = name;
  return vp;
}
inline ValuePosition LiteralVP(Value v) {
  ValuePosition vp;
  vp.kind = ValuePosition::Kind::kLiteral;
  vp.literal = std::move(v);
  return vp;
}
inline ValuePosition ListVP(std::vector<Value> vs) {
  ValuePosition vp;
  vp.kind = ValuePosition::Kind::kLiteral;
  vp.is_list = true;
  vp.list = std::move(vs);
  return vp;
}

inline rc::Gen<Condition> GenSimpleCondition(const TableSpec& spec) {
  return rc::gen::exec([spec] {
    const int ci = *rc::gen::inRange(0, static_cast<int>(spec.columns.size()));
    const ColumnSpec& col = spec.columns[ci];
    const bool is_string = col.type == ColumnType::kString;
    std::vector<SimpleOp> ops = {SimpleOp::kEq, SimpleOp::kNe, SimpleOp::kLt,    SimpleOp::kLe,
                                 SimpleOp::kGt, SimpleOp::kGe, SimpleOp::kIs,    SimpleOp::kIsNot,
                                 SimpleOp::kIn, SimpleOp::kNotIn};
    if (is_string) {
      for (auto op : {SimpleOp::kLike, SimpleOp::kNotLike, SimpleOp::kILike, SimpleOp::kNotILike})
        ops.push_back(op);
    }
    Condition c;
    c.type = Condition::Type::kSimple;
    c.op = *rc::gen::elementOf(ops);
    c.left = ColumnVP(col.name);
    switch (c.op) {
      case SimpleOp::kLike:
      case SimpleOp::kNotLike:
      case SimpleOp::kILike:
      case SimpleOp::kNotILike:
        if (*rc::gen::inRange(0, 10) == 0) {  // a null pattern: matches nothing
          c.right = LiteralVP(Value::Null());
          break;
        }
        c.right = LiteralVP(Value::String(*rc::gen::element<std::string>(
            "a", "a%", "%a", "%a%", "_", "__", "%", "", "b", "B%", "_x", "\\%", "\\_x", "%b%",
            "A_")));
        break;
      case SimpleOp::kIs:
      case SimpleOp::kIsNot:
        c.right = LiteralVP(*rc::gen::weightedOneOf<Value>(
            {{1, rc::gen::just(Value::Null())}, {1, GenNonNullValue(col.type)}}));
        break;
      case SimpleOp::kIn:
      case SimpleOp::kNotIn: {
        const int n = *rc::gen::inRange(0, 4);
        std::vector<Value> vs;
        for (int i = 0; i < n; ++i)  // null elements never match
          vs.push_back(*rc::gen::inRange(0, 8) == 0 ? Value::Null() : *GenNonNullValue(col.type));
        c.right = ListVP(std::move(vs));
        break;
      }
      default:  // a null literal makes the comparison false
        c.right = LiteralVP(*rc::gen::inRange(0, 10) == 0 ? Value::Null()
                                                           : *GenNonNullValue(col.type));
        break;
    }
    return c;
  });
}

inline rc::Gen<Condition> GenCondition(const TableSpec& spec, int depth) {
  if (depth <= 0) return GenSimpleCondition(spec);
  return rc::gen::weightedOneOf<Condition>(
      {{3, GenSimpleCondition(spec)},
       {2, rc::gen::exec([spec, depth] {
          Condition c;
          c.type = *rc::gen::element(Condition::Type::kAnd, Condition::Type::kOr);
          const int n = *rc::gen::inRange(0, 4);
          for (int i = 0; i < n; ++i) c.conditions.push_back(*GenCondition(spec, depth - 1));
          return c;
        })}});
}

inline rc::Gen<Ast> GenAst(const std::string& table, const TableSpec& spec) {
  return rc::gen::exec([table, spec] {
    Ast ast;
    ast.table = table;
    if (*rc::gen::inRange(0, 4) != 0) ast.where = *GenCondition(spec, *rc::gen::inRange(0, 4));
    // orderBy: 0–3 distinct columns.
    const int norder = *rc::gen::inRange(0, 4);
    std::vector<int> cols(spec.columns.size());
    for (size_t i = 0; i < cols.size(); ++i) cols[i] = static_cast<int>(i);
    for (int i = 0; i < norder && !cols.empty(); ++i) {
      const int k = *rc::gen::inRange(0, static_cast<int>(cols.size()));
      ast.order_by.push_back({spec.columns[cols[k]].name, *rc::gen::arbitrary<bool>()});
      cols.erase(cols.begin() + k);
    }
    // start: values for some sort columns (those of the completed sort).
    if (*rc::gen::inRange(0, 3) == 0) {
      std::vector<int> sort_cols;
      for (const auto& o : ast.order_by) sort_cols.push_back(spec.ColumnIndex(o.column));
      for (int p : spec.primary_key)
        if (std::find(sort_cols.begin(), sort_cols.end(), p) == sort_cols.end())
          sort_cols.push_back(p);
      Start st;
      st.exclusive = *rc::gen::arbitrary<bool>();
      for (int ci : sort_cols) {
        if (*rc::gen::inRange(0, 4) == 0) continue;  // leave some sort columns unnamed
        st.row.emplace_back(spec.columns[ci].name, *GenCell(spec.columns[ci]));
      }
      if (*rc::gen::inRange(0, 6) == 0) {  // a cursor column outside the sort is ignored
        for (size_t ci = 0; ci < spec.columns.size(); ++ci) {
          if (std::find(sort_cols.begin(), sort_cols.end(), static_cast<int>(ci)) !=
              sort_cols.end())
            continue;
          st.row.emplace_back(spec.columns[ci].name, *GenCell(spec.columns[ci]));
          break;
        }
      }
      ast.start = st;
    }
    if (*rc::gen::inRange(0, 5) == 0) {
      ast.one = true;
      ast.limit = 1;
    } else if (*rc::gen::arbitrary<bool>()) {
      ast.limit = *rc::gen::inRange(0, 7);
    }
    return ast;
  });
}

// ---------------------------------------------------------------------------------------------
// Nested ASTs: related subqueries and correlated EXISTS / NOT EXISTS (issue 3)

// A correlation parent → child over 1–2 column pairs of the same type; nullopt when the tables
// share no column type.
inline rc::Gen<std::optional<Correlation>> GenCorrelation(const TableSpec& parent,
                                                          const TableSpec& child) {
  return rc::gen::exec([parent, child]() -> std::optional<Correlation> {
    std::vector<std::pair<int, int>> pairs;
    for (size_t p = 0; p < parent.columns.size(); ++p)
      for (size_t c = 0; c < child.columns.size(); ++c)
        if (parent.columns[p].type == child.columns[c].type)
          pairs.emplace_back(static_cast<int>(p), static_cast<int>(c));
    if (pairs.empty()) return std::nullopt;
    Correlation corr;
    const int n = std::min<int>(*rc::gen::inRange(1, 3), static_cast<int>(pairs.size()));
    for (int i = 0; i < n; ++i) {
      const auto [p, c] = *rc::gen::elementOf(pairs);
      corr.parent_field.push_back(parent.columns[p].name);
      corr.child_field.push_back(child.columns[c].name);
    }
    return corr;
  });
}

// A query over `table` with up to `depth` levels of related subqueries and EXISTS conditions
// (anywhere in an and/or tree, several per level, NOT EXISTS and the flip hint included). Child
// tables are any of the schema's (self-correlation included).
inline rc::Gen<Ast> GenDeepAst(const Schema& schema, const std::string& table, int depth) {
  return rc::gen::exec([schema, table, depth] {
    const TableSpec& spec = schema.at(table);
    Ast ast = *GenAst(table, spec);
    if (depth <= 0) return ast;
    std::vector<std::string> names;
    for (const auto& [n, s] : schema) names.push_back(n);
    auto subquery = [&](const std::string& child, const std::string& alias)
        -> std::optional<CorrelatedSubquery> {
      std::optional<Correlation> corr = *GenCorrelation(spec, schema.at(child));
      if (!corr) return std::nullopt;
      CorrelatedSubquery rel;
      rel.correlation = *corr;
      Ast sub = *GenDeepAst(schema, child, depth - 1);
      sub.alias = alias;
      // Mostly without a start cursor, so that children and witnesses are common.
      if (*rc::gen::inRange(0, 3) != 0) sub.start.reset();
      rel.subquery = std::make_shared<const Ast>(std::move(sub));
      return rel;
    };
    const int nrel = *rc::gen::inRange(0, 3);
    for (int i = 0; i < nrel; ++i) {
      auto rel = subquery(*rc::gen::elementOf(names), std::string("r").append(std::to_string(i)));
      if (!rel) continue;
      rel->hidden = *rc::gen::inRange(0, 6) == 0;
      ast.related.push_back(std::move(*rel));
    }
    const int nexists = *rc::gen::inRange(0, 3);
    for (int i = 0; i < nexists; ++i) {
      auto rel = subquery(*rc::gen::elementOf(names), std::string("e").append(std::to_string(i)));
      if (!rel) continue;
      Condition ex;
      ex.type = Condition::Type::kCorrelatedSubquery;
      ex.not_exists = *rc::gen::inRange(0, 3) == 0;
      ex.flip = *rc::gen::inRange(0, 4) == 0;
      ex.related = std::move(*rel);
      if (!ast.where) {
        ast.where = std::move(ex);
      } else {
        Condition both;
        both.type = *rc::gen::element(Condition::Type::kAnd, Condition::Type::kOr);
        both.conditions.push_back(std::move(*ast.where));
        both.conditions.push_back(std::move(ex));
        if (*rc::gen::arbitrary<bool>()) std::swap(both.conditions[0], both.conditions[1]);
        ast.where = std::move(both);
      }
    }
    return ast;
  });
}

// A query over one of the schema's tables, nested up to `depth` levels (0 = single table).
inline rc::Gen<Ast> GenQuery(const Schema& schema, int depth = 0) {
  return rc::gen::exec([schema, depth] {
    std::vector<std::string> names;
    for (const auto& [n, s] : schema) names.push_back(n);
    const std::string t = *rc::gen::elementOf(names);
    return *GenDeepAst(schema, t, depth);
  });
}

// ---------------------------------------------------------------------------------------------
// Write transactions

struct TxnOp {
  enum class Kind { kAdd, kRemove, kEdit };
  Kind kind = Kind::kAdd;
  std::string table;
  RowValues row;      // add / remove: the row; edit: the new row
  RowValues old_row;  // edit only
  bool valid = true;  // whether it is expected to succeed in sequence
  std::string why;    // for an invalid op: what is wrong
};

inline std::ostream& operator<<(std::ostream& os, const TxnOp& op) {
  switch (op.kind) {
    case TxnOp::Kind::kAdd: os << "add " << op.table << " " << RowDebugString(op.row); break;
    case TxnOp::Kind::kRemove: os << "remove " << op.table << " " << RowDebugString(op.row); break;
    case TxnOp::Kind::kEdit:
      os << "edit " << op.table << " " << RowDebugString(op.old_row) << " -> "
         << RowDebugString(op.row);
      break;
  }
  if (!op.valid) os << "  [INVALID: " << op.why << "]";
  return os;
}

using Txn = std::vector<TxnOp>;

// Applies a valid op to the model. Returns false when it does not apply (a generator bug).
inline bool ApplyToModel(const Schema& schema, PlainTables& tables, const TxnOp& op) {
  const TableSpec& spec = schema.at(op.table);
  PlainTable& t = tables[op.table];
  switch (op.kind) {
    case TxnOp::Kind::kAdd: return t.emplace(spec.PkOf(op.row), op.row).second;
    case TxnOp::Kind::kRemove: {
      auto it = t.find(spec.PkOf(op.row));
      if (it == t.end() || CompareRowValues(it->second, op.row) != 0) return false;
      t.erase(it);
      return true;
    }
    case TxnOp::Kind::kEdit: {
      auto it = t.find(spec.PkOf(op.old_row));
      if (it == t.end() || CompareRowValues(it->second, op.old_row) != 0) return false;
      t.erase(it);
      return t.emplace(spec.PkOf(op.row), op.row).second;
    }
  }
  return false;
}

// One valid op against `tables` (or nullopt when none can be generated, e.g. a full bool table).
inline rc::Gen<std::optional<TxnOp>> GenValidOp(const Schema& schema, const PlainTables& tables) {
  return rc::gen::exec([schema, tables]() -> std::optional<TxnOp> {
    std::vector<std::string> names;
    for (const auto& [n, s] : schema) names.push_back(n);
    TxnOp op;
    op.table = *rc::gen::elementOf(names);
    const TableSpec& spec = schema.at(op.table);
    const PlainTable empty;
    const PlainTable& t = tables.count(op.table) ? tables.at(op.table) : empty;
    std::vector<RowValues> rows;
    for (const auto& [pk, r] : t) rows.push_back(r);
    const int kind = rows.empty() ? 0 : *rc::gen::inRange(0, 3);
    if (kind == 0) {
      for (int attempt = 0; attempt < 4; ++attempt) {
        RowValues r = *GenRow(spec);
        if (!t.count(spec.PkOf(r))) {
          op.kind = TxnOp::Kind::kAdd;
          op.row = r;
          return op;
        }
      }
      if (rows.empty()) return std::nullopt;
    }
    const RowValues& cur = *rc::gen::elementOf(rows);
    if (kind == 1) {
      op.kind = TxnOp::Kind::kRemove;
      op.row = cur;
      return op;
    }
    // edit: change some cells; sometimes pk cells (then the new pk must be free).
    op.kind = TxnOp::Kind::kEdit;
    op.old_row = cur;
    for (int attempt = 0; attempt < 4; ++attempt) {
      RowValues next = cur;
      const bool change_pk = *rc::gen::arbitrary<bool>();
      for (size_t i = 0; i < spec.columns.size(); ++i) {
        const bool is_pk = std::find(spec.primary_key.begin(), spec.primary_key.end(),
                                     static_cast<int>(i)) != spec.primary_key.end();
        if (is_pk && !change_pk) continue;
        if (*rc::gen::arbitrary<bool>()) next[i] = *GenCell(spec.columns[i]);
      }
      if (change_pk) {  // make sure one pk cell really moves
        const int p = *rc::gen::elementOf(spec.primary_key);
        for (int k = 0; k < 3 && CompareValues(next[p], cur[p]) == 0; ++k)
          next[p] = *GenNonNullValue(spec.columns[p].type);
      }
      const RowValues npk = spec.PkOf(next);
      if (CompareRowValues(npk, spec.PkOf(cur)) == 0 || !t.count(npk)) {
        op.row = next;
        return op;
      }
    }
    op.row = cur;  // a no-change edit is valid too
    return op;
  });
}

// One invalid op against `tables`.
inline rc::Gen<TxnOp> GenInvalidOp(const Schema& schema, const PlainTables& tables) {
  return rc::gen::exec([schema, tables]() -> TxnOp {
    std::vector<std::string> names;
    for (const auto& [n, s] : schema) names.push_back(n);
    TxnOp op;
    op.valid = false;
    op.table = *rc::gen::elementOf(names);
    const TableSpec& spec = schema.at(op.table);
    const PlainTable empty;
    const PlainTable& t = tables.count(op.table) ? tables.at(op.table) : empty;
    std::vector<RowValues> rows;
    for (const auto& [pk, r] : t) rows.push_back(r);
    const auto any_row = [&]() -> RowValues {
      return rows.empty() ? *GenRow(spec) : *rc::gen::elementOf(rows);
    };
    // Kinds that need no stored row first; the rest need one.
    int kind = *rc::gen::inRange(0, rows.empty() ? 4 : 8);
    switch (kind) {
      case 0: {  // remove of an absent row
        RowValues r = *GenRow(spec);
        if (t.count(spec.PkOf(r))) break;  // fall back below
        op.kind = TxnOp::Kind::kRemove;
        op.row = r;
        op.why = "remove of an absent row";
        return op;
      }
      case 1: {  // wrong width (add/remove/edit)
        RowValues r = any_row();
        if (*rc::gen::arbitrary<bool>()) r.push_back(*GenNonNullValue(spec.columns[0].type));
        else r.pop_back();
        const int k = *rc::gen::inRange(0, 3);
        op.kind = k == 0 ? TxnOp::Kind::kAdd : k == 1 ? TxnOp::Kind::kRemove : TxnOp::Kind::kEdit;
        op.row = r;
        if (op.kind == TxnOp::Kind::kEdit) {
          op.old_row = any_row();
          if (*rc::gen::arbitrary<bool>()) std::swap(op.old_row, op.row);
        }
        op.why = "wrong width";
        return op;
      }
      case 2: {  // wrong type in an add
        RowValues r = *GenRow(spec);
        const int ci = *rc::gen::inRange(0, static_cast<int>(spec.columns.size()));
        r[ci] = *GenWrongCell(spec.columns[ci]);
        op.kind = TxnOp::Kind::kAdd;
        op.row = r;
        op.why = "wrong type in column " + spec.columns[ci].name;
        return op;
      }
      case 3: {  // edit of an absent row
        RowValues r = *GenRow(spec);
        if (t.count(spec.PkOf(r))) break;
        op.kind = TxnOp::Kind::kEdit;
        op.old_row = r;
        op.row = r;
        op.why = "edit of an absent row";
        return op;
      }
      case 4: {  // duplicate add
        RowValues r = *rc::gen::elementOf(rows);
        RowValues dup = *GenRow(spec);
        for (int p : spec.primary_key) dup[p] = r[p];
        op.kind = TxnOp::Kind::kAdd;
        op.row = dup;
        op.why = "duplicate add";
        return op;
      }
      case 5: {  // remove / edit with a wrong old row (same pk, other cells)
        RowValues r = *rc::gen::elementOf(rows);
        RowValues wrong = *GenRow(spec);
        for (int p : spec.primary_key) wrong[p] = r[p];
        if (CompareRowValues(wrong, r) == 0) break;
        if (*rc::gen::arbitrary<bool>()) {
          op.kind = TxnOp::Kind::kRemove;
          op.row = wrong;
          op.why = "remove with wrong cells";
        } else {
          op.kind = TxnOp::Kind::kEdit;
          op.old_row = wrong;
          op.row = r;
          op.why = "edit with a wrong old row";
        }
        return op;
      }
      case 6: {  // edit onto another stored pk
        if (rows.size() < 2) break;
        const int a = *rc::gen::inRange(0, static_cast<int>(rows.size()));
        int b = *rc::gen::inRange(0, static_cast<int>(rows.size()) - 1);
        if (b >= a) ++b;
        RowValues next = rows[a];
        for (int p : spec.primary_key) next[p] = rows[b][p];
        op.kind = TxnOp::Kind::kEdit;
        op.old_row = rows[a];
        op.row = next;
        op.why = "edit onto an existing pk";
        return op;
      }
      case 7: {  // edit to a wrong type
        RowValues r = *rc::gen::elementOf(rows);
        RowValues next = r;
        const int ci = *rc::gen::inRange(0, static_cast<int>(spec.columns.size()));
        next[ci] = *GenWrongCell(spec.columns[ci]);
        op.kind = TxnOp::Kind::kEdit;
        op.old_row = r;
        op.row = next;
        op.why = "edit to a wrong type in column " + spec.columns[ci].name;
        return op;
      }
    }
    // Fallback: a width error always fails.
    RowValues r = any_row();
    r.push_back(Value::Null());
    op.kind = TxnOp::Kind::kAdd;
    op.row = r;
    op.why = "wrong width (fallback)";
    return op;
  });
}

// A txn of 1..max_ops valid ops, generated in sequence against `tables` (advanced as it goes).
inline rc::Gen<Txn> GenValidTxn(const Schema& schema, const PlainTables& tables, int max_ops) {
  return rc::gen::exec([schema, tables, max_ops] {
    PlainTables model = tables;
    Txn txn;
    const int n = *rc::gen::inRange(1, max_ops + 1);
    for (int i = 0; i < n; ++i) {
      auto op = *GenValidOp(schema, model);
      if (!op) continue;
      ApplyToModel(schema, model, *op);
      txn.push_back(*op);
    }
    return txn;
  });
}

// Mostly valid ops, and (when `force_invalid`) exactly one invalid op somewhere; otherwise an
// invalid op appears with probability ~1/8 per txn. Ops after the invalid one are valid against
// the model as it was before the invalid op.
inline rc::Gen<Txn> GenTxn(const Schema& schema, const PlainTables& tables, int max_ops,
                           bool force_invalid) {
  return rc::gen::exec([schema, tables, max_ops, force_invalid] {
    PlainTables model = tables;
    Txn txn;
    const int n = *rc::gen::inRange(1, max_ops + 1);
    const bool invalid = force_invalid || *rc::gen::inRange(0, 8) == 0;
    const int bad_at = invalid ? *rc::gen::inRange(0, n) : -1;
    for (int i = 0; i < n; ++i) {
      if (i == bad_at) {
        txn.push_back(*GenInvalidOp(schema, model));
        continue;
      }
      auto op = *GenValidOp(schema, model);
      if (!op) continue;
      ApplyToModel(schema, model, *op);
      txn.push_back(*op);
    }
    return txn;
  });
}

// Runs the ops of `txn` on an open WriteTxn; returns the index of the first failing op (or -1)
// and its status.
inline std::pair<int, absl::Status> RunOps(WriteTxn& tx, const Txn& txn) {
  for (size_t i = 0; i < txn.size(); ++i) {
    const TxnOp& op = txn[i];
    absl::Status s;
    switch (op.kind) {
      case TxnOp::Kind::kAdd: s = tx.Add(op.table, op.row); break;
      case TxnOp::Kind::kRemove: s = tx.Remove(op.table, op.row); break;
      case TxnOp::Kind::kEdit: s = tx.Edit(op.table, op.old_row, op.row); break;
    }
    if (!s.ok()) return {static_cast<int>(i), s};
  }
  return {-1, absl::OkStatus()};
}

// The net effect of going from `before` to `after` as independent per-pk server delta ops
// (add / remove / same-pk edit), tables in name order, pks in order.
inline std::vector<ServerDeltaOp> NetDelta(const PlainTables& before, const PlainTables& after) {
  std::vector<ServerDeltaOp> out;
  std::set<std::string> names;
  for (const auto& [n, t] : before) names.insert(n);
  for (const auto& [n, t] : after) names.insert(n);
  const PlainTable empty;
  for (const auto& name : names) {
    const PlainTable& b = before.count(name) ? before.at(name) : empty;
    const PlainTable& a = after.count(name) ? after.at(name) : empty;
    for (const auto& [pk, row] : b) {
      auto it = a.find(pk);
      if (it == a.end()) {
        out.push_back({name, ServerDeltaOp::Type::kRemove, row, {}});
      } else if (CompareRowValues(it->second, row) != 0) {
        out.push_back({name, ServerDeltaOp::Type::kEdit, it->second, row});
      }
    }
    for (const auto& [pk, row] : a)
      if (!b.count(pk)) out.push_back({name, ServerDeltaOp::Type::kAdd, row, {}});
  }
  return out;
}

// Every pk (per table) a txn mentions: old and new pks of every op.
inline std::map<std::string, std::set<RowValues, PkLess>> TouchedPks(const Schema& schema,
                                                                    const Txn& txn) {
  std::map<std::string, std::set<RowValues, PkLess>> out;
  for (const auto& op : txn) {
    const TableSpec& spec = schema.at(op.table);
    out[op.table].insert(spec.PkOf(op.row));
    if (op.kind == TxnOp::Kind::kEdit) out[op.table].insert(spec.PkOf(op.old_row));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// A whole starting point: schema, initial rows, 1–3 queries. Printed through operator<< (found by
// ADL, so RapidCheck shows it in a counterexample).

struct Setup {
  Schema schema;
  PlainTables rows;
  std::vector<Ast> queries;
};

inline std::ostream& operator<<(std::ostream& os, const Setup& s) {
  os << "Setup{\n";
  for (const auto& [n, spec] : s.schema) os << "  table " << n << ": " << TableSpecToJson(spec).dump() << "\n";
  os << "  rows: " << PlainTablesToJson(s.rows).dump() << "\n";
  for (size_t i = 0; i < s.queries.size(); ++i)
    os << "  query " << i + 1 << ": " << AstToJson(s.queries[i]).dump() << "\n";
  return os << "}";
}

// `depth` > 0 nests related/EXISTS up to that depth (GenDeepAst).
inline rc::Gen<Setup> GenSetup(int max_rows, int max_queries, int depth = 0) {
  return rc::gen::exec([max_rows, max_queries, depth] {
    Setup s;
    s.schema = *GenSchema();
    s.rows = *GenTables(s.schema, max_rows);
    const int nq = *rc::gen::inRange(1, max_queries + 1);
    for (int i = 0; i < nq; ++i) s.queries.push_back(*GenQuery(s.schema, depth));
    return s;
  });
}

}  // namespace rindle::props
